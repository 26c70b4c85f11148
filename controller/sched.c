/* sched.c: the campaign scheduler. Runs are taken from the database in campaign and ordinal
 * order, so the schedule survives a controller restart. One run at a time: Prepare on every
 * agent, one Start at an absolute instant, then results stored per agent and merged. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctrl.h"
#include "db.h"
#include "lg_error.h"
#include "lg_log.h"
#include "lg_util.h"

#define START_DELAY_US 250000
#define RUN_GRACE_MS 60000
#define STOP_GRACE_MS 30000

static int s_q(lg_ctrl_t *c, const char *what, const char *sql, int n, const char *const *p)
{
    char err[512];
    if (!lg__ctrl_db_ok(c)) {
        lg_error("could not %s: the database is unreachable", what);
        return LG_EDB;
    }
    if (lg_db_exec(c->db, sql, n, p, NULL, err, sizeof err)) {
        lg_error("could not %s: %s", what, err);
        return LG_EDB;
    }
    return 0;
}

static void s_u64(char *buf, size_t len, uint64_t v) { snprintf(buf, len, "%llu", (unsigned long long)v); }

int lg__sched_recover(lg_ctrl_t *c)
{
    /* A run left 'running' was cut short by a stop of the controller: its partial data cannot
     * be completed, so it is cleared and the run is done again. Completed runs stay. */
    static const char *const sql[] = {
        "BEGIN",
        "DELETE FROM lg.sample WHERE run_id IN (SELECT run_id FROM lg.run WHERE state = 'running')",
        "DELETE FROM lg.result WHERE run_id IN (SELECT run_id FROM lg.run WHERE state = 'running')",
        "DELETE FROM lg.run_agent WHERE run_id IN "
        "(SELECT run_id FROM lg.run WHERE state = 'running')",
        "UPDATE lg.run SET state = 'pending', started_at = NULL WHERE state = 'running'",
        "COMMIT",
    };
    char err[512];
    for (size_t i = 0; i < sizeof sql / sizeof sql[0]; i++) {
        if (lg_db_exec(c->db, sql[i], 0, NULL, NULL, err, sizeof err)) {
            lg_error("could not recover the schedule: %s", err);
            lg_log_hint("Run \"lgctl db migrate\" if the schema is missing.");
            lg_db_exec(c->db, "ROLLBACK", 0, NULL, NULL, err, sizeof err);
            return LG_EDB;
        }
    }
    return 0;
}

static void s_free_ra(lg_run_agent_t *ra)
{
    for (int d = 0; d < LG_DIR_NR; d++) {
        free(ra->dir[d]);
        ra->dir[d] = NULL;
    }
}

void lg__sched_cleanup(lg_ctrl_t *c)
{
    for (size_t i = 0; i < c->cur.nra; i++)
        s_free_ra(&c->cur.ra[i]);
    c->cur.nra = 0;
}

static lg_run_agent_t *s_find_ra(lg_ctrl_t *c, size_t conn)
{
    for (size_t i = 0; i < c->cur.nra; i++)
        if (c->cur.ra[i].conn == conn)
            return &c->cur.ra[i];
    return NULL;
}

static void s_send_stop(lg_ctrl_t *c, lg_run_agent_t *ra)
{
    Lg__Stop st = LG__STOP__INIT;
    st.run_id = c->cur.run_id;
    Lg__Envelope env = LG__ENVELOPE__INIT;
    env.body_case = LG__ENVELOPE__BODY_STOP;
    env.stop = &st;
    lg__ctrl_send_agent(c, ra->conn, &env);
}

