/* lg_datacheck.c: per-record zstd/lz4 stored sizes (OpenZFS rules) and SHA-256 dedup counting
 * over a file or block device, streaming one record at a time; only the digest set grows.
 * SHA-256 and reading the target differ by platform: each has one section below. */
#include "lg_datacheck.h"

#include <errno.h>
#include <lz4.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>
#include <zstd_errors.h>
#ifdef _WIN32
#include <windows.h>

#include <bcrypt.h>
#else
#include <fcntl.h>
#include <openssl/evp.h>
#include <unistd.h>
#endif

#include "lg_error.h"

#define S_DIGEST 32
/* The ZFS compressors prefix their output: lz4 with a 4-byte length, zstd with a 4-byte length
 * and a 4-byte version/level word before a magic-less frame. */
#define S_LZ4_HDR 4
#define S_ZSTD_HDR 8
#define S_ZSTD_MAGIC 4

/* Open-addressing set of 32-byte digests with linear probing. SHA-256 output is uniform, so
 * its first 8 bytes serve as the hash. A bitmap marks used slots (any digest value is valid). */
typedef struct {
    uint8_t *slots; /* cap * S_DIGEST */
    uint8_t *used;  /* cap / 8 */
    uint64_t cap;   /* power of two */
    uint64_t count;
} s_set_t;

/* ---- SHA-256: OpenSSL's EVP on POSIX; on Windows the system's CNG (bcrypt.dll), so that the
 * agent needs no OpenSSL of its own ---- */

#ifdef _WIN32
typedef struct {
    BCRYPT_ALG_HANDLE alg;
    BCRYPT_HASH_HANDLE hash; /* reusable: each BCryptFinishHash starts it afresh */
} s_sha_t;

static int s_sha_init(s_sha_t *h)
{
    /* One hash object for the scanner's life (each BCryptFinishHash resets it) rather than a
     * create and a destroy per record. BCRYPT_HASH_REUSABLE_FLAG needs Windows 8; wine 8 has
     * it. */
    if (!BCRYPT_SUCCESS(BCryptOpenAlgorithmProvider(&h->alg, BCRYPT_SHA256_ALGORITHM, NULL, 0))) {
        h->alg = NULL;
        return -EIO;
    }
    if (!BCRYPT_SUCCESS(
            BCryptCreateHash(h->alg, &h->hash, NULL, 0, NULL, 0, BCRYPT_HASH_REUSABLE_FLAG))) {
        h->hash = NULL;
        return -EIO;
    }
    return 0;
}

static void s_sha_clear(s_sha_t *h)
{
    if (h->hash)
        BCryptDestroyHash(h->hash);
    if (h->alg)
        BCryptCloseAlgorithmProvider(h->alg, 0);
    h->hash = h->alg = NULL;
}

static int s_sha256(s_sha_t *h, const void *p, uint32_t n, uint8_t d[S_DIGEST])
{
    if (!BCRYPT_SUCCESS(BCryptHashData(h->hash, (PUCHAR)p, n, 0))) {
        (void)BCryptFinishHash(h->hash, d, S_DIGEST, 0); /* so the next record starts clean */
        return -EIO;
    }
    return BCRYPT_SUCCESS(BCryptFinishHash(h->hash, d, S_DIGEST, 0)) ? 0 : -EIO;
}
#else
typedef struct {
    EVP_MD_CTX *md;
} s_sha_t;

static int s_sha_init(s_sha_t *h)
{
    h->md = EVP_MD_CTX_new();
    return h->md ? 0 : -ENOMEM;
}

static void s_sha_clear(s_sha_t *h)
{
    EVP_MD_CTX_free(h->md);
    h->md = NULL;
}

static int s_sha256(s_sha_t *h, const void *p, uint32_t n, uint8_t d[S_DIGEST])
{
    unsigned dlen = 0;
    if (EVP_DigestInit_ex(h->md, EVP_sha256(), NULL) != 1 || EVP_DigestUpdate(h->md, p, n) != 1 ||
        EVP_DigestFinal_ex(h->md, d, &dlen) != 1 || dlen != S_DIGEST)
        return -EIO;
    return 0;
}
#endif

