/* lgiscsi.c: a fio external ioengine that drives an iSCSI LUN through libiscsi's asynchronous
 * API (READ16 / WRITE16 / SYNCHRONIZE CACHE16), so lg-agent can load a target without a kernel
 * initiator. filename=iscsi://host[:port]/iqn/lun, every ':' escaped as '\:' in a job file. */
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <iscsi/iscsi.h>
#include <iscsi/scsi-lowlevel.h>

#include "creds.h"
#include "fio_engine.h"
#include "iscsi_login.h"

/* iscsi_which_events() returning 0 means "wait >= 100 ms" (reconnect back-off). */
#define S_BACKOFF_MS 100
#define S_ANSWER_MS 10 /* how long a wait goes without answering fio's status thread */
#define S_TERMINATE_GRACE_MS 10000

struct s_options {
    void *pad; /* fio writes the thread pointer here: no option may sit at offset 0 */
    char *initiator;
    char *chap_credentials;
    unsigned int io_timeout;
};

static struct fio_option s_option_table[] = {
    {
        .name = "initiator",
        .lname = "iSCSI initiator name",
        .type = FIO_OPT_STR_STORE,
        .off1 = offsetof(struct s_options, initiator),
        .def = LG_ISCSI_DEFAULT_INITIATOR,
        .help = "initiator IQN this job logs in as",
        .category = FIO_OPT_C_ENGINE,
        .group = FIO_OPT_G_ISCSI,
    },
    {
        .name = "chap_credentials",
        .lname = "CHAP credentials file",
        .type = FIO_OPT_STR_STORE,
        .off1 = offsetof(struct s_options, chap_credentials),
        .help = "file with 'username = X' and 'password = Y' lines for CHAP",
        .category = FIO_OPT_C_ENGINE,
        .group = FIO_OPT_G_ISCSI,
    },
    {
        .name = "io_timeout",
        .lname = "iSCSI command timeout",
        .type = FIO_OPT_INT,
        .off1 = offsetof(struct s_options, io_timeout),
        .def = "30",
        .minval = 0,
        .help = "seconds a command may wait for the target before it fails with EIO (0: forever)",
        .category = FIO_OPT_C_ENGINE,
        .group = FIO_OPT_G_ISCSI,
    },
    {
        .name = NULL,
    },
};

/* One per fio file: what READ CAPACITY(16) said, and the job's session while the file is open. */
typedef struct {
    struct iscsi_context *ctx; /* NULL unless open */
    int lun;
    uint32_t block_size;
    uint64_t num_blocks;
    int closing; /* completions during logout/destroy belong to no io_u fio waits for */
} s_lun_t;

/* td->io_ops_data: per job (thread or process). */
typedef struct {
    s_lun_t *luns; /* indexed by fio_file->fileno */
    struct pollfd *pfds;
    unsigned nluns;
    struct io_u **done; /* completed, not yet handed to fio: [0, nreturned) went out last time */
    unsigned ndone, nreturned, cap;
    int have_chap;
    lg_creds_t chap;
    unsigned nqueued;  /* since the last commit(), for fio's submit histogram */
    unsigned inflight; /* commands libiscsi has not called back for */
    int failure_logged;
    int first_noted; /* its first I/O's instant written for the agent (lg__fio_first_io) */
    lg__fio_answerer_t answer; /* answers fio's reports (fio_engine.h) */
} s_engine_t;

/* One per io_u: the data-in iovec must outlive the queue() call. */
typedef struct {
    struct scsi_iovec iov;
    struct scsi_task *task;
    struct io_u *io_u;
    s_engine_t *eng;
    s_lun_t *lun;
    int sync_wait; /* queue() waits for this one itself: not a getevents() completion */
} s_req_t;