/* Store one result row; agent_id 0 stores the merged row (agent_id NULL). */
static int s_store_result(lg_ctrl_t *c, uint64_t run_id, uint64_t agent_id, lg_dir_t d,
                          const lg_dirstats_t *s)
{
    char v[15][40];
    s_u64(v[0], 40, run_id);
    s_u64(v[1], 40, agent_id);
    s_u64(v[2], 40, s->ios);
    s_u64(v[3], 40, s->bytes);
    s_u64(v[4], 40, s->runtime_ms);
    snprintf(v[5], 40, "%.17g", s->iops);
    snprintf(v[6], 40, "%.17g", s->bw_bytes);
    s_u64(v[7], 40, s->lat_n);
    s_u64(v[8], 40, s->lat_min);
    s_u64(v[9], 40, s->lat_max);
    snprintf(v[10], 40, "%.17g", s->lat_mean);
    snprintf(v[11], 40, "%.17g", s->lat_stddev);
    snprintf(v[12], 40, "%.17g", s->lat_sum);
    snprintf(v[13], 40, "%.17g", s->lat_sumsq);
    char *pct = s->has_hist ? lg_db_pct_json(&s->hist) : NULL;
    char *hist = s->has_hist ? lg_db_hist_json(&s->hist) : NULL;
    const char *p[17] = {v[0], agent_id ? v[1] : NULL, lg_dir_name(d), v[2], v[3], v[4], v[5],
                         v[6], v[7], v[8], v[9], v[10], v[11], v[12], v[13], pct, hist};
    int rc = s_q(c, "store a result",
                 "INSERT INTO lg.result (run_id, agent_id, direction, ios, bytes, runtime_ms,"
                 " iops, bw_bytes, lat_n, lat_min, lat_max, lat_mean, lat_stddev, lat_sum,"
                 " lat_sumsq, percentiles, hist) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9,"
                 " $10, $11, $12, $13, $14, $15, $16::jsonb, $17::jsonb)"
                 " ON CONFLICT DO NOTHING",
                 17, p);
    free(pct);
    free(hist);
    return rc;
}

static void s_finish_run(lg_ctrl_t *c, const char *error)
{
    lg_current_t *cur = &c->cur;
    char id[24];
    s_u64(id, sizeof id, cur->run_id);
    /* Merge over agents that delivered a result: sums add, pooled mean and stddev, summed
     * histograms (lg_dirstats_merge). */
    size_t ndone = 0;
    for (size_t i = 0; i < cur->nra; i++)
        ndone += cur->ra[i].state == RA_DONE;
    if (ndone > 0) {
        for (int d = 0; d < LG_DIR_NR; d++) {
            const lg_dirstats_t *list[LG_RUN_MAX_AGENTS];
            size_t n = 0;
            for (size_t i = 0; i < cur->nra; i++)
                if (cur->ra[i].state == RA_DONE && cur->ra[i].dir[d])
                    list[n++] = cur->ra[i].dir[d];
            if (n == 0)
                continue;
            lg_dirstats_t *m = malloc(sizeof *m);
            if (!m)
                continue;
            lg_dirstats_merge(m, list, n);
            s_store_result(c, cur->run_id, 0, (lg_dir_t)d, m);
            free(m);
        }
    }
    const char *failed = error ? error : (ndone == 0 ? "no agent delivered a result" : NULL);
    const char *p[2] = {id, failed};
    s_q(c, "finish a run",
        "UPDATE lg.run SET state = CASE WHEN $2::text IS NULL THEN 'done' ELSE 'failed' END,"
        " error = $2, finished_at = now() WHERE run_id = $1",
        2, p);
    if (failed)
        lg_error("run %llu failed: %s", (unsigned long long)cur->run_id, failed);
    else
        lg_info("run %llu done", (unsigned long long)cur->run_id);
    lg__sched_cleanup(c);
    cur->phase = PH_IDLE;
    cur->run_id = 0;
}

static void s_fail_run(lg_ctrl_t *c, const char *fmt, const char *detail)
{
    lg_current_t *cur = &c->cur;
    snprintf(cur->error, sizeof cur->error, fmt, detail);
    int waiting = 0;
    for (size_t i = 0; i < cur->nra; i++) {
        lg_run_agent_t *ra = &cur->ra[i];
        if (ra->state == RA_DONE || ra->state == RA_FAILED)
            continue;
        s_send_stop(c, ra);
        /* An agent that is running fio reports what it measured before it stopped. */
        if (ra->state == RA_RUNNING && !c->agents[ra->conn].lost)
            waiting = 1;
        else
            ra->state = RA_FAILED;
    }
    if (waiting && cur->phase != PH_STOPPING) {
        cur->phase = PH_STOPPING;
        cur->deadline_ms = lg_mono_ms() + STOP_GRACE_MS;
        return;
    }
    s_finish_run(c, cur->error);
}

