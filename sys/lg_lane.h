/* lg_lane.h: a thread of one's own for a libuv loop's blocking work. A lane runs what is queued on
 * it one job at a time, in order, on its own thread, and hands each back to the loop: what
 * uv_queue_work does on libuv's shared pool, without the sharing. That pool has 4 threads for the
 * whole process (UV_THREADPOOL_SIZE), so a COPY stuck on a slow database could take them all and
 * starve every other user; the controller's sample writer (its COPY, and its spool) and its store
 * each run on a lane of their own instead. POSIX only (the controller's). */
#ifndef LG_LANE_H
#define LG_LANE_H

#include <uv.h>

typedef struct lg_lane lg_lane_t;

/* A lane on LOOP whose thread is called NAME (at most 15 characters are kept). NULL with errno
 * set when the thread or the loop's handle cannot be made. */
lg_lane_t *lg_lane_new(uv_loop_t *loop, const char *name);

/* Run WORK(req) on the lane's thread, then AFTER(req, 0) on the loop, as uv_queue_work does with
 * the same callbacks (req->data stays the caller's; nothing else of req is used). Jobs run in the
 * order queued. The loop stays alive until AFTER has run. 0, or UV_EINVAL (no lane, no WORK, or a
 * lane being destroyed), UV_ENOMEM. */
int lg_lane_queue(lg_lane_t *self, uv_work_t *req, uv_work_cb work, uv_after_work_cb after);

/* Jobs queued or running and not yet handed back. */
size_t lg_lane_pending(const lg_lane_t *self);

/* Stop the lane: the job running (if any) runs to its end first (the caller waits for it); jobs
 * queued and not started get AFTER(req, UV_ECANCELED), jobs done get AFTER(req, 0), before this
 * returns. The lane's memory goes when the loop closes its handle, so the loop must run on. May
 * be called from an AFTER of the lane's own. Sets *self_p to NULL; no-op on NULL. */
void lg_lane_destroy(lg_lane_t **self_p);

#endif
