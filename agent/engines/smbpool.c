/* smbpool.c: lgsmb's worker pool, for jobs with iodepth > 1: worker processes (smbworker.c) that
 * each hold a libsmbclient context and serve one queued I/O at a time, with the shared-memory
 * slots their data passes through, a request socket each and one completion pipe; workers parked
 * by an earlier job of the same target adopted, and the pool's parked again at its end
 * (smbpark.c). See smbpool.h. */
#include "smbpool.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/pidfd.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "smblogon.h"
#include "smbpark.h"
#include "smbworker.h"

/* libsmbclient's calls are synchronous and, in Debian's build, two threads of one process cannot
 * be inside it at once (LG__SMB_CALL), so the I/Os a job keeps in flight run in worker processes,
 * iodepth of them, each with its own context and so its own TCP connection and SMB session, one
 * request at a time: forked at ->init, or adopted where an earlier job parked them. fio's buffers
 * are private to the job: data passes through the worker's slot of a shared mapping (a memfd, so
 * that an adopted worker can map its slot too). Requests go down one socket per worker; every
 * worker reports its index on one pipe, so that a single read() collects all the completions that
 * are ready. */

#define S_CHECK_MS 1000      /* how long a wait sees no completion before it checks the workers */
#define S_ANSWER_MS 10       /* how long a wait goes without answering fio's status thread */
#define S_STOP_GRACE_MS 5000 /* a worker's time to close its files and log off at the end */

typedef struct {
    pid_t pid; /* 0 once it is known to have exited */
    int sock;  /* requests to the worker */
    int pidfd; /* an adopted worker's (not this job's child), else -1 */
    int busy;
    int parked;        /* it took LG__SMB_OP_PARK: it lives on, the job's no longer */
    struct io_u *io_u; /* the I/O it is doing; NULL for a control request */
    int64_t result;    /* of its last control request */
} s_worker_t;

struct lg_smbpool {
    struct thread_data *td; /* the job, whose status requests a wait answers */
    s_worker_t *w;
    unsigned n;
    unsigned *idle; /* indexes of idle workers, a stack */
    unsigned nidle;
    int done_fd; /* read end (non-blocking) of the pipe the workers report on */
    int memfd;   /* the slots' memory, for adopted workers to map */
    unsigned char *shm;
    size_t slot_size;
    struct io_u **done; /* completed, not yet handed to fio: [0, nreturned) went out last time */
    unsigned ndone, nreturned;
    unsigned nqueued;   /* since the last commit(), for fio's submit histogram */
    int broken;         /* a worker died: every further I/O fails */
    unsigned io_errors; /* failed I/Os so far, to log only the first ones */
    int64_t connect_by; /* the deadline of the job's logons (monotonic ms), 0 before the first */
    int parking;        /* lg-agent keeps sessions: park holds their key */
    lg__smb_park_t park;
    unsigned adopted; /* workers [0, adopted) were parked by an earlier job */
};

static lg__smb_slot_t *s_slot(const lg_smbpool_t *p, unsigned i)
{
    return (lg__smb_slot_t *)(void *)(p->shm + (size_t)i * p->slot_size);
}

static char *s_slot_data(const lg_smbpool_t *p, unsigned i)
{
    return (char *)s_slot(p, i) + LG__SMB_SLOT_DATA;
}

static int64_t s_now_ms(void)
{
    return lg__smb_now_ms();
}

static void s_pool_park(lg_smbpool_t *p);

/* s_pool_spawn: fork worker i, which reports on done_wr. Returns 0 or a negative errno value. */
static int s_pool_spawn(struct thread_data *td, lg_smbpool_t *p, unsigned i, int done_wr)
{
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
        return -errno;
    pid_t job = getpid();
    /* No other thread of the process is inside libsmbclient while its state is copied. */
    pthread_mutex_lock(&lg__smb_lock);
    pid_t pid = fork();
    if (pid == 0) {
        pthread_mutex_t fresh = PTHREAD_MUTEX_INITIALIZER;
        lg__smb_lock = fresh;
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != job)
            _exit(1);
        /* Keep only stdio, the socket and the pipe: a copy of another worker's socket (or, with
         * jobs as threads, another job's) would keep that worker from seeing its end. */
        int lo = sv[1] < done_wr ? sv[1] : done_wr, hi = sv[1] < done_wr ? done_wr : sv[1];
        if (lo > 3)
            close_range(3, (unsigned)lo - 1, 0);
        if (hi > lo + 1)
            close_range((unsigned)lo + 1, (unsigned)hi - 1, 0);
        close_range((unsigned)hi + 1, ~0U, 0);
        lg__smb_job_t me = {.sock = sv[1],
                            .done_wr = done_wr,
                            .index = i,
                            .slot = s_slot(p, i),
                            .slot_size = p->slot_size,
                            .map = p->shm,
                            .map_len = (size_t)p->n * p->slot_size,
                            .nfiles = td->files_index ? td->files_index : 1};
        lg__smb_worker_main(td, &me, p->parking ? &p->park : NULL);
    }
    int e = errno;
    pthread_mutex_unlock(&lg__smb_lock);
    close(sv[1]);
    if (pid < 0) {
        close(sv[0]);
        return -e;
    }
    p->w[i].pid = pid;
    p->w[i].sock = sv[0];
    return 0;
}