/* The URL for messages, with a password given inline (user%pass@ or user:pass@) masked. */
static void s_shown_url(const char *url, char *out, size_t n)
{
    const char *host = strstr(url, "://");
    const char *at, *slash, *sep = NULL, *p;

    host = host ? host + 3 : url;
    at = strchr(host, '@');
    slash = strchr(host, '/');
    if (at && (!slash || at < slash)) {
        for (p = host; p < at; p++) {
            if (*p == '%' || *p == ':') {
                sep = p;
                break;
            }
        }
    }
    if (!sep) {
        snprintf(out, n, "%s", url);
        return;
    }
    snprintf(out, n, "%.*s***%s", (int)(sep + 1 - url), url, at);
}

/* libiscsi quotes the URL in some errors: the same masking applies to its text. */
static void s_shown_error(const char *text, const char *url, char *out, size_t n)
{
    char shown[1024];
    const char *hit;

    s_shown_url(url, shown, sizeof shown);
    hit = text ? strstr(text, url) : NULL;
    if (!text)
        snprintf(out, n, "unknown error");
    else if (!hit || !strcmp(shown, url))
        snprintf(out, n, "%s", text);
    else
        snprintf(out, n, "%.*s%s%s", (int)(hit - text), text, shown, hit + strlen(url));
    /* multi-line libiscsi messages read badly in fio's log: one line */
    for (char *c = out; *c; c++) {
        if (*c == '\n')
            *c = ' ';
    }
}

/* The CHAP user and password from a credentials file (creds.h: the engines' one format).
 * Returns 0 or an errno value after logging a message that names the file and line. */
static int s_read_chap(s_engine_t *eng, const char *path)
{
    char msg[512];
    int err = lg_iscsi_read_chap(path, &eng->chap, msg, sizeof msg);
    if (err) {
        log_err("lgiscsi: %s\n", msg);
        return err;
    }
    eng->have_chap = 1;
    return 0;
}

static void s_engine_destroy(s_engine_t **self_p)
{
    s_engine_t *eng = self_p ? *self_p : NULL;
    if (!eng)
        return;
    *self_p = NULL;
    free(eng->luns);
    free(eng->pfds);
    free(eng->done);
    lg_creds_clear(&eng->chap);
    free(eng);
}

/* The job's engine state, created on first use: setup() runs before init() unless
 * create_serialize=0. Returns NULL (and sets td's error) when out of memory or a CHAP file is
 * bad. The state belongs to td->io_ops_data; cleanup() frees it. */
static s_engine_t *s_engine(struct thread_data *td)
{
    struct s_options *o = td->eo;
    s_engine_t *eng = td->io_ops_data;
    int err;

    if (eng)
        return eng;
    eng = calloc(1, sizeof *eng);
    if (!eng)
        goto oom;
    eng->nluns = td->o.nr_files ? td->o.nr_files : 1;
    eng->cap = td->o.iodepth ? td->o.iodepth : 1;
    eng->luns = calloc(eng->nluns, sizeof *eng->luns);
    eng->pfds = calloc(eng->nluns, sizeof *eng->pfds);
    eng->done = calloc(eng->cap, sizeof *eng->done);
    if (!eng->luns || !eng->pfds || !eng->done)
        goto oom;
    if (o->chap_credentials && *o->chap_credentials) {
        err = s_read_chap(eng, o->chap_credentials);
        if (err) {
            s_engine_destroy(&eng);
            td_verror(td, err, "lgiscsi chap_credentials");
            return NULL;
        }
    }
    td->io_ops_data = eng;
    return eng;
oom:
    s_engine_destroy(&eng);
    td_verror(td, ENOMEM, "lgiscsi state");
    return NULL;
}

/* Connects and logs in to f's URL. On success *ctx_p owns the session (logged in, LUN checked
 * by libiscsi's TEST UNIT READY) and lun->lun is set; on failure returns an errno value after
 * logging a message naming the target and libiscsi's reason. */
static int s_login(struct thread_data *td, s_engine_t *eng, struct fio_file *f, s_lun_t *lun,
                   struct iscsi_context **ctx_p)
{
    struct s_options *o = td->eo;
    const char *initiator =
        o->initiator && *o->initiator ? o->initiator : LG_ISCSI_DEFAULT_INITIATOR;
    char shown[1024], why[1024], raw[1024];
    struct iscsi_context *ctx;
    struct iscsi_url *url;
    int err;

