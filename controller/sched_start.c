/* sched_start.c: a run's start: its agents picked and given their shares, its start stored, then
 * Prepare to each and one Start at an absolute instant once all are ready; and the run a stopped
 * controller left running, taken up at startup. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lg_error.h"
#include "lg_log.h"
#include "lg_util.h"
#include "row.h"
#include "sched_int.h"
#include "sched_jobs.h"

#define START_DELAY_US 250000
#define RUN_GRACE_MS 60000
#define BUSY_WAIT_MS 10000 /* how long a run waits for an agent still busy with an earlier run */
#define APP_STOP_MS 120000 /* an application run's end: its server stopped, its data removed */

typedef struct {
    lg_ctrl_t *c;
    uint64_t run_id;
} started_t;

/* The run's start is committed: now its agents hear of it. */
static void s_started_done(void *arg, void *job, int rc, const char *err)
{
    (void)job;
    started_t *st = arg;
    lg_ctrl_t *c = st->c;
    lg_current_t *cur = &c->cur;
    int current = cur->run_id == st->run_id && cur->phase == PH_PREPARING;
    free(st);
    if (!current || c->stopping)
        return;
    if (rc) {
        lg__sched_fail_run(c, "could not record the run's start: %s",
                           rc == LG_ESTATE ? "stopping" : err);
        return;
    }
    cur->start_committed = 1;
    for (size_t i = 0; i < cur->nra; i++) {
        lg__sched_known_took_part(c, cur->run_id, cur->ra[i].agent_id);
        lg__sched_send_prepare(c, &cur->ra[i]);
    }
}

/* A paced run: the offered IOPS over all agents, split evenly over all their threads (fio paces
 * each job), so an agent with more threads offers more. */
static void s_pace(lg_current_t *cur)
{
    if (!cur->rate_total)
        return;
    uint64_t nthreads = 0;
    for (size_t i = 0; i < cur->nra; i++)
        nthreads += cur->ra[i].threads;
    uint64_t per = nthreads ? (cur->rate_total + nthreads / 2) / nthreads : 0;
    cur->rate_per_thread = per ? (uint32_t)per : 1;
    if (per * nthreads != cur->rate_total)
        lg_info("run %llu: %u IOPS over %llu threads: %u per thread (%llu in all)",
                (unsigned long long)cur->run_id, cur->rate_total, (unsigned long long)nthreads,
                cur->rate_per_thread, (unsigned long long)(cur->rate_per_thread * nthreads));
}

/* One transaction begun (lg__sched_begin; the caller commits it): the campaign (p1: its id) and
 * the run (p2: its id) running, the run's agents recorded. */
static void s_record_start(lg_ctrl_t *c, const char *const *p1, const char *const *p2)
{
    lg_current_t *cur = &c->cur;
    /* One transaction: the campaign and the run running, the run's agents recorded. */
    lg__sched_begin(c, "start run %llu", (unsigned long long)cur->run_id);
    /* (not over a state lgctl set meanwhile on its own connection: aborted, paused) */
    lg__sched_q(
        c, "mark the campaign running",
        "UPDATE lg.campaign SET state = 'running', started_at = coalesce(started_at, now()),"
        " message = CASE WHEN message LIKE 'run % is waiting: %' THEN NULL ELSE message END"
        " WHERE campaign_id = $1 AND state IN ('pending', 'running')",
        1, p1);
    lg__sched_q(c, "mark the run running",
                "UPDATE lg.run SET state = 'running', started_at = now() WHERE run_id = $1", 1, p2);
    /* One statement for all of them: with hundreds of agents, a round trip each would stall
     * the loop. */
    json_t *rows = json_array();
    for (size_t i = 0; i < cur->nra; i++) {
        const lg_run_agent_t *ra = &cur->ra[i];
        json_array_append_new(
            rows, json_pack("{s:I, s:s, s:I, s:I, s:i, s:i}", "agent_id", (json_int_t)ra->agent_id,
                            "target", ra->target ? ra->target : cur->target, "offset_bytes",
                            (json_int_t)ra->offset, "size_bytes", (json_int_t)ra->size, "threads",
                            (int)ra->threads, "qd", (int)ra->qd));
    }
    char *rj = json_dumps(rows, JSON_COMPACT);
    json_decref(rows);
    const char *p3[2] = {p2[0], rj};
    lg__sched_q(
        c, "record the run's agents",
        "INSERT INTO lg.run_agent (run_id, agent_id, state, target, offset_bytes, size_bytes,"
        " threads, qd) SELECT $1, x.agent_id, 'preparing', x.target, x.offset_bytes, x.size_bytes,"
        " x.threads, x.qd FROM jsonb_to_recordset($2::jsonb) AS x(agent_id bigint, target text,"
        " offset_bytes bigint, size_bytes bigint, threads integer, qd integer)"
        " ON CONFLICT DO NOTHING",
        2, p3);
    free(rj);
}