/* s_worker_gone: whether worker w, not parked, has exited; a child is reaped. */
static int s_worker_gone(const s_worker_t *w, int *status)
{
    if (w->pidfd >= 0) {
        struct pollfd q = {w->pidfd, POLLIN, 0};
        return poll(&q, 1, 0) == 1;
    }
    return waitpid(w->pid, status, WNOHANG) == w->pid;
}

/* s_pool_stop: wait for the workers that are not parked to end (their sockets closed: each
 * closes its files and logs off), for at most S_STOP_GRACE_MS, then kill those that are left. */
static void s_pool_stop(lg_smbpool_t *p)
{
    int64_t deadline = s_now_ms() + S_STOP_GRACE_MS;
    for (unsigned i = 0; p->w && i < p->n; i++) {
        s_worker_t *w = &p->w[i];
        int gone = w->pid <= 0 || w->parked;
        while (!gone && !(gone = s_worker_gone(w, NULL)) && s_now_ms() < deadline) {
            struct timespec ts = {0, 5 * 1000 * 1000};
            lg__fio_answer_status(p->td); /* logging off can take a while */
            nanosleep(&ts, NULL);
        }
        if (!gone && w->pidfd >= 0) {
            pidfd_send_signal(w->pidfd, SIGKILL, NULL, 0);
        } else if (!gone) {
            kill(w->pid, SIGKILL);
            waitpid(w->pid, NULL, 0);
        }
        if (w->pidfd >= 0)
            close(w->pidfd);
        w->pidfd = -1;
        w->pid = 0;
    }
}

/* lg_smbpool_destroy: park the workers (when lg-agent keeps sessions and the job ended well), or
 * stop them (each closes its files and logs off) and wait for them; free the pool. Takes
 * ownership of *self_p and sets it to NULL. */
void lg_smbpool_destroy(lg_smbpool_t **self_p)
{
    lg_smbpool_t *p = self_p ? *self_p : NULL;
    if (!p)
        return;
    if (p->parking && p->w && !p->broken && !p->td->error)
        s_pool_park(p);
    for (unsigned i = 0; p->w && i < p->n; i++) {
        if (p->w[i].sock >= 0)
            close(p->w[i].sock);
        p->w[i].sock = -1;
    }
    s_pool_stop(p);
    if (p->done_fd >= 0)
        close(p->done_fd);
    if (p->memfd >= 0)
        close(p->memfd);
    if (p->shm)
        munmap(p->shm, (size_t)p->n * p->slot_size);
    free(p->w);
    free(p->idle);
    free(p->done);
    explicit_bzero(&p->park, sizeof p->park);
    free(p);
    *self_p = NULL;
}

/* s_pool_slots: the pool's slots, in a memfd sealed against shrinking (an adopted worker maps its
 * own slot from it, and must not find it cut short) and mapped here. */
static int s_pool_slots(struct thread_data *td, lg_smbpool_t *p, char *err, size_t errlen)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t need = td_max_bs(td) > PATH_MAX + 1 ? td_max_bs(td) : PATH_MAX + 1;
    p->slot_size = (LG__SMB_SLOT_DATA + need + page - 1) / page * page;
    size_t len = (size_t)p->n * p->slot_size;
    p->memfd = memfd_create("lgsmb-slots", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    int e = p->memfd < 0 ? errno : 0;
    if (!e && (ftruncate(p->memfd, (off_t)len) < 0 ||
               fcntl(p->memfd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) < 0))
        e = errno;
    if (!e) {
        p->shm = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, p->memfd, 0);
        if (p->shm == MAP_FAILED) {
            e = errno;
            p->shm = NULL;
        }
    }
    if (e)
        snprintf(err, errlen, "could not map %u SMB worker buffers: %s", p->n, strerror(e));
    return -e;
}

/* s_pool_adopt: workers [0, k) from those an earlier job of the same target parked, k at most n;
 * p->adopted = k. A job that finds none (or may not park) forks them all. */
