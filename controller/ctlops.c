/* ctlops.c: lgctl's requests on the control socket; its campaign requests (status, find, pause,
 * resume, abort) answered off the loop. The store reads or changes the campaign in its own order
 * (after every state change the scheduler queued before), and the reply goes out from the loop
 * once it is done, with what only the loop knows (the current run, its live figures) added. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attempt.h"
#include "ctrl.h"
#include "db.h"
#include "lg_error.h"
#include "lg_log.h"
#include "lg_util.h"
#include "store.h"

typedef struct {
    lg_ctrl_t *c;
    uint8_t id[LG_ID_MAX];
    size_t idlen;
    int op;
    uint64_t cid;
    char name[64];
    uint64_t runs[256]; /* rerun: the points of these runs (none: the failed points) */
    size_t nruns;
    /* what the store found */
    int code;
    int applied; /* pause, resume or abort changed the campaign */
    char msg[2048], state[32], cname[64];
    uint32_t total, done, failed, points_failed;
    uint64_t remaining_s;   /* ramp + runtime of the runs still pending */
    uint32_t fills_unknown; /* pending fills of no known rate: not in remaining_s */
    /* status and find: answered from memory if the database is slower than STALLED_MS (the
     * store's answer, when it comes, is then dropped) */
    uv_timer_t timer;
    int timer_on, replied;
} ctl_job_t;

static const char *s_col(const PGresult *r, const char *col)
{
    return lg_db_get(r, 0, lg_db_col(r, col));
}

static int s_status(PGconn *db, ctl_job_t *j, char *err, size_t errlen)
{
    char id[24];
    snprintf(id, sizeof id, "%llu", (unsigned long long)j->cid);
    const char *p[1] = {id};
    PGresult *r = NULL;
    int rc =
        lg_db_exec(db,
                   "SELECT c.state, c.name, coalesce(c.message, '') AS message,"
                   " count(r.run_id) AS total,"
                   " count(r.run_id) FILTER (WHERE r.state = 'done') AS done,"
                   " count(r.run_id) FILTER (WHERE r.state IN ('failed', 'aborted',"
                   " 'partial')) AS failed,"
                   /* ramp + runtime of the runs to come; a fill's runtime is only its
                    * limit: at the slowest agent's write rate of the newest fill done */
                   " coalesce(sum(CASE WHEN r.phase = 'fill' AND f.bw > 0"
                   "   THEN least(r.ramp_s + r.runtime_s, r.ramp_s + ceil(r.size_bytes / f.bw))"
                   "   WHEN r.phase = 'fill' THEN 0"
                   "   ELSE r.ramp_s + r.runtime_s END) FILTER (WHERE r.state = 'pending'),"
                   " 0)::bigint AS remaining_s,"
                   /* and those of no known rate yet, left out of it */
                   " count(r.run_id) FILTER (WHERE r.state = 'pending' AND r.phase = 'fill'"
                   "   AND NOT coalesce(f.bw > 0, false)) AS fills_unknown,"
                   " (SELECT count(*)" LG_FAILED_POINTS_FROM
                   "   AND r.campaign_id = c.campaign_id) AS points_failed"
                   /* each point's newest attempt (030_attempts) */
                   " FROM lg.campaign c LEFT JOIN lg.run r ON r.campaign_id = c.campaign_id"
                   "   AND NOT EXISTS (SELECT 1 FROM lg.run n WHERE n.attempt > r.attempt"
                   "   AND coalesce(n.first_run, n.run_id) = coalesce(r.first_run, r.run_id))"
                   " LEFT JOIN LATERAL (SELECT min(x.bw_bytes) AS bw FROM lg.result x"
                   "   WHERE x.agent_id IS NOT NULL AND x.direction = 'write' AND x.run_id ="
                   "   (SELECT d.run_id FROM lg.run d WHERE d.campaign_id = c.campaign_id"
                   "    AND d.phase = 'fill' AND d.state = 'done'"
                   "    ORDER BY d.finished_at DESC NULLS LAST LIMIT 1)) f ON true"
                   " WHERE c.campaign_id = $1 GROUP BY c.campaign_id",
                   1, p, &r, err, errlen);
    if (rc)
        return rc;
    if (lg_db_nrows(r) == 0) {
        j->code = LG_ENOTFOUND;
        snprintf(j->msg, sizeof j->msg, "no campaign %s", id);
    } else {
        lg_strlcpy(j->state, s_col(r, "state"), sizeof j->state);
        lg_strlcpy(j->cname, s_col(r, "name"), sizeof j->cname);
        lg_strlcpy(j->msg, s_col(r, "message"), sizeof j->msg);
        j->total = (uint32_t)strtoul(s_col(r, "total"), NULL, 10);
        j->done = (uint32_t)strtoul(s_col(r, "done"), NULL, 10);
        j->failed = (uint32_t)strtoul(s_col(r, "failed"), NULL, 10);
        j->remaining_s = strtoull(s_col(r, "remaining_s"), NULL, 10);
        j->fills_unknown = (uint32_t)strtoul(s_col(r, "fills_unknown"), NULL, 10);
        j->points_failed = (uint32_t)strtoul(s_col(r, "points_failed"), NULL, 10);
    }
    lg_db_result_destroy(&r);
    return 0;
}

