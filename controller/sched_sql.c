/* sched_sql.c: the scheduler's SQL, run by the store on its own thread and connection: each
 * function fills in the job the scheduler queued (sched_jobs.h). Nothing here touches the loop's
 * state. */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db.h"
#include "lg_error.h"
#include "lg_log.h"
#include "lg_seal.h"
#include "lg_search.h"
#include "lg_spec.h"
#include "lg_util.h"
#include "resultrow.h"
#include "sched_jobs.h"

static void s_u64(char *buf, size_t len, uint64_t v)
{
    snprintf(buf, len, "%llu", (unsigned long long)v);
}

static const char *s_v(const PGresult *r, int row, const char *col)
{
    return lg_db_get(r, row, lg_db_col(r, col));
}

static uint32_t s_u32v(const PGresult *r, int row, const char *col)
{
    return (uint32_t)strtoul(s_v(r, row, col), NULL, 10);
}

static uint64_t s_u64v(const PGresult *r, int row, const char *col)
{
    return strtoull(s_v(r, row, col), NULL, 10);
}

/* Row i of r as plain strings by column name (row.h), for code that does not speak libpq. */
lg_row_t *lg__sched_row(const PGresult *r, int i)
{
    lg_row_t *row = lg_row_new();
    for (int k = 0; row && k < lg_db_nfields(r); k++)
        if (lg_row_set(row, lg_db_fname(r, k), lg_db_isnull(r, i, k) ? NULL : lg_db_get(r, i, k))) {
            lg_row_destroy(&row);
            row = NULL;
        }
    return row;
}

int lg__sched_known_work(PGconn *db, void *job, char *err, size_t errlen)
{
    known_job_t *j = job;
    char id[24], aid[24];
    s_u64(id, sizeof id, j->run_id);
    s_u64(aid, sizeof aid, j->agent_id);
    const char *p[2] = {id, aid};
    PGresult *r = NULL;
    int rc = lg_db_exec(db, "SELECT 1 FROM lg.run_agent WHERE run_id = $1 AND agent_id = $2", 2, p,
                        &r, err, errlen);
    if (rc == 0) {
        j->found = lg_db_nrows(r) > 0;
        lg_db_result_destroy(&r);
    }
    return rc;
}

/* The first campaign not over of this controller's (campaigns run strictly in order: a paused one
 * holds the ones after it), its lease taken (or renewed) by this process unless another process
 * of the same controller holds it, into j (cid, name, between) and its flags. A campaign another
 * controller accepted is never this one's. Returns 0 (*found 0: none) or an error. */
static int s_next_campaign(PGconn *db, next_job_t *j, int *found, int *paused, int *pause_req,
                           uint32_t gate[2], char *err, size_t errlen)
{
    PGresult *cr = NULL;
    const char *p[2] = {j->claim->owner, j->claim->instance};
    /* A read (every 250 ms while a campaign waits or is paused) writes nothing when the lease is
     * already this process's: the tick renews it (lg__sched_renew_lease). */
    int rc =
        lg_db_exec(db,
                   "SELECT campaign_id, name, state, pause_requested, gate_passed, gate_resumed,"
                   " between_configs, lease_holder IS NOT DISTINCT FROM $2 AS mine,"
                   " lease_holder IS NULL OR lease_until IS NULL OR lease_until < now() AS free"
                   " FROM lg.campaign WHERE state IN ('pending', 'running', 'paused')"
                   " AND owner = $1 ORDER BY campaign_id LIMIT 1",
                   2, p, &cr, err, errlen);
    if (rc)
        return rc;
    *found = lg_db_nrows(cr) > 0 && (s_v(cr, 0, "mine")[0] == 't' || s_v(cr, 0, "free")[0] == 't');
    if (*found && s_v(cr, 0, "mine")[0] != 't') { /* a lapsed or unheld lease: taken, if still so */
        char secs[16];
        snprintf(secs, sizeof secs, "%d", LG_LEASE_S);
        const char *pl[3] = {s_v(cr, 0, "campaign_id"), j->claim->instance, secs};
        PGresult *lr = NULL;
        rc = lg_db_exec(db,
                        "UPDATE lg.campaign SET lease_holder = $2,"
                        " lease_until = now() + make_interval(secs => $3::integer)"
                        " WHERE campaign_id = $1 AND (lease_holder IS NULL OR lease_until IS NULL"
                        " OR lease_until < now()) RETURNING campaign_id",
                        3, pl, &lr, err, errlen);
        *found = rc == 0 && lg_db_nrows(lr) == 1;
        lg_db_result_destroy(&lr);
    }
    if (rc || !*found) {
        lg_db_result_destroy(&cr);
        return rc;
    }
    j->cid = s_u64v(cr, 0, "campaign_id");
    lg_strlcpy(j->name, s_v(cr, 0, "name"), sizeof j->name);
    lg_strlcpy(j->between, s_v(cr, 0, "between_configs"), sizeof j->between);
    *paused = !strcmp(s_v(cr, 0, "state"), "paused");
    *pause_req = s_v(cr, 0, "pause_requested")[0] == 't';
    gate[0] = s_u32v(cr, 0, "gate_passed");
    gate[1] = s_u32v(cr, 0, "gate_resumed");
    lg_db_result_destroy(&cr);
    return 0;
}

/* Does row i of r (seal_text, seal) carry this controller's seal? */
static int s_sealed(const lg_claim_t *claim, const PGresult *r, int i)
{
    const char *t = s_v(r, i, "seal_text");
    return !lg_db_isnull(r, i, lg_db_col(r, "seal")) &&
           lg_seal_check(claim->seal_key, t, strlen(t), s_v(r, i, "seal"));
}

