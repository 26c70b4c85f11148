/* lg_fio.c: reading fio's JSON output (see lg_fio.h).
 * The splitter cuts fio's stream of pretty-printed objects apart by their bare "{" and "}" lines;
 * the reader turns one object into lg_dirstats_t per job and direction, naming the JSON path of
 * anything it cannot use, since fio's output is untrusted input to the daemon. */
#include "lg_fio.h"

#include <errno.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lg_error.h"

/* ---- stream splitter ---- */

typedef enum {
    S_OUTSIDE, /* between objects: lines are noise */
    S_INSIDE,  /* collecting an object */
    S_DROPPING /* skipping the rest of an object that exceeded max_object */
} s_state_t;

struct lg_fio_splitter {
    size_t max_object;
    lg_fio_object_cb on_object;
    lg_fio_noise_cb on_noise;
    void *arg;
    s_state_t state;
    /* Inside an object: the object so far, then the current partial line from line_start.
     * Otherwise only the partial line (line_start == 0). */
    char *buf;
    size_t len, cap, line_start;
    bool skip_line; /* discard bytes up to the next newline (an over-long line) */
};

lg_fio_splitter_t *lg_fio_splitter_new(size_t max_object, lg_fio_object_cb on_object,
                                       lg_fio_noise_cb on_noise, void *arg)
{
    lg_fio_splitter_t *s = calloc(1, sizeof(*s));

    if (!s)
        return NULL;
    s->max_object = max_object;
    s->on_object = on_object;
    s->on_noise = on_noise;
    s->arg = arg;
    s->state = S_OUTSIDE;
    return s;
}

void lg_fio_splitter_destroy(lg_fio_splitter_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    free((*self_p)->buf);
    free(*self_p);
    *self_p = NULL;
}

/* Make room for len + extra bytes plus a NUL; the caller has already checked the cap. */
static int s_reserve(lg_fio_splitter_t *s, size_t extra)
{
    size_t need = s->len + extra + 1, cap = s->cap ? s->cap : 256;
    char *p;

    if (need <= s->cap)
        return 0;
    while (cap < need)
        cap = cap > SIZE_MAX / 2 ? need : cap * 2;
    p = realloc(s->buf, cap);
    if (!p)
        return -ENOMEM;
    s->buf = p;
    s->cap = cap;
    return 0;
}

/* The bytes past max_object cannot become part of a delivered object, so an over-long object
 * is dropped as a whole and an over-long noise line is cut. */
static void s_drop_object(lg_fio_splitter_t *s)
{
    s->state = S_DROPPING;
    s->len = 0;
    s->line_start = 0;
}

static bool s_line_is(const char *line, size_t len, char c)
{
    return len == 1 && line[0] == c;
}

static void s_emit_noise(lg_fio_splitter_t *s, const char *line, size_t len)
{
    /* Blank lines (fio's client mode starts with one) carry nothing worth logging. */
    if (len > 0 && s->on_noise) {
        s->buf[s->line_start + len] = '\0';
        s->on_noise(s->arg, line, len);
    }
}

/* A whole line (without its newline and any '\r') is at buf + line_start. */
static int s_end_line(lg_fio_splitter_t *s)
{
    const char *line = s->buf + s->line_start;
    size_t llen = s->len - s->line_start;
    bool opens = s_line_is(line, llen, '{'), closes = s_line_is(line, llen, '}');

    if (opens) {
        /* Inside an object this means the old one was cut off (fio died, output truncated)
         * and would not parse anyway: start again from this line. */
        if (s->max_object < 2) {
            s_drop_object(s);
            return LG_ETOOBIG;
        }
        s->state = S_INSIDE;
        s->buf[0] = '{';
        s->buf[1] = '\n';
        s->len = 2;
        s->buf[s->len] = '\0';
        s->line_start = s->len;
        return 0;
    }
    if (s->state == S_INSIDE) {
        if (s->len + 1 > s->max_object) {
            s_drop_object(s);
            return LG_ETOOBIG;
        }
        s->buf[s->len++] = '\n';
        s->buf[s->len] = '\0';
        s->line_start = s->len;
        if (closes) {
            if (s->on_object)
                s->on_object(s->arg, s->buf, s->len);
            s->state = S_OUTSIDE;
            s->len = 0;
            s->line_start = 0;
        }
        return 0;
    }
    if (s->state == S_DROPPING) {
        if (closes)
            s->state = S_OUTSIDE;
    } else {
        s_emit_noise(s, line, llen);
    }
    s->len = 0;
    s->line_start = 0;
    return 0;
}

