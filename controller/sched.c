/* sched.c: the campaign scheduler. Campaigns run in order, runs in ordinal order, all taken from
 * the database, so the schedule survives a controller restart: a run left running is taken up
 * again (its agents resend what was not committed), and a completed run is never repeated.
 * One run at a time: Prepare on every agent, one Start at an absolute instant, results stored per
 * agent and merged. Steady-state preconditioning is judged here, round by round, from samples.
 * Between SUT configs a gate waits for "lgctl resume" or runs the controller's hook. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ctrl.h"
#include "row.h"
#include "sched_jobs.h"
#include "store.h"
#include "hook.h"
#include "lg_scrape.h"
#include "lg_esc.h"
#include "lg_error.h"
#include "lg_log.h"
#include "lg_spec.h"
#include "lg_steady.h"
#include "lg_util.h"

#define START_DELAY_US 250000
#define RUN_GRACE_MS 60000
#define STOP_GRACE_MS 30000
#define APP_STOP_MS 120000 /* an application run's end: its server stopped, its data removed */

/* The columns s_load_run reads (by name). */

/* State changes go to the store (store.h): off the loop, in order, retried while the database
 * is away, one transaction each. Between s_begin and s_commit every s_q and s_store_result joins
 * one transaction (a run's end: merged results, its state, the campaign's); outside, an s_q is a
 * transaction of its own. The loop moves on at once: what it holds in memory is the truth, and
 * the database follows in the same order. */
static lg_tx_t *s_group;

static void s_begin(lg_ctrl_t *c, const char *fmt, unsigned long long id)
{
    (void)c;
    char what[160];
    snprintf(what, sizeof what, fmt, id);
    s_group = lg_tx_new(what);
    if (!s_group)
        lg_error("could not %s: out of memory", what);
}

/* done, if given, runs once the transaction committed (or was refused: rc) */
static int s_commit_then(lg_ctrl_t *c, lg_store_done_fn done, void *arg)
{
    lg_tx_t *t = s_group;
    s_group = NULL;
    return t ? c->io->tx(c, t, done, arg) : -ENOMEM;
}

static void s_commit(lg_ctrl_t *c) { s_commit_then(c, NULL, NULL); }


static int s_q(lg_ctrl_t *c, const char *what, const char *sql, int n, const char *const *p)
{
    return lg__sched_q(c, what, sql, n, p);
}

int lg__sched_q(lg_ctrl_t *c, const char *what, const char *sql, int n, const char *const *p)
{
    if (s_group) {
        lg_tx_sql(s_group, sql, n, p);
        return 0;
    }
    lg_tx_t *t = lg_tx_new(what);
    if (!t) {
        lg_error("could not %s: out of memory", what);
        return -ENOMEM;
    }
    lg_tx_sql(t, sql, n, p);
    return c->io->tx(c, t, NULL, NULL);
}

static void s_u64(char *buf, size_t len, uint64_t v)
{
    snprintf(buf, len, "%llu", (unsigned long long)v);
}

/* A column of a result row, by name (never by position): "" when the result has none. */
/* ---- which agent took part in which run: what late samples and results may be stored ----
 * A ring of (run, agent) pairs, filled as runs start and by checks the store makes off the loop
 * for pairs it has not seen (a sample resent long after its run). */
#define KNOWN_MAX 4096

typedef struct known_s {
    uint64_t run_id, agent_id;
    int ok; /* 1 took part, 0 did not, -1 being checked */
} known_t;

static known_t *s_known_find(lg_ctrl_t *c, uint64_t run_id, uint64_t agent_id)
{
    for (size_t i = 0; c->known && i < KNOWN_MAX; i++)
        if (c->known[i].run_id == run_id && c->known[i].agent_id == agent_id)
            return &c->known[i];
    return NULL;
}

static known_t *s_known_add(lg_ctrl_t *c, uint64_t run_id, uint64_t agent_id, int ok)
{
    known_t *k = s_known_find(c, run_id, agent_id);
    if (!k) {
        if (!c->known && !(c->known = calloc(KNOWN_MAX, sizeof *c->known)))
            return NULL;
        k = &c->known[c->known_next];
        c->known_next = (c->known_next + 1) % KNOWN_MAX;
    }
    *k = (known_t){run_id, agent_id, ok};
    return k;
}



static void s_known_done(void *arg, void *job, int rc, const char *err)
{
    (void)arg, (void)err;
    known_job_t *j = job;
    known_t *k = s_known_find(j->c, j->run_id, j->agent_id);
    if (k && k->ok == -1) {
        if (rc)
            k->run_id = k->agent_id = 0; /* asked again by the next resend */
        else
            k->ok = j->found;
        if (!rc && !j->found) { /* said once here: its samples are not stored */
            const char *name = "?";
            for (size_t i = 0; i < j->c->nagents; i++)
                if (j->c->agents[i].agent_id == j->agent_id)
                    name = j->c->agents[i].name;
            lg_warn("dropped a sample of unknown run %llu from \"%s\": it took no part in it",
                    (unsigned long long)j->run_id, name);
        }
    }
    free(j);
}


/* ---- the current run ---- */

static void s_free_ra(lg_run_agent_t *ra)
{
    for (int d = 0; d < LG_DIR_NR; d++) {
        free(ra->dir[d]);
        ra->dir[d] = NULL;
    }
    free(ra->round_ios);
    ra->round_ios = NULL;
    ra->nround = 0;
    free(ra->target);
    ra->target = NULL;
}

void lg__sched_cleanup(lg_ctrl_t *c)
{
    for (size_t i = 0; i < c->cur.nra; i++)
        s_free_ra(&c->cur.ra[i]);
    c->cur.nra = 0;
    free(c->cur.rounds);
    c->cur.rounds = NULL;
    c->cur.nrounds = 0;
    free(c->cur.telemetry);
    c->cur.telemetry = NULL;
}

static lg_run_agent_t *s_find_ra(lg_ctrl_t *c, size_t conn)
{
    for (size_t i = 0; i < c->cur.nra; i++)
        if (c->cur.ra[i].agent_id == c->agents[conn].agent_id)
            return &c->cur.ra[i];
    return NULL;
}

int lg__sched_agent_in_run(lg_ctrl_t *c, size_t conn, uint64_t run_id)
{
    return c->cur.phase != PH_IDLE && c->cur.run_id == run_id && s_find_ra(c, conn) != NULL;
}

static const char *s_ra_name(lg_ctrl_t *c, const lg_run_agent_t *ra)
{
    return ra->conn >= 0 ? c->agents[ra->conn].name : "(not connected)";
}

static void s_send(lg_ctrl_t *c, lg_run_agent_t *ra, Lg__Envelope *env)
{
    if (ra->conn >= 0)
        c->io->send(c, (size_t)ra->conn, env);
}

static void s_send_stop(lg_ctrl_t *c, lg_run_agent_t *ra)
{
    Lg__Stop st = LG__STOP__INIT;
    st.run_id = c->cur.run_id;
    Lg__Envelope env = LG__ENVELOPE__INIT;
    env.body_case = LG__ENVELOPE__BODY_STOP;
    env.stop = &st;
    s_send(c, ra, &env);
}