void lg__sched_start_run(lg_ctrl_t *c, uint64_t cid, const lg_row_t *r)
{
    lg_current_t *cur = &c->cur;
    char id[24];
    lg__sched_u64(id, sizeof id, cid);
    const char *p1[1] = {id};
    /* The agents the run names (or all): idle ones only; agents still busy with an earlier
     * run (one that came back after it was lost, say) sit this one out. */
    size_t live[LG_RUN_MAX_AGENTS], nlive;
    uint32_t lthreads[LG_RUN_MAX_AGENTS], lqd[LG_RUN_MAX_AGENTS];
    char why[256] = "";
    nlive = lg__pick_agents(c, lg_row_get(r, "agents"), live, lthreads, lqd, LG_RUN_MAX_AGENTS, why,
                            sizeof why);
    /* Agents to run on, but one the selection takes is still busy: it came back after it was
     * lost and is finishing that run. The run waits for it a while, so that a campaign's runs
     * are of the same agents when they can be, and then goes on without it, saying so. */
    uint64_t now = c->io->now_ms(c);
    if (nlive > 0 && why[0]) {
        uint64_t rid = strtoull(lg_row_get(r, "run_id"), NULL, 10);
        if (!cur->busy_since_ms || cur->busy_run_id != rid) {
            cur->busy_since_ms = now;
            cur->busy_run_id = rid;
        }
        if (now - cur->busy_since_ms >= BUSY_WAIT_MS) {
            lg_warn("run %s goes on without an agent after %d s: %s", lg_row_get(r, "run_id"),
                    BUSY_WAIT_MS / 1000, why);
        } else {
            nlive = 0;
            size_t l = strlen(why);
            snprintf(why + l, sizeof why - l, " (waiting for it up to %d s)", BUSY_WAIT_MS / 1000);
        }
    }
    if (nlive == 0) {
        if (strcmp(cur->waiting_why, why) != 0) {
            lg_info("run %s is waiting: %s", lg_row_get(r, "run_id"), why);
            /* lgctl status says whom it waits for (the message goes when the run starts) */
            char msg[320];
            snprintf(msg, sizeof msg, "run %s is waiting: %s", lg_row_get(r, "run_id"), why);
            const char *pm[2] = {id, msg};
            lg__sched_q(c, "say why the campaign waits",
                        "UPDATE lg.campaign SET message = $2 WHERE campaign_id = $1"
                        " AND state IN ('pending', 'running')"
                        " AND (message IS NULL OR message LIKE 'run % is waiting: %')",
                        2, pm);
        }
        lg_strlcpy(cur->waiting_why, why, sizeof cur->waiting_why);
        cur->next_read_ms = now + 250;
        return;
    }
    cur->busy_since_ms = 0;
    cur->waiting_why[0] = 0;
    lg__sched_cleanup(c);
    lg__sched_load_run(c, r);
    lg_info("%s on %zu agent(s)", cur->desc, nlive);
    char rid[24];
    lg__sched_u64(rid, sizeof rid, cur->run_id);
    const char *p2[1] = {rid};
    cur->nra = 0;
    cur->error[0] = 0;
    cur->finish_when_stored = 0;
    cur->lost[0] = 0;
    cur->aborting = 0;
    cur->ss_reached = 0;
    for (size_t i = 0; i < nlive; i++) {
        lg_run_agent_t *ra = &cur->ra[cur->nra++];
        memset(ra, 0, sizeof *ra);
        ra->conn = (ssize_t)live[i];
        ra->agent_id = c->agents[live[i]].agent_id;
        ra->state = RA_PREPARING;
        ra->threads = lthreads[i] ? lthreads[i] : cur->spec.threads;
        ra->qd = lqd[i] ? lqd[i] : cur->spec.qd;
    }
    s_pace(cur);
    if (lg__share_assign(c, cur->share) != 0) {
        lg_error("could not share the target between the agents: out of memory");
        lg__sched_cleanup(c);
        cur->nra = 0;
        return;
    }
    s_record_start(c, p1, p2);
    cur->phase = PH_PREPARING;
    cur->started_ms = c->io->now_ms(c);
    /* Laying a file out runs at disk speed: allow 20 MB/s plus a minute. */
    cur->deadline_ms = cur->started_ms + lg__sched_prepare_budget_ms(cur);
    /* The agents hear of the run once it is "running" in the database: a controller that dies
     * before that takes it up as pending, never with samples of an attempt it does not know. */
    cur->start_committed = 0;
    started_t *st = malloc(sizeof *st);
    if (st)
        *st = (started_t){c, cur->run_id};
    if (!st || lg__sched_commit_then(c, s_started_done, st) != 0) {
        free(st);
        lg__sched_fail_run(c, "%s", "could not record the run's start: out of memory");
    }
}

