/* sched.c: the campaign scheduler's tick. Campaigns run in order, runs in ordinal order, all
 * taken from the database, so the schedule survives a controller restart: a run left running is
 * taken up again (its agents resend what was not committed), and a completed run is never
 * repeated. One run at a time. Here: the tick (deadlines, lost agents, the database away), the
 * read of what runs next and what it finds (a run, a gate, a reduction probe), agents coming and
 * going, lgctl's changes and live figures. The run's start, its results and its end are in
 * sched_start.c, sched_result.c and sched_finish.c (sched_int.h says how the files stack). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lg_error.h"
#include "lg_log.h"
#include "lg_spec.h"
#include "row.h"
#include "sched_int.h"
#include "sched_jobs.h"

void lg__sched_renew_lease(lg_ctrl_t *c)
{
    char secs[16];
    snprintf(secs, sizeof secs, "%d", LG_LEASE_S);
    const char *p[3] = {c->claim.owner, c->claim.instance, secs};
    lg__sched_q(c, "renew the campaigns' lease",
                "UPDATE lg.campaign SET lease_until = now() + make_interval(secs => $3::integer)"
                " WHERE owner = $1 AND lease_holder = $2 AND state IN ('pending', 'running',"
                " 'paused')",
                3, p);
}

/* ---- what runs next: read off the loop (the store), acted on by the loop ----
 * The read runs in the store's order, so it sees every state change queued before it. What it
 * finds: nothing to do, a campaign it paused or ended just now (it writes that itself), a gate
 * before a config, or the next run's row. */

static void s_next_done(void *arg, void *job, int rc, const char *err)
{
    lg_ctrl_t *c = arg;
    next_job_t *j = job;
    lg_current_t *cur = &c->cur;
    cur->reading = 0;
    if (rc) {
        if (rc != LG_ESTATE && rc != LG_EDB)
            lg_error("could not read the schedule: %s", err);
        cur->next_read_ms = c->io->now_ms(c) + 1000;
    } else if (c->stopping || cur->phase != PH_IDLE) {
        /* the world moved on meanwhile (a run taken up): read again when idle */
    } else {
        switch (j->kind) {
        case NX_NOTHING:
        case NX_REFUSED:
            cur->next_read_ms = c->io->now_ms(c) + 250;
            break;
        case NX_PAUSED:
            lg_info("campaign %llu \"%s\" paused", (unsigned long long)j->cid, j->name);
            break;
        case NX_ENDED:
            lg_info("campaign %llu \"%s\" %s", (unsigned long long)j->cid, j->name,
                    !strcmp(j->state, "failed") ? "failed: every run failed" : "done");
            break;
        case NX_GATE:
            if (j->resumed)
                lg__sched_gate_resumed(c, j->cid, j->name, j->ordinal, j->cfgord, j->labels,
                                       lg__sched_tick);
            else
                lg__sched_gate(c, j->cid, j->name, j->between, j->ordinal, j->cfgord, j->labels,
                               j->after, lg__sched_tick);
            break;
        case NX_RUN:
            lg__sched_start_run(c, j->cid, j->run);
            break;
        case NX_REDUCE: {
            char *env[80];
            char buf[80][320];
            lg__sched_config_env(j->name, j->cfgord, j->labels, j->after, env, buf);
            lg__sched_reduce(c, j, env, lg__sched_tick);
            break;
        }
        }
    }
    lg_row_destroy(&j->run);
    free(j);
}

static void s_start_next(lg_ctrl_t *c)
{
    lg_current_t *cur = &c->cur;
    if (cur->reading || c->io->now_ms(c) < cur->next_read_ms)
        return;
    next_job_t *j = calloc(1, sizeof *j);
    if (!j)
        return;
    j->claim = &c->claim;
    if (c->io->submit(c, lg__sched_next_work, s_next_done, j) != 0) {
        free(j);
        return;
    }
    cur->reading = 1;
}

