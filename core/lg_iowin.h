/* lg_iowin.h: when a run's measured I/O began and ended on one load host, from fio's reports.
 * fio resets a job's runtime when its ramp ends (libfio.c, reset_all_stats) and counts it from
 * then while the job does I/O; a report stamped t that gives a job runtime rt says the job's
 * measured I/O began at t - rt at the latest (the stamp is taken after the runtime is read), so
 * the earliest such instant over the reports is the best one. A job counts once it has
 * completed measured I/O (a latency): in its ramp fio counts I/Os but no latencies, and its
 * runtime then runs from the ramp's start. The job's measured I/O ended its
 * largest runtime after that. The host's window runs from its first job's start to its last
 * job's end: what the NAS saw of this host. Logins at the engine's init (lgsmb, lgiscsi) lie
 * before fio's epoch and so outside the window, as does the ramp. Pure C: no I/O. */
#ifndef LG_IOWIN_H
#define LG_IOWIN_H

#include <stddef.h>
#include <stdint.h>

#include "lg_fio.h"

typedef struct {
    size_t n;          /* jobs seen (fio lists them in the same order in every report) */
    int64_t *start_ms; /* per job: earliest t - rt; INT64_MAX while it has no runtime */
    uint64_t *rt_ms;   /* per job: largest runtime seen */
} lg_iowin_t;

/* Take one report after the ramp (the final one included). Returns 0, or -ENOMEM. */
int lg_iowin_note(lg_iowin_t *w, const lg_fio_report_t *rep);
/* The window (Unix ms, the reports' clock): 0 when some job did measured I/O, else -1 (no
 * figures: the caller reports none). */
int lg_iowin_get(const lg_iowin_t *w, int64_t *start_ms, int64_t *end_ms);
/* The longest runtime of a job with measured I/O (ms); 0 when none has. A host whose jobs began
 * together at an instant known more exactly than the reports tell (the start gate's first I/O)
 * anchors its window there and adds this. */
uint64_t lg_iowin_runtime_ms(const lg_iowin_t *w);
/* Free the arrays; the window is empty again. */
void lg_iowin_clear(lg_iowin_t *w);

#endif
