/* import_app.c: sysbench OLTP and pgbench output made elsewhere, read by lg's own parser of those
 * tools (core/lg_app.c, strict: a figure the tables need that is missing or malformed refuses
 * the file) and stored as lg's own application runs are: a run with app set and direction
 * "txn", its agent, and the tool's totals with its whole output in lg.app_result. */
#include "import_app.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "db.h"
#include "import_common.h"
#include "import_diskspd.h"
#include "lg_error.h"
#include "lg_esc.h"
#include "lg_log.h"
#include "lg_util.h"

#define MAX_FILE (64u << 20)

static bool s_line_starts(const char *t, size_t len, const char *lit)
{
    size_t n = strlen(lit);
    for (size_t i = 0; i + n <= len; i++)
        if ((i == 0 || t[i - 1] == '\n') && memcmp(t + i, lit, n) == 0)
            return true;
    return false;
}

static bool s_has(const char *t, size_t len, const char *lit)
{
    return memmem(t, len, lit, strlen(lit)) != NULL;
}

/* 0 neither, LG_APP_PGBENCH, LG_APP_SYSBENCH_OLTP */
static int s_kind(const char *t, size_t len)
{
    if (len >= 3 && !memcmp(t, "\xEF\xBB\xBF", 3)) {
        t += 3;
        len -= 3;
    }
    if (s_line_starts(t, len, "sysbench ") ||
        (s_has(t, len, "General statistics:") && s_has(t, len, "total number of events:")))
        return LG_APP_SYSBENCH_OLTP;
    if (s_line_starts(t, len, "pgbench (") ||
        (s_line_starts(t, len, "transaction type:") &&
         s_line_starts(t, len, "number of clients:")) ||
        (s_line_starts(t, len, "progress: ") && s_has(t, len, " tps, lat "))) /* -P first */
        return LG_APP_PGBENCH;
    return 0;
}

bool lg_import_app_sniff(const char *buf, size_t len, const char **format_name)
{
    int k = s_kind(buf, len);
    if (k && format_name)
        *format_name = k == LG_APP_PGBENCH ? "pgbench" : "sysbench";
    return k != 0;
}

int lg_import_app_parse(const char *text, size_t len, lg_app_total_t *out, char *err, size_t errlen)
{
    if (len >= 3 && !memcmp(text, "\xEF\xBB\xBF", 3)) {
        text += 3;
        len -= 3;
    }
    int k = s_kind(text, len);
    if (!k) {
        snprintf(err, errlen,
                 "neither sysbench nor pgbench output (no \"sysbench \" or "
                 "\"pgbench (\" banner, no summary of either)");
        return LG_EPARSE;
    }
    /* sysbench's other tests (cpu, memory, fileio, threads, mutex) have no SQL statistics */
    if (k == LG_APP_SYSBENCH_OLTP && !s_has(text, len, "SQL statistics:")) {
        snprintf(err, errlen,
                 "sysbench output without \"SQL statistics:\": not an OLTP test "
                 "(cpu, fileio, memory?), and lg's application tables hold "
                 "transactions and queries");
        return LG_EPARSE;
    }
    char why[512];
    int rc = lg_app_parse_final((lg_app_kind_t)k, text, len, out, why, sizeof why);
    if (rc) {
        snprintf(err, errlen, "%s output without what lg's application tables need: %s",
                 k == LG_APP_PGBENCH ? "pgbench" : "sysbench", why);
        return rc;
    }
    if (!isfinite(out->tps)) {
        snprintf(err, errlen, "%s output whose tps is not a number",
                 k == LG_APP_PGBENCH ? "pgbench" : "sysbench");
        return LG_EPARSE;
    }
    return 0;
}

/* A figure as a parameter: NULL for NaN (the tool has none). */
static const char *s_num(char *buf, size_t len, double x)
{
    if (isnan(x))
        return NULL;
    snprintf(buf, len, "%.17g", x);
    return buf;
}

