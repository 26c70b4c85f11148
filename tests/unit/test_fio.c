/* test_fio.c: unit tests of lg_fio (stream splitter, report reader) against real fio 3.33
 * output in tests/unit/data (see the .fio files there for how each was made). Expected figures
 * are read straight from the fixtures with jansson, independently of lg_fio.c. */
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

#ifndef LG_TEST_DATA_DIR
#define LG_TEST_DATA_DIR "tests/unit/data"
#endif

static const char *const s_dirs[LG_DIR_NR] = {"read", "write", "trim"};

/* ---- helpers ---- */

/* Caller owns the result (NUL-terminated). */
static char *s_load(const char *name, size_t *len)
{
    const char *dir = getenv("LG_TEST_DATA");
    char path[4096];
    FILE *f;
    char *buf;
    long n;

    if (!dir || !*dir)
        dir = LG_TEST_DATA_DIR;
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    f = fopen(path, "rb");
    if (!f)
        fail_msg("could not open fixture \"%s\" (set LG_TEST_DATA)", path);
    assert_int_equal(fseek(f, 0, SEEK_END), 0);
    n = ftell(f);
    assert_true(n > 0);
    assert_int_equal(fseek(f, 0, SEEK_SET), 0);
    buf = malloc((size_t)n + 1);
    assert_non_null(buf);
    assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    buf[n] = '\0';
    *len = (size_t)n;
    return buf;
}

typedef struct {
    char *obj[64];
    size_t nobj;
    char *noise[64];
    size_t nnoise;
} s_coll_t;

static void s_on_object(void *arg, const char *text, size_t len)
{
    s_coll_t *c = arg;

    assert_int_equal(strlen(text), len);
    assert_true(c->nobj < 64);
    c->obj[c->nobj++] = strdup(text);
}

static void s_on_noise(void *arg, const char *line, size_t len)
{
    s_coll_t *c = arg;

    assert_int_equal(strlen(line), len);
    assert_true(c->nnoise < 64);
    c->noise[c->nnoise++] = strdup(line);
}

static void s_coll_clear(s_coll_t *c)
{
    for (size_t i = 0; i < c->nobj; i++)
        free(c->obj[i]);
    for (size_t i = 0; i < c->nnoise; i++)
        free(c->noise[i]);
    memset(c, 0, sizeof(*c));
}

/* Feed text in chunks of the given size; returns the first non-zero feed result. */
static int s_split(const char *text, size_t len, size_t chunk, size_t max_object, s_coll_t *c)
{
    lg_fio_splitter_t *s = lg_fio_splitter_new(max_object, s_on_object, s_on_noise, c);
    int ret = 0;

    assert_non_null(s);
    for (size_t pos = 0; pos < len; pos += chunk) {
        size_t n = len - pos < chunk ? len - pos : chunk;
        int rc = lg_fio_splitter_feed(s, text + pos, n);

        if (rc != 0 && ret == 0)
            ret = rc;
    }
    lg_fio_splitter_destroy(&s);
    assert_null(s);
    return ret;
}

/* Follow a dotted path ("lat_ns.N") from o; fio's keys we use contain no dots. */
static json_t *s_jget(json_t *o, const char *path)
{
    char key[64];

    for (const char *p = path; o && *p;) {
        const char *dot = strchr(p, '.');
        size_t n = dot ? (size_t)(dot - p) : strlen(p);

        assert_true(n < sizeof(key));
        memcpy(key, p, n);
        key[n] = '\0';
        o = json_object_get(o, key);
        p += n + (dot ? 1 : 0);
    }
    if (!o)
        fail_msg("fixture has no \"%s\"", path);
    return o;
}

static uint64_t s_ju(json_t *o, const char *path)
{
    json_t *v = s_jget(o, path);

    assert_true(json_is_integer(v));
    return (uint64_t)json_integer_value(v);
}

static double s_jd(json_t *o, const char *path)
{
    return json_number_value(s_jget(o, path));
}