/* Append n bytes of the current line, enforcing the caps. */
static int s_append(lg_fio_splitter_t *s, const char *p, size_t n)
{
    int rc;

    if (s->state == S_INSIDE) {
        if (n > s->max_object || s->len > s->max_object - n) {
            s_drop_object(s);
            s->skip_line = true;
            return LG_ETOOBIG;
        }
    } else if (n > s->max_object || s->len > s->max_object - n) {
        /* Outside objects only "{" and "}" matter; a long line is noise: pass on its start. */
        size_t room = s->max_object > s->len ? s->max_object - s->len : 0;

        rc = s_reserve(s, room);
        if (rc < 0)
            return rc;
        memcpy(s->buf + s->len, p, room);
        s->len += room;
        if (s->state == S_OUTSIDE && s->len > 0)
            s_emit_noise(s, s->buf, s->len);
        s->len = 0;
        s->skip_line = true;
        return 0;
    }
    rc = s_reserve(s, n);
    if (rc < 0) {
        if (s->state == S_INSIDE)
            s_drop_object(s);
        else
            s->len = 0;
        s->skip_line = true;
        return rc;
    }
    memcpy(s->buf + s->len, p, n);
    s->len += n;
    return 0;
}

int lg_fio_splitter_feed(lg_fio_splitter_t *s, const char *data, size_t len)
{
    int ret = 0;
    size_t pos = 0;

    while (pos < len) {
        const char *nl = memchr(data + pos, '\n', len - pos);
        size_t n = nl ? (size_t)(nl - (data + pos)) : len - pos;
        int rc = 0;

        if (s->skip_line) {
            if (nl)
                s->skip_line = false;
        } else {
            rc = s_append(s, data + pos, n);
            if (rc == 0 && nl && !s->skip_line) {
                /* "\r\n" endings: the '\r' is the last byte of the line however it was chunked. */
                if (s->len > s->line_start && s->buf[s->len - 1] == '\r')
                    s->len--;
                rc = s_reserve(s, 1);
                if (rc == 0)
                    rc = s_end_line(s);
                else if (s->state == S_INSIDE)
                    s_drop_object(s);
                else
                    s->len = 0;
            }
            if (nl && s->skip_line)
                s->skip_line = false;
        }
        /* Report the first problem of this call; splitting always goes on. */
        if (rc < 0 && ret == 0)
            ret = rc;
        pos += n + (nl ? 1 : 0);
    }
    return ret;
}

/* ---- one report ---- */