static void s_send_prepare(lg_ctrl_t *c, lg_run_agent_t *ra)
{
    /* The run's spec with this agent's share and load. */
    Lg__RunSpec spec = c->cur.spec;
    if (ra->target)
        spec.target = ra->target;
    if (ra->size)
        spec.size = ra->size;
    spec.offset = ra->offset;
    if (ra->threads)
        spec.threads = ra->threads;
    if (ra->qd)
        spec.qd = ra->qd;
    if (c->cur.rate_per_thread)
        spec.rate_iops = c->cur.rate_per_thread; /* the run's rate, shared by every thread */
    Lg__Prepare prep = LG__PREPARE__INIT;
    prep.spec = &spec;
    Lg__Envelope env = LG__ENVELOPE__INIT;
    env.body_case = LG__ENVELOPE__BODY_PREPARE;
    env.prepare = &prep;
    s_send(c, ra, &env);
}

/* How long a Prepare may take: fio lays out the target at 20 MB/s or better; an application
 * benchmark creates its database server and loads its data set (pgbench: 100,000 rows per scale
 * unit; sysbench: tables x table_size) at 5,000 rows/s or better, a slow NAS's pace. */
static uint64_t s_prepare_budget_ms(const lg_current_t *cur)
{
    if (!cur->spec.app)
        return 60000 + cur->spec.size / 20000;
    uint64_t rows = (uint64_t)cur->app.scale * 100000 + (uint64_t)cur->app.tables * cur->app.table_size;
    return 120000 + rows / 5;
}

/* Fill c->cur from a row of RUN_COLS. */
static void s_load_run(lg_ctrl_t *c, const lg_row_t *r)
{
    lg_current_t *cur = &c->cur;
    lg__run_spec__init(&cur->spec);
    cur->run_id = lg_row_u64(r, "run_id");
    cur->campaign_id = lg_row_u64(r, "campaign_id");
    cur->spec.run_id = cur->run_id;
    const char *kind = lg_row_get(r, "target_kind");
    cur->spec.target_kind = !strcmp(kind, "null")    ? LG__TARGET_KIND__TARGET_NULL
                            : !strcmp(kind, "block") ? LG__TARGET_KIND__TARGET_BLOCK
                            : !strcmp(kind, "smb")   ? LG__TARGET_KIND__TARGET_SMB
                            : !strcmp(kind, "iscsi") ? LG__TARGET_KIND__TARGET_ISCSI
                                                     : LG__TARGET_KIND__TARGET_FILE;
    lg_strlcpy(cur->target, lg_row_get(r, "target"), sizeof cur->target);
    cur->spec.target = cur->target;
    lg_strlcpy(cur->protocol, lg_row_get(r, "protocol"), sizeof cur->protocol);
    cur->spec.protocol = cur->protocol;
    lg_strlcpy(cur->target_fs, lg_row_get(r, "target_fs"), sizeof cur->target_fs);
    cur->spec.fs = cur->target_fs;
    lg_strlcpy(cur->target_mount, lg_row_get(r, "target_mount"), sizeof cur->target_mount);
    cur->spec.mount = cur->target_mount;
    cur->spec.size = lg_row_u64(r, "size_bytes");
    lg_strlcpy(cur->rw, lg_row_get(r, "rw"), sizeof cur->rw);
    cur->spec.rw = cur->rw;
    cur->spec.bs = lg_row_u32(r, "bs");
    cur->spec.read_pct = lg_row_u32(r, "read_pct");
    cur->spec.threads = lg_row_u32(r, "threads");
    cur->spec.qd = lg_row_u32(r, "qd");
    cur->spec.ramp_s = lg_row_u32(r, "ramp_s");
    cur->spec.runtime_s = lg_row_u32(r, "runtime_s");
    cur->spec.direct = lg_row_get(r, "direct")[0] == 't';
    free(cur->telemetry);
    cur->telemetry = lg_row_null(r, "telemetry") || !strcmp(lg_row_get(r, "telemetry"), "[]")
                         ? NULL
                         : strdup(lg_row_get(r, "telemetry"));
    const char *phase = lg_row_get(r, "phase");
    cur->run_phase = !strcmp(phase, "steady-state") ? LG_PHASE_STEADY
                     : !strcmp(phase, "fill")       ? LG_PHASE_FILL
                     : !strcmp(phase, "search")     ? LG_PHASE_SEARCH
                                                    : LG_PHASE_MEASURE;
    const char *sid = lg_row_get(r, "search_id");
    cur->search_id = sid && sid[0] ? strtoull(sid, NULL, 10) : 0;
    const char *probe = lg_row_get(r, "probe");
    cur->probe = probe && probe[0] ? (uint32_t)strtoul(probe, NULL, 10) : 0;
    cur->rate_total = lg_row_u32(r, "rate_total");
    cur->rate_per_thread = 0;
    const char *cb = lg_row_get(r, "curve_base_of");
    cur->curve_base_of = cb && cb[0] == 't';
    cur->spec.size_based = cur->run_phase == LG_PHASE_FILL;
    cur->spec.rate_iops = lg_row_u32(r, "rate_iops");
    cur->spec.thinktime_us = lg_row_u32(r, "thinktime_us");
    cur->spec.thinktime_blocks = lg_row_u32(r, "thinktime_blocks");
    /* bssplit is stored as "bs/pct:bs/pct" by submit.c */
    cur->spec.n_bssplit = 0;
    cur->spec.bssplit = cur->bssp;
    const char *b = lg_row_get(r, "bssplit");
    while (*b && cur->spec.n_bssplit < 16) {
        Lg__BsSplit *e = &cur->bss[cur->spec.n_bssplit];
        lg__bs_split__init(e);
        char *end;
        e->bs = (uint32_t)strtoul(b, &end, 10);
        e->pct = *end == '/' ? (uint32_t)strtoul(end + 1, &end, 10) : 0;
        cur->bssp[cur->spec.n_bssplit++] = e;
        b = *end == ':' ? end + 1 : end + strlen(end);
    }
    cur->spec.compress_ratio = strtod(lg_row_get(r, "compress_ratio"), NULL);
    cur->spec.dedup_ratio = strtod(lg_row_get(r, "dedup_ratio"), NULL);
    cur->spec.dedup_unit = lg_row_u32(r, "dedup_unit");
    cur->round_s = lg_row_u32(r, "round_s");
    cur->ordinal = lg_row_u32(r, "ordinal");
    /* An application benchmark: which tool, and its data set (submit.c's app_params). */
    const char *app = lg_row_get(r, "app");
    lg__app_spec__init(&cur->app);
    cur->spec.app = NULL;
    if (app && app[0]) {
        cur->app.kind = !strcmp(app, "pgbench") ? LG__APP_KIND__APP_PGBENCH
                                                : LG__APP_KIND__APP_SYSBENCH_OLTP;
        json_t *ap = json_loads(lg_row_get(r, "app_params"), 0, NULL);
        cur->app.scale = (uint32_t)json_integer_value(json_object_get(ap, "scale"));
        cur->app.jobs = (uint32_t)json_integer_value(json_object_get(ap, "jobs"));
        cur->app.tables = (uint32_t)json_integer_value(json_object_get(ap, "tables"));
        cur->app.table_size = (uint64_t)json_integer_value(json_object_get(ap, "table_size"));
        cur->app.keep = json_is_true(json_object_get(ap, "keep"));
        json_decref(ap);
        cur->spec.app = &cur->app;
    }
    /* What a reviewer reads in lgctl run's progress and lgctl watch: which workload, over
     * which protocol, on which SUT config (its labels, short, when the row carries them). */
    const char *sut = lg_row_get(r, "sut");
    char rate[32] = "", ph[32];
    if (cur->rate_total)
        snprintf(rate, sizeof rate, "@%u", cur->rate_total);
    if (cur->probe)
        snprintf(ph, sizeof ph, "%s, probe %u", phase, cur->probe);
    else
        snprintf(ph, sizeof ph, "%s", phase);
    snprintf(cur->desc, sizeof cur->desc, "run %llu: %s %s %uT%uQ%s over %s, config %s%s%s%s (%s)",
             (unsigned long long)cur->run_id, lg_row_get(r, "profile"), lg_row_get(r, "direction"),
             cur->spec.threads, cur->spec.qd, rate, lg_row_get(r, "protocol"),
             lg_row_get(r, "config_ordinal"), sut[0] ? " (" : "", sut, sut[0] ? ")" : "", ph);
}

