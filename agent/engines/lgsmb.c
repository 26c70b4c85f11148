/* lgsmb: a fio external ioengine that reads and writes files on SMB shares through libsmbclient,
 * for targets smb://[domain;][user@]host[:port]/share/path. At iodepth 1 a job does its I/O itself
 * on one SMB context; above, on a pool of iodepth worker processes with a context and connection
 * each. Load with ioengine=external:/path/lgsmb.so; credentials come from credentials=FILE. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "creds.h"
#include "optgroup.h"
#include "smbconn.h"
#include "smbctx.h"
#include "smbpool.h"

static struct fio_option s_options[] = {
    {
        .name = "credentials",
        .lname = "SMB credentials file",
        .type = FIO_OPT_STR_STORE,
        .off1 = offsetof(struct lg__smb_opts, credentials),
        .help = "smbclient authentication file (username = U, password = P, domain = D); "
                "without it the user in the target, else guest",
        .category = FIO_OPT_C_ENGINE,
        .group = FIO_OPT_G_INVALID,
    },
    {
        .name = "smb_min_protocol",
        .lname = "lowest SMB dialect",
        .type = FIO_OPT_STR_STORE,
        .off1 = offsetof(struct lg__smb_opts, min_protocol),
        .def = LG_SMBCTX_MIN_PROTOCOL,
        .help =
            "lowest dialect to negotiate (SMB2_02, SMB2_10, SMB3, SMB3_11); the highest is SMB3",
        .category = FIO_OPT_C_ENGINE,
        .group = FIO_OPT_G_INVALID,
    },
    {
        .name = "layout",
        .lname = "lay the files out",
        .type = FIO_OPT_BOOL,
        .off1 = offsetof(struct lg__smb_opts, layout),
        .def = "0",
        .help = "for a write job (lg-agent's layout step): write each file through only when one "
                "is missing or shorter than the job's size, else read one block instead",
        .category = FIO_OPT_C_ENGINE,
        .group = FIO_OPT_G_INVALID,
    },
    {
        .name = "smb_connect_timeout",
        .lname = "SMB logon deadline",
        .type = FIO_OPT_STR_VAL_TIME,
        .off1 = offsetof(struct lg__smb_opts, connect_timeout),
        .def = "45",
        .is_seconds = 1,
        .is_time = 1,
        .help = "at iodepth > 1, how long a job's iodepth SMB sessions may take to log on, "
                "connects the server refused for its load tried again meanwhile",
        .category = FIO_OPT_C_ENGINE,
        .group = FIO_OPT_G_INVALID,
    },
    {
        .name = NULL,
    },
};

/* s_fail: report a failure on file fname to the user and to fio (td->error, td->verror). */
static int s_fail(struct thread_data *td, const char *fname, const char *what, int e,
                  const char *text)
{
    char shown[PATH_MAX];
    lg__smb_redact(fname, shown, sizeof shown);
    log_err("lgsmb: could not %s \"%s\": %s\n", what, shown, text);
    td_vmsg(td, e, text, what);
    return e ? e : EIO;
}

/* s_check_target: fname must be an smb:// URL naming a file in a share, without a password. */
static int s_check_target(struct thread_data *td, const char *fname)
{
    lg__smb_target_t t;
    if (lg__smb_parse_target(fname, &t))
        return s_fail(td, fname, "use", EINVAL,
                      "not an SMB target (want smb://[user@]host[:port]/share/path/file)");
    if (t.has_password)
        return s_fail(td, fname, "use", EINVAL,
                      "a password in the target is refused; put it in a credentials= file");
    return 0;
}

/* s_open: open fname with flags; *fh on success, else the failure is reported. */
static int s_open(struct thread_data *td, lg__smb_conn_t *c, const char *fname, int flags,
                  SMBCFILE **fh)
{
    char text[2 * LG__SMB_DETAIL];
    lg__smb_said_clear();
    LG__SMB_CALL(*fh, c->open(c->ctx, fname, flags, 0644));
    if (!*fh) {
        int e = errno ? errno : EIO;
        lg__smb_explain(c, fname, e, text, sizeof text);
        return s_fail(td, fname, "open", e, text);
    }
    return 0;
}

