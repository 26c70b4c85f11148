/* test_import_elsewhere.c: the parsers of results made elsewhere, without a database: DiskSpd's
 * XML and text output (tests/unit/data/diskspd: a real 2.0.21a XML and files in the layouts of
 * DiskSpd's own writers), its UTF-16 form, refusals naming the format and what is missing; and
 * sysbench/pgbench output (the real outputs of tests/unit/data/app) for the application tables. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "import_app.h"
#include "import_diskspd.h"
#include "lg_error.h"
#include "lg_util.h"

#ifndef LG_TEST_DATA_DIR
#define LG_TEST_DATA_DIR "tests/unit/data"
#endif

static char *s_load(const char *rel, size_t *len)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", LG_TEST_DATA_DIR, rel);
    char *buf = NULL;
    size_t l = 0;
    assert_int_equal(lg_read_file(path, 64u << 20, &buf, &l), 0);
    if (len)
        *len = l;
    return buf;
}

static lg_diskspd_t *s_parse(const char *text, size_t len, int want, char *err, size_t errlen)
{
    lg_diskspd_t *ds = calloc(1, sizeof *ds);
    assert_non_null(ds);
    int rc = lg_diskspd_parse(text, len, ds, err, errlen);
    if (rc != want)
        fprintf(stderr, "parse: %d (%s)\n", rc, err);
    assert_int_equal(rc, want);
    return ds;
}

static void test_pkb_xml(void **state)
{
    (void)state;
    size_t len;
    char *t = s_load("diskspd/pkb_2.0.21a.xml", &len), err[512] = "";
    const char *fmt = NULL;
    assert_true(lg_import_diskspd_sniff(t, len, &fmt));
    assert_string_equal(fmt, "diskspd-xml");
    lg_diskspd_t *ds = s_parse(t, len, 0, err, sizeof err);
    assert_true(ds->xml);
    assert_string_equal(ds->computer, "pkb-044ffc87-0");
    assert_string_equal(ds->version, "2.0.21a");
    assert_string_equal(ds->start, "2018/10/18 21:39:04 UTC");
    assert_int_equal(ds->nspans, 1);
    const lg_diskspd_span_t *s = &ds->spans[0];
    assert_true(fabs(s->test_s - 30.02) < 1e-9);
    assert_int_equal(s->threads, 4);
    assert_int_equal(s->qd, 2);
    assert_int_equal(s->bs, 65536);
    assert_int_equal(s->write_ratio, 0);
    assert_int_equal(s->random, 0);
    assert_int_equal(s->warmup_s, 5);
    assert_int_equal(s->direct, 1); /* <DisableOSCache>true */
    assert_string_equal(s->target, "C:\\scratch\\testfile.dat");
    assert_false(s->has_lat);
    assert_int_equal(s->dir[0].ios, 22645 + 22623 + 22548 + 23154);
    assert_int_equal(s->dir[0].bytes, 1484062720ull + 1482620928 + 1477705728 + 1517420544);
    assert_int_equal(s->dir[1].ios, 0);
    assert_true(isnan(s->dir[0].lat_mean_ms)); /* no -L: no latency, never 0 */
    assert_int_equal(s->dir[0].npct, 0);
    lg_diskspd_clear(ds);
    free(ds);
    free(t);
}