/* ---- steady state ---- */

/* Count one sample of agent ra into its rounds; returns 1 if a new overall round completed. */
static void s_count_sample(lg_ctrl_t *c, lg_run_agent_t *ra, uint64_t seq, uint64_t interval_ms,
                           uint64_t ios)
{
    lg_current_t *cur = &c->cur;
    if (cur->run_phase != LG_PHASE_STEADY || cur->round_s == 0 || seq <= ra->seq_done)
        return;
    ra->seq_done = seq;
    uint64_t round_ms = (uint64_t)cur->round_s * 1000;
    /* A sample belongs to the round its midpoint falls in. */
    size_t r = (size_t)((ra->elapsed_ms + interval_ms / 2) / round_ms);
    ra->elapsed_ms += interval_ms;
    if (r >= ra->nround) {
        double *n = realloc(ra->round_ios, (r + 1) * sizeof *n);
        if (!n)
            return;
        for (size_t i = ra->nround; i <= r; i++)
            n[i] = 0;
        ra->round_ios = n;
        ra->nround = r + 1;
    }
    ra->round_ios[r] += (double)ios;
}

static void s_steady_json(lg_ctrl_t *c, const lg_steady_t *w, char **out)
{
    json_t *o = json_object(), *rounds = json_array();
    for (size_t i = 0; i < c->cur.nrounds; i++)
        json_array_append_new(rounds, json_real(c->cur.rounds[i]));
    json_object_set_new(o, "round_s", json_integer(c->cur.round_s));
    json_object_set_new(o, "rounds_iops", rounds);
    json_object_set_new(o, "window", json_integer((json_int_t)w->n));
    json_object_set_new(o, "mean", json_real(w->mean));
    json_object_set_new(o, "min", json_real(w->min));
    json_object_set_new(o, "max", json_real(w->max));
    json_object_set_new(o, "range", json_real(w->range));
    json_object_set_new(o, "slope", json_real(w->slope));
    json_object_set_new(o, "excursion", json_real(w->excursion));
    json_object_set_new(o, "range_ok", json_boolean(w->range_ok));
    json_object_set_new(o, "slope_ok", json_boolean(w->slope_ok));
    *out = json_dumps(o, JSON_COMPACT);
    json_decref(o);
}

/* Rounds every agent has completed become overall rounds; judge the window after each. */
static void s_steady_advance(lg_ctrl_t *c)
{
    lg_current_t *cur = &c->cur;
    if (cur->run_phase != LG_PHASE_STEADY || cur->ss_reached || cur->phase != PH_RUNNING)
        return;
    uint64_t round_ms = (uint64_t)cur->round_s * 1000;
    for (;;) {
        size_t r = cur->nrounds;
        double ios = 0;
        int counted = 0;
        for (size_t i = 0; i < cur->nra; i++) {
            lg_run_agent_t *ra = &cur->ra[i];
            if (ra->state == RA_FAILED)
                continue;
            /* Complete once the agent's samples cover the round's end (half a sample late). */
            if (ra->elapsed_ms < (r + 1) * round_ms - 500)
                return;
            ios += r < ra->nround ? ra->round_ios[r] : 0;
            counted++;
        }
        if (!counted)
            return;
        double *n = realloc(cur->rounds, (r + 1) * sizeof *n);
        if (!n)
            return;
        cur->rounds = n;
        cur->rounds[r] = ios / cur->round_s;
        cur->nrounds = r + 1;
        lg_steady_t w;
        lg_steady_judge(cur->rounds, cur->nrounds, &w);
        lg_info("run %llu: round %zu: %.0f IOPS (window mean %.0f, range %.1f%%, excursion "
                "%.1f%%)",
                (unsigned long long)cur->run_id, cur->nrounds, cur->rounds[r], w.mean,
                w.mean > 0 ? 100 * w.range / w.mean : 0,
                w.mean > 0 ? 100 * w.excursion / w.mean : 0);
        if (w.reached) {
            cur->ss_reached = 1;
            lg_info("run %llu: steady state reached after %zu rounds", (unsigned long long)cur->run_id,
                    cur->nrounds);
            for (size_t i = 0; i < cur->nra; i++)
                if (cur->ra[i].state == RA_RUNNING)
                    s_send_stop(c, &cur->ra[i]);
            return;
        }
    }
}

void lg__sched_on_sample(lg_ctrl_t *c, size_t conn, const Lg__Sample *s)
{
    lg_run_agent_t *ra = s_find_ra(c, conn);
    if (!ra || s->run_id != c->cur.run_id)
        return;
    uint64_t ios = 0, bytes = 0, n = 0;
    double lat = 0;
    for (size_t i = 0; i < s->n_dirs; i++) {
        ios += s->dirs[i]->ios;
        bytes += s->dirs[i]->bytes;
        n += s->dirs[i]->lat_n;
        lat += s->dirs[i]->lat_sum;
    }
    if (s->seq > ra->live_seq && s->interval_ms > 0) {
        ra->live_seq = s->seq;
        ra->live_iops = ios * 1000.0 / (double)s->interval_ms;
        ra->live_mbps = bytes * 1000.0 / (double)s->interval_ms / 1e6;
        ra->live_lat_ms = n ? lat / (double)n / 1e6 : 0;
    }
    s_count_sample(c, ra, s->seq, s->interval_ms, ios);
    s_steady_advance(c);
}

static void s_app_sample_done(void *arg, void *job, int rc, const char *err)
{
    lg_ctrl_t *c = arg;
    app_sample_job_t *j = job;
    if (rc) { /* not acknowledged: the agent sends it again */
        if (rc != LG_ESTATE)
            lg_error("could not store report %llu of run %llu: %s", (unsigned long long)j->seq,
                     (unsigned long long)j->run_id, err);
        free(j);
        return;
    }
    for (size_t k = 0; k < c->nagents; k++) /* its connection now, which may be a new one */
        if (c->agents[k].agent_id == j->agent_id && !c->agents[k].registering) {
            Lg__Ack ack = LG__ACK__INIT;
            ack.run_id = j->run_id;
            ack.seq_from = j->seq;
            ack.seq = j->seq;
            Lg__Envelope env = LG__ENVELOPE__INIT;
            env.body_case = LG__ENVELOPE__BODY_ACK_MSG;
            env.ack_msg = &ack;
            c->io->send(c, k, &env);
            break;
        }
    free(j);
}

/* A per-second report of an application run (Sample.app): one a second per agent, so each is
 * stored on its own by the store (no COPY batch) and acknowledged once committed. */