static int s_op(PGconn *db, ctl_job_t *j, char *err, size_t errlen)
{
    const char *sql = NULL;
    switch (j->op) {
    case LG__CTL_REQUEST__OP__OP_PAUSE:
        sql = "UPDATE lg.campaign SET pause_requested = true WHERE campaign_id = $1"
              " AND state IN ('pending', 'running', 'paused') RETURNING state";
        break;
    case LG__CTL_REQUEST__OP__OP_RESUME:
        /* At a gate (the very next run is the gated one): the scheduler runs the operator's
         * read-back check, if any, then passes it (034_gate_resumed). */
        sql = "UPDATE lg.campaign c SET state = 'running', pause_requested = false, message = NULL,"
              " gate_resumed = greatest(c.gate_resumed, coalesce((SELECT r.ordinal FROM lg.run r"
              "   WHERE r.campaign_id = c.campaign_id AND r.state = 'pending'"
              "   ORDER BY r.ordinal LIMIT 1), 0))"
              " WHERE campaign_id = $1 AND (state = 'paused' OR pause_requested) RETURNING state";
        break;
    default: /* abort */
        sql = "UPDATE lg.campaign SET state = 'aborted', finished_at = now(),"
              " message = 'aborted by lgctl abort'"
              " WHERE campaign_id = $1 AND state IN ('pending', 'running', 'paused')"
              " RETURNING state";
        break;
    }
    char id[24];
    snprintf(id, sizeof id, "%llu", (unsigned long long)j->cid);
    const char *p[1] = {id};
    PGresult *r = NULL;
    int rc = lg_db_exec(db, "BEGIN", 0, NULL, NULL, err, errlen);
    if (rc == 0)
        rc = lg_db_exec(db, sql, 1, p, &r, err, errlen);
    if (rc == 0) {
        j->applied = lg_db_nrows(r) > 0;
        lg_db_result_destroy(&r);
        if (j->applied && j->op == LG__CTL_REQUEST__OP__OP_ABORT)
            rc = lg_db_exec(db,
                            "UPDATE lg.run SET state = 'aborted' WHERE campaign_id = $1"
                            " AND state = 'pending'",
                            1, p, NULL, err, errlen);
    }
    if ((rc = lg_db_end(db, rc, err, errlen)) != 0) /* COMMIT, or ROLLBACK keeping err */
        return rc;
    if (!j->applied) {
        j->code = LG_ESTATE;
        snprintf(j->msg, sizeof j->msg, "campaign %s is not %s", id,
                 j->op == LG__CTL_REQUEST__OP__OP_RESUME ? "paused" : "active");
    }
    return 0;
}