static lg_fio_report_t *s_parse_ok(const char *text)
{
    lg_fio_report_t *r = NULL;
    char err[256] = "";
    int rc = lg_fio_report_parse(text, strlen(text), &r, err, sizeof(err));

    if (rc != 0)
        fail_msg("parse failed: %s", err);
    assert_non_null(r);
    return r;
}

/* Compare one direction of a parsed job with the JSON it came from; returns how many of fio's
 * printed percentiles were checked. */
static int s_check_dir(const lg_dirstats_t *d, json_t *jd)
{
    json_t *bins = json_object_get(s_jget(jd, "lat_ns"), "bins");
    json_t *pct = json_object_get(s_jget(jd, "lat_ns"), "percentile");
    uint64_t bin_total = 0;
    const char *key;
    json_t *v;
    int checked = 0;

    assert_int_equal(d->ios, s_ju(jd, "total_ios"));
    assert_int_equal(d->bytes, s_ju(jd, "io_bytes"));
    assert_int_equal(d->runtime_ms, s_ju(jd, "runtime"));
    assert_true(d->iops == s_jd(jd, "iops"));
    assert_true(d->bw_bytes == s_jd(jd, "bw_bytes"));
    assert_int_equal(d->lat_n, s_ju(jd, "lat_ns.N"));
    assert_int_equal(d->lat_min, s_ju(jd, "lat_ns.min"));
    assert_int_equal(d->lat_max, s_ju(jd, "lat_ns.max"));
    assert_true(d->lat_mean == s_jd(jd, "lat_ns.mean"));
    assert_true(d->lat_stddev == s_jd(jd, "lat_ns.stddev"));
    assert_true(d->lat_sum == d->lat_mean * (double)d->lat_n);
    assert_int_equal(d->has_hist, bins != NULL);
    if (!bins)
        return 0;
    json_object_foreach(bins, key, v)
    {
        unsigned idx = lg_hist_idx(strtoull(key, NULL, 10));

        /* fio's keys are bucket values, so each one is its own bucket's representative. */
        assert_int_equal(lg_hist_val(idx), strtoull(key, NULL, 10));
        assert_int_equal(d->hist.bins[idx], json_integer_value(v));
        bin_total += (uint64_t)json_integer_value(v);
    }
    assert_int_equal(lg_hist_total(&d->hist), bin_total);
    /* fio divides by N; it can be one behind the bins in an interval report (a sample landed
     * between the two reads), and then a percentile may fall in the next bucket. */
    if (!pct || bin_total != d->lat_n)
        return 0;
    json_object_foreach(pct, key, v)
    {
        double p = strtod(key, NULL);

        if (lg_hist_percentile(&d->hist, p) != (uint64_t)json_integer_value(v))
            fail_msg("p%s: lg %llu, fio %lld", key,
                     (unsigned long long)lg_hist_percentile(&d->hist, p),
                     (long long)json_integer_value(v));
        checked++;
    }
    return checked;
}

static json_t *s_jload(const char *text)
{
    json_error_t e;
    json_t *root = json_loads(text, 0, &e);

    if (!root)
        fail_msg("fixture JSON: %s", e.text);
    return root;
}

/* ---- splitter ---- */