int lg__sched_on_app_sample(lg_ctrl_t *c, size_t conn, const Lg__Sample *s)
{
    app_sample_job_t *j = calloc(1, sizeof *j);
    if (!j)
        return -ENOMEM;
    j->run_id = s->run_id;
    j->agent_id = c->agents[conn].agent_id;
    j->seq = s->seq;
    j->t_ms = s->t_ms;
    j->interval_ms = s->interval_ms;
    lg__app_stats_row(s->app, &j->row);
    if (c->io->submit(c, lg__sched_app_sample_work, s_app_sample_done, j) != 0) {
        free(j);
        return -ENOMEM;
    }
    lg_run_agent_t *ra = s_find_ra(c, conn);
    if (ra && s->run_id == c->cur.run_id && s->seq > ra->live_seq) {
        /* lgctl watch: transactions per second in the IOPS column */
        ra->live_seq = s->seq;
        ra->live_iops = s->app->tps == s->app->tps ? s->app->tps : 0;
        ra->live_mbps = 0;
        double lat = s->app->lat_avg_ms == s->app->lat_avg_ms ? s->app->lat_avg_ms
                                                               : s->app->lat_pct_ms;
        ra->live_lat_ms = lat == lat ? lat : 0;
    }
    return 0;
}

/* After a restart: count again what the database already holds of the run (one row per agent
 * and seq: agent_id, seq, interval_ms, ios). */
static void s_steady_rebuild(lg_ctrl_t *c, lg_row_t *const *rows, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        uint64_t aid = lg_row_u64(rows[i], "agent_id");
        for (size_t k = 0; k < c->cur.nra; k++)
            if (c->cur.ra[k].agent_id == aid)
                s_count_sample(c, &c->cur.ra[k], lg_row_u64(rows[i], "seq"),
                               lg_row_u64(rows[i], "interval_ms"), lg_row_u64(rows[i], "ios"));
    }
}

/* ---- storing results ---- */



static void s_result_step_free(void *data)
{
    result_step_t *r = data;
    free(r->s);
    free(r);
}

/* Store one result row (agent_id 0: the merged row, agent_id NULL) with the state change in
 * progress (s_begin). Takes s. */
static int s_store_result(lg_ctrl_t *c, uint64_t run_id, uint64_t agent_id, lg_dir_t d,
                          lg_dirstats_t *s)
{
    (void)c;
    result_step_t *r = calloc(1, sizeof *r);
    if (!r || !s_group) {
        free(r);
        free(s);
        lg_error("could not store a result of run %llu: out of memory",
                 (unsigned long long)run_id);
        return -ENOMEM;
    }
    *r = (result_step_t){run_id, agent_id, d, s};
    lg_tx_step(s_group, lg__sched_result_step, r, s_result_step_free);
    return 0;
}

static void s_check_stored(lg_ctrl_t *c);

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
    /* One transaction: the merged rows, the run's state, the campaign's when the policy stops
     * it. */
    s_begin(c, "finish run %llu", (unsigned long long)cur->run_id);
    lg_dirstats_t *merged[LG_DIR_NR];
    lg_dir_t mdir[LG_DIR_NR];
    size_t nmerged = 0;
    search_step_t *ss_step = cur->search_id && cur->probe ? calloc(1, sizeof *ss_step) : NULL;
    for (int d = 0; ndone && d < LG_DIR_NR; d++) {
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
    /* A probe's figure is of all its I/Os: the directions' merged rows merged once more. */
    if (ss_step && nmerged) {
        ss_step->ok = 1;
        lg_dirstats_merge(&ss_step->all, (const lg_dirstats_t *const *)merged, nmerged);
    }
    for (size_t i = 0; i < nmerged; i++)
        s_store_result(c, cur->run_id, 0, mdir[i], merged[i]);
    const char *failed = error ? error : (ndone == 0 ? "no agent delivered a result" : NULL);
    const char *state = cur->aborting ? "aborted" : failed ? "failed" : cur->lost[0] ? "partial"
                                                                                    : "done";
    if (!failed && cur->lost[0])
        failed = cur->lost; /* recorded as the run's error: which agent, and when */
    char *ss = NULL;
    const char *reached = NULL;
    char rounds[16] = "";
    if (cur->run_phase == LG_PHASE_STEADY) {
        lg_steady_t w;
        lg_steady_judge(cur->rounds, cur->nrounds, &w);
        s_steady_json(c, &w, &ss);
        reached = cur->ss_reached ? "t" : "f";
        snprintf(rounds, sizeof rounds, "%zu", cur->nrounds);
        lg_info("run %llu: steady state %s after %zu rounds of %us", (unsigned long long)cur->run_id,
                cur->ss_reached ? "reached" : "NOT reached", cur->nrounds, cur->round_s);
    }
    const char *p[6] = {id, state, failed, reached, reached ? rounds : NULL, ss};
    /* start_skew_us: the spread of the agents' fio start instants, in one (controller) clock;
     * qd_*: the depth that ran, over the agents' results stored before this (021_qd_achieved). */
    s_q(c, "finish a run",
        "UPDATE lg.run SET state = $2, error = $3, finished_at = now(), ss_reached = $4,"
        " ss_rounds = $5, ss_window = $6::jsonb,"
        " start_skew_us = (SELECT max(started_us) - min(started_us) FROM lg.run_agent"
        "   WHERE run_id = $1),"
        " (qd_achieved, qd_inflight) = (SELECT q.qd_achieved, q.qd_inflight FROM lg.run_qd($1) q)"
        " WHERE run_id = $1",
        6, p);
    free(ss);
    /* A search probe: the next step in the same transaction (sched_sql.c). */
    if (ss_step) {
        /* Only a whole probe counts: one that failed, was stopped or lost an agent measured
         * less load than it was meant to, and ends the search (failed) */
        if (strcmp(state, "done") != 0)
            ss_step->ok = 0;
        ss_step->run_id = cur->run_id;
        ss_step->search_id = cur->search_id;
        if (s_group)
            lg_tx_step(s_group, lg__sched_search_step, ss_step, free);
        else
            free(ss_step);
    } else if (cur->search_id && cur->probe) {
        lg_error("run %llu: could not take the search's next step: out of memory",
                 (unsigned long long)cur->run_id);
    }
    /* The base of a curve: its runs get their rates (a share of its IOPS), or are skipped. */
    if (cur->curve_base_of) {
        char cid[24], ord[16];
        s_u64(cid, sizeof cid, cur->campaign_id);
        snprintf(ord, sizeof ord, "%u", cur->ordinal);
        const char *pb[3] = {id, cid, ord};
        s_q(c, "set the curve's rates",
            "UPDATE lg.run c SET rate_total = greatest(1, round(c.curve_pct * b.iops / 100))::integer"
            " FROM (SELECT sum(x.iops) AS iops FROM lg.result x WHERE x.run_id = $1"
            " AND x.agent_id IS NULL) b WHERE c.campaign_id = $2 AND c.curve_base = $3"
            " AND c.state = 'pending' AND b.iops > 0",
            3, pb);
        s_q(c, "skip a curve without its base",
            "UPDATE lg.run SET state = 'skipped', error = 'no curve: its base run ' || $1"
            " || ' gave no IOPS' WHERE campaign_id = $2 AND curve_base = $3 AND state = 'pending'"
            " AND rate_total = 0",
            3, pb);
    }
    if (failed)
        lg_error("run %llu %s: %s", (unsigned long long)cur->run_id, state, failed);
    else
        lg_info("run %llu done", (unsigned long long)cur->run_id);
    if (!strcmp(state, "partial")) {
        char cid[24];
        s_u64(cid, sizeof cid, cur->campaign_id);
        char msg[700];
        snprintf(msg, sizeof msg, "stopped after run %llu: %s (on_agent_loss: stop)",
                 (unsigned long long)cur->run_id, cur->lost);
        const char *pc[2] = {cid, msg};
        s_q(c, "apply the agent-loss policy",
            "UPDATE lg.campaign SET state = 'failed', message = $2, finished_at = now()"
            " WHERE campaign_id = $1 AND on_agent_loss = 'stop'"
            " AND state IN ('pending', 'running', 'paused')",
            2, pc);
        s_q(c, "apply the agent-loss policy",
            "UPDATE lg.run SET state = 'aborted' WHERE campaign_id = $1 AND state = 'pending'"
            " AND EXISTS (SELECT 1 FROM lg.campaign WHERE campaign_id = $1"
            " AND on_agent_loss = 'stop')",
            1, pc);
    }
    s_commit(c);
    if (cur->telemetry && c->io->telem_stop)
        c->io->telem_stop(c, cur->run_id); /* one last scrape of each source */
    cur->lost[0] = 0;
    lg__sched_cleanup(c);
    cur->phase = PH_IDLE;
    cur->run_id = 0;
    cur->aborting = 0;
}

