/* import_diskspd.c: DiskSpd results into the database: which format a file is, its text as UTF-8,
 * and each timespan stored as a run whose agent is the computer that ran it. DiskSpd's figures
 * are kept as what they are: its latency is each I/O's from issue to completion as the tool
 * measured it (lg's total latency), its percentiles are its own (exact, over every I/O), and its
 * standard deviation, a population one, is stored as the sample one lg keeps. */
#include "import_diskspd.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "db.h"
#include "import_app.h"
#include "import_common.h"
#include "lg_error.h"
#include "lg_esc.h"
#include "lg_log.h"
#include "lg_stats.h"
#include "lg_util.h"
#include "lg_wire.h"
#include "resultrow.h"

#define MAX_FILE (256u << 20)

/* ---- the bytes of a file as UTF-8 ---- */

static void s_put_utf8(char *o, size_t *k, uint32_t cp)
{
    if (cp < 0x80) {
        o[(*k)++] = (char)cp;
    } else if (cp < 0x800) {
        o[(*k)++] = (char)(0xC0 | (cp >> 6));
        o[(*k)++] = (char)(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        o[(*k)++] = (char)(0xE0 | (cp >> 12));
        o[(*k)++] = (char)(0x80 | ((cp >> 6) & 0x3F));
        o[(*k)++] = (char)(0x80 | (cp & 0x3F));
    } else {
        o[(*k)++] = (char)(0xF0 | (cp >> 18));
        o[(*k)++] = (char)(0x80 | ((cp >> 12) & 0x3F));
        o[(*k)++] = (char)(0x80 | ((cp >> 6) & 0x3F));
        o[(*k)++] = (char)(0x80 | (cp & 0x3F));
    }
}

int lg_diskspd_to_utf8(const char *buf, size_t len, char **out, size_t *outlen, char *err,
                       size_t errlen)
{
    const unsigned char *u = (const unsigned char *)buf;
    int le = len >= 2 && u[0] == 0xFF && u[1] == 0xFE;
    int be = len >= 2 && u[0] == 0xFE && u[1] == 0xFF;
    if (!le && !be) {
        /* invalid bytes (a legacy code page's name, say) become U+FFFD, as lg keeps text */
        size_t skip = len >= 3 && u[0] == 0xEF && u[1] == 0xBB && u[2] == 0xBF ? 3 : 0;
        *out = lg_utf8_clean_dup(buf + skip, len - skip, 0, NULL, NULL);
        if (!*out)
            return -ENOMEM;
        *outlen = strlen(*out);
        return 0;
    }
    /* UTF-16: each unit gives at most 3 bytes; a surrogate pair (2 units) 4 */
    size_t n = (len - 2) / 2;
    char *o = malloc(n * 3 + 1);
    if (!o)
        return -ENOMEM;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        const unsigned char *q = u + 2 + 2 * i;
        uint32_t c = le ? (uint32_t)(q[0] | q[1] << 8) : (uint32_t)(q[0] << 8 | q[1]);
        if (c >= 0xD800 && c <= 0xDBFF && i + 1 < n) {
            const unsigned char *q2 = q + 2;
            uint32_t c2 = le ? (uint32_t)(q2[0] | q2[1] << 8) : (uint32_t)(q2[0] << 8 | q2[1]);
            if (c2 >= 0xDC00 && c2 <= 0xDFFF) {
                c = 0x10000 + ((c - 0xD800) << 10) + (c2 - 0xDC00);
                i++;
            }
        }
        if ((c >= 0xD800 && c <= 0xDFFF) || c == 0) {
            free(o);
            snprintf(err, errlen, "UTF-16 text with %s at byte %zu",
                     c ? "an unpaired surrogate" : "a NUL character", 2 + 2 * i);
            return LG_EPARSE;
        }
        s_put_utf8(o, &k, c);
    }
    o[k] = 0;
    *out = o;
    *outlen = k;
    return 0;
}