static void s_pool_adopt(struct thread_data *td, lg_smbpool_t *p, int done_wr)
{
    char err[LG__SMB_DETAIL];
    int rc = lg__smb_park_init(td, &p->park, err, sizeof err);
    if (rc < 0 && td->subjob_number == 0)
        log_err("lgsmb: SMB sessions are not kept for the next run: %s\n", err);
    p->parking = rc > 0;
    if (!p->parking)
        return;
    lg__smb_adopted_t *got = calloc(p->n, sizeof *got);
    if (!got)
        return;
    lg__smb_adopt_t a = {.index = 0,
                         .memfd = p->memfd,
                         .slot_size = p->slot_size,
                         .done_wr = done_wr,
                         .nfiles = td->files_index ? td->files_index : 1};
    p->adopted = lg__smb_park_adopt(td, &p->park, &a, got, p->n);
    for (unsigned i = 0; i < p->adopted; i++) {
        p->w[i].pid = got[i].pid;
        p->w[i].sock = got[i].sock;
        p->w[i].pidfd = got[i].pidfd;
    }
    free(got);
}

/* lg_smbpool_new: iodepth workers for td, adopted or forked, waiting for requests (those forked
 * not yet connected). Caller owns *out (lg_smbpool_destroy). On failure err says why. */
int lg_smbpool_new(struct thread_data *td, lg_smbpool_t **out, char *err, size_t errlen)
{
    unsigned n = td->o.iodepth;
    lg_smbpool_t *p = calloc(1, sizeof *p);
    if (!p) {
        snprintf(err, errlen, "out of memory");
        return -ENOMEM;
    }
    p->td = td;
    p->n = n;
    p->done_fd = p->memfd = -1;
    p->w = calloc(n, sizeof *p->w);
    p->idle = calloc(n, sizeof *p->idle);
    p->done = calloc(n, sizeof *p->done);
    if (!p->w || !p->idle || !p->done) {
        lg_smbpool_destroy(&p);
        snprintf(err, errlen, "out of memory");
        return -ENOMEM;
    }
    for (unsigned i = 0; i < n; i++)
        p->w[i].sock = p->w[i].pidfd = -1;
    int rc = s_pool_slots(td, p, err, errlen);
    if (rc) {
        lg_smbpool_destroy(&p);
        return rc;
    }
    int pfd[2];
    if (pipe2(pfd, O_CLOEXEC) < 0) {
        int e = errno;
        lg_smbpool_destroy(&p);
        snprintf(err, errlen, "could not make the SMB workers' pipe: %s", strerror(e));
        return -e;
    }
    p->done_fd = pfd[0];
    fcntl(p->done_fd, F_SETFL, fcntl(p->done_fd, F_GETFL) | O_NONBLOCK);
    s_pool_adopt(td, p, pfd[1]);
    for (unsigned i = 0; i < n; i++) {
        rc = i < p->adopted ? 0 : s_pool_spawn(td, p, i, pfd[1]);
        if (rc) {
            close(pfd[1]);
            lg_smbpool_destroy(&p);
            snprintf(err, errlen, "could not start SMB worker %u of %u: %s", i + 1, n,
                     strerror(-rc));
            return rc;
        }
        p->idle[n - 1 - i] = i; /* worker 0 on top */
    }
    close(pfd[1]);
    p->nidle = n;
    *out = p;
    return 0;
}

/* fio calls commit(), getevents() and queue() only after it has taken, through event(), all
 * that the last getevents() returned: those entries make room for new completions. */
static void s_drop_reaped(lg_smbpool_t *p)
{
    if (!p->nreturned)
        return;
    memmove(p->done, p->done + p->nreturned, (p->ndone - p->nreturned) * sizeof *p->done);
    p->ndone -= p->nreturned;
    p->nreturned = 0;
}

/* s_pool_finish: worker i is done with a result in its slot; an I/O goes to the done list. A
 * worker that died (alive 0) is not used again. */
static void s_pool_finish(struct thread_data *td, lg_smbpool_t *p, unsigned i, int alive)
{
    if (i >= p->n || !p->w[i].busy)
        return;
    s_worker_t *w = &p->w[i];
    const lg__smb_slot_t *hd = s_slot(p, i);
    w->busy = 0;
    if (alive)
        p->idle[p->nidle++] = i;
    struct io_u *io_u = w->io_u;
    w->io_u = NULL;
    if (!io_u) {
        w->result = hd->result;
        return;
    }
    if (hd->result < 0) {
        io_u->error = (int)-hd->result;
        io_u->resid = io_u->xfer_buflen;
        lg__smb_io_log(td, &p->io_errors, io_u, io_u->error, hd->said);
    } else {
        io_u->error = 0;
        if (io_u->ddir == DDIR_READ)
            memcpy(io_u->xfer_buf, s_slot_data(p, i), (size_t)hd->result);
        io_u->resid = io_u->xfer_buflen - (unsigned long long)hd->result;
    }
    if (p->ndone < p->n)
        p->done[p->ndone++] = io_u;
    else
        log_err("lgsmb: more completions than iodepth %u; one is lost\n", p->n);
}

/* s_pool_reap: take what the workers have reported, without waiting. */
static void s_pool_reap(struct thread_data *td, lg_smbpool_t *p)
{
    s_drop_reaped(p);
    uint32_t idx[64];
    for (;;) {
        ssize_t n = read(p->done_fd, idx, sizeof idx);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return;
        for (size_t k = 0; k < (size_t)n / sizeof idx[0]; k++)
            if (idx[k] < p->n)
                s_pool_finish(td, p, idx[k], 1);
        if ((size_t)n < sizeof idx)
            return; /* the pipe was empty: spare the read() that would say so */
    }
}