static const char *s_u64(char *buf, size_t len, uint64_t x)
{
    snprintf(buf, len, "%llu", (unsigned long long)x);
    return buf;
}

/* The run's row: as lg's own application runs (core/lg_plan.c): rw and app the tool, direction
 * "txn", threads the clients, depth 1, no block size. */
static int s_insert_run(PGconn *db, const char *path, const lg_app_total_t *a, size_t ordinal,
                        const char *cid, const char *sut, uint64_t *run_id, char *err,
                        size_t errlen)
{
    int pg = a->kind == LG_APP_PGBENCH;
    char profile[96], ord[16], th[16], rt[24], params[64];
    lg__import_profile(path, profile, sizeof profile);
    snprintf(ord, sizeof ord, "%zu", ordinal);
    snprintf(th, sizeof th, "%u", pg ? a->clients : a->threads);
    snprintf(rt, sizeof rt, "%lld", isnan(a->duration_s) ? 0LL : (long long)llround(a->duration_s));
    snprintf(params, sizeof params, "{\"scale\": %u, \"jobs\": %u}", a->scale, a->threads);
    const char *kind = pg ? "pgbench" : "sysbench-oltp";
    const char *p[9] = {cid, ord, sut, profile, kind, th, rt, path, pg ? params : NULL};
    PGresult *r = NULL;
    int rc = lg_db_exec(db,
                        "INSERT INTO lg.run (campaign_id, ordinal, sut_config_id, profile,"
                        " direction, rw, bs, read_pct, threads, qd, ramp_s, runtime_s,"
                        " target_kind, target, size_bytes, direct, protocol, state, started_at,"
                        " finished_at, error, app, app_params)"
                        " VALUES ($1, $2, $3, $4, 'txn', $5, 0, 0, $6, 1, 0, $7, 'file', $8, 0,"
                        " false, 'import', 'done', now(), now(), NULL, $5, $9::jsonb)"
                        " RETURNING run_id",
                        9, p, &r, err, errlen);
    if (rc == 0) {
        *run_id = strtoull(lg_db_get(r, 0, lg_db_col(r, "run_id")), NULL, 10);
        lg_db_result_destroy(&r);
    }
    return rc;
}

/* The tool's totals and its output, as the scheduler stores an agent's (sched_sql.c). */
static int s_insert_result(PGconn *db, uint64_t run_id, uint64_t aid, const lg_app_total_t *a,
                           const char *output, char *err, size_t errlen)
{
    int pg = a->kind == LG_APP_PGBENCH;
    char v[22][32];
    const char *p[22];
    p[0] = s_u64(v[0], 32, run_id);
    p[1] = s_u64(v[1], 32, aid);
    p[2] = output;
    p[3] = pg ? "pgbench" : "sysbench-oltp";
    p[4] = s_u64(v[4], 32, a->transactions);
    p[5] = s_num(v[5], 32, a->tps);
    p[6] = pg ? NULL : s_num(v[6], 32, a->qps);
    const uint64_t q[4] = {a->queries, a->reads, a->writes, a->others};
    for (int i = 0; i < 4; i++) /* sysbench's; pgbench counts transactions only */
        p[7 + i] = pg ? NULL : s_u64(v[7 + i], 32, q[i]);
    const double l[5] = {a->lat_avg_ms, a->lat_stddev_ms, a->lat_min_ms, a->lat_max_ms,
                         a->lat_pct_ms};
    for (int i = 0; i < 5; i++)
        p[11 + i] = s_num(v[11 + i], 32, l[i]);
    p[16] = a->pct ? s_u64(v[16], 32, a->pct) : NULL;
    p[17] = s_u64(v[17], 32, pg ? a->failed : a->errors);
    p[18] = pg ? NULL : s_u64(v[18], 32, a->reconnects);
    p[19] = s_num(v[19], 32, a->duration_s);
    p[20] = s_u64(v[20], 32, a->threads);
    p[21] = pg ? s_u64(v[21], 32, a->scale) : NULL;
    return lg_db_exec(db,
                      "INSERT INTO lg.app_result (run_id, agent_id, output, kind, transactions,"
                      " tps, qps, queries, reads, writes, others, lat_avg_ms, lat_stddev_ms,"
                      " lat_min_ms, lat_max_ms, lat_pct_ms, pct, failed, reconnects, duration_s,"
                      " threads, scale, prepare_ms, tool_exit) VALUES ($1, $2, $3, $4, $5, $6,"
                      " $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21,"
                      " $22, NULL, NULL)",
                      22, p, NULL, err, errlen);
}