static void test_made_xml(void **state)
{
    (void)state;
    size_t len;
    char *t = s_load("diskspd/made_2.2_L_2spans.xml", &len), err[512] = "";
    lg_diskspd_t *ds = s_parse(t, len, 0, err, sizeof err);
    assert_string_equal(ds->computer, "WINLOAD-07");
    assert_int_equal(ds->nspans, 2);
    const lg_diskspd_span_t *s = &ds->spans[0];
    assert_true(s->has_lat);
    assert_int_equal(s->threads, 4);
    assert_int_equal(s->qd, 8);
    assert_int_equal(s->ntargets, 2);
    assert_int_equal(s->write_ratio, 30);
    assert_int_equal(s->random, 1);
    assert_int_equal(s->bs, 8192);
    assert_true(fabs(s->dir[0].lat_mean_ms - 0.318) < 1e-12);
    assert_true(fabs(s->dir[0].lat_stddev_ms - 0.402) < 1e-12);
    assert_true(fabs(s->dir[0].lat_min_ms - 0.061) < 1e-12);
    assert_true(fabs(s->dir[0].lat_max_ms - 15.220) < 1e-12);
    assert_true(fabs(s->dir[1].lat_max_ms - 12.004) < 1e-12);
    assert_int_equal(s->dir[0].npct, 14); /* 1 .. 99.9999999, without 0 and 100 */
    assert_true(fabs(s->dir[0].pct[7] - 99.9) < 1e-12);
    assert_true(fabs(s->dir[0].pct_ms[7] - 4.102) < 1e-12);
    assert_true(fabs(s->dir[1].iops_stddev - 140.877) < 1e-12);
    /* -D's intervals: ten of a second, their counts adding up to the totals */
    assert_int_equal(s->bucket_ms, 1000);
    assert_int_equal(s->nsamples, 10);
    uint64_t sum[2] = {0, 0};
    for (size_t i = 0; i < s->nsamples; i++)
        for (int d = 0; d < 2; d++)
            sum[d] += s->samples[i].ios[d];
    assert_int_equal(sum[0], s->dir[0].ios);
    assert_int_equal(sum[1], s->dir[1].ios);
    assert_int_equal(s->samples[9].end_ms, 10000);
    assert_true(fabs(s->samples[0].lat_avg_ms[0] - 0.300) < 1e-12);
    assert_true(fabs(s->samples[2].lat_max_ms[1] - 6.3) < 1e-12);
    /* an entity in a path is decoded */
    assert_non_null(strstr(t, "b &amp; c.dat"));
    const lg_diskspd_span_t *s2 = &ds->spans[1];
    assert_int_equal(s2->write_ratio, 100);
    assert_int_equal(s2->random, 0);
    assert_int_equal(s2->bs, 65536);
    assert_int_equal(s2->qd, 4);
    assert_int_equal(s2->threads, 1);
    assert_int_equal(s2->dir[1].ios, 19642);
    assert_int_equal(s2->dir[0].ios, 0);
    assert_true(isnan(s2->dir[0].lat_mean_ms));
    assert_true(fabs(s2->dir[1].lat_mean_ms - 2.035) < 1e-12);
    assert_int_equal(s2->nsamples, 0); /* no -D */
    lg_diskspd_clear(ds);
    free(ds);
    free(t);
}

static void test_text(void **state)
{
    (void)state;
    size_t len;
    char *t = s_load("diskspd/made_2.1_text_mix.txt", &len), err[512] = "";
    const char *fmt = NULL;
    assert_true(lg_import_diskspd_sniff(t, len, &fmt));
    assert_string_equal(fmt, "diskspd-text");
    lg_diskspd_t *ds = s_parse(t, len, 0, err, sizeof err);
    assert_false(ds->xml);
    assert_string_equal(ds->computer, "NAS-BENCH-W11");
    assert_string_equal(ds->start, "2024/11/02 17:05:41 UTC");
    assert_int_equal(ds->nspans, 1);
    const lg_diskspd_span_t *s = &ds->spans[0];
    assert_true(fabs(s->test_s - 30.01) < 1e-9);
    assert_int_equal(s->threads, 2);
    assert_int_equal(s->qd, 4);
    assert_int_equal(s->bs, 8192);
    assert_int_equal(s->write_ratio, 30);
    assert_int_equal(s->random, 1);
    assert_int_equal(s->warmup_s, 10);
    assert_int_equal(s->direct, 1); /* "software cache disabled" */
    assert_string_equal(s->target, "D:\\lgtest\\t1.dat");
    assert_int_equal(s->dir[0].ios, 122419);
    assert_int_equal(s->dir[0].bytes, 1002856448ull);
    assert_int_equal(s->dir[1].ios, 52501);
    assert_true(fabs(s->dir[0].lat_mean_ms - 0.453) < 1e-12);
    assert_true(fabs(s->dir[0].lat_stddev_ms - 0.390) < 1e-12);
    assert_true(fabs(s->dir[1].iops_stddev - 140.21) < 1e-12);
    assert_true(fabs(s->dir[0].lat_min_ms - 0.071) < 1e-12);
    assert_true(fabs(s->dir[0].lat_max_ms - 9.305) < 1e-12);
    assert_int_equal(s->dir[0].npct, 13); /* 25th .. 9-nines */
    assert_true(fabs(s->dir[1].pct[4] - 95) < 1e-12);
    assert_true(fabs(s->dir[1].pct_ms[4] - 1.342) < 1e-12);
    lg_diskspd_clear(ds);
    free(ds);
    free(t);

    t = s_load("diskspd/made_2.0.17_text_write.txt", &len);
    ds = s_parse(t, len, 0, err, sizeof err);
    s = &ds->spans[0];
    assert_string_equal(ds->computer, "old-bench");
    assert_int_equal(s->bs, 65536);
    assert_int_equal(s->qd, 2);
    assert_int_equal(s->write_ratio, 100);
    assert_int_equal(s->random, 0);
    assert_int_equal(s->threads, 1);
    assert_int_equal(s->dir[1].ios, 95250);
    assert_int_equal(s->dir[0].ios, 0);
    assert_true(isnan(s->dir[0].lat_mean_ms));
    assert_true(fabs(s->dir[1].lat_stddev_ms - 0.802) < 1e-12);
    assert_true(fabs(s->dir[1].lat_max_ms - 18.402) < 1e-12);
    assert_int_equal(s->dir[0].npct, 0);
    lg_diskspd_clear(ds);
    free(ds);
    free(t);
}