static int s_work(PGconn *db, void *job, char *err, size_t errlen)
{
    ctl_job_t *j = job;
    if (!j->cid && j->name[0]) {
        const char *p[1] = {j->name};
        PGresult *r = NULL;
        int rc = lg_db_exec(db,
                            "SELECT campaign_id FROM lg.campaign WHERE name = $1"
                            " ORDER BY campaign_id DESC LIMIT 1",
                            1, p, &r, err, errlen);
        if (rc)
            return rc;
        j->cid = lg_db_nrows(r) ? strtoull(s_col(r, "campaign_id"), NULL, 10) : 0;
        lg_db_result_destroy(&r);
        if (!j->cid) {
            j->code = LG_ENOTFOUND;
            snprintf(j->msg, sizeof j->msg, "no campaign named \"%.63s\"", j->name);
            return 0;
        }
    }
    if (j->op == LG__CTL_REQUEST__OP__OP_STATUS || j->op == LG__CTL_REQUEST__OP__OP_FIND)
        return s_status(db, j, err, errlen);
    if (j->op == LG__CTL_REQUEST__OP__OP_RERUN) {
        int rc = lg__attempt_rerun(db, &j->c->claim, j->cid, j->runs, j->nruns, &j->code, j->msg,
                                   sizeof j->msg, err, errlen);
        j->applied = rc == 0 && j->code == 0;
        return rc;
    }
    return s_op(db, j, err, errlen);
}

/* A store job waiting this long: the database is taken for not answering (status says so). */
#define STALLED_MS 3000

/* The reply for a request the database could not answer. */
static void s_unreachable(ctl_job_t *j, const char *why)
{
    j->code = LG_EDB;
    if (j->name[0] && !j->cid)
        snprintf(j->msg, sizeof j->msg,
                 "the database is unreachable (%s), so the state of campaign \"%.63s\" cannot "
                 "be read; the controller keeps what agents send and goes on when it is back",
                 why, j->name);
    else
        snprintf(j->msg, sizeof j->msg, "the database is unreachable: %s", why);
}

static void s_reply(ctl_job_t *j)
{
    lg_ctrl_t *c = j->c;
    Lg__CtlReply rep = LG__CTL_REPLY__INIT;
    Lg__AgentLive *live = NULL, **livep = NULL;
    char current[512] = "";
    rep.code = j->code;
    rep.campaign_id = j->cid;
    if (j->code == 0 &&
        (j->op == LG__CTL_REQUEST__OP__OP_STATUS || j->op == LG__CTL_REQUEST__OP__OP_FIND)) {
        rep.runs_total = j->total;
        rep.runs_done = j->done;
        rep.runs_failed = j->failed;
        rep.remaining_s = j->remaining_s;
        rep.fills_unknown = j->fills_unknown;
        rep.points_failed = j->points_failed;
        if (c->cur.run_id && c->cur.campaign_id == j->cid) {
            lg_strlcpy(current, c->cur.desc, sizeof current);
            rep.current_run = c->cur.run_id;
        }
        lg__sched_live(c, j->cid, &rep, &live, &livep);
    }
    for (size_t i = 0; i < c->nagents; i++)
        rep.agents += !c->agents[i].lost;
    rep.message = j->msg;
    rep.state = j->state;
    rep.name = j->cname;
    rep.current = current;
    Lg__Envelope out = LG__ENVELOPE__INIT;
    out.body_case = LG__ENVELOPE__BODY_CTL_REPLY;
    out.ctl_reply = &rep;
    if (c->zs_ctl)
        lg_zsock_send(c->zs_ctl, j->id, j->idlen, &out);
    free(live);
    free(livep);
}

static void s_job_closed(uv_handle_t *h)
{
    free(h->data);
}

static void s_job_destroy(ctl_job_t **self_p)
{
    ctl_job_t *j = self_p ? *self_p : NULL;
    if (!j)
        return;
    *self_p = NULL;
    if (!j->timer_on) {
        free(j);
        return;
    }
    uv_timer_stop(&j->timer);
    uv_close((uv_handle_t *)&j->timer, s_job_closed);
}

/* "from memory: run 3: ..., 2 agent(s)" when the controller is on a run; "" else */
static void s_memory(lg_ctrl_t *c, char *buf, size_t len)
{
    buf[0] = 0;
    if (c->cur.run_id)
        snprintf(buf, len, "; from memory: %s, %zu agent(s)", c->cur.desc, c->cur.nra);
}

/* The database is slower than STALLED_MS: the status is answered now, from memory. The job's
 * own fields belong to the store's thread until it is done: a copy of the request answers. */