static int s_all(lg_ctrl_t *c, lg_ra_state_t a, lg_ra_state_t b)
{
    for (size_t i = 0; i < c->cur.nra; i++)
        if (c->cur.ra[i].state != a && c->cur.ra[i].state != b)
            return 0;
    return 1;
}

static void s_fail_run(lg_ctrl_t *c, const char *fmt, const char *detail)
{
    lg_current_t *cur = &c->cur;
    if (!cur->error[0])
        snprintf(cur->error, sizeof cur->error, fmt, detail);
    int waiting = 0;
    for (size_t i = 0; i < cur->nra; i++) {
        lg_run_agent_t *ra = &cur->ra[i];
        if (ra->state == RA_DONE || ra->state == RA_FAILED)
            continue;
        s_send_stop(c, ra);
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
    if (s_all(c, RA_DONE, RA_FAILED))
        s_finish_run(c, cur->error);
}

/* ---- starting runs, gates ---- */

static void s_campaign_msg(lg_ctrl_t *c, uint64_t cid, const char *state, const char *msg)
{
    char id[24];
    s_u64(id, sizeof id, cid);
    const char *p[3] = {id, state, msg};
    s_q(c, "update the campaign",
        "UPDATE lg.campaign SET state = $2, message = $3,"
        " finished_at = CASE WHEN $2 IN ('done', 'failed', 'aborted') THEN now() END"
        " WHERE campaign_id = $1 AND state IN ('pending', 'running', 'paused')",
        3, p);
}

typedef struct {
    lg_ctrl_t *c;
    uint64_t campaign_id;
    uint32_t ordinal;
    char desc[512];
} hook_ctx_t;

static void s_on_hook(void *arg, int64_t status, int sig, int timed_out, const char *tail)
{
    hook_ctx_t *h = arg;
    lg_ctrl_t *c = h->c;
    c->cur.phase = PH_IDLE;
    if (status == UV_ECANCELED) { /* the controller stops; a restart runs the gate again */
        free(h);
        return;
    }
    char id[24], ord[16];
    s_u64(id, sizeof id, h->campaign_id);
    snprintf(ord, sizeof ord, "%u", h->ordinal);
    if (status == 0 && sig == 0 && !timed_out) {
        lg_info("hook succeeded before %s", h->desc);
        const char *p[2] = {id, ord};
        s_q(c, "pass the gate",
            "UPDATE lg.campaign SET gate_passed = $2, message = NULL WHERE campaign_id = $1", 2, p);
    } else {
        char msg[3000], how[96];
        if (timed_out)
            snprintf(how, sizeof how, "timed out after %u s (--hook-timeout) and was stopped",
                     (unsigned)lg_hook_timeout_s(c->cfg));
        else
            snprintf(how, sizeof how, "%s %lld",
                     sig ? "was killed by signal" : "exited with status",
                     sig ? (long long)sig : (long long)status);
        snprintf(msg, sizeof msg, "the hook \"%s\" %s before %s; campaign stopped: %s",
                 c->cfg->hook, how, h->desc, tail[0] ? tail : "(no stderr)");
        lg_error("%s", msg);
        s_begin(c, "stop campaign %llu after its hook failed", (unsigned long long)h->campaign_id);
        s_campaign_msg(c, h->campaign_id, "failed", msg);
        const char *p[1] = {id};
        s_q(c, "abort the remaining runs",
            "UPDATE lg.run SET state = 'aborted' WHERE campaign_id = $1 AND state = 'pending'", 1,
            p);
        s_commit(c);
    }
    free(h);
    if (!c->stopping)
        lg__sched_tick(c);
}

/* A config's labels for a program the controller runs for it (the hook, the reduction probe):
 * LG_CAMPAIGN, LG_CONFIG, LG_LABELS=json and LG_LABEL_<KEY>=value; env ends with NULL. */
static void s_config_env(const char *name, const char *config_ordinal, const char *labels,
                         char *env[80], char buf[80][320])
{
    json_error_t je;
    json_t *o = json_loads(labels, 0, &je);
    size_t ne = 0;
    snprintf(buf[ne], sizeof buf[ne], "LG_CAMPAIGN=%s", name);
    env[ne] = buf[ne];
    ne++;
    snprintf(buf[ne], sizeof buf[ne], "LG_CONFIG=%s", config_ordinal);
    env[ne] = buf[ne];
    ne++;
    snprintf(buf[ne], sizeof buf[ne], "LG_LABELS=%s", labels);
    env[ne] = buf[ne];
    ne++;
    const char *k;
    json_t *v;
    json_object_foreach(o, k, v)
    {
        if (ne >= 79 || !json_is_string(v))
            continue;
        char key[80];
        size_t j = 0;
        for (; k[j] && j < sizeof key - 1; j++)
            key[j] = (k[j] >= 'a' && k[j] <= 'z')                      ? (char)(k[j] - 32)
                     : ((k[j] >= 'A' && k[j] <= 'Z') || (k[j] >= '0' && k[j] <= '9')) ? k[j]
                                                                                         : '_';
        key[j] = 0;
        snprintf(buf[ne], sizeof buf[ne], "LG_LABEL_%s=%s", key, json_string_value(v));
        env[ne] = buf[ne];
        ne++;
    }
    env[ne] = NULL;
    json_decref(o);
}

/* The gate before the first run of a config: 1 if passed, 0 if waiting. */
static int s_gate(lg_ctrl_t *c, uint64_t cid, const char *name, const char *between,
                  uint32_t ordinal, const char *config_ordinal, const char *labels)
{
    char desc[1200];
    snprintf(desc, sizeof desc, "config %s %s", config_ordinal, labels);
    if (!strcmp(between, "pause")) {
        char msg[1600];
        snprintf(msg, sizeof msg,
                 "waiting before %s: set the NAS up for it, then run \"lgctl resume %s\"", desc,
                 name);
        lg_info("campaign %llu \"%s\" is %s", (unsigned long long)cid, name, msg);
        s_campaign_msg(c, cid, "paused", msg);
        return 0;
    }
    if (!c->cfg->hook || !c->cfg->hook[0]) {
        char msg[1600];
        snprintf(msg, sizeof msg,
                 "between_configs is hook but lg-controller has no --hook command; campaign "
                 "stopped before %s",
                 desc);
        lg_error("%s", msg);
        s_campaign_msg(c, cid, "failed", msg);
        return 0;
    }
    char *env[80];
    char buf[80][320];
    s_config_env(name, config_ordinal, labels, env, buf);
    hook_ctx_t *h = calloc(1, sizeof *h);
    if (!h)
        return 0;
    h->c = c;
    h->campaign_id = cid;
    h->ordinal = ordinal;
    snprintf(h->desc, sizeof h->desc, "%s", desc);
    lg_info("running the hook before %s", desc);
    int rc = c->io->hook(c, env, s_on_hook, h);
    if (rc) {
        char msg[1600];
        snprintf(msg, sizeof msg, "could not run the hook \"%s\": %s", c->cfg->hook,
                 uv_strerror(rc));
        s_campaign_msg(c, cid, "failed", msg);
        free(h);
        return 0;
    }
    c->cur.phase = PH_HOOK;
    return 0;
}

/* ---- what runs next: read off the loop (the store), acted on by the loop ----
 * The read runs in the store's order, so it sees every state change queued before it. What it
 * finds: nothing to do, a campaign it paused or ended just now (it writes that itself), a gate
 * before a config, or the next run's row. */

static void s_start_run(lg_ctrl_t *c, uint64_t cid, const lg_row_t *r);

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
        s_fail_run(c, "could not record the run's start: %s", rc == LG_ESTATE ? "stopping" : err);
        return;
    }
    cur->start_committed = 1;
    for (size_t i = 0; i < cur->nra; i++) {
        s_known_add(c, cur->run_id, cur->ra[i].agent_id, 1);
        s_send_prepare(c, &cur->ra[i]);
    }
}

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
            s_gate(c, j->cid, j->name, j->between, j->ordinal, j->cfgord, j->labels);
            break;
        case NX_RUN:
            s_start_run(c, j->cid, j->run);
            break;
        case NX_REDUCE: {
            char *env[80];
            char buf[80][320];
            s_config_env(j->name, j->cfgord, j->labels, env, buf);
            lg__sched_reduce(c, j, env);
            break;
        }
        }
    }
    lg_row_free(j->run);
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
    if (c->io->submit(c, lg__sched_next_work, s_next_done, j) != 0) {
        free(j);
        return;
    }
    cur->reading = 1;
}

