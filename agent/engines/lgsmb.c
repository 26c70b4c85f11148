/* lgsmb: a fio external ioengine that reads and writes files on SMB shares through libsmbclient,
 * for targets smb://[domain;][user@]host[:port]/share/path. At iodepth 1 a job does its I/O itself
 * on one SMB context; above, on a pool of iodepth worker processes with a context and connection
 * each. Load with ioengine=external:/path/lgsmb.so; credentials come from credentials=FILE. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <libsmbclient.h>

/* fio's headers are GNU C (asm, typeof) and the build compiles with -std=c11. */
#ifndef asm
#define asm __asm__
#endif
#ifndef typeof
#define typeof __typeof__
#endif
#include "fio.h"
#include "creds.h"
#include "optgroup.h"

#define S_PREFIX "smb://"
#define S_FIELD 256  /* user, password, domain: as large as libsmbclient's own buffers */
#define S_DETAIL 512 /* the text that follows an errno text: SMB status, diagnosis */

/* Engine options (td->eo). fio requires that no option sits at offset 0. */
struct s_opts {
    void *pad;
    char *credentials;
    char *min_protocol;
};

static struct fio_option s_options[] = {
    {
        .name = "credentials",
        .lname = "SMB credentials file",
        .type = FIO_OPT_STR_STORE,
        .off1 = offsetof(struct s_opts, credentials),
        .help = "smbclient authentication file (username = U, password = P, domain = D); "
                "without it the user in the target, else guest",
        .category = FIO_OPT_C_ENGINE,
        .group = FIO_OPT_G_INVALID,
    },
    {
        .name = "smb_min_protocol",
        .lname = "lowest SMB dialect",
        .type = FIO_OPT_STR_STORE,
        .off1 = offsetof(struct s_opts, min_protocol),
        .def = "SMB2_02",
        .help =
            "lowest dialect to negotiate (SMB2_02, SMB2_10, SMB3, SMB3_11); the highest is SMB3",
        .category = FIO_OPT_C_ENGINE,
        .group = FIO_OPT_G_INVALID,
    },
    {
        .name = NULL,
    },
};

/* One connection to the servers of a job: a libsmbclient context, its entry points, and the
 * credentials its authentication callback hands out. */
typedef struct {
    SMBCCTX *ctx;
    smbc_open_fn open;
    smbc_read_fn read;
    smbc_write_fn write;
    smbc_lseek_fn lseek;
    smbc_stat_fn stat;
    smbc_close_fn close;
    smbc_unlink_fn unlink;
    int have_creds;
    char min_protocol[32];
    char user[S_FIELD];
    char password[S_FIELD];
    char domain[S_FIELD];
    unsigned io_errors; /* failed I/Os so far, to log only the first ones */
} s_conn_t;

/* ---- what libsmbclient says ----
 * The API reports only errno. libsmbclient logs the NT status of a failed call and the reason
 * of a failed logon (debug level 3); a log callback keeps the last of these per thread. */

static __thread struct {
    unsigned status;  /* NT status of the last failed call, 0 if none was logged */
    char reason[256]; /* the last "... failed: ..." line */
} s_said;

/* Debian's libsmbclient cannot be given thread hooks (smbc_thread_posix is not exported), so
 * its talloc stack frames are process-wide: two threads inside it at once crash it. Every call
 * goes through S_CALL under this lock. ->setup makes jobs processes, where it is uncontended;
 * only jobs that still share a process (thread=1 with create_serialize=0) take turns. */
static pthread_mutex_t s_global_lock = PTHREAD_MUTEX_INITIALIZER;
#define S_CALL(res, expr)                                                                          \
    do {                                                                                           \
        pthread_mutex_lock(&s_global_lock);                                                        \
        (res) = (expr);                                                                            \
        int s_errno_ = errno;                                                                      \
        pthread_mutex_unlock(&s_global_lock);                                                      \
        errno = s_errno_;                                                                          \
    } while (0)
static int s_warned_sync;
static unsigned s_live_contexts; /* under s_global_lock */
/* Notes go to stderr with the errors (log_err): fio's stdout carries the JSON that lg-agent
 * parses, and a job process's buffered stdout is lost when it exits. */

static void s_said_clear(void)
{
    s_said.status = 0;
    s_said.reason[0] = 0;
}

static void s_log_cb(void *priv, int level, const char *msg)
{
    (void)priv;
    (void)level;
    const char *p = strstr(msg, "cli_status_to_errno: 0x");
    if (p) {
        s_said.status = (unsigned)strtoul(p + strlen("cli_status_to_errno: "), NULL, 16);
        return;
    }
    if (strstr(msg, "failed") || strstr(msg, "NT_STATUS_")) {
        snprintf(s_said.reason, sizeof s_said.reason, "%s", msg);
        s_said.reason[strcspn(s_said.reason, "\r\n")] = 0;
    }
}

