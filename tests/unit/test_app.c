/* test_app.c: unit tests of lg_app (pgbench's and sysbench's per-second reports and final
 * summaries) against real pgbench 15.18 and sysbench 1.0.20 output in tests/unit/data/app (its
 * README says how each file was made). Expected figures are the ones the files print. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "lg_app.h"
#include "lg_error.h"
#include "lg_util.h"

#ifndef LG_TEST_DATA_DIR
#define LG_TEST_DATA_DIR "tests/unit/data"
#endif

#define PG LG_APP_PGBENCH
#define SB LG_APP_SYSBENCH_OLTP

/* ---- helpers ---- */

/* Caller owns the result (NUL-terminated). */
static char *s_load(const char *name, size_t *len)
{
    char path[4096], *buf = NULL;
    size_t n = 0;
    snprintf(path, sizeof path, "%s/app/%s", LG_TEST_DATA_DIR, name);
    int rc = lg_read_file(path, 1 << 20, &buf, &n);
    if (rc != 0)
        fail_msg("could not read \"%s\": %d", path, rc);
    if (len)
        *len = n;
    return buf;
}

/* Exact: strtod of the printed decimal and the same decimal as a C literal are the same double.
 * NAN equals NAN here (a figure the tool does not have). */
#define EQ(got, want) s_eq((got), (want), #got, __LINE__)
static void s_eq(double got, double want, const char *what, int line)
{
    if ((isnan(got) && isnan(want)) || got == want)
        return;
    fail_msg("line %d: %s is %.17g, want %.17g", line, what, got, want);
}

/* Lines of text that start with prefix: the count of reports, found without lg_app. */
static size_t s_count_prefix(const char *text, const char *prefix)
{
    size_t n = 0, pl = strlen(prefix);
    for (const char *p = text; p && *p;) {
        if (strncmp(p, prefix, pl) == 0)
            n++;
        p = strchr(p, '\n');
        if (p)
            p++;
    }
    return n;
}

/* Every line of text through lg_app_parse_line; the reports into s[] (at most cap), their number
 * into *n. No line may be malformed. */
