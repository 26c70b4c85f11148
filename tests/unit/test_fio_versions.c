/* test_fio_versions.c: lg_fio reads the output of every fio since 2.1.14: real outputs of fio
 * 2.2.10, 2.21, 3.1, 3.7, 3.16, 3.19 and 3.28 in tests/data/fio-versions (made by make.sh there).
 * The expected figures are computed here from the fixtures' own fields with jansson, applying fio's
 * units by hand (fio-2: us and KiB; before 3.2: bw in KiB/s; before 3.18: N = total_ios), so a
 * mistake in lg_fio.c's conversions cannot hide in its own arithmetic. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "lg_error.h"
#include "lg_fio.h"
#include "lg_stats.h"

#ifndef LG_SOURCE_DIR
#define LG_SOURCE_DIR "."
#endif

static const char *const s_versions[] = {"2.21", "3.1", "3.7", "3.16", "3.19", "3.28", "2.2.10"};
static const char *const s_kinds[] = {"twojobs.json",    "latpct.json", "latpct.jsonplus",
                                      "groups.json",     "failed.json", "client.json",
                                      "normal-json.txt", "stream.json"};
static const char *const s_dirs[LG_DIR_NR] = {"read", "write", "trim"};

/* Caller owns the result; NULL when the fixture is not there (fio-2.2.10 is optional). */
static char *s_load(const char *name, size_t *len)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/tests/data/fio-versions/%s", LG_SOURCE_DIR, name);
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    assert_int_equal(fseek(f, 0, SEEK_END), 0);
    long n = ftell(f);
    assert_true(n > 0);
    assert_int_equal(fseek(f, 0, SEEK_SET), 0);
    char *buf = malloc((size_t)n + 1);
    assert_non_null(buf);
    assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    buf[n] = '\0';
    *len = (size_t)n;
    return buf;
}

typedef struct {
    char *obj[16];
    size_t nobj;
} s_coll_t;

static void s_on_object(void *arg, const char *text, size_t len)
{
    s_coll_t *c = arg;
    assert_true(c->nobj < 16);
    c->obj[c->nobj] = malloc(len + 1);
    memcpy(c->obj[c->nobj++], text, len + 1);
}

static void s_coll_clear(s_coll_t *c)
{
    for (size_t i = 0; i < c->nobj; i++)
        free(c->obj[i]);
    memset(c, 0, sizeof *c);
}

static void s_near(double got, double want, const char *what, const char *where)
{
    double tol = 1e-9 * fmax(fabs(want), 1.0);
    if (fabs(got - want) > tol)
        fail_msg("%s %s: %.17g, want %.17g", where, what, got, want);
}

static double s_num(json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    if (!json_is_number(v))
        fail_msg("fixture has no number \"%s\"", key);
    return json_number_value(v);
}

/* One direction as fio printed it against what lg_fio read; returns 1 when it had latency. */
static int s_check_dir(const lg_dirstats_t *d, json_t *x, json_t *job_opts, json_t *global_opts,
                       int final, const char *where)
{
    int fio2 = json_object_get(x, "lat_ns") == NULL;
    json_t *lat = json_object_get(x, fio2 ? "lat" : "lat_ns");
    double unit = fio2 ? 1000.0 : 1.0;
    double ios = s_num(x, "total_ios");
    double bytes = s_num(x, "io_bytes") * (json_object_get(x, "io_kbytes") ? 1.0 : 1024.0);
    double bw = json_object_get(x, "bw_bytes") ? s_num(x, "bw_bytes") : s_num(x, "bw") * 1024.0;
    double lmax = s_num(lat, "max") * unit, lmean = s_num(lat, "mean") * unit;
    double n = json_object_get(lat, "N") ? s_num(lat, "N") : (lmax > 0 || lmean > 0 ? ios : 0);

    s_near((double)d->ios, ios, "total_ios", where);
    s_near((double)d->bytes, bytes, "io_bytes", where);
    s_near((double)d->runtime_ms, s_num(x, "runtime"), "runtime", where);
    s_near(d->iops, s_num(x, "iops"), "iops", where);
    s_near(d->bw_bytes, bw, "bw_bytes", where);
    s_near((double)d->lat_n, n, "N", where);
    s_near((double)d->lat_min, s_num(lat, "min") * unit, "lat min", where);
    s_near((double)d->lat_max, lmax, "lat max", where);
    s_near(d->lat_mean, lmean, "lat mean", where);
    s_near(d->lat_stddev, s_num(lat, "stddev") * unit, "lat stddev", where);
    /* The histogram: lat_ns.bins, or (fio 3.0 to 3.6 with lat_percentiles=1) clat_ns.bins;
     * either way it counts every latency sample. */
    json_t *bins = json_object_get(lat, "bins");
    json_t *lp = json_object_get(job_opts, "lat_percentiles");
    if (!lp)
        lp = json_object_get(global_opts, "lat_percentiles");
    if (!bins && !fio2 && json_is_string(lp) && !strcmp(json_string_value(lp), "1"))
        bins = json_object_get(json_object_get(x, "clat_ns"), "bins");
    if (d->has_hist != (bins != NULL))
        fail_msg("%s: has_hist %d, want %d", where, d->has_hist, bins != NULL);
    if (bins) {
        /* fio's status objects during a run are racy snapshots (3.19 prints N and total_ios
         * apart by one there); its final report counts each sample once everywhere. */
        if (final)
            assert_int_equal(lg_hist_total(&d->hist), d->lat_n);
        const char *k;
        json_t *v;
        double sum = 0;
        json_object_foreach(bins, k, v) sum += (double)json_integer_value(v);
        s_near((double)lg_hist_total(&d->hist), sum, "bins total", where);
    }
    return n > 0;
}