/* The run goes on without ra's agent (or fails, before it started). 1 when that ended the run. */
static int s_ra_lost(lg_ctrl_t *c, lg_run_agent_t *ra)
{
    lg_current_t *cur = &c->cur;
    ra->state = RA_FAILED;
    ra->lost = 1;
    if (cur->phase != PH_RUNNING) {
        lg__sched_fail_transient(c, "agent \"%s\" was lost during the run",
                                 lg__sched_ra_name(c, ra));
        return 1;
    }
    if (!cur->error[0])
        cur->transient = 1; /* the run fails of it when no other agent gives a result */
    /* The others go on; what the lost one sent stays, and what it still holds arrives if
     * it comes back. */
    char when[64], aid[24], rid[24];
    time_t t = time(NULL);
    strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S UTC", gmtime(&t));
    size_t l = strlen(cur->lost);
    snprintf(cur->lost + l, sizeof cur->lost - l, "%sagent \"%s\" lost at %s", l ? "; " : "",
             lg__sched_ra_name(c, ra), when);
    lg_warn("run %llu goes on without agent \"%s\"", (unsigned long long)cur->run_id,
            lg__sched_ra_name(c, ra));
    lg__sched_u64(aid, sizeof aid, ra->agent_id);
    lg__sched_u64(rid, sizeof rid, cur->run_id);
    const char *p[2] = {rid, aid};
    lg__sched_q(c, "record a lost agent",
                "UPDATE lg.run_agent SET state = 'lost', lost_at = now() WHERE run_id = $1"
                " AND agent_id = $2",
                2, p);
    if (lg__sched_all(c, RA_DONE, RA_FAILED)) {
        lg__sched_finish_run(c, NULL);
        return 1;
    }
    return 0;
}

void lg__sched_on_replaced(lg_ctrl_t *c, size_t conn)
{
    lg_current_t *cur = &c->cur;
    lg_run_agent_t *ra =
        cur->phase == PH_IDLE || cur->phase == PH_HOOK ? NULL : lg__sched_find_ra(c, conn);
    if (ra && ra->state != RA_DONE && ra->state != RA_FAILED)
        s_ra_lost(c, ra);
}

void lg__sched_on_agent(lg_ctrl_t *c, size_t conn)
{
    lg_current_t *cur = &c->cur;
    lg_run_agent_t *ra = cur->phase == PH_IDLE ? NULL : lg__sched_find_ra(c, conn);
    if (!ra)
        return;
    ra->conn = (ssize_t)conn;
    if (cur->phase == PH_PREPARING && ra->state == RA_PREPARING && cur->start_committed)
        lg__sched_send_prepare(c, ra);
}

static void s_probe_done(void *arg, void *job, int rc, const char *err)
{
    (void)arg, (void)job, (void)rc, (void)err; /* the store keeps track (lg_store_away_since) */
}

void lg__sched_tick(lg_ctrl_t *c)
{
    lg_current_t *cur = &c->cur;
    if (c->stopping)
        return;
    /* While the database is away nothing can be stored, so no deadline runs: a run whose agents
     * finished meanwhile ends "done" once their samples and results are in, not "failed". */
    uint64_t now0 = c->io->now_ms(c);
    if (c->io->store_away_since(c) || c->io->writer_failing(c)) {
        if (!c->store_away_ms) {
            c->store_away_ms = now0;
            lg_warn("the database is unreachable: runs wait for it (their deadlines stop)");
        }
        /* The store learns that it is back from its next job: one a second when it has none. */
        if (c->io->store_away_since(c) && c->io->store_pending(c) == 0 &&
            now0 >= c->probe_next_ms) {
            c->probe_next_ms = now0 + 1000;
            c->io->submit(c, lg__sched_probe_work, s_probe_done, NULL);
        }
        return;
    }
    if (c->store_away_ms) {
        uint64_t away = now0 - c->store_away_ms;
        c->store_away_ms = 0;
        if (cur->phase != PH_IDLE && cur->deadline_ms)
            cur->deadline_ms += away;
        lg_info("the database is back after %.1f s%s", away / 1000.0,
                cur->phase != PH_IDLE ? "; the current run's deadline moves by as much" : "");
    }
    if (cur->phase == PH_IDLE) {
        s_start_next(c);
        return;
    }
    if (cur->phase == PH_HOOK)
        return;
    if (cur->finish_when_stored) {
        lg__sched_check_stored(c);
        return;
    }
    uint64_t now = c->io->now_ms(c);
    uint32_t timeout = c->cfg->agent_timeout_ms ? c->cfg->agent_timeout_ms : 10000;
    for (size_t i = 0; i < cur->nra; i++) {
        lg_run_agent_t *ra = &cur->ra[i];
        if (ra->state == RA_DONE || ra->state == RA_FAILED)
            continue;
        int gone = ra->conn >= 0 ? c->agents[ra->conn].lost : now - cur->started_ms > timeout;
        if (gone && s_ra_lost(c, ra))
            return;
    }
    if (now < cur->deadline_ms)
        return;
    switch (cur->phase) {
    case PH_PREPARING:
        lg__sched_fail_transient(c, "%s", "agents did not finish preparing in time");
        break;
    case PH_RUNNING:
        lg__sched_fail_run(c, "%s", "the run did not finish in time (ramp + runtime + 60 s)");
        break;
    case PH_STOPPING:
        for (size_t i = 0; i < cur->nra; i++)
            if (cur->ra[i].state != RA_DONE)
                cur->ra[i].state = RA_FAILED;
        lg__sched_finish_run(c, cur->error);
        break;
    default:
        break;
    }
}