    *ctx_p = NULL;
    s_shown_url(f->file_name, shown, sizeof shown);
    ctx = lg_iscsi_context_new(initiator, (uint32_t)td->thread_number);
    if (!ctx) {
        log_err("lgiscsi: could not create an iSCSI context for \"%s\" (initiator \"%s\")\n", shown,
                initiator);
        return ENOMEM;
    }

    url = iscsi_parse_full_url(ctx, f->file_name);
    if (!url) {
        s_shown_error(iscsi_get_error(ctx), f->file_name, why, sizeof why);
        log_err("lgiscsi: \"%s\" is not an iSCSI URL: %s\n", shown, why);
        log_err("lgiscsi: expected iscsi://host[:port]/target-iqn/lun, each ':' written as "
                "'\\:' in a job file\n");
        iscsi_destroy_context(ctx);
        return EINVAL;
    }
    lun->lun = url->lun;
    err = lg_iscsi_login(ctx, url, eng->have_chap ? &eng->chap : NULL, raw, sizeof raw);
    iscsi_destroy_url(url);
    if (err) {
        s_shown_error(raw, f->file_name, why, sizeof why);
        log_err("lgiscsi: could not log in to \"%s\"%s: %s\n", shown,
                eng->have_chap ? " with CHAP" : "", why);
        iscsi_destroy_context(ctx);
        return err;
    }
    *ctx_p = ctx;
    return 0;
}

/* READ CAPACITY(16) over ctx into lun. Returns 0 or an errno value after logging. */
static int s_read_capacity(struct iscsi_context *ctx, const char *shown, s_lun_t *lun)
{
    struct scsi_task *task = iscsi_readcapacity16_sync(ctx, lun->lun);
    struct scsi_readcapacity16 *rc16;

    if (!task || task->status != SCSI_STATUS_GOOD) {
        if (task && task->status == SCSI_STATUS_CHECK_CONDITION)
            log_err("lgiscsi: READ CAPACITY(16) on \"%s\" failed: %s: %s\n", shown,
                    scsi_sense_key_str(task->sense.key), scsi_sense_ascq_str(task->sense.ascq));
        else
            log_err("lgiscsi: READ CAPACITY(16) on \"%s\" failed: %s\n", shown,
                    iscsi_get_error(ctx));
        if (task)
            scsi_free_scsi_task(task);
        return EIO;
    }
    rc16 = scsi_datain_unmarshall(task);
    if (!rc16 || rc16->block_length == 0) {
        log_err("lgiscsi: READ CAPACITY(16) on \"%s\" returned no usable data\n", shown);
        scsi_free_scsi_task(task);
        return EIO;
    }
    lun->block_size = rc16->block_length;
    lun->num_blocks = rc16->returned_lba + 1;
    scsi_free_scsi_task(task);
    return 0;
}

/* f's LUN state, or NULL when f is not one of the files setup() saw. */
static s_lun_t *s_lun_of(s_engine_t *eng, const struct fio_file *f)
{
    if (!eng || f->fileno < 0 || (unsigned)f->fileno >= eng->nluns)
        return NULL;
    return &eng->luns[f->fileno];
}

/* Every block size this job may use must be whole LUN blocks: SCSI addresses blocks, not bytes.
 * Returns 0 or EINVAL after logging which setting is off. */
