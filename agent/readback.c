/* readback.c: see readback.h. Sessions are set up as the lgsmb and lgiscsi engines set up
 * theirs (credentials file, dialects, initiator name, CHAP, timeouts), so that the check reads
 * the target the run wrote to, as the same user, and a silent server cannot hold the agent. */
#include "readback.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#ifdef LG_HAVE_SMBCLIENT
#include "smbctx.h"
#endif
#ifdef LG_HAVE_LIBISCSI
#include <iscsi/scsi-lowlevel.h>

#include "iscsi_login.h"
#endif

#include "creds.h"
#include "lg_error.h"
#include "lg_util.h"

/* Connect, log in and each read: what lgiscsi allows a login (its io_timeout default is the
 * same); libsmbclient takes milliseconds. */
#define S_TIMEOUT_S 30

#if defined(LG_HAVE_SMBCLIENT) || defined(LG_HAVE_LIBISCSI)
/* Reads len bytes at byte pos of the target into buf; 0 or a negative error with err set. */
typedef int (*s_read_fn)(void *src, uint64_t pos, void *buf, uint32_t len, char *err,
                         size_t errlen);

/* The whole records of [offset, offset + size) through one scanner. */
static int s_scan(s_read_fn rd, void *src, uint64_t offset, uint64_t size, uint32_t unit,
                  lg_datacheck_t *out, char *err, size_t errlen)
{
    lg_datacheck_opts_t opts = {.unit = unit};
    lg_datacheck_scan_t *sc = NULL;
    int rc = lg_datacheck_scan_new(&opts, &sc);
    if (rc) {
        snprintf(err, errlen, "data reduction check: records of %u bytes: %s", unit,
                 lg_strerror(rc));
        return rc;
    }
    void *buf = malloc(unit);
    if (!buf) {
        lg_datacheck_scan_destroy(&sc);
        snprintf(err, errlen, "data reduction check: out of memory");
        return -ENOMEM;
    }
    for (uint64_t done = 0; rc == 0 && size - done >= unit; done += unit) {
        rc = rd(src, offset + done, buf, unit, err, errlen);
        if (rc == 0 && (rc = lg_datacheck_scan_add(sc, buf)) != 0)
            snprintf(err, errlen, "data reduction check: %s", lg_strerror(rc));
    }
    if (rc == 0)
        lg_datacheck_scan_result(sc, out);
    free(buf);
    lg_datacheck_scan_destroy(&sc);
    return rc;
}
#endif

/* ---- smb:// ---- */

#ifdef LG_HAVE_SMBCLIENT
/* libsmbclient's talloc stack frames are process-wide in Debian's build (no thread hooks): one
 * caller at a time. */
static pthread_mutex_t s_smb_lock = PTHREAD_MUTEX_INITIALIZER;

#ifdef __SANITIZE_ADDRESS__
/* The sanitizer build's agent (the test suite's) exits 0 after an SMB check: libsmbclient's
 * one-time set-up (smbc_new_context -> reopen_logs -> debug_set_logfile) keeps a 116-byte
 * talloc string nobody frees. talloc built without frame pointers hides the caller from the
 * sanitizer's stacks, so the match is on talloc, which only Samba's libraries use here. */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
    return "leak:libtalloc.so\n";
}
#endif

typedef struct {
    lg_creds_t creds;
    int have_creds;
    SMBCCTX *ctx;
    SMBCFILE *fh;
    smbc_read_fn read;
    smbc_lseek_fn lseek;
    const char *url;
    uint64_t end; /* where the run's region ends */
} s_smb_t;

static int s_smb_read(void *src, uint64_t pos, void *buf, uint32_t len, char *err, size_t errlen)
{
    s_smb_t *s = src;
    if (s->lseek(s->ctx, s->fh, (off_t)pos, SEEK_SET) < 0) {
        int e = errno ? errno : EIO;
        snprintf(err, errlen, "could not seek to %llu in \"%s\": %s", (unsigned long long)pos,
                 s->url, strerror(e));
        return -e;
    }
    for (uint32_t got = 0; got < len;) {
        ssize_t n = s->read(s->ctx, s->fh, (char *)buf + got, len - got);
        if (n < 0) {
            int e = errno ? errno : EIO;
            snprintf(err, errlen, "could not read %u bytes at %llu from \"%s\": %s", len,
                     (unsigned long long)pos, s->url, strerror(e));
            return -e;
        }
        if (n == 0) {
            snprintf(err, errlen, "short read: \"%s\" ends at %llu, the run wrote up to %llu",
                     s->url, (unsigned long long)(pos + got), (unsigned long long)s->end);
            return -EIO;
        }
        got += (uint32_t)n;
    }
    return 0;
}