/* One per-second report, as the controller's writer stores an agent's (writer.c s_add_app). */
static int s_insert_sample(PGconn *db, const char *rid, const char *aid, uint64_t seq, int64_t t_ms,
                           uint64_t iv_ms, const lg_app_sample_t *a, char *err, size_t errlen)
{
    char v[18][32];
    const char *p[18];
    p[0] = rid;
    p[1] = aid;
    p[2] = s_u64(v[2], 32, seq);
    snprintf(v[3], 32, "%lld", (long long)t_ms);
    p[3] = v[3];
    p[4] = s_u64(v[4], 32, iv_ms);
    const double f[8] = {a->tps,       a->qps,        a->read_qps,      a->write_qps,
                         a->other_qps, a->lat_avg_ms, a->lat_stddev_ms, a->lat_pct_ms};
    for (int i = 0; i < 8; i++)
        p[5 + i] = s_num(v[5 + i], 32, f[i]);
    p[13] = a->pct ? s_u64(v[13], 32, a->pct) : NULL;
    p[14] = s_num(v[14], 32, a->err_ps);
    p[15] = s_num(v[15], 32, a->reconn_ps);
    p[16] = s_num(v[16], 32, a->failed);
    p[17] = a->threads ? s_u64(v[17], 32, a->threads) : NULL;
    return lg_db_exec(db,
                      "INSERT INTO lg.app_sample (run_id, agent_id, seq, t_ms, interval_ms, tps,"
                      " qps, read_qps, write_qps, other_qps, lat_avg_ms, lat_stddev_ms, lat_pct_ms,"
                      " pct, err_ps, reconn_ps, failed, threads) VALUES ($1, $2, $3, $4, $5, $6,"
                      " $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18)",
                      18, p, NULL, err, errlen);
}

/* The tool's per-second reports in the output (sysbench --report-interval, pgbench -P when its
 * stderr was kept), stored as lg's own are (agent/appout.c): times relative to the tool's start
 * are placed from start_ms (the import's time: the output has no start), Unix times
 * (--progress-timestamp) as they are. A malformed report is skipped and said, as the agent
 * does. Sets *n to how many were stored. */
static int s_samples(PGconn *db, const char *path, const char *text, lg_app_kind_t k,
                     uint64_t run_id, uint64_t aid, int64_t start_ms, size_t *n, char *err,
                     size_t errlen)
{
    char rid[24], aids[24], line[1024], why[256];
    s_u64(rid, sizeof rid, run_id);
    s_u64(aids, sizeof aids, aid);
    double prev = 0;
    bool has_prev = false;
    int rc = 0;
    *n = 0;
    for (const char *p = text; rc == 0 && *p;) {
        size_t l = strcspn(p, "\n");
        size_t c = l < sizeof line - 1 ? l : sizeof line - 1;
        memcpy(line, p, c);
        line[c] = 0;
        p += l + (p[l] == '\n');
        lg_app_sample_t s;
        int r = lg_app_parse_line(k, line, &s, why, sizeof why);
        if (r < 0)
            lg_warn("\"%s\": skipped a malformed report (%s): %.200s", path, why, line);
        if (r != 1)
            continue;
        int64_t t_ms = s.t_epoch ? (int64_t)llround(s.t_s * 1000.0)
                                 : start_ms + (int64_t)llround(s.t_s * 1000.0);
        double iv = (s.t_s - (has_prev    ? prev
                              : s.t_epoch ? (double)start_ms / 1000.0
                                          : 0.0)) *
                    1000.0;
        if (s.t_epoch && !has_prev)
            iv = 0; /* the first report of Unix time: its interval is not known */
        prev = s.t_s;
        has_prev = true;
        rc = s_insert_sample(db, rid, aids, ++*n, t_ms, iv > 0 ? (uint64_t)llround(iv) : 0, &s, err,
                             errlen);
    }
    return rc;
}

