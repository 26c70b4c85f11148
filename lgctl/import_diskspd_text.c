/* import_diskspd_text.c: DiskSpd's text output (the default, -Rtext) read into lg_diskspd_t, line
 * by line as ResultParser.cpp writes it: the input parameters per timespan and target, the
 * system's computer name, then per timespan the test time, thread count, the "total:" lines of
 * its Read IO and Write IO tables and the latency percentile table. Versions 2.0.x and 2.1/2.2
 * differ in a few labels; both are read. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import_diskspd.h"
#include "lg_error.h"
#include "lg_util.h"

typedef enum { SEC_NONE, SEC_TOTAL, SEC_READ, SEC_WRITE, SEC_PCT, SEC_END } sec_t;

typedef struct {
    lg_diskspd_t *out;
    lg_diskspd_span_t prof[LG_DISKSPD_MAX_SPANS]; /* what each timespan asked for */
    size_t nprof;
    bool in_target; /* a "path:" line was seen in the current profile timespan */
    uint32_t pool;  /* "thread pool with N threads" of the current profile timespan */
    int res;        /* index of the results timespan being read, -1 before the first */
    lg_diskspd_span_t cur;
    sec_t sec;
    bool col_lat, col_iopsd; /* the current table has AvgLat/LatStdDev, IopsStdDev columns */
    bool seen_total[2];
    size_t lineno;
    char why[384];
} trd_t;

static const char *s_blank(const char *p)
{
    while (*p == ' ' || *p == '\t')
        p++;
    return p;
}

static bool s_pre(const char **pp, const char *lit)
{
    const char *p = s_blank(*pp);
    size_t n = strlen(lit);
    if (strncmp(p, lit, n) != 0)
        return false;
    *pp = p + n;
    return true;
}

static bool s_num(const char **pp, double *out)
{
    const char *p = s_blank(*pp);
    if (!isdigit((unsigned char)*p))
        return false;
    char *end;
    errno = 0;
    double v = strtod(p, &end);
    if (errno == ERANGE || !isfinite(v) || v > 1e12)
        return false; /* (no figure DiskSpd prints comes near 1e12: in ns it still fits a bigint) */
    *out = v;
    *pp = end;
    return true;
}

/* A count as DiskSpd prints it (%llu): digits only, exact to 2^64 - 1. */
static bool s_count(const char **pp, uint64_t *out)
{
    const char *p = s_blank(*pp), *q = p;
    char buf[24];
    while (isdigit((unsigned char)*q))
        q++;
    if (q == p || (size_t)(q - p) >= sizeof buf)
        return false;
    memcpy(buf, p, (size_t)(q - p));
    buf[q - p] = 0;
    if (lg_parse_u64(buf, 0, UINT64_MAX, out) != 0)
        return false;
    *pp = q;
    return true;
}

static bool s_uint(const char **pp, uint32_t *out)
{
    double v;
    if (!s_num(pp, &v) || v != floor(v) || v > UINT32_MAX)
        return false;
    *out = (uint32_t)v;
    return true;
}

/* "4096", "4KiB", "1.50MiB" (ResultParser's _DisplayFileSize) in bytes. */
static bool s_size(const char *p, uint32_t *out)
{
    double v;
    if (!s_num(&p, &v))
        return false;
    static const struct {
        const char *u;
        double m;
    } units[] = {{"KiB", 1024.0}, {"MiB", 1048576.0}, {"GiB", 1073741824.0}};
    for (size_t i = 0; i < sizeof units / sizeof *units; i++)
        if (!strncmp(p, units[i].u, 3)) {
            v *= units[i].m;
            p += 3;
        }
    p = s_blank(p);
    if ((*p && *p != '\r') || v < 1 || v > UINT32_MAX)
        return false;
    *out = (uint32_t)llround(v);
    return true;
}

static lg_diskspd_span_t *s_prof(trd_t *t)
{
    return t->nprof ? &t->prof[t->nprof - 1] : NULL;
}

/* A target's parameters ("\t\tblock size: 64KiB"): of the first target; the depth is the deepest
 * of all. Returns true when the line was one of them. */
