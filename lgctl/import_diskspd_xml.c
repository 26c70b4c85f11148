/* import_diskspd_xml.c: DiskSpd's -Rxml output read into lg_diskspd_t. DiskSpd writes a small,
 * regular XML (XmlResultParser.cpp: elements, a few attributes, no CDATA, no DTD), so a strict
 * little reader of elements and text serves; anything else (a DOCTYPE, a tag left open) refuses
 * the file rather than guessing. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import_diskspd.h"
#include "lg_error.h"
#include "lg_util.h"

#define MAX_DEPTH 32
#define MAX_NODES 2000000

typedef struct xnode {
    char *name;
    char *text;  /* the element's own text, entities decoded, blanks trimmed */
    char *attrs; /* the start tag's attributes, raw (DiskSpd's are numbers and names) */
    struct xnode *child, *last, *next;
} xnode_t;

typedef struct {
    const char *p, *end, *start;
    size_t nodes;
    char why[256];
} xrd_t;

/* Frees the list of nodes *self_p (each one's children too) and sets *self_p to NULL. */
static void s_xnode_destroy(xnode_t **self_p)
{
    xnode_t *n = self_p ? *self_p : NULL;
    while (n) {
        xnode_t *next = n->next;
        s_xnode_destroy(&n->child);
        free(n->name);
        free(n->text);
        free(n->attrs);
        free(n);
        n = next;
    }
    if (self_p)
        *self_p = NULL;
}

static int s_bad(xrd_t *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char msg[200];
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    size_t line = 1;
    for (const char *q = r->start; q < r->p && q < r->end; q++)
        line += *q == '\n';
    snprintf(r->why, sizeof r->why, "line %zu: %s", line, msg);
    return LG_EPARSE;
}

static void s_blanks(xrd_t *r)
{
    while (r->p < r->end && isspace((unsigned char)*r->p))
        r->p++;
}

static bool s_starts(const xrd_t *r, const char *lit)
{
    size_t n = strlen(lit);
    return (size_t)(r->end - r->p) >= n && memcmp(r->p, lit, n) == 0;
}

/* Skip past the next occurrence of lit; false when there is none (truncated). */
static bool s_skip_past(xrd_t *r, const char *lit)
{
    size_t n = strlen(lit);
    for (const char *q = r->p; q + n <= r->end; q++)
        if (memcmp(q, lit, n) == 0) {
            r->p = q + n;
            return true;
        }
    r->p = r->end;
    return false;
}

/* Comments and processing instructions between elements; a DOCTYPE is refused (DiskSpd writes
 * none, and entity declarations are a way to make a small file large). */
static int s_misc(xrd_t *r)
{
    for (;;) {
        s_blanks(r);
        if (s_starts(r, "<!--")) {
            if (!s_skip_past(r, "-->"))
                return s_bad(r, "unterminated comment");
        } else if (s_starts(r, "<?")) {
            if (!s_skip_past(r, "?>"))
                return s_bad(r, "unterminated processing instruction");
        } else if (s_starts(r, "<!")) {
            return s_bad(r, "a DOCTYPE or CDATA section, which DiskSpd never writes");
        } else {
            return 0;
        }
    }
}

static bool s_namech(char c)
{
    return isalnum((unsigned char)c) || c == '_' || c == '-' || c == '.' || c == ':';
}

