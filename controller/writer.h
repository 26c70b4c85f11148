/* writer.h: the sample writer. Samples accumulate as binary COPY rows; one batch at a time is
 * written by a thread of its own (sys/lg_lane.h, not libuv's shared pool) on its own connection (so
 * ZeroMQ traffic never waits on the database), and only after COMMIT are the agents acknowledged.
 */
#ifndef LG_WRITER_H
#define LG_WRITER_H

#include <stddef.h>
#include <stdint.h>
#include <uv.h>

#include "lg.pb-c.h"
#include "spill.h"

typedef struct lg_writer lg_writer_t;

/* Called on the loop thread for each range seq_from..seq of an (agent, run)'s samples that is
 * committed (a batch can hold several ranges of one agent: resent samples beside new ones). */
typedef void (*lg_writer_ack_cb)(void *arg, const uint8_t *id, size_t idlen, uint64_t run_id,
                                 uint64_t seq_from, uint64_t seq);

/* Called on the loop thread after each batch (written or failed), e.g. to resume reading. */
typedef void (*lg_writer_done_cb)(void *arg);

/* Caller owns the result. NULL on allocation failure. The connection opens on first flush. */
lg_writer_t *lg_writer_new(uv_loop_t *loop, const char *conninfo, lg_writer_ack_cb ack, void *arg);
void lg_writer_on_done(lg_writer_t *w, lg_writer_done_cb done);
/* Rows waiting for the next batch (not the one in flight). */
size_t lg_writer_queued(const lg_writer_t *w);
/* Queue one sample's rows (one per direction). Returns 0, -ENOMEM or LG_EPROTO (bad stats). */
int lg_writer_add(lg_writer_t *w, const uint8_t *id, size_t idlen, uint64_t agent_id,
                  const Lg__Sample *s);
/* Start writing what is queued unless a batch is in flight. */
void lg_writer_flush(lg_writer_t *w);
/* The database answers again (the store found it back): a batch that failed is tried now, not
 * after the rest of its pause. */
void lg_writer_retry_now(lg_writer_t *w);
/* 1 while the database does not take samples (the last batch failed and is being retried). */
int lg_writer_failing(const lg_writer_t *w);
/* Rows not stored yet: queued, in flight, or in the spool. */
size_t lg_writer_pending(const lg_writer_t *w);
/* Rows held only in memory (lost if the controller stopped now; their agents still have them). */
size_t lg_writer_unsaved(const lg_writer_t *w);
/* Rows in the spool on disk, not stored yet. */
uint64_t lg_writer_spooled(const lg_writer_t *w);
/* Give the writer a spool (it owns it from now on): while the database does not take samples
 * they are appended there and acknowledged once fsynced, then written from it oldest first. */
void lg_writer_set_spool(lg_writer_t *w, lg_spill_t *spill);
/* Totals since start. */
uint64_t lg_writer_rows_written(const lg_writer_t *w);
/* Free once no batch is in flight, to the database or the spool (the loop must run until
 * lg_writer_busy() is 0). */
int lg_writer_busy(const lg_writer_t *w);
void lg_writer_destroy(lg_writer_t **self_p);

#endif