/* Windows line ends (CRLF) read as LF ones, in both formats. */
static void test_crlf(void **state)
{
    (void)state;
    const char *files[2] = {"diskspd/made_2.1_text_mix.txt", "diskspd/made_2.2_L_2spans.xml"};
    for (int f = 0; f < 2; f++) {
        size_t len;
        char *t = s_load(files[f], &len), err[512] = "";
        char *c = malloc(2 * len + 1);
        size_t k = 0;
        for (size_t i = 0; i < len; i++) {
            if (t[i] == '\n')
                c[k++] = '\r';
            c[k++] = t[i];
        }
        lg_diskspd_t *a = s_parse(t, len, 0, err, sizeof err);
        lg_diskspd_t *b = s_parse(c, k, 0, err, sizeof err);
        assert_int_equal(a->nspans, b->nspans);
        assert_string_equal(a->computer, b->computer);
        assert_string_equal(a->spans[0].target, b->spans[0].target);
        for (int d = 0; d < 2; d++) {
            assert_int_equal(a->spans[0].dir[d].ios, b->spans[0].dir[d].ios);
            assert_int_equal(a->spans[0].dir[d].npct, b->spans[0].dir[d].npct);
            assert_true(a->spans[0].dir[d].lat_max_ms == b->spans[0].dir[d].lat_max_ms);
        }
        lg_diskspd_clear(a);
        lg_diskspd_clear(b);
        free(a);
        free(b);
        free(c);
        free(t);
    }
}

/* Several timespans in text: each its own load; one interrupted before measuring (skipped); the
 * "Totals:" over all of them is not a timespan. */
static void test_text_spans(void **state)
{
    (void)state;
    size_t len;
    char *t = s_load("diskspd/made_2.1_text_3spans.txt", &len), err[512] = "";
    lg_diskspd_t *ds = s_parse(t, len, 0, err, sizeof err);
    assert_int_equal(ds->nspans, 2);
    assert_int_equal(ds->skipped, 1);
    assert_int_equal(ds->spans[0].bs, 8192);
    assert_int_equal(ds->spans[0].duration_s, 30);
    assert_int_equal(ds->spans[1].bs, 4096);
    assert_int_equal(ds->spans[1].duration_s, 20);
    assert_int_equal(ds->spans[1].dir[0].ios, 122419);
    assert_int_equal(ds->spans[1].dir[1].ios, 52501);
    assert_int_equal(ds->spans[1].dir[0].npct, 13);
    lg_diskspd_clear(ds);
    free(ds);
    free(t);
}

