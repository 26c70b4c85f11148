/* lg_datapattern.h: the fio options that make written data compress and deduplicate at a campaign's
 * ratios as a ZFS pool measures them (per record, see sys/lg_datacheck.h), and the ratios those
 * options are expected to give. Numbers below were measured with fio 3.33 and lg_datacheck. */
#ifndef LG_DATAPATTERN_H
#define LG_DATAPATTERN_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef struct {
    double compress_ratio; /* 1.0 (incompressible) .. 20.0 */
    double dedup_ratio;    /* 1.0 (no duplicates) .. 100.0; records / distinct records */
    uint32_t dedup_unit;   /* bytes: ZFS recordsize or volblocksize; power of two 512..16M */
} lg_datapattern_t;

/* What lg_datapattern_plan() chose. How fio 3.33 makes the data, and why these options:
 *  - refill_buffers=1 always: by default fio fills its buffers once and only scrambles a few
 *    bytes per write, so with bs smaller than the record the records repeat the same few
 *    buffers (measured: 16 jobs x 8k randwrite of "random" data, 128k records: zstd 1.11).
 *  - compression: buffer_compress_percentage=C makes each chunk of buffer_compress_chunk bytes
 *    (100-C)% random and C% zeros. The chunk is min(4 KiB, bs, dedup_unit) so that a record
 *    never is a whole zero chunk (a hole for ZFS, and one shared content for dedup). The ratio
 *    is 100/(100-C) less a small per-chunk compressor overhead (zstd ~3 B, lz4 ~20 B per 4 KiB),
 *    which the choice of C takes into account. C is an integer, and ZFS keeps a record
 *    compressed only when that saves 1/8, so ratios just above 1.0 cannot be made.
 *  - dedup: dedupe_percentage=P with dedupe_mode=working_set, dedupe_working_set_percentage=1
 *    and dedupe_global=1: each write is, with probability P%, a copy of a page drawn from a pool
 *    of 1% of size (shared by all jobs), else new data. Because every write is drawn the same
 *    way, the ratio of the final data does not depend on which writes overwrote which: random
 *    writes from 16 jobs give 100/(100-P+1). The default "repeat" mode copies the previous
 *    write, and overwrites break those pairs (measured 1.50 for 2.0); without dedupe_global
 *    each job has its own pool (measured 1.58 for 2.0).
 *    A single job writing each record once (a one-pass sequential fill) gives 100/(100-P)
 *    instead, as the pool pages are also its first new pages: a little higher.
 *    Dedup needs bs to be a multiple of dedup_unit: fio makes a whole write buffer a copy or
 *    not, so writes smaller than a record never make two records equal.
 *    Memory: fio keeps 48 bytes per pool page in every job: size / bs / 100 * 48 bytes per job.
 *    fio needs size= set and one file per job for working_set mode. */
typedef struct {
    unsigned compress_pct;          /* buffer_compress_percentage; 0 = not written */
    unsigned chunk;                 /* buffer_compress_chunk; 0 = not written */
    unsigned dedupe_pct;            /* dedupe_percentage; 0 = no dedupe options */
    unsigned working_set_pct;       /* dedupe_working_set_percentage */
    double compress_expected;       /* lz4/zstd ratio the model predicts */
    double dedup_expected;          /* when records are overwritten (several jobs, random) */
    double dedup_expected_one_pass; /* one job writing each record once */
} lg_datapattern_plan_t;

/* Choose the options for data written with block size bs. The nearest achievable ratios must
 * be within 10% of those asked (dedup_expected for dedup). Returns 0, or LG_EPROTO with the
 * reason (and the nearest achievable ratios when it is rounding) in err. */
int lg_datapattern_plan(const lg_datapattern_t *p, uint32_t bs, lg_datapattern_plan_t *out,
                        char *err, size_t errlen);

/* Write the fio options (lines "key=value\n") that make data written with block size bs achieve
 * the pattern, into f (not closed). Returns 0, LG_EPROTO when the pattern cannot be honoured
 * for this bs (the reason in err), or -EIO when writing to f failed. */
int lg_datapattern_fio_options(const lg_datapattern_t *p, uint32_t bs, FILE *f, char *err,
                               size_t errlen);

#endif
