/* sched_finish.c: the end of a run: results merged over its agents and stored with its state in
 * one transaction (a search's next step, a curve's rates, the agent-loss policy with them); a
 * failed run stopped on its agents first; a run whose results are in ends once its samples are
 * stored too. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attempt.h"
#include "lg_error.h"
#include "lg_esc.h"
#include "lg_log.h"
#include "lg_spec.h"
#include "lg_steady.h"
#include "sched_int.h"
#include "sched_jobs.h"

#define STOP_GRACE_MS 30000

static void s_result_step_free(void *data)
{
    result_step_t *r = data;
    free(r->s);
    free(r);
}

/* Store one result row (agent_id 0: the merged row, agent_id NULL) with the state change in
 * progress (lg__sched_begin). Takes s. */
static int s_store_result(lg_ctrl_t *c, uint64_t run_id, uint64_t agent_id, lg_dir_t d,
                          lg_dirstats_t *s)
{
    result_step_t *r = calloc(1, sizeof *r);
    if (r)
        *r = (result_step_t){run_id, agent_id, d, s};
    if (!r || lg__sched_step(c, lg__sched_result_step, r, s_result_step_free) != 0) {
        free(r);
        free(s);
        lg_error("could not store a result of run %llu: out of memory", (unsigned long long)run_id);
        return -ENOMEM;
    }
    return 0;
}

/* Merge over agents that delivered a result: sums add, pooled mean and stddev, summed histograms
 * (lg_dirstats_merge). One row per direction any agent measured, into merged and mdir; returns
 * how many (the caller owns them). */
static size_t s_merge(const lg_current_t *cur, lg_dirstats_t *merged[LG_DIR_NR],
                      lg_dir_t mdir[LG_DIR_NR])
{
    size_t nmerged = 0;
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
        mdir[nmerged] = (lg_dir_t)d;
        merged[nmerged++] = m;
    }
    return nmerged;
}

/* The run's row: its state, error and, for a steady-state run, how its rounds went. */
static void s_store_run_state(lg_ctrl_t *c, const char *id, const char *state, const char *failed)
{
    lg_current_t *cur = &c->cur;
    char *ss = NULL;
    const char *reached = NULL;
    char rounds[16] = "";
    if (cur->run_phase == LG_PHASE_STEADY) {
        lg_steady_t w;
        lg_steady_judge(cur->rounds, cur->nrounds, &w);
        lg__sched_steady_json(c, &w, &ss);
        reached = cur->ss_reached ? "t" : "f";
        snprintf(rounds, sizeof rounds, "%zu", cur->nrounds);
        lg_info("run %llu: steady state %s after %zu rounds of %us",
                (unsigned long long)cur->run_id, cur->ss_reached ? "reached" : "NOT reached",
                cur->nrounds, cur->round_s);
    }
    const char *p[6] = {id, state, failed, reached, reached ? rounds : NULL, ss};
    /* start_skew_us: the spread of the agents' start instants, in one (controller) clock: when
     * the held fio woke, or for a run behind the start gate (lgsmb, lgiscsi: logins at Prepare)
     * its jobs' first I/O (agent_gate.c). Not the measured windows' starts (029_io_window):
     * those come from fio's reports, to a few ms. qd_*: the depth that ran, over the agents'
     * results stored before this (021_qd_achieved). */
    lg__sched_q(
        c, "finish a run",
        "UPDATE lg.run SET state = $2, error = $3, finished_at = now(), ss_reached = $4,"
        " ss_rounds = $5, ss_window = $6::jsonb,"
        " start_skew_us = (SELECT max(started_us) - min(started_us) FROM lg.run_agent"
        "   WHERE run_id = $1),"
        " (qd_achieved, qd_inflight) = (SELECT q.qd_achieved, q.qd_inflight FROM lg.run_qd($1) q)"
        " WHERE run_id = $1",
        6, p);
    free(ss);
}

/* A search probe: the next step in the same transaction (sched_sql.c). Takes ss_step (NULL: out
 * of memory). */