static int s_smb_datacheck(const char *url, const char *credentials, uint64_t offset, uint64_t size,
                           uint32_t unit, lg_datacheck_t *out, char *err, size_t errlen)
{
    s_smb_t s;
    memset(&s, 0, sizeof s);
    s.url = url;
    s.end = offset + size;
    if (credentials) {
        int e = lg_creds_read(credentials, 1, &s.creds, err, errlen);
        if (e)
            return -e;
        s.have_creds = 1;
    }
    int rc = 0;
    pthread_mutex_lock(&s_smb_lock);
    rc = lg_smbctx_new(&s.ctx, err, errlen);
    if (rc)
        goto out;
    smbc_setDebug(s.ctx, 0);
    /* lgsmb's default dialects (smb_min_protocol=SMB2_02 up to SMB3). */
    rc = lg_smbctx_init(s.ctx, s.have_creds ? &s.creds : NULL, NULL, S_TIMEOUT_S * 1000, err,
                        errlen);
    if (rc) {
        smbc_free_context(s.ctx, 0);
        s.ctx = NULL;
        goto out;
    }
    s.read = smbc_getFunctionRead(s.ctx);
    s.lseek = smbc_getFunctionLseek(s.ctx);
    s.fh = smbc_getFunctionOpen(s.ctx)(s.ctx, url, O_RDONLY, 0);
    if (!s.fh) {
        rc = -(errno ? errno : EIO);
        snprintf(err, errlen, "could not open \"%s\"%s%s to read back what the run wrote: %s", url,
                 s.have_creds ? " as user " : "", s.have_creds ? s.creds.user : "", strerror(-rc));
        goto out;
    }
    rc = s_scan(s_smb_read, &s, offset, size, unit, out, err, errlen);
    smbc_getFunctionClose(s.ctx)(s.ctx, s.fh);
out:
    if (s.ctx)
        smbc_free_context(s.ctx, 1);
    pthread_mutex_unlock(&s_smb_lock);
    lg_creds_clear(&s.creds);
    return rc;
}

/* The folder of an smb:// file URL: up to its last '/', never shorter than smb://host/share. */
static int s_smb_folder(const char *url, char *dir, size_t len)
{
    const char *share = strchr(url + 6, '/');
    const char *last = strrchr(url, '/');
    if (!share || !share[1] || last <= share || (size_t)(last - url) >= len)
        return LG_EPARSE;
    memcpy(dir, url, (size_t)(last - url));
    dir[last - url] = 0;
    return 0;
}

