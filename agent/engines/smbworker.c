/* smbworker.c: a worker process of lgsmb's pool (see smbworker.h): one libsmbclient context, one
 * request at a time from its job, the data through its slot; between jobs parked (smbpark.c).
 * Nothing here calls fio: the worker is a copy of the job's process that fio does not know. */
#include "smbworker.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#define S_LOGOFF_S 5 /* a worker's time to close its files and log off; then it ends regardless */
#define S_NAME "lgsmb-worker"
#define S_NAME_PARKED "lgsmb-parked" /* in ps and top, while no job has it */

typedef struct {
    lg__smb_conn_t *c; /* NULL when it could not be made: every request fails with why */
    int rc;
    char err[LG__SMB_DETAIL];
    SMBCFILE **fh; /* the job's files, open or NULL */
    unsigned nfh;  /* room in fh */
    lg__smb_job_t job;
    const lg__smb_park_t *park; /* NULL: never parks */
    int agent_fd;               /* a pidfd on the agent once the worker has parked, else -1 */
} s_worker_t;

/* s_io: one read or write of m through fh; returns the bytes moved (fewer at end of file) or a
 * negative errno value with what libsmbclient said in hd->said. */
static int64_t s_io(lg__smb_conn_t *c, SMBCFILE *fh, const lg__smb_msg_t *m, lg__smb_slot_t *hd,
                    char *buf)
{
    size_t left = m->len;
    int e = 0;
    off_t pos;
    LG__SMB_CALL(pos, c->lseek(c->ctx, fh, (off_t)m->offset, SEEK_SET));
    if (pos < 0)
        e = errno ? errno : EIO;
    while (!e && left) {
        ssize_t n;
        if (m->op == LG__SMB_OP_READ)
            LG__SMB_CALL(n, c->read(c->ctx, fh, buf, left));
        else
            LG__SMB_CALL(n, c->write(c->ctx, fh, buf, left));
        if (n < 0)
            e = errno ? errno : EIO;
        else if (n == 0)
            break;
        else {
            buf += n;
            left -= (size_t)n;
        }
    }
    if (!e)
        return (int64_t)(m->len - left);
    lg__smb_said_text(hd->said, sizeof hd->said);
    return -e;
}

/* s_connect: a stat of the share of the URL in data logs on and connects it, before the
 * measured window (of an adopted worker: one round trip on the session it has); not of the file,
 * which create_serialize=0 lays out only after ->init. */
static int64_t s_connect(lg__smb_conn_t *c, char *data, lg__smb_slot_t *hd)
{
    char share[PATH_MAX + 3 * LG__SMB_FIELD];
    lg__smb_target_t t;
    struct stat st;
    int r;
    if (lg__smb_parse_target(data, &t) == 0)
        snprintf(share, sizeof share, LG__SMB_PREFIX "%s/%s", t.authority, t.share);
    else
        snprintf(share, sizeof share, "%s", data);
    LG__SMB_CALL(r, c->stat(c->ctx, share, &st));
    if (r == 0)
        return 0;
    int e = errno ? errno : EIO;
    lg__smb_explain(c, data, e, hd->said, sizeof hd->said);
    return -e;
}

/* s_do: carry out m with w's files; returns the slot's result. */
static int64_t s_do(s_worker_t *w, const lg__smb_msg_t *m, lg__smb_slot_t *hd, char *data,
                    size_t cap)
{
    lg__smb_conn_t *c = w->c;
    if (m->fileno < 0 || (unsigned)m->fileno >= w->job.nfiles || m->len > cap ||
        ((m->op == LG_SMBPOOL_CONNECT || m->op == LG_SMBPOOL_OPEN) && m->len >= cap)) {
        snprintf(hd->said, sizeof hd->said, "bad request to an SMB worker");
        return -EINVAL;
    }
    SMBCFILE **f = &w->fh[m->fileno];
    int r, e;
    switch (m->op) {
    case LG_SMBPOOL_CONNECT:
        data[m->len] = 0;
        return s_connect(c, data, hd);
    case LG_SMBPOOL_OPEN:
        data[m->len] = 0;
        if (*f)
            LG__SMB_CALL(r, c->close(c->ctx, *f));
        LG__SMB_CALL(*f, c->open(c->ctx, data, m->flags, 0644));
        if (*f)
            return 0;
        e = errno ? errno : EIO;
        lg__smb_explain(c, data, e, hd->said, sizeof hd->said);
        return -e;
    case LG_SMBPOOL_CLOSE:
        if (!*f)
            return 0;
        LG__SMB_CALL(r, c->close(c->ctx, *f));
        *f = NULL;
        if (r == 0)
            return 0;
        e = errno ? errno : EIO;
        snprintf(hd->said, sizeof hd->said, "%s", strerror(e));
        return -e;
    case LG__SMB_OP_READ:
    case LG__SMB_OP_WRITE:
        if (!*f) {
            snprintf(hd->said, sizeof hd->said, "file not open in the SMB worker");
            return -EBADF;
        }
        return s_io(c, *f, m, hd, data);
    default:
        snprintf(hd->said, sizeof hd->said, "bad request to an SMB worker");
        return -EINVAL;
    }
}

static void s_close_files(s_worker_t *w)
{
    for (unsigned k = 0; w->c && k < w->nfh; k++) {
        int r;
        if (w->fh[k])
            LG__SMB_CALL(r, w->c->close(w->c->ctx, w->fh[k]));
        (void)r;
        w->fh[k] = NULL;
    }
}