/* Append text[0..n) to *buf (decoding entities). */
static int s_append(xrd_t *r, char **buf, size_t *len, const char *t, size_t n)
{
    char *nb = realloc(*buf, *len + n + 1);
    if (!nb)
        return -ENOMEM;
    *buf = nb;
    for (size_t i = 0; i < n; i++) {
        if (t[i] != '&') {
            nb[(*len)++] = t[i];
            continue;
        }
        const char *semi = memchr(t + i, ';', n - i);
        if (!semi || semi - (t + i) > 12)
            return s_bad(r, "a bare '&' in text");
        size_t k = (size_t)(semi - (t + i)) + 1;
        static const struct {
            const char *ent;
            char c;
        } ents[] = {
            {"&lt;", '<'}, {"&gt;", '>'}, {"&amp;", '&'}, {"&quot;", '"'}, {"&apos;", '\''}};
        bool done = false;
        for (size_t e = 0; e < sizeof ents / sizeof *ents && !done; e++)
            if (strlen(ents[e].ent) == k && !memcmp(t + i, ents[e].ent, k)) {
                nb[(*len)++] = ents[e].c;
                done = true;
            }
        if (!done && t[i + 1] == '#') {
            unsigned long cp =
                t[i + 2] == 'x' ? strtoul(t + i + 3, NULL, 16) : strtoul(t + i + 2, NULL, 10);
            if (cp == 0 || cp > 0x10FFFF)
                return s_bad(r, "a bad character reference");
            /* as UTF-8; the buffer grew by n >= k >= 4 bytes for these at most 4 */
            if (cp < 0x80) {
                nb[(*len)++] = (char)cp;
            } else if (cp < 0x800) {
                nb[(*len)++] = (char)(0xC0 | (cp >> 6));
                nb[(*len)++] = (char)(0x80 | (cp & 0x3F));
            } else if (cp < 0x10000) {
                nb[(*len)++] = (char)(0xE0 | (cp >> 12));
                nb[(*len)++] = (char)(0x80 | ((cp >> 6) & 0x3F));
                nb[(*len)++] = (char)(0x80 | (cp & 0x3F));
            } else {
                nb[(*len)++] = (char)(0xF0 | (cp >> 18));
                nb[(*len)++] = (char)(0x80 | ((cp >> 12) & 0x3F));
                nb[(*len)++] = (char)(0x80 | ((cp >> 6) & 0x3F));
                nb[(*len)++] = (char)(0x80 | (cp & 0x3F));
            }
            done = true;
        }
        if (!done)
            return s_bad(r, "an unknown entity \"%.*s\"", (int)k, t + i);
        i += k - 1;
    }
    nb[*len] = 0;
    return 0;
}

static int s_element(xrd_t *r, xnode_t **out, int depth);

/* The content of element n up to its end tag. */
static int s_content(xrd_t *r, xnode_t *n, int depth)
{
    size_t tlen = 0;
    for (;;) {
        const char *lt = memchr(r->p, '<', (size_t)(r->end - r->p));
        if (!lt) {
            r->p = r->end;
            return s_bad(r, "<%s> is not closed: the file ends inside it (truncated?)", n->name);
        }
        int rc = s_append(r, &n->text, &tlen, r->p, (size_t)(lt - r->p));
        if (rc)
            return rc;
        r->p = lt;
        if (s_starts(r, "</")) {
            r->p += 2;
            size_t k = strlen(n->name);
            if ((size_t)(r->end - r->p) <= k && !memcmp(r->p, n->name, (size_t)(r->end - r->p)))
                return s_bad(r,
                             "<%s> is not closed: the file ends inside its end tag "
                             "(truncated?)",
                             n->name);
            if ((size_t)(r->end - r->p) < k || memcmp(r->p, n->name, k) != 0 ||
                (r->p + k < r->end && s_namech(r->p[k])))
                return s_bad(r, "<%s> is closed by another end tag", n->name);
            r->p += k;
            s_blanks(r);
            if (r->p >= r->end || *r->p != '>')
                return s_bad(r, "end tag of <%s> is not closed", n->name);
            r->p++;
            break;
        }
        if (s_starts(r, "<!--") || s_starts(r, "<?") || s_starts(r, "<!")) {
            if ((rc = s_misc(r)))
                return rc;
            continue;
        }
        xnode_t *c = NULL;
        if ((rc = s_element(r, &c, depth + 1))) {
            s_xnode_destroy(&c);
            return rc;
        }
        if (n->last)
            n->last->next = c;
        else
            n->child = c;
        n->last = c;
    }
    /* trim */
    if (n->text) {
        char *s = n->text;
        while (isspace((unsigned char)*s))
            s++;
        size_t l = strlen(s);
        while (l && isspace((unsigned char)s[l - 1]))
            l--;
        memmove(n->text, s, l);
        n->text[l] = 0;
    }
    return 0;
}