static bool s_target_line(const trd_t *t, lg_diskspd_span_t *s, const char *p)
{
    uint32_t v, w;
    if (s_pre(&p, "performing read test")) {
        if (s->ntargets == 1)
            s->write_ratio = 0;
    } else if (s_pre(&p, "performing write test")) {
        if (s->ntargets == 1)
            s->write_ratio = 100;
    } else if (s_pre(&p, "performing mix test (read/write ratio:")) {
        if (s_uint(&p, &v) && s_pre(&p, "/") && s_uint(&p, &w) && v + w == 100 && s->ntargets == 1)
            s->write_ratio = (int)w;
    } else if (s_pre(&p, "performing mix test (write/read ratio:")) { /* 2.0.12 and before */
        if (s_uint(&p, &w) && w <= 100 && s->ntargets == 1)
            s->write_ratio = (int)w;
    } else if (s_pre(&p, "block size:")) {
        if (s_size(s_blank(p), &v) && s->ntargets == 1)
            s->bs = v;
    } else if (s_pre(&p, "using random I/O") || s_pre(&p, "using mixed random/sequential I/O")) {
        if (s->ntargets == 1)
            s->random = 1;
    } else if (s_pre(&p, "using sequential I/O") || s_pre(&p, "using interlocked sequential I/O")) {
        if (s->ntargets == 1)
            s->random = 0;
    } else if (s_pre(&p, "software cache disabled") || s_pre(&p, "local software cache disabled") ||
               s_pre(&p, "hardware and software write caches disabled")) {
        if (s->ntargets == 1)
            s->direct = 1;
    } else if (s_pre(&p, "using software cache")) {
        if (s->ntargets == 1)
            s->direct = 0;
    } else if (s_pre(&p, "threads per file:")) {
        if (s_uint(&p, &v) && !t->pool) /* a pool's threads are its own */
            s->threads += v;
    } else if (s_pre(&p, "number of outstanding I/O operations per thread:") ||
               s_pre(&p, "number of outstanding I/O operations:")) {
        if (s_uint(&p, &v)) {
            if (s->ntargets > 1 && v != s->qd)
                s->qd_differs = true;
            if (v > s->qd)
                s->qd = v;
        }
    } else {
        return false;
    }
    return true;
}

/* The input parameters: "timespan:   N", its duration and pool, and its targets. */
static void s_profile_line(trd_t *t, const char *line)
{
    const char *p = line;
    uint32_t v;
    lg_diskspd_span_t *s = s_prof(t);
    if (s_pre(&p, "timespan:") && s_uint(&p, &v)) {
        if (t->nprof < LG_DISKSPD_MAX_SPANS) {
            lg__diskspd_span_init(&t->prof[t->nprof++]);
            t->in_target = false;
            t->pool = 0;
        }
        return;
    }
    if (!s)
        return;
    p = line;
    if (s_pre(&p, "path:")) {
        p = s_blank(p);
        s_pre(&p, "template target");
        p = s_blank(p);
        if (*p == '\'')
            p++;
        if (++s->ntargets == 1) {
            lg_strlcpy(s->target, p, sizeof s->target);
            char *q = strrchr(s->target, '\'');
            if (q)
                *q = 0;
        }
        t->in_target = true;
    } else if (t->in_target && s_target_line(t, s, line)) {
    } else if (s_pre(&p, "duration:")) {
        s_uint(&p, &s->duration_s);
    } else if (s_pre(&p, "warm up time:")) {
        s_uint(&p, &s->warmup_s);
    } else if (s_pre(&p, "measuring latency")) {
        s->has_lat = true;
    } else if (s_pre(&p, "thread pool with") && s_uint(&p, &v)) {
        t->pool = v;
        s->threads = v;
    } else if (!t->in_target && t->pool &&
               s_pre(&p, "number of outstanding I/O operations per thread:") && s_uint(&p, &v)) {
        s->qd = v;
    }
}

/* "total:   bytes | I/Os | MiB/s | I/O per s [| AvgLat] [| IopsStdDev] [| LatStdDev]" */
static int s_total_line(trd_t *t, const char *p, int d)
{
    lg_diskspd_dir_t *x = &t->cur.dir[d];
    uint64_t bytes, ios;
    double mib, iops, lat = NAN, isd = NAN, lsd = NAN;
    bool ok = s_count(&p, &bytes) && s_pre(&p, "|") && s_count(&p, &ios) && s_pre(&p, "|") &&
              s_num(&p, &mib) && s_pre(&p, "|") && s_num(&p, &iops);
    if (ok && t->col_lat)
        ok = s_pre(&p, "|") && s_num(&p, &lat);
    if (ok && t->col_iopsd)
        ok = s_pre(&p, "|") && s_num(&p, &isd);
    if (ok && t->col_lat)
        ok = s_pre(&p, "|") && (s_num(&p, &lsd) || s_pre(&p, "N/A"));
    if (!ok || bytes > INT64_MAX || ios > INT64_MAX) {
        snprintf(t->why, sizeof t->why, "line %zu: a malformed \"total:\" line", t->lineno);
        return LG_EPARSE;
    }
    x->bytes = bytes;
    x->ios = ios;
    x->iops_stddev = isd;
    if (t->col_lat && x->ios > 0) {
        x->lat_mean_ms = lat;
        x->lat_stddev_ms = lsd;
    }
    t->seen_total[d] = true;
    return 0;
}

