/* fiorun.c: run fio as an lg_child (core) and read its pipes, either directly or through a hold
 * stage that becomes fio at an instant. The run is freed only after fio ended and its own
 * handles (the hold stage's control pipe, a Stop's timer) have closed, as libuv requires.
 * Windows has no exec: its hold stage (hold_win.c) creates fio suspended and resumes it at the
 * instant, then stays fio's parent; a Stop there asks fio to end through its trigger file. */
#include "fiorun.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#ifndef _WIN32
#include <sched.h>
#include <signal.h>
#endif
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include "lg_child.h"
#include "lg_error.h"
#include "lg_fio.h"
#include "lg_log.h"
#include "lg_util.h"

#define ERR_TAIL 4096
#define FIO_PIPE_BYTES (16u << 20) /* fio's stdout: s_spawn */
#define MAX_OBJECT (64u << 20)

struct lg_fiorun {
    uv_loop_t *loop;
    lg_child_t *child; /* fio (or its hold stage) until it ended */
    uv_pipe_t ctl;     /* held runs: the hold stage's fd 3 */
    lg_fio_splitter_t *split;
    lg_fiorun_object_cb on_object;
    lg_fiorun_data_cb on_raw; /* set: stdout as read, not cut into JSON objects */
    lg_fiorun_start_cb on_start;
    lg_fiorun_exit_cb on_exit;
    void *arg;
    int open_handles; /* ctl and stop_timer */
    int exited, reported, destroyed;
    int held, released, ctl_eof;
    int has_ctl;    /* the hold stage's control pipe is open */
    int spawned;    /* the child was started */
    int closed;     /* s_close_all ran */
    int in_exit_cb; /* on_exit runs: a destroy in it frees r after (the tail it got is r's) */
    int pass_fd;    /* given to fio as LG_FIORUN_TARGET_FD (-1: none) */
    char **env;     /* its whole environment (NULL: the agent's) */
#ifndef _WIN32
    int setid; /* the held program runs as uid:gid (lg_fiorun_start_held_env) */
    uid_t uid;
    gid_t gid;
#endif
    /* The wake-up time, then -errno if exec failed; room to spare, since a full buffer would end
     * the reading (UV_ENOBUFS) while the Windows stage still listens on the pipe. */
    unsigned char ctl_in[24];
    size_t ctl_len;
    int start_told;     /* on_start was called */
    int64_t ctl_out[2]; /* [0] the instant, [1] LG_HOLD_KILL (Windows) */
    uv_write_t ctl_req[2];
    uv_timer_t stop_timer; /* Windows: a Stop's grace period */
    int has_stop_timer;
    int stop_how; /* LG_FIORUN_STOP_* */
    int64_t pid;
    int64_t exit_status;
    int term_signal;
    char tail[ERR_TAIL];
};

/* Once lg_fiorun_destroy was called, no handle is open and on_exit is not running: free *self_p
 * and set it to NULL. Before that, nothing (a later callback calls it again). */
static void s_maybe_destroy(lg_fiorun_t **self_p)
{
    lg_fiorun_t *r = *self_p;
    if (r && r->open_handles == 0 && r->destroyed && !r->in_exit_cb) {
        *self_p = NULL;
        lg_fio_splitter_destroy(&r->split);
        free(r);
    }
}

static void s_on_close(uv_handle_t *h)
{
    lg_fiorun_t *r = h->data;
    r->open_handles--;
    s_maybe_destroy(&r);
}

/* Its own handles; the child closes its own. r is freed once they all closed. */
static void s_close_all(lg_fiorun_t *r)
{
    if (r->closed)
        return;
    r->closed = 1;
    if (r->has_ctl)
        uv_close((uv_handle_t *)&r->ctl, s_on_close);
    if (r->has_stop_timer)
        uv_close((uv_handle_t *)&r->stop_timer, s_on_close);
    s_maybe_destroy(&r);
}

static void s_maybe_report(lg_fiorun_t *r)
{
    if (r->reported || !r->exited || (r->has_ctl && !r->ctl_eof))
        return;
    r->reported = 1;
    if (r->destroyed) { /* destroyed while running: it was killed; only free */
        s_close_all(r);
        return;
    }
    r->in_exit_cb = 1;
    r->on_exit(r->arg, r->exit_status, r->term_signal, r->tail);
    r->in_exit_cb = 0;
    s_maybe_destroy(&r); /* destroyed in on_exit, as its users do */
}

static void s_on_object(void *arg, const char *text, size_t len)
{
    lg_fiorun_t *r = arg;
    if (r->on_object && !r->destroyed)
        r->on_object(r->arg, text, len);
}