/* s_pool_check: a busy worker that has exited fails its request; the pool is then broken. */
static void s_pool_check(struct thread_data *td, lg_smbpool_t *p)
{
    s_pool_reap(td, p); /* what it reported before it went */
    for (unsigned i = 0; i < p->n; i++) {
        s_worker_t *w = &p->w[i];
        int st = 0;
        if (!w->busy || w->pid <= 0 || !s_worker_gone(w, &st))
            continue;
        lg__smb_slot_t *hd = s_slot(p, i);
        if (w->pidfd >= 0) /* adopted: not this job's child, its status not this job's to see */
            snprintf(hd->said, sizeof hd->said, "SMB worker process %d has exited", (int)w->pid);
        else if (WIFSIGNALED(st))
            snprintf(hd->said, sizeof hd->said, "SMB worker process %d was killed by signal %d",
                     (int)w->pid, WTERMSIG(st));
        else
            snprintf(hd->said, sizeof hd->said, "SMB worker process %d exited with status %d",
                     (int)w->pid, WEXITSTATUS(st));
        hd->result = -EIO;
        w->pid = 0;
        if (!p->broken)
            log_err("lgsmb: %s\n", hd->said);
        p->broken = 1;
        s_pool_finish(td, p, i, 0);
    }
}

static unsigned s_pool_busy(const lg_smbpool_t *p)
{
    unsigned n = 0;
    for (unsigned i = 0; i < p->n; i++)
        n += p->w[i].busy != 0;
    return n;
}

/* s_pool_poll: wait up to ms for a worker to report, then take what they reported; a worker
 * silent since *check is looked at (one that died reports nothing). 0, or poll()'s negative
 * errno value. */
static int s_pool_poll(struct thread_data *td, lg_smbpool_t *p, int ms, int64_t *check)
{
    struct pollfd pfd = {.fd = p->done_fd, .events = POLLIN};
    int n = poll(&pfd, 1, ms);
    if (n < 0 && errno != EINTR)
        return -errno;
    int64_t now = s_now_ms();
    if (n > 0) {
        *check = now + S_CHECK_MS;
    } else if (now >= *check) {
        s_pool_check(td, p);
        *check = now + S_CHECK_MS;
    }
    s_pool_reap(td, p);
    return 0;
}

/* s_pool_wait: reap until no worker is busy (idle) or until min I/Os are done, for at most
 * timeout_ms (< 0: no limit). Returns 0 or a negative errno value from poll(). It waits in slices
 * of S_ANSWER_MS and answers fio's status thread between them: the workers' logons at ->init, a
 * reap while every worker is busy and the closes at the end can each last seconds, and fio's
 * periodic report waits for every job (lg__fio_answer_status). */
static int s_pool_wait(struct thread_data *td, lg_smbpool_t *p, int idle, unsigned min,
                       int64_t timeout_ms)
{
    int64_t now = s_now_ms(), deadline = now + timeout_ms, check = now + S_CHECK_MS;
    s_pool_reap(td, p);
    for (;;) {
        lg__fio_answer_status(td);
        unsigned busy = s_pool_busy(p);
        if (!busy || (!idle && p->ndone >= min))
            return 0;
        int ms = S_ANSWER_MS;
        if (timeout_ms >= 0) {
            int64_t left = deadline - s_now_ms();
            if (left <= 0)
                return 0;
            if (left < ms)
                ms = (int)left;
        }
        int rc = s_pool_poll(td, p, ms, &check);
        if (rc)
            return rc;
    }
}

/* s_pool_send: request m of worker i, which must be idle and off the idle stack. */
static int s_pool_send(lg_smbpool_t *p, unsigned i, const lg__smb_msg_t *m, struct io_u *io_u)
{
    ssize_t n;
    do
        n = send(p->w[i].sock, m, sizeof *m, MSG_NOSIGNAL);
    while (n < 0 && errno == EINTR);
    if (n != (ssize_t)sizeof *m)
        return n < 0 ? -errno : -EIO;
    p->w[i].busy = 1;
    p->w[i].io_u = io_u;
    return 0;
}

/* lg_smbpool_all: op (LG_SMBPOOL_CONNECT, LG_SMBPOOL_OPEN with flags, LG_SMBPOOL_CLOSE) on file f
 * in every worker, once all are idle; returns 0 or the first failure's negative errno with its
 * reason in why. */
