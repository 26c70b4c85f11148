/* test_appout.c: unit tests of appout (an application tool's output as the agent reads it from
 * its pipe) with the real pgbench and sysbench output of tests/unit/data/app, fed in chunks of
 * every size: the output kept byte for byte up to its cap, every report read once and in order,
 * with its time and interval from the tool's own clock, whatever the chunks' boundaries. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "appout.h"
#include "lg_util.h"

#ifndef LG_TEST_DATA_DIR
#define LG_TEST_DATA_DIR "tests/unit/data"
#endif

#define START_US 1796173622500000LL /* the tool's start: 0.5 s before a whole second */

typedef struct {
    unsigned n;
    uint64_t seq[64];
    int64_t t_ms[64];
    uint64_t iv_ms[64];
    double tps[64];
} got_t;

static void s_on_sample(void *arg, uint64_t seq, int64_t t_ms, uint64_t interval_ms,
                        const lg_app_sample_t *s)
{
    got_t *g = arg;
    assert_true(g->n < 64);
    g->seq[g->n] = seq;
    g->t_ms[g->n] = t_ms;
    g->iv_ms[g->n] = interval_ms;
    g->tps[g->n] = s->tps;
    g->n++;
}

/* Caller owns the result (NUL-terminated). */
static char *s_load(const char *name, size_t *len)
{
    char path[4096], *buf = NULL;
    snprintf(path, sizeof path, "%s/app/%s", LG_TEST_DATA_DIR, name);
    if (lg_read_file(path, 1 << 20, &buf, len) != 0)
        fail_msg("could not read \"%s\"", path);
    return buf;
}

/* s_feed: text through a fresh appout in chunks of chunk bytes (0: 1, 2, 3... turning). */
static void s_feed(lg_appout_t *o, lg_app_kind_t kind, got_t *g, const char *text, size_t len,
                   size_t chunk)
{
    memset(g, 0, sizeof *g);
    lg_appout_init(o, kind, "tool", 7, s_on_sample, g);
    o->start_us = START_US;
    size_t k = 1;
    for (size_t at = 0; at < len;) {
        size_t n = chunk ? chunk : k++ % 13 + 1;
        if (n > len - at)
            n = len - at;
        lg_appout_feed(o, text + at, n);
        at += n;
    }
    lg_appout_finish(o);
}

static const size_t s_chunks[] = {1, 2, 7, 64, 4096, 1 << 20, 0};

static void test_pgbench_relative(void **state)
{
    (void)state;
    size_t len;
    char *text = s_load("pgbench_progress.txt", &len);
    for (size_t c = 0; c < sizeof s_chunks / sizeof s_chunks[0]; c++) {
        lg_appout_t o;
        got_t g;
        s_feed(&o, LG_APP_PGBENCH, &g, text, len, s_chunks[c]);
        assert_int_equal(o.out_len, len);
        assert_memory_equal(o.out, text, len);
        assert_int_equal(o.out_cut, 0);
        assert_int_equal(g.n, 5);
        assert_int_equal(o.seq, 5);
        double tps[] = {481.0, 1002.2, 880.7};
        for (unsigned i = 0; i < g.n; i++) {
            assert_int_equal(g.seq[i], i + 1);
            /* "progress: N.0 s": N seconds after the start, 1000 ms apart */
            assert_int_equal(g.t_ms[i], START_US / 1000 + 1000 * (int64_t)(i + 1));
            assert_int_equal(g.iv_ms[i], 1000);
            if (i < 3)
                assert_true(fabs(g.tps[i] - tps[i]) < 1e-9);
        }
        lg_appout_clear(&o);
    }
    free(text);
}

static void test_pgbench_timestamps(void **state)
{
    (void)state;
    size_t len;
    char *text = s_load("pgbench_ts_progress.txt", &len);
    for (size_t c = 0; c < sizeof s_chunks / sizeof s_chunks[0]; c++) {
        lg_appout_t o;
        got_t g;
        s_feed(&o, LG_APP_PGBENCH, &g, text, len, s_chunks[c]);
        assert_int_equal(g.n, 5);
        /* Unix times as printed; the first interval counts from the start */
        assert_int_equal(g.t_ms[0], 1796173623550LL);
        assert_int_equal(g.iv_ms[0], 1796173623550LL - START_US / 1000);
        assert_int_equal(g.t_ms[1], 1796173624546LL);
        assert_int_equal(g.iv_ms[1], 996);
        lg_appout_clear(&o);
    }
    free(text);
}