struct lg_datacheck_scan {
    uint32_t unit;
    uint32_t sector;
    ZSTD_CCtx *zstd;
    s_sha_t sha;
    uint8_t *dst; /* compressor output, unit bytes */
    s_set_t set;
    lg_datacheck_t t;
};

static int s_pow2_in(uint64_t v, uint64_t lo, uint64_t hi)
{
    return v >= lo && v <= hi && (v & (v - 1)) == 0;
}

static uint64_t s_hash(const uint8_t *d)
{
    uint64_t h;
    memcpy(&h, d, sizeof(h));
    return h;
}

static int s_set_init(s_set_t *s, uint64_t cap)
{
    s->slots = malloc(cap * S_DIGEST);
    s->used = calloc(cap / 8, 1);
    s->cap = cap;
    s->count = 0;
    if (!s->slots || !s->used) {
        free(s->slots);
        free(s->used);
        memset(s, 0, sizeof(*s));
        return -ENOMEM;
    }
    return 0;
}

static void s_set_clear(s_set_t *s)
{
    free(s->slots);
    free(s->used);
    memset(s, 0, sizeof(*s));
}

/* Place d in the first free slot of its probe run; the caller knows it is absent. */
static void s_set_place(s_set_t *s, const uint8_t *d)
{
    uint64_t mask = s->cap - 1;
    for (uint64_t i = s_hash(d) & mask;; i = (i + 1) & mask) {
        if (!(s->used[i / 8] & (1u << (i % 8)))) {
            s->used[i / 8] |= (uint8_t)(1u << (i % 8));
            memcpy(s->slots + i * S_DIGEST, d, S_DIGEST);
            s->count++;
            return;
        }
    }
}

static int s_set_grow(s_set_t *s)
{
    if (s->cap > UINT64_MAX / 2 / S_DIGEST)
        return -ENOMEM;
    s_set_t n;
    int rc = s_set_init(&n, s->cap * 2);
    if (rc)
        return rc;
    for (uint64_t i = 0; i < s->cap; i++)
        if (s->used[i / 8] & (1u << (i % 8)))
            s_set_place(&n, s->slots + i * S_DIGEST);
    s_set_clear(s);
    *s = n;
    return 0;
}

/* Returns 1 when d was added, 0 when it was already there, or -ENOMEM. */
static int s_set_add(s_set_t *s, const uint8_t *d)
{
    uint64_t mask = s->cap - 1;
    for (uint64_t i = s_hash(d) & mask;; i = (i + 1) & mask) {
        if (!(s->used[i / 8] & (1u << (i % 8))))
            break;
        if (memcmp(s->slots + i * S_DIGEST, d, S_DIGEST) == 0)
            return 0;
    }
    /* Keep the load at most 7/10 so that probe runs stay short. */
    if ((s->count + 1) * 10 > s->cap * 7) {
        int rc = s_set_grow(s);
        if (rc)
            return rc;
    }
    s_set_place(s, d);
    return 1;
}

static int s_all_zero(const uint8_t *p, size_t n)
{
    /* n is a multiple of 512 */
    for (size_t i = 0; i < n; i += 8) {
        uint64_t w;
        memcpy(&w, p + i, 8);
        if (w)
            return 0;
    }
    return 1;
}

/* ZFS keeps a compressed record only when it fits unit - unit/8 (header included) and, after
 * rounding up to the sector, is still smaller than the record. */
static uint64_t s_stored(const lg_datacheck_scan_t *s, uint64_t csize)
{
    uint64_t unit = s->unit;
    if (csize == 0 || csize > unit - unit / 8)
        return unit;
    if (s->sector) {
        csize = (csize + s->sector - 1) / s->sector * s->sector;
        if (csize >= unit)
            return unit;
    }
    return csize;
}

