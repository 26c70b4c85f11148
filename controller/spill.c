/* spill.c: the controller's spool on disk (spill.h). The file is a 16-byte header, then records:
 * magic, payload length, rows, kind (the writer's: table and fields per row), CRC-32C (of the three
 * counts and the payload), each a 32-bit big-endian number, then the payload (binary COPY rows as
 * the writer makes them). Records are appended at the end and read from the front; the file is
 * emptied once the reader has caught up, so its size is what waits, plus what was stored since it
 * last emptied. */
#include "spill.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lg_error.h"
#include "lg_log.h"
#include "lg_owndir.h"

#define HEAD "lg spool 1\n\0\0\0\0\0"
#define HEAD_LEN 16
#define REC_MAGIC 0x4c475352u /* "LGSR" */
#define REC_HEAD 20
#define REC_MAX (256u << 20) /* a record bigger than this is damage, not a batch */

struct lg_spill {
    pthread_mutex_t mu;
    int fd;
    char path[4096];
    uint64_t max;
    uint64_t end;    /* offset past the last whole record */
    uint64_t read;   /* offset of the oldest record not stored */
    uint64_t cursor; /* offset past the batch last read (committed into read) */
    uint64_t rows;   /* rows in [read, end) */
    uint64_t cursor_rows;
};

static uint32_t s_crc_table[256];
static pthread_once_t s_crc_once = PTHREAD_ONCE_INIT;

static void s_crc_init(void)
{
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++)
            c = c & 1 ? (c >> 1) ^ 0x82f63b78u : c >> 1;
        s_crc_table[i] = c;
    }
}

uint32_t lg_crc32c(uint32_t crc, const void *p, size_t len)
{
    pthread_once(&s_crc_once, s_crc_init);
    const uint8_t *b = p;
    crc = ~crc;
    while (len--)
        crc = s_crc_table[(crc ^ *b++) & 0xff] ^ (crc >> 8);
    return ~crc;
}

static void s_be32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (24 - 8 * i));
}

