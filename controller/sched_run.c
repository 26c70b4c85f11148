/* sched_run.c: the current run (c->cur): its agents and what they are sent (Prepare, Stop), and
 * its spec, loaded from its lg.run row. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* An application benchmark: which tool, and its data set (submit.c's app_params). */
static void s_load_app(lg_current_t *cur, const lg_row_t *r)
{
    const char *app = lg_row_get(r, "app");
    lg__app_spec__init(&cur->app);
    cur->spec.app = NULL;
    if (app && app[0]) {
        cur->app.kind =
            !strcmp(app, "pgbench") ? LG__APP_KIND__APP_PGBENCH : LG__APP_KIND__APP_SYSBENCH_OLTP;
        json_t *ap = json_loads(lg_row_get(r, "app_params"), 0, NULL);
        cur->app.scale = (uint32_t)json_integer_value(json_object_get(ap, "scale"));
        cur->app.jobs = (uint32_t)json_integer_value(json_object_get(ap, "jobs"));
        cur->app.tables = (uint32_t)json_integer_value(json_object_get(ap, "tables"));
        cur->app.table_size = (uint64_t)json_integer_value(json_object_get(ap, "table_size"));
        cur->app.keep = json_is_true(json_object_get(ap, "keep"));
        json_decref(ap);
        cur->spec.app = &cur->app;
    }
}

/* What a reviewer reads in lgctl run's progress and lgctl watch: which workload, over which
 * protocol, on which SUT config (its labels, short, when the row carries them). */
static void s_load_desc(lg_current_t *cur, const lg_row_t *r, const char *phase)
{
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

void lg__sched_load_run(lg_ctrl_t *c, const lg_row_t *r)
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
    cur->attempt = lg_row_u32(r, "attempt") ? lg_row_u32(r, "attempt") : 1;
    cur->retries = lg_row_u32(r, "retries");
    cur->transient = 0;
    s_load_app(cur, r);
    s_load_desc(cur, r, phase);
}

int lg__sched_all(lg_ctrl_t *c, lg_ra_state_t a, lg_ra_state_t b)
{
    for (size_t i = 0; i < c->cur.nra; i++)
        if (c->cur.ra[i].state != a && c->cur.ra[i].state != b)
            return 0;
    return 1;
}