static void s_start_run(lg_ctrl_t *c, uint64_t cid, const lg_row_t *r)
{
    lg_current_t *cur = &c->cur;
    char id[24];
    s_u64(id, sizeof id, cid);
    const char *p1[1] = {id};
    /* The agents the run names (or all): idle ones only; agents still busy with an earlier
     * run (one that came back after it was lost, say) sit this one out. */
    size_t live[LG_RUN_MAX_AGENTS], nlive;
    uint32_t lthreads[LG_RUN_MAX_AGENTS], lqd[LG_RUN_MAX_AGENTS];
    char why[256] = "";
    nlive = lg__pick_agents(c, lg_row_get(r, "agents"), live, lthreads, lqd, LG_RUN_MAX_AGENTS, why,
                            sizeof why);
    if (nlive == 0) {
        if (strcmp(cur->waiting_why, why) != 0)
            lg_info("run %s is waiting: %s", lg_row_get(r, "run_id"), why);
        lg_strlcpy(cur->waiting_why, why, sizeof cur->waiting_why);
        cur->next_read_ms = c->io->now_ms(c) + 250;
        return;
    }
    cur->waiting_why[0] = 0;
    char share[16];
    lg_strlcpy(share, lg_row_get(r, "share"), sizeof share);
    lg__sched_cleanup(c);
    s_load_run(c, r);
    lg_info("%s on %zu agent(s)", cur->desc, nlive);
    char rid[24];
    s_u64(rid, sizeof rid, cur->run_id);
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
    /* A paced run: the offered IOPS over all agents, split evenly over all their threads (fio
     * paces each job), so an agent with more threads offers more. */
    if (cur->rate_total) {
        uint64_t nthreads = 0;
        for (size_t i = 0; i < cur->nra; i++)
            nthreads += cur->ra[i].threads;
        uint64_t per = nthreads ? (cur->rate_total + nthreads / 2) / nthreads : 0;
        cur->rate_per_thread = per ? (uint32_t)per : 1;
        if (per * nthreads != cur->rate_total)
            lg_info("run %llu: %u IOPS over %llu threads: %u per thread (%llu in all)",
                    (unsigned long long)cur->run_id, cur->rate_total,
                    (unsigned long long)nthreads, cur->rate_per_thread,
                    (unsigned long long)(cur->rate_per_thread * nthreads));
    }
    if (lg__share_assign(c, share) != 0) {
        lg_error("could not share the target between the agents: out of memory");
        lg__sched_cleanup(c);
        cur->nra = 0;
        return;
    }
    /* One transaction: the campaign and the run running, the run's agents recorded. */
    s_begin(c, "start run %llu", (unsigned long long)cur->run_id);
    /* (not over a state lgctl set meanwhile on its own connection: aborted, paused) */
    s_q(c, "mark the campaign running",
        "UPDATE lg.campaign SET state = 'running', started_at = coalesce(started_at, now())"
        " WHERE campaign_id = $1 AND state IN ('pending', 'running')",
        1, p1);
    s_q(c, "mark the run running",
        "UPDATE lg.run SET state = 'running', started_at = now() WHERE run_id = $1", 1, p2);
    /* One statement for all of them: with hundreds of agents, a round trip each would stall
     * the loop. */
    json_t *rows = json_array();
    for (size_t i = 0; i < cur->nra; i++) {
        const lg_run_agent_t *ra = &cur->ra[i];
        json_array_append_new(rows, json_pack("{s:I, s:s, s:I, s:I, s:i, s:i}", "agent_id",
                                              (json_int_t)ra->agent_id, "target",
                                              ra->target ? ra->target : cur->target, "offset_bytes",
                                              (json_int_t)ra->offset, "size_bytes",
                                              (json_int_t)ra->size, "threads", (int)ra->threads,
                                              "qd", (int)ra->qd));
    }
    char *rj = json_dumps(rows, JSON_COMPACT);
    json_decref(rows);
    const char *p3[2] = {rid, rj};
    s_q(c, "record the run's agents",
        "INSERT INTO lg.run_agent (run_id, agent_id, state, target, offset_bytes, size_bytes,"
        " threads, qd) SELECT $1, x.agent_id, 'preparing', x.target, x.offset_bytes, x.size_bytes,"
        " x.threads, x.qd FROM jsonb_to_recordset($2::jsonb) AS x(agent_id bigint, target text,"
        " offset_bytes bigint, size_bytes bigint, threads integer, qd integer)"
        " ON CONFLICT DO NOTHING",
        2, p3);
    free(rj);
    cur->phase = PH_PREPARING;
    cur->started_ms = c->io->now_ms(c);
    /* Laying a file out runs at disk speed: allow 20 MB/s plus a minute. */
    cur->deadline_ms = cur->started_ms + s_prepare_budget_ms(cur);
    /* The agents hear of the run once it is "running" in the database: a controller that dies
     * before that takes it up as pending, never with samples of an attempt it does not know. */
    cur->start_committed = 0;
    started_t *st = malloc(sizeof *st);
    if (st)
        *st = (started_t){c, cur->run_id};
    if (!st || s_commit_then(c, s_started_done, st) != 0) {
        free(st);
        s_fail_run(c, "%s", "could not record the run's start: out of memory");
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
        int d = !strcmp(dn, "read") ? LG_DIR_READ : !strcmp(dn, "write") ? LG_DIR_WRITE : LG_DIR_TRIM;
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
    s_load_run(c, t->run);
    char rid[24];
    s_u64(rid, sizeof rid, cur->run_id);
    const char *p[1] = {rid};
    /* One run runs at a time; should there be more, the later ones go back to pending. */
    s_q(c, "reset stray runs",
        "UPDATE lg.run SET state = 'pending', started_at = NULL WHERE state = 'running'"
        " AND run_id <> $1",
        1, p);
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
        s_known_add(c, cur->run_id, cur->ra[i].agent_id, 1);
    if (running) {
        cur->phase = PH_RUNNING;
        cur->deadline_ms = cur->started_ms + START_DELAY_US / 1000 +
                           (uint64_t)(cur->spec.ramp_s + cur->spec.runtime_s) * 1000 +
                           RUN_GRACE_MS + (cur->spec.app ? APP_STOP_MS : 0);
        s_steady_rebuild(c, t->samples, t->nsamples);
        if (cur->telemetry && c->io->telem_start)
            c->io->telem_start(c, cur->run_id, cur->telemetry);
    } else {
        cur->phase = PH_PREPARING;
        for (size_t i = 0; i < cur->nra; i++)
            cur->ra[i].state = RA_PREPARING;
        cur->deadline_ms = cur->started_ms + s_prepare_budget_ms(cur);
    }
    /* Results not yet stored arrive again from the agents' spools. */
    s_load_done_results(c, t->results, t->nresults);
    lg_info("taking up %s where the last controller left it (%s)", cur->desc,
            running ? "running" : "preparing");
    return 0;
}

/* The run goes on without ra's agent (or fails, before it started). 1 when that ended the run. */
static int s_ra_lost(lg_ctrl_t *c, lg_run_agent_t *ra)
{
    lg_current_t *cur = &c->cur;
    ra->state = RA_FAILED;
    ra->lost = 1;
    if (cur->phase != PH_RUNNING) {
        s_fail_run(c, "agent \"%s\" was lost during the run", s_ra_name(c, ra));
        return 1;
    }
    /* The others go on; what the lost one sent stays, and what it still holds arrives if
     * it comes back. */
    char when[64], aid[24], rid[24];
    time_t t = time(NULL);
    strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S UTC", gmtime(&t));
    size_t l = strlen(cur->lost);
    snprintf(cur->lost + l, sizeof cur->lost - l, "%sagent \"%s\" lost at %s",
             l ? "; " : "", s_ra_name(c, ra), when);
    lg_warn("run %llu goes on without agent \"%s\"", (unsigned long long)cur->run_id,
            s_ra_name(c, ra));
    s_u64(aid, sizeof aid, ra->agent_id);
    s_u64(rid, sizeof rid, cur->run_id);
    const char *p[2] = {rid, aid};
    s_q(c, "record a lost agent",
        "UPDATE lg.run_agent SET state = 'lost', lost_at = now() WHERE run_id = $1"
        " AND agent_id = $2",
        2, p);
    if (s_all(c, RA_DONE, RA_FAILED)) {
        s_finish_run(c, NULL);
        return 1;
    }
    return 0;
}

void lg__sched_on_replaced(lg_ctrl_t *c, size_t conn)
{
    lg_current_t *cur = &c->cur;
    lg_run_agent_t *ra = cur->phase == PH_IDLE || cur->phase == PH_HOOK ? NULL : s_find_ra(c, conn);
    if (ra && ra->state != RA_DONE && ra->state != RA_FAILED)
        s_ra_lost(c, ra);
}

void lg__sched_on_agent(lg_ctrl_t *c, size_t conn)
{
    lg_current_t *cur = &c->cur;
    lg_run_agent_t *ra = cur->phase == PH_IDLE ? NULL : s_find_ra(c, conn);
    if (!ra)
        return;
    ra->conn = (ssize_t)conn;
    if (cur->phase == PH_PREPARING && ra->state == RA_PREPARING && cur->start_committed)
        s_send_prepare(c, ra);
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
        s_check_stored(c);
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
        s_send(c, &cur->ra[i], &env);
    }
    char id[24];
    s_u64(id, sizeof id, cur->run_id);
    const char *p1[1] = {id};
    s_q(c, "mark the run's agents running",
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

static void s_ack_result(lg_ctrl_t *c, size_t conn, uint64_t run_id)
{
    Lg__Ack ack = LG__ACK__INIT;
    ack.run_id = run_id;
    ack.result = 1;
    Lg__Envelope env = LG__ENVELOPE__INIT;
    env.body_case = LG__ENVELOPE__BODY_ACK_MSG;
    env.ack_msg = &ack;
    c->io->send(c, conn, &env);
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
                    (unsigned long long)cur->run_id, s_ra_name(c, ra),
                    (unsigned long long)ra->want_samples, (unsigned long long)got,
                    STORED_WAIT_MS / 1000);
    }
    free(j);
    if (short_ && !late)
        return;
    cur->finish_when_stored = 0;
    s_finish_run(c, cur->error[0] ? cur->error : NULL);
}