void lg__diskspd_span_init(lg_diskspd_span_t *s)
{
    memset(s, 0, sizeof *s);
    s->write_ratio = -1;
    s->random = -1;
    s->direct = -1;
    for (int d = 0; d < 2; d++) {
        lg_diskspd_dir_t *x = &s->dir[d];
        x->lat_mean_ms = x->lat_stddev_ms = x->lat_min_ms = x->lat_max_ms = NAN;
        x->iops_stddev = NAN;
    }
}

/* ---- which format ---- */

static bool s_has(const char *t, size_t len, const char *lit)
{
    return memmem(t, len, lit, strlen(lit)) != NULL;
}

/* The format of UTF-8 text t[0..len): 1 XML, 2 text, 0 neither. */
static int s_kind(const char *t, size_t len)
{
    size_t i = 0;
    while (i < len && (t[i] == ' ' || t[i] == '\t' || t[i] == '\r' || t[i] == '\n'))
        i++;
    if (i + 5 < len && !memcmp(t + i, "<?xml", 5)) { /* DiskSpd writes none, a user's tool may */
        const char *e = memchr(t + i, '>', len - i);
        i = e ? (size_t)(e - t) + 1 : len;
        while (i < len && (t[i] == ' ' || t[i] == '\t' || t[i] == '\r' || t[i] == '\n'))
            i++;
    }
    if (len - i >= 9 && !memcmp(t + i, "<Results>", 9) &&
        (s_has(t + i, len - i, "<System>") || s_has(t + i, len - i, "<Profile>") || len - i < 64))
        return 1;
    if (s_has(t, len, "Command Line:") && s_has(t, len, "Input parameters:"))
        return 2;
    if (s_has(t, len, "Input parameters:") && s_has(t, len, "timespan:"))
        return 2;
    return 0;
}

bool lg_import_diskspd_sniff(const char *buf, size_t len, const char **format_name)
{
    char *t = NULL, err[128];
    size_t tl = 0;
    if (len > 65536)
        len = 65536; /* the start says which */
    if (lg_diskspd_to_utf8(buf, len & ~(size_t)1, &t, &tl, err, sizeof err) != 0 &&
        lg_diskspd_to_utf8(buf, len, &t, &tl, err, sizeof err) != 0)
        return false;
    int k = s_kind(t, tl);
    free(t);
    if (k && format_name)
        *format_name = k == 1 ? "diskspd-xml" : "diskspd-text";
    return k != 0;
}

void lg_diskspd_clear(lg_diskspd_t *ds)
{
    for (size_t k = 0; ds && k < LG_DISKSPD_MAX_SPANS; k++) {
        free(ds->spans[k].samples);
        ds->spans[k].samples = NULL;
        ds->spans[k].nsamples = 0;
    }
}

int lg_diskspd_parse(const char *text, size_t len, lg_diskspd_t *out, char *err, size_t errlen)
{
    switch (s_kind(text, len)) {
    case 1:
        return lg__diskspd_parse_xml(text, len, out, err, errlen);
    case 2:
        return lg__diskspd_parse_text(text, len, out, err, errlen);
    default:
        snprintf(err, errlen,
                 "not DiskSpd output: neither its XML (<Results> with <System> and "
                 "<Profile>) nor its text (\"Command Line:\", \"Input parameters:\")");
        return LG_EPARSE;
    }
}

/* ---- storing ---- */

/* lg's figures of one direction from DiskSpd's; what DiskSpd did not print stays unknown. Sets
 * *pct_json (caller frees) to the percentiles, keyed as fio's ("99.900000"), in ns; those with
 * more digits than that key keeps (99.9999999) are left out. */
