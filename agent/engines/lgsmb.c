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
#include "lgsmb.h"
#include "optgroup.h"
#include "smbctx.h"
#include "smbpool.h"

/* Engine options (td->eo). fio requires that no option sits at offset 0. */
struct s_opts {
    void *pad;
    char *credentials;
    char *min_protocol;
    unsigned int layout;
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
        .off1 = offsetof(struct s_opts, layout),
        .def = "0",
        .help = "for a write job (lg-agent's layout step): write each file through only when one "
                "is missing or shorter than the job's size, else read one block instead",
        .category = FIO_OPT_C_ENGINE,
        .group = FIO_OPT_G_INVALID,
    },
    {
        .name = NULL,
    },
};

/* ---- what libsmbclient says ----
 * The API reports only errno. libsmbclient logs the NT status of a failed call and the reason
 * of a failed logon (debug level 3); a log callback keeps the last of these per thread. */

static __thread struct {
    unsigned status;  /* NT status of the last failed call, 0 if none was logged */
    char reason[256]; /* the last "... failed: ..." line */
} s_said;

pthread_mutex_t lg__smb_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned s_live_contexts; /* under lg__smb_lock */
/* Notes go to stderr with the errors (log_err): fio's stdout carries the JSON that lg-agent
 * parses, and a job process's buffered stdout is lost when it exits. */

void lg__smb_warn_sync(void)
{
    static int warned;
    if (!__atomic_exchange_n(&warned, 1, __ATOMIC_RELAXED))
        log_err("lgsmb: fsync/fdatasync complete without an SMB2 FLUSH: libsmbclient "
                "cannot send one; writes are already acknowledged by the server\n");
}

void lg__smb_said_clear(void)
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

/* lg__smb_said_text: what libsmbclient said about the last failure, "" if nothing. */
void lg__smb_said_text(char *out, size_t len)
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