static void test_split_chunking(void **state)
{
    size_t len;
    char *text = s_load("fio_stream_1job.json", &len);
    s_coll_t ref = {0}, c = {0};
    static const size_t chunks[] = {1, 7, 4096, 1 << 20};

    (void)state;
    assert_int_equal(s_split(text, len, len, 1 << 20, &ref), 0);
    assert_int_equal(ref.nobj, 4);
    assert_int_equal(ref.nnoise, 0);
    assert_int_equal(ref.obj[0][0], '{');
    for (size_t k = 0; k < sizeof(chunks) / sizeof(chunks[0]); k++) {
        assert_int_equal(s_split(text, len, chunks[k], 1 << 20, &c), 0);
        assert_int_equal(c.nobj, ref.nobj);
        for (size_t i = 0; i < c.nobj; i++)
            assert_string_equal(c.obj[i], ref.obj[i]);
        s_coll_clear(&c);
    }

    /* "\r\n" line ends and fio warnings around and between objects. */
    {
        size_t cap = len * 2 + 256, n = 0;
        char *crlf = malloc(cap);
        const char *warn = "fio: this is a warning\r\n\r\n";
        size_t objs = 0;

        assert_non_null(crlf);
        memcpy(crlf, warn, strlen(warn));
        n = strlen(warn);
        for (size_t i = 0; i < len; i++) {
            if (text[i] == '\n') {
                crlf[n++] = '\r';
                if (i > 0 && text[i - 1] == '}' && (i < 2 || text[i - 2] == '\n') && ++objs == 2) {
                    crlf[n++] = '\n';
                    memcpy(crlf + n, "between\r", 8);
                    n += 8;
                }
            }
            crlf[n++] = text[i];
        }
        for (size_t k = 0; k < sizeof(chunks) / sizeof(chunks[0]); k++) {
            assert_int_equal(s_split(crlf, n, chunks[k], 1 << 20, &c), 0);
            assert_int_equal(c.nobj, ref.nobj);
            for (size_t i = 0; i < c.nobj; i++)
                assert_string_equal(c.obj[i], ref.obj[i]);
            assert_int_equal(c.nnoise, 2);
            assert_string_equal(c.noise[0], "fio: this is a warning");
            assert_string_equal(c.noise[1], "between");
            s_coll_clear(&c);
        }
        free(crlf);
    }
    s_coll_clear(&ref);
    free(text);
}

static void test_split_limits(void **state)
{
    size_t len;
    char *text = s_load("fio_stream_1job.json", &len);
    s_coll_t c = {0};
    size_t first;
    char *two;

    (void)state;
    /* Cap between the first object's size and the others': the first is too big. */
    first = (size_t)(strstr(text, "\n}\n") - text) + 3;
    two = malloc(len + 64);
    assert_non_null(two);
    memcpy(two, text, first);
    memcpy(two + first, "{\n\"x\" : 1\n}\n", 12);
    assert_int_equal(s_split(two, first + 12, 1, first / 2, &c), LG_ETOOBIG);
    assert_int_equal(c.nobj, 1);
    assert_string_equal(c.obj[0], "{\n\"x\" : 1\n}\n");
    assert_int_equal(c.nnoise, 0); /* the dropped object's lines are not noise */
    s_coll_clear(&c);
    assert_int_equal(s_split(two, first + 12, 4096, first, &c), 0);
    assert_int_equal(c.nobj, 2);
    s_coll_clear(&c);

    /* An object cut off by the next one's "{" is abandoned; a tail without "}" never emits. */
    {
        const char *cut = "{\n  \"a\" : 1,\n{\n\"b\" : 2\n}\n{\n\"c\"";

        assert_int_equal(s_split(cut, strlen(cut), 3, 1024, &c), 0);
    }
    assert_int_equal(c.nobj, 1);
    assert_string_equal(c.obj[0], "{\n\"b\" : 2\n}\n");
    s_coll_clear(&c);

    /* An over-long noise line is cut to the cap and the rest of it skipped. */
    memset(two, 'x', 40);
    memcpy(two + 40, "\n{\n}\n", 5);
    assert_int_equal(s_split(two, 45, 5, 16, &c), 0);
    assert_int_equal(c.nnoise, 1);
    assert_int_equal(strlen(c.noise[0]), 16);
    assert_int_equal(c.nobj, 1);
    s_coll_clear(&c);
    free(two);
    free(text);
}

/* ---- report ---- */