/* Sparse {"bucket index": count} back into a dense histogram. */
static void s_hist_from_json(const char *text, lg_dirstats_t *s)
{
    json_error_t je;
    json_t *o = json_loads(text, 0, &je);
    const char *k;
    json_t *v;
    s->has_hist = o != NULL;
    json_object_foreach(o, k, v)
    {
        unsigned long idx = strtoul(k, NULL, 10);
        if (idx < LG_HIST_NR && json_is_integer(v))
            s->hist.bins[idx] = (uint64_t)json_integer_value(v);
    }
    json_decref(o);
}

/* Agents that delivered their result before the stop: their figures, read back (rows of
 * lg.result with hist as text), so that the merge covers them. */
static void s_load_done_results(lg_ctrl_t *c, lg_row_t *const *rows, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const lg_row_t *r = rows[i];
        uint64_t aid = lg_row_u64(r, "agent_id");
        const char *dn = lg_row_get(r, "direction");
        int d = !strcmp(dn, "read")    ? LG_DIR_READ
                : !strcmp(dn, "write") ? LG_DIR_WRITE
                                       : LG_DIR_TRIM;
        for (size_t k = 0; k < c->cur.nra; k++) {
            lg_run_agent_t *ra = &c->cur.ra[k];
            if (ra->agent_id != aid || ra->state != RA_DONE || ra->dir[d])
                continue;
            lg_dirstats_t *s = calloc(1, sizeof *s);
            if (!s)
                continue;
            s->ios = lg_row_u64(r, "ios");
            s->bytes = lg_row_u64(r, "bytes");
            s->runtime_ms = lg_row_u64(r, "runtime_ms");
            s->iops = strtod(lg_row_get(r, "iops"), NULL);
            s->bw_bytes = strtod(lg_row_get(r, "bw_bytes"), NULL);
            s->lat_n = lg_row_u64(r, "lat_n");
            s->lat_min = lg_row_u64(r, "lat_min");
            s->lat_max = lg_row_u64(r, "lat_max");
            s->lat_mean = strtod(lg_row_get(r, "lat_mean"), NULL);
            s->lat_stddev = strtod(lg_row_get(r, "lat_stddev"), NULL);
            s->lat_sum = strtod(lg_row_get(r, "lat_sum"), NULL);
            s->lat_sumsq = strtod(lg_row_get(r, "lat_sumsq"), NULL);
            if (!lg_row_null(r, "hist"))
                s_hist_from_json(lg_row_get(r, "hist"), s);
            ra->dir[d] = s;
        }
    }
}