static void s_search_next(lg_ctrl_t *c, search_step_t *ss_step, const char *state)
{
    lg_current_t *cur = &c->cur;
    if (ss_step) {
        /* Only a whole probe counts: one that failed, was stopped or lost an agent measured
         * less load than it was meant to, and ends the search (failed) */
        if (strcmp(state, "done") != 0)
            ss_step->ok = 0;
        ss_step->run_id = cur->run_id;
        ss_step->search_id = cur->search_id;
        if (lg__sched_step(c, lg__sched_search_step, ss_step, free) != 0)
            free(ss_step);
    } else {
        lg_error("run %llu: could not take the search's next step: out of memory",
                 (unsigned long long)cur->run_id);
    }
}

/* The base of a curve: its runs get their rates (a share of its IOPS), or are skipped. */
static void s_curve_rates(lg_ctrl_t *c, const char *id)
{
    lg_current_t *cur = &c->cur;
    char cid[24], ord[16];
    lg__sched_u64(cid, sizeof cid, cur->campaign_id);
    snprintf(ord, sizeof ord, "%u", cur->ordinal);
    const char *pb[3] = {id, cid, ord};
    lg__sched_q(
        c, "set the curve's rates",
        "UPDATE lg.run c SET rate_total = greatest(1, round(c.curve_pct * b.iops / 100))::integer"
        " FROM (SELECT sum(x.iops) AS iops FROM lg.result x WHERE x.run_id = $1"
        " AND x.agent_id IS NULL) b WHERE c.campaign_id = $2 AND c.curve_base = $3"
        " AND c.state = 'pending' AND b.iops > 0",
        3, pb);
    lg__sched_q(
        c, "skip a curve without its base",
        "UPDATE lg.run SET state = 'skipped', error = 'no curve: its base run ' || $1"
        " || ' gave no IOPS' WHERE campaign_id = $2 AND curve_base = $3 AND state = 'pending'"
        " AND rate_total = 0",
        3, pb);
}

/* A run that lost an agent ("partial"): a campaign with on_agent_loss: stop ends here. */
static void s_agent_loss_policy(lg_ctrl_t *c)
{
    lg_current_t *cur = &c->cur;
    char cid[24];
    lg__sched_u64(cid, sizeof cid, cur->campaign_id);
    char msg[700];
    snprintf(msg, sizeof msg, "stopped after run %llu: %s (on_agent_loss: stop)",
             (unsigned long long)cur->run_id, cur->lost);
    const char *pc[2] = {cid, msg};
    lg__sched_q(c, "apply the agent-loss policy",
                "UPDATE lg.campaign SET state = 'failed', message = $2, finished_at = now()"
                " WHERE campaign_id = $1 AND on_agent_loss = 'stop'"
                " AND state IN ('pending', 'running', 'paused')",
                2, pc);
    lg__sched_q(c, "apply the agent-loss policy",
                "UPDATE lg.run SET state = 'aborted' WHERE campaign_id = $1 AND state = 'pending'"
                " AND EXISTS (SELECT 1 FROM lg.campaign WHERE campaign_id = $1"
                " AND on_agent_loss = 'stop')",
                1, pc);
}

/* Pause before a retry: a cause that may pass (a server busy, an agent restarting) gets time. */
#define RETRY_PAUSE_MS 5000

/* A failed run whose cause may pass, with retries left: a new attempt at its point, made in the
 * transaction that ends this one (attempt.c). A search's probes are never retried (the search
 * takes its next step on each). 1 when one was queued. */
static int s_retry(lg_ctrl_t *c, const char *state)
{
    lg_current_t *cur = &c->cur;
    if (strcmp(state, "failed") != 0 || !cur->transient || cur->attempt > cur->retries ||
        (cur->search_id && cur->probe))
        return 0;
    retry_step_t *s = calloc(1, sizeof *s);
    if (s)
        *s = (retry_step_t){cur->run_id, &c->claim};
    if (!s || lg__sched_step(c, lg__attempt_retry_step, s, free) != 0) {
        free(s);
        return 0;
    }
    lg_warn("run %llu: attempt %u of %u failed for a reason that may pass; its point runs again "
            "in %d s",
            (unsigned long long)cur->run_id, cur->attempt, cur->retries + 1, RETRY_PAUSE_MS / 1000);
    cur->next_read_ms = c->io->now_ms(c) + RETRY_PAUSE_MS;
    return 1;
}

