/* sched_int.h: what the scheduler's files share and nothing else in the controller uses. Each
 * file calls only files listed after it: sched.c (the tick, what runs next, agents coming and
 * going), sched_start.c (a run's start, a take-up), sched_result.c (RunResults, RunErrors),
 * sched_finish.c (a run's end), sched_gate.c and sched_reduce.c (programs run for a config: they
 * wake the scheduler through the callback they are given), sched_steady.c (samples, steady
 * state), sched_known.c (who took part in which run), sched_run.c (the current run), sched_tx.c
 * (state changes to the store) and sched_sql.c (the SQL, on the store's thread). Not a public API
 * (ctrl.h holds what the rest of the controller calls). */
#ifndef LG_SCHED_INT_H
#define LG_SCHED_INT_H

#include <stdio.h>

#include "ctrl.h"
#include "lg_steady.h"
#include "row.h"
#include "store.h"

static inline void lg__sched_u64(char *buf, size_t len, uint64_t v)
{
    snprintf(buf, len, "%llu", (unsigned long long)v);
}

/* Called on the loop once a program the scheduler started for a config (the hook, a reduction
 * probe) has ended and its outcome is queued: what runs next is read again (lg__sched_tick). */
typedef void (*lg_sched_wake_fn)(lg_ctrl_t *c);

/* ---- sched_tx.c: state changes, in the store's order ---- */
/* Open a transaction named fmt (with id): every lg__sched_q and lg__sched_step until
 * lg__sched_commit joins it. Out of memory is said; the statements are then dropped. */
void lg__sched_begin(lg_ctrl_t *c, const char *fmt, unsigned long long id);
/* Hand the open transaction to the store; done, if given, runs once it committed (or was
 * refused: rc). Returns 0 or -ENOMEM (none open: done is never called). */
int lg__sched_commit_then(lg_ctrl_t *c, lg_store_done_fn done, void *arg);
void lg__sched_commit(lg_ctrl_t *c);
/* A state change of one statement, or one more statement of the open transaction: queued to the
 * store in order. 0 or -ENOMEM (said). */
int lg__sched_q(lg_ctrl_t *c, const char *what, const char *sql, int n, const char *const *p);
/* A step of the open transaction run on the store's thread (lg_tx_step); takes data (freed with
 * free_data). Returns 0, or -ENOMEM when none is open (data not taken). */
int lg__sched_step(lg_ctrl_t *c, int (*fn)(PGconn *, void *, char *, size_t), void *data,
                   void (*free_data)(void *));

/* ---- sched_run.c: the current run ---- */
lg_run_agent_t *lg__sched_find_ra(lg_ctrl_t *c, size_t conn);
/* The agent's name, or "(not connected)"; valid while the agent list is unchanged. */
const char *lg__sched_ra_name(lg_ctrl_t *c, const lg_run_agent_t *ra);
/* Messages to a run's agent (nothing when it is not connected). */
void lg__sched_send(lg_ctrl_t *c, lg_run_agent_t *ra, Lg__Envelope *env);
void lg__sched_send_stop(lg_ctrl_t *c, lg_run_agent_t *ra);
void lg__sched_send_prepare(lg_ctrl_t *c, lg_run_agent_t *ra);
/* How long the current run's Prepare may take. */
uint64_t lg__sched_prepare_budget_ms(const lg_current_t *cur);
/* Fill c->cur from a row of RUN_COLS (sched_jobs.h), read by core/lg_runrow.h's table; a name
 * no enum has is warned of and read as it always was (target kind file, phase measure). */
void lg__sched_load_run(lg_ctrl_t *c, const lg_row_t *r);
/* Is every agent of the run in state a or b? */
int lg__sched_all(lg_ctrl_t *c, lg_ra_state_t a, lg_ra_state_t b);

/* ---- sched_known.c ---- */
/* The agent took part in the run: its late samples and results are stored. */
void lg__sched_known_took_part(lg_ctrl_t *c, uint64_t run_id, uint64_t agent_id);

/* ---- sched_steady.c ---- */
/* The steady-state window's figures as JSON (lg.run.ss_window); caller frees *out. */
void lg__sched_steady_json(lg_ctrl_t *c, const lg_steady_t *w, char **out);
/* After a restart: count again what the database holds of the run's samples (rows of agent_id,
 * seq, interval_ms, ios). */