int lg__sched_take_up(lg_ctrl_t *c, const lg_takeup_t *t)
{
    lg_current_t *cur = &c->cur;
    if (!t->run)
        return 0;
    lg__sched_load_run(c, t->run);
    char rid[24];
    lg__sched_u64(rid, sizeof rid, cur->run_id);
    const char *p[2] = {rid, c->claim.owner};
    /* One run runs at a time; should there be more of ours, the later ones go back to pending. */
    lg__sched_q(c, "reset stray runs",
                "UPDATE lg.run SET state = 'pending', started_at = NULL WHERE state = 'running'"
                " AND run_id <> $1 AND campaign_id IN (SELECT campaign_id FROM lg.campaign"
                " WHERE owner = $2)",
                2, p);
    int running = 0;
    cur->nra = 0;
    for (size_t i = 0; i < t->nagents && cur->nra < LG_RUN_MAX_AGENTS; i++) {
        const lg_row_t *r = t->agents[i];
        lg_run_agent_t *ra = &cur->ra[cur->nra++];
        memset(ra, 0, sizeof *ra);
        ra->conn = -1;
        ra->agent_id = lg_row_u64(r, "agent_id");
        const char *st = lg_row_get(r, "state");
        ra->state = !strcmp(st, "done")      ? RA_DONE
                    : !strcmp(st, "failed")  ? RA_FAILED
                    : !strcmp(st, "running") ? RA_RUNNING
                                             : RA_PREPARING;
        running |= ra->state == RA_RUNNING;
        /* its share and load, as first given */
        if (!lg_row_null(r, "target") && strcmp(lg_row_get(r, "target"), cur->target) != 0)
            ra->target = strdup(lg_row_get(r, "target"));
        ra->offset = lg_row_u64(r, "offset_bytes");
        ra->size = lg_row_u64(r, "size_bytes");
        ra->threads = lg_row_u32(r, "threads");
        ra->qd = lg_row_u32(r, "qd");
    }
    cur->started_ms = c->io->now_ms(c);
    cur->error[0] = 0;
    cur->finish_when_stored = 0;
    cur->lost[0] = 0;
    cur->start_committed = 1; /* it is "running" in the database */
    for (size_t i = 0; i < cur->nra; i++)
        lg__sched_known_took_part(c, cur->run_id, cur->ra[i].agent_id);
    if (running) {
        cur->phase = PH_RUNNING;
        cur->deadline_ms = cur->started_ms + START_DELAY_US / 1000 +
                           (uint64_t)(cur->spec.ramp_s + cur->spec.runtime_s) * 1000 +
                           RUN_GRACE_MS + (cur->spec.app ? APP_STOP_MS : 0);
        lg__sched_steady_rebuild(c, t->samples, t->nsamples);
        if (cur->telemetry && c->io->telem_start)
            c->io->telem_start(c, cur->run_id, cur->telemetry);
    } else {
        cur->phase = PH_PREPARING;
        for (size_t i = 0; i < cur->nra; i++)
            cur->ra[i].state = RA_PREPARING;
        cur->deadline_ms = cur->started_ms + lg__sched_prepare_budget_ms(cur);
    }
    /* Results not yet stored arrive again from the agents' spools. */
    s_load_done_results(c, t->results, t->nresults);
    lg_info("taking up %s where the last controller left it (%s)", cur->desc,
            running ? "running" : "preparing");
    return 0;
}

void lg__sched_on_prepared(lg_ctrl_t *c, size_t conn, const Lg__Prepared *p)
{
    lg_current_t *cur = &c->cur;
    lg_run_agent_t *ra = lg__sched_find_ra(c, conn);
    if (cur->phase != PH_PREPARING || p->run_id != cur->run_id || !ra || ra->state != RA_PREPARING)
        return;
    ra->state = RA_READY;
    if (!lg__sched_all(c, RA_READY, RA_READY))
        return;
    Lg__Start st = LG__START__INIT;
    st.run_id = cur->run_id;
    st.start_at_us = lg_now_us() + START_DELAY_US;
    Lg__Envelope env = LG__ENVELOPE__INIT;
    env.body_case = LG__ENVELOPE__BODY_START;
    env.start = &st;
    for (size_t i = 0; i < cur->nra; i++) {
        cur->ra[i].state = RA_RUNNING;
        lg__sched_send(c, &cur->ra[i], &env);
    }
    char id[24];
    lg__sched_u64(id, sizeof id, cur->run_id);
    const char *p1[1] = {id};
    lg__sched_q(c, "mark the run's agents running",
                "UPDATE lg.run_agent SET state = 'running' WHERE run_id = $1", 1, p1);
    cur->phase = PH_RUNNING;
    /* The NAS's telemetry: a baseline scrape now, fio starts START_DELAY_US later */
    if (cur->telemetry && c->io->telem_start)
        c->io->telem_start(c, cur->run_id, cur->telemetry);
    cur->started_ms = c->io->now_ms(c) + START_DELAY_US / 1000;
    cur->deadline_ms = c->io->now_ms(c) + START_DELAY_US / 1000 +
                       (uint64_t)(cur->spec.ramp_s + cur->spec.runtime_s) * 1000 + RUN_GRACE_MS +
                       (cur->spec.app ? APP_STOP_MS : 0);
}