int lg__smb_parse_target(const char *url, lg__smb_target_t *t)
{
    memset(t, 0, sizeof *t);
    if (strncasecmp(url, LG__SMB_PREFIX, strlen(LG__SMB_PREFIX)) != 0)
        return -EINVAL;
    const char *auth = url + strlen(LG__SMB_PREFIX);
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
static int s_read_creds(const char *path, lg__smb_conn_t *c, char *err, size_t errlen)
{
    int rc = lg_creds_read(path, 1, &c->creds, err, errlen);
    if (rc)
        return -rc;
    static int told;
    if (c->creds.loose_mode && !__atomic_exchange_n(&told, 1, __ATOMIC_RELAXED))
        log_err("lgsmb: credentials file \"%s\" can be read by other users; chmod 600 it\n", path);
    c->have_creds = 1;
    return 0;
}

/* ---- connections ---- */

/* lg__smb_conn_free: close every file and connection of *c_p and clear the password.
 * Takes ownership of *c_p and sets it to NULL. */
void lg__smb_conn_free(lg__smb_conn_t **c_p)
{
    lg__smb_conn_t *c = *c_p;
    if (!c)
        return;
    if (c->ctx) {
        pthread_mutex_lock(&lg__smb_lock);
        if (--s_live_contexts == 0) {
            /* The log callback is process-wide and points into this module, which fio may
             * unload after the last context: libsmbclient must not call it then. */
            smbc_setDebug(c->ctx, 0);
            smbc_setLogCallback(c->ctx, NULL, NULL);
        }
        smbc_free_context(c->ctx, 1);
        pthread_mutex_unlock(&lg__smb_lock);
    }
    explicit_bzero(c, sizeof *c);
    free(c);
    *c_p = NULL;
}

/* lg__smb_conn_new: a context with the job's credentials and dialects; no connection is made until
 * the first call. Caller owns *out (lg__smb_conn_free). On failure err says why. */
int lg__smb_conn_new(struct thread_data *td, lg__smb_conn_t **out, char *err, size_t errlen)
{
    const struct s_opts *o = td->eo;
    lg__smb_conn_t *c = calloc(1, sizeof *c);
    if (!c) {
        snprintf(err, errlen, "out of memory");
        return -ENOMEM;
    }
    int rc = 0;
    if (o->credentials && o->credentials[0]) {
        rc = s_read_creds(o->credentials, c, err, errlen);
        if (rc) {
            lg__smb_conn_free(&c);
            return rc;
        }
    }
    /* libsmbclient's set-up touches process-wide state (smb.conf, debug, dialects): one at a
     * time. */
    pthread_mutex_lock(&lg__smb_lock);
    rc = lg_smbctx_new(&c->ctx, err, errlen);
    if (rc) {
        pthread_mutex_unlock(&lg__smb_lock);
        lg__smb_conn_free(&c);
        return rc;
    }
    s_live_contexts++;
    smbc_setLogCallback(c->ctx, NULL, s_log_cb);
    smbc_setDebug(c->ctx, 3); /* NT status and logon failures; calls are serialised */
    rc = lg_smbctx_init(c->ctx, c->have_creds ? &c->creds : NULL, o->min_protocol, 0, err, errlen);
    if (rc) {
        pthread_mutex_unlock(&lg__smb_lock);
        lg__smb_conn_free(&c);
        return rc;
    }
    const char *minp =
        o->min_protocol && o->min_protocol[0] ? o->min_protocol : LG_SMBCTX_MIN_PROTOCOL;
    pthread_mutex_unlock(&lg__smb_lock);
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

/* lg__smb_explain: after an open of url failed with errno e, find which part is wrong (server,
 * share, folder) and write errno text plus what libsmbclient said into out. */
void lg__smb_explain(lg__smb_conn_t *c, const char *url, int e, char *out, size_t len)
{
    char said[LG__SMB_DETAIL], where[LG__SMB_DETAIL + 64] = "";
    lg__smb_said_text(said, sizeof said);
    lg__smb_target_t t;
    int parsed = lg__smb_parse_target(url, &t) == 0;
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
                 c->have_creds ? "user " : "", c->have_creds ? c->creds.user : "guest");
    } else if (parsed && (e == ENOENT || e == EACCES || e == EPERM)) {
        char probe[PATH_MAX + 3 * LG__SMB_FIELD];
        struct stat st;
        snprintf(probe, sizeof probe, LG__SMB_PREFIX "%s/%s", t.authority, t.share);
        lg__smb_said_clear();
        int r;
        LG__SMB_CALL(r, c->stat(c->ctx, probe, &st));
        if (r < 0) {
            int pe = errno;
            if (pe == ENOENT)
                snprintf(where, sizeof where, "no share \"%s\" on %s", t.share, t.server);
            else if (pe == EACCES || pe == EPERM)
                snprintf(where, sizeof where, "logon to %s or access to share \"%s\" refused%s%s",
                         t.server, t.share, c->have_creds ? " for user " : "",
                         c->have_creds ? c->creds.user : "");
            if (!said[0])
                lg__smb_said_text(said, sizeof said);
        } else if (t.parent[0] && e == ENOENT) {
            snprintf(probe, sizeof probe, LG__SMB_PREFIX "%s/%s%s", t.authority, t.share, t.parent);
            LG__SMB_CALL(r, c->stat(c->ctx, probe, &st));
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
    if (strncasecmp(url, LG__SMB_PREFIX, strlen(LG__SMB_PREFIX)) != 0)
        return;
    const char *auth = url + strlen(LG__SMB_PREFIX);
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
} s_job_t;

/* lg__smb_io_log: report the failure e of io_u (said: what libsmbclient said, may be "") for the
 * first few failures counted in *count, and put it into td->verror for fio's summary. */
void lg__smb_io_log(struct thread_data *td, unsigned *count, struct io_u *io_u, int e,
                    const char *said)
{
    char text[2 * LG__SMB_DETAIL + 128], shown[PATH_MAX];
    snprintf(text, sizeof text, "%s at offset %llu: %s%s%s%s", io_ddir_name(io_u->ddir),
             io_u->offset, strerror(e), said[0] ? " (" : "", said, said[0] ? ")" : "");
    if ((*count)++ < 5) {
        s_redact(io_u->file->file_name, shown, sizeof shown);
        log_err("lgsmb: I/O error on \"%s\": %s%s\n", shown, text,
                *count == 5 ? " (further I/O errors are not logged)" : "");
    }
    td_vmsg(td, e, text, io_ddir_name(io_u->ddir));
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
        if (lg__smb_conn_new(td, &own, err, sizeof err)) {
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
    lg__smb_conn_free(&own);
    /* The layout step: files that were there at full size are not written again (nor opened
     * for writing: read-only shares work); the job reads one block of them instead, so that
     * what is wrong with the target still shows at Prepare. A file this created or extended
     * (sparse: its last byte) is written through, as fio lays out a local file, so that no run
     * reads holes, which a server answers with zeros without touching its disks. */
    const struct s_opts *eo = td->eo;
    if (!rc && eo && eo->layout && all_there && td_write(td)) {
        td->o.td_ddir = TD_DDIR_READ;
        td->o.number_ios = 1;
    }
    return rc ? 1 : 0;
}

/* s_job_free: the job's context or pool. Takes ownership of *job_p and sets it to NULL. */
static void s_job_free(s_job_t **job_p)
{
    s_job_t *job = *job_p;
    if (!job)
        return;
    lg__smb_conn_free(&job->conn);
    lg_smbpool_free(&job->pool);
    free(job);
    *job_p = NULL;
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
            s_job_free(&job);
            return 1;
        }
        td->io_ops_data = job;
        return 0;
    }
    int rc = lg_smbpool_new(td, &job->pool, err, sizeof err);
    if (rc) {
        log_err("lgsmb: %s\n", err);
        td_vmsg(td, -rc, err, "init");
        s_job_free(&job);
        return 1;
    }
    for (unsigned i = 0; i < td->files_index; i++) {
        char why[2 * LG__SMB_DETAIL];
        rc = lg_smbpool_all(td, job->pool, LG_SMBPOOL_CONNECT, td->files[i], 0, why, sizeof why);
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
    lg__smb_conn_free(&own);
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
    .option_struct_size = sizeof(struct s_opts),
};