#define S_REFUSED_ERROR                                                                            \
    "refused: this run's row was not written by the controller that accepted the campaign (its "   \
    "seal does not match what it was given at submit); nothing of it was run"

/* A pending run whose row is not ours as we sealed it: failed, never acted on. */
static int s_refuse_run(PGconn *db, const char *run_id, char *err, size_t errlen)
{
    lg_warn("run %s: %s", run_id, S_REFUSED_ERROR);
    const char *p[2] = {run_id, S_REFUSED_ERROR};
    return lg_db_exec(db,
                      "UPDATE lg.run SET state = 'failed', error = $2, finished_at = now()"
                      " WHERE run_id = $1",
                      2, p, NULL, err, errlen);
}

/* NX_REDUCE from row 0 of r (config_ordinal, reduction, labels): the probe before (after = 0) or
 * after a config's runs. */
static void s_next_reduce(next_job_t *j, const PGresult *r, int after)
{
    j->kind = NX_REDUCE;
    j->after = after;
    lg_strlcpy(j->cfgord, s_v(r, 0, "config_ordinal"), sizeof j->cfgord);
    lg_strlcpy(j->reduction, s_v(r, 0, "reduction"), sizeof j->reduction);
    lg_strlcpy(j->labels, s_v(r, 0, "labels"), sizeof j->labels);
}

/* A config whose runs are all over, probed before its first: its probe after its last, before
 * any gate (a hook may change what the probe would measure). NX_REDUCE when there is one. */
static int s_next_reduce_after(PGconn *db, next_job_t *j, const char *const *p1, char *err,
                               size_t errlen)
{
    PGresult *r = NULL;
    int rc = lg_db_exec(db,
                        "SELECT r.config_ordinal, r.reduction::text AS reduction,"
                        " s.labels::text AS labels,"
                        " (array_agg(lg.run_seal_text(r) ORDER BY r.ordinal))[1] AS seal_text,"
                        " (array_agg(r.seal ORDER BY r.ordinal))[1] AS seal FROM lg.run r"
                        " JOIN lg.sut_config s USING (sut_config_id)"
                        " WHERE r.campaign_id = $1 AND r.reduction IS NOT NULL"
                        " GROUP BY r.config_ordinal, r.reduction::text, s.labels::text"
                        " HAVING bool_and(r.state NOT IN ('pending', 'running'))"
                        " AND EXISTS (SELECT 1 FROM lg.reduction x WHERE x.campaign_id = $1"
                        "   AND x.config_ordinal = r.config_ordinal AND x.phase = 'before')"
                        " AND NOT EXISTS (SELECT 1 FROM lg.reduction x WHERE x.campaign_id = $1"
                        "   AND x.config_ordinal = r.config_ordinal AND x.phase = 'after')"
                        " ORDER BY 1 LIMIT 1",
                        1, p1, &r, err, errlen);
    if (rc)
        return rc;
    if (lg_db_nrows(r) == 1) {
        s_next_reduce(j, r, 1);
        j->sealed = s_sealed(j->claim, r, 0);
    }
    lg_db_result_destroy(&r);
    return 0;
}

/* No run pending: the campaign ends, its state saying what happened ("failed" when no run gave a
 * result; "done" with a message naming the measured points that failed, lg.v_failed_point), in
 * one statement. NX_ENDED. */
static int s_next_ended(PGconn *db, next_job_t *j, const char *const *p1, char *err, size_t errlen)
{
    PGresult *fr = NULL;
    int rc = lg_db_exec(db,
                        "UPDATE lg.campaign c SET finished_at = now(),"
                        " state = CASE WHEN f.ok THEN 'done' ELSE 'failed' END,"
                        " message = CASE WHEN NOT f.ok THEN 'every run failed'"
                        "   WHEN p.n > 0 THEN 'done with ' || p.n || ' failed: ' || p.names END"
                        " FROM (SELECT EXISTS (SELECT 1 FROM lg.run r WHERE r.campaign_id = $1"
                        " AND r.state IN ('done', 'partial'))"
                        " OR NOT EXISTS (SELECT 1 FROM lg.run r WHERE r.campaign_id = $1) AS ok) f,"
                        " (SELECT count(*) AS n, string_agg(" LG_FAILED_POINT_TEXT ", '; '"
                        "   ORDER BY r.ordinal) AS names" LG_FAILED_POINTS_FROM
                        "   AND r.campaign_id = $1) p"
                        " WHERE c.campaign_id = $1 RETURNING c.state, c.message",
                        1, p1, &fr, err, errlen);
    if (rc)
        return rc;
    j->kind = NX_ENDED;
    lg_strlcpy(j->state, lg_db_nrows(fr) ? s_v(fr, 0, "state") : "done", sizeof j->state);
    if (lg_db_nrows(fr) && !strcmp(j->state, "done") && s_v(fr, 0, "message")[0])
        lg_warn("campaign %llu \"%s\": %s", (unsigned long long)j->cid, j->name,
                s_v(fr, 0, "message"));
    lg_db_result_destroy(&fr);
    return 0;
}

/* No run pending in a campaign whose hook prepares each config: the hook once more after its last
 * run (LG_PHASE=after: the last config's labels), unless it ran (gate_passed past every run). */