static void test_report_stream(void **state)
{
    size_t len;
    char *text = s_load("fio_stream_1job.json", &len);
    s_coll_t c = {0};
    lg_fio_report_t *r[4];
    json_t *j[4];
    int checked = 0, checked_last = 0;
    lg_dirstats_t *tot = malloc(sizeof(*tot)), *dl = malloc(sizeof(*dl));

    (void)state;
    assert_non_null(tot);
    assert_non_null(dl);
    s_split(text, len, 4096, 1 << 20, &c);
    assert_int_equal(c.nobj, 4);
    for (size_t i = 0; i < 4; i++) {
        json_t *job;

        r[i] = s_parse_ok(c.obj[i]);
        j[i] = s_jload(c.obj[i]);
        job = json_array_get(json_object_get(j[i], "jobs"), 0);
        assert_int_equal(r[i]->njobs, 1);
        assert_string_equal(r[i]->jobs[0].name, "one");
        assert_int_equal(r[i]->jobs[0].error, 0);
        assert_string_equal(r[i]->fio_version, "fio-3.33");
        assert_int_equal(r[i]->timestamp_ms, s_ju(j[i], "timestamp_ms"));
        for (int d = 0; d < LG_DIR_NR; d++) {
            int n = s_check_dir(&r[i]->jobs[0].dir[d], s_jget(job, s_dirs[d]));

            checked += n;
            if (i == 3)
                checked_last += n;
            /* One job: the total is the job's figures bit for bit. */
            lg_fio_report_total(r[i], (lg_dir_t)d, tot);
            assert_memory_equal(tot, &r[i]->jobs[0].dir[d], sizeof(*tot));
        }
    }
    /* Every percentile of the final report; of the interval reports, those whose bins agree
     * with N (see s_check_dir). */
    assert_int_equal(checked_last, 2 * LG_NPCT);
    assert_true(checked >= 6 * LG_NPCT);

    /* Interval deltas of consecutive (cumulative) reports. */
    for (size_t i = 1; i < 4; i++) {
        for (int d = 0; d < 2; d++) {
            const lg_dirstats_t *cur = &r[i]->jobs[0].dir[d], *prev = &r[i - 1]->jobs[0].dir[d];
            json_t *jc = s_jget(json_array_get(json_object_get(j[i], "jobs"), 0), s_dirs[d]);
            json_t *jp = s_jget(json_array_get(json_object_get(j[i - 1], "jobs"), 0), s_dirs[d]);
            double nc = (double)s_ju(jc, "lat_ns.N"), np = (double)s_ju(jp, "lat_ns.N");
            double mean = (nc * s_jd(jc, "lat_ns.mean") - np * s_jd(jp, "lat_ns.mean")) / (nc - np);
            unsigned lo = LG_HIST_NR, hi = 0;

            lg_dirstats_delta(dl, cur, prev);
            assert_int_equal(dl->ios, s_ju(jc, "total_ios") - s_ju(jp, "total_ios"));
            assert_int_equal(dl->bytes, s_ju(jc, "io_bytes") - s_ju(jp, "io_bytes"));
            assert_int_equal(dl->lat_n, (uint64_t)(nc - np));
            assert_true(fabs(dl->lat_mean - mean) <= 1e-9 * mean);
            assert_true(dl->iops == 0 && dl->bw_bytes == 0);
            assert_true(dl->has_hist);
            for (unsigned b = 0; b < LG_HIST_NR; b++) {
                assert_int_equal(dl->hist.bins[b], cur->hist.bins[b] - prev->hist.bins[b]);
                if (dl->hist.bins[b]) {
                    lo = lo < b ? lo : b;
                    hi = b;
                }
            }
            assert_int_equal(dl->lat_min, lg_hist_val(lo));
            assert_int_equal(dl->lat_max, lg_hist_val(hi));
            assert_true(dl->lat_stddev > 0);
        }
    }
    for (size_t i = 0; i < 4; i++) {
        lg_fio_report_destroy(&r[i]);
        assert_null(r[i]);
        json_decref(j[i]);
    }
    free(tot);
    free(dl);
    s_coll_clear(&c);
    free(text);
}

/* Independent reference for the merged percentiles: sum fio's bins by key, walk keys upward,
 * comparing as the fio 3.33 binary does (see lg_stats.c: p * (total * 0.01L) in x87 precision). */