/* Compressed sizes with the ZFS headers, or 0 when they do not fit in unit - unit/8. */
static int s_zstd_size(lg_datacheck_scan_t *s, const void *rec, uint64_t *size)
{
    size_t d_len = s->unit - s->unit / 8;
    /* A frame with its magic number is the magic-less frame ZFS writes plus 4 bytes, so give the
     * compressor the same room ZFS gives it plus those 4. */
    size_t cap = d_len - S_ZSTD_HDR + S_ZSTD_MAGIC;
    size_t r = ZSTD_compress2(s->zstd, s->dst, cap, rec, s->unit);
    if (ZSTD_isError(r)) {
        if (ZSTD_getErrorCode(r) != ZSTD_error_dstSize_tooSmall)
            return -EIO;
        *size = 0;
        return 0;
    }
    *size = r - S_ZSTD_MAGIC + S_ZSTD_HDR;
    return 0;
}

static uint64_t s_lz4_size(lg_datacheck_scan_t *s, const void *rec)
{
    int cap = (int)(s->unit - s->unit / 8 - S_LZ4_HDR);
    int r = LZ4_compress_default(rec, (char *)s->dst, (int)s->unit, cap);
    return r > 0 ? (uint64_t)r + S_LZ4_HDR : 0;
}

int lg_datacheck_scan_new(const lg_datacheck_opts_t *opts, lg_datacheck_scan_t **out)
{
    *out = NULL;
    if (!s_pow2_in(opts->unit, 512, 16u << 20) ||
        (opts->sector && !s_pow2_in(opts->sector, 512, 64u << 10)))
        return LG_EPARSE;
    lg_datacheck_scan_t *s = calloc(1, sizeof(*s));
    if (!s)
        return -ENOMEM;
    s->unit = opts->unit;
    s->sector = opts->sector;
    s->zstd = ZSTD_createCCtx();
    s->dst = malloc(opts->unit);
    int rc = (!s->zstd || !s->dst) ? -ENOMEM : s_sha_init(&s->sha);
    if (!rc)
        rc = s_set_init(&s->set, 1024);
    if (!rc) {
        /* What OpenZFS sets: level 1, no checksum and no content size in the frame. */
        if (ZSTD_isError(ZSTD_CCtx_setParameter(s->zstd, ZSTD_c_compressionLevel, 1)) ||
            ZSTD_isError(ZSTD_CCtx_setParameter(s->zstd, ZSTD_c_checksumFlag, 0)) ||
            ZSTD_isError(ZSTD_CCtx_setParameter(s->zstd, ZSTD_c_contentSizeFlag, 0)))
            rc = -EIO;
    }
    if (rc) {
        lg_datacheck_scan_destroy(&s);
        return rc;
    }
    *out = s;
    return 0;
}

void lg_datacheck_scan_destroy(lg_datacheck_scan_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    lg_datacheck_scan_t *s = *self_p;
    ZSTD_freeCCtx(s->zstd);
    s_sha_clear(&s->sha);
    free(s->dst);
    s_set_clear(&s->set);
    free(s);
    *self_p = NULL;
}

int lg_datacheck_scan_add(lg_datacheck_scan_t *s, const void *record)
{
    uint8_t d[S_DIGEST];
    if (s_sha256(&s->sha, record, s->unit, d) != 0)
        return -EIO;
    /* With compression on, ZFS writes an all-zero record as a hole: nothing stored. */
    int zero = s_all_zero(record, s->unit);
    uint64_t zc = 0, lc = 0;
    if (!zero) {
        int rc = s_zstd_size(s, record, &zc);
        if (rc)
            return rc;
        zc = s_stored(s, zc);
        lc = s_stored(s, s_lz4_size(s, record));
    }
    int added = s_set_add(&s->set, d);
    if (added < 0)
        return added;
    s->t.zero += (uint64_t)zero;
    s->t.zstd_bytes += zc;
    s->t.lz4_bytes += lc;
    s->t.unique += (uint64_t)added;
    s->t.records++;
    s->t.bytes += s->unit;
    return 0;
}

