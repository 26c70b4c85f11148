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

#include <dirent.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

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
    /* Claimed atomically: the job's answerer thread (below) answers too. fio's own answer in
     * its job loop (check_update_rusage) is a plain read then write; should both answer one
     * request, the spare fio_sem_up only lets a later report skip its wait for this job, whose
     * figures the report reads from shared memory anyway. */
    if (td && td->rusage_sem && td->update_rusage &&
        __atomic_exchange_n(&td->update_rusage, 0, __ATOMIC_ACQ_REL)) {
        update_rusage_stat(td);
        fio_sem_up(td->rusage_sem);
    }
}

/* lg__fio_answerer_t: a thread in a job's process that answers fio's status thread every
 * LG__FIO_ANSWER_MS, whatever the job does. fio's jobs are processes that each call setsid(), and
 * Linux's autogroup (on by default in Debian's kernels) then makes each job a scheduling group of
 * its own, with its SMB workers: on a load host whose CPUs are all busy, a job that is runnable
 * but has had more than its share within its group waited up to 4 s here for a CPU while its
 * workers went on, and with it every report of every job (intervals of 1.4 to 5.6 s; with
 * autogroup off, none over 1.02 s). A thread that sleeps all but a few microseconds is picked at
 * once when it wakes. It is started only for a job that is a process: in a thread fio measures
 * the rusage of the thread that answers. */
#define LG__FIO_ANSWER_MS 5
typedef struct {
    struct thread_data *td;
    pthread_t th;
    int started, stop;
    /* The ramp's mark (lg__fio_gate sets it, in the first job only): when it has come (local
     * CLOCK_REALTIME, us), ask fio for a report. 0: none. */
    int64_t mark_us;
    const char *gate;
} lg__fio_answerer_t;

static inline int64_t lg__fio_now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* The ramp's mark, a second past the ramp's planned end: fio ends each job's ramp on its own (at
 * its first completion past ramp_time), sets its figures to zero and restarts its report timer,
 * so its own first report after the ramp comes a second after the *last* job's ramp end, which a
 * load host short of CPU spreads by up to 0.7 s (first samples of 1.6 to 2 s). Instead the first
 * job asks fio's main process, its parent, for a report then (SIGUSR1: fio's sig_show_status),
 * from its answerer, which is real time and wakes every 5 ms (lg-agent's own timer came up to
 * 0.9 s late on a loaded host). fio's own next report ends a short sample (lg-agent folds one
 * under 0.5 s into the first). */
static inline void lg__fio_answer_mark(lg__fio_answerer_t *a)
{
    int64_t mark = __atomic_load_n(&a->mark_us, __ATOMIC_ACQUIRE);
    if (mark <= 0)
        return;
    int64_t now = lg__fio_now_us();
    if (now < mark)
        return;
    __atomic_store_n(&a->mark_us, 0, __ATOMIC_RELEASE);
    pid_t fio = getppid();
    if (fio > 1 && kill(fio, SIGUSR1) == 0 && a->gate)
        lg_fiogate_mark(a->gate, a->td->thread_number, now);
}

static inline void *lg__fio_answerer_main(void *arg)
{
    lg__fio_answerer_t *a = arg;
    const struct timespec nap = {0, LG__FIO_ANSWER_MS * 1000000L};
#ifdef __linux__
    /* Real time while it sleeps, as lg-agent's start stage: a group starved of CPU starves an
     * ordinary thread in it too (gaps of 0.95 s here); a real-time one waits for none (5 ms).
     * It works microseconds per wake. Best effort: without the privilege it stays as it is. */
    struct sched_param rt = {.sched_priority = 1};
    pthread_setschedparam(pthread_self(), SCHED_FIFO, &rt);
#endif
    while (!__atomic_load_n(&a->stop, __ATOMIC_ACQUIRE)) {
        lg__fio_answer_status(a->td);
        lg__fio_answer_mark(a);
        nanosleep(&nap, NULL);
    }
    return NULL;
}

/* lg__fio_rt_reporter: from an engine's ->setup, which fio runs in its main process (before it
 * starts any job, create_serialize=1, its default): make fio's helper thread, which times the
 * --status-interval reports and writes them, real time (SCHED_FIFO 1), best effort and once. It
 * is then the one thread of the process besides the caller; elsewhere (setup in a job) nothing is
 * done. For the same reason as the answerer: in a group starved of CPU the helper woke for a
 * report up to 0.8 s late. It sleeps between reports and works a few ms for each. */
static inline void lg__fio_rt_reporter(void)
{
#ifdef __linux__
    static int done;
    if (__atomic_exchange_n(&done, 1, __ATOMIC_RELAXED))
        return;
    pid_t self = (pid_t)syscall(SYS_gettid);
    if (self != getpid())
        return;
    DIR *d = opendir("/proc/self/task");
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        char *end;
        long tid = strtol(e->d_name, &end, 10);
        if (*end || tid <= 0 || tid == self)
            continue;
        struct sched_param rt = {.sched_priority = 1};
        sched_setscheduler((pid_t)tid, SCHED_FIFO, &rt);
    }
    closedir(d);
#endif
}

/* lg__fio_answerer_start: at the start of ->init, in the job's process. Without the thread (none
 * could be made, or the job is a thread) the job's own waits still answer. */
static inline void lg__fio_answerer_start(lg__fio_answerer_t *a, struct thread_data *td)
{
    memset(a, 0, sizeof *a);
    a->td = td;
    if (!td->o.use_thread && pthread_create(&a->th, NULL, lg__fio_answerer_main, a) == 0)
        a->started = 1;
}

/* lg__fio_answerer_stop: in ->cleanup (and wherever ->init fails after the start). */
static inline void lg__fio_answerer_stop(lg__fio_answerer_t *a)
{
    if (!a->started)
        return;
    __atomic_store_n(&a->stop, 1, __ATOMIC_RELEASE);
    pthread_join(a->th, NULL);
    a->started = 0;
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
 * thread (and calling idle, unless NULL), and returns at it (the first job then sets ans's ramp
 * mark, lg__fio_answer_mark; ans may be NULL): fio sets the job's epoch after ->init
 * (backend.c, thread_main: td_io_init ... set_epoch_time), so ramp_time and runtime count from the
 * instant, on every agent alike. Returns 0, or 1 with the job's error set (an open failed, the run
 * was called off, fio is ending, or no instant came within LG_FIOGATE_WAIT_S), as ->init returns:
 * fio then closes what is open and calls ->cleanup. */
static inline int lg__fio_gate(struct thread_data *td, const char *engine, lg__fio_idle_fn idle,
                               lg__fio_answerer_t *ans)
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
    if (ans && ans->started && td->thread_number == 1 && td->o.ramp_time) {
        ans->gate = gate;
        __atomic_store_n(&ans->mark_us, at + (int64_t)td->o.ramp_time + 1000000, __ATOMIC_RELEASE);
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