/* s_wanted_size: the size fio will use this file up to, as setup_files() will compute it. */
static uint64_t s_wanted_size(struct thread_data *td)
{
    const struct thread_options *o = &td->o;
    uint64_t want;
    if (o->file_size_high)
        want = o->file_size_high;
    else {
        unsigned n = o->nr_files ? o->nr_files : 1;
        want = o->size / n;
        if (o->size % n)
            want += td_min_bs(td);
    }
    if (!o->start_offset_percent && !o->offset_increment_percent)
        want += o->start_offset + (uint64_t)td->subjob_number * o->offset_increment;
    return want;
}

/* td->io_ops_data: the job's own context (iodepth 1) or its pool (iodepth > 1). */
typedef struct {
    lg__smb_conn_t *conn;
    lg_smbpool_t *pool;
    int first_noted; /* its first I/O's instant written for the agent (lg__fio_first_io) */
    lg__fio_answerer_t answer; /* answers fio's reports (fio_engine.h) */
} s_job_t;

/* ---- the setup's connection ----
 * fio runs every job's ->setup in its main process, one after the other, before it starts any
 * job (create_serialize=1, the default). Each used to make a context of its own, so 16 jobs logged
 * on 16 times in a row at every run's start; now one context, kept for the next job's setup when
 * its options are the same, serves them all (libsmbclient keeps the connection to each server),
 * and is freed after the last job's setup, before fio starts the jobs. */
static struct {
    lg__smb_conn_t *c;
    char key[2 * PATH_MAX]; /* the options it was made with: credentials, lowest dialect */
} s_setup_conn;

/* s_setup_key: what a job's setup context depends on, into key. */
static void s_setup_key(const struct thread_data *td, char *key, size_t len)
{
    const struct lg__smb_opts *o = td->eo;
    snprintf(key, len, "%s\n%s", o->credentials ? o->credentials : "",
             o->min_protocol ? o->min_protocol : "");
}

/* s_setup_take: the context for td's setup: the one the previous job's setup kept if td's options
 * are the same, else a new one. NULL with err set on failure. */
static lg__smb_conn_t *s_setup_take(struct thread_data *td, char *err, size_t errlen)
{
    char key[sizeof s_setup_conn.key];
    lg__smb_conn_t *c = NULL;
    if (td->o.create_serialize) { /* else in the job's own thread or process: nothing kept */
        s_setup_key(td, key, sizeof key);
        if (s_setup_conn.c && !strcmp(key, s_setup_conn.key)) {
            c = s_setup_conn.c;
            s_setup_conn.c = NULL;
            return c;
        }
        lg__smb_conn_destroy(&s_setup_conn.c);
    }
    return lg__smb_conn_new(td, &c, err, errlen) ? NULL : c;
}

/* s_setup_give: td's setup is done: *c_p (may be NULL) kept for the next job's, or, after the last
 * job's, freed with whatever is kept. Takes ownership of *c_p. */
static void s_setup_give(struct thread_data *td, lg__smb_conn_t **c_p)
{
    int keep = td->o.create_serialize && td->thread_number < thread_number;
    if (keep && *c_p && !s_setup_conn.c) {
        s_setup_key(td, s_setup_conn.key, sizeof s_setup_conn.key);
        s_setup_conn.c = *c_p;
        *c_p = NULL;
        return;
    }
    lg__smb_conn_destroy(c_p);
    if (!keep && td->o.create_serialize)
        lg__smb_conn_destroy(&s_setup_conn.c);
}

/* ---- fio hooks ---- */

/* ->setup: runs before the job starts (in fio's main process unless create_serialize=0): create
 * each file on its share and extend it to the size the job will use, and tell fio the size, so
 * that fio never lays files out through local syscalls. */