static int s_check_bs(struct thread_data *td, const char *shown, uint32_t lbs)
{
    static const char *const names[] = {"read", "write"};
    const struct thread_options *o = &td->o;

    if (o->bs_unaligned) {
        log_err("lgiscsi: bs_unaligned cannot be used with \"%s\": its block size is %u\n", shown,
                lbs);
        return EINVAL;
    }
    for (int d = DDIR_READ; d <= DDIR_WRITE; d++) {
        unsigned long long bad = 0;
        const char *what = "bs";

        if (o->min_bs[d] % lbs)
            bad = o->min_bs[d];
        else if (o->max_bs[d] % lbs)
            bad = o->max_bs[d];
        else if (o->ba[d] % lbs) {
            bad = o->ba[d];
            what = "blockalign";
        }
        for (unsigned i = 0; !bad && i < o->bssplit_nr[d]; i++) {
            if (o->bssplit[d][i].bs % lbs)
                bad = o->bssplit[d][i].bs;
        }
        if (bad) {
            log_err("lgiscsi: %s %s=%llu is not a multiple of the block size %u of \"%s\"\n",
                    names[d], what, bad, lbs, shown);
            return EINVAL;
        }
    }
    return 0;
}

/* In the parent, before jobs start: log in once per file to learn each LUN's size and block
 * size, check the job against them, and log out again (the job's own session is made in
 * open_file, inside the job's process or thread). */
static int s_setup(struct thread_data *td)
{
    s_engine_t *eng = s_engine(td);
    struct fio_file *f;
    unsigned int i;

    if (!eng)
        return 1;
    lg__fio_rt_reporter(); /* fio's reports on time: fio_engine.h */
    if (td_trim(td)) {
        log_err("lgiscsi: trim is not supported\n");
        td_verror(td, EINVAL, "lgiscsi setup");
        return 1;
    }
    if (td->o.pre_read) {
        log_err("lgiscsi: pre_read is not supported\n");
        td_verror(td, EINVAL, "lgiscsi setup");
        return 1;
    }
    for_each_file(td, f, i)
    {
        s_lun_t *lun = s_lun_of(eng, f);
        struct iscsi_context *ctx;
        char shown[1024];
        int err;

        s_shown_url(f->file_name, shown, sizeof shown);
        if (!lun) {
            log_err("lgiscsi: more files than nr_files at \"%s\"\n", shown);
            td_verror(td, EINVAL, "lgiscsi setup");
            return 1;
        }
        err = s_login(td, eng, f, lun, &ctx);
        if (!err) {
            err = s_read_capacity(ctx, shown, lun);
            lg_iscsi_logout(&ctx);
        }
        if (!err)
            err = s_check_bs(td, shown, lun->block_size);
        if (err) {
            td_verror(td, err, "lgiscsi setup");
            return 1;
        }
        f->real_file_size = lun->num_blocks * lun->block_size;
        fio_file_set_size_known(f);
        dprint(FD_FILE, "lgiscsi: %s: LUN %d, %llu blocks of %u bytes\n", shown, lun->lun,
               (unsigned long long)lun->num_blocks, lun->block_size);
    }
    return 0;
}

static void s_gate_idle(struct thread_data *td);

/* ->init. Behind lg-agent's start gate, the job's files are opened (each LUN logged in) and the
 * job waits for the start there (fio_engine.h), its sessions serviced meanwhile; else each logs
 * in at its first open. */
static int s_init(struct thread_data *td)
{
    s_engine_t *eng = s_engine(td);
    if (!eng)
        return 1;
    lg__fio_answerer_start(&eng->answer, td);
    return lg__fio_gate(td, "lgiscsi", s_gate_idle, &eng->answer);
}

static int s_get_file_size(struct thread_data *td, struct fio_file *f)
{
    s_lun_t *lun = s_lun_of(td->io_ops_data, f);

    if (lun && lun->block_size) {
        f->real_file_size = lun->num_blocks * lun->block_size;
        fio_file_set_size_known(f);
    }
    return 0;
}