/* A row of the percentile table: "    min |  0.041 |  N/A | 0.041", "3-nines | ...". */
static int s_pct_line(trd_t *t, const char *line)
{
    static const struct {
        const char *name;
        double p; /* 0: min, 100: max */
    } rows[] = {{"min", 0},
                {"25th", 25},
                {"50th", 50},
                {"75th", 75},
                {"90th", 90},
                {"95th", 95},
                {"99th", 99},
                {"3-nines", 99.9},
                {"4-nines", 99.99},
                {"5-nines", 99.999},
                {"6-nines", 99.9999},
                {"7-nines", 99.99999},
                {"8-nines", 99.999999},
                {"9-nines", 99.9999999},
                {"max", 100}};
    const char *p = s_blank(line);
    if (*p == '-')
        return 0; /* the rule under the header */
    size_t r = 0;
    while (r < sizeof rows / sizeof *rows &&
           !(strncmp(p, rows[r].name, strlen(rows[r].name)) == 0 &&
             s_blank(p + strlen(rows[r].name))[0] == '|'))
        r++;
    if (r == sizeof rows / sizeof *rows) {
        t->sec = SEC_NONE; /* the table ended */
        return 0;
    }
    p = s_blank(p + strlen(rows[r].name)) + 1;
    for (int d = 0; d < 2; d++) {
        lg_diskspd_dir_t *x = &t->cur.dir[d];
        double v;
        if (s_pre(&p, "N/A")) {
        } else if (s_num(&p, &v)) {
            if (rows[r].p == 0)
                x->lat_min_ms = v;
            else if (rows[r].p == 100)
                x->lat_max_ms = v;
            else if (x->npct < LG_DISKSPD_MAX_PCT) {
                x->pct[x->npct] = rows[r].p;
                x->pct_ms[x->npct++] = v;
            }
        } else {
            snprintf(t->why, sizeof t->why, "line %zu: a malformed percentile row", t->lineno);
            return LG_EPARSE;
        }
        if (!s_pre(&p, "|")) {
            snprintf(t->why, sizeof t->why, "line %zu: a malformed percentile row", t->lineno);
            return LG_EPARSE;
        }
    }
    return 0;
}

/* The timespan just read, with what its profile asked for, into out. */
static int s_finish_span(trd_t *t)
{
    if (t->res < 0)
        return 0;
    lg_diskspd_span_t *s = &t->cur;
    if (s->test_s <= 0) {
        t->out->skipped++; /* interrupted before measuring began */
        return 0;
    }
    if (!t->seen_total[0] || !t->seen_total[1]) {
        snprintf(t->why, sizeof t->why,
                 "timespan %d has no \"total:\" line in its %s IO table (the file ends early?)",
                 t->res + 1, t->seen_total[0] ? "Write" : "Read");
        return LG_EPARSE;
    }
    if ((size_t)t->res >= t->nprof) {
        snprintf(t->why, sizeof t->why, "timespan %d has no input parameters", t->res + 1);
        return LG_EPARSE;
    }
    const lg_diskspd_span_t *pr = &t->prof[t->res];
    if (pr->bs == 0 || pr->write_ratio < 0) {
        snprintf(t->why, sizeof t->why,
                 "the input parameters of timespan %d have no block size or no read/write test",
                 t->res + 1);
        return LG_EPARSE;
    }
    if (s->threads == 0)
        s->threads = pr->threads;
    s->qd = pr->qd ? pr->qd : 1;
    s->qd_differs = pr->qd_differs;
    s->bs = pr->bs;
    s->write_ratio = pr->write_ratio;
    s->random = pr->random;
    s->direct = pr->direct;
    s->duration_s = pr->duration_s;
    s->warmup_s = pr->warmup_s;
    s->ntargets = pr->ntargets;
    s->has_lat = pr->has_lat || t->col_lat;
    lg_strlcpy(s->target, pr->target, sizeof s->target);
    if (t->out->nspans == LG_DISKSPD_MAX_SPANS) {
        snprintf(t->why, sizeof t->why, "more than %d timespans", LG_DISKSPD_MAX_SPANS);
        return LG_EPARSE;
    }
    t->out->spans[t->out->nspans++] = *s;
    return 0;
}

