/* store.h: the controller's database work off its event loop. Jobs run one at a time, in the
 * order given, on a thread of the store's own (sys/lg_lane.h, not libuv's shared pool) with its own
 * connection (never the loop's); each job's completion is called back on the loop thread. So a slow
 * or absent database never stalls heartbeats, clock Pings or start instants. */
#ifndef LG_STORE_H
#define LG_STORE_H

#include <stddef.h>
#include <stdint.h>
#include <uv.h>

#include "db.h"

typedef struct lg_store lg_store_t;

/* Runs on the store's thread with the store's connection (connected, or reconnected, before the
 * call). Returns 0 or a negative error with err set; it must not touch the loop's state. */
typedef int (*lg_store_work_fn)(PGconn *db, void *job, char *err, size_t errlen);
/* Runs on the loop thread once the job ran (rc, err from the work; LG_EDB when the database
 * could not be reached). Owns job again: free it here. */
typedef void (*lg_store_done_fn)(void *arg, void *job, int rc, const char *err);

/* Caller owns the result (lg_store_destroy). NULL on allocation failure. */
lg_store_t *lg_store_new(uv_loop_t *loop, const char *conninfo);
/* Queue a job. The store holds job until done is called (always, exactly once, unless the store
 * is destroyed first: then done is called with LG_ESTATE during lg_store_destroy).
 * Returns 0 or -ENOMEM (done is not called). */
int lg_store_submit(lg_store_t *s, lg_store_work_fn work, lg_store_done_fn done, void *arg,
                    void *job);
/* Since when (lg_mono_ms) the database has been unreachable, as the last job found it; 0 when
 * it is reachable. */
uint64_t lg_store_away_since(const lg_store_t *s);

/* A state change: statements (and steps) run in one transaction, after every job queued before
 * it. Queued with lg_store_tx, it is tried again, with a growing pause (0.5 to 5 s), while the
 * database is unreachable, holding the jobs behind it, so state changes land whole and in
 * order; a statement the database refuses is logged ("could not WHAT: ...") and the rest of
 * the transaction is rolled back. */
typedef struct lg_tx lg_tx_t;
/* NULL on allocation failure (lg_store_tx then says so). */
lg_tx_t *lg_tx_new(const char *what);
/* A statement with text parameters (copied; NULL is SQL NULL). */
void lg_tx_sql(lg_tx_t *t, const char *sql, int n, const char *const *params);
/* A step of C on the store's thread inside the transaction; free_fn(data) once it is done. */
void lg_tx_step(lg_tx_t *t, lg_store_work_fn fn, void *data, void (*free_fn)(void *));
/* Queue t (the store owns it). done, if given, runs on the loop once it committed (rc 0) or
 * was refused (job is NULL). Returns 0 or -ENOMEM (logged; t is freed). */
int lg_store_tx(lg_store_t *s, lg_tx_t *t, lg_store_done_fn done, void *arg);

/* What a state change holds, for logs and tests: its name, its statements (NULL for a step
 * of C) with their parameters, and destroying one that was never queued (*self_p freed and set
 * to NULL; NULL or *NULL: nothing). */
const char *lg_tx_what(const lg_tx_t *t);
size_t lg_tx_count(const lg_tx_t *t);
const char *lg_tx_sql_at(const lg_tx_t *t, size_t i, int *nparams, const char *const **params);
void lg_tx_destroy(lg_tx_t **self_p);

/* Jobs queued or running. */
size_t lg_store_pending(const lg_store_t *s);
/* Is a job running on the store's thread (the store can be freed only when not)? */
int lg_store_busy(const lg_store_t *s);
/* Start no more jobs (the controller is stopping and gave up waiting on the database); what is
 * queued stays until lg_store_destroy. */
void lg_store_hold(lg_store_t *s);
/* How long the job running now has waited (ms; 0: none runs): a database that stopped
 * answering shows here before a statement's deadline says so. */
uint64_t lg_store_stalled_ms(const lg_store_t *s);
/* Cancel what is queued (their done callbacks run with LG_ESTATE), and free the store once the
 * running job, if any, has finished. Sets *self_p to NULL. */
void lg_store_destroy(lg_store_t **self_p);

#endif