/* Every job of one object (text) against lg_fio's reading of it. */
static void s_check_obj(const char *text, const char *name, int final, int *with_lat)
{
    char err[512] = "";
    lg_fio_report_t *r = NULL;
    if (lg_fio_report_parse(text, strlen(text), &r, err, sizeof err) != 0)
        fail_msg("%s: %s", name, err);
    json_error_t je;
    json_t *root = json_loads(text, 0, &je);
    assert_non_null(root);
    assert_string_equal(r->fio_version, json_string_value(json_object_get(root, "fio version")));
    json_t *jobs = json_object_get(root, "jobs");
    if (!jobs)
        jobs = json_object_get(root, "client_stats");
    size_t i, k = 0;
    json_t *job;
    json_array_foreach(jobs, i, job)
    {
        const char *jn = json_string_value(json_object_get(job, "jobname"));
        if (json_object_get(root, "client_stats") && !strcmp(jn, "All clients"))
            continue;
        assert_true(k < r->njobs);
        assert_string_equal(r->jobs[k].name, jn);
        assert_int_equal(r->jobs[k].error, (int)json_integer_value(json_object_get(job, "error")));
        assert_int_equal(r->jobs[k].groupid,
                         (int)json_integer_value(json_object_get(job, "groupid")));
        json_t *port = json_object_get(job, "port");
        if (port) {
            char host[160];
            snprintf(host, sizeof host, "%s:%lld",
                     json_string_value(json_object_get(job, "hostname")),
                     (long long)json_integer_value(port));
            assert_string_equal(r->jobs[k].host, host);
        }
        for (int d = 0; d < LG_DIR_NR; d++) {
            char where[256];
            snprintf(where, sizeof where, "%s jobs[%zu].%s", name, i, s_dirs[d]);
            *with_lat += s_check_dir(&r->jobs[k].dir[d], json_object_get(job, s_dirs[d]),
                                     json_object_get(job, "job options"),
                                     json_object_get(root, "global options"), final, where);
        }
        k++;
    }
    assert_int_equal(k, r->njobs);
    json_decref(root);
    lg_fio_report_destroy(&r);
}

/* Each fixture of each version: every object fio printed (a status stream's every interval)
 * reads, with figures equal to fio's own in lg's units. */
static void test_versions_figures(void **state)
{
    (void)state;
    int files = 0, with_lat = 0;
    for (size_t v = 0; v < sizeof s_versions / sizeof *s_versions; v++)
        for (size_t k = 0; k < sizeof s_kinds / sizeof *s_kinds; k++) {
            char name[128];
            size_t len;
            snprintf(name, sizeof name, "fio-%s.%s", s_versions[v], s_kinds[k]);
            char *text = s_load(name, &len);
            if (!text) {
                assert_string_equal(s_versions[v], "2.2.10");
                continue;
            }
            s_coll_t c = {{0}, 0};
            lg_fio_splitter_t *sp = lg_fio_splitter_new(1 << 24, s_on_object, NULL, &c);
            assert_int_equal(lg_fio_splitter_feed(sp, text, len), 0);
            lg_fio_splitter_destroy(&sp);
            assert_true(c.nobj >= 1);
            for (size_t o = 0; o < c.nobj; o++)
                s_check_obj(c.obj[o], name, o + 1 == c.nobj, &with_lat);
            s_coll_clear(&c);
            free(text);
            files++;
        }
    assert_true(files >= 48);
    assert_true(with_lat > 100);
}

