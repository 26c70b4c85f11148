/* spool.h: samples and results the agent sent but the controller has not yet committed.
 * Entries stay until acknowledged and are resent after a reconnect or when an ack is overdue. */
#ifndef LG_SPOOL_H
#define LG_SPOOL_H

#include <stddef.h>
#include <stdint.h>

typedef struct lg_spool lg_spool_t;

/* Caller owns the result; max_bytes bounds the memory held (LG_ETOOBIG on put beyond it). */
lg_spool_t *lg_spool_new(size_t max_bytes);
/* Takes ownership of buf (a packed Envelope, malloc'd) in every case. seq 0 with is_result marks
 * the run's RunResult. Returns 0, -ENOMEM or LG_ETOOBIG. */
int lg_spool_put(lg_spool_t *s, uint64_t run_id, uint64_t seq, int is_result, uint8_t *buf,
                 size_t len, uint64_t now_ms);
/* Drop samples of run_id with seq_from <= seq <= seq (seq_from 0: every one up to seq, as an older
 * controller means it), and the run's result if result is set.
 * Returns how many entries were dropped. */
size_t lg_spool_ack(lg_spool_t *s, uint64_t run_id, uint64_t seq_from, uint64_t seq, int result);
typedef int (*lg_spool_send_fn)(void *arg, const uint8_t *buf, size_t len);
/* Resend, in order, the entries last sent at or before now_ms - min_age_ms (0: all).
 * Stops at the first send that fails. Returns how many were sent. */
size_t lg_spool_resend(lg_spool_t *s, uint64_t now_ms, uint64_t min_age_ms, lg_spool_send_fn fn,
                       void *arg);
size_t lg_spool_count(const lg_spool_t *s);
size_t lg_spool_bytes(const lg_spool_t *s);
void lg_spool_destroy(lg_spool_t **self_p);

#endif