static int s_smb_look(const char *url, const char *credentials, char *msg, size_t len)
{
    char dir[1100], as[160] = "";
    if (s_smb_folder(url, dir, sizeof dir) != 0) {
        snprintf(msg, len, "\"%s\" names no file inside a share (smb://host/share/path)", url);
        return LG_EPARSE;
    }
    lg_creds_t creds;
    memset(&creds, 0, sizeof creds);
    if (credentials) {
        int e = lg_creds_read(credentials, 1, &creds, msg, len);
        if (e)
            return -e;
        snprintf(as, sizeof as, " as user %s", creds.user);
    }
    SMBCCTX *ctx = NULL;
    pthread_mutex_lock(&s_smb_lock);
    int rc = lg_smbctx_new(&ctx, msg, len);
    if (rc)
        goto out;
    smbc_setDebug(ctx, 0);
    rc = lg_smbctx_init(ctx, credentials ? &creds : NULL, NULL, S_TIMEOUT_S * 1000, msg, len);
    if (rc) {
        smbc_free_context(ctx, 0);
        ctx = NULL;
        goto out;
    }
    struct stat st;
    if (smbc_getFunctionStat(ctx)(ctx, dir, &st) != 0) {
        rc = -(errno ? errno : EIO);
        snprintf(msg, len, "the target's folder \"%s\" is not there%s: %s", dir, as, strerror(-rc));
        goto out;
    }
    if (!S_ISDIR(st.st_mode)) {
        rc = -ENOTDIR;
        snprintf(msg, len, "the target's folder \"%s\" is not a folder", dir);
        goto out;
    }
    char probe[1200];
    snprintf(probe, sizeof probe, "%s/.lg-check-%ld-%u", dir, (long)getpid(),
             (unsigned)lg_mono_ms());
    SMBCFILE *f = smbc_getFunctionOpen(ctx)(ctx, probe, O_CREAT | O_EXCL | O_WRONLY, 0600);
    if (!f) {
        rc = -(errno ? errno : EIO);
        snprintf(msg, len, "cannot make a file in the target's folder \"%s\"%s: %s", dir, as,
                 strerror(-rc));
        goto out;
    }
    smbc_getFunctionClose(ctx)(ctx, f);
    smbc_getFunctionUnlink(ctx)(ctx, probe);
    snprintf(msg, len, "folder \"%s\" is there and takes a new file%s", dir, as);
out:
    if (ctx)
        smbc_free_context(ctx, 1);
    pthread_mutex_unlock(&s_smb_lock);
    lg_creds_clear(&creds);
    return rc;
}
#endif

/* ---- iscsi:// ---- */

#ifdef LG_HAVE_LIBISCSI
typedef struct {
    struct iscsi_context *ctx;
    int lun;
    uint32_t block;
    const char *url;
} s_iscsi_t;

/* The target's reason for a failed command: its sense, or libiscsi's text. */
static void s_iscsi_why(struct iscsi_context *ctx, struct scsi_task *t, char *why, size_t n)
{
    if (t && t->status == SCSI_STATUS_CHECK_CONDITION)
        snprintf(why, n, "%s: %s", scsi_sense_key_str(t->sense.key),
                 scsi_sense_ascq_str(t->sense.ascq));
    else if (t && t->status == SCSI_STATUS_TIMEOUT)
        snprintf(why, n, "no answer within %d s", S_TIMEOUT_S);
    else
        snprintf(why, n, "%s", iscsi_get_error(ctx));
    for (char *c = why; *c; c++)
        if (*c == '\n')
            *c = ' ';
}

static int s_iscsi_read(void *src, uint64_t pos, void *buf, uint32_t len, char *err, size_t errlen)
{
    s_iscsi_t *s = src;
    struct scsi_iovec iov = {.iov_base = buf, .iov_len = len};
    struct scsi_task *t = iscsi_read16_iov_sync(s->ctx, s->lun, pos / s->block, len, (int)s->block,
                                                0, 0, 0, 0, 0, &iov, 1);
    int rc = 0;
    if (!t || t->status != SCSI_STATUS_GOOD) {
        char why[512];
        s_iscsi_why(s->ctx, t, why, sizeof why);
        snprintf(err, errlen, "READ(16) of %u bytes at %llu on \"%s\" failed: %s", len,
                 (unsigned long long)pos, s->url, why);
        rc = -EIO;
    } else if (t->residual_status == SCSI_RESIDUAL_UNDERFLOW && t->residual) {
        snprintf(err, errlen, "short read: READ(16) of %u bytes at %llu on \"%s\" returned %u", len,
                 (unsigned long long)pos, s->url, len - (uint32_t)t->residual);
        rc = -EIO;
    }
    if (t)
        scsi_free_scsi_task(t);
    return rc;
}