static int s_open_file(struct thread_data *td, struct fio_file *f)
{
    s_engine_t *eng = s_engine(td);
    char shown[1024];
    s_lun_t *lun;
    int err;

    if (!eng)
        return 1;
    s_shown_url(f->file_name, shown, sizeof shown);
    lun = s_lun_of(eng, f);
    if (!lun || !lun->block_size) {
        log_err("lgiscsi: \"%s\" was not set up before open\n", shown);
        td_verror(td, EINVAL, "lgiscsi open");
        return 1;
    }
    if (f->file_offset % lun->block_size) {
        log_err("lgiscsi: offset %llu is not a multiple of the block size %u of \"%s\"\n",
                (unsigned long long)f->file_offset, lun->block_size, shown);
        td_verror(td, EINVAL, "lgiscsi open");
        return 1;
    }
    if (lun->ctx)
        return 0;
    err = s_login(td, eng, f, lun, &lun->ctx);
    if (err) {
        td_verror(td, err, "lgiscsi open");
        return 1;
    }
    /* Like a SCSI initiator's command timeout: a target that stops answering fails the I/O
     * (SCSI_STATUS_TIMEOUT, EIO) instead of leaving fio waiting past its runtime. */
    iscsi_set_timeout(lun->ctx, (int)((struct s_options *)td->eo)->io_timeout);
    lun->closing = 0;
    return 0;
}

static int s_close_file(struct thread_data *td, struct fio_file *f)
{
    s_engine_t *eng = td->io_ops_data;
    s_lun_t *lun = s_lun_of(eng, f);

    if (lun && lun->ctx) {
        lun->closing = 1;
        lg_iscsi_logout(&lun->ctx);
        eng->pfds[f->fileno].fd = -1;
    }
    return 0;
}

static int s_unlink_file(struct thread_data *td, struct fio_file *f)
{
    (void)td;
    (void)f;
    return 0; /* a LUN is never deleted; fio must not unlink() the URL as a local path */
}

static void s_cleanup(struct thread_data *td)
{
    s_engine_t *eng = td->io_ops_data;

    lg__fio_gate_cleanup(td);
    if (!eng)
        return;
    lg__fio_answerer_stop(&eng->answer);
    for (unsigned i = 0; i < eng->nluns; i++) {
        eng->luns[i].closing = 1;
        lg_iscsi_logout(&eng->luns[i].ctx);
    }
    s_engine_destroy(&eng);
    td->io_ops_data = NULL;
}

static int s_io_u_init(struct thread_data *td, struct io_u *io_u)
{
    s_req_t *r = calloc(1, sizeof *r);

    (void)td;
    if (!r)
        return 1;
    r->io_u = io_u;
    io_u->engine_data = r;
    return 0;
}

static void s_io_u_free(struct thread_data *td, struct io_u *io_u)
{
    (void)td;
    free(io_u->engine_data);
    io_u->engine_data = NULL;
}

static const char *s_ddir_name(enum fio_ddir d)
{
    return d == DDIR_READ ? "READ(16)" : d == DDIR_WRITE ? "WRITE(16)" : "SYNCHRONIZE CACHE(16)";
}

/* The first failure of the job is logged with the target's sense or libiscsi's reason; the
 * rest only count, since a broken LUN would otherwise flood fio's log at line rate. */
static void s_log_failure(s_engine_t *eng, struct iscsi_context *ctx, struct io_u *io_u, int status,
                          struct scsi_task *task)
{
    char shown[1024], why[512];

    if (eng->failure_logged)
        return;
    eng->failure_logged = 1;
    s_shown_url(io_u->file->file_name, shown, sizeof shown);
    switch (status) {
    case SCSI_STATUS_CHECK_CONDITION:
        snprintf(why, sizeof why, "%s: %s",
                 task ? scsi_sense_key_str(task->sense.key) : "CHECK CONDITION",
                 task ? scsi_sense_ascq_str(task->sense.ascq) : "no sense data");
        break;
    case SCSI_STATUS_CANCELLED:
        snprintf(why, sizeof why, "cancelled: the target did not answer while the job ended");
        break;
    case SCSI_STATUS_TIMEOUT:
        snprintf(why, sizeof why, "no answer within io_timeout");
        break;
    case SCSI_STATUS_ERROR:
        snprintf(why, sizeof why, "%s", iscsi_get_error(ctx));
        break;
    default:
        snprintf(why, sizeof why, "SCSI status 0x%x", (unsigned)status);
        break;
    }
    log_err("lgiscsi: %s of %llu bytes at %llu on \"%s\" failed: %s (further errors of this "
            "job are not logged)\n",
            s_ddir_name(io_u->ddir), io_u->xfer_buflen, io_u->offset, shown, why);
}

