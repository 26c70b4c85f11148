/* sched_sql.c: the scheduler's SQL, run by the store on its own thread and connection: each
 * function fills in the job sched.c queued (sched_jobs.h). Nothing here touches the loop's state. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db.h"
#include "lg_error.h"
#include "lg_util.h"
#include "results.h"
#include "sched_jobs.h"

static void s_u64(char *buf, size_t len, uint64_t v)
{
    snprintf(buf, len, "%llu", (unsigned long long)v);
}

static const char *s_v(const PGresult *r, int row, const char *col)
{
    int i = PQfnumber(r, col);
    return i < 0 ? "" : PQgetvalue(r, row, i);
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
    for (int k = 0; row && k < PQnfields(r); k++)
        if (lg_row_set(row, PQfname(r, k), PQgetisnull(r, i, k) ? NULL : PQgetvalue(r, i, k))) {
            lg_row_free(row);
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
    int rc = lg_db_exec(db, "SELECT 1 FROM lg.run_agent WHERE run_id = $1 AND agent_id = $2", 2,
                        p, &r, err, errlen);
    if (rc == 0) {
        j->found = PQntuples(r) > 0;
        PQclear(r);
    }
    return rc;
}

int lg__sched_next_work(PGconn *db, void *job, char *err, size_t errlen)
{
    next_job_t *j = job;
    PGresult *cr = NULL, *r = NULL;
    j->kind = NX_NOTHING;
    /* Campaigns run strictly in order: a paused one holds the ones after it. */
    int rc = lg_db_exec(db,
                        "SELECT campaign_id, name, state, pause_requested, gate_passed,"
                        " between_configs FROM lg.campaign"
                        " WHERE state IN ('pending', 'running', 'paused')"
                        " ORDER BY campaign_id LIMIT 1",
                        0, NULL, &cr, err, errlen);
    if (rc)
        return rc;
    if (PQntuples(cr) == 0) {
        PQclear(cr);
        return 0;
    }
    j->cid = s_u64v(cr, 0, "campaign_id");
    lg_strlcpy(j->name, s_v(cr, 0, "name"), sizeof j->name);
    lg_strlcpy(j->between, s_v(cr, 0, "between_configs"), sizeof j->between);
    int paused = !strcmp(s_v(cr, 0, "state"), "paused");
    int pause_req = s_v(cr, 0, "pause_requested")[0] == 't';
    uint32_t gate_passed = s_u32v(cr, 0, "gate_passed");
    PQclear(cr);
    if (paused)
        return 0;
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
    rc = lg_db_exec(db,
                    "SELECT " RUN_COLS ", s.labels::text AS labels, lg.sut_short(s.labels) AS sut"
                    " FROM lg.run r"
                    " JOIN lg.sut_config s USING (sut_config_id) WHERE r.campaign_id = $1"
                    " AND r.state = 'pending' ORDER BY r.ordinal LIMIT 1",
                    1, p1, &r, err, errlen);
    if (rc)
        return rc;
    if (PQntuples(r) == 0) {
        PQclear(r);
        /* Its state says what happened: "failed" when no run gave a result. One statement. */
        PGresult *fr = NULL;
        rc = lg_db_exec(db,
                        "UPDATE lg.campaign c SET finished_at = now(),"
                        " state = CASE WHEN f.ok THEN 'done' ELSE 'failed' END,"
                        " message = CASE WHEN f.ok THEN NULL ELSE 'every run failed' END"
                        " FROM (SELECT EXISTS (SELECT 1 FROM lg.run r WHERE r.campaign_id = $1"
                        " AND r.state IN ('done', 'partial'))"
                        " OR NOT EXISTS (SELECT 1 FROM lg.run r WHERE r.campaign_id = $1) AS ok) f"
                        " WHERE c.campaign_id = $1 RETURNING c.state",
                        1, p1, &fr, err, errlen);
        if (rc)
            return rc;
        j->kind = NX_ENDED;
        lg_strlcpy(j->state, PQntuples(fr) ? s_v(fr, 0, "state") : "done", sizeof j->state);
        PQclear(fr);
        return 0;
    }
    j->ordinal = s_u32v(r, 0, "ordinal");
    if (s_v(r, 0, "gate")[0] == 't' && gate_passed < j->ordinal) {
        j->kind = NX_GATE;
        lg_strlcpy(j->cfgord, s_v(r, 0, "config_ordinal"), sizeof j->cfgord);
        lg_strlcpy(j->labels, s_v(r, 0, "labels"), sizeof j->labels);
        PQclear(r);
        return 0;
    }
    j->kind = NX_RUN;
    j->run = lg__sched_row(r, 0);
    PQclear(r);
    if (!j->run) {
        snprintf(err, errlen, "out of memory");
        return -ENOMEM;
    }
    return 0;
}