static int s_iscsi_datacheck(const char *url, const char *credentials, uint64_t offset,
                             uint64_t size, uint32_t unit, lg_datacheck_t *out, char *err,
                             size_t errlen)
{
    s_iscsi_t s = {.url = url};
    lg_creds_t c;
    memset(&c, 0, sizeof c);
    if (credentials) {
        int e = lg_iscsi_read_chap(credentials, &c, err, errlen);
        if (e)
            return -e;
    }
    /* The initiator lgiscsi logs in as unless its initiator= option says otherwise (the
     * agent's job files never do); a fresh ISID: a session the target still holds for the run
     * must not be taken over. */
    s.ctx = lg_iscsi_context_new(LG_ISCSI_DEFAULT_INITIATOR, 0);
    if (!s.ctx) {
        lg_creds_clear(&c);
        snprintf(err, errlen, "could not create an iSCSI context for \"%s\"", url);
        return -ENOMEM;
    }
    int rc = 0;
    struct scsi_task *t = NULL;
    struct iscsi_url *u = iscsi_parse_full_url(s.ctx, url);
    if (!u) {
        snprintf(err, errlen, "\"%s\" is not an iSCSI URL: %s", url, iscsi_get_error(s.ctx));
        rc = LG_EPARSE;
        goto out;
    }
    s.lun = u->lun;
    char reason[512];
    if (lg_iscsi_login(s.ctx, u, credentials ? &c : NULL, reason, sizeof reason) != 0) {
        for (char *p = reason; *p; p++)
            if (*p == '\n')
                *p = ' ';
        snprintf(err, errlen, "could not log in to \"%s\"%s to read back what the run wrote: %s",
                 url, credentials ? " with CHAP" : "", reason);
        rc = -EIO;
        goto out;
    }
    t = iscsi_readcapacity16_sync(s.ctx, s.lun);
    struct scsi_readcapacity16 *cap =
        t && t->status == SCSI_STATUS_GOOD ? scsi_datain_unmarshall(t) : NULL;
    if (!cap || !cap->block_length) {
        char why[512];
        s_iscsi_why(s.ctx, t, why, sizeof why);
        snprintf(err, errlen, "READ CAPACITY(16) on \"%s\" failed: %s", url,
                 cap ? "block length 0" : why);
        rc = -EIO;
        goto out;
    }
    s.block = cap->block_length;
    uint64_t bytes = (cap->returned_lba + 1) * (uint64_t)cap->block_length;
    if (offset % s.block || unit % s.block) {
        snprintf(err, errlen,
                 "\"%s\" has %u-byte blocks: offset %llu and records of %u bytes "
                 "must be whole blocks",
                 url, s.block, (unsigned long long)offset, unit);
        rc = LG_EPARSE;
    } else if (offset > bytes || size > bytes - offset) {
        snprintf(err, errlen, "short read: \"%s\" has %llu bytes, the run wrote up to %llu", url,
                 (unsigned long long)bytes, (unsigned long long)(offset + size));
        rc = -EIO;
    } else {
        rc = s_scan(s_iscsi_read, &s, offset, size, unit, out, err, errlen);
    }
out:
    if (t)
        scsi_free_scsi_task(t);
    if (u)
        iscsi_destroy_url(u);
    lg_iscsi_logout(&s.ctx);
    lg_creds_clear(&c);
    return rc;
}

static int s_iscsi_look(const char *url, const char *credentials, uint64_t size, uint64_t *bytes,
                        char *msg, size_t len)
{
    lg_creds_t c;
    memset(&c, 0, sizeof c);
    if (credentials) {
        int e = lg_iscsi_read_chap(credentials, &c, msg, len);
        if (e)
            return -e;
    }
    struct iscsi_context *ctx = lg_iscsi_context_new(LG_ISCSI_DEFAULT_INITIATOR, 0);
    if (!ctx) {
        lg_creds_clear(&c);
        snprintf(msg, len, "could not create an iSCSI context for \"%s\"", url);
        return -ENOMEM;
    }
    int rc = 0;
    struct scsi_task *t = NULL;
    struct iscsi_url *u = iscsi_parse_full_url(ctx, url);
    char reason[512];
    if (!u) {
        snprintf(msg, len, "\"%s\" is not an iSCSI URL: %s", url, iscsi_get_error(ctx));
        rc = LG_EPARSE;
    } else if (lg_iscsi_login(ctx, u, credentials ? &c : NULL, reason, sizeof reason) != 0) {
        for (char *p = reason; *p; p++)
            if (*p == '\n')
                *p = ' ';
        /* The login's unit check (TEST UNIT READY) is where a missing LUN shows. */
        if (strstr(reason, "LOGICAL_UNIT_NOT_SUPPORTED")) {
            snprintf(msg, len, "LUN %d of \"%s\" is not there (the target answers: %s)", u->lun,
                     url, reason);
            rc = -ENOENT;
        } else {
            snprintf(msg, len, "could not log in to \"%s\"%s: %s", url,
                     credentials ? " with CHAP" : "", reason);
            rc = -EIO;
        }
    } else {
        t = iscsi_readcapacity16_sync(ctx, u->lun);
        struct scsi_readcapacity16 *cap =
            t && t->status == SCSI_STATUS_GOOD ? scsi_datain_unmarshall(t) : NULL;
        if (!cap || !cap->block_length) {
            s_iscsi_why(ctx, t, reason, sizeof reason);
            snprintf(msg, len, "LUN %d of \"%s\" is not there (READ CAPACITY: %s)", u->lun, url,
                     cap ? "block length 0" : reason);
            rc = -ENOENT;
        } else {
            *bytes = (cap->returned_lba + 1) * (uint64_t)cap->block_length;
            rc = *bytes < size ? -ENOSPC : 0;
            snprintf(msg, len, "LUN %d of \"%s\" holds %llu bytes%s%llu%s", u->lun, url,
                     (unsigned long long)*bytes,
                     rc ? ", less than size: " : " (size: ", (unsigned long long)size,
                     rc ? "" : ")");
        }
    }
    if (t)
        scsi_free_scsi_task(t);
    if (u)
        iscsi_destroy_url(u);
    lg_iscsi_logout(&ctx);
    lg_creds_clear(&c);
    return rc;
}
#endif