static int s_element(xrd_t *r, xnode_t **out, int depth)
{
    if (depth > MAX_DEPTH)
        return s_bad(r, "elements nested deeper than %d", MAX_DEPTH);
    if (++r->nodes > MAX_NODES)
        return s_bad(r, "more than %d elements", MAX_NODES);
    if (r->p >= r->end || *r->p != '<')
        return s_bad(r, "an element was expected");
    r->p++;
    const char *nm = r->p;
    while (r->p < r->end && s_namech(*r->p))
        r->p++;
    if (r->p == nm)
        return s_bad(r, "an element without a name");
    xnode_t *n = calloc(1, sizeof *n);
    if (!n || !(n->name = strndup(nm, (size_t)(r->p - nm)))) {
        free(n);
        return -ENOMEM;
    }
    *out = n;
    /* attributes: kept raw, quotes respected */
    const char *a0 = r->p;
    for (;;) {
        if (r->p >= r->end)
            return s_bad(r, "<%s> start tag is not closed: the file ends inside it (truncated?)",
                         n->name);
        char c = *r->p;
        if (c == '"' || c == '\'') {
            const char *q = memchr(r->p + 1, c, (size_t)(r->end - r->p - 1));
            if (!q)
                return s_bad(r, "an attribute value of <%s> is not closed", n->name);
            r->p = q + 1;
        } else if (c == '/' && r->p + 1 < r->end && r->p[1] == '>') {
            if (!(n->attrs = strndup(a0, (size_t)(r->p - a0))))
                return -ENOMEM;
            r->p += 2;
            return 0;
        } else if (c == '>') {
            if (!(n->attrs = strndup(a0, (size_t)(r->p - a0))))
                return -ENOMEM;
            r->p++;
            return s_content(r, n, depth);
        } else if (c == '<') {
            return s_bad(r, "'<' inside the start tag of <%s>", n->name);
        } else {
            r->p++;
        }
    }
}

static const xnode_t *s_child(const xnode_t *n, const char *name)
{
    for (const xnode_t *c = n ? n->child : NULL; c; c = c->next)
        if (!strcmp(c->name, name))
            return c;
    return NULL;
}

static const xnode_t *s_next(const xnode_t *c, const char *name)
{
    for (c = c ? c->next : NULL; c; c = c->next)
        if (!strcmp(c->name, name))
            return c;
    return NULL;
}

static const char *s_text(const xnode_t *n, const char *name)
{
    const xnode_t *c = s_child(n, name);
    return c ? (c->text ? c->text : "") : NULL;
}

/* The value of attribute name of n as a number; false when it has none. */
static bool s_attr(const xnode_t *n, const char *name, double *out)
{
    size_t k = strlen(name);
    for (const char *a = n->attrs; a && (a = strstr(a, name)); a += k) {
        if (a != n->attrs && !isspace((unsigned char)a[-1]))
            continue;
        const char *v = a + k;
        if (v[0] != '=' || v[1] != '"')
            continue;
        char *end;
        errno = 0;
        double d = strtod(v + 2, &end);
        if (end == v + 2 || *end != '"' || errno == ERANGE || !isfinite(d) || d < 0 || d > 1e12)
            return false;
        *out = d;
        return true;
    }
    return false;
}

/* A number DiskSpd printed (%u, %I64u, %.2f, %.3f): digits with an optional fraction. */
static bool s_dbl(const char *s, double *out)
{
    if (!s || !isdigit((unsigned char)*s))
        return false;
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (*end || errno == ERANGE || !isfinite(v) || v < 0 || v > 1e12)
        return false; /* (no figure DiskSpd prints comes near 1e12: in ns it still fits a bigint) */
    *out = v;
    return true;
}

static bool s_u64(const char *s, uint64_t *out)
{
    return s && lg_parse_u64(s, 0, UINT64_MAX, out) == 0;
}

static bool s_u32(const char *s, uint32_t *out)
{
    uint64_t v;
    if (!s || lg_parse_u64(s, 0, UINT32_MAX, &v) != 0)
        return false;
    *out = (uint32_t)v;
    return true;
}

/* What timespan k of the profile asked for: its targets' block size, depth, write ratio and
 * pattern, and its thread pool. */