static void s_on_stalled(uv_timer_t *t)
{
    ctl_job_t *j = t->data;
    ctl_job_t *r = calloc(1, sizeof *r);
    if (!r)
        return;
    r->c = j->c;
    memcpy(r->id, j->id, j->idlen);
    r->idlen = j->idlen;
    r->op = j->op;
    lg_strlcpy(r->name, j->name, sizeof r->name);
    char mem[700], why[900];
    s_memory(j->c, mem, sizeof mem);
    snprintf(why, sizeof why,
             "it has not answered for %u s (a statement gives up after %u s, then runs wait "
             "for it)%s",
             STALLED_MS / 1000, lg_db_deadline_ms() / 1000, mem);
    s_unreachable(r, why);
    s_reply(r);
    free(r);
    j->replied = 1;
}

static void s_done(void *arg, void *job, int rc, const char *err)
{
    (void)arg;
    ctl_job_t *j = job;
    lg_ctrl_t *c = j->c;
    if (rc)
        s_unreachable(j, rc == LG_ESTATE ? "the controller is stopping" : err);
    else if (j->applied && !c->stopping)
        lg__sched_campaign_changed(c, j->op, j->cid);
    if (!j->replied)
        s_reply(j);
    s_job_destroy(&j);
}

int lg__ctl_campaign_request(lg_ctrl_t *c, const uint8_t *id, size_t idlen, const Lg__CtlRequest *q)
{
    int op = q->op;
    uint64_t cid = q->campaign_id;
    const char *name = q->name;
    ctl_job_t *j = calloc(1, sizeof *j);
    if (!j)
        return -ENOMEM;
    j->c = c;
    memcpy(j->id, id, idlen);
    j->idlen = idlen;
    j->op = op;
    j->cid = cid;
    lg_strlcpy(j->name, name ? name : "", sizeof j->name);
    for (size_t i = 0; i < q->n_runs && j->nruns < sizeof j->runs / sizeof j->runs[0]; i++)
        j->runs[j->nruns++] = q->runs[i];
    /* While the store waits for the database, say so now rather than after lgctl gave up, with
     * what the controller knows from memory: the run it is on and its agents. */
    uint64_t stalled = lg_store_stalled_ms(c->store);
    if (lg_store_away_since(c->store) || stalled > STALLED_MS) {
        char why[900], mem[700];
        s_memory(c, mem, sizeof mem);
        if (lg_store_away_since(c->store))
            snprintf(why, sizeof why, "runs wait for it%s", mem);
        else
            snprintf(why, sizeof why,
                     "it has not answered for %llu s (a statement gives up after %u s, then runs "
                     "wait for it)%s",
                     (unsigned long long)(stalled / 1000), lg_db_deadline_ms() / 1000, mem);
        s_unreachable(j, why);
        s_reply(j);
        free(j);
        return 0;
    }
    if (lg_store_submit(c->store, s_work, s_done, c, j) != 0) {
        free(j);
        return -ENOMEM;
    }
    if (op == LG__CTL_REQUEST__OP__OP_STATUS || op == LG__CTL_REQUEST__OP__OP_FIND) {
        uv_timer_init(c->loop, &j->timer);
        j->timer.data = j;
        j->timer_on = 1;
        uv_timer_start(&j->timer, s_on_stalled, STALLED_MS, 0);
    }
    return 0;
}

/* OP_AGENTS: the registered agents into rep (arrays owned by the caller: free *infos and *ptrs
 * after sending; the strings are the agents' own). */
static void s_agent_list(lg_ctrl_t *c, Lg__CtlReply *rep, Lg__AgentInfo **infos,
                         Lg__AgentInfo ***ptrs)
{
    if (c->nagents) {
        *infos = calloc(c->nagents, sizeof **infos);
        *ptrs = calloc(c->nagents, sizeof **ptrs);
    }
    for (size_t i = 0; *infos && *ptrs && i < c->nagents; i++) {
        static const char *const names[] = {"unknown", "idle", "preparing", "ready", "running"};
        const lg_agent_conn_t *a = &c->agents[i];
        if (!a->agent_id)
            continue; /* a connection that gave its name to a newer one */
        Lg__AgentInfo *ai = &(*infos)[rep->n_agent_list];
        lg__agent_info__init(ai);
        ai->name = (char *)a->name;
        ai->agent_id = a->agent_id;
        ai->state = (char *)(a->lost                          ? "lost"
                             : a->state >= 0 && a->state <= 4 ? names[a->state]
                                                              : "unknown");
        ai->run_id = a->run_id;
        ai->last_seen_ms = lg_mono_ms() - a->last_seen_ms;
        ai->os = (char *)a->os;
        ai->cpu_model = (char *)a->cpu_model;
        ai->cpu_count = a->cpu_count;
        ai->mem_bytes = a->mem_bytes;
        ai->fio_version = (char *)a->fio_version;
        ai->lg_version = (char *)a->lg_version;
        ai->unacked = a->unacked;
        ai->clock_offset_us = a->clock_offset_us;
        ai->rtt_us = a->rtt_us;
        ai->labels = (char *)a->labels; /* "k=v\n...": lgctl shows it comma-separated */
        (*ptrs)[rep->n_agent_list++] = ai;
    }
    rep->agent_list = *ptrs;
}