/* NT status codes libsmbclient can return for file I/O, by name (MS-ERREF 2.3.1). */
static const struct {
    unsigned code;
    const char *name;
} s_nt_names[] = {
    {0xC0000001, "NT_STATUS_UNSUCCESSFUL"},
    {0xC0000008, "NT_STATUS_INVALID_HANDLE"},
    {0xC000000D, "NT_STATUS_INVALID_PARAMETER"},
    {0xC000000F, "NT_STATUS_NO_SUCH_FILE"},
    {0xC0000011, "NT_STATUS_END_OF_FILE"},
    {0xC0000017, "NT_STATUS_NO_MEMORY"},
    {0xC0000022, "NT_STATUS_ACCESS_DENIED"},
    {0xC0000033, "NT_STATUS_OBJECT_NAME_INVALID"},
    {0xC0000034, "NT_STATUS_OBJECT_NAME_NOT_FOUND"},
    {0xC0000035, "NT_STATUS_OBJECT_NAME_COLLISION"},
    {0xC000003A, "NT_STATUS_OBJECT_PATH_NOT_FOUND"},
    {0xC0000043, "NT_STATUS_SHARING_VIOLATION"},
    {0xC0000044, "NT_STATUS_QUOTA_EXCEEDED"},
    {0xC0000054, "NT_STATUS_FILE_LOCK_CONFLICT"},
    {0xC0000056, "NT_STATUS_DELETE_PENDING"},
    {0xC0000064, "NT_STATUS_NO_SUCH_USER"},
    {0xC000006A, "NT_STATUS_WRONG_PASSWORD"},
    {0xC000006D, "NT_STATUS_LOGON_FAILURE"},
    {0xC0000071, "NT_STATUS_PASSWORD_EXPIRED"},
    {0xC0000072, "NT_STATUS_ACCOUNT_DISABLED"},
    {0xC000007F, "NT_STATUS_DISK_FULL"},
    {0xC000009A, "NT_STATUS_INSUFFICIENT_RESOURCES"},
    {0xC00000A2, "NT_STATUS_MEDIA_WRITE_PROTECTED"},
    {0xC00000B5, "NT_STATUS_IO_TIMEOUT"},
    {0xC00000BA, "NT_STATUS_FILE_IS_A_DIRECTORY"},
    {0xC00000BB, "NT_STATUS_NOT_SUPPORTED"},
    {0xC00000C9, "NT_STATUS_NETWORK_NAME_DELETED"},
    {0xC00000CA, "NT_STATUS_NETWORK_ACCESS_DENIED"},
    {0xC00000CC, "NT_STATUS_BAD_NETWORK_NAME"},
    {0xC0000103, "NT_STATUS_NOT_A_DIRECTORY"},
    {0xC0000128, "NT_STATUS_FILE_CLOSED"},
    {0xC0000185, "NT_STATUS_IO_DEVICE_ERROR"},
    {0xC0000203, "NT_STATUS_USER_SESSION_DELETED"},
    {0xC000020C, "NT_STATUS_CONNECTION_DISCONNECTED"},
    {0xC000020D, "NT_STATUS_CONNECTION_RESET"},
    {0xC0000236, "NT_STATUS_CONNECTION_REFUSED"},
    {0xC000023C, "NT_STATUS_NETWORK_UNREACHABLE"},
    {0xC000023D, "NT_STATUS_HOST_UNREACHABLE"},
    {0xC000035C, "NT_STATUS_NETWORK_SESSION_EXPIRED"},
};

/* s_said_text: what libsmbclient said about the last failure, "" if nothing. */
static void s_said_text(char *out, size_t len)
{
    out[0] = 0;
    if (s_said.status) {
        const char *name = NULL;
        for (size_t i = 0; i < sizeof s_nt_names / sizeof s_nt_names[0]; i++)
            if (s_nt_names[i].code == s_said.status)
                name = s_nt_names[i].name;
        if (name)
            snprintf(out, len, "%s", name);
        else
            snprintf(out, len, "NT status 0x%08x", s_said.status);
    }
    if (s_said.reason[0]) {
        size_t n = strlen(out);
        snprintf(out + n, len - n, "%s%s", n ? "; " : "", s_said.reason);
    }
}

/* s_said_logon_failed: whether the last failure was a refused logon (user or password). */
static int s_said_logon_failed(void)
{
    switch (s_said.status) {
    case 0xC000006A: /* WRONG_PASSWORD */
    case 0xC000006D: /* LOGON_FAILURE */
    case 0xC0000064: /* NO_SUCH_USER */
    case 0xC0000071: /* PASSWORD_EXPIRED */
    case 0xC0000072: /* ACCOUNT_DISABLED */
        return 1;
    default:
        return strstr(s_said.reason, "login failed") != NULL;
    }
}

/* ---- targets and credentials ---- */

/* The parts of smb://[domain;][user[:password]@]host[:port]/share[/path]. */
typedef struct {
    char authority[2 * S_FIELD]; /* [domain;][user@]host[:port], to reach the same server */
    char server[S_FIELD];        /* host[:port], to name it */
    char share[S_FIELD];
    char parent[PATH_MAX]; /* the folder of the file inside the share, "" for its root */
    int has_password;
} s_target_t;

static int s_parse_target(const char *url, s_target_t *t)
{
    memset(t, 0, sizeof *t);
    if (strncasecmp(url, S_PREFIX, strlen(S_PREFIX)) != 0)
        return -EINVAL;
    const char *auth = url + strlen(S_PREFIX);
    const char *slash = strchr(auth, '/');
    if (!slash || slash == auth)
        return -EINVAL;
    const char *at = memchr(auth, '@', (size_t)(slash - auth));
    const char *host = at ? at + 1 : auth;
    if (at && memchr(auth, ':', (size_t)(at - auth)))
        t->has_password = 1;
    snprintf(t->authority, sizeof t->authority, "%.*s", (int)(slash - auth), auth);
    snprintf(t->server, sizeof t->server, "%.*s", (int)(slash - host), host);
    const char *share = slash + 1;
    const char *path = strchr(share, '/');
    if (!path || path == share || !path[1])
        return -EINVAL; /* a file inside a share is needed */
    snprintf(t->share, sizeof t->share, "%.*s", (int)(path - share), share);
    const char *last = strrchr(path, '/');
    snprintf(t->parent, sizeof t->parent, "%.*s", (int)(last - path), path);
    return 0;
}

/* s_read_creds: user, password and domain from an smbclient authentication file (creds.h). */
static int s_read_creds(const char *path, s_conn_t *c, char *err, size_t errlen)
{
    lg_creds_t cr;
    int rc = lg_creds_read(path, 1, &cr, err, errlen);
    if (rc)
        return -rc;
    static int told;
    if (cr.loose_mode && !__atomic_exchange_n(&told, 1, __ATOMIC_RELAXED))
        log_err("lgsmb: credentials file \"%s\" can be read by other users; chmod 600 it\n", path);
    snprintf(c->user, sizeof c->user, "%s", cr.user);
    snprintf(c->password, sizeof c->password, "%s", cr.password);
    snprintf(c->domain, sizeof c->domain, "%s", cr.domain);
    lg_creds_clear(&cr);
    c->have_creds = 1;
    return 0;
}

static void s_auth_cb(SMBCCTX *ctx, const char *srv, const char *shr, char *wg, int wglen, char *un,
                      int unlen, char *pw, int pwlen)
{
    (void)srv;
    (void)shr;
    const s_conn_t *c = smbc_getOptionUserData(ctx);
    if (!c || !c->have_creds)
        return; /* the user in the URL, or libsmbclient's guest */
    if (c->domain[0])
        snprintf(wg, (size_t)wglen, "%s", c->domain);
    snprintf(un, (size_t)unlen, "%s", c->user);
    snprintf(pw, (size_t)pwlen, "%s", c->password);
}