static int s_fail(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int s_fail(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;

    if (err && errlen > 0) {
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return LG_EPARSE;
}

typedef struct {
    char *err;
    size_t errlen;
} s_ectx_t;

static json_t *s_member(s_ectx_t *e, json_t *obj, const char *path, const char *key, int *rc)
{
    json_t *v = json_object_get(obj, key);

    if (!v)
        *rc = s_fail(e->err, e->errlen, "%s: missing \"%s\"", path, key);
    return v;
}

static int s_get_u64(s_ectx_t *e, json_t *obj, const char *path, const char *key, uint64_t *out)
{
    int rc = 0;
    json_t *v = s_member(e, obj, path, key, &rc);

    if (!v)
        return rc;
    /* fio prints counters with %lld, so a negative number is a wrapped or bogus counter. */
    if (!json_is_integer(v) || json_integer_value(v) < 0)
        return s_fail(e->err, e->errlen, "%s: \"%s\" is not a non-negative integer", path, key);
    *out = (uint64_t)json_integer_value(v);
    return 0;
}

static int s_get_double(s_ectx_t *e, json_t *obj, const char *path, const char *key, double *out)
{
    int rc = 0;
    json_t *v = s_member(e, obj, path, key, &rc);

    if (!v)
        return rc;
    /* fio prints some figures with %lld and others with %f; the value is what matters. */
    if (!json_is_number(v))
        return s_fail(e->err, e->errlen, "%s: \"%s\" is not a number", path, key);
    *out = json_number_value(v);
    return 0;
}

static int s_get_object(s_ectx_t *e, json_t *obj, const char *path, const char *key, json_t **out)
{
    int rc = 0;
    json_t *v = s_member(e, obj, path, key, &rc);

    if (!v)
        return rc;
    if (!json_is_object(v))
        return s_fail(e->err, e->errlen, "%s: \"%s\" is not an object", path, key);
    *out = v;
    return 0;
}

/* A bins key is the decimal bucket value fio printed with %llu: digits only, no sign, no
 * spaces, no overflow. strtoull alone would accept " -1" or "12abc" in part. */
static bool s_parse_bin_key(const char *key, uint64_t *val)
{
    char *end = NULL;
    unsigned long long v;

    if (key[0] < '0' || key[0] > '9')
        return false;
    for (const char *p = key; *p; p++)
        if (*p < '0' || *p > '9')
            return false;
    errno = 0;
    v = strtoull(key, &end, 10);
    if (errno != 0 || !end || *end != '\0')
        return false;
    *val = v;
    return true;
}

static int s_read_bins(s_ectx_t *e, json_t *bins, const char *path, lg_hist_t *h)
{
    const char *key;
    json_t *v;

    json_object_foreach(bins, key, v)
    {
        uint64_t val;
        unsigned idx;

        if (!s_parse_bin_key(key, &val))
            return s_fail(e->err, e->errlen, "%s.bins: key \"%.40s\" is not a decimal integer",
                          path, key);
        if (!json_is_integer(v) || json_integer_value(v) < 0)
            return s_fail(e->err, e->errlen, "%s.bins: \"%s\" is not a non-negative integer", path,
                          key);
        idx = lg_hist_idx(val);
        if (h->bins[idx] > UINT64_MAX - (uint64_t)json_integer_value(v))
            return s_fail(e->err, e->errlen, "%s.bins: count overflow at \"%s\"", path, key);
        h->bins[idx] += (uint64_t)json_integer_value(v);
    }
    return 0;
}

/* How this job's report was written, by fio's version (what a field's absence means). */
typedef struct {
    bool lat_pct;   /* the job ran with lat_percentiles=1 */
    unsigned *conv; /* LG_FIO_CONV_* of the report, or-ed in as they are made */
} s_jctx_t;

/* Whole nanoseconds from a field in microseconds (fio-2): exact, since fio-2 counted in us. */
static int s_get_us_as_ns(s_ectx_t *e, json_t *obj, const char *path, const char *key,
                          uint64_t *out)
{
    uint64_t us = 0;
    int rc = s_get_u64(e, obj, path, key, &us);
    if (rc < 0)
        return rc;
    if (us > UINT64_MAX / 1000)
        return s_fail(e->err, e->errlen, "%s: \"%s\" is out of range", path, key);
    *out = us * 1000;
    return 0;
}

/* lat (fio-2, microseconds) or lat_ns (fio-3). fio before 3.18 prints no "N": when latency was
 * measured at all (gtod_reduce=1 prints zeros), every completed I/O was one sample, so N is
 * total_ios (d->ios, read before). */
static int s_read_lat(s_ectx_t *e, s_jctx_t *c, json_t *lat, const char *path, bool usec,
                      lg_dirstats_t *d)
{
    json_t *bins;
    int rc;

    if (usec) {
        if ((rc = s_get_us_as_ns(e, lat, path, "min", &d->lat_min)) < 0 ||
            (rc = s_get_us_as_ns(e, lat, path, "max", &d->lat_max)) < 0 ||
            (rc = s_get_double(e, lat, path, "mean", &d->lat_mean)) < 0 ||
            (rc = s_get_double(e, lat, path, "stddev", &d->lat_stddev)) < 0)
            return rc;
        d->lat_mean *= 1000.0;
        d->lat_stddev *= 1000.0;
        *c->conv |= LG_FIO_CONV_USEC;
    } else if ((rc = s_get_u64(e, lat, path, "min", &d->lat_min)) < 0 ||
               (rc = s_get_u64(e, lat, path, "max", &d->lat_max)) < 0 ||
               (rc = s_get_double(e, lat, path, "mean", &d->lat_mean)) < 0 ||
               (rc = s_get_double(e, lat, path, "stddev", &d->lat_stddev)) < 0)
        return rc;
    if (json_object_get(lat, "N")) {
        if ((rc = s_get_u64(e, lat, path, "N", &d->lat_n)) < 0)
            return rc;
    } else {
        d->lat_n = d->lat_max > 0 || d->lat_mean > 0 ? d->ios : 0;
        *c->conv |= LG_FIO_CONV_N;
    }
    bins = usec ? NULL : json_object_get(lat, "bins");
    if (bins) {
        if (!json_is_object(bins))
            return s_fail(e->err, e->errlen, "%s: \"bins\" is not an object", path);
        rc = s_read_bins(e, bins, path, &d->hist);
        if (rc < 0)
            return rc;
        d->has_hist = true;
    }
    return 0;
}

/* fio 3.0 to 3.6 with lat_percentiles=1 put the total-latency histogram where the completion
 * latency's goes (clat_ns.bins; the option turns clat_percentiles off), and print none under
 * lat_ns. */
static int s_read_old_lat_bins(s_ectx_t *e, s_jctx_t *c, json_t *dobj, const char *path,
                               lg_dirstats_t *d)
{
    json_t *bins = json_object_get(json_object_get(dobj, "clat_ns"), "bins");
    char cpath[160];
    int rc;

    if (d->has_hist || !c->lat_pct || !json_is_object(bins))
        return 0;
    snprintf(cpath, sizeof(cpath), "%s.clat_ns", path);
    rc = s_read_bins(e, bins, cpath, &d->hist);
    if (rc < 0)
        return rc;
    d->has_hist = true;
    *c->conv |= LG_FIO_CONV_CLAT_BINS;
    return 0;
}

static const char *const s_dir_names[LG_DIR_NR] = {"read", "write", "trim"};

/* One direction of one job, whatever fio wrote it: fio-2 gives io_bytes and bw in KiB (until
 * io_kbytes came beside them) and latency in us under "lat"; fio before 3.2 has no bw_bytes. */
static int s_read_dir(s_ectx_t *e, s_jctx_t *c, json_t *dobj, const char *path, lg_dirstats_t *d)
{
    char lpath[160];
    json_t *lat = NULL;
    bool usec = !json_object_get(dobj, "lat_ns") && json_object_get(dobj, "lat");
    int rc;

    if (!json_object_get(dobj, "total_ios"))
        return s_fail(e->err, e->errlen,
                      "%s: missing \"total_ios\" (fio before 2.1.14 printed no I/O counts, "
                      "without which its latencies cannot be merged or weighed)",
                      path);
    if ((rc = s_get_u64(e, dobj, path, "total_ios", &d->ios)) < 0 ||
        (rc = s_get_u64(e, dobj, path, "io_bytes", &d->bytes)) < 0 ||
        (rc = s_get_u64(e, dobj, path, "runtime", &d->runtime_ms)) < 0 ||
        (rc = s_get_double(e, dobj, path, "iops", &d->iops)) < 0 ||
        (rc = s_get_object(e, dobj, path, usec ? "lat" : "lat_ns", &lat)) < 0)
        return rc;
    if (!json_object_get(dobj, "io_kbytes")) {
        if (d->bytes > UINT64_MAX / 1024)
            return s_fail(e->err, e->errlen, "%s: \"io_bytes\" is out of range", path);
        d->bytes *= 1024;
        *c->conv |= LG_FIO_CONV_KIB;
    }
    if (json_object_get(dobj, "bw_bytes")) {
        if ((rc = s_get_double(e, dobj, path, "bw_bytes", &d->bw_bytes)) < 0)
            return rc;
    } else {
        if ((rc = s_get_double(e, dobj, path, "bw", &d->bw_bytes)) < 0)
            return rc;
        d->bw_bytes *= 1024.0;
        *c->conv |= LG_FIO_CONV_BW;
    }
    snprintf(lpath, sizeof(lpath), "%s.%s", path, usec ? "lat" : "lat_ns");
    if ((rc = s_read_lat(e, c, lat, lpath, usec, d)) < 0 ||
        (!usec && (rc = s_read_old_lat_bins(e, c, dobj, path, d)) < 0))
        return rc;
    lg_dirstats_derive_sums(d);
    return 0;
}

/* A job option as fio printed it: the job's own, else the report's global one. */
static const char *s_option(json_t *root, json_t *jobj, const char *key)
{
    json_t *v = json_object_get(json_object_get(jobj, "job options"), key);

    if (!json_is_string(v))
        v = json_object_get(json_object_get(root, "global options"), key);
    return json_is_string(v) ? json_string_value(v) : NULL;
}

static int s_read_job(s_ectx_t *e, json_t *root, json_t *jobj, const char *path, unsigned *conv,
                      lg_fio_job_t *job)
{
    char dpath[144];
    json_t *v;
    int rc = 0;

    if (!json_is_object(jobj))
        return s_fail(e->err, e->errlen, "%s: not an object", path);
    if (!(v = s_member(e, jobj, path, "jobname", &rc)))
        return rc;
    if (!json_is_string(v))
        return s_fail(e->err, e->errlen, "%s: \"jobname\" is not a string", path);
    snprintf(job->name, sizeof(job->name), "%s", json_string_value(v));
    /* Client mode: a server is its host and port (two servers on one host are two). */
    json_t *host = json_object_get(jobj, "hostname"), *port = json_object_get(jobj, "port");
    if (json_is_string(host) && json_is_integer(port))
        snprintf(job->host, sizeof(job->host), "%s:%lld", json_string_value(host),
                 (long long)json_integer_value(port));
    else if (json_is_string(host))
        snprintf(job->host, sizeof(job->host), "%s", json_string_value(host));
    if (!(v = s_member(e, jobj, path, "error", &rc)))
        return rc;
    if (!json_is_integer(v) || json_integer_value(v) < -2147483647 - 1 ||
        json_integer_value(v) > 2147483647)
        return s_fail(e->err, e->errlen, "%s: \"error\" is not an integer", path);
    job->error = (int)json_integer_value(v);
    json_t *gid = json_object_get(jobj, "groupid");
    job->groupid = json_is_integer(gid) ? (int)json_integer_value(gid) : 0;

    const char *lp = s_option(root, jobj, "lat_percentiles");
    s_jctx_t c = {lp && strcmp(lp, "1") == 0, conv};
    for (int d = 0; d < LG_DIR_NR; d++) {
        json_t *dobj = NULL;

        lg_dirstats_init(&job->dir[d]);
        if ((rc = s_get_object(e, jobj, path, s_dir_names[d], &dobj)) < 0)
            return rc;
        snprintf(dpath, sizeof(dpath), "%s.%s", path, s_dir_names[d]);
        if ((rc = s_read_dir(e, &c, dobj, dpath, &job->dir[d])) < 0)
            return rc;
    }
    return 0;
}

/* The header fields are informative: client mode prints no timestamp_ms, so fall back to
 * "timestamp" (seconds); only a present field of the wrong type is an error. */
static int s_read_header(s_ectx_t *e, json_t *root, lg_fio_report_t *r)
{
    json_t *v = json_object_get(root, "fio version");

    if (v) {
        if (!json_is_string(v))
            return s_fail(e->err, e->errlen, "\"fio version\" is not a string");
        snprintf(r->fio_version, sizeof(r->fio_version), "%s", json_string_value(v));
    }
    v = json_object_get(root, "timestamp_ms");
    if (v) {
        if (!json_is_integer(v))
            return s_fail(e->err, e->errlen, "\"timestamp_ms\" is not an integer");
        r->timestamp_ms = json_integer_value(v);
        return 0;
    }
    v = json_object_get(root, "timestamp");
    if (v) {
        if (!json_is_integer(v) || json_integer_value(v) < -(INT64_MAX / 1000) ||
            json_integer_value(v) > INT64_MAX / 1000)
            return s_fail(e->err, e->errlen, "\"timestamp\" is not an integer");
        r->timestamp_ms = json_integer_value(v) * 1000;
    }
    return 0;
}

static bool s_is_all_clients(json_t *jobj)
{
    json_t *name = json_object_get(jobj, "jobname");

    return json_is_string(name) && strcmp(json_string_value(name), "All clients") == 0;
}

int lg_fio_report_parse(const char *text, size_t len, lg_fio_report_t **out, char *err,
                        size_t errlen)
{
    s_ectx_t e = {err, errlen};
    json_error_t jerr;
    json_t *root, *jobs;
    const char *aname = "jobs";
    lg_fio_report_t *r = NULL;
    size_t i, n;
    int rc;

    if (!out)
        return -EINVAL;
    *out = NULL;
    if (err && errlen > 0)
        err[0] = '\0';
    if (!text)
        return s_fail(err, errlen, "not a fio JSON report: no text");
    /* Integers stay integers (no JSON_DECODE_INT_AS_REAL) so that counts are exact. */
    root = json_loadb(text, len, 0, &jerr);
    if (!root)
        return s_fail(err, errlen, "invalid JSON at line %d, column %d: %s", jerr.line, jerr.column,
                      jerr.text);
    if (!json_is_object(root)) {
        rc = s_fail(err, errlen, "not a fio JSON report: top level is not an object");
        goto done;
    }
    jobs = json_object_get(root, "jobs");
    if (!jobs) {
        jobs = json_object_get(root, "client_stats");
        aname = "client_stats";
    }
    if (!json_is_array(jobs)) {
        if (jobs)
            rc = s_fail(err, errlen, "not a fio JSON report: \"%s\" is not an array", aname);
        else
            rc = s_fail(err, errlen, "not a fio JSON report: no \"jobs\" array");
        goto done;
    }
    r = calloc(1, sizeof(*r));
    if (!r) {
        rc = -ENOMEM;
        goto done;
    }
    if ((rc = s_read_header(&e, root, r)) < 0)
        goto done;
    n = json_array_size(jobs);
    if (n > 0) {
        r->jobs = calloc(n, sizeof(*r->jobs));
        if (!r->jobs) {
            rc = -ENOMEM;
            goto done;
        }
    }
    for (i = 0; i < n; i++) {
        json_t *jobj = json_array_get(jobs, i);
        char path[64];

        /* The aggregate of client mode would count every client's I/O twice. */
        if (aname[0] == 'c' && s_is_all_clients(jobj))
            continue;
        snprintf(path, sizeof(path), "%s[%zu]", aname, i);
        if ((rc = s_read_job(&e, root, jobj, path, &r->conv, &r->jobs[r->njobs])) < 0)
            goto done;
        r->njobs++;
    }
    if (r->njobs == 0) {
        rc = s_fail(err, errlen, "not a usable fio JSON report: no jobs in \"%s\"", aname);
        goto done;
    }
    *out = r;
    r = NULL;
    rc = 0;
done:
    lg_fio_report_destroy(&r);
    json_decref(root);
    return rc;
}

int lg_fio_job_in_ramp(const lg_fio_job_t *j)
{
    uint64_t ios = 0, lat = 0;
    for (int d = 0; d < LG_DIR_NR; d++) {
        ios += j->dir[d].ios;
        lat += j->dir[d].lat_n;
    }
    return ios > 0 && lat == 0;
}

/* Merged in batches so no allocation can fail here; sums carry through each batch unchanged and
 * mean/stddev are recomputed from them, so the result equals one merge. */
static void s_total(const lg_fio_report_t *r, lg_dir_t d, int measured, lg_dirstats_t *out)
{
    enum { BATCH = 32 };
    const lg_dirstats_t *list[BATCH];
    size_t i = 0, k;
    int merged = 0;

    lg_dirstats_init(out);
    if (!r || r->njobs == 0 || (unsigned)d >= LG_DIR_NR)
        return;
    while (i < r->njobs) {
        k = 0;
        if (merged)
            list[k++] = out;
        while (k < BATCH && i < r->njobs) {
            const lg_fio_job_t *j = &r->jobs[i++];
            if (!measured || !lg_fio_job_in_ramp(j))
                list[k++] = &j->dir[d];
        }
        if (k > (size_t)merged) {
            lg_dirstats_merge(out, list, k);
            merged = 1;
        }
    }
}

void lg_fio_report_total(const lg_fio_report_t *r, lg_dir_t d, lg_dirstats_t *out)
{
    s_total(r, d, 0, out);
}

void lg_fio_report_total_measured(const lg_fio_report_t *r, lg_dir_t d, lg_dirstats_t *out)
{
    s_total(r, d, 1, out);
}

void lg_fio_conv_describe(unsigned conv, char *buf, size_t len)
{
    static const struct {
        unsigned bit;
        const char *what;
    } words[] = {
        {LG_FIO_CONV_USEC, "latencies converted from microseconds"},
        {LG_FIO_CONV_KIB, "io_bytes converted from KiB"},
        {LG_FIO_CONV_BW, "bandwidth from bw (KiB/s) x 1024"},
        {LG_FIO_CONV_N, "latency sample counts from total_ios"},
        {LG_FIO_CONV_CLAT_BINS, "the latency histogram from clat_ns.bins (lat_percentiles=1)"},
    };
    size_t o = 0;

    if (len == 0)
        return;
    buf[0] = '\0';
    for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
        if (!(conv & words[i].bit) || o >= len)
            continue;
        int n = snprintf(buf + o, len - o, "%s%s", o ? "; " : "", words[i].what);
        o += n > 0 ? (size_t)n : 0;
    }
}

int lg_fio_version_parse(const char *v, unsigned *major, unsigned *minor)
{
    unsigned long ma, mi;
    char *end = NULL;

    if (!v || strncmp(v, "fio-", 4) != 0 || v[4] < '0' || v[4] > '9')
        return LG_EPARSE;
    errno = 0;
    ma = strtoul(v + 4, &end, 10);
    if (errno || *end != '.' || end[1] < '0' || end[1] > '9' || ma > 1000)
        return LG_EPARSE;
    mi = strtoul(end + 1, &end, 10);
    if (errno || mi > 100000)
        return LG_EPARSE;
    *major = (unsigned)ma;
    *minor = (unsigned)mi;
    return 0;
}

int lg_fio_version_supported(const char *v)
{
    unsigned ma, mi;

    if (lg_fio_version_parse(v, &ma, &mi) != 0)
        return LG_EPARSE;
    return ma > LG_FIO_OLDEST_MAJOR || (ma == LG_FIO_OLDEST_MAJOR && mi >= LG_FIO_OLDEST_MINOR);
}

void lg_fio_report_destroy(lg_fio_report_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    free((*self_p)->jobs);
    free(*self_p);
    *self_p = NULL;
}