static int s_all(lg_ctrl_t *c, lg_ra_state_t a, lg_ra_state_t b)
{
    for (size_t i = 0; i < c->cur.nra; i++)
        if (c->cur.ra[i].state != a && c->cur.ra[i].state != b)
            return 0;
    return 1;
}

static void s_finish_campaigns(lg_ctrl_t *c)
{
    char err[512];
    PGresult *r = NULL;
    if (lg_db_exec(c->db,
                   "UPDATE lg.campaign c SET state = 'done', finished_at = now()"
                   " WHERE state IN ('pending', 'running') AND NOT EXISTS (SELECT 1 FROM lg.run r"
                   " WHERE r.campaign_id = c.campaign_id AND r.state IN ('pending', 'running'))"
                   " RETURNING campaign_id, name",
                   0, NULL, &r, err, sizeof err)) {
        lg_error("could not close finished campaigns: %s", err);
        return;
    }
    for (int i = 0; i < PQntuples(r); i++)
        lg_info("campaign %s \"%s\" done", PQgetvalue(r, i, 0), PQgetvalue(r, i, 1));
    PQclear(r);
}

static void s_start_next(lg_ctrl_t *c)
{
    lg_current_t *cur = &c->cur;
    size_t live[LG_RUN_MAX_AGENTS], nlive = 0;
    for (size_t i = 0; i < c->nagents && nlive < LG_RUN_MAX_AGENTS; i++)
        if (!c->agents[i].lost && c->agents[i].agent_id)
            live[nlive++] = i;
    char err[512];
    PGresult *r = NULL;
    if (lg_db_exec(c->db,
                   "SELECT r.run_id, r.campaign_id, r.target_kind, r.target, r.size_bytes, r.rw,"
                   " r.bs, r.read_pct, r.threads, r.qd, r.ramp_s, r.runtime_s, r.direct,"
                   " r.profile, r.direction"
                   " FROM lg.run r JOIN lg.campaign c USING (campaign_id)"
                   " WHERE c.state IN ('pending', 'running') AND r.state = 'pending'"
                   " ORDER BY c.campaign_id, r.ordinal LIMIT 1",
                   0, NULL, &r, err, sizeof err)) {
        lg_error("could not read the schedule: %s", err);
        return;
    }
    if (PQntuples(r) == 0) {
        PQclear(r);
        s_finish_campaigns(c);
        return;
    }
    if (nlive == 0) {
        if (!cur->waiting_logged)
            lg_info("run %s is waiting for an agent", PQgetvalue(r, 0, 0));
        cur->waiting_logged = 1;
        PQclear(r);
        return;
    }
    cur->waiting_logged = 0;
    memset(&cur->spec, 0, sizeof cur->spec);
    lg__run_spec__init(&cur->spec);
    cur->run_id = strtoull(PQgetvalue(r, 0, 0), NULL, 10);
    cur->campaign_id = strtoull(PQgetvalue(r, 0, 1), NULL, 10);
    cur->spec.run_id = cur->run_id;
    cur->spec.target_kind = strcmp(PQgetvalue(r, 0, 2), "null") == 0
                                ? LG__TARGET_KIND__TARGET_NULL
                                : LG__TARGET_KIND__TARGET_FILE;
    lg_strlcpy(cur->target, PQgetvalue(r, 0, 3), sizeof cur->target);
    cur->spec.target = cur->target;
    cur->spec.size = strtoull(PQgetvalue(r, 0, 4), NULL, 10);
    lg_strlcpy(cur->rw, PQgetvalue(r, 0, 5), sizeof cur->rw);
    cur->spec.rw = cur->rw;
    cur->spec.bs = (uint32_t)strtoul(PQgetvalue(r, 0, 6), NULL, 10);
    cur->spec.read_pct = (uint32_t)strtoul(PQgetvalue(r, 0, 7), NULL, 10);
    cur->spec.threads = (uint32_t)strtoul(PQgetvalue(r, 0, 8), NULL, 10);
    cur->spec.qd = (uint32_t)strtoul(PQgetvalue(r, 0, 9), NULL, 10);
    cur->spec.ramp_s = (uint32_t)strtoul(PQgetvalue(r, 0, 10), NULL, 10);
    cur->spec.runtime_s = (uint32_t)strtoul(PQgetvalue(r, 0, 11), NULL, 10);
    cur->spec.direct = PQgetvalue(r, 0, 12)[0] == 't';
    lg_info("run %llu: %s %s, %uT%uQ, %us on %zu agent(s)", (unsigned long long)cur->run_id,
            PQgetvalue(r, 0, 13), PQgetvalue(r, 0, 14), cur->spec.threads, cur->spec.qd,
            cur->spec.runtime_s, nlive);
    PQclear(r);

    char id[24], cid[24];
    s_u64(id, sizeof id, cur->run_id);
    s_u64(cid, sizeof cid, cur->campaign_id);
    const char *p1[1] = {cid};
    const char *p2[1] = {id};
    if (s_q(c, "mark the campaign running",
            "UPDATE lg.campaign SET state = 'running', started_at = coalesce(started_at, now())"
            " WHERE campaign_id = $1",
            1, p1) ||
        s_q(c, "mark the run running",
            "UPDATE lg.run SET state = 'running', started_at = now() WHERE run_id = $1", 1, p2))
        return;
    cur->nra = 0;
    cur->error[0] = 0;
    for (size_t i = 0; i < nlive; i++) {
        lg_run_agent_t *ra = &cur->ra[cur->nra++];
        memset(ra, 0, sizeof *ra);
        ra->conn = live[i];
        ra->agent_id = c->agents[live[i]].agent_id;
        ra->state = RA_PREPARING;
        char aid[24];
        s_u64(aid, sizeof aid, ra->agent_id);
        const char *p3[2] = {id, aid};
        s_q(c, "record the run's agent",
            "INSERT INTO lg.run_agent (run_id, agent_id, state) VALUES ($1, $2, 'preparing')"
            " ON CONFLICT DO NOTHING",
            2, p3);
    }
    cur->phase = PH_PREPARING;
    /* Laying a file out runs at disk speed: allow 20 MB/s plus a minute. */
    cur->deadline_ms = lg_mono_ms() + 60000 + cur->spec.size / 20000;
    Lg__Prepare prep = LG__PREPARE__INIT;
    prep.spec = &cur->spec;
    Lg__Envelope env = LG__ENVELOPE__INIT;
    env.body_case = LG__ENVELOPE__BODY_PREPARE;
    env.prepare = &prep;
    for (size_t i = 0; i < cur->nra; i++)
        lg__ctrl_send_agent(c, cur->ra[i].conn, &env);
}