static void s_done(struct iscsi_context *ctx, int status, void *command_data, void *private_data)
{
    s_req_t *r = private_data;
    struct scsi_task *task = command_data ? command_data : r->task;
    struct io_u *io_u = r->io_u;
    s_engine_t *eng = r->eng;

    if (status == SCSI_STATUS_GOOD) {
        io_u->error = 0;
        if (task && task->residual_status == SCSI_RESIDUAL_UNDERFLOW)
            io_u->resid = task->residual;
    } else {
        io_u->error = EIO;
        io_u->resid = io_u->xfer_buflen;
        if (!r->lun->closing)
            s_log_failure(eng, ctx, io_u, status, task);
    }
    if (task)
        scsi_free_scsi_task(task);
    r->task = NULL;
    if (eng->inflight)
        eng->inflight--;
    if (r->lun->closing || r->sync_wait)
        return;
    if (eng->ndone < eng->cap)
        eng->done[eng->ndone++] = io_u;
    else
        log_err("lgiscsi: more completions than iodepth %u; one is lost\n", eng->cap);
}

/* fio calls commit() and getevents() only after it has reaped, through event(), all that the
 * last getevents() returned: those entries go before new completions can need room. */
static void s_drop_reaped(s_engine_t *eng)
{
    if (!eng->nreturned)
        return;
    memmove(eng->done, eng->done + eng->nreturned,
            (eng->ndone - eng->nreturned) * sizeof *eng->done);
    eng->ndone -= eng->nreturned;
    eng->nreturned = 0;
}

/* One poll() over every open session, then iscsi_service() for each, which sends queued PDUs
 * and runs completion callbacks. Returns 0, or a negative errno value when poll() fails. */
static int s_service(s_engine_t *eng, int timeout_ms)
{
    int n;

    s_drop_reaped(eng);

    for (unsigned i = 0; i < eng->nluns; i++) {
        struct iscsi_context *ctx = eng->luns[i].ctx;
        int ev = ctx ? iscsi_which_events(ctx) : 0;

        eng->pfds[i].fd = ctx && ev ? iscsi_get_fd(ctx) : -1;
        eng->pfds[i].events = (short)ev;
        eng->pfds[i].revents = 0;
        if (ctx && !ev && (timeout_ms < 0 || timeout_ms > S_BACKOFF_MS))
            timeout_ms = S_BACKOFF_MS;
    }
    n = poll(eng->pfds, eng->nluns, timeout_ms);
    if (n < 0) {
        if (errno == EINTR)
            return 0;
        return -errno;
    }
    for (unsigned i = 0; i < eng->nluns; i++) {
        struct iscsi_context *ctx = eng->luns[i].ctx;

        if (!ctx)
            continue;
        /* revents 0 still lets libiscsi run its timeouts and reconnect logic */
        if (iscsi_service(ctx, eng->pfds[i].revents) < 0 && !eng->failure_logged) {
            eng->failure_logged = 1;
            log_err("lgiscsi: session error: %s\n", iscsi_get_error(ctx));
        }
    }
    return 0;
}

/* Logged in and waiting at the start gate: the sessions are serviced, so that a target's NOP-In
 * is answered and a session the target ends is noticed, not left for the first I/O. */
static void s_gate_idle(struct thread_data *td)
{
    s_engine_t *eng = td->io_ops_data;

    if (eng)
        s_service(eng, 0);
}

