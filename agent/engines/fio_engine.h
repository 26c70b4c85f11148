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

#include <stdlib.h>

#include "fiogate.h"

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

/* lg__fio_gated: is this fio lg-agent's measured run behind a start gate (LG_FIO_GATE set)? A
 * job then logs in at ->init, everything it can before the instant, and passes the gate. */
static inline const char *lg__fio_gated(void)
{
    const char *g = getenv(LG_FIOGATE_ENV);
    return g && g[0] ? g : NULL;
}

/* lg__fio_first_io: called as a job queues an I/O; the first time (*noted still 0), a gated job
 * writes when (fiogate.h, LG_FIOGATE_FIRST): the run's start skew is measured at the first I/O,
 * not at the instant the agents were told. */
static inline void lg__fio_first_io(struct thread_data *td, int *noted)
{
    if (*noted)
        return;
    *noted = 1;
    const char *gate = lg__fio_gated();
    if (!gate)
        return;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    lg_fiogate_first_io(gate, td->thread_number, (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000);
}

/* What a job does every few ms while it waits at the gate, besides answering fio: an engine whose
 * sessions need servicing while idle (an iSCSI target's NOP-In wants an answer) passes its own. */
typedef void (*lg__fio_idle_fn)(struct thread_data *td);
typedef struct {
    struct thread_data *td;
    lg__fio_idle_fn idle;
} lg__fio_gate_wait_t;

static inline int lg__fio_gate_tick(void *arg)
{
    lg__fio_gate_wait_t *w = arg;
    lg__fio_answer_status(w->td);
    if (w->idle)
        w->idle(w->td);
    return w->td->terminate;
}

/* lg__fio_gate: the end of an engine's ->init, once the job's connections are up and
 * td->io_ops_data set. With no gate (fio run by hand) nothing happens. Else the job's files are
 * opened through fio now (td_io_open_file, as its job loop would at the first I/O; the engines
 * log in or open on the server there, round trips that would otherwise follow the instant), the
 * job says it is ready and waits for the agreed instant (fiogate.h), answering fio's status
 * thread (and calling idle, unless NULL), and returns at it: fio sets the job's epoch after ->init
 * (backend.c, thread_main: td_io_init ... set_epoch_time), so ramp_time and runtime count from the
 * instant, on every agent alike. Returns 0, or 1 with the job's error set (an open failed, the run
 * was called off, fio is ending, or no instant came within LG_FIOGATE_WAIT_S), as ->init returns:
 * fio then closes what is open and calls ->cleanup. */
static inline int lg__fio_gate(struct thread_data *td, const char *engine, lg__fio_idle_fn idle)
{
    const char *gate = lg__fio_gated();
    if (!gate)
        return 0;
    struct fio_file *f;
    unsigned int i;
    for_each_file(td, f, i)
    {
        if (!fio_file_open(f) && td_io_open_file(td, f)) {
            if (!td->error)
                td_verror(td, EIO, "open");
            return 1; /* the engine said why */
        }
    }
    char err[PATH_MAX + 128];
    int64_t at;
    lg__fio_gate_wait_t w = {td, idle};
    int rc = lg_fiogate_pass(gate, td->thread_number, lg__fio_gate_tick, &w, &at, err, sizeof err);
    if (rc) {
        log_err("%s: %s\n", engine, err);
        td_vmsg(td, -rc, err, "init");
        return 1;
    }
    return 0;
}

/* lg__fio_gate_cleanup: the start of an engine's ->cleanup, which fio calls after a failed ->init
 * too: a job that failed behind the gate says why (fiogate.h), so the agent fails the run's
 * Prepare at once with the job's own error instead of waiting for jobs that are ready. */
static inline void lg__fio_gate_cleanup(struct thread_data *td)
{
    const char *gate = lg__fio_gated();
    if (gate && td->error)
        lg_fiogate_fail(gate, td->thread_number, td->verror);
}

#endif