static void s_on_noise(void *arg, const char *line, size_t len)
{
    (void)arg;
    if (len)
        lg_info("fio: %.*s", (int)len, line);
}

static void s_on_out(void *arg, const char *data, size_t n)
{
    lg_fiorun_t *r = arg;
    if (r->on_raw) {
        if (!r->destroyed)
            r->on_raw(r->arg, data, n);
    } else if (r->split && lg_fio_splitter_feed(r->split, data, n) == LG_ETOOBIG) {
        lg_warn("dropped a fio report larger than %u bytes", MAX_OBJECT);
    }
}

/* fio exited and its stdout and stderr ended (the child is freed after this). */
static void s_on_exit(void *arg, const lg_child_exit_t *e)
{
    lg_fiorun_t *r = arg;
    r->child = NULL;
    r->exited = 1;
    r->exit_status = e->status;
    r->term_signal = e->term_signal;
    lg_strlcpy(r->tail, e->tail, sizeof r->tail);
    s_maybe_report(r);
}

static void s_ctl_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
    lg_fiorun_t *r = h->data;
    (void)suggested;
    buf->base = (char *)r->ctl_in + r->ctl_len;
    buf->len = sizeof r->ctl_in - r->ctl_len;
}

static void s_on_ctl(uv_stream_t *s, ssize_t n, const uv_buf_t *buf)
{
    lg_fiorun_t *r = s->data;
    (void)buf;
    if (n >= 0) {
        r->ctl_len += (size_t)n;
#ifdef _WIN32
        /* The Windows stage stays fio's parent: its 16 bytes, not its end, say fio runs. */
        if (r->ctl_len >= 16 && !r->destroyed && !r->start_told) {
            int64_t t, e;
            memcpy(&t, r->ctl_in, 8);
            memcpy(&e, r->ctl_in + 8, 8);
            r->start_told = 1;
            r->on_start(r->arg, t, e == 0 ? 0 : e < 0 && e > -4096 ? (int)e : UV_EIO);
        }
#endif
        return;
    }
    /* EOF: fd 3 is close-on-exec in the hold stage, so fio is running now (or the hold stage is
     * gone). UV_ENOBUFS: more than it ever writes. Both end the conversation. */
    uv_read_stop(s);
    r->ctl_eof = 1;
    if (r->ctl_len >= 8 && !r->destroyed && !r->start_told) {
        r->start_told = 1;
        int64_t t, e = 0;
        memcpy(&t, r->ctl_in, 8);
        if (r->ctl_len >= 16)
            memcpy(&e, r->ctl_in + 8, 8);
        r->on_start(r->arg, t, e == 0 ? 0 : e < 0 && e > -4096 ? (int)e : UV_EIO);
    }
    s_maybe_report(r);
}

static lg_fiorun_t *s_new(lg_fiorun_object_cb on_object, lg_fiorun_start_cb on_start,
                          lg_fiorun_exit_cb on_exit, void *arg)
{
    lg_fiorun_t *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    r->on_object = on_object;
    r->on_start = on_start;
    r->on_exit = on_exit;
    r->arg = arg;
    r->held = on_start != NULL;
    r->split = lg_fio_splitter_new(MAX_OBJECT, s_on_object, s_on_noise, r);
    if (!r->split) {
        free(r);
        return NULL;
    }
    r->ctl.data = r;
    return r;
}

/* Spawn file with args; with ctl, fd 3 is the control socket of the hold stage; r->pass_fd
 * becomes fd 4. In a process group of its own (POSIX), so that a kill reaches fio's job
 * processes too. On failure r's handles are closed and r is freed once they are (r->destroyed
 * is set). */