static int s_one(PGconn *db, const char *path, size_t ordinal, const char *cid, const char *sut,
                 char *err, size_t errlen)
{
    char *raw = NULL, why[768];
    size_t len = 0;
    int rc = lg__import_read_file(path, MAX_FILE, &raw, &len, err, errlen);
    if (rc)
        return rc;
    /* the output is kept verbatim, as valid UTF-8 (what PostgreSQL's text holds) */
    size_t skip = len >= 3 && !memcmp(raw, "\xEF\xBB\xBF", 3) ? 3 : 0;
    char *text = lg_utf8_clean_dup(raw + skip, len - skip, 0, NULL, NULL);
    free(raw);
    if (!text)
        return -ENOMEM;
    lg_app_total_t a;
    rc = lg_import_app_parse(text, strlen(text), &a, why, sizeof why);
    const char *other = NULL;
    if (rc && lg_import_diskspd_sniff(text, strlen(text), &other))
        snprintf(why + strlen(why), sizeof why - strlen(why),
                 "; it is %s output, which \"lgctl import diskspd\" takes", other);
    if (rc) {
        snprintf(err, errlen, "\"%s\": %s", path, why);
        free(text);
        return rc;
    }
    uint64_t run_id = 0, aid = lg__import_agent(db, "import", NULL, err, errlen);
    rc = aid ? 0 : LG_EDB;
    if (rc == 0)
        rc = s_insert_run(db, path, &a, ordinal, cid, sut, &run_id, err, errlen);
    char rid[24], aids[24];
    const char *pa[2] = {s_u64(rid, sizeof rid, run_id), s_u64(aids, sizeof aids, aid)};
    if (rc == 0)
        rc = lg_db_exec(db,
                        "INSERT INTO lg.run_agent (run_id, agent_id, state) VALUES ($1, $2,"
                        " 'done')",
                        2, pa, NULL, err, errlen);
    if (rc == 0)
        rc = s_insert_result(db, run_id, aid, &a, text, err, errlen);
    size_t nsamples = 0;
    if (rc == 0)
        rc = s_samples(db, path, text, a.kind, run_id, aid, (int64_t)time(NULL) * 1000, &nsamples,
                       err, errlen);
    if (rc && !strstr(err, path)) {
        char msg[1024];
        snprintf(msg, sizeof msg, "\"%s\": %s", path, err);
        lg_strlcpy(err, msg, errlen);
    }
    free(text);
    return rc;
}

int lg_import_app(PGconn *db, const char *const *files, size_t n, const char *labels,
                  const char *name, uint64_t *campaign_id, char *err, size_t errlen)
{
    char cid[24] = "", sut[24] = "";
    int rc = lg__import_begin(db, "app", files, n, labels, name, cid, sut, err, errlen);
    for (size_t i = 0; rc == 0 && i < n; i++)
        rc = s_one(db, files[i], i + 1, cid, sut, err, errlen);
    if (rc == 0)
        rc = lg_db_exec(db, "SELECT lg.refresh_views()", 0, NULL, NULL, err, errlen);
    rc = lg_db_end(db, rc, err, errlen);
    if (rc == 0)
        *campaign_id = strtoull(cid, NULL, 10);
    return rc;
}
