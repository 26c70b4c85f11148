/* sched_jobs.h: what the scheduler (sched*.c) asks the store to do, and what comes back: the jobs'
 * data, and the work functions that run them on the store's thread with SQL (sched_sql.c). The
 * scheduler only fills a job in and reads it when done; unit tests answer jobs themselves. */
#ifndef LG_SCHED_JOBS_H
#define LG_SCHED_JOBS_H

#include <stdint.h>

#include "ctrl.h"
#include "db.h"
#include "row.h"

/* The columns of lg.run a run is loaded from (sched_run.c: lg__sched_load_run, through
 * core/lg_runrow.c's table: a column it reads that is not here reads as 0 or ""). */
#define RUN_COLS                                                                                   \
    "r.run_id, r.campaign_id, r.target_kind, r.target, r.size_bytes, r.rw, r.bs, r.read_pct,"      \
    " r.threads, r.qd, r.ramp_s, r.runtime_s, r.direct, r.profile, r.direction, r.phase,"          \
    " r.rate_iops, r.thinktime_us, r.thinktime_blocks, r.bssplit, r.compress_ratio,"               \
    " r.dedup_ratio, r.dedup_unit, r.round_s, r.ordinal, r.gate, r.config_ordinal, "               \
    "r.agents::text,"                                                                              \
    " r.share, r.protocol, r.target_fs, r.target_mount, r.search_id, r.probe, r.rate_total,"       \
    " EXISTS (SELECT 1 FROM lg.run cb WHERE cb.campaign_id = r.campaign_id"                        \
    "   AND cb.curve_base = r.ordinal) AS curve_base_of, r.app, r.app_params::text AS app_params," \
    " r.telemetry::text AS telemetry, r.reduction::text AS reduction,"                             \
    " lg.run_seal_text(r) AS seal_text, r.seal, r.attempt, r.retries"

/* Did this agent take part in this run? */
typedef struct {
    lg_ctrl_t *c;
    uint64_t run_id, agent_id;
    int found;
} known_job_t;

/* What runs next: the read finds nothing to do, a campaign it paused or ended just now (it
 * writes that itself), a gate before a config, or the next run's row. */
typedef enum {
    NX_NOTHING,
    NX_PAUSED,
    NX_ENDED,
    NX_GATE,
    NX_RUN,
    NX_REDUCE,
    NX_REFUSED /* a run whose row is not this controller's: failed; the read goes on */
} next_kind_t;

typedef struct {
    const lg_claim_t *claim; /* whose campaigns the read may take (set by the scheduler) */
    next_kind_t kind;
    uint64_t cid;
    char name[64], between[16], state[16];
    uint32_t ordinal;
    char cfgord[16];
    char labels[1024];
    lg_row_t *run; /* NX_RUN: the run's row (RUN_COLS); the loop frees it */
    /* NX_REDUCE: the config's reduction probe ({"probe","params"} JSON) to run before (after = 0)
     * its first run or after its last (cfgord, labels as for a gate) */
    int after;
    int resumed; /* NX_GATE: a pause gate that lgctl resume let go (034_gate_resumed) */
    int sealed;  /* its row carries this controller's seal (else the probe is refused) */
    char reduction[8192];
} next_job_t;

/* How many distinct samples of the run each agent has stored. */
typedef struct {
    uint64_t run_id;
    size_t n;
    uint64_t agent_id[LG_RUN_MAX_AGENTS], stored[LG_RUN_MAX_AGENTS];
} count_job_t;

/* An application run's figures as statement parameters: text, NULL where the tool has none (a
 * NaN on the wire). Filled on the loop (lg__app_totals_row), bound off it. */
#define LG_APP_RESULT_COLS 21
typedef struct {
    char v[LG_APP_RESULT_COLS][32];
    const char *p[LG_APP_RESULT_COLS];
} lg_app_row_t;

/* An agent's RunResult on its way to the database (controller/store.c). */
typedef struct {
    uint64_t run_id, agent_id;
    int current;      /* of the current run, in its merge (not lost) */
    uint64_t samples; /* the samples it says it sent */
    char ex[16], nj[16], started[24];
    int has_started;
    char io_start[24], io_end[24]; /* when its measured I/O began and ended; "" unknown */
    char *fio_json, *dc;
    lg_dirstats_t *dirs[LG_DIR_NR];
    int has_app; /* an application run: its totals into lg.app_result */
    lg_app_row_t app;
    char *app_output;
} result_job_t;

/* A merged result row within a state change's transaction (lg_tx_step). */
typedef struct {
    uint64_t run_id, agent_id;
    lg_dir_t d;
    lg_dirstats_t *s;
} result_step_t;

/* A run a stopped controller left "running", as the database holds it: its row, its lg.run_agent
 * rows, the per-agent results already stored (hist as text), and per agent and seq the stored
 * samples (agent_id, seq, interval_ms, ios) for the steady-state rounds. */
typedef struct {
    lg_row_t *run; /* NULL: none was left running */
    lg_row_t **agents, **results, **samples;
    size_t nagents, nresults, nsamples;
} lg_takeup_t;

/* Read it (at startup, before the loop runs): a run of claim's campaigns, its row sealed by
 * claim's key. Returns 0, or an error with err set. */
int lg__sched_takeup_read(PGconn *db, const lg_claim_t *claim, lg_takeup_t *t, char *err,
                          size_t errlen);
/* Frees what t holds (not t itself) and zeroes it. */
void lg__sched_takeup_clear(lg_takeup_t *t);
/* Take the run up (sched_start.c): its agents get their parts again as they come back. */
int lg__sched_take_up(lg_ctrl_t *c, const lg_takeup_t *t);

int lg__sched_known_work(PGconn *db, void *job, char *err, size_t errlen);
int lg__sched_next_work(PGconn *db, void *job, char *err, size_t errlen);
int lg__sched_count_work(PGconn *db, void *job, char *err, size_t errlen);
int lg__sched_result_work(PGconn *db, void *job, char *err, size_t errlen);
/* The statement parameters of an AppStats / AppTotals (see lg_app_row_t). */
void lg__app_totals_row(const Lg__AppTotals *a, lg_app_row_t *out);
int lg__sched_result_step(PGconn *db, void *data, char *err, size_t errlen);

/* A search probe ended (sched_finish.c: lg__sched_finish_run): its figures, and the next step
 * decided in the same transaction (sched_sql.c, lg_search_next): the next probe's load, or the
 * outcome, the unneeded probes skipped and the curve's rates. */
typedef struct {
    uint64_t run_id, search_id;
    int ok;            /* the probe gave a merged result */
    lg_dirstats_t all; /* all its I/Os (reads and writes), merged over agents */
} search_step_t;
int lg__sched_search_step(PGconn *db, void *data, char *err, size_t errlen);
/* SELECT 1: does the database answer again? */
int lg__sched_probe_work(PGconn *db, void *job, char *err, size_t errlen);

/* Row i of r as plain strings by column name (row.h). NULL on allocation failure. */
lg_row_t *lg__sched_row(const PGresult *r, int i);

#endif