int lg_readback_has_smb(void)
{
#ifdef LG_HAVE_SMBCLIENT
    return 1;
#else
    return 0;
#endif
}

int lg_readback_has_iscsi(void)
{
#ifdef LG_HAVE_LIBISCSI
    return 1;
#else
    return 0;
#endif
}

int lg_readback_datacheck(const char *url, const char *credentials, uint64_t offset, uint64_t size,
                          uint32_t unit, lg_datacheck_t *out, char *err, size_t errlen)
{
    int smb = strncasecmp(url, "smb://", 6) == 0, iscsi = strncasecmp(url, "iscsi://", 8) == 0;
    if (!smb && !iscsi) {
        snprintf(err, errlen, "\"%s\" is neither an smb:// nor an iscsi:// URL", url);
        return LG_EPARSE;
    }
    if ((smb && !lg_readback_has_smb()) || (iscsi && !lg_readback_has_iscsi())) {
        snprintf(err, errlen,
                 "this agent was built without %s (-DLG_ENGINES=OFF): it cannot "
                 "read back \"%s\" for the data reduction check",
                 smb ? "libsmbclient" : "libiscsi", url);
        return LG_EDENIED;
    }
#ifdef LG_HAVE_SMBCLIENT
    if (smb)
        return s_smb_datacheck(url, credentials, offset, size, unit, out, err, errlen);
#endif
#ifdef LG_HAVE_LIBISCSI
    if (iscsi)
        return s_iscsi_datacheck(url, credentials, offset, size, unit, out, err, errlen);
#endif
    (void)credentials;
    (void)offset;
    (void)size;
    (void)unit;
    (void)out;
    return LG_EDENIED;
}

int lg_readback_look(const char *url, const char *credentials, uint64_t size, uint64_t *bytes,
                     char *msg, size_t len)
{
    int smb = strncasecmp(url, "smb://", 6) == 0, iscsi = strncasecmp(url, "iscsi://", 8) == 0;
    *bytes = 0;
    if (!smb && !iscsi) {
        snprintf(msg, len, "\"%s\" is neither an smb:// nor an iscsi:// URL", url);
        return LG_EPARSE;
    }
    if ((smb && !lg_readback_has_smb()) || (iscsi && !lg_readback_has_iscsi())) {
        snprintf(msg, len,
                 "this agent was built without %s (-DLG_ENGINES=OFF): it cannot reach \"%s\"",
                 smb ? "libsmbclient" : "libiscsi", url);
        return LG_EDENIED;
    }
#ifdef LG_HAVE_SMBCLIENT
    if (smb)
        return s_smb_look(url, credentials, msg, len);
#endif
#ifdef LG_HAVE_LIBISCSI
    if (iscsi)
        return s_iscsi_look(url, credentials, size, bytes, msg, len);
#endif
    (void)credentials;
    (void)size;
    return LG_EDENIED;
}