static int s_next_after_hook(PGconn *db, next_job_t *j, const char *const *p1, uint32_t gate_passed,
                             char *err, size_t errlen)
{
    PGresult *r = NULL;
    int rc = lg_db_exec(db,
                        "SELECT r.ordinal + 1 AS after_ordinal, r.config_ordinal,"
                        " s.labels::text AS labels FROM lg.run r"
                        " JOIN lg.sut_config s USING (sut_config_id) WHERE r.campaign_id = $1"
                        " ORDER BY r.ordinal DESC LIMIT 1",
                        1, p1, &r, err, errlen);
    if (rc)
        return rc;
    if (lg_db_nrows(r) == 1 && gate_passed < s_u32v(r, 0, "after_ordinal")) {
        j->kind = NX_GATE;
        j->after = 1;
        j->ordinal = s_u32v(r, 0, "after_ordinal");
        lg_strlcpy(j->cfgord, s_v(r, 0, "config_ordinal"), sizeof j->cfgord);
        lg_strlcpy(j->labels, s_v(r, 0, "labels"), sizeof j->labels);
    }
    lg_db_result_destroy(&r);
    return 0;
}

/* The campaign's next pending run: the gate before it, the probe before its config's first run,
 * or the run itself; the campaign's end when there is none. */
static int s_next_run(PGconn *db, next_job_t *j, const char *const *p1, const uint32_t gate[2],
                      char *err, size_t errlen)
{
    PGresult *r = NULL;
    int rc =
        lg_db_exec(db,
                   "SELECT " RUN_COLS ", s.labels::text AS labels, lg.sut_short(s.labels) AS sut,"
                   " NOT EXISTS (SELECT 1 FROM lg.reduction x WHERE x.campaign_id = r.campaign_id"
                   "   AND x.config_ordinal = r.config_ordinal AND x.phase = 'before')"
                   "   AS reduce_before"
                   " FROM lg.run r"
                   " JOIN lg.sut_config s USING (sut_config_id) WHERE r.campaign_id = $1"
                   " AND r.state = 'pending' ORDER BY r.ordinal LIMIT 1",
                   1, p1, &r, err, errlen);
    if (rc)
        return rc;
    if (lg_db_nrows(r) == 0) {
        lg_db_result_destroy(&r);
        rc = strcmp(j->between, "hook") ? 0 : s_next_after_hook(db, j, p1, gate[0], err, errlen);
        return rc || j->kind == NX_GATE ? rc : s_next_ended(db, j, p1, err, errlen);
    }
    j->ordinal = s_u32v(r, 0, "ordinal");
    if (!s_sealed(j->claim, r, 0)) {
        char id[24];
        lg_strlcpy(id, s_v(r, 0, "run_id"), sizeof id);
        lg_db_result_destroy(&r);
        j->kind = NX_REFUSED;
        return s_refuse_run(db, id, err, errlen);
    }
    if (s_v(r, 0, "gate")[0] == 't' && gate[0] < j->ordinal) {
        j->kind = NX_GATE;
        j->resumed = !strcmp(j->between, "pause") &&
                     (gate[1] >= j->ordinal || !strcmp(s_v(r, 0, "config_ordinal"), "1"));
        lg_strlcpy(j->cfgord, s_v(r, 0, "config_ordinal"), sizeof j->cfgord);
        lg_strlcpy(j->labels, s_v(r, 0, "labels"), sizeof j->labels);
        lg_db_result_destroy(&r);
        return 0;
    }
    if (!lg_db_isnull(r, 0, lg_db_col(r, "reduction")) && s_v(r, 0, "reduce_before")[0] == 't') {
        s_next_reduce(j, r, 0);
        j->sealed = 1;
        lg_db_result_destroy(&r);
        return 0;
    }
    j->kind = NX_RUN;
    j->run = lg__sched_row(r, 0);
    lg_db_result_destroy(&r);
    if (!j->run) {
        snprintf(err, errlen, "out of memory");
        return -ENOMEM;
    }
    return 0;
}

static int s_next_work(PGconn *db, next_job_t *j, char *err, size_t errlen);

/* What runs next; runs whose rows are not this controller's are failed on the way (NX_REFUSED),
 * and the read goes on past them (a bounded number in one read). */
int lg__sched_next_work(PGconn *db, void *job, char *err, size_t errlen)
{
    next_job_t *j = job;
    int rc = 0;
    for (int i = 0; i < 64; i++) {
        rc = s_next_work(db, j, err, errlen);
        if (rc || j->kind != NX_REFUSED)
            break;
    }
    if (rc == 0 && j->kind == NX_REFUSED)
        j->kind = NX_NOTHING;
    return rc;
}

static int s_next_work(PGconn *db, next_job_t *j, char *err, size_t errlen)
{
    j->kind = NX_NOTHING;
    int found = 0, paused = 0, pause_req = 0;
    uint32_t gate[2] = {0, 0}; /* gate_passed, gate_resumed */
    int rc = s_next_campaign(db, j, &found, &paused, &pause_req, gate, err, errlen);
    if (rc || !found || paused)
        return rc;
    char id[24];
    s_u64(id, sizeof id, j->cid);
    const char *p1[1] = {id};
    if (pause_req) {
        j->kind = NX_PAUSED;
        return lg_db_exec(db,
                          "UPDATE lg.campaign SET state = 'paused', message = 'paused by lgctl"
                          " pause' WHERE campaign_id = $1",
                          1, p1, NULL, err, errlen);
    }
    rc = s_next_reduce_after(db, j, p1, err, errlen);
    if (rc || j->kind == NX_REDUCE)
        return rc;
    return s_next_run(db, j, p1, gate, err, errlen);
}