/* A newer attempt at a point that gave figures: the older ones that did are superseded (only
 * the newest done attempt counts: 030_attempts). */
static void s_supersede(lg_ctrl_t *c, const char *id)
{
    const char *p[1] = {id};
    lg__sched_q(c, "supersede older attempts",
                "UPDATE lg.run o SET state = 'superseded' FROM lg.run n WHERE n.run_id = $1"
                " AND o.run_id <> n.run_id AND o.state IN ('done', 'partial')"
                " AND coalesce(o.first_run, o.run_id) = coalesce(n.first_run, n.run_id)",
                1, p);
}

void lg__sched_finish_run(lg_ctrl_t *c, const char *error)
{
    lg_current_t *cur = &c->cur;
    char id[24];
    lg__sched_u64(id, sizeof id, cur->run_id);
    size_t ndone = 0;
    for (size_t i = 0; i < cur->nra; i++)
        ndone += cur->ra[i].state == RA_DONE;
    /* One transaction: the merged rows, the run's state, the campaign's when the policy stops
     * it. */
    lg__sched_begin(c, "finish run %llu", (unsigned long long)cur->run_id);
    lg_dirstats_t *merged[LG_DIR_NR];
    lg_dir_t mdir[LG_DIR_NR];
    int probe = cur->search_id && cur->probe;
    search_step_t *ss_step = probe ? calloc(1, sizeof *ss_step) : NULL;
    size_t nmerged = ndone ? s_merge(cur, merged, mdir) : 0;
    /* A probe's figure is of all its I/Os: the directions' merged rows merged once more. */
    if (ss_step && nmerged) {
        ss_step->ok = 1;
        lg_dirstats_merge(&ss_step->all, (const lg_dirstats_t *const *)merged, nmerged);
    }
    for (size_t i = 0; i < nmerged; i++)
        s_store_result(c, cur->run_id, 0, mdir[i], merged[i]);
    char none[700]; /* no result: which agents were lost, and when */
    snprintf(none, sizeof none, "no agent delivered a result%s%s%s", cur->lost[0] ? " (" : "",
             cur->lost, cur->lost[0] ? ")" : "");
    const char *failed = error ? error : (ndone == 0 ? none : NULL);
    const char *state = cur->aborting  ? "aborted"
                        : failed       ? "failed"
                        : cur->lost[0] ? "partial"
                                       : "done";
    if (!failed && cur->lost[0])
        failed = cur->lost; /* recorded as the run's error: which agent, and when */
    s_store_run_state(c, id, state, failed);
    if (probe)
        s_search_next(c, ss_step, state);
    int retried = s_retry(c, state);
    if (cur->curve_base_of && !retried) /* its curve waits for the retry's IOPS */
        s_curve_rates(c, id);
    if (cur->attempt > 1 && (!strcmp(state, "done") || !strcmp(state, "partial")))
        s_supersede(c, id);
    if (failed)
        lg_error("run %llu %s: %s", (unsigned long long)cur->run_id, state, failed);
    else
        lg_info("run %llu done", (unsigned long long)cur->run_id);
    if (!strcmp(state, "partial"))
        s_agent_loss_policy(c);
    lg__sched_commit(c);
    if (cur->telemetry && c->io->telem_stop)
        c->io->telem_stop(c, cur->run_id); /* one last scrape of each source */
    cur->lost[0] = 0;
    lg__sched_cleanup(c);
    cur->phase = PH_IDLE;
    cur->run_id = 0;
    cur->aborting = 0;
}