void lg__sched_tick(lg_ctrl_t *c)
{
    lg_current_t *cur = &c->cur;
    if (c->stopping || !lg__ctrl_db_ok(c))
        return;
    if (cur->phase == PH_IDLE) {
        s_start_next(c);
        return;
    }
    for (size_t i = 0; i < cur->nra; i++) {
        lg_run_agent_t *ra = &cur->ra[i];
        if (c->agents[ra->conn].lost && ra->state != RA_DONE && ra->state != RA_FAILED) {
            ra->state = RA_FAILED;
            s_fail_run(c, "agent \"%s\" was lost during the run", c->agents[ra->conn].name);
            return;
        }
    }
    if (lg_mono_ms() < cur->deadline_ms)
        return;
    switch (cur->phase) {
    case PH_PREPARING:
        s_fail_run(c, "%s", "agents did not finish preparing in time");
        break;
    case PH_RUNNING:
        s_fail_run(c, "%s", "the run did not finish in time (ramp + runtime + 60 s)");
        break;
    case PH_STOPPING:
        for (size_t i = 0; i < cur->nra; i++)
            if (cur->ra[i].state != RA_DONE)
                cur->ra[i].state = RA_FAILED;
        s_finish_run(c, cur->error);
        break;
    default:
        break;
    }
}