int lg__sched_count_work(PGconn *db, void *job, char *err, size_t errlen)
{
    count_job_t *j = job;
    char run[24];
    s_u64(run, sizeof run, j->run_id);
    const char *p[] = {run};
    PGresult *r = NULL;
    int rc = lg_db_exec(db,
                        "SELECT agent_id, count(DISTINCT seq) AS stored FROM (SELECT agent_id, seq"
                        " FROM lg.sample WHERE run_id = $1 UNION ALL SELECT agent_id, seq"
                        " FROM lg.app_sample WHERE run_id = $1) s GROUP BY agent_id",
                        1, p, &r, err, errlen);
    if (rc)
        return rc;
    int n = lg_db_nrows(r);
    j->n = 0;
    for (int i = 0; i < n && j->n < LG_RUN_MAX_AGENTS; i++, j->n++) {
        j->agent_id[j->n] = s_u64v(r, i, "agent_id");
        j->stored[j->n] = s_u64v(r, i, "stored");
    }
    lg_db_result_destroy(&r);
    return 0;
}

int lg__sched_result_work(PGconn *db, void *job, char *err, size_t errlen)
{
    result_job_t *j = job;
    char id[24], aid[24];
    s_u64(id, sizeof id, j->run_id);
    s_u64(aid, sizeof aid, j->agent_id);
    const char *p[9] = {id,
                        aid,
                        j->ex,
                        j->nj,
                        j->fio_json,
                        j->dc,
                        j->has_started ? j->started : NULL,
                        j->io_start[0] ? j->io_start : NULL,
                        j->io_end[0] ? j->io_end : NULL};
    int rc = lg_db_exec(db, "BEGIN", 0, NULL, NULL, err, errlen);
    if (rc == 0)
        rc = lg_db_exec(
            db,
            "INSERT INTO lg.run_agent (run_id, agent_id, state, fio_exit, njobs, fio_json,"
            " datacheck, started_us, io_start_us, io_end_us)"
            " VALUES ($1, $2, 'done', $3, $4, $5, $6::jsonb, $7, $8, $9)"
            " ON CONFLICT (run_id, agent_id) DO UPDATE"
            " SET state = 'done', fio_exit = $3, njobs = $4, fio_json = $5, datacheck = $6,"
            " started_us = $7, io_start_us = $8, io_end_us = $9",
            9, p, NULL, err, errlen);
    /* The depth that ran, from fio's iodepth_level in the JSON just stored (021_qd_achieved). */
    if (rc == 0)
        rc = lg_db_exec(db,
                        "UPDATE lg.run_agent ra SET (qd_achieved, qd_inflight, qd_jobs) ="
                        " (SELECT q.qd_achieved, q.qd_inflight, q.qd_jobs"
                        " FROM lg.fio_qd(ra.fio_json) q)"
                        " WHERE ra.run_id = $1 AND ra.agent_id = $2",
                        2, p, NULL, err, errlen);
    for (int d = 0; rc == 0 && d < LG_DIR_NR; d++)
        if (j->dirs[d])
            rc = lg_results_store(db, j->run_id, j->agent_id, (lg_dir_t)d, j->dirs[d], err, errlen);
    if (rc == 0 && j->has_app) {
        /* the tool's totals and its output, beside the run_agent row */
        const char *pa[3 + LG_APP_RESULT_COLS];
        pa[0] = id;
        pa[1] = aid;
        pa[2] = j->app_output;
        for (int i = 0; i < LG_APP_RESULT_COLS; i++)
            pa[3 + i] = j->app.p[i];
        rc = lg_db_exec(db,
                        "INSERT INTO lg.app_result (run_id, agent_id, output, kind, transactions,"
                        " tps, qps, queries, reads, writes, others, lat_avg_ms, lat_stddev_ms,"
                        " lat_min_ms, lat_max_ms, lat_pct_ms, pct, failed, reconnects, duration_s,"
                        " threads, scale, prepare_ms, tool_exit) VALUES ($1, $2, $3, $4, $5, $6,"
                        " $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21,"
                        " $22, $23, $24) ON CONFLICT (run_id, agent_id) DO NOTHING",
                        3 + LG_APP_RESULT_COLS, pa, NULL, err, errlen);
    }
    return lg_db_end(db, rc, err, errlen);
}

/* A figure as a parameter: NULL for NaN (the tool has none). */
static const char *s_num(char *buf, size_t len, double x)
{
    if (x != x)
        return NULL;
    snprintf(buf, len, "%.17g", x);
    return buf;
}

void lg__app_totals_row(const Lg__AppTotals *a, lg_app_row_t *o)
{
    int pg = a->kind == LG__APP_KIND__APP_PGBENCH;
    snprintf(o->v[0], sizeof o->v[0], "%s",
             lg_appwl_name(pg ? LG_APP_PGBENCH : LG_APP_SYSBENCH_OLTP));
    o->p[0] = o->v[0];
    const double f[] = {(double)a->transactions, a->tps, a->qps};
    for (int i = 0; i < 3; i++)
        o->p[1 + i] = s_num(o->v[1 + i], sizeof o->v[1 + i], f[i]);
    const uint64_t q[] = {a->queries, a->reads, a->writes, a->others};
    for (int i = 0; i < 4; i++) /* sysbench's; pgbench counts transactions only */
        o->p[4 + i] = pg ? NULL : s_num(o->v[4 + i], sizeof o->v[4 + i], (double)q[i]);
    const double l[] = {a->lat_avg_ms, a->lat_stddev_ms, a->lat_min_ms, a->lat_max_ms,
                        a->lat_pct_ms};
    for (int i = 0; i < 5; i++)
        o->p[8 + i] = s_num(o->v[8 + i], sizeof o->v[8 + i], l[i]);
    o->p[13] = a->pct ? s_num(o->v[13], sizeof o->v[13], a->pct) : NULL;
    o->p[14] = s_num(o->v[14], sizeof o->v[14], (double)a->failed);
    o->p[15] = pg ? NULL : s_num(o->v[15], sizeof o->v[15], (double)a->reconnects);
    o->p[16] = s_num(o->v[16], sizeof o->v[16], a->duration_s);
    o->p[17] = s_num(o->v[17], sizeof o->v[17], a->threads);
    o->p[18] = pg ? s_num(o->v[18], sizeof o->v[18], a->scale) : NULL;
    o->p[19] = s_num(o->v[19], sizeof o->v[19], (double)a->prepare_ms);
    o->p[20] = NULL; /* tool_exit: the caller's (RunResult.fio_exit) */
}