void lg_datacheck_scan_result(const lg_datacheck_scan_t *s, lg_datacheck_t *out)
{
    *out = s->t;
    out->dedup_ratio = out->unique ? (double)out->records / (double)out->unique : 1.0;
    out->zstd_ratio = out->zstd_bytes ? (double)out->bytes / (double)out->zstd_bytes : 0.0;
    out->lz4_ratio = out->lz4_bytes ? (double)out->bytes / (double)out->lz4_bytes : 0.0;
}

/* ---- reading the target, in binary and front to back: a regular file or a block device, on
 * Windows also a UNC path or \\.\PhysicalDriveN (raw disks take whole sectors only: records
 * are powers of two from 512 bytes, so a 4Kn disk needs records of 4 KiB or more) ---- */

#ifdef _WIN32
typedef HANDLE s_src_t;
#define S_SRC_NONE INVALID_HANDLE_VALUE

/* Windows' own text for error e, then its number: "Access is denied (Windows error 5)". */
static void s_win_text(DWORD e, char *buf, size_t len)
{
    DWORD n = FormatMessageA(FORMAT_MESSAGE_FROM_SYSTEM | FORMAT_MESSAGE_IGNORE_INSERTS, NULL, e, 0,
                             buf, (DWORD)len, NULL);
    while (n > 0 &&
           (buf[n - 1] == '\r' || buf[n - 1] == '\n' || buf[n - 1] == ' ' || buf[n - 1] == '.'))
        n--;
    snprintf(buf + n, len - n, "%sWindows error %lu%s", n ? " (" : "", (unsigned long)e,
             n ? ")" : "");
}

static int s_win_errno(DWORD e)
{
    switch (e) {
    case ERROR_FILE_NOT_FOUND:
    case ERROR_PATH_NOT_FOUND:
    case ERROR_INVALID_DRIVE:
    case ERROR_BAD_NETPATH:
    case ERROR_BAD_NET_NAME:
        return -ENOENT;
    case ERROR_ACCESS_DENIED:
        return -EACCES;
    case ERROR_SHARING_VIOLATION:
    case ERROR_LOCK_VIOLATION:
        return -EBUSY;
    case ERROR_NOT_ENOUGH_MEMORY:
    case ERROR_OUTOFMEMORY:
        return -ENOMEM;
    case ERROR_FILENAME_EXCED_RANGE:
        return -ENAMETOOLONG;
    case ERROR_INVALID_NAME:
        return -EINVAL;
    default:
        return -EIO;
    }
}

static int s_src_open(const char *path, s_src_t *src, char *err, size_t errlen)
{
    /* ReadFile on a handle is binary (no CRLF translation, no ^Z end). Sharing everything: the
     * agent still holds the target (attributes only, sharing read and write), and a writer or
     * a rename elsewhere must not fail because of a check. */
    *src = CreateFileA(path, GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE,
                       NULL, OPEN_EXISTING, FILE_FLAG_SEQUENTIAL_SCAN, NULL);
    if (*src != INVALID_HANDLE_VALUE)
        return 0;
    DWORD e = GetLastError();
    DWORD attr = GetFileAttributesA(path);
    if (attr != INVALID_FILE_ATTRIBUTES && (attr & FILE_ATTRIBUTE_DIRECTORY)) {
        snprintf(err, errlen, "could not open \"%s\": it is a folder", path);
        return -EISDIR;
    }
    char why[256];
    s_win_text(e, why, sizeof why);
    snprintf(err, errlen, "could not open \"%s\": %s", path, why);
    return s_win_errno(e);
}

/* Fill buf with n bytes unless the end comes first. Returns the bytes read or -errno (err set). */
static int64_t s_src_read(s_src_t src, const char *path, uint64_t off, uint8_t *buf, uint32_t n,
                          char *err, size_t errlen)
{
    uint32_t got = 0;
    while (got < n) {
        DWORD r = 0;
        if (!ReadFile(src, buf + got, n - got, &r, NULL)) {
            DWORD e = GetLastError();
            /* A disk answers a read past its last sector with an error rather than 0 bytes. */
            if (e == ERROR_HANDLE_EOF || e == ERROR_SECTOR_NOT_FOUND)
                break;
            char why[256];
            s_win_text(e, why, sizeof why);
            snprintf(err, errlen, "could not read \"%s\" at offset %llu: %s", path,
                     (unsigned long long)off, why);
            return s_win_errno(e);
        }
        if (r == 0)
            break;
        got += r;
    }
    return got;
}