int lg_smbpool_all(struct thread_data *td, lg_smbpool_t *p, uint32_t op, const struct fio_file *f,
                   int flags, char *why, size_t whylen)
{
    why[0] = 0;
    int rc = s_pool_wait(td, p, 1, 0, -1);
    if (rc) {
        snprintf(why, whylen, "poll: %s", strerror(-rc));
        return rc;
    }
    if (p->broken) {
        snprintf(why, whylen, "an SMB worker process has died");
        return -EIO;
    }
    size_t len = strlen(f->file_name);
    if (len >= p->slot_size - LG__SMB_SLOT_DATA) {
        snprintf(why, whylen, "name too long");
        return -ENAMETOOLONG;
    }
    lg__smb_msg_t m = {.op = op, .fileno = f->fileno, .flags = flags, .len = (uint32_t)len};
    p->nidle = 0; /* all are idle: each comes back through s_pool_finish */
    for (unsigned i = 0; i < p->n; i++) {
        memcpy(s_slot_data(p, i), f->file_name, len + 1);
        s_slot(p, i)->result = 0;
        p->w[i].result = 0;
        int e = s_pool_send(p, i, &m, NULL);
        if (e) {
            snprintf(s_slot(p, i)->said, sizeof s_slot(p, i)->said,
                     "could not reach SMB worker process %d: %s", (int)p->w[i].pid, strerror(-e));
            p->w[i].result = e;
            p->idle[p->nidle++] = i;
        }
    }
    rc = s_pool_wait(td, p, 1, 0, -1);
    if (rc) {
        snprintf(why, whylen, "poll: %s", strerror(-rc));
        return rc;
    }
    for (unsigned i = 0; i < p->n; i++) {
        if (p->w[i].result < 0) {
            snprintf(why, whylen, "%s", s_slot(p, i)->said);
            return (int)p->w[i].result;
        }
    }
    return 0;
}

/* s_pool_park: ask every worker, all idle, to park (smbpark.h); those that took it are no
 * longer the job's (w->parked): it neither waits for them nor kills them at the end. */
static void s_pool_park(lg_smbpool_t *p)
{
    if (s_pool_wait(p->td, p, 1, 0, S_STOP_GRACE_MS) || p->broken || s_pool_busy(p))
        return;
    lg__smb_msg_t m = {.op = LG__SMB_OP_PARK};
    p->nidle = 0;
    for (unsigned i = 0; i < p->n; i++) {
        s_slot(p, i)->result = -EIO;
        p->w[i].result = -EIO;
        if (p->w[i].pid > 0 && s_pool_send(p, i, &m, NULL) != 0)
            p->idle[p->nidle++] = i;
    }
    s_pool_wait(p->td, p, 1, 0, S_STOP_GRACE_MS);
    for (unsigned i = 0; i < p->n; i++)
        p->w[i].parked = !p->w[i].busy && p->w[i].result == 0 && p->w[i].pid > 0;
}

/* ---- logons: paced, tried again, under a deadline ----
 * A point of T threads x Q outstanding I/Os opens T x Q sessions per agent (docs/design.md), and
 * they used to log on all at once: 16T16Q from two agents sent 512 connects to smbd in one
 * instant, far more than it accepts and forks at a time, and connects timed out after
 * libsmbclient's 20 s. A job connects worker 0 alone (its failure is the target's: wrong host,
 * password or share, reported at once), then the others in waves of at most
 * LG__SMB_LOGON_PARALLEL, each wave under the fio run's logon lock (smblogon.c); a connect that
 * failed for the server's load goes into a later wave after a growing pause, until the job's
 * deadline. */
/* The default deadline of a job's logons (smb_connect_timeout), waits for the lock included.
 * lg-agent starts fio at the run's start, so the connects must end inside the controller's grace
 * for a run (RUN_GRACE_MS, 60 s past ramp and runtime); once fio starts at Prepare and is held at
 * a gate after ->init, inside the prepare budget (lg__sched_prepare_budget_ms: 60 s plus size /
 * 20000 ms, the layout step included). 45 s leaves 15 s of either for fio's start, the layout
 * and the report, so that a failure is this engine's message, not the controller's "timed out".
 * 512 sessions from two agents took about 10 s here (tests/bench/smb_16t16q.sh). */
#define S_CONNECT_DEFAULT_MS 45000

enum { S_CONN_WAITING, S_CONN_FLIGHT, S_CONN_UP };

/* One worker's logon. */
typedef struct {
    int64_t retry_at; /* S_CONN_WAITING: not before (monotonic ms) */
    unsigned tries;
    int state;
} s_conn_t;

/* One job's logons to one file's share. */
typedef struct {
    lg_smbpool_t *p;
    const struct fio_file *f;
    s_conn_t *w;                        /* one per worker */
    lg__smb_logon_lock_t lock;          /* the fio run's logon locks, -1 without */
    unsigned up, flight, retried;       /* retried: connects that failed and were tried again */
    int last_err;                       /* the last failure that was tried again, 0 if none */
    char last_said[2 * LG__SMB_DETAIL]; /* its errno text and what libsmbclient said */
    int waited;                         /* the deadline passed waiting for the other jobs' logons */
    uint32_t rng;
} s_logon_t;