int lg__sched_result_step(PGconn *db, void *data, char *err, size_t errlen)
{
    result_step_t *r = data;
    return lg_results_store(db, r->run_id, r->agent_id, r->d, r->s, err, errlen);
}

int lg__sched_probe_work(PGconn *db, void *job, char *err, size_t errlen)
{
    (void)job;
    return lg_db_exec(db, "SELECT 1", 0, NULL, NULL, err, errlen);
}

/* All rows of r (row.h) into a new array. */
static int s_rows(const PGresult *r, lg_row_t ***out, size_t *n)
{
    int nt = lg_db_nrows(r);
    *n = 0;
    *out = calloc(nt ? (size_t)nt : 1, sizeof **out);
    if (!*out)
        return -ENOMEM;
    for (int i = 0; i < nt; i++) {
        if (!((*out)[i] = lg__sched_row(r, i)))
            return -ENOMEM;
        (*n)++;
    }
    return 0;
}

static int s_read(PGconn *db, const char *sql, const char *run_id, lg_row_t ***out, size_t *n,
                  char *err, size_t errlen)
{
    const char *p[1] = {run_id};
    PGresult *r = NULL;
    int rc = lg_db_exec(db, sql, 1, p, &r, err, errlen);
    if (rc)
        return rc;
    rc = s_rows(r, out, n);
    lg_db_result_destroy(&r);
    if (rc)
        snprintf(err, errlen, "out of memory");
    return rc;
}

/* Leases of this controller's campaigns held by a process of it on this host that is gone (a
 * controller killed and started again): released, so the new one goes on at once. A holder that
 * is alive, or on another host, keeps its lease until it runs out. */
static int s_release_dead(PGconn *db, const lg_claim_t *claim, char *err, size_t errlen)
{
    PGresult *r = NULL;
    /* campaigns an lg before 028_claims queued belong to no controller: said, never run */
    if (lg_db_exec(db,
                   "SELECT string_agg(campaign_id || ' \"' || name || '\"', ', ') AS c"
                   " FROM lg.campaign WHERE owner IS NULL"
                   " AND state IN ('pending', 'running', 'paused')",
                   0, NULL, &r, err, errlen) == 0) {
        if (!lg_db_isnull(r, 0, lg_db_col(r, "c")))
            lg_warn("campaigns %.400s were queued by an older lg and belong to no controller: "
                    "they do not run; lgctl abort them and submit them again",
                    s_v(r, 0, "c"));
        lg_db_result_destroy(&r);
    }
    const char *p[2] = {claim->owner, claim->instance};
    int rc = lg_db_exec(db,
                        "SELECT campaign_id, lease_holder FROM lg.campaign WHERE owner = $1"
                        " AND lease_holder <> $2 AND lease_until >= now()",
                        2, p, &r, err, errlen);
    if (rc)
        return rc;
    char host[96];
    lg_strlcpy(host, claim->instance, sizeof host);
    char *colon = strchr(host, ':');
    if (colon)
        colon[1] = 0;
    for (int i = 0; rc == 0 && i < lg_db_nrows(r); i++) {
        const char *h = s_v(r, i, "lease_holder");
        uint64_t pid = 0;
        if (strncmp(h, host, strlen(host)) || sscanf(h + strlen(host), "%" SCNu64, &pid) != 1 ||
            pid == 0 || pid > INT32_MAX || kill((pid_t)pid, 0) == 0 || errno != ESRCH)
            continue;
        const char *pc[2] = {s_v(r, i, "campaign_id"), h};
        lg_info("campaign %s: its lease holder %s is gone: taken over", pc[0], h);
        rc = lg_db_exec(db,
                        "UPDATE lg.campaign SET lease_until = NULL WHERE campaign_id = $1"
                        " AND lease_holder = $2",
                        2, pc, NULL, err, errlen);
    }
    lg_db_result_destroy(&r);
    return rc;
}