/* PowerShell's "diskspd ... > out.txt" writes UTF-16LE with a byte order mark. */
static void test_utf16(void **state)
{
    (void)state;
    size_t len;
    char *t = s_load("diskspd/made_2.1_text_mix.txt", &len), err[512] = "";
    char *w = malloc(2 + 2 * len);
    assert_non_null(w);
    w[0] = (char)0xFF;
    w[1] = (char)0xFE;
    for (size_t i = 0; i < len; i++) {
        w[2 + 2 * i] = t[i];
        w[3 + 2 * i] = 0;
    }
    const char *fmt = NULL;
    assert_true(lg_import_diskspd_sniff(w, 2 + 2 * len, &fmt));
    assert_string_equal(fmt, "diskspd-text");
    char *u = NULL;
    size_t ul = 0;
    assert_int_equal(lg_diskspd_to_utf8(w, 2 + 2 * len, &u, &ul, err, sizeof err), 0);
    assert_int_equal(ul, len);
    assert_memory_equal(u, t, len);
    free(u);
    /* a UTF-8 byte order mark is dropped */
    char *b = malloc(len + 3);
    memcpy(b, "\xEF\xBB\xBF", 3);
    memcpy(b + 3, t, len);
    assert_true(lg_import_diskspd_sniff(b, len + 3, &fmt));
    assert_int_equal(lg_diskspd_to_utf8(b, len + 3, &u, &ul, err, sizeof err), 0);
    assert_int_equal(ul, len);
    free(u);
    /* an unpaired surrogate is refused */
    w[2] = 0x00;
    w[3] = (char)0xDC;
    assert_int_equal(lg_diskspd_to_utf8(w, 2 + 2 * len, &u, &ul, err, sizeof err), LG_EPARSE);
    assert_non_null(strstr(err, "surrogate"));
    free(b);
    free(w);
    free(t);
}

static void test_refusals(void **state)
{
    (void)state;
    size_t len;
    char *t = s_load("diskspd/made_2.2_L_2spans.xml", &len), err[512] = "";
    /* truncated anywhere: refused, naming the format */
    for (size_t cut = 200; cut < len; cut += 997) {
        err[0] = 0;
        lg_diskspd_t *ds = s_parse(t, cut, LG_EPARSE, err, sizeof err);
        assert_non_null(strstr(err, "DiskSpd XML"));
        lg_diskspd_clear(ds);
        free(ds);
    }
    lg_diskspd_t *ds = s_parse(t, len - 3, LG_EPARSE, err, sizeof err);
    assert_non_null(strstr(err, "not well formed"));
    lg_diskspd_clear(ds);
    free(ds);
    /* a DOCTYPE (entity expansion) is refused */
    const char *dt = "<!DOCTYPE r [<!ENTITY a \"aaaa\">]><Results><System></System></Results>";
    ds = s_parse(dt, strlen(dt), LG_EPARSE, err, sizeof err);
    lg_diskspd_clear(ds);
    free(ds);
    /* without its profile: refused, naming what is missing */
    char *np = strdup(t);
    char *p0 = strstr(np, "<Profile>"), *p1 = strstr(np, "</Profile>") + strlen("</Profile>");
    memmove(p0, p1, strlen(p1) + 1);
    ds = s_parse(np, strlen(np), LG_EPARSE, err, sizeof err);
    assert_non_null(strstr(err, "<Profile>"));
    lg_diskspd_clear(ds);
    free(ds);
    free(np);
    /* -L in the profile but no latency: refused */
    np = strdup(t);
    p0 = strstr(np, "<Latency ");
    p1 = strstr(np, "</Latency>") + strlen("</Latency>");
    memmove(p0, p1, strlen(p1) + 1);
    ds = s_parse(np, strlen(np), LG_EPARSE, err, sizeof err);
    assert_non_null(strstr(err, "<Latency>"));
    lg_diskspd_clear(ds);
    free(ds);
    free(np);
    free(t);

    /* a text output that ends before its Write IO table */
    t = s_load("diskspd/made_2.1_text_mix.txt", &len);
    char *cut = strstr(t, "\nWrite IO");
    ds = s_parse(t, (size_t)(cut - t), LG_EPARSE, err, sizeof err);
    assert_non_null(strstr(err, "DiskSpd text output"));
    assert_non_null(strstr(err, "Write IO"));
    lg_diskspd_clear(ds);
    free(ds);
    free(t);
    /* neither */
    const char *other = "hello\nthis is not a benchmark\n";
    assert_false(lg_import_diskspd_sniff(other, strlen(other), NULL));
    ds = s_parse(other, strlen(other), LG_EPARSE, err, sizeof err);
    assert_non_null(strstr(err, "not DiskSpd output"));
    lg_diskspd_clear(ds);
    free(ds);
}