/* s_conn_send: ask worker i, idle, to connect and log on to f's share. */
static int s_conn_send(lg_smbpool_t *p, unsigned i, const struct fio_file *f)
{
    size_t len = strlen(f->file_name); /* lg_smbpool_connect checked it fits */
    memcpy(s_slot_data(p, i), f->file_name, len + 1);
    s_slot(p, i)->result = 0;
    s_slot(p, i)->said[0] = 0;
    p->w[i].result = 0;
    lg__smb_msg_t m = {.op = LG_SMBPOOL_CONNECT, .fileno = f->fileno, .len = (uint32_t)len};
    int e = s_pool_send(p, i, &m, NULL);
    if (e)
        snprintf(s_slot(p, i)->said, sizeof s_slot(p, i)->said,
                 "could not reach SMB worker process %d: %s", (int)p->w[i].pid, strerror(-e));
    return e;
}

/* s_logon_collect: the outcome of every connect in flight that has come back; one that failed
 * for the server's load waits for a later wave. Returns 0, or the negative errno value of a
 * failure that is not tried again (its reason in the worker's slot, *bad its index). */
static int s_logon_collect(s_logon_t *l, unsigned *bad)
{
    lg_smbpool_t *p = l->p;
    int64_t now = s_now_ms();
    for (unsigned i = 0; i < p->n; i++) {
        if (l->w[i].state != S_CONN_FLIGHT || p->w[i].busy)
            continue;
        l->flight--;
        int64_t r = p->w[i].result;
        if (r == 0) {
            l->w[i].state = S_CONN_UP;
            l->up++;
            continue;
        }
        /* Worker 0's failure is the target's; a worker that died is the pool's end. But an
         * adopted worker's session may have been dropped by the server while it was parked
         * (smbd restarted): its first failure is libsmbclient finding that out, and the next try
         * logs on anew. */
        int adopted_first = i < p->adopted && l->w[i].tries == 1;
        if ((i == 0 && !adopted_first) || p->w[i].pid <= 0 || !lg__smb_logon_transient((int)-r)) {
            *bad = i;
            return r < 0 ? (int)r : -EIO;
        }
        l->w[i].state = S_CONN_WAITING;
        l->w[i].retry_at = now + lg__smb_logon_backoff_ms(l->w[i].tries, &l->rng);
        l->retried++;
        l->last_err = (int)-r;
        const char *said = s_slot(p, i)->said, *hint = lg__smb_logon_hint((int)-r);
        if (!said[0])
            said = strerror((int)-r);
        if (hint && !strcmp(said, strerror((int)-r))) /* libsmbclient said no more */
            snprintf(l->last_said, sizeof l->last_said, "%s (%s)", said, hint);
        else
            snprintf(l->last_said, sizeof l->last_said, "%s", said);
    }
    return 0;
}

/* s_logon_due: the workers due to connect now, up to max, into due[]; *next the earliest time a
 * waiting one is due later (unchanged if none). Worker 0 goes alone, and before any other. */
static unsigned s_logon_due(const s_logon_t *l, int64_t now, unsigned *due, unsigned max,
                            int64_t *next)
{
    if (l->w[0].state != S_CONN_UP) {
        due[0] = 0;
        return 1;
    }
    unsigned k = 0;
    for (unsigned i = 1; i < l->p->n; i++) {
        if (l->w[i].state != S_CONN_WAITING)
            continue;
        if (l->w[i].retry_at <= now && k < max)
            due[k++] = i;
        else if (l->w[i].retry_at > now && l->w[i].retry_at < *next)
            *next = l->w[i].retry_at;
    }
    return k;
}

/* s_logon_wait: until every connect in flight is back, answering fio's status thread. Returns 0,
 * -ETIMEDOUT at the deadline, -EINTR when fio stops the job, or the negative errno value of a
 * failure that is not tried again (*bad the worker). */
static int s_logon_wait(struct thread_data *td, s_logon_t *l, int64_t deadline, unsigned *bad)
{
    lg_smbpool_t *p = l->p;
    int64_t check = s_now_ms() + S_CHECK_MS;
    while (l->flight) {
        int64_t now = s_now_ms();
        if (now >= deadline)
            return -ETIMEDOUT;
        if (td->terminate)
            return -EINTR;
        lg__fio_answer_status(td);
        int prc = s_pool_poll(
            td, p, deadline - now < S_ANSWER_MS ? (int)(deadline - now) : S_ANSWER_MS, &check);
        if (prc)
            return prc;
        p->nidle = 0; /* s_pool_finish stacks every worker that reports; here l tracks them */
        int rc = s_logon_collect(l, bad);
        if (rc)
            return rc;
    }
    return 0;
}

/* s_logon_wave: the connects due now, at most LG__SMB_LOGON_PARALLEL, under the lock, and back.
 * Returns as s_logon_wait. */