int lg__sched_takeup_read(PGconn *db, const lg_claim_t *claim, lg_takeup_t *t, char *err,
                          size_t errlen)
{
    memset(t, 0, sizeof *t);
    PGresult *r = NULL;
    int rc = s_release_dead(db, claim, err, errlen);
    const char *po[2] = {claim->owner, claim->instance};
    if (rc == 0)
        rc = lg_db_exec(db,
                        "SELECT " RUN_COLS " FROM lg.run r JOIN lg.campaign c USING (campaign_id)"
                        " WHERE r.state = 'running' AND c.owner = $1 AND (c.lease_holder = $2"
                        " OR c.lease_holder IS NULL OR c.lease_until IS NULL"
                        " OR c.lease_until < now())"
                        " ORDER BY r.run_id LIMIT 1",
                        2, po, &r, err, errlen);
    if (rc)
        return rc;
    if (lg_db_nrows(r) == 1 && !s_sealed(claim, r, 0)) {
        char id[24];
        lg_strlcpy(id, s_v(r, 0, "run_id"), sizeof id);
        lg_db_result_destroy(&r);
        return s_refuse_run(db, id, err, errlen);
    }
    if (lg_db_nrows(r) == 0) {
        lg_db_result_destroy(&r);
        return 0;
    }
    t->run = lg__sched_row(r, 0);
    lg_db_result_destroy(&r);
    if (!t->run) {
        snprintf(err, errlen, "out of memory");
        return -ENOMEM;
    }
    const char *id = lg_row_get(t->run, "run_id");
    rc = s_read(db,
                "SELECT agent_id, state, target, offset_bytes, size_bytes, threads, qd"
                " FROM lg.run_agent WHERE run_id = $1",
                id, &t->agents, &t->nagents, err, errlen);
    if (rc == 0)
        rc = s_read(db,
                    "SELECT agent_id, direction, ios, bytes, runtime_ms, iops, bw_bytes, lat_n,"
                    " lat_min, lat_max, lat_mean, lat_stddev, lat_sum, lat_sumsq,"
                    " hist::text AS hist FROM lg.result WHERE run_id = $1 AND agent_id IS NOT NULL",
                    id, &t->results, &t->nresults, err, errlen);
    if (rc == 0)
        rc = s_read(db,
                    "SELECT agent_id, seq, max(interval_ms) AS interval_ms, sum(ios) AS ios"
                    " FROM lg.sample WHERE run_id = $1 GROUP BY agent_id, seq"
                    " ORDER BY agent_id, seq",
                    id, &t->samples, &t->nsamples, err, errlen);
    return rc;
}

static void s_free_rows(lg_row_t **rows, size_t n)
{
    for (size_t i = 0; i < n; i++)
        lg_row_destroy(&rows[i]);
    free(rows);
}

void lg__sched_takeup_clear(lg_takeup_t *t)
{
    lg_row_destroy(&t->run);
    s_free_rows(t->agents, t->nagents);
    s_free_rows(t->results, t->nresults);
    s_free_rows(t->samples, t->nsamples);
    memset(t, 0, sizeof *t);
}

/* ---- the search's next step ---- */

/* The metric of all a probe's I/Os, in ms; < 0 when it cannot be had (no histogram). */
static double s_search_value(lg_smetric_t m, const lg_dirstats_t *a)
{
    if (a->lat_n == 0)
        return -1;
    if (m == LG_SMETRIC_MEAN)
        return a->lat_mean / 1e6;
    if (m == LG_SMETRIC_MAX)
        return (double)a->lat_max / 1e6;
    if (!a->has_hist)
        return -1;
    return (double)lg_hist_percentile(&a->hist, lg_smetric_pct(m)) / 1e6;
}

static const char *s_unit(lg_vary_t v)
{
    return v == LG_VARY_RATE ? " IOPS offered" : "";
}

/* "qd 10", "threads 4", "16000 IOPS offered", "unpaced" */
static void s_load_text(lg_vary_t v, uint32_t load, char *buf, size_t len)
{
    if (v == LG_VARY_RATE && load == 0)
        snprintf(buf, len, "unpaced");
    else if (v == LG_VARY_RATE)
        snprintf(buf, len, "%u%s", load, s_unit(v));
    else
        snprintf(buf, len, "%s %u", lg_vary_name(v), load);
}

/* The search, locked for this step, into *se. Returns 0 (*found 0: the campaign was deleted
 * meanwhile) or an error. */
static int s_search_read(PGconn *db, const char *const *p1, lg_search_t *se, int *found, char *err,
                         size_t errlen)
{
    PGresult *sr = NULL;
    int rc = lg_db_exec(db,
                        "SELECT metric, limit_ms, vary, min_load, max_load, steps, resolution_pct,"
                        " threads, qd, confirm FROM lg.search WHERE search_id = $1 FOR UPDATE",
                        1, p1, &sr, err, errlen);
    if (rc)
        return rc;
    *found = lg_db_nrows(sr) > 0;
    if (!*found) {
        lg_db_result_destroy(&sr);
        return 0;
    }
    *se = (lg_search_t){.on = true};
    int m = lg_smetric_parse(s_v(sr, 0, "metric"));
    int v = lg_vary_parse(s_v(sr, 0, "vary"));
    se->metric = m < 0 ? LG_SMETRIC_P99 : (lg_smetric_t)m;
    se->vary = v < 0 ? LG_VARY_QD : (lg_vary_t)v;
    se->limit_ms = strtod(s_v(sr, 0, "limit_ms"), NULL);
    se->min = s_u32v(sr, 0, "min_load");
    se->max = s_u32v(sr, 0, "max_load");
    se->steps = s_u32v(sr, 0, "steps");
    se->resolution_pct = s_u32v(sr, 0, "resolution_pct");
    se->threads = s_u32v(sr, 0, "threads");
    se->qd = s_u32v(sr, 0, "qd");
    se->confirm = s_u32v(sr, 0, "confirm");
    lg_db_result_destroy(&sr);
    return 0;
}

/* Every probe that ran, in order (a run that ended without the figure failed the search): the
 * rows into *pr (the caller clears it) and their loads and figures into *pb (the caller frees
 * it), *n of them. */
