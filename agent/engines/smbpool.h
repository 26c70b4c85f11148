/* smbpool.h: the worker pool of the lgsmb engine for jobs with iodepth > 1: iodepth processes,
 * each with its own libsmbclient context and SMB session, serving one queued I/O at a time and
 * reporting completions on one pipe. Used by lgsmb.c only; compiled into lgsmb.so. */
#ifndef LG_ENGINE_SMBPOOL_H
#define LG_ENGINE_SMBPOOL_H

#include "smbconn.h"

typedef struct lg_smbpool lg_smbpool_t;

/* Control requests that lg_smbpool_all() sends to every worker (LG_SMBPOOL_CONNECT: through
 * lg_smbpool_connect). */
enum { LG_SMBPOOL_CONNECT = 1, LG_SMBPOOL_OPEN, LG_SMBPOOL_CLOSE };

/* iodepth workers for td, forked and waiting for requests (not yet connected). Caller owns *out
 * (lg_smbpool_destroy). Returns 0 or a negative errno value; on failure err says why. */
int lg_smbpool_new(struct thread_data *td, lg_smbpool_t **out, char *err, size_t errlen);
/* Stop the workers (each closes its files and logs off), wait for them and free the pool.
 * Takes ownership of *self_p and sets it to NULL; NULL or *NULL: nothing. */
void lg_smbpool_destroy(lg_smbpool_t **self_p);
/* op (LG_SMBPOOL_CONNECT, LG_SMBPOOL_OPEN with open(2) flags, LG_SMBPOOL_CLOSE) on file f in
 * every worker, once all are idle; returns 0 or the first failure's negative errno with its
 * reason in why. */
int lg_smbpool_all(struct thread_data *td, lg_smbpool_t *p, uint32_t op, const struct fio_file *f,
                   int flags, char *why, size_t whylen);
/* Every worker connected and logged on to file f's share: worker 0 alone first, whose failure is
 * reported at once (the target is wrong); then the others with at most 8 connects in flight per
 * fio run (a lock file in the working folder, when it is this user's alone), those that failed for
 * the server's load (timed out, refused, reset, out of resources) tried again after a growing
 * pause; all before the job's deadline (smb_connect_timeout, counted from its first call). Then,
 * with the lock, waits until no other job of the fio run is still logging on, so that no job's
 * I/O starves the others' logons. Answers fio's status thread meanwhile. Returns 0 or a negative
 * errno value with the reason in why (at the deadline: how many of the sessions came up, the last
 * failure and the server). */
int lg_smbpool_connect(struct thread_data *td, lg_smbpool_t *p, const struct fio_file *f, char *why,
                       size_t whylen);
/* fio's hooks for a job with a pool: queue() hands io_u to an idle worker (a sync waits for
 * every write before it); commit() counts what was queued since the last one; getevents() and
 * event() hand back completions. The io_u stay fio's. */
enum fio_q_status lg_smbpool_queue(struct thread_data *td, lg_smbpool_t *p, struct io_u *io_u);
void lg_smbpool_commit(struct thread_data *td, lg_smbpool_t *p);
int lg_smbpool_getevents(struct thread_data *td, lg_smbpool_t *p, unsigned int min,
                         unsigned int max, const struct timespec *t);
struct io_u *lg_smbpool_event(const lg_smbpool_t *p, int event);

#endif