/* The results of a timespan, section by section. */
static int s_result_line(trd_t *t, const char *line)
{
    const char *p = line;
    double v;
    uint32_t u;
    if (t->sec == SEC_PCT)
        return s_pct_line(t, line);
    if (s_pre(&p, "actual test time:") && s_num(&p, &v)) {
        t->cur.test_s = v;
    } else if (p = line, s_pre(&p, "thread count:") && s_uint(&p, &u)) {
        t->cur.threads = u;
    } else if (p = line, s_pre(&p, "Total IO") && !*s_blank(p)) {
        t->sec = SEC_TOTAL;
    } else if (p = line, s_pre(&p, "Read IO") && !*s_blank(p)) {
        t->sec = SEC_READ;
    } else if (p = line, s_pre(&p, "Write IO") && !*s_blank(p)) {
        t->sec = SEC_WRITE;
    } else if (p = line, s_pre(&p, "thread |")) {
        t->col_lat = strstr(line, "AvgLat") != NULL;
        t->col_iopsd = strstr(line, "IopsStdDev") != NULL;
    } else if (p = line, s_pre(&p, "%-ile |")) {
        /* a new table: the last one of the timespan is the total over its targets */
        for (int d = 0; d < 2; d++) {
            lg_diskspd_dir_t *x = &t->cur.dir[d];
            x->npct = 0;
            x->lat_min_ms = x->lat_max_ms = NAN;
        }
        t->sec = SEC_PCT;
    } else if (p = line,
               s_pre(&p, "total:") && *s_blank(p) && (t->sec == SEC_READ || t->sec == SEC_WRITE)) {
        return s_total_line(t, p, t->sec == SEC_READ ? 0 : 1);
    }
    return 0;
}

static int s_line(trd_t *t, char *line)
{
    size_t l = strlen(line);
    while (l && (line[l - 1] == '\r' || line[l - 1] == ' '))
        line[--l] = 0;
    const char *p = line;
    int v;
    if (s_pre(&p, "Results for timespan") && sscanf(p, "%d", &v) == 1) {
        int rc = s_finish_span(t);
        lg__diskspd_span_init(&t->cur);
        t->seen_total[0] = t->seen_total[1] = false;
        t->col_lat = t->col_iopsd = false;
        t->sec = SEC_NONE;
        t->res = v - 1;
        if (v < 1 || v > LG_DISKSPD_MAX_SPANS) {
            snprintf(t->why, sizeof t->why, "line %zu: timespan %d", t->lineno, v);
            return LG_EPARSE;
        }
        return rc;
    }
    if (p = line, s_pre(&p, "Totals:") && !*s_blank(p)) {
        int rc = s_finish_span(t);
        t->res = -1;
        t->sec = SEC_END;
        return rc;
    }
    if (p = line, s_pre(&p, "Command Line:")) {
        lg_strlcpy(t->out->cmdline, s_blank(p), sizeof t->out->cmdline);
    } else if (p = line, s_pre(&p, "computer name:")) {
        lg_strlcpy(t->out->computer, s_blank(p), sizeof t->out->computer);
    } else if (p = line, s_pre(&p, "start time:")) {
        lg_strlcpy(t->out->start, s_blank(p), sizeof t->out->start);
    } else if (t->res >= 0) {
        return s_result_line(t, line);
    } else if (t->sec != SEC_END) {
        s_profile_line(t, line);
    }
    return 0;
}

int lg__diskspd_parse_text(const char *text, size_t len, lg_diskspd_t *out, char *err,
                           size_t errlen)
{
    memset(out, 0, sizeof *out);
    trd_t *t = calloc(1, sizeof *t);
    char *line = malloc(4096);
    if (!t || !line) {
        free(t);
        free(line);
        return -ENOMEM;
    }
    t->out = out;
    t->res = -1;
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < len;) {
        const char *nl = memchr(text + i, '\n', len - i);
        size_t n = nl ? (size_t)(nl - (text + i)) : len - i;
        t->lineno++;
        size_t c = n < 4095 ? n : 4095;
        memcpy(line, text + i, c);
        line[c] = 0;
        i += n + 1;
        rc = s_line(t, line);
    }
    if (rc == 0)
        rc = s_finish_span(t);
    if (rc == 0 && t->nprof == 0)
        snprintf(t->why, sizeof t->why, "it has no \"Input parameters:\" with a \"timespan:\"");
    else if (rc == 0 && out->nspans == 0 && out->skipped == 0)
        snprintf(t->why, sizeof t->why,
                 "it has no \"Results for timespan\" (the file ends "
                 "before the results?)");
    else if (rc == 0 && out->nspans == 0)
        snprintf(t->why, sizeof t->why, "every timespan was interrupted before measuring began");
    if (rc == 0 && (t->nprof == 0 || out->nspans == 0))
        rc = LG_EPARSE;
    if (rc == LG_EPARSE)
        snprintf(err, errlen, "DiskSpd text output without what lg needs: %s", t->why);
    free(line);
    free(t);
    return rc;
}
