/* sched_run.c: the current run (c->cur): its agents and what they are sent (Prepare, Stop), and
 * its spec, loaded from its lg.run row. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lg_log.h"
#include "lg_runrow.h"
#include "lg_spec.h"
#include "lg_util.h"
#include "row.h"
#include "sched_int.h"

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

lg_run_agent_t *lg__sched_find_ra(lg_ctrl_t *c, size_t conn)
{
    for (size_t i = 0; i < c->cur.nra; i++)
        if (c->cur.ra[i].agent_id == c->agents[conn].agent_id)
            return &c->cur.ra[i];
    return NULL;
}

int lg__sched_agent_in_run(lg_ctrl_t *c, size_t conn, uint64_t run_id)
{
    return c->cur.phase != PH_IDLE && c->cur.run_id == run_id && lg__sched_find_ra(c, conn) != NULL;
}

const char *lg__sched_ra_name(lg_ctrl_t *c, const lg_run_agent_t *ra)
{
    return ra->conn >= 0 ? c->agents[ra->conn].name : "(not connected)";
}

void lg__sched_send(lg_ctrl_t *c, lg_run_agent_t *ra, Lg__Envelope *env)
{
    if (ra->conn >= 0)
        c->io->send(c, (size_t)ra->conn, env);
}

void lg__sched_send_stop(lg_ctrl_t *c, lg_run_agent_t *ra)
{
    Lg__Stop st = LG__STOP__INIT;
    st.run_id = c->cur.run_id;
    Lg__Envelope env = LG__ENVELOPE__INIT;
    env.body_case = LG__ENVELOPE__BODY_STOP;
    env.stop = &st;
    lg__sched_send(c, ra, &env);
}

void lg__sched_send_prepare(lg_ctrl_t *c, lg_run_agent_t *ra)
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
    lg__sched_send(c, ra, &env);
}

/* How long a Prepare may take: fio lays out the target at 20 MB/s or better, and the jobs of an
 * smb:// or iscsi:// run log in before the start (the agent's start gate): lgsmb a session per
 * outstanding I/O, at most 8 logging in at once on an agent, about 150 ms each on a busy NAS
 * (512 sessions of two agents took 10 to 35 s here); an application benchmark creates its
 * database server and loads its data set (pgbench: 100,000 rows per scale unit; sysbench:
 * tables x table_size) at 5,000 rows/s or better, a slow NAS's pace. */
uint64_t lg__sched_prepare_budget_ms(const lg_current_t *cur)
{
    if (!cur->spec.app) {
        uint64_t sessions = 0;
        int smb = cur->spec.target_kind == LG__TARGET_KIND__TARGET_SMB;
        if (smb || cur->spec.target_kind == LG__TARGET_KIND__TARGET_ISCSI)
            for (size_t i = 0; i < cur->nra; i++) {
                uint64_t t = cur->ra[i].threads ? cur->ra[i].threads : cur->spec.threads;
                uint64_t q = cur->ra[i].qd ? cur->ra[i].qd : cur->spec.qd;
                uint64_t n = smb ? t * (q ? q : 1) : t;
                if (n > sessions)
                    sessions = n;
            }
        return 60000 + cur->spec.size / 20000 + sessions * 150;
    }
    uint64_t rows =
        (uint64_t)cur->app.scale * 100000 + (uint64_t)cur->app.tables * cur->app.table_size;
    return 120000 + rows / 5;
}

/* The wire's enums are lg_names.h's, value for value. */
_Static_assert(LG__TARGET_KIND__TARGET_FILE == (int)LG_TARGET_FILE &&
                   LG__TARGET_KIND__TARGET_NULL == (int)LG_TARGET_NULL &&
                   LG__TARGET_KIND__TARGET_BLOCK == (int)LG_TARGET_BLOCK &&
                   LG__TARGET_KIND__TARGET_SMB == (int)LG_TARGET_SMB &&
                   LG__TARGET_KIND__TARGET_ISCSI == (int)LG_TARGET_ISCSI,
               "lg.proto's TargetKind is lg_target_kind_t");
_Static_assert(LG__APP_KIND__APP_PGBENCH == (int)LG_APP_PGBENCH &&
                   LG__APP_KIND__APP_SYSBENCH_OLTP == (int)LG_APP_SYSBENCH_OLTP,
               "lg.proto's AppKind is lg_app_kind_t");

/* An application benchmark: which tool, and its data set. */
static void s_load_app(lg_current_t *cur, const lg_runrow_t *row)
{
    lg__app_spec__init(&cur->app);
    cur->spec.app = NULL;
    if (row->app) {
        cur->app.kind = (Lg__AppKind)row->app;
        cur->app.scale = row->app_params.scale;
        cur->app.jobs = row->app_params.jobs;
        cur->app.tables = row->app_params.tables;
        cur->app.table_size = row->app_params.table_size;
        cur->app.keep = row->app_params.keep;
        cur->spec.app = &cur->app;
    }
}

/* What a reviewer reads in lgctl run's progress and lgctl watch: which workload, over which
 * protocol, on which SUT config (its labels, short, when the row carries them). */