static int s_spawn(lg_fiorun_t *r, uv_loop_t *loop, const char *file, char **args, const char *cwd,
                   int ctl)
{
    r->loop = loop;
    if (ctl) {
        uv_pipe_init(loop, &r->ctl, 0);
        r->has_ctl = 1;
        r->open_handles++;
    }
    /* A socketpair: the instant goes down, the wake-up time comes back. Windows passes only
     * stdin, stdout and stderr to a program that is not built with Microsoft's C runtime, so the
     * pipe is the hold stage's stdin there (fio gets NUL). */
    uv_stdio_container_t cio, extra[2];
    cio.flags = UV_CREATE_PIPE | UV_READABLE_PIPE | UV_WRITABLE_PIPE;
    cio.data.stream = (uv_stream_t *)&r->ctl;
    extra[0].flags = UV_IGNORE;
    extra[1].flags = UV_INHERIT_FD;
    extra[1].data.fd = r->pass_fd;
    lg_child_opts_t o;
    memset(&o, 0, sizeof o);
    o.file = file;
    o.argv = args;
    o.cwd = cwd;
    o.env = r->env;
    o.out = LG_CHILD_PIPE;
    /* fio's status reports carry the instant they were made, but a report fio cannot write
     * holds up the next: with every CPU busy (smbd, fio and its SMB workers on 2 cores) the
     * agent went unscheduled for up to 8 s, its reading with it, and fio's 64-212 KiB of pipe
     * (a report of 4 jobs in json+ is 50-90 KiB) turned that into samples of 6 s. */
    o.out_pipe_bytes = FIO_PIPE_BYTES;
    o.on_out = s_on_out;
    o.tail_cap = ERR_TAIL;
    o.on_exit = s_on_exit;
    o.arg = r;
    o.extra = extra;
#ifdef _WIN32
    o.in = ctl ? &cio : NULL;
#else
    if (ctl)
        extra[0] = cio;
    o.nextra = r->pass_fd >= 0 ? 2 : ctl ? 1 : 0;
    o.group = 1; /* setsid: its own process group */
    o.setid = r->setid;
    o.uid = (unsigned)r->uid;
    o.gid = (unsigned)r->gid;
#endif
    r->spawned = 1;
    int rc = lg_child_start(loop, &o, &r->child);
    if (rc) {
        r->destroyed = 1;
        r->reported = 1;
        s_close_all(r);
        return rc;
    }
    r->pid = lg_child_pid(r->child);
    if (ctl)
        uv_read_start((uv_stream_t *)&r->ctl, s_ctl_alloc, s_on_ctl);
    return 0;
}

/* user: NULL, or {uid, gid} to run the program as (POSIX). */
/* The environment of the run s_start makes next (lg_fiorun_start_held_env; the loop's thread) */
static char **s_next_env;

static int s_start(uv_loop_t *loop, char **argv, const char *cwd, int pass_fd, const unsigned *user,
                   lg_fiorun_object_cb on_object, lg_fiorun_start_cb on_start,
                   lg_fiorun_exit_cb on_exit, void *arg, lg_fiorun_t **out)
{
    lg_fiorun_t *r = s_new(on_object, on_start, on_exit, arg);
    if (!r)
        return UV_ENOMEM;
    r->env = s_next_env;
#ifdef _WIN32
    (void)pass_fd;
    (void)user;
    r->pass_fd = -1;
#else
    r->pass_fd = pass_fd;
    if (user) {
        r->setid = 1;
        r->uid = (uid_t)user[0];
        r->gid = (gid_t)user[1];
    }
#endif
    if (!on_start) {
        int rc = s_spawn(r, loop, argv[0], argv, cwd, 0);
        if (rc)
            return rc;
        *out = r;
        return 0;
    }
    /* Held: "lg-agent --exec-at-fd 3 -- argv..." from our own image, which /proc/self/exe still
     * names after the binary on disk was replaced (uv_exepath would give the new file); Windows
     * does not let a running exe be replaced, and its stage is "lg-agent --hold -- argv...". */
    size_t n = 0;
    while (argv[n])
        n++;
    char **hold = calloc(n + 5, sizeof *hold);
    if (!hold) {
        lg_fio_splitter_destroy(&r->split);
        free(r);
        return UV_ENOMEM;
    }
    hold[0] = "lg-agent";
#ifdef _WIN32
    char exe[1100];
    size_t elen = sizeof exe;
    int rc = uv_exepath(exe, &elen);
    if (rc) {
        free(hold);
        lg_fio_splitter_destroy(&r->split);
        free(r);
        return rc;
    }
    hold[1] = "--hold";
    hold[2] = "--";
    memcpy(hold + 3, argv, n * sizeof *argv);
    rc = s_spawn(r, loop, exe, hold, cwd, 1);
#else
    hold[1] = "--exec-at-fd";
    hold[2] = "3";
    hold[3] = "--";
    memcpy(hold + 4, argv, n * sizeof *argv);
    int rc = s_spawn(r, loop, "/proc/self/exe", hold, cwd, 1);
#endif
    free(hold);
    if (rc)
        return rc;
    *out = r;
    return 0;
}

int lg_fiorun_start(uv_loop_t *loop, char **argv, const char *cwd, int pass_fd,
                    lg_fiorun_object_cb on_object, lg_fiorun_exit_cb on_exit, void *arg,
                    lg_fiorun_t **out)
{
    return s_start(loop, argv, cwd, pass_fd, NULL, on_object, NULL, on_exit, arg, out);
}