static uint64_t s_ref_percentile(const uint64_t *vals, const uint64_t *cnt, size_t n, double p)
{
    unsigned long long total = 0, sum = 0;

    for (size_t i = 0; i < n; i++)
        total += cnt[i];
    for (size_t i = 0; i < n; i++) {
        sum += cnt[i];
        if ((long double)sum >= (long double)p * ((long double)total * 0.01L))
            return vals[i];
    }
    return vals[n - 1];
}

static int s_cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

    return x < y ? -1 : x > y;
}

static void test_report_3jobs(void **state)
{
    size_t len;
    char *text = s_load("fio_3jobs.json", &len);
    lg_fio_report_t *r = s_parse_ok(text);
    json_t *root = s_jload(text), *jobs = json_object_get(root, "jobs");
    lg_dirstats_t *tot = malloc(sizeof(*tot));
    int checked = 0;

    (void)state;
    assert_non_null(tot);
    assert_int_equal(r->njobs, 3);
    for (size_t i = 0; i < 3; i++)
        for (int d = 0; d < LG_DIR_NR; d++)
            checked += s_check_dir(&r->jobs[i].dir[d], s_jget(json_array_get(jobs, i), s_dirs[d]));
    assert_int_equal(checked, 3 * 2 * LG_NPCT); /* every percentile fio printed */

    for (int d = 0; d < LG_DIR_NR; d++) {
        uint64_t ios = 0, bytes = 0, n = 0, rt = 0, mn = UINT64_MAX, mx = 0;
        double iops = 0, bw = 0, sum = 0, mean, m2 = 0;
        uint64_t vals[LG_HIST_NR], cnt[LG_HIST_NR], keys[LG_HIST_NR * 3];
        size_t nkeys = 0, nvals = 0;

        for (size_t i = 0; i < 3; i++) {
            json_t *jd = s_jget(json_array_get(jobs, i), s_dirs[d]);
            json_t *bins = json_object_get(s_jget(jd, "lat_ns"), "bins");
            const char *key;
            json_t *v;

            ios += s_ju(jd, "total_ios");
            bytes += s_ju(jd, "io_bytes");
            n += s_ju(jd, "lat_ns.N");
            iops += s_jd(jd, "iops");
            bw += s_jd(jd, "bw_bytes");
            sum += s_jd(jd, "lat_ns.mean") * (double)s_ju(jd, "lat_ns.N");
            rt = rt > s_ju(jd, "runtime") ? rt : s_ju(jd, "runtime");
            if (s_ju(jd, "lat_ns.N") > 0 && s_ju(jd, "lat_ns.min") < mn)
                mn = s_ju(jd, "lat_ns.min");
            mx = mx > s_ju(jd, "lat_ns.max") ? mx : s_ju(jd, "lat_ns.max");
            json_object_foreach(bins, key, v)
            {
                keys[nkeys++] = strtoull(key, NULL, 10);
            }
        }
        lg_fio_report_total(r, (lg_dir_t)d, tot);
        assert_int_equal(tot->ios, ios);
        assert_int_equal(tot->bytes, bytes);
        assert_int_equal(tot->lat_n, n);
        assert_int_equal(tot->runtime_ms, rt);
        assert_true(fabs(tot->iops - iops) <= 1e-9 * iops);
        assert_true(fabs(tot->bw_bytes - bw) <= 1e-9 * bw);
        if (n == 0) {
            assert_int_equal(tot->lat_min, 0);
            assert_true(tot->lat_mean == 0 && tot->lat_stddev == 0);
            assert_false(tot->has_hist);
            continue;
        }
        assert_int_equal(tot->lat_min, mn);
        assert_int_equal(tot->lat_max, mx);
        /* Pooled stddev the textbook way (Chan et al.), not from sums of squares. */
        mean = sum / (double)n;
        for (size_t i = 0; i < 3; i++) {
            json_t *jd = s_jget(json_array_get(jobs, i), s_dirs[d]);
            double ni = (double)s_ju(jd, "lat_ns.N"), si = s_jd(jd, "lat_ns.stddev");
            double mi = s_jd(jd, "lat_ns.mean");

            m2 += (ni - 1) * si * si + ni * (mi - mean) * (mi - mean);
        }
        assert_true(fabs(tot->lat_mean - mean) <= 1e-12 * mean);
        assert_true(fabs(tot->lat_stddev - sqrt(m2 / (double)(n - 1))) <= 1e-9 * tot->lat_stddev);

        /* Summed histogram: the same distinct keys, counts added, percentiles of the sum. */
        assert_true(tot->has_hist);
        qsort(keys, nkeys, sizeof(keys[0]), s_cmp_u64);
        for (size_t k = 0; k < nkeys; k++) {
            char kb[32];

            if (k > 0 && keys[k] == keys[k - 1])
                continue;
            snprintf(kb, sizeof(kb), "%llu", (unsigned long long)keys[k]);
            vals[nvals] = keys[k];
            cnt[nvals] = 0;
            for (size_t i = 0; i < 3; i++) {
                json_t *bins = s_jget(s_jget(json_array_get(jobs, i), s_dirs[d]), "lat_ns.bins");
                json_t *v = json_object_get(bins, kb);

                cnt[nvals] += v ? (uint64_t)json_integer_value(v) : 0;
            }
            assert_int_equal(tot->hist.bins[lg_hist_idx(keys[k])], cnt[nvals]);
            nvals++;
        }
        assert_int_equal(lg_hist_total(&tot->hist), n);
        for (unsigned p = 0; p < LG_NPCT; p++)
            assert_int_equal(lg_hist_percentile(&tot->hist, lg_pct_list[p]),
                             s_ref_percentile(vals, cnt, nvals, lg_pct_list[p]));
    }
    free(tot);
    json_decref(root);
    lg_fio_report_destroy(&r);
    free(text);
}