static void s_load_desc(lg_current_t *cur, const lg_runrow_t *row)
{
    const char *sut = row->sut ? row->sut : "";
    char rate[32] = "", ph[32];
    if (cur->rate_total)
        snprintf(rate, sizeof rate, "@%u", cur->rate_total);
    if (cur->probe)
        snprintf(ph, sizeof ph, "%s, probe %u", lg_phase_name(row->phase), cur->probe);
    else
        snprintf(ph, sizeof ph, "%s", lg_phase_name(row->phase));
    snprintf(cur->desc, sizeof cur->desc, "run %llu: %s %s %uT%uQ%s over %s, config %u%s%s%s (%s)",
             (unsigned long long)cur->run_id, row->profile, row->direction, cur->spec.threads,
             cur->spec.qd, rate, row->protocol, row->config_ordinal, sut[0] ? " (" : "", sut,
             sut[0] ? ")" : "", ph);
}

/* src (NULL: a string the row could not hold, out of memory: "") into dst of len bytes. */
static void s_copy(char *dst, const char *src, size_t len)
{
    lg_strlcpy(dst, src ? src : "", len);
}

/* Column col of row r (lg_runrow_get_fn): NULL for SQL NULL or a column r has not. */
static const char *s_row_value(void *r, const char *col)
{
    return lg_row_null(r, col) ? NULL : lg_row_get(r, col);
}

/* cur's spec (what agents are sent) from the run's row; the strings are copied into cur. */
static void s_load_spec(lg_current_t *cur, const lg_runrow_t *row)
{
    cur->spec.run_id = cur->run_id;
    cur->spec.target_kind = (Lg__TargetKind)row->target_kind;
    s_copy(cur->target, row->target, sizeof cur->target);
    cur->spec.target = cur->target;
    lg_strlcpy(cur->protocol, row->protocol, sizeof cur->protocol);
    cur->spec.protocol = cur->protocol;
    lg_strlcpy(cur->target_fs, row->target_fs, sizeof cur->target_fs);
    cur->spec.fs = cur->target_fs;
    s_copy(cur->target_mount, row->target_mount, sizeof cur->target_mount);
    cur->spec.mount = cur->target_mount;
    cur->spec.size = row->size_bytes;
    lg_strlcpy(cur->rw, row->rw, sizeof cur->rw);
    cur->spec.rw = cur->rw;
    cur->spec.bs = row->bs;
    cur->spec.read_pct = (uint32_t)row->read_pct;
    cur->spec.threads = row->threads;
    cur->spec.qd = row->qd;
    cur->spec.ramp_s = row->ramp_s;
    cur->spec.runtime_s = row->runtime_s;
    cur->spec.direct = row->direct;
    cur->spec.size_based = row->phase == LG_PHASE_FILL;
    cur->spec.rate_iops = row->rate_iops;
    cur->spec.thinktime_us = row->thinktime_us;
    cur->spec.thinktime_blocks = row->thinktime_blocks;
    cur->spec.n_bssplit = 0;
    cur->spec.bssplit = cur->bssp;
    for (size_t i = 0; i < row->bssplit.n && i < sizeof cur->bss / sizeof *cur->bss; i++) {
        Lg__BsSplit *e = &cur->bss[i];
        lg__bs_split__init(e);
        e->bs = row->bssplit.v[i].bs;
        e->pct = row->bssplit.v[i].pct;
        cur->bssp[cur->spec.n_bssplit++] = e;
    }
    cur->spec.compress_ratio = row->compress_ratio;
    cur->spec.dedup_ratio = row->dedup_ratio;
    cur->spec.dedup_unit = row->dedup_unit;
}

void lg__sched_load_run(lg_ctrl_t *c, const lg_row_t *r)
{
    lg_current_t *cur = &c->cur;
    lg_runrow_t row;
    char why[256];
    int rc = lg_runrow_decode(&row, s_row_value, (void *)r, why, sizeof why);
    if (rc)
        lg_warn("run %s: %s", lg_row_get(r, "run_id"), why);
    lg__run_spec__init(&cur->spec);
    cur->run_id = row.run_id;
    cur->campaign_id = row.campaign_id;
    s_load_spec(cur, &row);
    free(cur->telemetry);
    cur->telemetry = NULL;
    if (row.telemetry && strcmp(row.telemetry, "[]") != 0) { /* "[]": no source */
        cur->telemetry = row.telemetry;
        row.telemetry = NULL;
    }
    cur->run_phase = row.phase;
    cur->search_id = row.search_id;
    cur->probe = row.probe;
    cur->rate_total = row.rate_total;
    cur->rate_per_thread = 0;
    cur->curve_base_of = row.curve_base_of;
    cur->share = row.share;
    cur->round_s = row.round_s;
    cur->ordinal = row.ordinal;
    cur->attempt = row.attempt ? row.attempt : 1;
    cur->retries = row.retries;
    cur->transient = 0;
    s_load_app(cur, &row);
    s_load_desc(cur, &row);
    lg_runrow_clear(&row);
}

int lg__sched_all(lg_ctrl_t *c, lg_ra_state_t a, lg_ra_state_t b)
{
    for (size_t i = 0; i < c->cur.nra; i++)
        if (c->cur.ra[i].state != a && c->cur.ra[i].state != b)
            return 0;
    return 1;
}