static int s_search_probes(PGconn *db, const char *const *p1, const lg_search_t *se, PGresult **pr,
                           lg_probe_t **pb, size_t *n, char *err, size_t errlen)
{
    int rc = lg_db_exec(
        db,
        "SELECT run_id, threads, qd, rate_total, search_value, search_iops, state,"
        " coalesce(trial, 1) AS trial FROM lg.run WHERE search_id = $1 AND probe IS NOT NULL"
        " AND state NOT IN ('pending', 'skipped', 'running') ORDER BY probe",
        1, p1, pr, err, errlen);
    if (rc)
        return rc;
    *n = (size_t)lg_db_nrows(*pr);
    *pb = calloc(*n ? *n : 1, sizeof **pb);
    if (!*pb) {
        lg_db_result_destroy(pr);
        snprintf(err, errlen, "out of memory");
        return -ENOMEM;
    }
    for (size_t i = 0; i < *n; i++) {
        int row = (int)i;
        lg_probe_t *b = &(*pb)[i];
        b->load = se->vary == LG_VARY_QD        ? s_u32v(*pr, row, "qd")
                  : se->vary == LG_VARY_THREADS ? s_u32v(*pr, row, "threads")
                                                : s_u32v(*pr, row, "rate_total");
        b->trial = s_u32v(*pr, row, "trial");
        b->ok = !lg_db_isnull(*pr, row, lg_db_col(*pr, "search_value"));
        b->value_ms = b->ok ? strtod(s_v(*pr, row, "search_value"), NULL) : 0;
        b->iops = b->ok ? strtod(s_v(*pr, row, "search_iops"), NULL) : 0;
    }
    return 0;
}

/* The search goes on: the next pending probe gets its load (st->next_load) and its trial there
 * (st->next_trial: > 1, a repeat of the probe before it). *found 0: no probe was left to run it
 * on. */
static int s_search_probe_next(PGconn *db, const char *sid, const lg_search_t *se,
                               const lg_search_step_t *st, const char *nb, int *found, char *err,
                               size_t errlen)
{
    char th[16], qd[16], rate[16], trial[16];
    lg_load_t l = {se->threads, se->qd, 0};
    if (se->vary == LG_VARY_QD)
        l.qd = st->next_load;
    else if (se->vary == LG_VARY_THREADS)
        l.threads = st->next_load;
    else
        l.rate = st->next_load;
    snprintf(th, sizeof th, "%u", l.threads);
    snprintf(qd, sizeof qd, "%u", l.qd);
    snprintf(rate, sizeof rate, "%u", l.rate);
    snprintf(trial, sizeof trial, "%u", st->next_trial ? st->next_trial : 1);
    const char *p5[5] = {sid, th, qd, rate, trial};
    PGresult *ur = NULL;
    int rc = lg_db_exec(db,
                        "WITH nx AS (SELECT run_id FROM lg.run WHERE search_id = $1"
                        " AND probe IS NOT NULL AND state = 'pending' ORDER BY probe LIMIT 1)"
                        " UPDATE lg.run r SET threads = $2, qd = $3, rate_total = $4, trial = $5"
                        " FROM nx WHERE r.run_id = nx.run_id RETURNING r.run_id",
                        5, p5, &ur, err, errlen);
    *found = rc == 0 && lg_db_nrows(ur) > 0;
    lg_db_result_destroy(&ur);
    if (rc == 0 && *found)
        rc = lg_db_exec(db,
                        "UPDATE lg.search SET state = 'probing', probes = $2"
                        " WHERE search_id = $1",
                        2, (const char *const[]){sid, nb}, NULL, err, errlen);
    return rc;
}

/* The figures of the trials at probe i's load, up to it: "5.1 ms", "12.8 then 3.1 ms". */
static void s_trials_text(char *buf, size_t len, const lg_probe_t *pb, int i)
{
    int first = i;
    while (first > 0 && pb[first].trial > 1)
        first--;
    size_t o = 0;
    buf[0] = 0;
    for (int k = first; k <= i && o < len; k++)
        o +=
            (size_t)snprintf(buf + o, len - o, "%s%.3g", k > first ? " then " : "", pb[k].value_ms);
    if (o < len)
        snprintf(buf + o, len - o, " ms");
}

/* The search's outcome as a sentence into msg. */
static void s_search_msg(char *msg, size_t len, const lg_search_t *se, const lg_search_step_t *st,
                         const lg_probe_t *pb, size_t n, const char *gl, const char *bl)
{
    const char *metric = lg_smetric_name(se->metric);
    char gt[96] = "", bt[96] = "";
    if (st->good >= 0)
        s_trials_text(gt, sizeof gt, pb, st->good);
    if (st->bad >= 0)
        s_trials_text(bt, sizeof bt, pb, st->bad);
    switch (st->state) {
    case LG_SEARCH_KNEE:
    case LG_SEARCH_STEPS:
        snprintf(msg, len, "%s passed %g ms between %s (%s, %.0f IOPS) and %s (%s)%s", metric,
                 se->limit_ms, gl, gt, st->good >= 0 ? pb[st->good].iops : 0, bl, bt,
                 st->state == LG_SEARCH_STEPS ? "; out of steps before the bracket was narrow"
                                              : "");
        if (st->good < 0 || st->bad < 0)
            snprintf(msg, len, "out of steps after %zu probes", n);
        break;
    case LG_SEARCH_NOT_REACHED:
        snprintf(msg, len, "%s stayed under %g ms up to %s (%s, %.0f IOPS)", metric, se->limit_ms,
                 gl, gt, st->good >= 0 ? pb[st->good].iops : 0);
        break;
    case LG_SEARCH_FIRST_OVER:
        snprintf(msg, len, "%s was over %g ms already at %s (%s)", metric, se->limit_ms, bl, bt);
        break;
    default:
        snprintf(msg, len,
                 "probe %zu gave no %s (its run failed or has no latency "
                 "histogram)",
                 n, metric);
        break;
    }
}

/* The search ended: its outcome stored, its unneeded probes skipped, and its curve's runs given
 * their rates (a share of the best IOPS under the limit, at its load) or skipped. */