int lg__sched_count_work(PGconn *db, void *job, char *err, size_t errlen)
{
    count_job_t *j = job;
    char run[24];
    s_u64(run, sizeof run, j->run_id);
    const char *p[] = {run};
    PGresult *r = NULL;
    int rc = lg_db_exec(db,
                        "SELECT agent_id, count(DISTINCT seq) AS stored FROM lg.sample "
                        "WHERE run_id = $1 GROUP BY agent_id",
                        1, p, &r, err, errlen);
    if (rc)
        return rc;
    int n = PQntuples(r);
    j->n = 0;
    for (int i = 0; i < n && j->n < LG_RUN_MAX_AGENTS; i++, j->n++) {
        j->agent_id[j->n] = s_u64v(r, i, "agent_id");
        j->stored[j->n] = s_u64v(r, i, "stored");
    }
    PQclear(r);
    return 0;
}

int lg__sched_result_work(PGconn *db, void *job, char *err, size_t errlen)
{
    result_job_t *j = job;
    char id[24], aid[24];
    s_u64(id, sizeof id, j->run_id);
    s_u64(aid, sizeof aid, j->agent_id);
    const char *p[7] = {id, aid, j->ex, j->nj, j->fio_json, j->dc, j->has_started ? j->started : NULL};
    int rc = lg_db_exec(db, "BEGIN", 0, NULL, NULL, err, errlen);
    if (rc == 0)
        rc = lg_db_exec(db,
                        "INSERT INTO lg.run_agent (run_id, agent_id, state, fio_exit, njobs, fio_json,"
                        " datacheck, started_us) VALUES ($1, $2, 'done', $3, $4, $5, $6::jsonb, $7)"
                        " ON CONFLICT (run_id, agent_id) DO UPDATE"
                        " SET state = 'done', fio_exit = $3, njobs = $4, fio_json = $5, datacheck = $6,"
                        " started_us = $7",
                        7, p, NULL, err, errlen);
    for (int d = 0; rc == 0 && d < LG_DIR_NR; d++)
        if (j->dirs[d])
            rc = lg_results_store(db, j->run_id, j->agent_id, (lg_dir_t)d, j->dirs[d], err, errlen);
    return lg_db_end(db, rc, err, errlen);
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
    int nt = PQntuples(r);
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
    PQclear(r);
    if (rc)
        snprintf(err, errlen, "out of memory");
    return rc;
}

int lg__sched_takeup_read(PGconn *db, lg_takeup_t *t, char *err, size_t errlen)
{
    memset(t, 0, sizeof *t);
    PGresult *r = NULL;
    int rc = lg_db_exec(db,
                        "SELECT " RUN_COLS " FROM lg.run r WHERE r.state = 'running'"
                        " ORDER BY r.run_id LIMIT 1",
                        0, NULL, &r, err, errlen);
    if (rc)
        return rc;
    if (PQntuples(r) == 0) {
        PQclear(r);
        return 0;
    }
    t->run = lg__sched_row(r, 0);
    PQclear(r);
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
        lg_row_free(rows[i]);
    free(rows);
}

void lg__sched_takeup_free(lg_takeup_t *t)
{
    lg_row_free(t->run);
    s_free_rows(t->agents, t->nagents);
    s_free_rows(t->results, t->nresults);
    s_free_rows(t->samples, t->nsamples);
    memset(t, 0, sizeof *t);
}