static void s_src_close(s_src_t src)
{
    CloseHandle(src);
}
#else
typedef int s_src_t;
#define S_SRC_NONE (-1)

static int s_src_open(const char *path, s_src_t *src, char *err, size_t errlen)
{
    *src = open(path, O_RDONLY | O_CLOEXEC);
    if (*src < 0) {
        int e = errno;
        snprintf(err, errlen, "could not open \"%s\": %s", path, strerror(e));
        return -e;
    }
    (void)posix_fadvise(*src, 0, 0, POSIX_FADV_SEQUENTIAL);
    return 0;
}

/* Fill buf with n bytes unless EOF comes first. Returns the bytes read or -errno (err set). */
static int64_t s_src_read(s_src_t src, const char *path, uint64_t off, uint8_t *buf, uint32_t n,
                          char *err, size_t errlen)
{
    size_t got = 0;
    while (got < n) {
        ssize_t r = read(src, buf + got, n - got);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            int e = errno;
            snprintf(err, errlen, "could not read \"%s\" at offset %llu: %s", path,
                     (unsigned long long)off, strerror(e));
            return -e;
        }
        if (r == 0)
            break;
        got += (size_t)r;
    }
    return (int64_t)got;
}

static void s_src_close(s_src_t src)
{
    close(src);
}
#endif

int lg_datacheck_file_opts(const char *path, const lg_datacheck_opts_t *opts, lg_datacheck_t *out,
                           char *err, size_t errlen)
{
    lg_datacheck_scan_t *s = NULL;
    int rc = lg_datacheck_scan_new(opts, &s);
    if (rc == LG_EPARSE) {
        snprintf(err, errlen,
                 "invalid record size %u or sector %u: record size must be a power of two from "
                 "512 to 16M, sector 0 or a power of two from 512 to 64K",
                 opts->unit, opts->sector);
        return rc;
    }
    if (rc) {
        snprintf(err, errlen, "could not set up the checker: %s", lg_strerror(rc));
        return rc;
    }
    uint8_t *buf = NULL;
    s_src_t src = S_SRC_NONE;
    rc = s_src_open(path, &src, err, errlen);
    if (rc)
        goto done;
    buf = malloc(opts->unit);
    if (!buf) {
        rc = -ENOMEM;
        snprintf(err, errlen, "could not allocate a %u-byte record buffer", opts->unit);
        goto done;
    }
    for (uint64_t off = 0; !opts->limit || off + opts->unit <= opts->limit; off += opts->unit) {
        int64_t n = s_src_read(src, path, off, buf, opts->unit, err, errlen);
        if (n < 0) {
            rc = (int)n;
            goto done;
        }
        if ((uint64_t)n < opts->unit)
            break; /* a partial last record is not a record ZFS would store whole */
        rc = lg_datacheck_scan_add(s, buf);
        if (rc) {
            snprintf(err, errlen, "could not account the record at offset %llu of \"%s\": %s",
                     (unsigned long long)off, path, lg_strerror(rc));
            goto done;
        }
    }
    lg_datacheck_scan_result(s, out);
done:
    if (src != S_SRC_NONE)
        s_src_close(src);
    free(buf);
    lg_datacheck_scan_destroy(&s);
    return rc;
}

int lg_datacheck_file(const char *path, uint32_t unit, uint64_t limit, lg_datacheck_t *out,
                      char *err, size_t errlen)
{
    lg_datacheck_opts_t o = {.unit = unit, .sector = 0, .limit = limit};
    return lg_datacheck_file_opts(path, &o, out, err, errlen);
}