/* The current run's length for lgctl watch: ramp + runtime; a fill's as far as its samples tell
 * (lg_plan_fill_s). */
static uint32_t s_run_total_s(const lg_current_t *cur, int *unknown)
{
    uint32_t max = cur->spec.ramp_s + cur->spec.runtime_s;
    *unknown = 0;
    if (cur->run_phase != LG_PHASE_FILL || !cur->nra)
        return max;
    uint64_t size[LG_RUN_MAX_AGENTS], bytes[LG_RUN_MAX_AGENTS], ms[LG_RUN_MAX_AGENTS];
    for (size_t i = 0; i < cur->nra; i++) {
        size[i] = cur->ra[i].size ? cur->ra[i].size : cur->spec.size;
        bytes[i] = cur->ra[i].live_bytes;
        ms[i] = cur->ra[i].live_ms;
    }
    for (size_t i = 0; i < cur->nra; i++)
        *unknown |= !bytes[i] || !ms[i];
    return lg_plan_fill_s(cur->spec.ramp_s, max, size, bytes, ms, cur->nra);
}

void lg__sched_live(lg_ctrl_t *c, uint64_t campaign_id, Lg__CtlReply *rep, Lg__AgentLive **infos,
                    Lg__AgentLive ***ptrs)
{
    lg_current_t *cur = &c->cur;
    if (cur->phase == PH_IDLE || cur->campaign_id != campaign_id || cur->nra == 0)
        return;
    int unknown = 0;
    rep->run_total_s = s_run_total_s(cur, &unknown);
    rep->run_length_unknown = unknown != 0;
    rep->run_ramp_s = cur->spec.ramp_s;
    rep->rate_unit = cur->spec.app ? "TPS" : "IOPS";
    if (cur->phase == PH_RUNNING || cur->phase == PH_STOPPING) {
        /* from when the run was taken on: its preparation too, so at most its length (and never
         * below 0: the loop's clock can lag the instant the run was taken on) */
        uint64_t now = c->io->now_ms(c);
        uint64_t el = now > cur->started_ms ? (now - cur->started_ms) / 1000 : 0;
        rep->run_elapsed_s = el < rep->run_total_s ? (uint32_t)el : rep->run_total_s;
    }
    *infos = calloc(cur->nra, sizeof **infos);
    *ptrs = calloc(cur->nra, sizeof **ptrs);
    if (!*infos || !*ptrs)
        return;
    for (size_t i = 0; i < cur->nra; i++) {
        Lg__AgentLive *l = &(*infos)[i];
        lg__agent_live__init(l);
        l->name = (char *)lg__sched_ra_name(c, &cur->ra[i]);
        l->iops = cur->ra[i].live_iops;
        l->mbps = cur->ra[i].live_mbps;
        l->lat_avg_ms = cur->ra[i].live_lat_ms;
        l->seq = cur->ra[i].live_seq;
        (*ptrs)[i] = l;
    }
    rep->n_live = cur->nra;
    rep->live = *ptrs;
}

void lg__sched_campaign_changed(lg_ctrl_t *c, int op, uint64_t campaign_id)
{
    lg_current_t *cur = &c->cur;
    if (op == LG__CTL_REQUEST__OP__OP_ABORT && cur->campaign_id == campaign_id &&
        (cur->phase == PH_PREPARING || cur->phase == PH_RUNNING)) {
        cur->aborting = 1;
        lg__sched_fail_run(c, "%s", "aborted by lgctl abort");
    }
    lg_info("campaign %llu: %s", (unsigned long long)campaign_id,
            op == LG__CTL_REQUEST__OP__OP_PAUSE    ? "pause requested"
            : op == LG__CTL_REQUEST__OP__OP_RESUME ? "resumed"
            : op == LG__CTL_REQUEST__OP__OP_RERUN  ? "points to run again (lgctl rerun)"
                                                   : "aborted");
    lg__sched_tick(c);
}