/* What each version lacked is said (conv), and nothing is said for fio-3.28. */
static void test_versions_conv(void **state)
{
    (void)state;
    static const struct {
        const char *file;
        unsigned conv;
    } want[] = {
        {"fio-2.2.10.twojobs.json",
         LG_FIO_CONV_USEC | LG_FIO_CONV_KIB | LG_FIO_CONV_BW | LG_FIO_CONV_N},
        {"fio-2.21.twojobs.json", LG_FIO_CONV_USEC | LG_FIO_CONV_BW | LG_FIO_CONV_N},
        {"fio-3.1.latpct.jsonplus", LG_FIO_CONV_BW | LG_FIO_CONV_N | LG_FIO_CONV_CLAT_BINS},
        {"fio-3.1.twojobs.json", LG_FIO_CONV_BW | LG_FIO_CONV_N},
        {"fio-3.16.twojobs.json", LG_FIO_CONV_N},
        {"fio-3.19.twojobs.json", 0},
        {"fio-3.28.latpct.jsonplus", 0},
    };
    for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
        size_t len;
        char *text = s_load(want[i].file, &len);
        assert_non_null(text);
        lg_fio_report_t *r = NULL;
        char err[256];
        assert_int_equal(lg_fio_report_parse(text, len, &r, err, sizeof err), 0);
        if (r->conv != want[i].conv)
            fail_msg("%s: conv %#x, want %#x", want[i].file, r->conv, want[i].conv);
        char words[512];
        lg_fio_conv_describe(r->conv, words, sizeof words);
        assert_int_equal(words[0] == '\0', want[i].conv == 0);
        lg_fio_report_destroy(&r);
        free(text);
    }
    char small[8];
    lg_fio_conv_describe(LG_FIO_CONV_N | LG_FIO_CONV_BW, small, sizeof small);
    assert_true(strlen(small) < sizeof small);
}

/* fio-2 before io_kbytes (io_bytes in KiB) and before total_ios (refused, naming why). */
static void test_versions_fio2(void **state)
{
    (void)state;
    size_t len;
    char *text = s_load("fio-2.21.twojobs.json", &len);
    json_t *root = json_loads(text, 0, NULL);
    json_t *rd = json_object_get(json_array_get(json_object_get(root, "jobs"), 0), "read");
    json_int_t kib = json_integer_value(json_object_get(rd, "io_kbytes"));
    json_object_del(rd, "io_kbytes");
    json_object_set_new(rd, "io_bytes", json_integer(kib));
    char *t = json_dumps(root, JSON_INDENT(2));
    lg_fio_report_t *r = NULL;
    char err[256];
    assert_int_equal(lg_fio_report_parse(t, strlen(t), &r, err, sizeof err), 0);
    assert_true(r->conv & LG_FIO_CONV_KIB);
    assert_int_equal(r->jobs[0].dir[LG_DIR_READ].bytes, (uint64_t)kib * 1024);
    lg_fio_report_destroy(&r);
    free(t);
    json_object_del(rd, "total_ios");
    t = json_dumps(root, JSON_INDENT(2));
    assert_int_equal(lg_fio_report_parse(t, strlen(t), &r, err, sizeof err), LG_EPARSE);
    assert_non_null(strstr(err, "jobs[0].read: missing \"total_ios\" (fio before 2.1.14"));
    free(t);
    json_decref(root);
    free(text);
}

static void test_versions_supported(void **state)
{
    (void)state;
    unsigned ma = 0, mi = 0;
    assert_int_equal(lg_fio_version_parse("fio-3.28-12-gabcdef", &ma, &mi), 0);
    assert_int_equal(ma, 3);
    assert_int_equal(mi, 28);
    assert_int_equal(lg_fio_version_parse("fio-2.2.10", &ma, &mi), 0);
    assert_int_equal(mi, 2);
    assert_int_equal(lg_fio_version_supported("fio-3.1"), 1);
    assert_int_equal(lg_fio_version_supported("fio-3.16"), 1);
    assert_int_equal(lg_fio_version_supported("fio-4.0"), 1);
    assert_int_equal(lg_fio_version_supported("fio-3.0"), 0);
    assert_int_equal(lg_fio_version_supported("fio-2.21"), 0);
    assert_int_equal(lg_fio_version_supported("fio-"), LG_EPARSE);
    assert_int_equal(lg_fio_version_supported("fio-3"), LG_EPARSE);
    assert_int_equal(lg_fio_version_supported("fio-3.x"), LG_EPARSE);
    assert_int_equal(lg_fio_version_supported("3.16"), LG_EPARSE);
    assert_int_equal(lg_fio_version_supported(NULL), LG_EPARSE);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_versions_figures),
        cmocka_unit_test(test_versions_conv),
        cmocka_unit_test(test_versions_fio2),
        cmocka_unit_test(test_versions_supported),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