static int s_commit(struct thread_data *td)
{
    s_engine_t *eng = td->io_ops_data;

    if (!eng)
        return 0;
    if (eng->nqueued) {
        io_u_mark_submit(td, eng->nqueued);
        eng->nqueued = 0;
    }
    /* Push the queued commands onto the wire now rather than at the next getevents(). The
     * socket is non-blocking and libiscsi stops at EAGAIN, so a logged-in session needs no
     * poll() first; one still connecting must wait for poll() to report the connect. */
    for (unsigned i = 0; i < eng->nluns; i++) {
        struct iscsi_context *ctx = eng->luns[i].ctx;

        if (ctx && iscsi_is_logged_in(ctx) && (iscsi_which_events(ctx) & POLLOUT) &&
            iscsi_service(ctx, POLLOUT) < 0 && !eng->failure_logged) {
            eng->failure_logged = 1;
            log_err("lgiscsi: session error: %s\n", iscsi_get_error(ctx));
        }
    }
    return 0;
}

static void s_cancel_all(s_engine_t *eng)
{
    for (unsigned i = 0; i < eng->nluns; i++) {
        if (eng->luns[i].ctx)
            iscsi_scsi_cancel_all_tasks(eng->luns[i].ctx);
    }
}

static int s_getevents(struct thread_data *td, unsigned int min, unsigned int max,
                       const struct timespec *t)
{
    s_engine_t *eng = td->io_ops_data;
    int64_t start = lg__iscsi_now_ms();
    int64_t deadline = t ? start + t->tv_sec * 1000 + t->tv_nsec / 1000000 : 0;
    int polled = 0;

    lg__fio_live_bytes(td); /* what fio's reports print: see fio_engine.h */
    s_drop_reaped(eng);
    for (;;) {
        int timeout_ms, err;

        lg__fio_answer_status(td); /* fio's report waits for every job */
        /* A job that is ending (runtime over, signal, error) must not wait forever for a
         * target that stopped answering while libiscsi keeps reconnecting: after a grace
         * period its commands fail locally with EIO, so fio can finish and report. */
        if (td->terminate && eng->ndone < min && lg__iscsi_now_ms() - start >= S_TERMINATE_GRACE_MS)
            s_cancel_all(eng);
        if (eng->ndone >= min) {
            if (polled)
                break;
            timeout_ms = 0; /* one look at the sockets, without waiting */
        } else if (t) {
            int64_t left = deadline - lg__iscsi_now_ms();

            if (left <= 0 && polled)
                break;
            timeout_ms = left <= 0 ? 0 : left > S_ANSWER_MS ? S_ANSWER_MS : (int)left;
        } else {
            timeout_ms = S_ANSWER_MS;
        }
        err = s_service(eng, timeout_ms);
        if (err)
            return err;
        polled = 1;
    }
    eng->nreturned = eng->ndone < max ? eng->ndone : max;
    return (int)eng->nreturned;
}

/* Until no command is in flight (their completions wait in eng->done for getevents()). A job
 * that is ending gives a silent target the same grace as in getevents(). */
static int s_wait_idle(struct thread_data *td, s_engine_t *eng)
{
    int64_t start = lg__iscsi_now_ms();

    while (eng->inflight) {
        int err;

        if (td->terminate && lg__iscsi_now_ms() - start >= S_TERMINATE_GRACE_MS)
            s_cancel_all(eng);
        lg__fio_answer_status(td);
        err = s_service(eng, S_ANSWER_MS);
        if (err)
            return err;
    }
    return 0;
}

/* A sync is a barrier, done in queue(): fio asks for the next one as soon as the write count
 * says so until it has reaped the last, so an asynchronous sync would be issued over and over.
 * The writes before it complete first, then SYNCHRONIZE CACHE(16) of the whole LUN (0 blocks:
 * from LBA 0 to the end of the medium) runs to completion. */
static enum fio_q_status s_sync(struct thread_data *td, s_engine_t *eng, s_req_t *r, s_lun_t *lun)
{
    struct io_u *io_u = r->io_u;
    int err = s_wait_idle(td, eng);