int lg_fiorun_start_held(uv_loop_t *loop, char **argv, const char *cwd, int pass_fd,
                         lg_fiorun_object_cb on_object, lg_fiorun_start_cb on_start,
                         lg_fiorun_exit_cb on_exit, void *arg, lg_fiorun_t **out)
{
    if (!on_start)
        return UV_EINVAL;
    return s_start(loop, argv, cwd, pass_fd, NULL, on_object, on_start, on_exit, arg, out);
}

#ifndef _WIN32
int lg_fiorun_start_held_env(uv_loop_t *loop, char **argv, const char *cwd, const uid_t *uid,
                             const gid_t *gid, char **env, lg_fiorun_object_cb on_object,
                             lg_fiorun_start_cb on_start, lg_fiorun_exit_cb on_exit, void *arg,
                             lg_fiorun_t **out)
{
    if (!on_start)
        return UV_EINVAL;
    unsigned user[2] = {uid ? (unsigned)*uid : 0, gid ? (unsigned)*gid : 0};
    s_next_env = env;
    int rc = s_start(loop, argv, cwd, -1, uid && gid ? user : NULL, on_object, on_start, on_exit,
                     arg, out);
    s_next_env = NULL;
    return rc;
}
#endif

static void s_on_ctl_written(uv_write_t *req, int status)
{
    (void)req;
    (void)status; /* a stage that is gone shows as the pipe's end and the process's exit */
}

/* 8 bytes to the hold stage; slot 0 the instant, 1 LG_HOLD_KILL. The buffer and request live in
 * r, which outlives the write (closing the pipe cancels it first). */
static int s_ctl_send(lg_fiorun_t *r, int slot, int64_t v)
{
    if (!r->has_ctl || r->ctl_eof || uv_is_closing((uv_handle_t *)&r->ctl))
        return UV_EPIPE;
    r->ctl_out[slot] = v;
    uv_buf_t b = uv_buf_init((char *)&r->ctl_out[slot], 8);
    return uv_write(&r->ctl_req[slot], (uv_stream_t *)&r->ctl, &b, 1, s_on_ctl_written);
}

int lg_fiorun_release(lg_fiorun_t *r, int64_t at_us)
{
    if (!r || !r->held || r->released || at_us <= 0)
        return UV_EINVAL;
    r->released = 1;
    return s_ctl_send(r, 0, at_us);
}

void lg_fiorun_set_raw(lg_fiorun_t *r, lg_fiorun_data_cb on_raw)
{
    if (r)
        r->on_raw = on_raw;
}

/* fio and the job processes it forked: its whole process group (POSIX). On Windows a hold
 * stage is asked to end fio (TerminateProcess there) and then ends itself; killing the stage
 * instead would leave fio to a job object that older Windows cannot nest. */
static void s_kill(lg_fiorun_t *r, int sig)
{
#ifdef _WIN32
    if (!r->held || s_ctl_send(r, 1, LG_HOLD_KILL) != 0)
        lg_child_kill(r->child, sig);
#else
    lg_child_kill(r->child, sig);
#endif
}

void lg_fiorun_kill(lg_fiorun_t *r, int sig)
{
    if (r && r->spawned && !r->exited)
        s_kill(r, sig);
}

#ifdef _WIN32
static void s_on_stop_grace(uv_timer_t *t)
{
    lg_fiorun_t *r = t->data;
    if (r->exited)
        return;
    lg_warn("fio did not end within %llu s of its trigger file: ending it with TerminateProcess",
            (unsigned long long)(LG_FIORUN_STOP_GRACE_MS / 1000));
    r->stop_how = LG_FIORUN_STOP_TERMINATED;
    s_kill(r, SIGKILL);
}
#endif

int lg_fiorun_stop(lg_fiorun_t *r, const char *trigger)
{
    if (!r || !r->spawned || r->exited)
        return UV_EINVAL;
#ifdef _WIN32
    if (r->stop_how)
        return 0;
    FILE *f = trigger ? fopen(trigger, "wb") : NULL;
    if (!f) {
        lg_warn("could not create fio's trigger file \"%s\": %s; ending fio with "
                "TerminateProcess",
                trigger ? trigger : "", strerror(errno));
        r->stop_how = LG_FIORUN_STOP_TERMINATED;
        s_kill(r, SIGKILL);
        return 0;
    }
    fclose(f);
    r->stop_how = LG_FIORUN_STOP_TRIGGER;
    uv_timer_init(r->loop, &r->stop_timer);
    r->stop_timer.data = r;
    r->has_stop_timer = 1;
    r->open_handles++;
    return uv_timer_start(&r->stop_timer, s_on_stop_grace, LG_FIORUN_STOP_GRACE_MS, 0);
#else
    (void)trigger;
    r->stop_how = LG_FIORUN_STOP_SIGNAL;
    s_kill(r, SIGTERM);
    return 0;
#endif
}