void lg__sched_on_prepared(lg_ctrl_t *c, size_t conn, const Lg__Prepared *p)
{
    lg_current_t *cur = &c->cur;
    lg_run_agent_t *ra = s_find_ra(c, conn);
    if (cur->phase != PH_PREPARING || p->run_id != cur->run_id || !ra ||
        ra->state != RA_PREPARING)
        return;
    ra->state = RA_READY;
    if (!s_all(c, RA_READY, RA_READY))
        return;
    Lg__Start st = LG__START__INIT;
    st.run_id = cur->run_id;
    st.start_at_us = lg_now_us() + START_DELAY_US;
    Lg__Envelope env = LG__ENVELOPE__INIT;
    env.body_case = LG__ENVELOPE__BODY_START;
    env.start = &st;
    for (size_t i = 0; i < cur->nra; i++) {
        cur->ra[i].state = RA_RUNNING;
        lg__ctrl_send_agent(c, cur->ra[i].conn, &env);
    }
    char id[24];
    s_u64(id, sizeof id, cur->run_id);
    const char *p1[1] = {id};
    s_q(c, "mark the run's agents running",
        "UPDATE lg.run_agent SET state = 'running' WHERE run_id = $1", 1, p1);
    cur->phase = PH_RUNNING;
    cur->deadline_ms = lg_mono_ms() + START_DELAY_US / 1000 +
                       (uint64_t)(cur->spec.ramp_s + cur->spec.runtime_s) * 1000 + RUN_GRACE_MS;
}

static void s_ack_result(lg_ctrl_t *c, size_t conn, uint64_t run_id)
{
    Lg__Ack ack = LG__ACK__INIT;
    ack.run_id = run_id;
    ack.result = 1;
    Lg__Envelope env = LG__ENVELOPE__INIT;
    env.body_case = LG__ENVELOPE__BODY_ACK_MSG;
    env.ack_msg = &ack;
    lg__ctrl_send_agent(c, conn, &env);
}