static int s_profile_span(const xnode_t *pts, lg_diskspd_span_t *s, char *why, size_t wl)
{
    uint32_t pool = 0, pool_qd = 0;
    s_u32(s_text(pts, "ThreadCount"), &pool);
    s_u32(s_text(pts, "RequestCount"), &pool_qd);
    s_u32(s_text(pts, "Duration"), &s->duration_s);
    s_u32(s_text(pts, "Warmup"), &s->warmup_s);
    const char *cs = s_text(pts, "CalculateIopsStdDev");
    if (cs && !strcmp(cs, "true") && !s_u32(s_text(pts, "IoBucketDuration"), &s->bucket_ms))
        s->bucket_ms = 1000;
    const char *ml = s_text(pts, "MeasureLatency");
    s->has_lat = ml && !strcmp(ml, "true");
    const xnode_t *tg = s_child(s_child(pts, "Targets"), "Target");
    if (!tg) {
        snprintf(why, wl, "its profile has no <Target>");
        return LG_EPARSE;
    }
    for (; tg; tg = s_next(tg, "Target")) {
        uint32_t bs = 0, qd = 0, wr = 0, tpf = 1;
        if (!s_u32(s_text(tg, "BlockSize"), &bs) || bs == 0) {
            snprintf(why, wl, "a profile <Target> has no <BlockSize>");
            return LG_EPARSE;
        }
        if (!s_u32(s_text(tg, "WriteRatio"), &wr) || wr > 100) {
            snprintf(why, wl, "a profile <Target> has no <WriteRatio> from 0 to 100");
            return LG_EPARSE;
        }
        s_u32(s_text(tg, "RequestCount"), &qd);
        s_u32(s_text(tg, "ThreadsPerFile"), &tpf);
        if (pool && pool_qd) /* -F with -O: the pool's depth per thread */
            qd = pool_qd;
        if (s->ntargets == 0) {
            s->bs = bs;
            s->write_ratio = (int)wr;
            s->random = s_child(tg, "Random") ? 1 : 0;
            const char *c1 = s_text(tg, "DisableOSCache"), *c2 = s_text(tg, "DisableAllCache");
            const char *c3 = s_text(tg, "DisableLocalCache");
            s->direct = (c1 && !strcmp(c1, "true")) || (c2 && !strcmp(c2, "true")) ||
                        (c3 && !strcmp(c3, "true"));
            const char *path = s_text(tg, "Path");
            lg_strlcpy(s->target, path ? path : "", sizeof s->target);
            s->qd = qd;
        } else if (qd != s->qd || bs != s->bs) {
            s->bs_differs = s->bs_differs || bs != s->bs;
            s->qd_differs = s->qd_differs || qd != s->qd;
            if (qd > s->qd)
                s->qd = qd;
        }
        s->ntargets++;
    }
    return 0;
}

/* The latency section: per direction the mean, deviation and the percentile buckets (0 is the
 * minimum, 100 the maximum). */
static int s_latency(const xnode_t *lat, lg_diskspd_span_t *s, char *why, size_t wl)
{
    static const char *const avg[2] = {"AverageReadMilliseconds", "AverageWriteMilliseconds"};
    static const char *const sd[2] = {"ReadLatencyStdev", "WriteLatencyStdev"};
    static const char *const ms[2] = {"ReadMilliseconds", "WriteMilliseconds"};
    for (int d = 0; d < 2; d++) {
        lg_diskspd_dir_t *x = &s->dir[d];
        if (x->ios == 0)
            continue;
        if (!s_dbl(s_text(lat, avg[d]), &x->lat_mean_ms) ||
            !s_dbl(s_text(lat, sd[d]), &x->lat_stddev_ms)) {
            snprintf(why, wl, "<Latency> has no <%s> and <%s> though the timespan did %s I/O",
                     avg[d], sd[d], d ? "write" : "read");
            return LG_EPARSE;
        }
        for (const xnode_t *b = s_child(lat, "Bucket"); b; b = s_next(b, "Bucket")) {
            double p, v;
            if (!s_dbl(s_text(b, "Percentile"), &p) || p > 100) {
                snprintf(why, wl, "a latency <Bucket> has no <Percentile> from 0 to 100");
                return LG_EPARSE;
            }
            const char *vs = s_text(b, ms[d]);
            if (!vs)
                continue;
            if (!s_dbl(vs, &v)) {
                snprintf(why, wl, "a latency <Bucket> has a malformed <%s>", ms[d]);
                return LG_EPARSE;
            }
            if (p == 0)
                x->lat_min_ms = v;
            else if (p == 100)
                x->lat_max_ms = v;
            else if (x->npct < LG_DISKSPD_MAX_PCT) {
                x->pct[x->npct] = p;
                x->pct_ms[x->npct++] = v;
            }
        }
    }
    return 0;
}

/* -D: the deviation of the per-interval IOPS, and the intervals themselves. A count is exact only
 * when the interval divides a second (DiskSpd prints count / seconds with no decimals): other
 * intervals keep the deviation only. */