void lg__sched_steady_rebuild(lg_ctrl_t *c, lg_row_t *const *rows, size_t n);

/* ---- sched_finish.c: a run's end ---- */
/* Merge the results in, store them with the run's state (error, if given, as its error) and go
 * idle. */
void lg__sched_finish_run(lg_ctrl_t *c, const char *error);
/* The run failed (fmt with detail, unless it has an error already): Stop to its agents; it ends
 * once the running ones have reported, or at the stop deadline. */
void lg__sched_fail_run(lg_ctrl_t *c, const char *fmt, const char *detail);
/* The same for a cause that may pass (a target's connect or login, an agent lost, a prepare past
 * its deadline): when it is the run's first, the run is tried again (its retries). */
void lg__sched_fail_transient(lg_ctrl_t *c, const char *fmt, const char *detail);
/* Every result is in (cur->finish_when_stored): count the stored samples off the loop, and end
 * the run once they are all there (or after a wait). */
void lg__sched_check_stored(lg_ctrl_t *c);

/* ---- sched_start.c ---- */
/* Start the run of row r (RUN_COLS) of campaign cid, or wait for agents (cur->next_read_ms). */
void lg__sched_start_run(lg_ctrl_t *c, uint64_t cid, const lg_row_t *r);

/* ---- sched_gate.c: between SUT configs ---- */
/* A config's labels for a program the controller runs for it: LG_CAMPAIGN, LG_CONFIG,
 * LG_LABELS=json, LG_LABEL_<KEY>=value and LG_PHASE=before|after (after: the config's last run
 * is over) into env (NULL-terminated), the strings in buf. */
void lg__sched_config_env(const char *name, const char *config_ordinal, const char *labels,
                          int after, char *env[80], char buf[80][320]);
/* The gate before the first run of a config (after 0), or after the campaign's last (after 1: the
 * hook only): a pause (the campaign paused, saying why), or the hook run (phase PH_HOOK until it
 * ends; then PH_IDLE, its outcome stored, and wake called unless the controller stops). Returns
 * 0: the run waits either way. */
int lg__sched_gate(lg_ctrl_t *c, uint64_t cid, const char *name, const char *between,
                   uint32_t ordinal, const char *config_ordinal, const char *labels, int after,
                   lg_sched_wake_fn wake);

/* A pause gate that lgctl resume let go (034_gate_resumed): the operator's read-back check runs
 * as after a hook (lg__sched_check), else the gate is passed and wake called at once. */
void lg__sched_gate_resumed(lg_ctrl_t *c, uint64_t cid, const char *name, uint32_t ordinal,
                            const char *config_ordinal, const char *labels, lg_sched_wake_fn wake);
/* The config's gate is passed (gate_passed = ordinal, message cleared), queued. */
void lg__sched_gate_pass(lg_ctrl_t *c, uint64_t cid, uint32_t ordinal);
/* The campaign stops before the config is measured: failed with msg, its pending runs aborted
 * (the transaction "stop campaign N after its hook failed", or its check: what). */
void lg__sched_gate_fail(lg_ctrl_t *c, uint64_t cid, const char *what, const char *msg);

/* ---- sched_check.c ---- */
/* After the hook before a config: run the operator's --readback with env (phase PH_HOOK until it
 * ends), store what it read (lg.config_check) and pass the gate when every label it read matches,
 * else stop the campaign naming the config and the setting; then wake unless the controller
 * stops. desc names the config ("before config 2 {...}"). */
void lg__sched_check(lg_ctrl_t *c, uint64_t cid, uint32_t ordinal, const char *config_ordinal,
                     const char *labels, const char *desc, char *const *env, lg_sched_wake_fn wake);

/* ---- sched_reduce.c ---- */
/* Run a config's reduction probe (next_job: an NX_REDUCE next_job_t) with env: phase PH_HOOK
 * until it ends, then PH_IDLE, its figures (or why there are none) stored, and wake called unless
 * the controller stops. A probe that cannot run is stored as such at once (no wake). */
void lg__sched_reduce(lg_ctrl_t *c, const void *next_job, char *const *env, lg_sched_wake_fn wake);

#endif