static int s_logon_wave(struct thread_data *td, s_logon_t *l, const unsigned *due, unsigned ndue,
                        int64_t deadline, unsigned *bad)
{
    int rc = 0;
    if (l->lock.wave >= 0) {
        rc = lg__smb_logon_lock_take(td, &l->lock, deadline);
        if (rc == 0) /* flock refuses the file: go on without */
            lg__smb_logon_lock_close(&l->lock);
        l->waited = rc == -ETIMEDOUT;
        if (rc < 0)
            return rc;
        rc = 0;
    }
    for (unsigned k = 0; k < ndue && !rc; k++) {
        unsigned i = due[k];
        rc = s_conn_send(l->p, i, l->f);
        if (rc) {
            *bad = i;
            break;
        }
        l->w[i].state = S_CONN_FLIGHT;
        l->w[i].tries++;
        l->flight++;
    }
    if (!rc)
        rc = s_logon_wait(td, l, deadline, bad);
    lg__smb_logon_lock_give(td, &l->lock);
    return rc;
}

/* s_logon_all: every worker of l connected and logged on, wave by wave, until the deadline.
 * Returns 0, -ETIMEDOUT at the deadline, -EINTR when fio stops the job, or the negative errno
 * value of a failure that is not tried again (*bad the worker whose slot says why). */
static int s_logon_all(struct thread_data *td, s_logon_t *l, int64_t deadline, unsigned *bad)
{
    unsigned due[LG__SMB_LOGON_PARALLEL];
    for (;;) {
        if (l->up == l->p->n)
            return 0;
        int64_t now = s_now_ms(), next = deadline;
        if (now >= deadline)
            return -ETIMEDOUT;
        if (td->terminate)
            return -EINTR;
        unsigned ndue = s_logon_due(l, now, due, LG__SMB_LOGON_PARALLEL, &next);
        if (ndue) {
            int rc = s_logon_wave(td, l, due, ndue, deadline, bad);
            if (rc)
                return rc;
            continue;
        }
        /* nothing due: those refused wait for their pause */
        lg__fio_answer_status(td);
        int64_t ms = next - now < S_ANSWER_MS ? next - now : S_ANSWER_MS;
        struct timespec ts = {0, (long)(ms > 0 ? ms : 1) * 1000000L};
        nanosleep(&ts, NULL);
    }
}

/* s_logon_why: why the logons failed with rc: worker bad's failure (bad < n: its slot says why),
 * else the deadline or the job's stop (-ETIMEDOUT, -EINTR) or the pool's poll. */
static void s_logon_why(const s_logon_t *l, int rc, unsigned bad, int64_t limit_ms, char *why,
                        size_t whylen)
{
    const lg_smbpool_t *p = l->p;
    lg__smb_target_t t;
    const char *server = lg__smb_parse_target(l->f->file_name, &t) == 0 ? t.server : "?";
    if (bad == 0) { /* as libsmbclient said it: the target is wrong */
        snprintf(why, whylen, "%s", s_slot(p, 0)->said);
    } else if (bad < p->n) {
        snprintf(why, whylen, "%s (session %u of %u to %s)", s_slot(p, bad)->said, bad + 1, p->n,
                 server);
    } else if (rc == -ETIMEDOUT || rc == -EINTR) {
        char last[2 * LG__SMB_DETAIL + 128] = "none failed: they were still under way";
        if (l->last_err)
            snprintf(last, sizeof last, "the last failure: %s%s", l->last_said,
                     l->waited ? "; then waiting for this fio run's other jobs to log on" : "");
        else if (l->waited)
            snprintf(last, sizeof last, "waiting for this fio run's other jobs to log on");
        if (rc == -EINTR)
            snprintf(why, whylen,
                     "%u of %u SMB sessions to %s came up before the job was stopped (%s)", l->up,
                     p->n, server, last);
        else
            snprintf(why, whylen,
                     "%u of %u SMB sessions to %s came up within %lld s (smb_connect_timeout; %s)",
                     l->up, p->n, server, (long long)(limit_ms / 1000), last);
    } else {
        snprintf(why, whylen, "%s", strerror(-rc));
    }
}

/* lg_smbpool_connect: every worker connected and logged on to f's share (see above). Returns 0
 * or a negative errno value with the reason in why. */