static int s_setup(struct thread_data *td)
{
    char err[LG__SMB_DETAIL];
    const s_job_t *job = td->io_ops_data;
    lg__smb_conn_t *own = NULL, *c = job ? job->conn : NULL;
    lg__fio_rt_reporter(); /* fio's reports on time: fio_engine.h */
    for (unsigned i = 0; i < td->files_index; i++) {
        if (s_check_target(td, td->files[i]->file_name)) {
            s_setup_give(td, &own); /* the last job's: nothing kept past it */
            return 1;
        }
    }
    /* Before fio starts the job (create_serialize=1, the default), a process can still be
     * chosen over a thread: libsmbclient runs in parallel only across processes. */
    if (td->o.use_thread && td->o.create_serialize) {
        static int told;
        td->o.use_thread = 0;
        if (!__atomic_exchange_n(&told, 1, __ATOMIC_RELAXED))
            log_err("lgsmb: jobs run as processes, not threads: libsmbclient is not "
                    "thread-safe\n");
    }
    if (!c) {
        own = s_setup_take(td, err, sizeof err);
        if (!own) {
            log_err("lgsmb: %s\n", err);
            td_vmsg(td, EINVAL, err, "setup");
            return 1;
        }
        c = own;
    }
    int rc = 0, all_there = 1;
    for (unsigned i = 0; i < td->files_index; i++) {
        struct fio_file *f = td->files[i];
        uint64_t want = s_wanted_size(td), size = 0;
        int exists = 0;
        struct stat st;
        /* A file that is large enough is not opened for writing: read-only shares work. */
        lg__smb_said_clear();
        int r;
        LG__SMB_CALL(r, c->stat(c->ctx, f->file_name, &st));
        if (r == 0) {
            size = (uint64_t)st.st_size;
            exists = 1;
        } else if (errno != ENOENT || !td->o.allow_create) {
            char text[2 * LG__SMB_DETAIL];
            int e = errno;
            lg__smb_explain(c, f->file_name, e, text, sizeof text);
            rc = s_fail(td, f->file_name, "open", e, text);
            break;
        }
        if (want > size || !exists) {
            all_there = 0;
            SMBCFILE *fh;
            char text[2 * LG__SMB_DETAIL];
            rc = s_open(td, c, f->file_name, O_RDWR | (td->o.allow_create ? O_CREAT : 0), &fh);
            if (rc)
                break;
            if (want > size) {
                /* Extend by writing the last byte of this job's range, not by ftruncate: other
                 * jobs or agents may be extending the same file to other sizes at the same
                 * time, and a write never shrinks it. The byte is this job's own. */
                static const char zero;
                off_t pos;
                ssize_t n = -1;
                lg__smb_said_clear();
                LG__SMB_CALL(pos, c->lseek(c->ctx, fh, (off_t)want - 1, SEEK_SET));
                if (pos >= 0)
                    LG__SMB_CALL(n, c->write(c->ctx, fh, &zero, 1));
                r = n == 1 ? 0 : -1;
                if (r < 0) {
                    int e = errno;
                    lg__smb_explain(c, f->file_name, e, text, sizeof text);
                    rc = s_fail(td, f->file_name, "extend", e, text);
                    LG__SMB_CALL(r, c->close(c->ctx, fh));
                    break;
                }
                size = want;
            }
            LG__SMB_CALL(r, c->close(c->ctx, fh));
        }
        f->real_file_size = size;
        fio_file_set_size_known(f);
    }
    s_setup_give(td, &own);
    /* The layout step: files that were there at full size are not written again (nor opened
     * for writing: read-only shares work); the job reads one block of them instead, so that
     * what is wrong with the target still shows at Prepare. A file this created or extended
     * (sparse: its last byte) is written through, as fio lays out a local file, so that no run
     * reads holes, which a server answers with zeros without touching its disks. */
    const struct lg__smb_opts *eo = td->eo;
    if (!rc && eo && eo->layout && all_there && td_write(td)) {
        td->o.td_ddir = TD_DDIR_READ;
        td->o.number_ios = 1;
    }
    return rc ? 1 : 0;
}

/* s_job_destroy: the job's context or pool. Takes ownership of *self_p and sets it to NULL. */
static void s_job_destroy(s_job_t **self_p)
{
    s_job_t *job = self_p ? *self_p : NULL;
    if (!job)
        return;
    *self_p = NULL;
    lg__fio_answerer_stop(&job->answer);
    lg__smb_conn_destroy(&job->conn);
    lg_smbpool_destroy(&job->pool);
    free(job);
}

/* ->init, in the thread or process that does the I/O: at iodepth 1 the job's own SMB context,
 * which connects at the first open; above, the pool of workers, all of them connected and
 * logged on to every file's share here, so that no logon falls in the measured window. */