static void s_check_stored(lg_ctrl_t *c)
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

static void s_result_job_free(result_job_t *j)
{
    for (int d = 0; d < LG_DIR_NR; d++)
        free(j->dirs[d]);
    free(j->fio_json);
    free(j->dc);
    free(j->app_output);
    free(j);
}


static void s_result_done(void *arg, void *job, int rc, const char *err)
{
    lg_ctrl_t *c = arg;
    result_job_t *j = job;
    lg_current_t *cur = &c->cur;
    lg_run_agent_t *ra = NULL;
    for (size_t i = 0; cur->phase != PH_IDLE && cur->run_id == j->run_id && i < cur->nra; i++)
        if (cur->ra[i].agent_id == j->agent_id)
            ra = &cur->ra[i];
    if (ra)
        ra->storing = 0;
    if (rc) { /* not acknowledged: the agent keeps it and sends it again */
        if (rc != LG_ESTATE)
            lg_error("could not store a result of run %llu: %s", (unsigned long long)j->run_id,
                     err);
        s_result_job_free(j);
        return;
    }
    for (size_t k = 0; k < c->nagents; k++) /* its connection now, which may be a new one */
        if (c->agents[k].agent_id == j->agent_id && !c->agents[k].registering) {
            s_ack_result(c, k, j->run_id);
            break;
        }
    if (!j->current || !ra || ra->lost || ra->state == RA_DONE || ra->state == RA_FAILED) {
        s_result_job_free(j);
        return;
    }
    ra->state = RA_DONE;
    ra->want_samples = j->samples;
    for (int d = 0; d < LG_DIR_NR; d++) {
        ra->dir[d] = j->dirs[d];
        j->dirs[d] = NULL;
    }
    s_result_job_free(j);
    if (s_all(c, RA_DONE, RA_FAILED)) {
        /* "done" promises the whole time series: the run ends once every sample each agent
         * says it sent is stored (see s_check_stored), not merely the last result. */
        cur->finish_when_stored = 1;
        cur->stored_since_ms = c->io->now_ms(c);
        cur->count_next_ms = 0;
        s_check_stored(c);
    }
}

/* Add what an agent said after the run's error ("...; agent "a": note"), as far as it fits. */
static void s_error_add(lg_ctrl_t *c, size_t conn, const char *note)
{
    char *e = c->cur.error;
    size_t len = strlen(e), cap = sizeof c->cur.error;
    if (len + 1 < cap)
        snprintf(e + len, cap - len, "; agent \"%s\": %s", c->agents[conn].name, note);
}