static int s_search_end(PGconn *db, const char *const *p1, const lg_search_t *se,
                        const lg_search_step_t *st, const lg_probe_t *pb, size_t n,
                        const PGresult *pr, const char *nb, char *err, size_t errlen)
{
    const char *sid = p1[0];
    char msg[512], gl[48] = "", bl[48] = "", gload[16] = "", bload[16] = "", gval[32] = "",
                   bval[32] = "", giops[32] = "", grun[24] = "", brun[24] = "";
    if (st->good >= 0) {
        s_load_text(se->vary, pb[st->good].load, gl, sizeof gl);
        snprintf(gload, sizeof gload, "%u", pb[st->good].load);
        snprintf(gval, sizeof gval, "%.17g", pb[st->good].value_ms);
        snprintf(giops, sizeof giops, "%.17g", pb[st->good].iops);
        lg_strlcpy(grun, s_v(pr, st->good, "run_id"), sizeof grun);
    }
    if (st->bad >= 0) {
        s_load_text(se->vary, pb[st->bad].load, bl, sizeof bl);
        snprintf(bload, sizeof bload, "%u", pb[st->bad].load);
        snprintf(bval, sizeof bval, "%.17g", pb[st->bad].value_ms);
        lg_strlcpy(brun, s_v(pr, st->bad, "run_id"), sizeof brun);
    }
    s_search_msg(msg, sizeof msg, se, st, pb, n, gl, bl);
    const char *p11[11] = {sid,
                           lg_search_state_name(st->state),
                           nb,
                           grun[0] ? grun : NULL,
                           gload[0] ? gload : NULL,
                           gval[0] ? gval : NULL,
                           giops[0] ? giops : NULL,
                           brun[0] ? brun : NULL,
                           bload[0] ? bload : NULL,
                           bval[0] ? bval : NULL,
                           msg};
    int rc =
        lg_db_exec(db,
                   "UPDATE lg.search SET state = $2, probes = $3, good_run_id = $4, good_load = $5,"
                   " good_value_ms = $6, iops_at_limit = $7, bad_run_id = $8, bad_load = $9,"
                   " bad_value_ms = $10, message = $11, finished_at = now() WHERE search_id = $1",
                   11, p11, NULL, err, errlen);
    if (rc == 0)
        rc =
            lg_db_exec(db,
                       "UPDATE lg.run SET state = 'skipped', error = 'not needed: the search ended'"
                       " WHERE search_id = $1 AND probe IS NOT NULL AND state = 'pending'",
                       1, p1, NULL, err, errlen);
    /* The curve: a share of the best IOPS under the limit, at its load. */
    if (rc == 0 && st->good >= 0) {
        const char *p3[3] = {sid, grun, giops};
        rc =
            lg_db_exec(db,
                       "UPDATE lg.run c SET rate_total = greatest(1, round(c.curve_pct * $3::float8"
                       " / 100))::integer, threads = g.threads, qd = g.qd FROM lg.run g"
                       " WHERE g.run_id = $2 AND c.search_id = $1 AND c.probe IS NULL"
                       " AND c.curve_pct IS NOT NULL AND c.state = 'pending'",
                       3, p3, NULL, err, errlen);
    } else if (rc == 0) {
        rc = lg_db_exec(db,
                        "UPDATE lg.run SET state = 'skipped', error = 'no curve: the search found"
                        " no load under its limit' WHERE search_id = $1 AND probe IS NULL"
                        " AND state = 'pending'",
                        1, p1, NULL, err, errlen);
    }
    return rc;
}

int lg__sched_search_step(PGconn *db, void *data, char *err, size_t errlen)
{
    search_step_t *j = data;
    char sid[24], rid[24];
    s_u64(sid, sizeof sid, j->search_id);
    s_u64(rid, sizeof rid, j->run_id);
    const char *p1[1] = {sid};
    lg_search_t se;
    int found = 0;
    int rc = s_search_read(db, p1, &se, &found, err, errlen);
    if (rc || !found)
        return rc;
    /* This probe's figure first: the merged metric of all its I/Os. */
    double value = j->ok ? s_search_value(se.metric, &j->all) : -1;
    double iops = 0;
    if (j->ok && j->all.runtime_ms)
        iops = j->all.iops;
    if (value >= 0) {
        char vb[32], ib[32];
        snprintf(vb, sizeof vb, "%.17g", value);
        snprintf(ib, sizeof ib, "%.17g", iops);
        const char *p3[3] = {rid, vb, ib};
        rc = lg_db_exec(db,
                        "UPDATE lg.run SET search_value = $2, search_iops = $3 WHERE run_id = $1",
                        3, p3, NULL, err, errlen);
        if (rc)
            return rc;
    }
    PGresult *pr = NULL;
    lg_probe_t *pb = NULL;
    size_t n = 0;
    rc = s_search_probes(db, p1, &se, &pr, &pb, &n, err, errlen);
    if (rc)
        return rc;
    lg_search_step_t st;
    lg_search_next(&se, pb, n, &st);
    char nb[24];
    snprintf(nb, sizeof nb, "%zu", n);
    if (st.state == LG_SEARCH_PROBE) {
        rc = s_search_probe_next(db, sid, &se, &st, nb, &found, err, errlen);
        if (rc || found) {
            free(pb);
            lg_db_result_destroy(&pr);
            return rc;
        }
        st.state = LG_SEARCH_STEPS; /* no probe left to run it on */
    }
    rc = s_search_end(db, p1, &se, &st, pb, n, pr, nb, err, errlen);
    free(pb);
    lg_db_result_destroy(&pr);
    return rc;
}