/* A report that came while one job was still in its ramp (fio ends each job's on its own): the
 * measured total leaves that job out, ios, bytes, latencies and runtime alike; the plain total
 * keeps it; with every job in its ramp the measured total is empty. */
static void test_report_measured(void **state)
{
    size_t len;
    char *text = s_load("fio_3jobs.json", &len);
    lg_fio_report_t *r = s_parse_ok(text);
    lg_dirstats_t *tot = malloc(sizeof(*tot)), *meas = malloc(sizeof(*meas));

    (void)state;
    assert_non_null(tot);
    assert_non_null(meas);
    assert_int_equal(r->njobs, 3);
    for (size_t i = 0; i < 3; i++)
        assert_false(lg_fio_job_in_ramp(&r->jobs[i]));
    /* job 1 in its ramp: I/O counted, no latency yet, runtime from its start */
    for (int d = 0; d < LG_DIR_NR; d++) {
        lg_dirstats_t *j = &r->jobs[1].dir[d];
        j->lat_n = 0;
        j->lat_min = j->lat_max = 0;
        j->lat_mean = j->lat_stddev = j->lat_sum = j->lat_sumsq = 0;
        memset(&j->hist, 0, sizeof j->hist);
        j->runtime_ms = 99999;
    }
    assert_true(lg_fio_job_in_ramp(&r->jobs[1]));
    int some_io = 0;
    for (int d = 0; d < LG_DIR_NR; d++) {
        const lg_dirstats_t *a = &r->jobs[0].dir[d], *b = &r->jobs[1].dir[d],
                            *c = &r->jobs[2].dir[d];
        lg_fio_report_total(r, (lg_dir_t)d, tot);
        lg_fio_report_total_measured(r, (lg_dir_t)d, meas);
        assert_int_equal(tot->ios, a->ios + b->ios + c->ios);
        assert_int_equal(meas->ios, a->ios + c->ios);
        assert_int_equal(meas->bytes, a->bytes + c->bytes);
        assert_int_equal(meas->lat_n, a->lat_n + c->lat_n);
        assert_int_equal(lg_hist_total(&meas->hist),
                         lg_hist_total(&a->hist) + lg_hist_total(&c->hist));
        assert_int_equal(meas->runtime_ms,
                         a->runtime_ms > c->runtime_ms ? a->runtime_ms : c->runtime_ms);
        assert_int_equal(tot->runtime_ms, 99999);
        some_io += b->ios > 0;
    }
    assert_true(some_io); /* the job left out did I/O */
    /* every job in its ramp: nothing measured yet */
    for (size_t i = 0; i < 3; i++)
        for (int d = 0; d < LG_DIR_NR; d++)
            r->jobs[i].dir[d].lat_n = 0;
    for (int d = 0; d < LG_DIR_NR; d++) {
        lg_fio_report_total_measured(r, (lg_dir_t)d, meas);
        assert_int_equal(meas->ios, 0);
        assert_int_equal(meas->bytes, 0);
    }
    /* a job with no I/O at all is not in a ramp */
    lg_fio_job_t idle;
    memset(&idle, 0, sizeof idle);
    assert_false(lg_fio_job_in_ramp(&idle));
    free(tot);
    free(meas);
    lg_fio_report_destroy(&r);
    free(text);
}