/* ---- connections ---- */

/* s_conn_free: close every file and connection of *c_p and clear the password.
 * Takes ownership of *c_p and sets it to NULL. */
static void s_conn_free(s_conn_t **c_p)
{
    s_conn_t *c = *c_p;
    if (!c)
        return;
    if (c->ctx) {
        pthread_mutex_lock(&s_global_lock);
        if (--s_live_contexts == 0) {
            /* The log callback is process-wide and points into this module, which fio may
             * unload after the last context: libsmbclient must not call it then. */
            smbc_setDebug(c->ctx, 0);
            smbc_setLogCallback(c->ctx, NULL, NULL);
        }
        smbc_free_context(c->ctx, 1);
        pthread_mutex_unlock(&s_global_lock);
    }
    explicit_bzero(c, sizeof *c);
    free(c);
    *c_p = NULL;
}

/* s_conn_new: a context with the job's credentials and dialects; no connection is made until
 * the first call. Caller owns *out (s_conn_free). On failure err says why. */
static int s_conn_new(struct thread_data *td, s_conn_t **out, char *err, size_t errlen)
{
    const struct s_opts *o = td->eo;
    s_conn_t *c = calloc(1, sizeof *c);
    if (!c) {
        snprintf(err, errlen, "out of memory");
        return -ENOMEM;
    }
    int rc = 0;
    if (o->credentials && o->credentials[0]) {
        rc = s_read_creds(o->credentials, c, err, errlen);
        if (rc) {
            s_conn_free(&c);
            return rc;
        }
    }
    /* libsmbclient's set-up touches process-wide state (smb.conf, debug, dialects): one at a
     * time. */
    pthread_mutex_lock(&s_global_lock);
    c->ctx = smbc_new_context();
    if (!c->ctx) {
        rc = -errno;
        pthread_mutex_unlock(&s_global_lock);
        snprintf(err, errlen, "could not create an SMB context: %s", strerror(-rc));
        s_conn_free(&c);
        return rc;
    }
    s_live_contexts++;
    smbc_setLogCallback(c->ctx, NULL, s_log_cb);
    smbc_setDebug(c->ctx, 3); /* NT status and logon failures; calls are serialised */
    smbc_setOptionUserData(c->ctx, c);
    smbc_setFunctionAuthDataWithContext(c->ctx, s_auth_cb);
    /* With credentials, a refused logon must fail rather than fall back to anonymous. */
    smbc_setOptionNoAutoAnonymousLogin(c->ctx, c->have_creds);
    if (!smbc_init_context(c->ctx)) {
        rc = -errno;
        pthread_mutex_unlock(&s_global_lock);
        snprintf(err, errlen, "could not initialise libsmbclient: %s", strerror(-rc));
        s_conn_free(&c);
        return rc;
    }
    const char *minp = o->min_protocol && o->min_protocol[0] ? o->min_protocol : "SMB2_02";
    if (!smbc_setOptionProtocols(c->ctx, minp, "SMB3")) {
        pthread_mutex_unlock(&s_global_lock);
        snprintf(err, errlen, "smb_min_protocol \"%s\" is not an SMB dialect", minp);
        s_conn_free(&c);
        return -EINVAL;
    }
    pthread_mutex_unlock(&s_global_lock);
    snprintf(c->min_protocol, sizeof c->min_protocol, "%s", minp);
    c->open = smbc_getFunctionOpen(c->ctx);
    c->read = smbc_getFunctionRead(c->ctx);
    c->write = smbc_getFunctionWrite(c->ctx);
    c->lseek = smbc_getFunctionLseek(c->ctx);
    c->stat = smbc_getFunctionStat(c->ctx);
    c->close = smbc_getFunctionClose(c->ctx);
    c->unlink = smbc_getFunctionUnlink(c->ctx);
    *out = c;
    return 0;
}

/* s_explain: after an open of url failed with errno e, find which part is wrong (server,
 * share, folder) and write errno text plus what libsmbclient said into out. */
static void s_explain(s_conn_t *c, const char *url, int e, char *out, size_t len)
{
    char said[S_DETAIL], where[S_DETAIL + 64] = "";
    s_said_text(said, sizeof said);
    s_target_t t;
    int parsed = s_parse_target(url, &t) == 0;
    if (parsed && (e == ECONNREFUSED || e == EHOSTUNREACH || e == ENETUNREACH || e == ETIMEDOUT ||
                   e == ECONNRESET || e == EHOSTDOWN))
        snprintf(where, sizeof where, "no SMB server reachable at %s", t.server);
    if (parsed && (e == ENOSYS || e == EPROTONOSUPPORT || e == EOPNOTSUPP))
        snprintf(where, sizeof where,
                 "does %s speak a dialect from smb_min_protocol=%s up to SMB3?", t.server,
                 c->min_protocol);
    if (parsed && (e == EACCES || e == EPERM) && s_said_logon_failed()) {
        /* No probe: each one would be another failed logon towards an account lockout. */
        snprintf(where, sizeof where, "logon to %s refused for %s%s", t.server,
                 c->have_creds ? "user " : "", c->have_creds ? c->user : "guest");
    } else if (parsed && (e == ENOENT || e == EACCES || e == EPERM)) {
        char probe[PATH_MAX + 3 * S_FIELD];
        struct stat st;
        snprintf(probe, sizeof probe, S_PREFIX "%s/%s", t.authority, t.share);
        s_said_clear();
        int r;
        S_CALL(r, c->stat(c->ctx, probe, &st));
        if (r < 0) {
            int pe = errno;
            if (pe == ENOENT)
                snprintf(where, sizeof where, "no share \"%s\" on %s", t.share, t.server);
            else if (pe == EACCES || pe == EPERM)
                snprintf(where, sizeof where, "logon to %s or access to share \"%s\" refused%s%s",
                         t.server, t.share, c->have_creds ? " for user " : "",
                         c->have_creds ? c->user : "");
            if (!said[0])
                s_said_text(said, sizeof said);
        } else if (t.parent[0] && e == ENOENT) {
            snprintf(probe, sizeof probe, S_PREFIX "%s/%s%s", t.authority, t.share, t.parent);
            S_CALL(r, c->stat(c->ctx, probe, &st));
            if (r < 0 && (errno == ENOENT || errno == ENOTDIR))
                snprintf(where, sizeof where, "folder \"%s\" does not exist in share \"%s\"",
                         t.parent, t.share);
        }
    }
    snprintf(out, len, "%s", strerror(e));
    if (said[0] || where[0]) {
        size_t n = strlen(out);
        snprintf(out + n, len - n, " (%s%s%s)", said, said[0] && where[0] ? "; " : "", where);
    }
}

