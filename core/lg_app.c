/* lg_app.c: pgbench's and sysbench's per-second reports and final summaries, read strictly: a
 * report or a summary line that does not have the layout the tools print (pgbench 15, sysbench
 * 1.0) is an error naming the field, never a silent zero. */
#include "lg_app.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lg_error.h"
#include "lg_log.h" /* LG_PRINTF */
#include "lg_util.h"

static int s_fail(char *err, size_t errlen, const char *fmt, ...) LG_PRINTF(3, 4);

static int s_fail(char *err, size_t errlen, const char *fmt, ...)
{
    if (err && errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return LG_EPARSE;
}

static const char *s_tool(lg_app_kind_t k)
{
    return k == LG_APP_PGBENCH ? "pgbench" : "sysbench";
}

/* ---- a cursor over one NUL-terminated line; every step skips the blanks before it ---- */

static const char *s_blank(const char *p)
{
    while (*p == ' ' || *p == '\t')
        p++;
    return p;
}

static bool s_lit(const char **pp, const char *lit)
{
    const char *p = s_blank(*pp);
    size_t n = strlen(lit);
    if (strncmp(p, lit, n) != 0)
        return false;
    *pp = p + n;
    return true;
}

/* Only the tail of the line (blanks, CR, LF) is left. */
static bool s_end(const char *p)
{
    while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
        p++;
    return *p == 0;
}

/* A number as the tools print it with %f in the C locale: digits, optionally a point and
 * digits; no sign, exponent, hex or "inf". The span is checked first so that strtod, whose end
 * pointer must land on the span's end, cannot take more (or less, in a locale whose decimal
 * point is not '.'). nan_ok lets through the "nan"/"-nan" that glibc prints for a latency that
 * pgbench divided by zero transactions or whose variance came out below zero by rounding. */
static bool s_num(const char **pp, double *out, bool nan_ok)
{
    const char *p = s_blank(*pp);
    if (nan_ok && (strncmp(p, "nan", 3) == 0 || strncmp(p, "-nan", 4) == 0)) {
        *pp = p + (*p == '-' ? 4 : 3);
        *out = NAN;
        return true;
    }
    const char *s = p;
    if (!isdigit((unsigned char)*p))
        return false;
    while (isdigit((unsigned char)*p))
        p++;
    if (*p == '.') {
        p++;
        if (!isdigit((unsigned char)*p))
            return false;
        while (isdigit((unsigned char)*p))
            p++;
    }
    errno = 0;
    char *end;
    double v = strtod(s, &end);
    if (end != p || errno == ERANGE || !isfinite(v))
        return false;
    *out = v;
    *pp = p;
    return true;
}

static bool s_u64(const char **pp, uint64_t *out)
{
    const char *p = s_blank(*pp), *s = p;
    char buf[24];
    while (isdigit((unsigned char)*p))
        p++;
    if (p == s || (size_t)(p - s) >= sizeof buf)
        return false;
    memcpy(buf, s, (size_t)(p - s));
    buf[p - s] = 0;
    if (lg_parse_u64(buf, 0, UINT64_MAX, out) != 0)
        return false;
    *pp = p;
    return true;
}

static bool s_u32(const char **pp, uint32_t *out)
{
    uint64_t v;
    if (!s_u64(pp, &v) || v > UINT32_MAX)
        return false;
    *out = (uint32_t)v;
    return true;
}

/* ---- per-second reports ---- */

static void s_sample_init(lg_app_kind_t k, lg_app_sample_t *s)
{
    memset(s, 0, sizeof *s);
    s->qps = s->read_qps = s->write_qps = s->other_qps = NAN;
    s->lat_avg_ms = s->lat_stddev_ms = s->lat_pct_ms = NAN;
    s->err_ps = s->reconn_ps = NAN;
    if (k != LG_APP_PGBENCH)
        s->failed = s->retried = s->retries = s->lag_ms = s->skipped = NAN;
}

#define NEED(cond, field)                                                                          \
    do {                                                                                           \
        if (!(cond))                                                                               \
            return s_fail(err, errlen, "malformed %s report: bad \"%s\" in \"%.80s\"", tool,       \
                          field, line);                                                            \
    } while (0)

/* "progress: 1.0 s, 481.0 tps, lat 8.022 ms stddev 9.601, 0 failed[, lag 0.152 ms][, 0 skipped]
 * [, 385 retried, 743 retries]"; with --progress-timestamp the time is Unix time ("%.3f s"). */
static int s_pgbench_line(const char *line, lg_app_sample_t *o, char *err, size_t errlen)
{
    const char *tool = "pgbench progress", *p = line;
    if (strncmp(line, "progress:", 9) != 0)
        return 0;
    p += 9;
    NEED(s_num(&p, &o->t_s, false) && s_lit(&p, "s") && s_lit(&p, ","), "time");
    /* pgbench prints the time since the start, or Unix time: no run lasts until 2001. */
    o->t_epoch = o->t_s > 1e9;
    NEED(s_num(&p, &o->tps, false) && s_lit(&p, "tps") && s_lit(&p, ","), "tps");
    NEED(s_lit(&p, "lat") && s_num(&p, &o->lat_avg_ms, true) && s_lit(&p, "ms"), "lat");
    NEED(s_lit(&p, "stddev") && s_num(&p, &o->lat_stddev_ms, true), "stddev");
    while (!s_end(p)) {
        NEED(s_lit(&p, ","), "end of line");
        if (s_lit(&p, "lag")) {
            NEED(s_num(&p, &o->lag_ms, true) && s_lit(&p, "ms"), "lag");
            continue;
        }
        double n;
        NEED(s_num(&p, &n, false), "item after stddev");
        if (s_lit(&p, "failed"))
            o->failed = n;
        else if (s_lit(&p, "skipped"))
            o->skipped = n;
        else if (s_lit(&p, "retried"))
            o->retried = n;
        else if (s_lit(&p, "retries"))
            o->retries = n;
        else
            NEED(false, "item after stddev");
    }
    return 1;
}

/* "[ 1s ] thds: 4 tps: 1307.23 qps: 26186.57 (r/w/o: 18339.18/5228.92/2618.46) lat (ms,95%):
 * 5.37 err/s: 0.00 reconn/s: 0.00". Lines of other sysbench tests ("eps:") are malformed here. */
static int s_sysbench_line(const char *line, lg_app_sample_t *o, char *err, size_t errlen)
{
    const char *tool = "sysbench interval", *p = line;
    if (line[0] != '[' || !strstr(line, "] thds:"))
        return 0;
    p++;
    NEED(s_num(&p, &o->t_s, false) && s_lit(&p, "s") && s_lit(&p, "]"), "time");
    NEED(s_lit(&p, "thds:") && s_u32(&p, &o->threads), "thds");
    NEED(s_lit(&p, "tps:") && s_num(&p, &o->tps, false), "tps");
    NEED(s_lit(&p, "qps:") && s_num(&p, &o->qps, false), "qps");
    NEED(s_lit(&p, "(r/w/o:") && s_num(&p, &o->read_qps, false) && s_lit(&p, "/") &&
             s_num(&p, &o->write_qps, false) && s_lit(&p, "/") && s_num(&p, &o->other_qps, false) &&
             s_lit(&p, ")"),
         "r/w/o");
    NEED(s_lit(&p, "lat") && s_lit(&p, "(ms,") && s_u32(&p, &o->pct) && s_lit(&p, "%):") &&
             s_num(&p, &o->lat_pct_ms, false),
         "lat");
    if (o->pct == 0) /* --percentile=0: no percentile, sysbench prints 0.00 */
        o->lat_pct_ms = NAN;
    NEED(s_lit(&p, "err/s:") && s_num(&p, &o->err_ps, false), "err/s");
    NEED(s_lit(&p, "reconn/s:") && s_num(&p, &o->reconn_ps, false), "reconn/s");
    NEED(s_end(p), "end of line");
    return 1;
}

#undef NEED

int lg_app_parse_line(lg_app_kind_t k, const char *line, lg_app_sample_t *out, char *err,
                      size_t errlen)
{
    lg_app_sample_t s;
    s_sample_init(k, &s);
    int rc;
    if (k == LG_APP_PGBENCH)
        rc = s_pgbench_line(line, &s, err, errlen);
    else if (k == LG_APP_SYSBENCH_OLTP)
        rc = s_sysbench_line(line, &s, err, errlen);
    else
        return s_fail(err, errlen, "unknown application kind %d", (int)k);
    if (rc == 1)
        *out = s;
    return rc;
}

/* ---- final summaries: one table of the lines read, by tool ---- */

typedef enum {
    S_U32,  /* "label N" */
    S_U64,  /* "label N" */
    S_OF,   /* "label N" or "label N/M" (pgbench -t: processed of planned) */
    S_PCT,  /* "label N (x%)" */
    S_RATE, /* "label N (X per sec.)": N at off, X at off2 */
    S_NUM,  /* "label X" */
} s_shape_t;

typedef struct {
    lg_app_kind_t kind;
    const char *label; /* the line starts with it (sysbench's after its indent) */
    const char *name;  /* in messages */
    s_shape_t shape;
    size_t off, off2;
    const char *tail; /* follows the value; NULL when nothing does */
    const char *opt;  /* may follow tail; NULL when nothing may */
    bool required;
} s_field_t;

#define OFF(f) offsetof(lg_app_total_t, f)
#define PG LG_APP_PGBENCH
#define SB LG_APP_SYSBENCH_OLTP
static const s_field_t s_fields[] = {
    {PG, "scaling factor:", "scaling factor", S_U32, OFF(scale), 0, NULL, NULL, true},
    {PG, "number of clients:", "number of clients", S_U32, OFF(clients), 0, NULL, NULL, true},
    {PG, "number of threads:", "number of threads", S_U32, OFF(threads), 0, NULL, NULL, true},
    /* -T; with -t there is no duration but "number of transactions per client" */
    {PG, "duration:", "duration", S_NUM, OFF(duration_s), 0, "s", NULL, true},
    {PG, "number of transactions per client:", "number of transactions per client", S_U64,
     OFF(tx_per_client), 0, NULL, NULL, false},
    {PG, "number of transactions actually processed:", "number of transactions actually processed",
     S_OF, OFF(transactions), 0, NULL, NULL, true},
    {PG, "number of failed transactions:", "number of failed transactions", S_PCT, OFF(failed), 0,
     NULL, NULL, true},
    {PG, "number of transactions retried:", "number of transactions retried", S_PCT, OFF(retried),
     0, NULL, NULL, false},
    {PG, "total number of retries:", "total number of retries", S_U64, OFF(retries), 0, NULL, NULL,
     false},
    {PG, "number of transactions skipped:", "number of transactions skipped", S_PCT, OFF(skipped),
     0, NULL, NULL, false},
    /* Without -P, -R or -L pgbench derives the average from the run time and says
     * "(including failures)" when some failed; with them it measures it and prints the stddev. */
    {PG, "latency average =", "latency average", S_NUM, OFF(lat_avg_ms), 0, "ms",
     "(including failures)", true},
    {PG, "latency stddev =", "latency stddev", S_NUM, OFF(lat_stddev_ms), 0, "ms", NULL, false},
    {PG, "initial connection time =", "initial connection time", S_NUM, OFF(init_conn_ms), 0, "ms",
     NULL, false},
    /* The only tps pgbench 14+ prints without -C. With -C it prints "(including reconnection
     * times)" instead, which is another figure: that line is malformed here. */
    {PG, "tps =", "tps", S_NUM, OFF(tps), 0, "(without initial connection time)", NULL, true},

    {SB, "Number of threads:", "Number of threads", S_U32, OFF(threads), 0, NULL, NULL, true},
    {SB, "read:", "read", S_U64, OFF(reads), 0, NULL, NULL, true},
    {SB, "write:", "write", S_U64, OFF(writes), 0, NULL, NULL, true},
    {SB, "other:", "other", S_U64, OFF(others), 0, NULL, NULL, true},
    {SB, "transactions:", "transactions", S_RATE, OFF(transactions), OFF(tps), NULL, NULL, true},
    /* "queries" repeats the "total:" under "queries performed", the sum of the three above */
    {SB, "queries:", "queries", S_RATE, OFF(queries), OFF(qps), NULL, NULL, true},
    {SB, "ignored errors:", "ignored errors", S_RATE, OFF(errors), OFF(errors_ps), NULL, NULL,
     true},
    {SB, "reconnects:", "reconnects", S_RATE, OFF(reconnects), OFF(reconnects_ps), NULL, NULL,
     true},
    {SB, "total time:", "total time", S_NUM, OFF(duration_s), 0, "s", NULL, true},
    {SB, "total number of events:", "total number of events", S_U64, OFF(events), 0, NULL, NULL,
     true},
    {SB, "min:", "min", S_NUM, OFF(lat_min_ms), 0, NULL, NULL, true},
    {SB, "avg:", "avg", S_NUM, OFF(lat_avg_ms), 0, NULL, NULL, true},
    {SB, "max:", "max", S_NUM, OFF(lat_max_ms), 0, NULL, NULL, true},
    {SB, "sum:", "sum", S_NUM, OFF(lat_sum_ms), 0, NULL, NULL, true},
};
#undef PG
#undef SB
#undef OFF
#define S_NFIELDS (sizeof s_fields / sizeof *s_fields)

/* Reads the value of f from p (just past its label) into out. */
static bool s_field_value(const s_field_t *f, const char *p, lg_app_total_t *out)
{
    char *base = (char *)out;
    uint64_t u = 0, of;
    double d, pct;
    switch (f->shape) {
    case S_U32: {
        uint32_t v;
        if (!s_u32(&p, &v))
            return false;
        memcpy(base + f->off, &v, sizeof v);
        break;
    }
    case S_U64:
        if (!s_u64(&p, &u))
            return false;
        memcpy(base + f->off, &u, sizeof u);
        break;
    case S_OF:
        if (!s_u64(&p, &u) || (s_lit(&p, "/") && !s_u64(&p, &of)))
            return false;
        memcpy(base + f->off, &u, sizeof u);
        break;
    case S_PCT:
        if (!s_u64(&p, &u) || !s_lit(&p, "(") || !s_num(&p, &pct, false) || !s_lit(&p, "%)"))
            return false;
        memcpy(base + f->off, &u, sizeof u);
        break;
    case S_RATE:
        if (!s_u64(&p, &u) || !s_lit(&p, "(") || !s_num(&p, &d, false) || !s_lit(&p, "per sec.)"))
            return false;
        memcpy(base + f->off, &u, sizeof u);
        memcpy(base + f->off2, &d, sizeof d);
        break;
    case S_NUM:
        if (!s_num(&p, &d, false))
            return false;
        memcpy(base + f->off, &d, sizeof d);
        break;
    }
    if (f->tail && !s_lit(&p, f->tail))
        return false;
    if (f->opt)
        s_lit(&p, f->opt);
    return s_end(p);
}

/* sysbench's "95th percentile:" (the number is --percentile's) or "percentile stats: disabled"
 * (--percentile=0). Returns 1 when the line was one of them, 0 when not, LG_EPARSE when bad. */
static int s_sysbench_pct(const char *p, lg_app_total_t *out, bool *seen)
{
    if (s_lit(&p, "percentile stats:")) {
        if (!s_lit(&p, "disabled") || !s_end(p) || *seen)
            return LG_EPARSE;
        *seen = true;
        return 1;
    }
    if (!isdigit((unsigned char)*p) || !strstr(p, "th percentile:"))
        return 0;
    if (*seen || !s_u32(&p, &out->pct) || out->pct == 0 || !s_lit(&p, "th percentile:") ||
        !s_num(&p, &out->lat_pct_ms, false) || !s_end(p))
        return LG_EPARSE;
    *seen = true;
    return 1;
}

int lg_app_parse_final(lg_app_kind_t k, const char *text, size_t len, lg_app_total_t *out,
                       char *err, size_t errlen)
{
    if (k != LG_APP_PGBENCH && k != LG_APP_SYSBENCH_OLTP)
        return s_fail(err, errlen, "unknown application kind %d", (int)k);
    const char *tool = s_tool(k);
    memset(out, 0, sizeof *out);
    out->kind = k;
    out->tps = out->lat_avg_ms = out->duration_s = out->lat_stddev_ms = out->init_conn_ms = NAN;
    out->qps = out->errors_ps = out->reconnects_ps = NAN;
    out->lat_min_ms = out->lat_max_ms = out->lat_sum_ms = out->lat_pct_ms = NAN;

    bool seen[S_NFIELDS] = {false}, pct_seen = false;
    size_t lineno = 0;
    for (size_t i = 0; i < len;) {
        const char *nl = memchr(text + i, '\n', len - i);
        size_t n = nl ? (size_t)(nl - (text + i)) : len - i;
        char line[512];
        lineno++;
        /* No line that is read is this long; a longer one is another tool's text. */
        bool fits = n < sizeof line;
        if (fits) {
            memcpy(line, text + i, n);
            line[n] = 0;
        }
        i += n + 1;
        if (!fits)
            continue;
        /* pgbench's lines start in column 0 (its per-script lines are indented and not read);
         * sysbench indents its figures. */
        const char *p = k == LG_APP_PGBENCH ? line : s_blank(line);
        if (k == LG_APP_SYSBENCH_OLTP) {
            int rc = s_sysbench_pct(p, out, &pct_seen);
            if (rc < 0)
                return s_fail(err, errlen,
                              "%s output line %zu: malformed or repeated \"percentile\"", tool,
                              lineno);
            if (rc == 1)
                continue;
        }
        for (size_t f = 0; f < S_NFIELDS; f++) {
            const s_field_t *fd = &s_fields[f];
            size_t ln = strlen(fd->label);
            if (fd->kind != k || strncmp(p, fd->label, ln) != 0)
                continue;
            if (seen[f])
                return s_fail(err, errlen, "%s output line %zu: \"%s\" repeated", tool, lineno,
                              fd->name);
            if (!s_field_value(fd, p + ln, out))
                return s_fail(err, errlen, "%s output line %zu: malformed \"%s\": \"%.80s\"", tool,
                              lineno, fd->name, line);
            seen[f] = true;
            break;
        }
    }
    for (size_t f = 0; f < S_NFIELDS; f++) {
        const s_field_t *fd = &s_fields[f];
        if (fd->kind != k || !fd->required || seen[f])
            continue;
        /* pgbench -t runs a number of transactions per client instead of a duration */
        if (fd->off == offsetof(lg_app_total_t, duration_s) && k == LG_APP_PGBENCH &&
            out->tx_per_client > 0)
            continue;
        return s_fail(err, errlen, "%s output: missing \"%s\"", tool, fd->name);
    }
    if (k == LG_APP_SYSBENCH_OLTP) {
        if (!pct_seen)
            return s_fail(err, errlen, "%s output: missing \"percentile\"", tool);
        if (out->reads + out->writes + out->others != out->queries)
            return s_fail(err, errlen,
                          "%s output: \"queries\" (%llu) is not \"read\" + \"write\" + "
                          "\"other\" (%llu)",
                          tool, (unsigned long long)out->queries,
                          (unsigned long long)(out->reads + out->writes + out->others));
    }
    return 0;
}
