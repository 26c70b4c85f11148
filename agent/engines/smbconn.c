/* smbconn.c: the lgsmb engine's SMB connections, shared by the engine (lgsmb.c) and its worker
 * pool (smbpool.c): a job's libsmbclient context and credentials, the lock every libsmbclient
 * call takes, what libsmbclient said about the last failure, targets parsed and failures
 * explained, and I/O errors reported. Compiled into lgsmb.so. */
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
#include "smbconn.h"
#include "smbctx.h"

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

/* lg__smb_conn_destroy: close every file and connection of *self_p and clear the password.
 * Takes ownership of *self_p and sets it to NULL. */
void lg__smb_conn_destroy(lg__smb_conn_t **self_p)
{
    lg__smb_conn_t *c = self_p ? *self_p : NULL;
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
    *self_p = NULL;
}

/* lg__smb_conn_new: a context with the job's credentials and dialects; no connection is made until
 * the first call. Caller owns *out (lg__smb_conn_destroy). On failure err says why. */
int lg__smb_conn_new(struct thread_data *td, lg__smb_conn_t **out, char *err, size_t errlen)
{
    const struct lg__smb_opts *o = td->eo;
    lg__smb_conn_t *c = calloc(1, sizeof *c);
    if (!c) {
        snprintf(err, errlen, "out of memory");
        return -ENOMEM;
    }
    int rc = 0;
    if (o->credentials && o->credentials[0]) {
        rc = s_read_creds(o->credentials, c, err, errlen);
        if (rc) {
            lg__smb_conn_destroy(&c);
            return rc;
        }
    }
    /* libsmbclient's set-up touches process-wide state (smb.conf, debug, dialects): one at a
     * time. */
    pthread_mutex_lock(&lg__smb_lock);
    rc = lg_smbctx_new(&c->ctx, err, errlen);
    if (rc) {
        pthread_mutex_unlock(&lg__smb_lock);
        lg__smb_conn_destroy(&c);
        return rc;
    }
    s_live_contexts++;
    smbc_setLogCallback(c->ctx, NULL, s_log_cb);
    smbc_setDebug(c->ctx, 3); /* NT status and logon failures; calls are serialised */
    rc = lg_smbctx_init(c->ctx, c->have_creds ? &c->creds : NULL, o->min_protocol, 0, err, errlen);
    if (rc) {
        pthread_mutex_unlock(&lg__smb_lock);
        lg__smb_conn_destroy(&c);
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

/* lg__smb_redact: url with the password of its user part, if any, replaced by "***". */
void lg__smb_redact(const char *url, char *out, size_t len)
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

/* lg__smb_io_log: report the failure e of io_u (said: what libsmbclient said, may be "") for the
 * first few failures counted in *count, and put it into td->verror for fio's summary. */
void lg__smb_io_log(struct thread_data *td, unsigned *count, struct io_u *io_u, int e,
                    const char *said)
{
    char text[2 * LG__SMB_DETAIL + 128], shown[PATH_MAX];
    snprintf(text, sizeof text, "%s at offset %llu: %s%s%s%s", io_ddir_name(io_u->ddir),
             io_u->offset, strerror(e), said[0] ? " (" : "", said, said[0] ? ")" : "");
    if ((*count)++ < 5) {
        lg__smb_redact(io_u->file->file_name, shown, sizeof shown);
        log_err("lgsmb: I/O error on \"%s\": %s%s\n", shown, text,
                *count == 5 ? " (further I/O errors are not logged)" : "");
    }
    td_vmsg(td, e, text, io_ddir_name(io_u->ddir));
}