void lg__sched_on_result(lg_ctrl_t *c, size_t conn, const Lg__RunResult *res)
{
    lg_current_t *cur = &c->cur;
    uint64_t agent_id = c->agents[conn].agent_id;
    lg_run_agent_t *ra = res->run_id == cur->run_id ? s_find_ra(c, conn) : NULL;
    if (ra && (ra->state == RA_DONE || ra->state == RA_FAILED)) {
        s_ack_result(c, conn, res->run_id); /* a resend: stored already */
        return;
    }
    int known = lg__sched_sample_ok(c, conn, res->run_id);
    if (known < 0)
        return; /* cannot tell now: not acknowledged, so the agent sends it again */
    if (!known) {
        lg_warn("dropped a result of unknown run %llu from \"%s\"",
                (unsigned long long)res->run_id, c->agents[conn].name);
        s_ack_result(c, conn, res->run_id);
        return;
    }
    lg_dirstats_t *dirs[LG_DIR_NR] = {NULL, NULL, NULL};
    int bad = 0;
    for (size_t i = 0; i < res->n_dirs && !bad; i++) {
        lg_dirstats_t *s = malloc(sizeof *s);
        lg_dir_t d;
        if (!s || lg_wire_dirstats_get(res->dirs[i], s, &d) != 0 || dirs[d]) {
            free(s);
            bad = 1;
            break;
        }
        dirs[d] = s;
    }
    if (bad) {
        for (int d = 0; d < LG_DIR_NR; d++)
            free(dirs[d]);
        lg__wire_count_malformed();
        lg_warn("dropped a malformed result from \"%s\"", c->agents[conn].name);
        return;
    }
    char id[24], aid[24], ex[16], nj[16];
    s_u64(id, sizeof id, res->run_id);
    s_u64(aid, sizeof aid, agent_id);
    snprintf(ex, sizeof ex, "%d", res->fio_exit);
    snprintf(nj, sizeof nj, "%u", res->njobs);
    const char *p[5] = {id, aid, ex, nj, res->fio_json};
    int rc = s_q(c, "begin storing a result", "BEGIN", 0, NULL);
    if (rc == 0)
        rc = s_q(c, "store the agent's fio JSON",
                 "INSERT INTO lg.run_agent (run_id, agent_id, state, fio_exit, njobs, fio_json)"
                 " VALUES ($1, $2, 'done', $3, $4, $5) ON CONFLICT (run_id, agent_id) DO UPDATE"
                 " SET state = 'done', fio_exit = $3, njobs = $4, fio_json = $5",
                 5, p);
    for (int d = 0; rc == 0 && d < LG_DIR_NR; d++)
        if (dirs[d])
            rc = s_store_result(c, res->run_id, agent_id, (lg_dir_t)d, dirs[d]);
    if (rc == 0)
        rc = s_q(c, "commit a result", "COMMIT", 0, NULL);
    if (rc) {
        char e[64];
        lg_db_exec(c->db, "ROLLBACK", 0, NULL, NULL, e, sizeof e);
        /* Not acknowledged: the agent keeps it and sends it again. */
        for (int d = 0; d < LG_DIR_NR; d++)
            free(dirs[d]);
        return;
    }
    s_ack_result(c, conn, res->run_id);
    if (!ra) {
        for (int d = 0; d < LG_DIR_NR; d++)
            free(dirs[d]);
        return;
    }
    ra->state = RA_DONE;
    for (int d = 0; d < LG_DIR_NR; d++)
        ra->dir[d] = dirs[d];
    if (s_all(c, RA_DONE, RA_FAILED))
        s_finish_run(c, cur->error[0] ? cur->error : NULL);
}

void lg__sched_on_error(lg_ctrl_t *c, size_t conn, const Lg__RunError *e)
{
    lg_current_t *cur = &c->cur;
    const char *msg = e->message ? e->message : "";
    lg_error("agent \"%s\" reports an error in run %llu: %s", c->agents[conn].name,
             (unsigned long long)e->run_id, msg);
    lg_run_agent_t *ra = e->run_id == cur->run_id ? s_find_ra(c, conn) : NULL;
    if (!ra)
        return;
    char id[24], aid[24];
    s_u64(id, sizeof id, e->run_id);
    s_u64(aid, sizeof aid, ra->agent_id);
    const char *p[3] = {id, aid, msg};
    s_q(c, "record an agent's error",
        "UPDATE lg.run_agent SET state = 'failed', error = $3 WHERE run_id = $1 AND agent_id = $2",
        3, p);
    ra->state = RA_FAILED;
    char detail[1200];
    snprintf(detail, sizeof detail, "agent \"%s\": %s", c->agents[conn].name, msg);
    if (cur->phase == PH_STOPPING) {
        if (s_all(c, RA_DONE, RA_FAILED))
            s_finish_run(c, cur->error);
        return;
    }
    s_fail_run(c, "%s", detail);
}

int lg__sched_sample_ok(lg_ctrl_t *c, size_t conn, uint64_t run_id)
{
    if (run_id == c->cur.run_id && s_find_ra(c, conn))
        return 1;
    if (run_id != 0 && run_id == c->last_sample_run)
        return 1;
    char id[24], aid[24], err[256];
    s_u64(id, sizeof id, run_id);
    s_u64(aid, sizeof aid, c->agents[conn].agent_id);
    const char *p[2] = {id, aid};
    PGresult *r = NULL;
    if (!lg__ctrl_db_ok(c) ||
        lg_db_exec(c->db, "SELECT 1 FROM lg.run_agent WHERE run_id = $1 AND agent_id = $2", 2,
                   p, &r, err, sizeof err))
        return -1;
    int ok = PQntuples(r) > 0;
    PQclear(r);
    if (ok)
        c->last_sample_run = run_id;
    return ok;
}