static int s_iops(const xnode_t *iops, lg_diskspd_span_t *s, char *why, size_t wl)
{
    double v;
    if (s_dbl(s_text(iops, "ReadIopsStdDev"), &v))
        s->dir[0].iops_stddev = v;
    if (s_dbl(s_text(iops, "WriteIopsStdDev"), &v))
        s->dir[1].iops_stddev = v;
    size_t nb = 0;
    for (const xnode_t *b = s_child(iops, "Bucket"); b; b = s_next(b, "Bucket"))
        nb++;
    if (!iops || nb == 0 || s->bucket_ms == 0 || 1000 % s->bucket_ms != 0)
        return 0;
    if (!(s->samples = calloc(nb, sizeof *s->samples)))
        return -ENOMEM;
    static const char *const cnt[2] = {"Read", "Write"};
    static const char *const lat[2][4] = {
        {"ReadAvgLatencyMilliseconds", "ReadLatencyStdDev", "ReadMinLatencyMilliseconds",
         "ReadMaxLatencyMilliseconds"},
        {"WriteAvgLatencyMilliseconds", "WriteLatencyStdDev", "WriteMinLatencyMilliseconds",
         "WriteMaxLatencyMilliseconds"}};
    for (const xnode_t *b = s_child(iops, "Bucket"); b; b = s_next(b, "Bucket")) {
        lg_diskspd_sample_t *x = &s->samples[s->nsamples];
        double ms;
        if (!s_attr(b, "SampleMillisecond", &ms) || ms > UINT32_MAX ||
            (s->nsamples && ms <= s->samples[s->nsamples - 1].end_ms)) {
            snprintf(why, wl, "an IOPS <Bucket> has no increasing SampleMillisecond");
            return LG_EPARSE;
        }
        x->end_ms = (uint32_t)ms;
        for (int d = 0; d < 2; d++) {
            double *f[4] = {&x->lat_avg_ms[d], &x->lat_sd_ms[d], &x->lat_min_ms[d],
                            &x->lat_max_ms[d]};
            if (!s_attr(b, cnt[d], &v)) {
                snprintf(why, wl, "an IOPS <Bucket> has no %s count", cnt[d]);
                return LG_EPARSE;
            }
            x->ios[d] = (uint64_t)llround(v * s->bucket_ms / 1000.0);
            if (s->bs && x->ios[d] > (uint64_t)INT64_MAX / s->bs) {
                snprintf(why, wl, "an IOPS <Bucket>'s %s count is out of range", cnt[d]);
                return LG_EPARSE;
            }
            for (int i = 0; i < 4; i++)
                if (!s->has_lat || !s_attr(b, lat[d][i], f[i]))
                    *f[i] = NAN;
        }
        s->nsamples++;
    }
    return 0;
}

/* The measured part of one timespan: test time, threads, the counts of every thread's targets. */
static int s_result_span(const xnode_t *ts, lg_diskspd_span_t *s, char *why, size_t wl)
{
    if (!s_dbl(s_text(ts, "TestTimeSeconds"), &s->test_s) || s->test_s <= 0) {
        snprintf(why, wl, "a <TimeSpan> of the results has no <TestTimeSeconds>");
        return LG_EPARSE;
    }
    uint32_t tc = 0;
    size_t nthreads = 0, ncounts = 0;
    for (const xnode_t *th = s_child(ts, "Thread"); th; th = s_next(th, "Thread")) {
        nthreads++;
        for (const xnode_t *tg = s_child(th, "Target"); tg; tg = s_next(tg, "Target")) {
            uint64_t v[4];
            static const char *const f[4] = {"ReadBytes", "ReadCount", "WriteBytes", "WriteCount"};
            for (int i = 0; i < 4; i++)
                if (!s_u64(s_text(tg, f[i]), &v[i])) {
                    snprintf(why, wl, "thread %zu's <Target> has no <%s>", nthreads - 1, f[i]);
                    return LG_EPARSE;
                }
            uint64_t *sum[4] = {&s->dir[0].bytes, &s->dir[0].ios, &s->dir[1].bytes, &s->dir[1].ios};
            for (int i = 0; i < 4; i++) {
                if (v[i] > (uint64_t)INT64_MAX - *sum[i]) { /* a bigint holds the sum */
                    snprintf(why, wl, "the <%s> of its threads add up beyond 2^63", f[i]);
                    return LG_EPARSE;
                }
                *sum[i] += v[i];
            }
            ncounts++;
        }
    }
    if (ncounts == 0) {
        snprintf(why, wl, "a <TimeSpan> of the results has no <Thread> with a <Target>");
        return LG_EPARSE;
    }
    s->threads = s_u32(s_text(ts, "ThreadCount"), &tc) && tc ? tc : (uint32_t)nthreads;
    const xnode_t *lat = s_child(ts, "Latency");
    if (lat) {
        s->has_lat = true;
        int rc = s_latency(lat, s, why, wl);
        if (rc)
            return rc;
    } else if (s->has_lat) {
        snprintf(why, wl, "the profile measured latency (-L) but the results have no <Latency>");
        return LG_EPARSE;
    }
    return s_iops(s_child(ts, "Iops"), s, why, wl);
}