static int s_init(struct thread_data *td)
{
    char err[LG__SMB_DETAIL];
    s_job_t *job = calloc(1, sizeof *job);
    if (!job) {
        td_verror(td, ENOMEM, "init");
        return 1;
    }
    if (td->o.iodepth <= 1) {
        if (lg__smb_conn_new(td, &job->conn, err, sizeof err)) {
            log_err("lgsmb: %s\n", err);
            td_vmsg(td, EINVAL, err, "init");
            s_job_destroy(&job);
            return 1;
        }
        td->io_ops_data = job;
        lg__fio_answerer_start(&job->answer, td);
        /* Behind lg-agent's start gate: the files opened (logged on) and the instant waited for
         * (fio_engine.h); should that fail, fio closes them and calls ->cleanup. */
        return lg__fio_gate(td, "lgsmb", NULL, &job->answer);
    }
    int rc = lg_smbpool_new(td, &job->pool, err, sizeof err);
    if (rc) {
        log_err("lgsmb: %s\n", err);
        td_vmsg(td, -rc, err, "init");
        s_job_destroy(&job);
        return 1;
    }
    for (unsigned i = 0; i < td->files_index; i++) {
        char why[2 * LG__SMB_DETAIL];
        rc = lg_smbpool_connect(td, job->pool, td->files[i], why, sizeof why);
        if (rc) {
            s_fail(td, td->files[i]->file_name, "connect to", -rc, why);
            s_job_destroy(&job);
            return 1;
        }
    }
    /* The engine is declared synchronous, for iodepth 1; this job's I/Os complete through
     * getevents(), and queue() stamps their issue time before a worker has them. */
    td->flags &= ~((unsigned long long)FIO_SYNCIO << TD_ENG_FLAG_SHIFT);
    td->flags |= (unsigned long long)FIO_ASYNCIO_SETS_ISSUE_TIME << TD_ENG_FLAG_SHIFT;
    td->io_ops_data = job;
    /* after the workers are forked: they need no copy of the thread */
    lg__fio_answerer_start(&job->answer, td);
    return lg__fio_gate(td, "lgsmb", NULL, &job->answer); /* as above */
}

static void s_cleanup(struct thread_data *td)
{
    lg__fio_gate_cleanup(td);
    s_job_t *job = td->io_ops_data;
    s_job_destroy(&job);
    td->io_ops_data = NULL;
}

static int s_open_file(struct thread_data *td, struct fio_file *f)
{
    s_job_t *job = td->io_ops_data;
    int flags = O_RDONLY;
    if (td_write(td))
        flags = O_RDWR | (td->o.allow_create ? O_CREAT : 0);
    if (job->pool) {
        char why[2 * LG__SMB_DETAIL];
        int rc = lg_smbpool_all(td, job->pool, LG_SMBPOOL_OPEN, f, flags, why, sizeof why);
        if (rc) {
            s_fail(td, f->file_name, "open", -rc, why);
            return 1;
        }
        return 0;
    }
    SMBCFILE *fh;
    if (s_open(td, job->conn, f->file_name, flags, &fh))
        return 1;
    FILE_SET_ENG_DATA(f, fh);
    return 0;
}

static int s_close_file(struct thread_data *td, struct fio_file *f)
{
    s_job_t *job = td->io_ops_data;
    if (job && job->pool) {
        char why[2 * LG__SMB_DETAIL];
        int rc = lg_smbpool_all(td, job->pool, LG_SMBPOOL_CLOSE, f, 0, why, sizeof why);
        if (rc)
            log_err("lgsmb: could not close \"%s\": %s\n", f->file_name, why);
        return -rc;
    }
    lg__smb_conn_t *c = job ? job->conn : NULL;
    SMBCFILE *fh = FILE_ENG_DATA(f);
    FILE_SET_ENG_DATA(f, NULL);
    if (!fh || !c)
        return 0;
    int r;
    LG__SMB_CALL(r, c->close(c->ctx, fh));
    if (r < 0) {
        int e = errno;
        log_err("lgsmb: could not close \"%s\": %s\n", f->file_name, strerror(e));
        return e;
    }
    return 0;
}

static int s_unlink_file(struct thread_data *td, struct fio_file *f)
{
    char err[LG__SMB_DETAIL];
    const s_job_t *job = td->io_ops_data;
    lg__smb_conn_t *own = NULL, *c = job ? job->conn : NULL;
    if (!c) {
        if (lg__smb_conn_new(td, &own, err, sizeof err)) {
            log_err("lgsmb: %s\n", err);
            return EINVAL;
        }
        c = own;
    }
    int r;
    LG__SMB_CALL(r, c->unlink(c->ctx, f->file_name));
    int rc = r < 0 ? errno : 0;
    lg__smb_conn_destroy(&own);
    return rc;
}