static int s_dirstats(const lg_diskspd_span_t *s, int d, lg_dirstats_t *m, char **pct_json)
{
    const lg_diskspd_dir_t *x = &s->dir[d];
    lg_dirstats_init(m);
    m->ios = x->ios;
    m->bytes = x->bytes;
    m->runtime_ms = (uint64_t)llround(s->test_s * 1000.0);
    m->iops = (double)x->ios / s->test_s;
    m->bw_bytes = (double)x->bytes / s->test_s;
    *pct_json = NULL;
    if (!s->has_lat || x->ios == 0 || isnan(x->lat_mean_ms) || isnan(x->lat_stddev_ms) ||
        isnan(x->lat_min_ms) || isnan(x->lat_max_ms))
        return 0; /* lat_n 0: latency stored as NULL */
    m->lat_n = x->ios;
    m->lat_mean = x->lat_mean_ms * 1e6;
    /* population (DiskSpd) to sample (lg, as fio) standard deviation */
    double n = (double)x->ios;
    m->lat_stddev = x->ios > 1 ? x->lat_stddev_ms * 1e6 * sqrt(n / (n - 1)) : 0;
    m->lat_min = (uint64_t)llround(x->lat_min_ms * 1e6);
    m->lat_max = (uint64_t)llround(x->lat_max_ms * 1e6);
    lg_dirstats_derive_sums(m);
    if (x->npct == 0)
        return 0;
    size_t cap = 24 + x->npct * 40, o = 0;
    char *j = malloc(cap);
    if (!j)
        return -ENOMEM;
    j[o++] = '{';
    for (size_t i = 0; i < x->npct; i++) {
        char key[32];
        snprintf(key, sizeof key, "%f", x->pct[i]);
        if (fabs(strtod(key, NULL) - x->pct[i]) > 1e-9)
            continue;
        o += (size_t)snprintf(j + o, cap - o, "%s\"%s\": %lld", o > 1 ? ", " : "", key,
                              (long long)llround(x->pct_ms[i] * 1e6));
    }
    snprintf(j + o, cap - o, "}");
    *pct_json = j;
    return 0;
}

typedef struct {
    PGconn *db;
    const char *path, *cid, *sut;
    const lg_diskspd_t *ds;
    uint64_t aid;
    int64_t t0_ms; /* the file's start time (else the import's), ms since 1970 */
    char *err;
    size_t errlen;
} store_t;

/* "2018/10/18 21:39:04 UTC" as a timestamptz parameter; NULL when it is not that. */
static const char *s_start(const char *s, char *buf, size_t len)
{
    unsigned y, mo, d, h, mi, se;
    char tz[8];
    if (sscanf(s, "%4u/%2u/%2u %2u:%2u:%2u %7s", &y, &mo, &d, &h, &mi, &se, tz) != 7 ||
        strcmp(tz, "UTC") != 0 || y < 1990 || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 ||
        mi > 59 || se > 60)
        return NULL;
    snprintf(buf, len, "%04u-%02u-%02u %02u:%02u:%02u+00", y, mo, d, h, mi, se);
    return buf;
}