int lg_fiorun_stop_how(const lg_fiorun_t *r)
{
    return r ? r->stop_how : 0;
}

int64_t lg_fiorun_pid(const lg_fiorun_t *r)
{
    return r && r->spawned && !r->exited ? r->pid : 0;
}

void lg_fiorun_destroy(lg_fiorun_t **self_p)
{
    lg_fiorun_t *r = *self_p;
    if (!r)
        return;
    *self_p = NULL;
    r->destroyed = 1;
    if (r->reported || !r->spawned) { /* finished, or (Windows) held and never spawned */
        r->reported = 1;
        s_close_all(r);
        return;
    }
    /* Closing a running process handle would leave a zombie: kill, and free once it exited
     * (s_maybe_report). A hold stage that was never released goes the same way. */
    if (!r->exited)
        s_kill(r, SIGKILL);
}

#ifndef _WIN32
/* ---- the hold stage (a separate process: plain blocking calls, nothing from libuv) ---- */

static int s_io_full(int fd, void *buf, size_t len, int wr)
{
    size_t done = 0;
    while (done < len) {
        ssize_t n = wr ? write(fd, (char *)buf + done, len - done)
                       : read(fd, (char *)buf + done, len - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        done += (size_t)n;
    }
    return 0;
}

/* Real time while asleep: on a busy host (here: other agents' fio starting on the same cores)
 * an ordinary task waking at the instant waits up to a scheduler slice (1.5 ms on 2 CPUs) for
 * a CPU. Best effort: without the privilege it simply stays as it is. */
static int s_rt_wake(int *policy, struct sched_param *param)
{
    *policy = sched_getscheduler(0);
    if (*policy < 0 || sched_getparam(0, param) != 0)
        return 0;
    struct sched_param rt = {.sched_priority = 1};
    return sched_setscheduler(0, SCHED_FIFO, &rt) == 0;
}

int lg_fiorun_hold_main(int fd, char **argv)
{
#ifdef __linux__
    /* fio dies with the agent that started it (the setting stays across the exec, fio being no
     * set-user-ID program): an agent killed mid-run must not leave it writing next to the next
     * run's fio. Its job processes are not covered (a fork clears it, and each makes a session
     * of its own): the agent's run record (fiorec.h) lets the next agent end them. An agent gone
     * before this line closed its end of fd 3 long before any instant came (that comes at Start,
     * after the agent heard this stage was spawned), which the read below sees; getppid() would
     * not tell, as an agent may be PID 1 in a container. */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
#endif
    int fl = fcntl(fd, F_GETFL);
    if (fl < 0) {
        fprintf(stderr, "lg-agent: --exec-at-fd %d: %s\n", fd, strerror(errno));
        return 127;
    }
    if (fl & O_NONBLOCK)
        fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    int64_t at;
    if (s_io_full(fd, &at, sizeof at, 0) != 0 || at <= 0)
        return 0; /* the agent called the run off (or is gone) */
    int policy;
    struct sched_param param;
    int rt = s_rt_wake(&policy, &param);
    struct timespec ts = {(time_t)(at / 1000000), (long)(at % 1000000) * 1000};
    while (clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &ts, NULL) == EINTR)
        ;
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    int64_t t = (int64_t)now.tv_sec * 1000000 + now.tv_nsec / 1000;
    if (s_io_full(fd, &t, sizeof t, 1) != 0)
        return 0;
    /* fio itself must not run real time (its spinning jobs would starve the host). */
    int e = rt && sched_setscheduler(0, policy, &param) != 0 ? errno : 0;
    if (e == 0) {
        /* Closed by a successful exec: that EOF tells the agent fio runs. */
        fcntl(fd, F_SETFD, FD_CLOEXEC);
        execvp(argv[0], argv);
        e = errno;
    }
    int64_t neg = -(int64_t)e;
    s_io_full(fd, &neg, sizeof neg, 1);
    fprintf(stderr, "could not start \"%s\": %s\n", argv[0], strerror(e));
    return 127;
}
#endif