static void test_sysbench(void **state)
{
    (void)state;
    size_t len;
    char *text = s_load("sysbench_oltp.txt", &len);
    for (size_t c = 0; c < sizeof s_chunks / sizeof s_chunks[0]; c++) {
        lg_appout_t o;
        got_t g;
        s_feed(&o, LG_APP_SYSBENCH_OLTP, &g, text, len, s_chunks[c]);
        assert_int_equal(o.out_len, len);
        assert_int_equal(g.n, 5);
        assert_true(fabs(g.tps[0] - 1307.23) < 1e-9);
        assert_true(fabs(g.tps[1] - 1401.30) < 1e-9);
        assert_int_equal(g.t_ms[1], START_US / 1000 + 2000);
        assert_int_equal(g.iv_ms[1], 1000);
        lg_appout_clear(&o);
    }
    free(text);
}

/* Past the cap the output is cut (and says so), but the reports after it are still read. */
static void test_cap(void **state)
{
    (void)state;
    size_t len;
    char *text = s_load("pgbench_progress.txt", &len);
    lg_appout_t o;
    got_t g;
    memset(&g, 0, sizeof g);
    lg_appout_init(&o, LG_APP_PGBENCH, "tool", 7, s_on_sample, &g);
    o.cap = 100;
    o.start_us = START_US;
    lg_appout_feed(&o, text, 60);
    lg_appout_feed(&o, text + 60, len - 60);
    lg_appout_finish(&o);
    assert_int_equal(o.out_len, 100);
    assert_int_equal(o.out[100], 0);
    assert_memory_equal(o.out, text, 100);
    assert_int_equal(o.out_cut, 1);
    assert_int_equal(g.n, 5);
    lg_appout_clear(&o);
    free(text);
}

/* \r ends a line as \n does; a last line without either is read at finish only; a malformed
 * report, an over-long line and other lines give no sample and do not stop the ones after. */
static void test_lines(void **state)
{
    (void)state;
    lg_appout_t o;
    got_t g;
    memset(&g, 0, sizeof g);
    lg_appout_init(&o, LG_APP_PGBENCH, "tool", 7, s_on_sample, &g);
    o.start_us = START_US;
    const char *a = "starting vacuum...end.\r\n"
                    "progress: 1.0 s, 10.0 tps, lat 1.000 ms stddev 0.100, 0 failed\r"
                    "progress: 2.0 s, tps, lat\n";
    lg_appout_feed(&o, a, strlen(a));
    assert_int_equal(g.n, 1);
    char *lng = malloc(LG_APPOUT_LINE_CAP + 200);
    assert_non_null(lng);
    const char *pfx = "progress: 2.0 s, 20.0 tps, lat 1.000 ms stddev 0.100, 0 failed ";
    memset(lng, 'x', LG_APPOUT_LINE_CAP + 199);
    memcpy(lng, pfx, strlen(pfx));
    lng[LG_APPOUT_LINE_CAP + 199] = '\n';
    lg_appout_feed(&o, lng, LG_APPOUT_LINE_CAP + 200);
    free(lng);
    const char *b = "progress: 3.0 s, 30.0 tps, lat 1.000 ms stddev 0.100, 0 failed";
    lg_appout_feed(&o, b, strlen(b));
    assert_int_equal(g.n, 1);
    lg_appout_finish(&o);
    assert_int_equal(g.n, 2);
    assert_true(fabs(g.tps[1] - 30.0) < 1e-9);
    assert_int_equal(g.seq[1], 2);
    assert_int_equal(g.iv_ms[1], 2000); /* since the last report read, at 1.0 s */
    lg_appout_finish(&o);
    assert_int_equal(g.n, 2);
    lg_appout_clear(&o);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pgbench_relative),
        cmocka_unit_test(test_pgbench_timestamps),
        cmocka_unit_test(test_sysbench),
        cmocka_unit_test(test_cap),
        cmocka_unit_test(test_lines),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