static int s_insert_run(store_t *st, size_t k, size_t ordinal, uint64_t *run_id)
{
    const lg_diskspd_span_t *s = &st->ds->spans[k];
    static const char *const rw[2][3] = {{"read", "write", "rw"},
                                         {"randread", "randwrite", "randrw"}};
    int d = s->write_ratio == 0 ? 0 : s->write_ratio == 100 ? 1 : 2;
    static const char *const dir[3] = {"read", "write", "mixed"};
    char profile[96], ord[16], bs[16], rp[16], th[16], qd[16], ramp[16], rt[16], start[40];
    lg__import_profile(st->path, profile, sizeof profile);
    if (st->ds->nspans > 1)
        snprintf(profile + strlen(profile), sizeof profile - strlen(profile), ".ts%zu", k + 1);
    snprintf(ord, sizeof ord, "%zu", ordinal);
    snprintf(bs, sizeof bs, "%u", s->bs);
    snprintf(rp, sizeof rp, "%d", 100 - s->write_ratio);
    snprintf(th, sizeof th, "%u", s->threads);
    snprintf(qd, sizeof qd, "%u", s->qd);
    snprintf(ramp, sizeof ramp, "%u", s->warmup_s);
    snprintf(rt, sizeof rt, "%lld", (long long)llround(s->test_s));
    const char *p[15] = {st->cid,
                         ord,
                         st->sut,
                         profile,
                         dir[d],
                         rw[s->random == 1][d],
                         bs,
                         rp,
                         th,
                         qd,
                         ramp,
                         rt,
                         s->target,
                         s_start(st->ds->start, start, sizeof start),
                         s->direct == 1 ? "t" : "f"};
    PGresult *r = NULL;
    int rc = lg_db_exec(
        st->db,
        "INSERT INTO lg.run (campaign_id, ordinal, sut_config_id, profile, direction, rw, bs,"
        " read_pct, threads, qd, ramp_s, runtime_s, target_kind, target, size_bytes, direct,"
        " protocol, state, started_at, finished_at, error)"
        " VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, 'file', $13, 0, $15,"
        " 'import', 'done', coalesce($14::timestamptz, now()), coalesce($14::timestamptz, now()),"
        " NULL) RETURNING run_id",
        15, p, &r, st->err, st->errlen);
    if (rc == 0) {
        *run_id = strtoull(lg_db_get(r, 0, lg_db_col(r, "run_id")), NULL, 10);
        lg_db_result_destroy(&r);
    }
    return rc;
}

/* -D's intervals of timespan k as the run's samples (lg.sample, as lg's own runs' per second),
 * for the directions stored: I/Os, bytes (block size times I/Os: exact with one block size), and
 * with -L the interval's latency (mean, deviation, min, max) as sums. t_ms counts from the
 * file's start time (or the import's) and the warm-up: DiskSpd prints no more exact start. */
static int s_store_samples(store_t *st, size_t k, uint64_t run_id, int64_t t0_ms)
{
    const lg_diskspd_span_t *s = &st->ds->spans[k];
    if (s->nsamples && s->bs_differs) {
        lg_warn("\"%s\" timespan %zu: its targets' block sizes differ, so its intervals' bytes "
                "are not known: no samples stored",
                st->path, k + 1);
        return 0;
    }
    int rc = 0;
    char v[12][32];
    snprintf(v[0], 32, "%llu", (unsigned long long)run_id);
    snprintf(v[1], 32, "%llu", (unsigned long long)st->aid);
    for (size_t i = 0; rc == 0 && i < s->nsamples; i++) {
        const lg_diskspd_sample_t *x = &s->samples[i];
        for (int d = 0; rc == 0 && d < 2; d++) {
            if ((d == 0 && s->write_ratio == 100) || (d == 1 && s->write_ratio == 0))
                continue;
            uint64_t n = x->ios[d];
            bool lat = n > 0 && !isnan(x->lat_avg_ms[d]) && !isnan(x->lat_sd_ms[d]) &&
                       !isnan(x->lat_min_ms[d]) && !isnan(x->lat_max_ms[d]);
            double mean = lat ? x->lat_avg_ms[d] * 1e6 : 0, sd = lat ? x->lat_sd_ms[d] * 1e6 : 0;
            snprintf(v[2], 32, "%zu", i + 1);
            snprintf(v[3], 32, "%lld", (long long)(t0_ms + s->warmup_s * 1000LL + x->end_ms));
            snprintf(v[4], 32, "%u", i ? x->end_ms - s->samples[i - 1].end_ms : x->end_ms);
            snprintf(v[5], 32, "%llu", (unsigned long long)n);
            snprintf(v[6], 32, "%llu", (unsigned long long)(n * s->bs));
            snprintf(v[7], 32, "%llu", (unsigned long long)(lat ? n : 0));
            snprintf(v[8], 32, "%.17g", mean * (double)(lat ? n : 0));
            /* DiskSpd's deviation is a population one: sum of squares = n (sd^2 + mean^2) */
            snprintf(v[9], 32, "%.17g", (double)(lat ? n : 0) * (sd * sd + mean * mean));
            snprintf(v[10], 32, "%lld", lat ? (long long)llround(x->lat_min_ms[d] * 1e6) : 0LL);
            snprintf(v[11], 32, "%lld", lat ? (long long)llround(x->lat_max_ms[d] * 1e6) : 0LL);
            const char *p[13] = {
                v[0], v[1],  v[2], lg_dir_name((lg_dir_t)d), v[3], v[4], v[5], v[6], v[7], v[8],
                v[9], v[10], v[11]};
            rc = lg_db_exec(st->db,
                            "INSERT INTO lg.sample (run_id, agent_id, seq, direction, t_ms,"
                            " interval_ms, ios, bytes, lat_n, lat_sum, lat_sumsq, lat_min, lat_max)"
                            " VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)",
                            13, p, NULL, st->err, st->errlen);
        }
    }
    return rc;
}