int lg_smbpool_connect(struct thread_data *td, lg_smbpool_t *p, const struct fio_file *f, char *why,
                       size_t whylen)
{
    why[0] = 0;
    const struct lg__smb_opts *o = td->eo;
    int64_t limit_ms =
        o && o->connect_timeout ? (int64_t)(o->connect_timeout / 1000) : S_CONNECT_DEFAULT_MS;
    if (!p->connect_by) /* one deadline for all of the job's files */
        p->connect_by = s_now_ms() + limit_ms;
    if (p->broken) {
        snprintf(why, whylen, "an SMB worker process has died");
        return -EIO;
    }
    if (strlen(f->file_name) >= p->slot_size - LG__SMB_SLOT_DATA) {
        snprintf(why, whylen, "name too long");
        return -ENAMETOOLONG;
    }
    s_logon_t l = {.p = p, .f = f};
    l.rng = (((uint32_t)getpid() * 2654435761u) ^ (uint32_t)s_now_ms()) | 1; /* never 0 */
    l.w = calloc(p->n, sizeof *l.w);
    if (!l.w) {
        snprintf(why, whylen, "out of memory");
        return -ENOMEM;
    }
    int64_t t0 = s_now_ms();
    unsigned bad = p->n;
    lg__smb_logon_lock_open(td, &l.lock);
    int rc = s_logon_all(td, &l, p->connect_by, &bad);
    int64_t took = s_now_ms() - t0;
    if (!rc)
        lg__smb_logon_together(td, &l.lock, p->connect_by);
    lg__smb_logon_lock_close(&l.lock);
    if (rc) {
        s_logon_why(&l, rc, bad, limit_ms, why, whylen);
    } else {
        p->nidle = p->n; /* all idle again, worker 0 on top */
        for (unsigned i = 0; i < p->n; i++)
            p->idle[p->n - 1 - i] = i;
        lg__smb_target_t t;
        if (l.retried && lg__smb_parse_target(f->file_name, &t) == 0)
            log_err("lgsmb: %u SMB sessions to %s up in %.1f s; %u connects were tried again "
                    "(the last failure: %s)\n",
                    p->n, t.server, (double)took / 1000, l.retried, l.last_said);
    }
    free(l.w);
    return rc;
}

/* lg_smbpool_queue: hand io_u to an idle worker. */
enum fio_q_status lg_smbpool_queue(struct thread_data *td, lg_smbpool_t *p, struct io_u *io_u)
{
    if (ddir_sync(io_u->ddir)) {
        /* As at iodepth 1: no SMB2 FLUSH, but every write before it is acknowledged first. */
        lg__smb_warn_sync();
        int rc = s_pool_wait(td, p, 1, 0, -1);
        io_u->error = rc ? -rc : 0;
        return FIO_Q_COMPLETED;
    }
    const char *why = "";
    int e = 0;
    if (io_u->ddir != DDIR_READ && io_u->ddir != DDIR_WRITE)
        e = EOPNOTSUPP;
    else if (p->broken)
        e = EIO, why = "an SMB worker process has died";
    else if (io_u->xfer_buflen > p->slot_size - LG__SMB_SLOT_DATA)
        e = EINVAL, why = "larger than the largest block size";
    if (e) {
        io_u->error = e;
        lg__smb_io_log(td, &p->io_errors, io_u, e, why);
        return FIO_Q_COMPLETED;
    }
    if (!p->nidle)
        return FIO_Q_BUSY; /* fio keeps at most iodepth in flight: not seen */
    unsigned i = p->idle[--p->nidle];
    if (io_u->ddir == DDIR_WRITE)
        memcpy(s_slot_data(p, i), io_u->xfer_buf, io_u->xfer_buflen);
    lg__smb_msg_t m = {.op = io_u->ddir == DDIR_READ ? LG__SMB_OP_READ : LG__SMB_OP_WRITE,
                       .fileno = io_u->file->fileno,
                       .len = (uint32_t)io_u->xfer_buflen,
                       .offset = io_u->offset};
    if (fio_fill_issue_time(td)) {
        fio_gettime(&io_u->issue_time, NULL);
        if (td->o.read_iolog_file)
            memcpy(&td->last_issue, &io_u->issue_time, sizeof(io_u->issue_time));
    }
    e = s_pool_send(p, i, &m, io_u);
    if (e) {
        p->idle[p->nidle++] = i;
        io_u->error = -e;
        lg__smb_io_log(td, &p->io_errors, io_u, -e, "could not reach its SMB worker process");
        return FIO_Q_COMPLETED;
    }
    /* with a commit() hook, submission latency and the submit histogram are the engine's job */
    io_u_queued(td, io_u);
    p->nqueued++;
    return FIO_Q_QUEUED;
}

void lg_smbpool_commit(struct thread_data *td, lg_smbpool_t *p)
{
    if (p->nqueued) {
        io_u_mark_submit(td, p->nqueued);
        p->nqueued = 0;
    }
}

int lg_smbpool_getevents(struct thread_data *td, lg_smbpool_t *p, unsigned int min,
                         unsigned int max, const struct timespec *t)
{
    int64_t ms = t ? (int64_t)t->tv_sec * 1000 + t->tv_nsec / 1000000 : -1;
    int rc = s_pool_wait(td, p, 0, min, ms);
    if (rc)
        return rc;
    p->nreturned = p->ndone < max ? p->ndone : max;
    return (int)p->nreturned;
}

struct io_u *lg_smbpool_event(const lg_smbpool_t *p, int event)
{
    return p->done[event];
}