/* s_redact: url with the password of its user part, if any, replaced by "***". */
static void s_redact(const char *url, char *out, size_t len)
{
    snprintf(out, len, "%s", url);
    if (strncasecmp(url, S_PREFIX, strlen(S_PREFIX)) != 0)
        return;
    const char *auth = url + strlen(S_PREFIX);
    size_t alen = strcspn(auth, "/");
    const char *at = memchr(auth, '@', alen);
    const char *colon = at ? memchr(auth, ':', (size_t)(at - auth)) : NULL;
    if (colon)
        snprintf(out, len, "%.*s***%s", (int)(colon + 1 - url), url, at);
}

/* s_fail: report a failure on file fname to the user and to fio (td->error, td->verror). */
static int s_fail(struct thread_data *td, const char *fname, const char *what, int e,
                  const char *text)
{
    char shown[PATH_MAX];
    s_redact(fname, shown, sizeof shown);
    log_err("lgsmb: could not %s \"%s\": %s\n", what, shown, text);
    td_vmsg(td, e, text, what);
    return e ? e : EIO;
}

/* s_check_target: fname must be an smb:// URL naming a file in a share, without a password. */
static int s_check_target(struct thread_data *td, const char *fname)
{
    s_target_t t;
    if (s_parse_target(fname, &t))
        return s_fail(td, fname, "use", EINVAL,
                      "not an SMB target (want smb://[user@]host[:port]/share/path/file)");
    if (t.has_password)
        return s_fail(td, fname, "use", EINVAL,
                      "a password in the target is refused; put it in a credentials= file");
    return 0;
}