/* ---- sysbench and pgbench ---- */

static void test_app(void **state)
{
    (void)state;
    size_t len;
    char err[512] = "";
    const char *fmt = NULL;
    char *t = s_load("app/sysbench_oltp.txt", &len);
    assert_true(lg_import_app_sniff(t, len, &fmt));
    assert_string_equal(fmt, "sysbench");
    assert_false(lg_import_diskspd_sniff(t, len, NULL));
    lg_app_total_t a;
    assert_int_equal(lg_import_app_parse(t, len, &a, err, sizeof err), 0);
    assert_int_equal(a.kind, LG_APP_SYSBENCH_OLTP);
    assert_int_equal(a.transactions, 7505);
    assert_int_equal(a.queries, 150100);
    /* a UTF-8 byte order mark before it */
    char *b = malloc(len + 3);
    memcpy(b, "\xEF\xBB\xBF", 3);
    memcpy(b + 3, t, len);
    assert_true(lg_import_app_sniff(b, len + 3, &fmt));
    assert_int_equal(lg_import_app_parse(b, len + 3, &a, err, sizeof err), 0);
    free(b);
    /* cut before its latency: refused, naming the tool and the missing figure */
    char *cut = strstr(t, "Latency (ms):");
    assert_non_null(cut);
    assert_int_equal(lg_import_app_parse(t, (size_t)(cut - t), &a, err, sizeof err), LG_EPARSE);
    assert_non_null(strstr(err, "sysbench"));
    assert_non_null(strstr(err, "missing"));
    free(t);

    t = s_load("app/pgbench_final.txt", &len);
    assert_true(lg_import_app_sniff(t, len, &fmt));
    assert_string_equal(fmt, "pgbench");
    assert_int_equal(lg_import_app_parse(t, len, &a, err, sizeof err), 0);
    assert_int_equal(a.kind, LG_APP_PGBENCH);
    assert_true(a.tps > 0);
    /* without its tps line */
    cut = strstr(t, "tps =");
    assert_int_equal(lg_import_app_parse(t, (size_t)(cut - t), &a, err, sizeof err), LG_EPARSE);
    assert_non_null(strstr(err, "pgbench"));
    assert_non_null(strstr(err, "tps"));
    free(t);

    /* pgbench's stderr first (-P), as "2>&1" may give it: still pgbench */
    t = s_load("app/pgbench_progress.txt", &len);
    assert_true(lg_import_app_sniff(t, len, &fmt));
    assert_string_equal(fmt, "pgbench");
    free(t);
    /* sysbench's cpu test: not OLTP */
    const char *cpu = "sysbench 1.0.20 (using system LuaJIT 2.1.0-beta3)\n\nCPU speed:\n"
                      "    events per second:  1234.56\n\nGeneral statistics:\n"
                      "    total time:                          10.0002s\n"
                      "    total number of events:              12346\n";
    assert_true(lg_import_app_sniff(cpu, strlen(cpu), &fmt));
    assert_int_equal(lg_import_app_parse(cpu, strlen(cpu), &a, err, sizeof err), LG_EPARSE);
    assert_non_null(strstr(err, "not an OLTP test"));
    const char *other = "fio-3.33\n";
    assert_false(lg_import_app_sniff(other, strlen(other), NULL));
    assert_int_equal(lg_import_app_parse(other, strlen(other), &a, err, sizeof err), LG_EPARSE);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pkb_xml),  cmocka_unit_test(test_made_xml),
        cmocka_unit_test(test_text),     cmocka_unit_test(test_text_spans),
        cmocka_unit_test(test_crlf),     cmocka_unit_test(test_utf16),
        cmocka_unit_test(test_refusals), cmocka_unit_test(test_app),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