void lg__sched_on_result(lg_ctrl_t *c, size_t conn, const Lg__RunResult *res)
{
    uint64_t agent_id = c->agents[conn].agent_id;
    lg_run_agent_t *ra = lg__sched_agent_in_run(c, conn, res->run_id) ? s_find_ra(c, conn) : NULL;
    /* A lost agent that came back before the run ended: the run went on without it, so its
     * result is stored as its own and stays out of the merge, as when it comes after the end. */
    if (ra && ra->lost)
        ra = NULL;
    if (ra && (ra->state == RA_DONE || ra->state == RA_FAILED)) {
        s_ack_result(c, conn, res->run_id); /* a resend: stored already */
        return;
    }
    int known = ra ? 1 : lg__sched_sample_ok(c, conn, res->run_id);
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
    if (ra && ra->storing) { /* a resend while the first is being stored: that one is acked */
        for (int d = 0; d < LG_DIR_NR; d++)
            free(dirs[d]);
        return;
    }
    result_job_t *j = calloc(1, sizeof *j);
    if (!j) {
        for (int d = 0; d < LG_DIR_NR; d++)
            free(dirs[d]);
        return; /* not acknowledged: the agent sends it again */
    }
    j->run_id = res->run_id;
    j->agent_id = agent_id;
    j->current = ra != NULL;
    j->samples = res->samples;
    snprintf(j->ex, sizeof j->ex, "%d", res->fio_exit);
    snprintf(j->nj, sizeof j->nj, "%u", res->njobs);
    snprintf(j->started, sizeof j->started, "%lld", (long long)res->started_us);
    j->has_started = res->started_us != 0;
    j->fio_json = strdup(res->fio_json ? res->fio_json : "");
    if (res->app) {
        /* An application run: the tool's totals and its whole output */
        j->has_app = 1;
        lg__app_totals_row(res->app, &j->app);
        j->app.p[LG_APP_RESULT_COLS - 1] = j->ex;
        j->app_output = strdup(res->app->output ? res->app->output : "");
        if (!j->app_output) {
            s_result_job_free(j);
            return;
        }
    }
    if (res->datacheck) {
        const Lg__DataCheck *k = res->datacheck;
        json_t *o = json_object();
        json_object_set_new(o, "unit", json_integer(k->unit));
        if (k->error && k->error[0]) {
            json_object_set_new(o, "error", json_string(k->error));
        } else {
            json_object_set_new(o, "records", json_integer((json_int_t)k->records));
            json_object_set_new(o, "unique", json_integer((json_int_t)k->unique));
            json_object_set_new(o, "zero", json_integer((json_int_t)k->zero));
            json_object_set_new(o, "zstd", json_real(k->zstd_ratio));
            json_object_set_new(o, "lz4", json_real(k->lz4_ratio));
            json_object_set_new(o, "dedup", json_real(k->dedup_ratio));
        }
        j->dc = json_dumps(o, JSON_COMPACT);
        json_decref(o);
    }
    for (int d = 0; d < LG_DIR_NR; d++)
        j->dirs[d] = dirs[d];
    /* How a Stop ended fio on that agent (a Windows agent's trigger file), in the run's error. */
    if (ra && res->stop_note && res->stop_note[0] && c->cur.error[0])
        s_error_add(c, conn, res->stop_note);
    /* Stored off the loop, in one transaction; acknowledged (and counted) once committed. */
    if (!j->fio_json || c->io->submit(c, lg__sched_result_work, s_result_done, j) != 0) {
        s_result_job_free(j);
        return;
    }
    if (ra)
        ra->storing = 1;
}

void lg__sched_on_error(lg_ctrl_t *c, size_t conn, const Lg__RunError *e)
{
    lg_current_t *cur = &c->cur;
    const char *msg = e->message ? e->message : "";
    lg_error("agent \"%s\" reports an error in run %llu: %s", c->agents[conn].name,
             (unsigned long long)e->run_id, msg);
    lg_run_agent_t *ra = lg__sched_agent_in_run(c, conn, e->run_id) ? s_find_ra(c, conn) : NULL;
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
        /* Why it has no result after the Stop (fio ended without its report) */
        s_error_add(c, conn, msg);
        if (s_all(c, RA_DONE, RA_FAILED))
            s_finish_run(c, cur->error);
        return;
    }
    s_fail_run(c, "%s", detail);
}

void lg__sched_live(lg_ctrl_t *c, uint64_t campaign_id, Lg__CtlReply *rep, Lg__AgentLive **infos,
                    Lg__AgentLive ***ptrs)
{
    lg_current_t *cur = &c->cur;
    if (cur->phase == PH_IDLE || cur->campaign_id != campaign_id || cur->nra == 0)
        return;
    rep->run_total_s = cur->spec.ramp_s + cur->spec.runtime_s;
    rep->run_ramp_s = cur->spec.ramp_s;
    rep->rate_unit = cur->spec.app ? "TPS" : "IOPS";
    if (cur->phase == PH_RUNNING || cur->phase == PH_STOPPING)
        rep->run_elapsed_s = (uint32_t)((c->io->now_ms(c) - cur->started_ms) / 1000);
    *infos = calloc(cur->nra, sizeof **infos);
    *ptrs = calloc(cur->nra, sizeof **ptrs);
    if (!*infos || !*ptrs)
        return;
    for (size_t i = 0; i < cur->nra; i++) {
        Lg__AgentLive *l = &(*infos)[i];
        lg__agent_live__init(l);
        l->name = (char *)s_ra_name(c, &cur->ra[i]);
        l->iops = cur->ra[i].live_iops;
        l->mbps = cur->ra[i].live_mbps;
        l->lat_avg_ms = cur->ra[i].live_lat_ms;
        l->seq = cur->ra[i].live_seq;
        (*ptrs)[i] = l;
    }
    rep->n_live = cur->nra;
    rep->live = *ptrs;
}

int lg__sched_sample_ok(lg_ctrl_t *c, size_t conn, uint64_t run_id)
{
    if (lg__sched_agent_in_run(c, conn, run_id))
        return 1;
    uint64_t aid = c->agents[conn].agent_id;
    if (run_id == 0 || aid == 0)
        return 0;
    known_t *k = s_known_find(c, run_id, aid);
    if (k)
        return k->ok;
    known_job_t *j = calloc(1, sizeof *j);
    if (!j || !s_known_add(c, run_id, aid, -1)) {
        free(j);
        return -1;
    }
    *j = (known_job_t){c, run_id, aid, 0};
    if (c->io->submit(c, lg__sched_known_work, s_known_done, j) != 0) {
        free(j);
        s_known_find(c, run_id, aid)->run_id = 0;
    }
    return -1; /* not acknowledged: the agent resends, and by then we know */
}

void lg__sched_campaign_changed(lg_ctrl_t *c, int op, uint64_t campaign_id)
{
    lg_current_t *cur = &c->cur;
    if (op == LG__CTL_REQUEST__OP__OP_ABORT && cur->campaign_id == campaign_id &&
        (cur->phase == PH_PREPARING || cur->phase == PH_RUNNING)) {
        cur->aborting = 1;
        s_fail_run(c, "%s", "aborted by lgctl abort");
    }
    lg_info("campaign %llu: %s", (unsigned long long)campaign_id,
            op == LG__CTL_REQUEST__OP__OP_PAUSE    ? "pause requested"
            : op == LG__CTL_REQUEST__OP__OP_RESUME ? "resumed"
                                                   : "aborted");
    lg__sched_tick(c);
}