/* s_io_error: fail io_u with errno e. fio takes a synchronous engine's error straight from the
 * queue hook (no "io_u error" line, no ->errdetails), so the SMB side of it is logged here. */
static enum fio_q_status s_io_error(struct thread_data *td, lg__smb_conn_t *c, struct io_u *io_u,
                                    int e)
{
    char said[LG__SMB_DETAIL];
    lg__smb_said_text(said, sizeof said);
    lg__smb_io_log(td, &c->io_errors, io_u, e, said);
    io_u->error = e;
    return FIO_Q_COMPLETED;
}

/* s_sync_queue: the I/O of an iodepth-1 job, done here and now. */
static enum fio_q_status s_sync_queue(struct thread_data *td, lg__smb_conn_t *c, struct io_u *io_u)
{
    SMBCFILE *fh = FILE_ENG_DATA(io_u->file);
    /* fio marks these itself only for engines without a commit() hook */
    io_u_mark_submit(td, 1);
    io_u_mark_complete(td, 1);
    if (ddir_sync(io_u->ddir)) {
        /* libsmbclient has no flush call (no SMB2 FLUSH): each write above was acknowledged by
         * the server before it returned, which is all this engine can promise. */
        lg__smb_warn_sync();
        return FIO_Q_COMPLETED;
    }
    if (io_u->ddir != DDIR_READ && io_u->ddir != DDIR_WRITE)
        return s_io_error(td, c, io_u, EOPNOTSUPP);
    lg__smb_said_clear();
    off_t pos;
    LG__SMB_CALL(pos, c->lseek(c->ctx, fh, (off_t)io_u->offset, SEEK_SET));
    if (pos < 0)
        return s_io_error(td, c, io_u, errno);
    char *buf = io_u->xfer_buf;
    size_t left = io_u->xfer_buflen;
    while (left) {
        ssize_t n;
        if (io_u->ddir == DDIR_READ)
            LG__SMB_CALL(n, c->read(c->ctx, fh, buf, left));
        else
            LG__SMB_CALL(n, c->write(c->ctx, fh, buf, left));
        if (n < 0)
            return s_io_error(td, c, io_u, errno ? errno : EIO);
        if (n == 0)
            break; /* end of file: fio sees the short read through resid */
        buf += n;
        left -= (size_t)n;
    }
    io_u->resid = left;
    return FIO_Q_COMPLETED;
}

static enum fio_q_status s_queue(struct thread_data *td, struct io_u *io_u)
{
    s_job_t *job = td->io_ops_data;
    fio_ro_check(td, io_u);
    lg__fio_live_bytes(td); /* what fio's reports print: see fio_engine.h */
    lg__fio_first_io(td, &job->first_noted);
    if (job->pool)
        return lg_smbpool_queue(td, job->pool, io_u);
    return s_sync_queue(td, job->conn, io_u);
}

static int s_commit(struct thread_data *td)
{
    s_job_t *job = td->io_ops_data;
    if (job && job->pool)
        lg_smbpool_commit(td, job->pool);
    return 0; /* queue() has already handed each I/O to its worker */
}

static int s_getevents(struct thread_data *td, unsigned int min, unsigned int max,
                       const struct timespec *t)
{
    lg_smbpool_t *p = ((s_job_t *)td->io_ops_data)->pool;
    if (!p)
        return 0;
    lg__fio_live_bytes(td);
    return lg_smbpool_getevents(td, p, min, max, t);
}

static struct io_u *s_event(struct thread_data *td, int event)
{
    return lg_smbpool_event(((s_job_t *)td->io_ops_data)->pool, event);
}

struct ioengine_ops ioengine = {
    .name = "lgsmb",
    .version = FIO_IOOPS_VERSION,
    /* DISKLESSIO: no local file, no local layout or cache calls; sizes come from ->setup.
     * SYNCIO holds at iodepth 1 only: ->init takes it off a job that has a pool. */
    .flags = FIO_SYNCIO | FIO_DISKLESSIO | FIO_NODISKUTIL,
    .setup = s_setup,
    .init = s_init,
    .cleanup = s_cleanup,
    .queue = s_queue,
    .commit = s_commit,
    .getevents = s_getevents,
    .event = s_event,
    .open_file = s_open_file,
    .close_file = s_close_file,
    .unlink_file = s_unlink_file,
    .options = s_options,
    .option_struct_size = sizeof(struct lg__smb_opts),
};