/* s_open: open fname with flags; *fh on success, else the failure is reported. */
static int s_open(struct thread_data *td, s_conn_t *c, const char *fname, int flags, SMBCFILE **fh)
{
    char text[2 * S_DETAIL];
    s_said_clear();
    S_CALL(*fh, c->open(c->ctx, fname, flags, 0644));
    if (!*fh) {
        int e = errno ? errno : EIO;
        s_explain(c, fname, e, text, sizeof text);
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

/* ---- the worker pool: iodepth > 1 ----
 * libsmbclient's calls are synchronous and, in Debian's build, two threads of one process cannot
 * be inside it at once (S_CALL), so the I/Os a job keeps in flight run in worker processes forked
 * at ->init, iodepth of them, each with its own context and so its own TCP connection and SMB
 * session, one request at a time. fio's buffers are private to the job: data passes through the
 * worker's slot of a shared mapping. Requests go down one socket per worker; every worker reports
 * its index on one pipe, so that a single read() collects all the completions that are ready. */

enum { S_OP_CONNECT = 1, S_OP_OPEN, S_OP_CLOSE, S_OP_READ, S_OP_WRITE };

typedef struct {
    uint32_t op;
    int32_t fileno;
    int32_t flags;   /* S_OP_OPEN: open(2) flags */
    uint32_t len;    /* bytes to move; S_OP_CONNECT, S_OP_OPEN: length of the URL in the slot */
    uint64_t offset;
} s_msg_t;

/* The head of a worker's slot, written by the worker before it reports, or by the job when the
 * worker died. */
typedef struct {
    int64_t result;          /* bytes moved (short at end of file) or 0; else a negative errno */
    char said[2 * S_DETAIL]; /* on failure: for I/O what libsmbclient said, else the whole reason */
} s_slot_t;
#define S_SLOT_DATA 4096      /* a slot's data starts on its own page */
#define S_REAP_POLL_MS 1000   /* how long a wait goes before it checks the busy workers live */
#define S_STOP_GRACE_MS 5000  /* a worker's time to close its files and log off at the end */

typedef struct {
    pid_t pid;         /* 0 once it is known to have exited */
    int sock;          /* requests to the worker */
    int busy;
    struct io_u *io_u; /* the I/O it is doing; NULL for a control request */
    int64_t result;    /* of its last control request */
} s_worker_t;

typedef struct {
    s_worker_t *w;
    unsigned n;
    unsigned *idle; /* indexes of idle workers, a stack */
    unsigned nidle;
    int done_fd;    /* read end (non-blocking) of the pipe the workers report on */
    unsigned char *shm;
    size_t slot_size;
    struct io_u **done; /* completed, not yet handed to fio: [0, nreturned) went out last time */
    unsigned ndone, nreturned;
    unsigned nqueued;   /* since the last commit(), for fio's submit histogram */
    int broken;         /* a worker died: every further I/O fails */
    unsigned io_errors; /* failed I/Os so far, to log only the first ones */
} s_pool_t;

/* td->io_ops_data: the job's own context (iodepth 1) or its pool (iodepth > 1). */
typedef struct {
    s_conn_t *conn;
    s_pool_t *pool;
} s_job_t;

static s_slot_t *s_slot(const s_pool_t *p, unsigned i)
{
    return (s_slot_t *)(void *)(p->shm + (size_t)i * p->slot_size);
}

static char *s_slot_data(const s_pool_t *p, unsigned i)
{
    return (char *)s_slot(p, i) + S_SLOT_DATA;
}

static int64_t s_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* s_io_log: report the failure e of io_u (said: what libsmbclient said, may be "") for the first
 * few failures counted in *count, and put it into td->verror for fio's summary. */
static void s_io_log(struct thread_data *td, unsigned *count, struct io_u *io_u, int e,
                     const char *said)
{
    char text[2 * S_DETAIL + 128], shown[PATH_MAX];
    snprintf(text, sizeof text, "%s at offset %llu: %s%s%s%s", io_ddir_name(io_u->ddir),
             io_u->offset, strerror(e), said[0] ? " (" : "", said, said[0] ? ")" : "");
    if ((*count)++ < 5) {
        s_redact(io_u->file->file_name, shown, sizeof shown);
        log_err("lgsmb: I/O error on \"%s\": %s%s\n", shown, text,
                *count == 5 ? " (further I/O errors are not logged)" : "");
    }
    td_vmsg(td, e, text, io_ddir_name(io_u->ddir));
}

/* -- in the worker process: nothing here calls fio -- */

/* s_worker_io: one read or write of m through fh; returns the bytes moved (fewer at end of file)
 * or a negative errno value with what libsmbclient said in hd->said. */
static int64_t s_worker_io(s_conn_t *c, SMBCFILE *fh, const s_msg_t *m, s_slot_t *hd, char *buf)
{
    size_t left = m->len;
    int e = 0;
    off_t pos;
    S_CALL(pos, c->lseek(c->ctx, fh, (off_t)m->offset, SEEK_SET));
    if (pos < 0)
        e = errno ? errno : EIO;
    while (!e && left) {
        ssize_t n;
        if (m->op == S_OP_READ)
            S_CALL(n, c->read(c->ctx, fh, buf, left));
        else
            S_CALL(n, c->write(c->ctx, fh, buf, left));
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
    s_said_text(hd->said, sizeof hd->said);
    return -e;
}

/* s_worker_do: carry out m with the files fh[nfiles]; returns the slot's result. */
static int64_t s_worker_do(s_conn_t *c, SMBCFILE **fh, unsigned nfiles, const s_msg_t *m,
                           s_slot_t *hd, char *data, size_t cap)
{
    if (m->fileno < 0 || (unsigned)m->fileno >= nfiles || m->len > cap ||
        ((m->op == S_OP_CONNECT || m->op == S_OP_OPEN) && m->len >= cap)) {
        snprintf(hd->said, sizeof hd->said, "bad request to an SMB worker");
        return -EINVAL;
    }
    SMBCFILE **f = &fh[m->fileno];
    struct stat st;
    int r, e;
    switch (m->op) {
    case S_OP_CONNECT: {
        /* A stat of the share logs on and connects it, before the measured window; not of the
         * file, which create_serialize=0 lays out only after ->init. */
        char share[PATH_MAX + 3 * S_FIELD];
        s_target_t t;
        data[m->len] = 0;
        if (s_parse_target(data, &t) == 0)
            snprintf(share, sizeof share, S_PREFIX "%s/%s", t.authority, t.share);
        else
            snprintf(share, sizeof share, "%s", data);
        S_CALL(r, c->stat(c->ctx, share, &st));
        if (r == 0)
            return 0;
    }
        e = errno ? errno : EIO;
        s_explain(c, data, e, hd->said, sizeof hd->said);
        return -e;
    case S_OP_OPEN:
        data[m->len] = 0;
        if (*f)
            S_CALL(r, c->close(c->ctx, *f));
        S_CALL(*f, c->open(c->ctx, data, m->flags, 0644));
        if (*f)
            return 0;
        e = errno ? errno : EIO;
        s_explain(c, data, e, hd->said, sizeof hd->said);
        return -e;
    case S_OP_CLOSE:
        if (!*f)
            return 0;
        S_CALL(r, c->close(c->ctx, *f));
        *f = NULL;
        if (r == 0)
            return 0;
        e = errno ? errno : EIO;
        snprintf(hd->said, sizeof hd->said, "%s", strerror(e));
        return -e;
    case S_OP_READ:
    case S_OP_WRITE:
        if (!*f) {
            snprintf(hd->said, sizeof hd->said, "file not open in the SMB worker");
            return -EBADF;
        }
        return s_worker_io(c, *f, m, hd, data);
    default:
        snprintf(hd->said, sizeof hd->said, "bad request to an SMB worker");
        return -EINVAL;
    }
}

/* s_worker_main: worker i, in its own process: make its context, serve requests from sock until
 * the job closes it, then close its files, log off and exit. Never returns. */
static void s_worker_main(struct thread_data *td, s_pool_t *p, unsigned i, int sock, int done_wr)
{
    /* The job ends the pool by closing the sockets; a ^C to fio's process group is fio's to
     * handle; a job that dies takes its workers with it. */
    signal(SIGINT, SIG_IGN);
    signal(SIGQUIT, SIG_IGN);
    signal(SIGPIPE, SIG_IGN);
    signal(SIGUSR1, SIG_IGN);
    signal(SIGTERM, SIG_DFL);
    signal(SIGHUP, SIG_DFL);
    s_slot_t *hd = s_slot(p, i);
    char *data = s_slot_data(p, i);
    size_t cap = p->slot_size - S_SLOT_DATA;
    unsigned nfiles = td->files_index ? td->files_index : 1;
    char err[S_DETAIL] = "out of memory";
    s_conn_t *c = NULL;
    SMBCFILE **fh = calloc(nfiles, sizeof *fh);
    int rc = fh ? s_conn_new(td, &c, err, sizeof err) : -ENOMEM;
    uint32_t me = i;
    for (;;) {
        s_msg_t m;
        ssize_t n = recv(sock, &m, sizeof m, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n != (ssize_t)sizeof m)
            break; /* 0: the job closed the pool */
        hd->said[0] = 0;
        s_said_clear();
        if (c) {
            hd->result = s_worker_do(c, fh, nfiles, &m, hd, data, cap);
        } else {
            hd->result = rc < 0 ? rc : -EIO;
            snprintf(hd->said, sizeof hd->said, "%s", err);
        }
        while (write(done_wr, &me, sizeof me) < 0 && errno == EINTR)
            ;
    }
    for (unsigned k = 0; c && k < nfiles; k++) {
        int r;
        if (fh[k])
            S_CALL(r, c->close(c->ctx, fh[k]));
        (void)r;
    }
    s_conn_free(&c);
    _exit(0); /* not exit(): fio's atexit handlers and stdio buffers are the job's */
}

/* -- in the job -- */

/* s_pool_spawn: fork worker i, which reports on done_wr. Returns 0 or a negative errno value. */
static int s_pool_spawn(struct thread_data *td, s_pool_t *p, unsigned i, int done_wr)
{
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
        return -errno;
    pid_t job = getpid();
    /* No other thread of the process is inside libsmbclient while its state is copied. */
    pthread_mutex_lock(&s_global_lock);
    pid_t pid = fork();
    if (pid == 0) {
        pthread_mutex_t fresh = PTHREAD_MUTEX_INITIALIZER;
        s_global_lock = fresh;
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        prctl(PR_SET_NAME, "lgsmb-worker"); /* in ps and top, beside the fio job */
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
        s_worker_main(td, p, i, sv[1], done_wr);
    }
    int e = errno;
    pthread_mutex_unlock(&s_global_lock);
    close(sv[1]);
    if (pid < 0) {
        close(sv[0]);
        return -e;
    }
    p->w[i].pid = pid;
    p->w[i].sock = sv[0];
    return 0;
}

/* s_pool_free: stop the workers (each closes its files and logs off), wait for them and free the
 * pool. Takes ownership of *p_p and sets it to NULL. */
static void s_pool_free(s_pool_t **p_p)
{
    s_pool_t *p = *p_p;
    if (!p)
        return;
    for (unsigned i = 0; p->w && i < p->n; i++) {
        if (p->w[i].sock >= 0)
            close(p->w[i].sock);
        p->w[i].sock = -1;
    }
    int64_t deadline = s_now_ms() + S_STOP_GRACE_MS;
    for (unsigned i = 0; p->w && i < p->n; i++) {
        pid_t pid = p->w[i].pid;
        if (pid <= 0)
            continue;
        pid_t r;
        while ((r = waitpid(pid, NULL, WNOHANG)) == 0 && s_now_ms() < deadline) {
            struct timespec ts = {0, 5 * 1000 * 1000};
            nanosleep(&ts, NULL);
        }
        if (r == 0) {
            kill(pid, SIGKILL);
            waitpid(pid, NULL, 0);
        }
        p->w[i].pid = 0;
    }
    if (p->done_fd >= 0)
        close(p->done_fd);
    if (p->shm)
        munmap(p->shm, (size_t)p->n * p->slot_size);
    free(p->w);
    free(p->idle);
    free(p->done);
    free(p);
    *p_p = NULL;
}

/* s_pool_new: iodepth workers for td, forked and waiting for requests (not yet connected).
 * Caller owns *out (s_pool_free). On failure err says why. */
static int s_pool_new(struct thread_data *td, s_pool_t **out, char *err, size_t errlen)
{
    unsigned n = td->o.iodepth;
    s_pool_t *p = calloc(1, sizeof *p);
    if (!p) {
        snprintf(err, errlen, "out of memory");
        return -ENOMEM;
    }
    p->n = n;
    p->done_fd = -1;
    p->w = calloc(n, sizeof *p->w);
    p->idle = calloc(n, sizeof *p->idle);
    p->done = calloc(n, sizeof *p->done);
    if (!p->w || !p->idle || !p->done) {
        s_pool_free(&p);
        snprintf(err, errlen, "out of memory");
        return -ENOMEM;
    }
    for (unsigned i = 0; i < n; i++)
        p->w[i].sock = -1;
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t need = td_max_bs(td) > PATH_MAX + 1 ? td_max_bs(td) : PATH_MAX + 1;
    p->slot_size = (S_SLOT_DATA + need + page - 1) / page * page;
    p->shm = mmap(NULL, (size_t)n * p->slot_size, PROT_READ | PROT_WRITE,
                  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (p->shm == MAP_FAILED) {
        int e = errno;
        p->shm = NULL;
        s_pool_free(&p);
        snprintf(err, errlen, "could not map %u SMB worker buffers: %s", n, strerror(e));
        return -e;
    }
    int pfd[2];
    if (pipe2(pfd, O_CLOEXEC) < 0) {
        int e = errno;
        s_pool_free(&p);
        snprintf(err, errlen, "could not make the SMB workers' pipe: %s", strerror(e));
        return -e;
    }
    p->done_fd = pfd[0];
    fcntl(p->done_fd, F_SETFL, fcntl(p->done_fd, F_GETFL) | O_NONBLOCK);
    for (unsigned i = 0; i < n; i++) {
        int rc = s_pool_spawn(td, p, i, pfd[1]);
        if (rc) {
            close(pfd[1]);
            s_pool_free(&p);
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
static void s_drop_reaped(s_pool_t *p)
{
    if (!p->nreturned)
        return;
    memmove(p->done, p->done + p->nreturned, (p->ndone - p->nreturned) * sizeof *p->done);
    p->ndone -= p->nreturned;
    p->nreturned = 0;
}

/* s_pool_finish: worker i is done with a result in its slot; an I/O goes to the done list. A
 * worker that died (alive 0) is not used again. */
static void s_pool_finish(struct thread_data *td, s_pool_t *p, unsigned i, int alive)
{
    if (i >= p->n || !p->w[i].busy)
        return;
    s_worker_t *w = &p->w[i];
    const s_slot_t *hd = s_slot(p, i);
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
        s_io_log(td, &p->io_errors, io_u, io_u->error, hd->said);
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
static void s_pool_reap(struct thread_data *td, s_pool_t *p)
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
static void s_pool_check(struct thread_data *td, s_pool_t *p)
{
    s_pool_reap(td, p); /* what it reported before it went */
    for (unsigned i = 0; i < p->n; i++) {
        s_worker_t *w = &p->w[i];
        int st;
        if (!w->busy || w->pid <= 0 || waitpid(w->pid, &st, WNOHANG) != w->pid)
            continue;
        s_slot_t *hd = s_slot(p, i);
        if (WIFSIGNALED(st))
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

static unsigned s_pool_busy(const s_pool_t *p)
{
    unsigned n = 0;
    for (unsigned i = 0; i < p->n; i++)
        n += p->w[i].busy != 0;
    return n;
}

/* s_pool_wait: reap until no worker is busy (idle) or until min I/Os are done, for at most
 * timeout_ms (< 0: no limit). Returns 0 or a negative errno value from poll(). */
static int s_pool_wait(struct thread_data *td, s_pool_t *p, int idle, unsigned min,
                       int64_t timeout_ms)
{
    int64_t deadline = s_now_ms() + timeout_ms;
    s_pool_reap(td, p);
    for (;;) {
        unsigned busy = s_pool_busy(p);
        if (!busy || (!idle && p->ndone >= min))
            return 0;
        int ms = S_REAP_POLL_MS;
        if (timeout_ms >= 0) {
            int64_t left = deadline - s_now_ms();
            if (left <= 0)
                return 0;
            if (left < ms)
                ms = (int)left;
        }
        struct pollfd pfd = {.fd = p->done_fd, .events = POLLIN};
        int n = poll(&pfd, 1, ms);
        if (n < 0 && errno != EINTR)
            return -errno;
        if (n == 0)
            s_pool_check(td, p);
        s_pool_reap(td, p);
    }
}

/* s_pool_send: request m of worker i, which must be idle and off the idle stack. */
static int s_pool_send(s_pool_t *p, unsigned i, const s_msg_t *m, struct io_u *io_u)
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

/* s_pool_all: op (S_OP_CONNECT, S_OP_OPEN with flags, S_OP_CLOSE) on file f in every worker,
 * once all are idle; returns 0 or the first failure's negative errno with its reason in why. */
static int s_pool_all(struct thread_data *td, s_pool_t *p, uint32_t op, const struct fio_file *f,
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
    if (len >= p->slot_size - S_SLOT_DATA) {
        snprintf(why, whylen, "name too long");
        return -ENAMETOOLONG;
    }
    s_msg_t m = {.op = op, .fileno = f->fileno, .flags = flags, .len = (uint32_t)len};
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

/* s_pool_queue: hand io_u to an idle worker. */
static enum fio_q_status s_pool_queue(struct thread_data *td, s_pool_t *p, struct io_u *io_u)
{
    if (ddir_sync(io_u->ddir)) {
        /* As at iodepth 1: no SMB2 FLUSH, but every write before it is acknowledged first. */
        if (!__atomic_exchange_n(&s_warned_sync, 1, __ATOMIC_RELAXED))
            log_err("lgsmb: fsync/fdatasync complete without an SMB2 FLUSH: libsmbclient "
                    "cannot send one; writes are already acknowledged by the server\n");
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
    else if (io_u->xfer_buflen > p->slot_size - S_SLOT_DATA)
        e = EINVAL, why = "larger than the largest block size";
    if (e) {
        io_u->error = e;
        s_io_log(td, &p->io_errors, io_u, e, why);
        return FIO_Q_COMPLETED;
    }
    if (!p->nidle)
        return FIO_Q_BUSY; /* fio keeps at most iodepth in flight: not seen */
    unsigned i = p->idle[--p->nidle];
    if (io_u->ddir == DDIR_WRITE)
        memcpy(s_slot_data(p, i), io_u->xfer_buf, io_u->xfer_buflen);
    s_msg_t m = {.op = io_u->ddir == DDIR_READ ? S_OP_READ : S_OP_WRITE,
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
        s_io_log(td, &p->io_errors, io_u, -e, "could not reach its SMB worker process");
        return FIO_Q_COMPLETED;
    }
    /* with a commit() hook, submission latency and the submit histogram are the engine's job */
    io_u_queued(td, io_u);
    p->nqueued++;
    return FIO_Q_QUEUED;
}

/* ---- fio hooks ---- */

/* ->setup: runs before the job starts (in fio's main process unless create_serialize=0): create
 * each file on its share and extend it to the size the job will use, and tell fio the size, so
 * that fio never lays files out through local syscalls. */
static int s_setup(struct thread_data *td)
{
    char err[S_DETAIL];
    const s_job_t *job = td->io_ops_data;
    s_conn_t *own = NULL, *c = job ? job->conn : NULL;
    for (unsigned i = 0; i < td->files_index; i++) {
        if (s_check_target(td, td->files[i]->file_name))
            return 1;
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
        if (s_conn_new(td, &own, err, sizeof err)) {
            log_err("lgsmb: %s\n", err);
            td_vmsg(td, EINVAL, err, "setup");
            return 1;
        }
        c = own;
    }
    int rc = 0;
    for (unsigned i = 0; i < td->files_index; i++) {
        struct fio_file *f = td->files[i];
        uint64_t want = s_wanted_size(td), size = 0;
        int exists = 0;
        struct stat st;
        /* A file that is large enough is not opened for writing: read-only shares work. */
        s_said_clear();
        int r;
        S_CALL(r, c->stat(c->ctx, f->file_name, &st));
        if (r == 0) {
            size = (uint64_t)st.st_size;
            exists = 1;
        } else if (errno != ENOENT || !td->o.allow_create) {
            char text[2 * S_DETAIL];
            int e = errno;
            s_explain(c, f->file_name, e, text, sizeof text);
            rc = s_fail(td, f->file_name, "open", e, text);
            break;
        }
        if (want > size || !exists) {
            SMBCFILE *fh;
            char text[2 * S_DETAIL];
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
                s_said_clear();
                S_CALL(pos, c->lseek(c->ctx, fh, (off_t)want - 1, SEEK_SET));
                if (pos >= 0)
                    S_CALL(n, c->write(c->ctx, fh, &zero, 1));
                r = n == 1 ? 0 : -1;
                if (r < 0) {
                    int e = errno;
                    s_explain(c, f->file_name, e, text, sizeof text);
                    rc = s_fail(td, f->file_name, "extend", e, text);
                    S_CALL(r, c->close(c->ctx, fh));
                    break;
                }
                size = want;
            }
            S_CALL(r, c->close(c->ctx, fh));
        }
        f->real_file_size = size;
        fio_file_set_size_known(f);
    }
    s_conn_free(&own);
    return rc ? 1 : 0;
}

/* s_job_free: the job's context or pool. Takes ownership of *job_p and sets it to NULL. */
static void s_job_free(s_job_t **job_p)
{
    s_job_t *job = *job_p;
    if (!job)
        return;
    s_conn_free(&job->conn);
    s_pool_free(&job->pool);
    free(job);
    *job_p = NULL;
}

/* ->init, in the thread or process that does the I/O: at iodepth 1 the job's own SMB context,
 * which connects at the first open; above, the pool of workers, all of them connected and
 * logged on to every file's share here, so that no logon falls in the measured window. */
static int s_init(struct thread_data *td)
{
    char err[S_DETAIL];
    s_job_t *job = calloc(1, sizeof *job);
    if (!job) {
        td_verror(td, ENOMEM, "init");
        return 1;
    }
    if (td->o.iodepth <= 1) {
        if (s_conn_new(td, &job->conn, err, sizeof err)) {
            log_err("lgsmb: %s\n", err);
            td_vmsg(td, EINVAL, err, "init");
            s_job_free(&job);
            return 1;
        }
        td->io_ops_data = job;
        return 0;
    }
    int rc = s_pool_new(td, &job->pool, err, sizeof err);
    if (rc) {
        log_err("lgsmb: %s\n", err);
        td_vmsg(td, -rc, err, "init");
        s_job_free(&job);
        return 1;
    }
    for (unsigned i = 0; i < td->files_index; i++) {
        char why[2 * S_DETAIL];
        rc = s_pool_all(td, job->pool, S_OP_CONNECT, td->files[i], 0, why, sizeof why);
        if (rc) {
            s_fail(td, td->files[i]->file_name, "connect to", -rc, why);
            s_job_free(&job);
            return 1;
        }
    }
    /* The engine is declared synchronous, for iodepth 1; this job's I/Os complete through
     * getevents(), and queue() stamps their issue time before a worker has them. */
    td->flags &= ~((unsigned long long)FIO_SYNCIO << TD_ENG_FLAG_SHIFT);
    td->flags |= (unsigned long long)FIO_ASYNCIO_SETS_ISSUE_TIME << TD_ENG_FLAG_SHIFT;
    td->io_ops_data = job;
    return 0;
}

static void s_cleanup(struct thread_data *td)
{
    s_job_t *job = td->io_ops_data;
    s_job_free(&job);
    td->io_ops_data = NULL;
}

static int s_open_file(struct thread_data *td, struct fio_file *f)
{
    s_job_t *job = td->io_ops_data;
    int flags = O_RDONLY;
    if (td_write(td))
        flags = O_RDWR | (td->o.allow_create ? O_CREAT : 0);
    if (job->pool) {
        char why[2 * S_DETAIL];
        int rc = s_pool_all(td, job->pool, S_OP_OPEN, f, flags, why, sizeof why);
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
        char why[2 * S_DETAIL];
        int rc = s_pool_all(td, job->pool, S_OP_CLOSE, f, 0, why, sizeof why);
        if (rc)
            log_err("lgsmb: could not close \"%s\": %s\n", f->file_name, why);
        return -rc;
    }
    s_conn_t *c = job ? job->conn : NULL;
    SMBCFILE *fh = FILE_ENG_DATA(f);
    FILE_SET_ENG_DATA(f, NULL);
    if (!fh || !c)
        return 0;
    int r;
    S_CALL(r, c->close(c->ctx, fh));
    if (r < 0) {
        int e = errno;
        log_err("lgsmb: could not close \"%s\": %s\n", f->file_name, strerror(e));
        return e;
    }
    return 0;
}

static int s_unlink_file(struct thread_data *td, struct fio_file *f)
{
    char err[S_DETAIL];
    const s_job_t *job = td->io_ops_data;
    s_conn_t *own = NULL, *c = job ? job->conn : NULL;
    if (!c) {
        if (s_conn_new(td, &own, err, sizeof err)) {
            log_err("lgsmb: %s\n", err);
            return EINVAL;
        }
        c = own;
    }
    int r;
    S_CALL(r, c->unlink(c->ctx, f->file_name));
    int rc = r < 0 ? errno : 0;
    s_conn_free(&own);
    return rc;
}

/* s_io_error: fail io_u with errno e. fio takes a synchronous engine's error straight from the
 * queue hook (no "io_u error" line, no ->errdetails), so the SMB side of it is logged here. */
static enum fio_q_status s_io_error(struct thread_data *td, s_conn_t *c, struct io_u *io_u, int e)
{
    char said[S_DETAIL];
    s_said_text(said, sizeof said);
    s_io_log(td, &c->io_errors, io_u, e, said);
    io_u->error = e;
    return FIO_Q_COMPLETED;
}

/* s_sync_queue: the I/O of an iodepth-1 job, done here and now. */
static enum fio_q_status s_sync_queue(struct thread_data *td, s_conn_t *c, struct io_u *io_u)
{
    SMBCFILE *fh = FILE_ENG_DATA(io_u->file);
    /* fio marks these itself only for engines without a commit() hook */
    io_u_mark_submit(td, 1);
    io_u_mark_complete(td, 1);
    if (ddir_sync(io_u->ddir)) {
        /* libsmbclient has no flush call (no SMB2 FLUSH): each write above was acknowledged by
         * the server before it returned, which is all this engine can promise. */
        if (!__atomic_exchange_n(&s_warned_sync, 1, __ATOMIC_RELAXED))
            log_err("lgsmb: fsync/fdatasync complete without an SMB2 FLUSH: libsmbclient "
                    "cannot send one; writes are already acknowledged by the server\n");
        return FIO_Q_COMPLETED;
    }
    if (io_u->ddir != DDIR_READ && io_u->ddir != DDIR_WRITE)
        return s_io_error(td, c, io_u, EOPNOTSUPP);
    s_said_clear();
    off_t pos;
    S_CALL(pos, c->lseek(c->ctx, fh, (off_t)io_u->offset, SEEK_SET));
    if (pos < 0)
        return s_io_error(td, c, io_u, errno);
    char *buf = io_u->xfer_buf;
    size_t left = io_u->xfer_buflen;
    while (left) {
        ssize_t n;
        if (io_u->ddir == DDIR_READ)
            S_CALL(n, c->read(c->ctx, fh, buf, left));
        else
            S_CALL(n, c->write(c->ctx, fh, buf, left));
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
    if (job->pool)
        return s_pool_queue(td, job->pool, io_u);
    return s_sync_queue(td, job->conn, io_u);
}

static int s_commit(struct thread_data *td)
{
    s_job_t *job = td->io_ops_data;
    if (job && job->pool && job->pool->nqueued) {
        io_u_mark_submit(td, job->pool->nqueued);
        job->pool->nqueued = 0;
    }
    return 0; /* queue() has already handed each I/O to its worker */
}

static int s_getevents(struct thread_data *td, unsigned int min, unsigned int max,
                       const struct timespec *t)
{
    s_pool_t *p = ((s_job_t *)td->io_ops_data)->pool;
    if (!p)
        return 0;
    int64_t ms = t ? (int64_t)t->tv_sec * 1000 + t->tv_nsec / 1000000 : -1;
    int rc = s_pool_wait(td, p, 0, min, ms);
    if (rc)
        return rc;
    p->nreturned = p->ndone < max ? p->ndone : max;
    return (int)p->nreturned;
}

static struct io_u *s_event(struct thread_data *td, int event)
{
    return ((s_job_t *)td->io_ops_data)->pool->done[event];
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
    .option_struct_size = sizeof(struct s_opts),
};