/* Timespan k as a run: its row, the computer as its one agent, and per direction the same
 * figures as the agent's and as the run's merged row (one agent: the merge is the figures). */
static int s_store_span(store_t *st, size_t k, size_t ordinal)
{
    const lg_diskspd_span_t *s = &st->ds->spans[k];
    uint64_t run_id = 0;
    int rc = s_insert_run(st, k, ordinal, &run_id);
    char rid[24], aid[24], nj[16];
    snprintf(rid, sizeof rid, "%llu", (unsigned long long)run_id);
    snprintf(aid, sizeof aid, "%llu", (unsigned long long)st->aid);
    snprintf(nj, sizeof nj, "%u", s->threads);
    const char *pa[3] = {rid, aid, nj};
    if (rc == 0)
        rc = lg_db_exec(st->db,
                        "INSERT INTO lg.run_agent (run_id, agent_id, state, njobs) VALUES ($1, $2,"
                        " 'done', $3)",
                        3, pa, NULL, st->err, st->errlen);
    for (int d = 0; rc == 0 && d < 2; d++) {
        /* the directions the load asked for (a read test stores its read row, even empty) */
        if ((d == 0 && s->write_ratio == 100) || (d == 1 && s->write_ratio == 0)) {
            if (s->dir[d].ios > 0)
                lg_warn("\"%s\" timespan %zu: %llu %s I/Os of a %s test are not stored", st->path,
                        k + 1, (unsigned long long)s->dir[d].ios, d ? "write" : "read",
                        d ? "read" : "write");
            continue;
        }
        const lg_diskspd_dir_t *x = &s->dir[d];
        if (s->has_lat && x->ios > 0 &&
            (isnan(x->lat_mean_ms) || isnan(x->lat_stddev_ms) || isnan(x->lat_min_ms) ||
             isnan(x->lat_max_ms)))
            lg_warn("\"%s\" timespan %zu: its %s latency lacks a mean, deviation, minimum or "
                    "maximum: stored as NULL",
                    st->path, k + 1, d ? "write" : "read");
        lg_dirstats_t *m = malloc(sizeof *m);
        char *pct = NULL;
        rc = m ? s_dirstats(s, d, m, &pct) : -ENOMEM;
        if (rc == 0)
            rc = lg_results_store_pct(st->db, run_id, st->aid, (lg_dir_t)d, m, pct, st->err,
                                      st->errlen);
        if (rc == 0)
            rc = lg_results_store_pct(st->db, run_id, 0, (lg_dir_t)d, m, pct, st->err, st->errlen);
        free(pct);
        free(m);
    }
    if (rc == 0)
        rc = s_store_samples(st, k, run_id, st->t0_ms);
    if (rc == 0 && s->qd_differs)
        lg_warn("\"%s\" timespan %zu: its targets ran at different depths; the run records the "
                "deepest, %u",
                st->path, k + 1, s->qd);
    return rc;
}