static int s_walk(const xnode_t *root, lg_diskspd_t *out, char *why, size_t wl)
{
    if (strcmp(root->name, "Results") != 0) {
        snprintf(why, wl, "its root element is <%s>, not <Results>", root->name);
        return LG_EPARSE;
    }
    const xnode_t *sys = s_child(root, "System");
    const char *t = s_text(sys, "ComputerName");
    lg_strlcpy(out->computer, t ? t : "", sizeof out->computer);
    t = s_text(s_child(sys, "Tool"), "Version");
    lg_strlcpy(out->version, t ? t : "", sizeof out->version);
    t = s_text(sys, "RunTime");
    lg_strlcpy(out->start, t ? t : "", sizeof out->start);
    const xnode_t *pts = s_child(s_child(s_child(root, "Profile"), "TimeSpans"), "TimeSpan");
    if (!pts) {
        snprintf(why, wl,
                 "it has no <Profile> with a <TimeSpan> (what ran: block size, "
                 "threads, depth, write ratio)");
        return LG_EPARSE;
    }
    size_t k = 0;
    for (const xnode_t *ts = s_child(root, "TimeSpan"); ts; ts = s_next(ts, "TimeSpan"), k++) {
        if (!pts) {
            snprintf(why, wl, "results timespan %zu has no timespan in the <Profile>", k + 1);
            return LG_EPARSE;
        }
        if (out->nspans == LG_DISKSPD_MAX_SPANS) {
            snprintf(why, wl, "more than %d timespans", LG_DISKSPD_MAX_SPANS);
            return LG_EPARSE;
        }
        lg_diskspd_span_t *s = &out->spans[out->nspans];
        lg__diskspd_span_init(s);
        int rc = s_profile_span(pts, s, why, wl);
        if (rc == 0 && s_child(ts, "Error") && !s_child(ts, "TestTimeSeconds")) {
            out->skipped++; /* interrupted before measuring began: no figures */
        } else if (rc == 0) {
            size_t o = (size_t)snprintf(why, wl, "timespan %zu: ", k + 1);
            rc = s_result_span(ts, s, why + o, wl > o ? wl - o : 0);
            if (rc == 0)
                out->nspans++;
        }
        if (rc)
            return rc;
        pts = s_next(pts, "TimeSpan");
    }
    if (k == 0) {
        snprintf(why, wl, "it has no <TimeSpan> of results (the file ends before them?)");
        return LG_EPARSE;
    }
    if (out->nspans == 0) {
        snprintf(why, wl, "every timespan was interrupted before measuring began");
        return LG_EPARSE;
    }
    return 0;
}

int lg__diskspd_parse_xml(const char *text, size_t len, lg_diskspd_t *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    out->xml = true;
    xrd_t r = {text, text + len, text, 0, ""};
    xnode_t *root = NULL;
    int rc = s_misc(&r);
    if (rc == 0)
        rc = s_element(&r, &root, 0);
    if (rc == 0) {
        rc = s_misc(&r);
        s_blanks(&r);
        if (rc == 0 && r.p < r.end)
            rc = s_bad(&r, "text after the end of <Results>");
    }
    if (rc == LG_EPARSE)
        snprintf(err, errlen, "DiskSpd XML (-Rxml) that is not well formed: %s", r.why);
    else if (rc)
        snprintf(err, errlen, "DiskSpd XML (-Rxml): %s", lg_strerror(rc));
    if (rc == 0) {
        char why[384];
        rc = s_walk(root, out, why, sizeof why);
        if (rc)
            snprintf(err, errlen, "DiskSpd XML (-Rxml) without what lg needs: %s", why);
    }
    s_xnode_destroy(&root);
    return rc;
}