/* s_park_ready: the job asked w to park: 0 once it can (the agent watched, no longer a job's to
 * die with, files closed, fio's output let go), else a negative errno value and why in hd. */
static int64_t s_park_ready(s_worker_t *w, lg__smb_slot_t *hd)
{
    if (!w->park || !w->c) {
        snprintf(hd->said, sizeof hd->said, "this SMB worker cannot park");
        return -EOPNOTSUPP;
    }
    if (w->agent_fd < 0)
        w->agent_fd = lg__smb_park_watch(w->park);
    if (w->agent_fd < 0) {
        snprintf(hd->said, sizeof hd->said, "cannot watch lg-agent: %s", strerror(-w->agent_fd));
        return w->agent_fd;
    }
    /* Before the job hears of it: the job may exit at once, which must not end this worker. */
    prctl(PR_SET_PDEATHSIG, 0);
    s_close_files(w);
    /* fio's stdout and stderr are lg-agent's pipes, whose end tells it fio is done. */
    int null = open("/dev/null", O_RDWR | O_CLOEXEC);
    if (null < 0)
        return -errno;
    for (int fd = 0; fd < 3; fd++)
        dup2(null, fd);
    close(null);
    return 0;
}

/* s_serve: w->job's requests until the job closes the socket or the agent ends (0), or the job
 * asks w to park and it can (1). */
static int s_serve(s_worker_t *w)
{
    lg__smb_slot_t *hd = w->job.slot;
    char *data = (char *)hd + LG__SMB_SLOT_DATA;
    size_t cap = w->job.slot_size - LG__SMB_SLOT_DATA;
    uint32_t me = w->job.index;
    for (;;) {
        if (w->agent_fd >= 0) { /* adopted: the agent is watched while serving too */
            struct pollfd q[2] = {{w->job.sock, POLLIN, 0}, {w->agent_fd, POLLIN, 0}};
            if (poll(q, 2, -1) < 0 && errno != EINTR)
                return 0;
            if (q[1].revents)
                return 0;
        }
        lg__smb_msg_t m;
        ssize_t n = recv(w->job.sock, &m, sizeof m, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n != (ssize_t)sizeof m)
            return 0; /* 0: the job closed the pool */
        hd->said[0] = 0;
        lg__smb_said_clear();
        int park = m.op == LG__SMB_OP_PARK;
        if (park) {
            hd->result = s_park_ready(w, hd);
        } else if (w->c) {
            hd->result = s_do(w, &m, hd, data, cap);
        } else {
            hd->result = w->rc < 0 ? w->rc : -EIO;
            snprintf(hd->said, sizeof hd->said, "%s", w->err);
        }
        while (write(w->job.done_wr, &me, sizeof me) < 0 && errno == EINTR)
            ;
        if (park && hd->result == 0)
            return 1;
    }
}

/* s_leave: the job is done with w: its socket, pipe and slot let go. */
static void s_leave(s_worker_t *w)
{
    close(w->job.sock);
    close(w->job.done_wr);
    munmap(w->job.map, w->job.map_len);
    memset(&w->job, 0, sizeof w->job);
    w->job.sock = w->job.done_wr = -1;
}

/* s_next_job: park w until a job adopts it: 0 with w->job set, else the worker is to end. */
static int s_next_job(s_worker_t *w)
{
    s_leave(w);
    /* Out of the job's session and process group: a signal to them is no longer this one's. */
    setsid();
    prctl(PR_SET_NAME, S_NAME_PARKED);
    lg__smb_job_t job;
    int rc = lg__smb_park_wait(w->park, w->agent_fd, &job);
    if (rc)
        return rc;
    if (job.nfiles > w->nfh) {
        SMBCFILE **fh = realloc(w->fh, job.nfiles * sizeof *fh);
        if (!fh) {
            w->job = job;
            return -ENOMEM;
        }
        memset(fh + w->nfh, 0, (job.nfiles - w->nfh) * sizeof *fh);
        w->fh = fh;
        w->nfh = job.nfiles;
    }
    w->job = job;
    prctl(PR_SET_NAME, S_NAME);
    return 0;
}

_Noreturn void lg__smb_worker_main(struct thread_data *td, lg__smb_job_t *job,
                                   const lg__smb_park_t *park)
{
    /* The job ends the pool by closing the sockets; a ^C to fio's process group is fio's to
     * handle; a job that dies takes its workers with it (PR_SET_PDEATHSIG, until parked). */
    signal(SIGINT, SIG_IGN);
    signal(SIGQUIT, SIG_IGN);
    signal(SIGPIPE, SIG_IGN);
    signal(SIGUSR1, SIG_IGN);
    signal(SIGTERM, SIG_DFL);
    signal(SIGHUP, SIG_DFL);
    signal(SIGALRM, SIG_DFL);
    prctl(PR_SET_NAME, S_NAME); /* in ps and top, beside the fio job */
    s_worker_t w = {.job = *job, .park = park, .agent_fd = -1};
    snprintf(w.err, sizeof w.err, "out of memory");
    w.nfh = td->files_index ? td->files_index : 1;
    w.fh = calloc(w.nfh, sizeof *w.fh);
    w.rc = w.fh ? lg__smb_conn_new(td, &w.c, w.err, sizeof w.err) : -ENOMEM;
    while (s_serve(&w) && s_next_job(&w) == 0)
        ;
    /* A worker that cannot log off within S_LOGOFF_S (the server gone) ends all the same. */
    alarm(S_LOGOFF_S);
    s_close_files(&w);
    lg__smb_conn_destroy(&w.c);
    _exit(0); /* not exit(): fio's atexit handlers and stdio buffers are the job's */
}
