/* lg_datacheck.h: measure written data the way a ZFS pool would store it: fixed-size records,
 * each compressed on its own (zstd level 1 and lz4, with ZFS's 1/8 rule and zero-record holes)
 * and deduplicated by SHA-256 of its content. Used to check that a campaign's data pattern
 * (compress_ratio, dedup_ratio, dedup_unit) is what fio really wrote. */
#ifndef LG_DATACHECK_H
#define LG_DATACHECK_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    uint64_t records;    /* records examined (whole records only; a partial tail is skipped) */
    uint64_t unique;     /* distinct records by content hash (all-zero records count as one) */
    uint64_t zero;       /* records that are all zero bytes (stored as holes, see below) */
    uint64_t bytes;      /* records * unit */
    uint64_t zstd_bytes; /* sum over records of the stored size with zstd level 1 */
    uint64_t lz4_bytes;  /* same with lz4 (default acceleration) */
    double dedup_ratio;  /* records / unique; 1.0 when no records */
    double zstd_ratio;   /* bytes / zstd_bytes; 0.0 when nothing is stored (no records or all
                            zero): the ratio is then unbounded */
    double lz4_ratio;    /* bytes / lz4_bytes; as zstd_ratio */
} lg_datacheck_t;

/* The stored size of one record with compression on, following OpenZFS zio_compress_data() and
 * zio_write_compress():
 *  - an all-zero record becomes a hole: stored size 0;
 *  - otherwise the compressor writes its ZFS header (zstd: 8 bytes before a magic-less frame
 *    without checksum or content size; lz4: 4 bytes) into unit - unit/8 bytes; when that does
 *    not fit, the record is stored uncompressed (size unit);
 *  - with sector > 0 (the pool's 1 << ashift) the size rounds up to a multiple of sector, and a
 *    record whose rounded size is not below unit is stored uncompressed. sector 0 = no rounding.
 * Note: on an ashift=12 pool a 4 KiB record can never be stored compressed. */
typedef struct {
    uint32_t unit;   /* record size: a power of two from 512 to 16 MiB */
    uint32_t sector; /* 0, or a power of two from 512 to 64 KiB */
    uint64_t limit;  /* read at most this many bytes from offset 0; 0 = to the end */
} lg_datacheck_opts_t;

/* Read path (regular file or block device; on Windows also a UNC path or \\.\PhysicalDriveN,
 * opened sharing read, write and delete) from offset 0 in records of unit bytes, up to limit
 * bytes (0 = all), with no sector rounding. Memory: two record buffers plus the digest set,
 * 46 to 92 bytes per distinct record (a power-of-two table kept at most 70% full; 138 for a
 * moment while it grows): up to ~0.8 GB per TiB of distinct 128 KiB records, ~25 GB per TiB of
 * distinct 4 KiB records. Writes *out only on success.
 * Returns 0, -errno (open or read failure, -ENOMEM, -EIO; on Windows the system's error mapped
 * to the nearest errno, its text and number in err) or LG_EPARSE (bad unit); the reason is in
 * err. */
int lg_datacheck_file(const char *path, uint32_t unit, uint64_t limit, lg_datacheck_t *out,
                      char *err, size_t errlen);
/* The same with every option (see lg_datacheck_opts_t). */
int lg_datacheck_file_opts(const char *path, const lg_datacheck_opts_t *opts, lg_datacheck_t *out,
                           char *err, size_t errlen);

/* Incremental form, for data that is not in a file: feed records one at a time. */
typedef struct lg_datacheck_scan lg_datacheck_scan_t;

/* Create a scanner for records of opts->unit bytes (opts->limit is ignored). Caller owns *out
 * and frees it with lg_datacheck_scan_destroy(). Returns 0, LG_EPARSE (bad unit or sector),
 * -ENOMEM or -EIO (zstd or SHA-256 could not be set up). */
int lg_datacheck_scan_new(const lg_datacheck_opts_t *opts, lg_datacheck_scan_t **out);
/* Account one record of exactly unit bytes (not kept; the scanner keeps only its digest).
 * Returns 0, -ENOMEM (the digest set could not grow) or -EIO (a zstd or SHA-256 call failed:
 * OpenSSL's, or on Windows the system's CNG). After a failure the totals do not include this
 * record. */
int lg_datacheck_scan_add(lg_datacheck_scan_t *self, const void *record);
/* The totals so far. */
void lg_datacheck_scan_result(const lg_datacheck_scan_t *self, lg_datacheck_t *out);
/* Free the scanner and set *self_p to NULL; NULL and *self_p == NULL are fine. */
void lg_datacheck_scan_destroy(lg_datacheck_scan_t **self_p);

#endif
