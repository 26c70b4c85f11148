/* fio_engine.h: fio's own headers as lg's external engines (lgsmb, lgiscsi) include them. fio's
 * headers are GNU C; the build compiles lg as ISO C11 (CMAKE_C_EXTENSIONS OFF), which hides the
 * plain spellings of asm and typeof. */
#ifndef LG_FIO_ENGINE_H
#define LG_FIO_ENGINE_H

#ifndef asm
#define asm __asm__
#endif
#ifndef typeof
#define typeof __typeof__
#endif
/* fio is built with its debug output (--debug=file shows an engine's own messages). */
#ifndef FIO_INC_DEBUG
#define FIO_INC_DEBUG
#endif
#include "fio.h"
#include "optgroup.h"

/* lg__fio_answer_status: answer fio's status thread for td if it is waiting on this job, as fio's
 * job loop does between I/Os (backend.c, check_update_rusage). Each --status-interval report
 * (stat.c, __show_running_run_stats) reads the jobs' bytes first, then waits for every job to
 * answer, then reads their I/O counts and latencies: a job that sits in an engine's wait (a
 * logon, a reap with nothing completed, a close) holds up the whole report, which then spans
 * seconds and pairs bytes of one instant with counts of a later one. An engine calls this from
 * every wait that can last longer than a few milliseconds. */
static inline void lg__fio_answer_status(struct thread_data *td)
{
    if (td && td->update_rusage && td->rusage_sem) {
        td->update_rusage = 0;
        update_rusage_stat(td);
        fio_sem_up(td->rusage_sem);
    }
}

/* lg__fio_live_bytes: bring the bytes td's status reports print (td->ts.io_bytes) up to what it
 * has done (td->io_bytes). fio copies them only as a report starts, while it reads the I/O
 * counts (counted as I/Os are queued) and latencies (as they complete) only once every job has
 * answered; jobs go on meanwhile, and with more processes than CPUs (4 jobs, their SMB workers
 * and smbd's on 2 cores) the slowest answers tens of ms later: a 1 s sample's bytes were then
 * off its I/Os by several percent. Called as each I/O is queued and reaped, the bytes are as
 * current as the counts. A report reads them twice to decide whether a direction ran
 * (ts.runtime); so that both readings agree, zero is never changed, and a reset (the end of
 * ramp_time) is left to the next report's copy. */
static inline void lg__fio_live_bytes(struct thread_data *td)
{
    for (int d = 0; d < DDIR_RWDIR_CNT; d++) {
        uint64_t done = td->io_bytes[d];
        if (td->ts.io_bytes[d] && done > td->ts.io_bytes[d])
            td->ts.io_bytes[d] = done;
    }
}

#endif