    if (err) {
        io_u->error = -err;
        return FIO_Q_COMPLETED;
    }
    r->sync_wait = 1;
    r->task = iscsi_synchronizecache16_task(lun->ctx, lun->lun, 0, 0, 0, 0, s_done, r);
    if (!r->task) {
        r->sync_wait = 0;
        s_log_failure(eng, lun->ctx, io_u, SCSI_STATUS_ERROR, NULL);
        io_u->error = EIO;
        return FIO_Q_COMPLETED;
    }
    eng->inflight++;
    err = s_wait_idle(td, eng);
    r->sync_wait = 0;
    if (err && !io_u->error)
        io_u->error = -err;
    return FIO_Q_COMPLETED;
}

static enum fio_q_status s_queue(struct thread_data *td, struct io_u *io_u)
{
    s_engine_t *eng = td->io_ops_data;
    s_req_t *r = io_u->engine_data;
    s_lun_t *lun = &eng->luns[io_u->file->fileno];
    struct iscsi_context *ctx = lun->ctx;
    uint64_t lba = io_u->offset / lun->block_size;

    lg__fio_live_bytes(td);
    lg__fio_first_io(td, &eng->first_noted);
    r->eng = eng;
    r->lun = lun;
    if (ddir_rw(io_u->ddir) &&
        (io_u->offset % lun->block_size || io_u->xfer_buflen % lun->block_size ||
         io_u->xfer_buflen > UINT32_MAX)) {
        io_u->error = EINVAL;
        return FIO_Q_COMPLETED;
    }
    if (fio_fill_issue_time(td)) {
        fio_gettime(&io_u->issue_time, NULL);
        if (td->o.read_iolog_file)
            memcpy(&td->last_issue, &io_u->issue_time, sizeof(io_u->issue_time));
    }
    switch (io_u->ddir) {
    case DDIR_READ:
        /* data lands straight in fio's buffer, not in a libiscsi copy */
        r->iov.iov_base = io_u->xfer_buf;
        r->iov.iov_len = io_u->xfer_buflen;
        r->task = iscsi_read16_iov_task(ctx, lun->lun, lba, (uint32_t)io_u->xfer_buflen,
                                        (int)lun->block_size, 0, 0, 0, 0, 0, s_done, r, &r->iov, 1);
        break;
    case DDIR_WRITE:
        r->task =
            iscsi_write16_task(ctx, lun->lun, lba, io_u->xfer_buf, (uint32_t)io_u->xfer_buflen,
                               (int)lun->block_size, 0, 0, 0, 0, 0, s_done, r);
        break;
    case DDIR_SYNC:
    case DDIR_DATASYNC:
    case DDIR_SYNC_FILE_RANGE:
        return s_sync(td, eng, r, lun);
    default:
        io_u->error = EOPNOTSUPP;
        return FIO_Q_COMPLETED;
    }
    if (!r->task) {
        s_log_failure(eng, ctx, io_u, SCSI_STATUS_ERROR, NULL);
        io_u->error = EIO;
        return FIO_Q_COMPLETED;
    }
    /* with a commit() hook, submission latency and the submit histogram are the engine's job */
    io_u_queued(td, io_u);
    eng->nqueued++;
    eng->inflight++;
    return FIO_Q_QUEUED;
}

static struct io_u *s_event(struct thread_data *td, int event)
{
    s_engine_t *eng = td->io_ops_data;

    return eng->done[event];
}

struct ioengine_ops ioengine = {
    .name = "lgiscsi",
    .version = FIO_IOOPS_VERSION,
    .flags = FIO_DISKLESSIO | FIO_NOEXTEND | FIO_NODISKUTIL | FIO_ASYNCIO_SETS_ISSUE_TIME,
    .setup = s_setup,
    .init = s_init,
    .queue = s_queue,
    .commit = s_commit,
    .getevents = s_getevents,
    .event = s_event,
    .cleanup = s_cleanup,
    .open_file = s_open_file,
    .close_file = s_close_file,
    .unlink_file = s_unlink_file,
    .get_file_size = s_get_file_size,
    .io_u_init = s_io_u_init,
    .io_u_free = s_io_u_free,
    .option_struct_size = sizeof(struct s_options),
    .options = s_option_table,
};