static void s_samples(lg_app_kind_t k, const char *text, lg_app_sample_t *s, size_t cap, size_t *n)
{
    char *copy = strdup(text), *save = NULL, err[256];
    assert_non_null(copy);
    *n = 0;
    for (char *l = strtok_r(copy, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
        lg_app_sample_t x;
        err[0] = 0;
        int rc = lg_app_parse_line(k, l, &x, err, sizeof err);
        if (rc < 0)
            fail_msg("\"%s\": %s", l, err);
        if (rc == 1) {
            assert_true(*n < cap);
            s[(*n)++] = x;
        }
    }
    free(copy);
}

/* text with the first "old" replaced by "new"; caller owns the result. */
static char *s_replace(const char *text, const char *old, const char *new_)
{
    const char *at = strstr(text, old);
    if (!at)
        fail_msg("\"%s\" not in the text", old);
    size_t n = strlen(text) - strlen(old) + strlen(new_) + 1;
    char *out = malloc(n);
    assert_non_null(out);
    snprintf(out, n, "%.*s%s%s", (int)(at - text), text, new_, at + strlen(old));
    return out;
}

/* The summary in text fails to parse, and the message holds want. */
static void s_final_fails(lg_app_kind_t k, const char *text, const char *want)
{
    lg_app_total_t t;
    char err[256] = "";
    assert_int_equal(lg_app_parse_final(k, text, strlen(text), &t, err, sizeof err), LG_EPARSE);
    if (!strstr(err, want))
        fail_msg("message \"%s\" does not name %s", err, want);
}

/* Sum of per-second tps x 1 s against the tool's total. Both tools time their reports on their
 * own clock (an interval is 1 s give or take a few ms), the first report counts from the start
 * of the run and the last leaves out the part of a second after it (sysbench's "total time" is
 * 4.0187 s for --time=4); that is well under 1% in the captured runs, so 2% holds with room
 * while a lost or doubled report (20-25% in these 4-5 s runs) would not pass. */
static void s_sum_near(const lg_app_sample_t *s, size_t n, double field_off_total, size_t off)
{
    double sum = 0;
    for (size_t i = 0; i < n; i++) {
        double v;
        memcpy(&v, (const char *)&s[i] + off, sizeof v);
        sum += v * 1.0;
    }
    if (fabs(sum - field_off_total) > 0.02 * field_off_total)
        fail_msg("per-second sum %.2f is not within 2%% of the total %.0f", sum, field_off_total);
}
#define SUM_NEAR(s, n, total, field)                                                               \
    s_sum_near((s), (n), (double)(total), offsetof(lg_app_sample_t, field))

/* ---- pgbench ---- */

static void test_pgbench(void **state)
{
    (void)state;
    size_t plen, flen, n;
    char *prog = s_load("pgbench_progress.txt", &plen), *fin = s_load("pgbench_final.txt", &flen);
    lg_app_sample_t s[16];
    s_samples(PG, prog, s, 16, &n);
    assert_int_equal(n, s_count_prefix(prog, "progress: "));
    assert_int_equal(n, 5);
    /* progress: 1.0 s, 481.0 tps, lat 8.022 ms stddev 9.601, 0 failed */
    EQ(s[0].t_s, 1.0);
    assert_false(s[0].t_epoch);
    EQ(s[0].tps, 481.0);
    EQ(s[0].lat_avg_ms, 8.022);
    EQ(s[0].lat_stddev_ms, 9.601);
    EQ(s[0].failed, 0);
    EQ(s[0].retried, 0);
    EQ(s[0].lag_ms, 0);
    EQ(s[0].qps, NAN);
    EQ(s[0].lat_pct_ms, NAN);
    EQ(s[0].err_ps, NAN);
    assert_int_equal(s[0].pct, 0);
    assert_int_equal(s[0].threads, 0);
    /* progress: 5.0 s, 1130.2 tps, lat 3.481 ms stddev 5.617, 0 failed */
    EQ(s[4].t_s, 5.0);
    EQ(s[4].tps, 1130.2);
    EQ(s[4].lat_avg_ms, 3.481);
    EQ(s[4].lat_stddev_ms, 5.617);

    lg_app_total_t t;
    char err[256] = "";
    assert_int_equal(lg_app_parse_final(PG, fin, flen, &t, err, sizeof err), 0);
    assert_int_equal(t.kind, PG);
    assert_int_equal(t.scale, 1);
    assert_int_equal(t.clients, 4);
    assert_int_equal(t.threads, 2);
    EQ(t.duration_s, 5);
    assert_int_equal(t.tx_per_client, 0);
    assert_int_equal(t.transactions, 4656);
    assert_int_equal(t.failed, 0);
    assert_int_equal(t.retried, 0);
    assert_int_equal(t.retries, 0);
    assert_int_equal(t.skipped, 0);
    EQ(t.lat_avg_ms, 4.272);
    EQ(t.lat_stddev_ms, 6.242);
    EQ(t.init_conn_ms, 32.030);
    EQ(t.tps, 928.231146);
    EQ(t.qps, NAN);
    EQ(t.lat_pct_ms, NAN);
    SUM_NEAR(s, n, t.transactions, tps);

    /* stderr and stdout in one text (2>&1): the progress lines are skipped, same totals */
    size_t blen = plen + flen;
    char *both = malloc(blen + 1);
    assert_non_null(both);
    memcpy(both, prog, plen);
    memcpy(both + plen, fin, flen + 1);
    lg_app_total_t t2;
    assert_int_equal(lg_app_parse_final(PG, both, blen, &t2, err, sizeof err), 0);
    assert_int_equal(t2.transactions, t.transactions);
    EQ(t2.tps, t.tps);
    /* stderr alone has no summary */
    s_final_fails(PG, prog, "missing \"scaling factor\"");
    free(both);
    free(prog);
    free(fin);
}

/* --progress-timestamp: the time is Unix time with milliseconds */
static void test_pgbench_timestamp(void **state)
{
    (void)state;
    size_t flen, n;
    char *prog = s_load("pgbench_ts_progress.txt", NULL),
         *fin = s_load("pgbench_ts_final.txt", &flen);
    lg_app_sample_t s[16];
    s_samples(PG, prog, s, 16, &n);
    assert_int_equal(n, s_count_prefix(prog, "progress: "));
    assert_int_equal(n, 5);
    /* progress: 1796173623.550 s, 606.4 tps, lat 6.370 ms stddev 7.667, 0 failed */
    EQ(s[0].t_s, 1796173623.550);
    assert_true(s[0].t_epoch);
    EQ(s[0].tps, 606.4);
    EQ(s[0].lat_avg_ms, 6.370);
    EQ(s[0].lat_stddev_ms, 7.667);
    /* progress: 1796173627.546 s, 3045.9 tps, lat 1.311 ms stddev 0.942, 0 failed */
    EQ(s[4].t_s, 1796173627.546);
    EQ(s[4].tps, 3045.9);
    EQ(s[4].lat_avg_ms, 1.311);
    EQ(s[4].lat_stddev_ms, 0.942);

    lg_app_total_t t;
    char err[256] = "";
    assert_int_equal(lg_app_parse_final(PG, fin, flen, &t, err, sizeof err), 0);
    assert_int_equal(t.transactions, 11530);
    EQ(t.lat_avg_ms, 1.728);
    EQ(t.lat_stddev_ms, 2.555);
    EQ(t.init_conn_ms, 13.540);
    EQ(t.tps, 2308.098523);
    SUM_NEAR(s, n, t.transactions, tps);
    free(prog);
    free(fin);
}

/* Serialization failures (REPEATABLE READ updates of one row), one try: "N failed" */
static void test_pgbench_failed(void **state)
{
    (void)state;
    size_t flen, n;
    char *prog = s_load("pgbench_failed_progress.txt", NULL);
    char *fin = s_load("pgbench_failed_final.txt", &flen);
    lg_app_sample_t s[16];
    s_samples(PG, prog, s, 16, &n);
    assert_int_equal(n, s_count_prefix(prog, "progress: "));
    assert_int_equal(n, 4);
    /* progress: 1.0 s, 397.0 tps, lat 2.494 ms stddev 0.198, 1188 failed */
    EQ(s[0].tps, 397.0);
    EQ(s[0].lat_avg_ms, 2.494);
    EQ(s[0].lat_stddev_ms, 0.198);
    EQ(s[0].failed, 1188);
    /* progress: 4.0 s, 372.0 tps, lat 2.714 ms stddev 0.858, 1097 failed */
    EQ(s[3].t_s, 4.0);
    EQ(s[3].tps, 372.0);
    EQ(s[3].failed, 1097);

    lg_app_total_t t;
    char err[256] = "";
    assert_int_equal(lg_app_parse_final(PG, fin, flen, &t, err, sizeof err), 0);
    EQ(t.duration_s, 4);
    assert_int_equal(t.transactions, 1529);
    assert_int_equal(t.failed, 4534);
    EQ(t.lat_avg_ms, 2.618);
    EQ(t.tps, 381.910863);
    SUM_NEAR(s, n, t.transactions, tps);
    /* the failures of the intervals add up to the total exactly */
    double failed = 0;
    for (size_t i = 0; i < n; i++)
        failed += s[i].failed;
    EQ(failed, (double)t.failed);
    free(prog);
    free(fin);
}

/* --max-tries=3: "N retried, N retries" per second, and in the summary */
static void test_pgbench_retries(void **state)
{
    (void)state;
    size_t flen, n;
    char *prog = s_load("pgbench_retries_progress.txt", NULL);
    char *fin = s_load("pgbench_retries_final.txt", &flen);
    lg_app_sample_t s[16];
    s_samples(PG, prog, s, 16, &n);
    assert_int_equal(n, s_count_prefix(prog, "progress: "));
    assert_int_equal(n, 4);
    /* progress: 1.0 s, 362.0 tps, lat 3.322 ms stddev 1.645, 331 failed, 385 retried, 743 retries
     */
    EQ(s[0].tps, 362.0);
    EQ(s[0].lat_avg_ms, 3.322);
    EQ(s[0].lat_stddev_ms, 1.645);
    EQ(s[0].failed, 331);
    EQ(s[0].retried, 385);
    EQ(s[0].retries, 743);
    /* progress: 4.0 s, 363.0 tps, lat 3.271 ms stddev 1.579, 336 failed, 387 retried, 744 retries
     */
    EQ(s[3].tps, 363.0);
    EQ(s[3].failed, 336);
    EQ(s[3].retried, 387);
    EQ(s[3].retries, 744);

    lg_app_total_t t;
    char err[256] = "";
    assert_int_equal(lg_app_parse_final(PG, fin, flen, &t, err, sizeof err), 0);
    assert_int_equal(t.transactions, 1454);
    assert_int_equal(t.failed, 1335);
    assert_int_equal(t.retried, 1561);
    assert_int_equal(t.retries, 3000);
    EQ(t.tps, 363.671016);
    SUM_NEAR(s, n, t.transactions, tps);
    double failed = 0, retried = 0, retries = 0;
    for (size_t i = 0; i < n; i++) {
        failed += s[i].failed;
        retried += s[i].retried;
        retries += s[i].retries;
    }
    EQ(failed, (double)t.failed);
    EQ(retried, (double)t.retried);
    EQ(retries, (double)t.retries);
    free(prog);
    free(fin);
}

/* -R 200 -L 50: "lag X ms, N skipped"; the summary's skipped and schedule lag lines */
static void test_pgbench_rate(void **state)
{
    (void)state;
    size_t flen, n;
    char *prog = s_load("pgbench_rate_progress.txt", NULL);
    char *fin = s_load("pgbench_rate_final.txt", &flen);
    lg_app_sample_t s[16];
    s_samples(PG, prog, s, 16, &n);
    assert_int_equal(n, s_count_prefix(prog, "progress: "));
    /* progress: 1.0 s, 216.0 tps, lat 1.113 ms stddev 1.378, 0 failed, lag 0.152 ms, 0 skipped */
    EQ(s[0].tps, 216.0);
    EQ(s[0].lat_avg_ms, 1.113);
    EQ(s[0].lat_stddev_ms, 1.378);
    EQ(s[0].lag_ms, 0.152);
    EQ(s[0].skipped, 0);
    /* progress: 2.0 s, 194.0 tps, lat 0.823 ms stddev 0.450, 0 failed, lag 0.104 ms, 0 skipped */
    EQ(s[n - 1].t_s, 2.0);
    EQ(s[n - 1].tps, 194.0);
    EQ(s[n - 1].lag_ms, 0.104);

    lg_app_total_t t;
    char err[256] = "";
    assert_int_equal(lg_app_parse_final(PG, fin, flen, &t, err, sizeof err), 0);
    EQ(t.duration_s, 3);
    assert_int_equal(t.transactions, 623);
    assert_int_equal(t.skipped, 0);
    EQ(t.lat_avg_ms, 0.969);
    EQ(t.tps, 207.916374);
    /* This -T 3 run printed 2 reports, not 3: pgbench's thread was asleep on the rate schedule
     * when the run ended, so the last second has no report. The per-second samples of a run
     * cannot be assumed to cover it; the totals come from the summary. */
    assert_int_equal(n, 2);
    double sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += s[i].tps;
    assert_true(sum < (double)t.transactions);
    free(prog);
    free(fin);
}

/* ---- sysbench ---- */

static void test_sysbench_p95(void **state)
{
    (void)state;
    size_t len, n;
    char *out = s_load("sysbench_oltp.txt", &len);
    lg_app_sample_t s[16];
    s_samples(SB, out, s, 16, &n);
    assert_int_equal(n, s_count_prefix(out, "[ "));
    assert_int_equal(n, 5);
    /* [ 1s ] thds: 4 tps: 1307.23 qps: 26186.57 (r/w/o: 18339.18/5228.92/2618.46)
     * lat (ms,95%): 5.37 err/s: 0.00 reconn/s: 0.00 */
    EQ(s[0].t_s, 1);
    assert_false(s[0].t_epoch);
    assert_int_equal(s[0].threads, 4);
    EQ(s[0].tps, 1307.23);
    EQ(s[0].qps, 26186.57);
    EQ(s[0].read_qps, 18339.18);
    EQ(s[0].write_qps, 5228.92);
    EQ(s[0].other_qps, 2618.46);
    assert_int_equal(s[0].pct, 95);
    EQ(s[0].lat_pct_ms, 5.37);
    EQ(s[0].err_ps, 0);
    EQ(s[0].reconn_ps, 0);
    EQ(s[0].lat_avg_ms, NAN);
    EQ(s[0].lat_stddev_ms, NAN);
    EQ(s[0].failed, NAN);
    /* [ 5s ] thds: 4 tps: 1570.71 qps: 31404.27 (r/w/o: 21981.99/6281.85/3140.43)
     * lat (ms,95%): 4.10 err/s: 0.00 reconn/s: 0.00 */
    EQ(s[4].t_s, 5);
    EQ(s[4].tps, 1570.71);
    EQ(s[4].qps, 31404.27);
    EQ(s[4].read_qps, 21981.99);
    EQ(s[4].write_qps, 6281.85);
    EQ(s[4].other_qps, 3140.43);
    EQ(s[4].lat_pct_ms, 4.10);

    lg_app_total_t t;
    char err[256] = "";
    assert_int_equal(lg_app_parse_final(SB, out, len, &t, err, sizeof err), 0);
    assert_int_equal(t.kind, SB);
    assert_int_equal(t.threads, 4);
    assert_int_equal(t.reads, 105070);
    assert_int_equal(t.writes, 30020);
    assert_int_equal(t.others, 15010);
    assert_int_equal(t.queries, 150100);
    EQ(t.qps, 29999.27);
    assert_int_equal(t.transactions, 7505);
    EQ(t.tps, 1499.96);
    assert_int_equal(t.errors, 0);
    EQ(t.errors_ps, 0);
    assert_int_equal(t.reconnects, 0);
    EQ(t.reconnects_ps, 0);
    EQ(t.duration_s, 5.0028);
    assert_int_equal(t.events, 7505);
    EQ(t.lat_min_ms, 0.60);
    EQ(t.lat_avg_ms, 2.66);
    EQ(t.lat_max_ms, 27.29);
    assert_int_equal(t.pct, 95);
    EQ(t.lat_pct_ms, 4.49);
    EQ(t.lat_sum_ms, 19992.25);
    EQ(t.lat_stddev_ms, NAN);
    EQ(t.init_conn_ms, NAN);
    assert_int_equal(t.clients, 0);
    SUM_NEAR(s, n, t.transactions, tps);
    SUM_NEAR(s, n, t.queries, qps);
    free(out);
}

static void test_sysbench_p99(void **state)
{
    (void)state;
    size_t len, n;
    char *out = s_load("sysbench_oltp_p99.txt", &len);
    lg_app_sample_t s[16];
    s_samples(SB, out, s, 16, &n);
    assert_int_equal(n, s_count_prefix(out, "[ "));
    assert_int_equal(n, 5);
    /* [ 1s ] thds: 4 tps: 1643.33 qps: 32925.60 (r/w/o: 23055.61/6579.33/3290.66)
     * lat (ms,99%): 7.17 err/s: 0.00 reconn/s: 0.00 */
    EQ(s[0].tps, 1643.33);
    EQ(s[0].qps, 32925.60);
    EQ(s[0].read_qps, 23055.61);
    assert_int_equal(s[0].pct, 99);
    EQ(s[0].lat_pct_ms, 7.17);
    /* [ 5s ] thds: 4 tps: 1497.58 qps: 29949.53 (r/w/o: 20968.07/5986.31/2995.15)
     * lat (ms,99%): 8.74 err/s: 0.00 reconn/s: 0.00 */
    EQ(s[4].tps, 1497.58);
    EQ(s[4].qps, 29949.53);
    EQ(s[4].other_qps, 2995.15);
    EQ(s[4].lat_pct_ms, 8.74);

    lg_app_total_t t;
    char err[256] = "";
    assert_int_equal(lg_app_parse_final(SB, out, len, &t, err, sizeof err), 0);
    assert_int_equal(t.queries, 150240);
    EQ(t.qps, 30022.12);
    assert_int_equal(t.transactions, 7512);
    EQ(t.tps, 1501.11);
    EQ(t.duration_s, 5.0036);
    EQ(t.lat_min_ms, 0.62);
    EQ(t.lat_max_ms, 37.62);
    assert_int_equal(t.pct, 99);
    EQ(t.lat_pct_ms, 8.58);
    EQ(t.lat_sum_ms, 19996.45);
    SUM_NEAR(s, n, t.transactions, tps);
    free(out);
}

/* 16 threads on a 20-row table: deadlocks, which sysbench ignores and counts (err/s) */
static void test_sysbench_errors(void **state)
{
    (void)state;
    size_t len, n;
    char *out = s_load("sysbench_oltp_errors.txt", &len);
    lg_app_sample_t s[16];
    s_samples(SB, out, s, 16, &n);
    assert_int_equal(n, s_count_prefix(out, "[ "));
    assert_int_equal(n, 4);
    /* [ 1s ] thds: 16 tps: 736.56 qps: 25627.88 (r/w/o: 19694.48/3789.59/2143.81)
     * lat (ms,99%): 81.48 err/s: 654.72 reconn/s: 0.00 */
    assert_int_equal(s[0].threads, 16);
    EQ(s[0].tps, 736.56);
    EQ(s[0].lat_pct_ms, 81.48);
    EQ(s[0].err_ps, 654.72);
    /* [ 4s ] thds: 16 tps: 1045.01 qps: 33109.27 (r/w/o: 25140.21/5125.04/2844.02)
     * lat (ms,99%): 52.89 err/s: 755.01 reconn/s: 0.00 */
    EQ(s[3].tps, 1045.01);
    EQ(s[3].lat_pct_ms, 52.89);
    EQ(s[3].err_ps, 755.01);

    lg_app_total_t t;
    char err[256] = "";
    assert_int_equal(lg_app_parse_final(SB, out, len, &t, err, sizeof err), 0);
    assert_int_equal(t.threads, 16);
    assert_int_equal(t.queries, 120487);
    assert_int_equal(t.transactions, 3517);
    EQ(t.tps, 875.01);
    assert_int_equal(t.errors, 3083);
    EQ(t.errors_ps, 767.03);
    EQ(t.duration_s, 4.0187);
    EQ(t.lat_avg_ms, 18.25);
    EQ(t.lat_pct_ms, 64.47);
    SUM_NEAR(s, n, t.transactions, tps);
    SUM_NEAR(s, n, t.errors, err_ps);
    free(out);
}

/* ---- what is not a report, and malformed ones ---- */

static void test_other_lines(void **state)
{
    (void)state;
    const char *pg[] = {"",
                        "\n",
                        "starting vacuum...end.",
                        "pgbench (15.18 (Debian 15.18-0+deb12u1))",
                        "tps = 928.231146 (without initial connection time)",
                        " progress: 1.0 s, 481.0 tps, lat 8.022 ms stddev 9.601, 0 failed",
                        "[ 1s ] thds: 4 tps: 1.00 qps: 1.00 (r/w/o: 1.00/0.00/0.00) lat (ms,95%): "
                        "1.00 err/s: 0.00 reconn/s: 0.00"};
    const char *sb[] = {"", "Threads started!",
                        "SQL statistics:", "[ 1s ] queue length: 0, concurrency: 0",
                        "progress: 1.0 s, 481.0 tps, lat 8.022 ms stddev 9.601, 0 failed"};
    lg_app_sample_t s;
    memset(&s, 0x5a, sizeof s);
    unsigned char before[sizeof s];
    memcpy(before, &s, sizeof s);
    for (size_t i = 0; i < sizeof pg / sizeof *pg; i++)
        assert_int_equal(lg_app_parse_line(PG, pg[i], &s, NULL, 0), 0);
    for (size_t i = 0; i < sizeof sb / sizeof *sb; i++)
        assert_int_equal(lg_app_parse_line(SB, sb[i], &s, NULL, 0), 0);
    assert_memory_equal(&s, before, sizeof s); /* untouched */
    /* a trailing CR LF is the end of the line */
    assert_int_equal(
        lg_app_parse_line(PG, "progress: 1.0 s, 481.0 tps, lat 8.022 ms stddev 9.601, 0 failed\r\n",
                          &s, NULL, 0),
        1);
    assert_int_equal(lg_app_parse_line(7, "progress: 1.0 s", &s, NULL, 0), LG_EPARSE);
}

static void test_bad_lines(void **state)
{
    (void)state;
    static const struct {
        lg_app_kind_t k;
        const char *line, *field;
    } c[] = {
        {PG, "progress: x s, 481.0 tps, lat 8.022 ms stddev 9.601, 0 failed", "\"time\""},
        {PG, "progress: 1,0 s, 481,0 tps, lat 8,022 ms stddev 9,601, 0 failed", "\"time\""},
        {PG, "progress: 1.0 s, abc tps, lat 8.022 ms stddev 9.601, 0 failed", "\"tps\""},
        {PG, "progress: 1.0 s, 1e3 tps, lat 8.022 ms stddev 9.601, 0 failed", "\"tps\""},
        {PG, "progress: 1.0 s, inf tps, lat 8.022 ms stddev 9.601, 0 failed", "\"tps\""},
        {PG, "progress: 1.0 s, -4.0 tps, lat 8.022 ms stddev 9.601, 0 failed", "\"tps\""},
        {PG, "progress: 1.0 s, 481.0 tps, lat", "\"lat\""},
        {PG, "progress: 1.0 s, 481.0 tps, lat 8. ms stddev 9.601, 0 failed", "\"lat\""},
        {PG, "progress: 1.0 s, 481.0 tps, lat 8.022 ms", "\"stddev\""},
        {PG, "progress: 1.0 s, 481.0 tps, lat 8.022 ms stddev 9.601, 0 bogus",
         "\"item after stddev\""},
        {PG, "progress: 1.0 s, 481.0 tps, lat 8.022 ms stddev 9.601, lag x ms", "\"lag\""},
        {PG, "progress: 1.0 s, 481.0 tps, lat 8.022 ms stddev 9.601 0 failed", "\"end of line\""},
        {SB,
         "[ xs ] thds: 4 tps: 1307.23 qps: 26186.57 (r/w/o: 18339.18/5228.92/2618.46) lat "
         "(ms,95%): 5.37 err/s: 0.00 reconn/s: 0.00",
         "\"time\""},
        {SB,
         "[ 1s ] thds: four tps: 1307.23 qps: 26186.57 (r/w/o: 18339.18/5228.92/2618.46) lat "
         "(ms,95%): 5.37 err/s: 0.00 reconn/s: 0.00",
         "\"thds\""},
        {SB, "[ 1s ] thds: 4 eps: 1307.23 lat (ms,95%): 5.37", "\"tps\""},
        {SB,
         "[ 1s ] thds: 4 tps: 1307.23 qps: -26186.57 (r/w/o: 18339.18/5228.92/2618.46) lat "
         "(ms,95%): 5.37 err/s: 0.00 reconn/s: 0.00",
         "\"qps\""},
        {SB,
         "[ 1s ] thds: 4 tps: 1307.23 qps: 26186.57 (r/w/o: 18339.18/5228.92) lat (ms,95%): 5.37 "
         "err/s: 0.00 reconn/s: 0.00",
         "\"r/w/o\""},
        {SB,
         "[ 1s ] thds: 4 tps: 1307.23 qps: 26186.57 (r/w/o: 18339.18/5228.92/2618.46) lat "
         "(ms,95%): nan err/s: 0.00 reconn/s: 0.00",
         "\"lat\""},
        {SB,
         "[ 1s ] thds: 4 tps: 1307.23 qps: 26186.57 (r/w/o: 18339.18/5228.92/2618.46) lat "
         "(ms,95%): 5.37",
         "\"err/s\""},
        {SB,
         "[ 1s ] thds: 4 tps: 1307.23 qps: 26186.57 (r/w/o: 18339.18/5228.92/2618.46) lat "
         "(ms,95%): 5.37 err/s: 0.00 reconn/s:",
         "\"reconn/s\""},
        {SB,
         "[ 1s ] thds: 4 tps: 1307.23 qps: 26186.57 (r/w/o: 18339.18/5228.92/2618.46) lat "
         "(ms,95%): 5.37 err/s: 0.00 reconn/s: 0.00 more",
         "\"end of line\""},
    };
    for (size_t i = 0; i < sizeof c / sizeof *c; i++) {
        lg_app_sample_t s;
        char err[256] = "";
        assert_int_equal(lg_app_parse_line(c[i].k, c[i].line, &s, err, sizeof err), LG_EPARSE);
        if (!strstr(err, c[i].field))
            fail_msg("\"%s\": message \"%s\" does not name %s", c[i].line, err, c[i].field);
    }
    /* glibc's "nan" for a pgbench latency (no transaction in the interval, or a variance below
     * zero by rounding) is what the tool printed, not a malformed line */
    lg_app_sample_t s;
    assert_int_equal(lg_app_parse_line(PG,
                                       "progress: 3.0 s, 0.0 tps, lat nan ms stddev -nan, 0 failed",
                                       &s, NULL, 0),
                     1);
    EQ(s.tps, 0);
    EQ(s.lat_avg_ms, NAN);
    EQ(s.lat_stddev_ms, NAN);
    /* --percentile=0 prints 0.00 for a percentile it does not compute */
    assert_int_equal(
        lg_app_parse_line(SB,
                          "[ 1s ] thds: 4 tps: 1.00 qps: 20.00 (r/w/o: 14.00/4.00/2.00) lat "
                          "(ms,0%): 0.00 err/s: 0.00 reconn/s: 0.00",
                          &s, NULL, 0),
        1);
    assert_int_equal(s.pct, 0);
    EQ(s.lat_pct_ms, NAN);
}

/* Every cut of a real report line is a report, another line, or malformed with a message; none
 * reads past the cut (ASan). */
static void test_cut_lines(void **state)
{
    (void)state;
    const char *pg = "progress: 1.0 s, 362.0 tps, lat 3.322 ms stddev 1.645, 331 failed, 385 "
                     "retried, 743 retries";
    const char *sb = "[ 1s ] thds: 4 tps: 1307.23 qps: 26186.57 (r/w/o: 18339.18/5228.92/2618.46) "
                     "lat (ms,95%): 5.37 err/s: 0.00 reconn/s: 0.00";
    const struct {
        lg_app_kind_t k;
        const char *l;
    } c[] = {{PG, pg}, {SB, sb}};
    for (size_t i = 0; i < 2; i++) {
        size_t len = strlen(c[i].l);
        for (size_t n = 0; n <= len; n++) {
            char *cut = malloc(n + 1);
            assert_non_null(cut);
            memcpy(cut, c[i].l, n);
            cut[n] = 0;
            lg_app_sample_t s;
            char err[256] = "";
            int rc = lg_app_parse_line(c[i].k, cut, &s, err, sizeof err);
            assert_true(rc == 0 || rc == 1 || rc == LG_EPARSE);
            if (rc == LG_EPARSE)
                assert_true(strstr(err, "bad \"") != NULL);
            if (n == len)
                assert_int_equal(rc, 1);
            free(cut);
        }
    }
}

/* ---- malformed and truncated summaries ---- */

static void test_bad_pgbench_final(void **state)
{
    (void)state;
    char *fin = s_load("pgbench_final.txt", NULL), *x;
    x = s_replace(fin, "tps = 928.231146 (without initial connection time)\n", "");
    s_final_fails(PG, x, "missing \"tps\"");
    free(x);
    x = s_replace(fin, "(without initial connection time)", "(including reconnection times)");
    s_final_fails(PG, x, "malformed \"tps\"");
    free(x);
    x = s_replace(fin, "latency average = 4.272 ms", "latency average = 4.272");
    s_final_fails(PG, x, "malformed \"latency average\"");
    free(x);
    x = s_replace(fin, "number of clients: 4", "number of clients: four");
    s_final_fails(PG, x, "line 5: malformed \"number of clients\"");
    free(x);
    x = s_replace(fin, "number of clients: 4\n", "number of clients: 4\nnumber of clients: 4\n");
    s_final_fails(PG, x, "\"number of clients\" repeated");
    free(x);
    x = s_replace(fin, "number of failed transactions: 0 (0.000%)",
                  "number of failed transactions: 0");
    s_final_fails(PG, x, "malformed \"number of failed transactions\"");
    free(x);
    x = s_replace(fin, "duration: 5 s\n", "");
    s_final_fails(PG, x, "missing \"duration\"");
    free(x);
    /* -t instead of -T: "number of transactions per client" and "processed: N/M" (the layout
     * pgbench 15 prints for -t), no duration */
    char *y = s_replace(fin, "duration: 5 s", "number of transactions per client: 1164");
    x = s_replace(y, "processed: 4656", "processed: 4656/4656");
    lg_app_total_t t;
    char err[256] = "";
    assert_int_equal(lg_app_parse_final(PG, x, strlen(x), &t, err, sizeof err), 0);
    assert_int_equal(t.tx_per_client, 1164);
    assert_int_equal(t.transactions, 4656);
    EQ(t.duration_s, NAN);
    free(x);
    free(y);
    /* the stddev is printed only with -P, -R or -L: optional */
    x = s_replace(fin, "latency stddev = 6.242 ms\n", "");
    assert_int_equal(lg_app_parse_final(PG, x, strlen(x), &t, err, sizeof err), 0);
    EQ(t.lat_stddev_ms, NAN);
    free(x);
    /* "(including failures)" after a latency average derived from the run time */
    x = s_replace(fin, "latency average = 4.272 ms",
                  "latency average = 4.272 ms (including failures)");
    assert_int_equal(lg_app_parse_final(PG, x, strlen(x), &t, err, sizeof err), 0);
    EQ(t.lat_avg_ms, 4.272);
    free(x);
    free(fin);
}

static void test_bad_sysbench_final(void **state)
{
    (void)state;
    char *out = s_load("sysbench_oltp.txt", NULL), *x;
    x = s_replace(out, "    ignored errors:                      0      (0.00 per sec.)\n", "");
    s_final_fails(SB, x, "missing \"ignored errors\"");
    free(x);
    x = s_replace(out, "(1499.96 per sec.)", "(1499.96 per sec)");
    s_final_fails(SB, x, "malformed \"transactions\"");
    free(x);
    x = s_replace(out, "         95th percentile:                        4.49\n", "");
    s_final_fails(SB, x, "missing \"percentile\"");
    free(x);
    x = s_replace(out, "95th percentile:                        4.49",
                  "95th percentile:                        4,49");
    s_final_fails(SB, x, "malformed or repeated \"percentile\"");
    free(x);
    x = s_replace(out, "total time:                          5.0028s",
                  "total time:                          5.0028");
    s_final_fails(SB, x, "malformed \"total time\"");
    free(x);
    x = s_replace(out, "read:                            105070",
                  "read:                            105071");
    s_final_fails(SB, x, "\"queries\" (150100) is not \"read\" + \"write\" + \"other\" (150101)");
    free(x);
    x = s_replace(out, "Number of threads: 4\n", "");
    s_final_fails(SB, x, "missing \"Number of threads\"");
    free(x);
    /* --percentile=0 */
    x = s_replace(out, "95th percentile:                        4.49",
                  "percentile stats:               disabled");
    lg_app_total_t t;
    char err[256] = "";
    assert_int_equal(lg_app_parse_final(SB, x, strlen(x), &t, err, sizeof err), 0);
    assert_int_equal(t.pct, 0);
    EQ(t.lat_pct_ms, NAN);
    free(x);
    free(out);
}

/* Every cut of each real output short of its summary's last line fails, naming a missing field;
 * the whole text parses. */
static void test_cut_finals(void **state)
{
    (void)state;
    const struct {
        lg_app_kind_t k;
        const char *file, *last; /* the last line read */
    } c[] = {{PG, "pgbench_final.txt", "tps = "},
             {PG, "pgbench_retries_final.txt", "tps = "},
             {PG, "pgbench_rate_final.txt", "tps = "},
             {SB, "sysbench_oltp.txt", "         sum:"},
             {SB, "sysbench_oltp_errors.txt", "         sum:"}};
    for (size_t i = 0; i < sizeof c / sizeof *c; i++) {
        size_t len;
        char *text = s_load(c[i].file, &len);
        const char *last = strstr(text, c[i].last);
        assert_non_null(last);
        size_t label_end = (size_t)(last - text) + strlen(c[i].last);
        size_t complete = (size_t)(strchr(last, '\n') - text); /* end of the last value */
        for (size_t n = 0; n <= len; n++) {
            char *cut = malloc(n ? n : 1); /* exactly n bytes, not NUL-terminated */
            assert_non_null(cut);
            memcpy(cut, text, n);
            lg_app_total_t t;
            char err[256] = "";
            int rc = lg_app_parse_final(c[i].k, cut, n, &t, err, sizeof err);
            /* Short of the last label a field is missing, or the cut line is malformed. A cut
             * inside the last number may still read as a (shorter) number: text cut mid-line is
             * the caller's to avoid, by handing in the output once the tool has exited. */
            if (n < label_end) {
                assert_int_equal(rc, LG_EPARSE);
                assert_true(strstr(err, "missing \"") || strstr(err, "malformed"));
            } else if (n >= complete) {
                assert_int_equal(rc, 0);
            } else if (rc != 0) {
                assert_int_equal(rc, LG_EPARSE);
                assert_true(err[0] != 0);
            }
            free(cut);
        }
        free(text);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pgbench),
        cmocka_unit_test(test_pgbench_timestamp),
        cmocka_unit_test(test_pgbench_failed),
        cmocka_unit_test(test_pgbench_retries),
        cmocka_unit_test(test_pgbench_rate),
        cmocka_unit_test(test_sysbench_p95),
        cmocka_unit_test(test_sysbench_p99),
        cmocka_unit_test(test_sysbench_errors),
        cmocka_unit_test(test_other_lines),
        cmocka_unit_test(test_bad_lines),
        cmocka_unit_test(test_cut_lines),
        cmocka_unit_test(test_bad_pgbench_final),
        cmocka_unit_test(test_bad_sysbench_final),
        cmocka_unit_test(test_cut_finals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