/* ---- lgctl's requests on the control socket ----
 * A submission (submit.c) and the campaign requests above are answered once the store is done;
 * the agent list and a shutdown at once. */
void lg__ctl_on_msg(void *arg, const uint8_t *id, size_t idlen, Lg__Envelope *env)
{
    lg_ctrl_t *c = arg;
    Lg__CtlReply rep = LG__CTL_REPLY__INIT;
    char msg[2048] = "", state[32] = "", name[64] = "", current[512] = "";
    Lg__AgentInfo *infos = NULL, **infop = NULL;
    Lg__AgentLive *live = NULL, **livep = NULL;
    int deferred = 0;
    if (env->body_case != LG__ENVELOPE__BODY_CTL_REQUEST) {
        lg__wire_count_malformed();
        lg_zsock_garbage(c->zs_ctl, id, idlen);
        lg_warn("dropped a non-request message on the control socket");
        lg_wire_envelope_destroy(&env);
        return;
    }
    const Lg__CtlRequest *q = env->ctl_request;
    int op = q->op;
    switch (op) {
    case LG__CTL_REQUEST__OP__OP_SUBMIT:
        /* Parsed and stored off the loop; the reply follows from there (submit.c). */
        rep.code = lg__submit_start(c, id, idlen, q->spec_text, q->spec_path, q->submit_id);
        if (rep.code == 0)
            deferred = 1;
        else
            snprintf(msg, sizeof msg, "could not take the submission: %s", lg_strerror(rep.code));
        break;
    case LG__CTL_REQUEST__OP__OP_STATUS:
    case LG__CTL_REQUEST__OP__OP_FIND:
    case LG__CTL_REQUEST__OP__OP_PAUSE:
    case LG__CTL_REQUEST__OP__OP_RESUME:
    case LG__CTL_REQUEST__OP__OP_ABORT:
    case LG__CTL_REQUEST__OP__OP_RERUN:
        /* Read or changed by the store, off the loop; the reply follows from there (above). */
        rep.code = lg__ctl_campaign_request(c, id, idlen, q);
        if (rep.code == 0)
            deferred = 1;
        else
            snprintf(msg, sizeof msg, "could not take the request: %s", lg_strerror(rep.code));
        break;
    case LG__CTL_REQUEST__OP__OP_AGENTS:
        s_agent_list(c, &rep, &infos, &infop);
        break;
    case LG__CTL_REQUEST__OP__OP_CHECK:
        /* Each target from its agents; the reply follows their answers (check.c). */
        rep.code = lg__check_start(c, id, idlen, q->spec_text, q->spec_path, msg, sizeof msg);
        deferred = rep.code == 0;
        break;
    case LG__CTL_REQUEST__OP__OP_SHUTDOWN:
        lg_info("shutdown requested by lgctl");
        lg__ctrl_begin_stop(c);
        break;
    default:
        rep.code = LG_EPROTO;
        snprintf(msg, sizeof msg, "unknown request %d", (int)q->op);
        break;
    }
    for (size_t i = 0; i < c->nagents; i++)
        rep.agents += !c->agents[i].lost;
    rep.message = msg;
    rep.state = state;
    rep.name = name;
    rep.current = current;
    Lg__Envelope out = LG__ENVELOPE__INIT;
    out.body_case = LG__ENVELOPE__BODY_CTL_REPLY;
    out.ctl_reply = &rep;
    if (c->zs_ctl && !deferred)
        lg_zsock_send(c->zs_ctl, id, idlen, &out);
    free(infos);
    free(infop);
    free(live);
    free(livep);
    lg_wire_envelope_destroy(&env);
}