static void s_fail(lg_ctrl_t *c, const char *fmt, const char *detail, int transient)
{
    lg_current_t *cur = &c->cur;
    if (!cur->error[0]) {
        snprintf(cur->error, sizeof cur->error, fmt, detail);
        lg_utf8_cut(cur->error, sizeof cur->error); /* an agent's text: never half a character */
        cur->transient = transient;                 /* the first cause decides */
    }
    int waiting = 0;
    for (size_t i = 0; i < cur->nra; i++) {
        lg_run_agent_t *ra = &cur->ra[i];
        if (ra->state == RA_DONE || ra->state == RA_FAILED)
            continue;
        lg__sched_send_stop(c, ra);
        /* An agent that is running fio reports what it measured before it stopped. */
        if (ra->state == RA_RUNNING && ra->conn >= 0 && !c->agents[ra->conn].lost)
            waiting = 1;
        else
            ra->state = RA_FAILED;
    }
    if (waiting && cur->phase != PH_STOPPING) {
        cur->phase = PH_STOPPING;
        cur->deadline_ms = c->io->now_ms(c) + STOP_GRACE_MS;
        return;
    }
    if (lg__sched_all(c, RA_DONE, RA_FAILED))
        lg__sched_finish_run(c, cur->error);
}

void lg__sched_fail_run(lg_ctrl_t *c, const char *fmt, const char *detail)
{
    s_fail(c, fmt, detail, 0);
}

void lg__sched_fail_transient(lg_ctrl_t *c, const char *fmt, const char *detail)
{
    s_fail(c, fmt, detail, 1);
}

/* ---- the end of a run: every sample stored ----
 * An agent's samples can reach the database after its RunResult: the writer's batches and the
 * store are separate connections, and a sample lost in flight (a controller restart) comes again
 * only when the agent resends what has no acknowledgement. So once every result is in, the run
 * waits until each agent's stored samples number what its result says it sent, counted off the
 * loop; after STORED_WAIT_MS it ends anyway and says what is missing. */
#define STORED_WAIT_MS 30000
#define COUNT_EVERY_MS 500

static void s_count_done(void *arg, void *job, int rc, const char *err)
{
    lg_ctrl_t *c = arg;
    count_job_t *j = job;
    lg_current_t *cur = &c->cur;
    cur->counting = 0;
    if (rc || cur->phase == PH_IDLE || cur->run_id != j->run_id || !cur->finish_when_stored) {
        if (rc && rc != LG_ESTATE)
            lg_warn("could not count the stored samples of run %llu: %s",
                    (unsigned long long)j->run_id, err);
        free(j);
        return; /* the tick asks again */
    }
    int short_ = 0, late = c->io->now_ms(c) - cur->stored_since_ms >= STORED_WAIT_MS;
    for (size_t i = 0; i < cur->nra; i++) {
        lg_run_agent_t *ra = &cur->ra[i];
        if (ra->state != RA_DONE || ra->lost || !ra->want_samples)
            continue;
        uint64_t got = 0;
        for (size_t k = 0; k < j->n; k++)
            if (j->agent_id[k] == ra->agent_id)
                got = j->stored[k];
        if (got >= ra->want_samples)
            continue;
        short_ = 1;
        if (late)
            lg_warn("run %llu: \"%s\" sent %llu samples, %llu are stored after %d s; the run "
                    "ends without the rest",
                    (unsigned long long)cur->run_id, lg__sched_ra_name(c, ra),
                    (unsigned long long)ra->want_samples, (unsigned long long)got,
                    STORED_WAIT_MS / 1000);
    }
    free(j);
    if (short_ && !late)
        return;
    cur->finish_when_stored = 0;
    lg__sched_finish_run(c, cur->error[0] ? cur->error : NULL);
}

void lg__sched_check_stored(lg_ctrl_t *c)
{
    lg_current_t *cur = &c->cur;
    uint64_t now = c->io->now_ms(c);
    if (c->io->writer_spooled && c->io->writer_spooled(c) > 0)
        cur->stored_since_ms = now; /* the wait starts once the spool is written */
    if (cur->counting || now < cur->count_next_ms || c->io->writer_pending(c) > 0)
        return;
    count_job_t *j = calloc(1, sizeof *j);
    if (!j)
        return;
    j->run_id = cur->run_id;
    if (c->io->submit(c, lg__sched_count_work, s_count_done, j) != 0) {
        free(j);
        return;
    }
    cur->counting = 1;
    cur->count_next_ms = now + COUNT_EVERY_MS;
}