/* One file: read, decoded, parsed; its agent; a run per timespan. */
static int s_one(PGconn *db, const char *path, size_t *ordinal, const char *cid, const char *sut,
                 char *err, size_t errlen)
{
    char *raw = NULL, *text = NULL, why[768];
    size_t rawlen = 0, len = 0;
    int rc = lg__import_read_file(path, MAX_FILE, &raw, &rawlen, err, errlen);
    if (rc)
        return rc;
    lg_diskspd_t *ds = calloc(1, sizeof *ds);
    rc = ds ? lg_diskspd_to_utf8(raw, rawlen, &text, &len, why, sizeof why) : -ENOMEM;
    free(raw);
    if (rc == 0)
        rc = lg_diskspd_parse(text, len, ds, why, sizeof why);
    const char *other = NULL;
    if (rc == LG_EPARSE && lg_import_app_sniff(text ? text : "", len, &other))
        snprintf(why + strlen(why), sizeof why - strlen(why),
                 "; it is %s output, which \"lgctl import app\" takes", other);
    if (rc) {
        snprintf(err, errlen, "\"%s\": %s", path, rc == LG_EPARSE ? why : lg_strerror(rc));
        free(text);
        lg_diskspd_clear(ds);
        free(ds);
        return rc;
    }
    if (ds->skipped)
        lg_warn("\"%s\": %zu timespan%s interrupted before measuring began: not stored", path,
                ds->skipped, ds->skipped == 1 ? " was" : "s were");
    char aname[300];
    snprintf(aname, sizeof aname, ds->computer[0] ? "import:%s" : "import", ds->computer);
    json_t *f = json_pack("{s:s}", "os", "Windows");
    if (f && ds->version[0])
        json_object_set_new(f, "diskspd_version", json_string(ds->version));
    char *facts = f ? json_dumps(f, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
    json_decref(f);
    char startbuf[40];
    int64_t t0_ms = (int64_t)time(NULL) * 1000;
    if (s_start(ds->start, startbuf, sizeof startbuf)) {
        struct tm tm = {0};
        unsigned y, mo, d, h, mi, se;
        sscanf(ds->start, "%4u/%2u/%2u %2u:%2u:%2u", &y, &mo, &d, &h, &mi, &se);
        tm.tm_year = (int)y - 1900;
        tm.tm_mon = (int)mo - 1;
        tm.tm_mday = (int)d;
        tm.tm_hour = (int)h;
        tm.tm_min = (int)mi;
        tm.tm_sec = (int)se;
        t0_ms = (int64_t)timegm(&tm) * 1000;
    }
    store_t st = {db, path, cid, sut, ds, 0, t0_ms, err, errlen};
    st.aid = lg__import_agent(db, aname, facts, err, errlen);
    free(facts);
    rc = st.aid ? 0 : LG_EDB;
    for (size_t k = 0; rc == 0 && k < ds->nspans; k++)
        rc = s_store_span(&st, k, (*ordinal)++);
    if (rc && !strstr(err, path)) {
        char msg[1024];
        snprintf(msg, sizeof msg, "\"%s\": %s", path, err);
        lg_strlcpy(err, msg, errlen);
    }
    free(text);
    lg_diskspd_clear(ds);
    free(ds);
    return rc;
}

int lg_import_diskspd(PGconn *db, const char *const *files, size_t n, const char *labels,
                      const char *name, uint64_t *campaign_id, char *err, size_t errlen)
{
    char cid[24] = "", sut[24] = "";
    int rc = lg__import_begin(db, "diskspd", files, n, labels, name, cid, sut, err, errlen);
    size_t ordinal = 1;
    for (size_t i = 0; rc == 0 && i < n; i++)
        rc = s_one(db, files[i], &ordinal, cid, sut, err, errlen);
    if (rc == 0)
        rc = lg_db_exec(db, "SELECT lg.refresh_views()", 0, NULL, NULL, err, errlen);
    rc = lg_db_end(db, rc, err, errlen);
    if (rc == 0)
        *campaign_id = strtoull(cid, NULL, 10);
    return rc;
}