static void test_report_client(void **state)
{
    size_t len;
    char *text = s_load("fio_client.json", &len);
    s_coll_t c = {0};
    lg_fio_report_t *r;
    json_t *root, *cs;
    int checked = 0;

    (void)state;
    /* fio's client mode starts its output with a blank line: not noise, not an object. */
    s_split(text, len, 7, 1 << 20, &c);
    assert_int_equal(c.nobj, 1);
    assert_int_equal(c.nnoise, 0);
    r = s_parse_ok(c.obj[0]);
    root = s_jload(c.obj[0]);
    cs = json_object_get(root, "client_stats");
    assert_int_equal(json_array_size(cs), 3);
    assert_int_equal(r->njobs, 2); /* "All clients" is skipped */
    assert_string_equal(r->fio_version, "fio-3.33");
    assert_int_equal(r->timestamp_ms, s_ju(root, "timestamp") * 1000);
    for (size_t i = 0; i < 2; i++) {
        assert_string_equal(r->jobs[i].name, "cl");
        for (int d = 0; d < LG_DIR_NR; d++)
            checked += s_check_dir(&r->jobs[i].dir[d], s_jget(json_array_get(cs, i), s_dirs[d]));
    }
    assert_int_equal(checked, 2 * LG_NPCT); /* reads only */
    json_decref(root);
    lg_fio_report_destroy(&r);
    s_coll_clear(&c);
    free(text);
}

/* Parse text expecting LG_EPARSE with a message containing want. */
static void s_expect_error(const char *text, size_t len, const char *want)
{
    static lg_fio_report_t dummy;
    lg_fio_report_t *r = &dummy; /* must be reset to NULL */
    char err[256] = "x";
    int rc = lg_fio_report_parse(text, len, &r, err, sizeof(err));

    assert_int_equal(rc, LG_EPARSE);
    assert_null(r);
    if (!strstr(err, want))
        fail_msg("error \"%s\" does not contain \"%s\"", err, want);
}

static void s_expect_str(const char *text, const char *want)
{
    s_expect_error(text, strlen(text), want);
}

/* Edit the single-job report with jansson and expect a given error. */
static void s_expect_edit(json_t *root, const char *dir, const char *key, json_t *val,
                          const char *want)
{
    json_t *copy = json_deep_copy(root);
    json_t *obj = json_array_get(json_object_get(copy, "jobs"), 0);
    char *text;

    if (dir)
        obj = s_jget(obj, dir);
    if (val)
        json_object_set_new(obj, key, val);
    else
        json_object_del(obj, key);
    text = json_dumps(copy, JSON_INDENT(2));
    s_expect_error(text, strlen(text), want);
    free(text);
    json_decref(copy);
}