static uint32_t s_get32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static int s_pread_all(int fd, void *buf, size_t len, uint64_t off)
{
    uint8_t *p = buf;
    while (len) {
        ssize_t n = pread(fd, p, len, (off_t)off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return -errno;
        if (n == 0)
            return LG_EPARSE; /* short: a torn record */
        p += n;
        len -= (size_t)n;
        off += (uint64_t)n;
    }
    return 0;
}

static int s_pwrite_all(int fd, const void *buf, size_t len, uint64_t off)
{
    const uint8_t *p = buf;
    while (len) {
        ssize_t n = pwrite(fd, p, len, (off_t)off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return -errno;
        p += n;
        len -= (size_t)n;
        off += (uint64_t)n;
    }
    return 0;
}

/* The header of the record at off, checked: *len, *nrows, *kind, and its checksum in h.
 * LG_EPARSE for a torn or damaged one (or -errno). */
static int s_rec_head(lg_spill_t *s, uint64_t off, uint64_t limit, uint8_t h[REC_HEAD],
                      uint32_t *len, uint32_t *nrows, uint32_t *kind)
{
    if (off + REC_HEAD > limit)
        return LG_EPARSE;
    int rc = s_pread_all(s->fd, h, REC_HEAD, off);
    if (rc)
        return rc;
    *len = s_get32(h + 4);
    *nrows = s_get32(h + 8);
    *kind = s_get32(h + 12);
    if (s_get32(h) != REC_MAGIC || *len > REC_MAX || off + REC_HEAD + *len > limit)
        return LG_EPARSE;
    return 0;
}

/* The payload of the record whose header h was read at off, into buf (len bytes), checked
 * against its checksum. */
static int s_rec_body(lg_spill_t *s, uint64_t off, const uint8_t h[REC_HEAD], char *buf,
                      uint32_t len)
{
    int rc = s_pread_all(s->fd, buf, len, off + REC_HEAD);
    if (rc == 0 && lg_crc32c(lg_crc32c(0, h + 4, 12), buf, len) != s_get32(h + 16))
        rc = LG_EPARSE;
    return rc;
}

/* The record at off, checked whole (header and checksum). */
static int s_record_ok(lg_spill_t *s, uint64_t off, uint64_t limit, uint32_t *len, uint32_t *nrows)
{
    uint8_t h[REC_HEAD];
    uint32_t nf;
    int rc = s_rec_head(s, off, limit, h, len, nrows, &nf);
    if (rc)
        return rc;
    char *buf = malloc(*len ? *len : 1);
    if (!buf)
        return -ENOMEM;
    rc = s_rec_body(s, off, h, buf, *len);
    free(buf);
    return rc;
}

/* Walk what a previous controller left: every whole, intact record counts; the file is cut
 * after the last one (a torn record was never acknowledged, so its agent still has it). */
static int s_scan(lg_spill_t *s, uint64_t size, char *err, size_t errlen)
{
    char head[HEAD_LEN];
    if (size < HEAD_LEN || s_pread_all(s->fd, head, HEAD_LEN, 0) != 0 ||
        memcmp(head, HEAD, HEAD_LEN) != 0) {
        if (size > 0)
            lg_warn("spool %s: not an lg spool (%llu bytes); started anew", s->path,
                    (unsigned long long)size);
        if (ftruncate(s->fd, 0) != 0 || s_pwrite_all(s->fd, HEAD, HEAD_LEN, 0) != 0 ||
            fsync(s->fd) != 0) {
            snprintf(err, errlen, "spool %s: cannot write: %s", s->path, strerror(errno));
            return -EIO;
        }
        s->end = s->read = s->cursor = HEAD_LEN;
        return 0;
    }
    uint64_t off = HEAD_LEN;
    uint32_t len, nrows;
    while (s_record_ok(s, off, size, &len, &nrows) == 0) {
        off += REC_HEAD + len;
        s->rows += nrows;
    }
    if (off < size) {
        lg_warn("spool %s: %llu bytes after offset %llu are not a whole record (torn by a "
                "crash, or damaged) and are dropped",
                s->path, (unsigned long long)(size - off), (unsigned long long)off);
        if (ftruncate(s->fd, (off_t)off) != 0) {
            snprintf(err, errlen, "spool %s: cannot cut a torn record: %s", s->path,
                     strerror(errno));
            return -errno;
        }
    }
    s->end = off;
    s->read = s->cursor = HEAD_LEN;
    if (s->rows)
        lg_info("spool %s: %llu samples' rows a previous controller left are stored once the "
                "database takes them",
                s->path, (unsigned long long)s->rows);
    return 0;
}

static int s_open_file(lg_spill_t *s, char *err, size_t errlen)
{
    s->fd = open(s->path, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
    if (s->fd < 0 && errno == ENOENT) /* anew, in a folder lg_owndir accepted */
        s->fd = open(s->path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (s->fd < 0) {
        int e = errno;
        snprintf(err, errlen, "spool %s: %s", s->path, strerror(e));
        return -e;
    }
    struct stat st;
    if (fstat(s->fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
        (st.st_mode & 077)) {
        snprintf(err, errlen, "spool %s: not a regular file of this user's with mode 0600",
                 s->path);
        return LG_EDENIED;
    }
    if (flock(s->fd, LOCK_EX | LOCK_NB) != 0) {
        snprintf(err, errlen,
                 "spool %s is in use by another lg-controller (each needs a "
                 "--spool-dir of its own)",
                 s->path);
        return LG_ESTATE;
    }
    return s_scan(s, (uint64_t)st.st_size, err, errlen);
}

int lg_spill_open(const char *dir, uint64_t max_bytes, lg_spill_t **out, char *err, size_t errlen)
{
    *out = NULL;
    char real[4096];
    int rc = lg_owndir(dir, 0700, 0, real, sizeof real, err, errlen);
    if (rc)
        return rc;
    lg_spill_t *s = calloc(1, sizeof *s);
    if (!s)
        return -ENOMEM;
    s->fd = -1;
    s->max = max_bytes;
    pthread_mutex_init(&s->mu, NULL);
    if (snprintf(s->path, sizeof s->path, "%s/%s", real, LG_SPILL_FILE) >= (int)sizeof s->path) {
        snprintf(err, errlen, "spool folder %s: path too long", dir);
        rc = LG_ETOOBIG;
    } else {
        rc = s_open_file(s, err, errlen);
    }
    if (rc) {
        lg_spill_close(&s);
        return rc;
    }
    *out = s;
    return 0;
}

/* The header of a record of part p into h. */
static void s_rec_make(uint8_t h[REC_HEAD], const lg_spill_part_t *p)
{
    s_be32(h, REC_MAGIC);
    s_be32(h + 4, (uint32_t)p->len);
    s_be32(h + 8, (uint32_t)p->nrows);
    s_be32(h + 12, (uint32_t)p->kind);
    s_be32(h + 16, lg_crc32c(lg_crc32c(0, h + 4, 12), p->rows, p->len));
}

/* Write the n records at s->end and fsync them; *size is their length. Under the lock. */
static int s_write_parts(lg_spill_t *s, const lg_spill_part_t *p, size_t n, uint64_t *size)
{
    uint64_t off = s->end;
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        uint8_t h[REC_HEAD];
        s_rec_make(h, &p[i]);
        if ((rc = s_pwrite_all(s->fd, h, sizeof h, off)) == 0 &&
            (rc = s_pwrite_all(s->fd, p[i].rows, p[i].len, off + REC_HEAD)) == 0)
            off += REC_HEAD + p[i].len;
    }
    if (rc == 0 && fdatasync(s->fd) != 0)
        rc = -errno;
    *size = off - s->end;
    return rc;
}

int lg_spill_append_parts(lg_spill_t *s, const lg_spill_part_t *p, size_t n, char *err,
                          size_t errlen)
{
    uint64_t size = 0, nrows = 0;
    for (size_t i = 0; i < n; i++) {
        if (p[i].len > REC_MAX || p[i].nrows > UINT32_MAX) {
            snprintf(err, errlen, "spool %s: a batch of %zu bytes is too big for a record", s->path,
                     p[i].len);
            return LG_ETOOBIG;
        }
        size += REC_HEAD + p[i].len;
        nrows += p[i].nrows;
    }
    pthread_mutex_lock(&s->mu);
    int rc = 0;
    uint64_t wrote = 0;
    if (s->end + size > s->max) {
        rc = LG_ETOOBIG;
    } else if ((rc = s_write_parts(s, p, n, &wrote)) == 0) {
        s->end += wrote;
        s->rows += nrows;
    } else {
        snprintf(err, errlen, "spool %s: cannot write at offset %llu: %s", s->path,
                 (unsigned long long)s->end, lg_strerror(rc));
        if (ftruncate(s->fd, (off_t)s->end) != 0) /* no torn or lone record stays behind */
            lg_warn("spool %s: cannot cut a failed write: %s", s->path, strerror(errno));
    }
    pthread_mutex_unlock(&s->mu);
    return rc;
}

int lg_spill_append(lg_spill_t *s, const void *rows, size_t len, size_t nrows, int kind, char *err,
                    size_t errlen)
{
    lg_spill_part_t p = {rows, len, nrows, kind};
    return lg_spill_append_parts(s, &p, 1, err, errlen);
}

/* Caught up (everything read is stored): the file starts again. Under the lock. */
static int s_reset_if_done(lg_spill_t *s, char *err, size_t errlen)
{
    if (s->read < s->end)
        return 0;
    s->read = s->cursor = s->end = HEAD_LEN;
    s->rows = s->cursor_rows = 0;
    if (ftruncate(s->fd, HEAD_LEN) != 0 || fdatasync(s->fd) != 0) {
        snprintf(err, errlen, "spool %s: cannot empty: %s", s->path, strerror(errno));
        return -EIO;
    }
    return 0;
}

/* After a damaged record at the front nothing can be trusted to start a record: all that waits
 * is dropped (those samples were acknowledged, so they are lost: said with where and how
 * much). Under the lock. */
static void s_drop_rest(lg_spill_t *s, char *err, size_t errlen)
{
    snprintf(err, errlen,
             "spool %s: the record at offset %llu is damaged (its checksum does not "
             "match): %llu bytes (%llu samples' rows) from there on are lost",
             s->path, (unsigned long long)s->read, (unsigned long long)(s->end - s->read),
             (unsigned long long)s->rows);
    s->end = s->read;
    char e2[256];
    if (s_reset_if_done(s, e2, sizeof e2) != 0)
        lg_warn("%s", e2);
}

/* Reads whole records from off into *buf while they fit in max_len (the first always) and have
 * the first one's kind. Returns 0 (with *len > 0 unless the first failed) or the first
 * record's error. */
static int s_read_batch(lg_spill_t *s, size_t max_len, char **buf, size_t *len, size_t *nrows,
                        int *kind, uint64_t *off)
{
    while (*off < s->end) {
        uint8_t h[REC_HEAD];
        uint32_t l, n, nf;
        int rc = s_rec_head(s, *off, s->end, h, &l, &n, &nf);
        if (rc == 0 && *len && ((int)nf != *kind || *len + l > max_len))
            return 0;
        char *nb = rc == 0 ? realloc(*buf, *len + l + 1) : NULL;
        if (rc == 0 && !nb)
            rc = -ENOMEM;
        if (nb)
            *buf = nb;
        if (rc == 0)
            rc = s_rec_body(s, *off, h, nb + *len, l);
        if (rc) /* after the first: the next read starts there and says so */
            return *len ? 0 : rc;
        *kind = (int)nf;
        *len += l;
        *nrows += n;
        *off += REC_HEAD + l;
    }
    return 0;
}

int lg_spill_read(lg_spill_t *s, size_t max_len, char **rows, size_t *len, size_t *nrows, int *kind,
                  char *err, size_t errlen)
{
    *rows = NULL;
    *len = *nrows = 0;
    *kind = 0;
    char *buf = NULL;
    pthread_mutex_lock(&s->mu);
    uint64_t off = s->read;
    int rc = s_read_batch(s, max_len, &buf, len, nrows, kind, &off);
    if (rc == LG_EPARSE)
        s_drop_rest(s, err, errlen);
    else if (rc)
        snprintf(err, errlen, "spool %s: cannot read at offset %llu: %s", s->path,
                 (unsigned long long)s->read, lg_strerror(rc));
    s->cursor = off;
    s->cursor_rows = *nrows;
    pthread_mutex_unlock(&s->mu);
    if (*len == 0) {
        free(buf);
        return rc;
    }
    *rows = buf;
    return 1;
}

int lg_spill_commit(lg_spill_t *s, char *err, size_t errlen)
{
    pthread_mutex_lock(&s->mu);
    s->read = s->cursor;
    s->rows -= s->cursor_rows <= s->rows ? s->cursor_rows : s->rows;
    s->cursor_rows = 0;
    int rc = s_reset_if_done(s, err, errlen);
    pthread_mutex_unlock(&s->mu);
    return rc;
}

uint64_t lg_spill_rows(lg_spill_t *s)
{
    pthread_mutex_lock(&s->mu);
    uint64_t n = s->rows;
    pthread_mutex_unlock(&s->mu);
    return n;
}

uint64_t lg_spill_bytes(lg_spill_t *s)
{
    pthread_mutex_lock(&s->mu);
    uint64_t n = s->end - s->read;
    pthread_mutex_unlock(&s->mu);
    return n;
}

uint64_t lg_spill_max(const lg_spill_t *s)
{
    return s->max;
}
const char *lg_spill_path(const lg_spill_t *s)
{
    return s->path;
}

void lg_spill_close(lg_spill_t **self_p)
{
    lg_spill_t *s = *self_p;
    if (!s)
        return;
    *self_p = NULL;
    if (s->fd >= 0)
        close(s->fd); /* the lock goes with it */
    pthread_mutex_destroy(&s->mu);
    free(s);
}