static void test_report_errors(void **state)
{
    size_t len;
    char *text = s_load("fio_3jobs.json", &len);
    json_t *root = s_jload(text);
    lg_fio_report_t *r = NULL;

    (void)state;
    s_expect_error(text, len / 2, "line ");
    s_expect_error(text, len / 2, "column ");
    s_expect_str("", "invalid JSON");
    s_expect_str("{\"a\": 1}", "not a fio JSON report: no \"jobs\" array");
    s_expect_str("[1, 2]", "top level is not an object");
    s_expect_str("{\"jobs\": {}}", "\"jobs\" is not an array");
    s_expect_str("{\"jobs\": []}", "no jobs");
    s_expect_str("{\"client_stats\": [{\"jobname\": \"All clients\"}]}", "no jobs");
    s_expect_str("{\"jobs\": [1]}", "jobs[0]: not an object");
    s_expect_str("{\"jobs\": []} x", "invalid JSON");

    /* No "N" is fio before 3.18 (derived from total_ios: test_fio_versions); no lat_ns and no
     * fio-2 "lat" is no latency at all. */
    s_expect_edit(root, "read", "lat_ns", NULL, "jobs[0].read: missing \"lat_ns\"");
    s_expect_edit(root, "write", "total_ios", NULL, "fio before 2.1.14 printed no I/O counts");
    s_expect_edit(root, "write", "total_ios", json_integer(-1),
                  "jobs[0].write: \"total_ios\" is not a non-negative integer");
    s_expect_edit(root, "write", "io_bytes", json_real(1.5), "\"io_bytes\" is not a non-negative");
    s_expect_edit(root, "trim.lat_ns", "mean", json_string("1"), "\"mean\" is not a number");
    s_expect_edit(root, "read", "lat_ns", json_integer(1), "\"lat_ns\" is not an object");
    s_expect_edit(root, NULL, "trim", NULL, "jobs[0]: missing \"trim\"");
    s_expect_edit(root, NULL, "jobname", json_integer(3), "\"jobname\" is not a string");
    s_expect_edit(root, NULL, "error", json_real(0.5), "\"error\" is not an integer");
    s_expect_edit(root, "read.lat_ns", "bins", json_array(), "\"bins\" is not an object");
    s_expect_edit(root, "read.lat_ns.bins", "12x", json_integer(1),
                  "jobs[0].read.lat_ns.bins: key \"12x\" is not a decimal integer");
    s_expect_edit(root, "read.lat_ns.bins", "-5", json_integer(1), "\"-5\" is not a decimal");
    s_expect_edit(root, "read.lat_ns.bins", " 5", json_integer(1), "is not a decimal");
    s_expect_edit(root, "read.lat_ns.bins", "99999999999999999999", json_integer(1),
                  "is not a decimal");
    s_expect_edit(root, "read.lat_ns.bins", "1000", json_integer(-1),
                  "bins: \"1000\" is not a non-negative integer");

    /* Integers where floats are expected are fine; a huge bin key lands in the last bucket. */
    {
        json_t *copy = json_deep_copy(root);
        json_t *rd = s_jget(json_array_get(json_object_get(copy, "jobs"), 0), "read");
        char *t;

        json_object_set_new(rd, "iops", json_integer(7));
        json_object_set_new(s_jget(rd, "lat_ns.bins"), "18446744073709551615", json_integer(2));
        t = json_dumps(copy, 0);
        r = s_parse_ok(t);
        assert_true(r->jobs[0].dir[LG_DIR_READ].iops == 7.0);
        assert_true(r->jobs[0].dir[LG_DIR_READ].hist.bins[LG_HIST_NR - 1] >= 2);
        lg_fio_report_destroy(&r);
        free(t);
        json_decref(copy);
    }
    /* No room for a message is not a crash. */
    assert_int_equal(lg_fio_report_parse("{}", 2, &r, NULL, 0), LG_EPARSE);
    json_decref(root);
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_split_chunking),  cmocka_unit_test(test_split_limits),
        cmocka_unit_test(test_report_stream),   cmocka_unit_test(test_report_3jobs),
        cmocka_unit_test(test_report_measured), cmocka_unit_test(test_report_client),
        cmocka_unit_test(test_report_errors),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
