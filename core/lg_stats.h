/* lg_stats.h: per-direction I/O statistics and fio's latency histogram.
 * Figures merge exactly: counts and bytes add, mean and stddev combine from
 * (N, sum, sum of squares), max is the max, percentiles come from summed histograms. */
#ifndef LG_STATS_H
#define LG_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* fio's histogram layout (stat.h): FIO_IO_U_PLAT_BITS 6, FIO_IO_U_PLAT_GROUP_NR 29. */
#define LG_HIST_BITS 6
#define LG_HIST_VAL (1u << LG_HIST_BITS)
#define LG_HIST_GROUPS 29
#define LG_HIST_NR (LG_HIST_GROUPS * LG_HIST_VAL) /* 1856 */

typedef enum { LG_DIR_READ = 0, LG_DIR_WRITE = 1, LG_DIR_TRIM = 2, LG_DIR_NR = 3 } lg_dir_t;

/* Dense histogram of latencies in ns, indexed like fio's io_u_plat. */
typedef struct {
    uint64_t bins[LG_HIST_NR];
} lg_hist_t;

/* Statistics of one direction. lat_* describe fio's total latency (lat_ns). */
typedef struct {
    uint64_t ios;        /* total_ios */
    uint64_t bytes;      /* io_bytes */
    uint64_t runtime_ms; /* runtime; merged: max */
    double iops;         /* as fio printed it; merged: sum */
    double bw_bytes;     /* bytes/s as fio printed it; merged: sum */
    uint64_t lat_n;      /* latency samples (lat_ns.N) */
    uint64_t lat_min;    /* ns; 0 when lat_n == 0 */
    uint64_t lat_max;    /* ns */
    double lat_mean;     /* ns */
    double lat_stddev;   /* ns, sample standard deviation (n - 1), as fio */
    double lat_sum;      /* ns, = mean * N */
    double lat_sumsq;    /* ns^2, = S + N * mean^2 where S = stddev^2 * (N - 1) */
    bool has_hist;       /* hist below is filled (json+ bins were present) */
    lg_hist_t hist;
} lg_dirstats_t;

/* Bucket index of a latency value in ns (fio's plat_val_to_idx). */
unsigned lg_hist_idx(uint64_t val_ns);
/* Representative value in ns of bucket idx (fio's plat_idx_to_val): the value json+ prints as key.
 */
uint64_t lg_hist_val(unsigned idx);
/* Total count of samples in the histogram. */
uint64_t lg_hist_total(const lg_hist_t *h);
/* The p-th percentile (0 < p <= 100) of h in ns, computed exactly as fio's calc_clat_percentiles:
 * the first bucket whose cumulative count reaches p/100 * total. Returns 0 for an empty histogram.
 */
uint64_t lg_hist_percentile(const lg_hist_t *h, double p);

/* The compact form the database keeps an interval sample's histogram in (lg.sample.hist, bytea):
 * a version byte (1), then for each non-empty bucket in increasing order one unsigned LEB128
 * varint of count << 3 | g, where g is the gap since the previous non-empty bucket (the first:
 * its index) when under 7; at 7 a second varint holds the gap minus 7. Counts are capped at
 * 2^61 - 1. SQL expands it with lg.hist_unpack() and lg.hist_json()
 * (schema/011_compact_hist.sql). */
#define LG_HIST_PACK_MAX (1 + LG_HIST_NR * (2 + 10))
/* Pack h into out (at least LG_HIST_PACK_MAX bytes). Returns the length. */
size_t lg_hist_pack(const lg_hist_t *h, uint8_t *out);
/* in[0..len) as PostgreSQL COPY text of a bytea ("\\x" and hex digits) into out (3 + 2 * len + 1
 * bytes), NUL-terminated. */
void lg_hex_bytea(const uint8_t *in, size_t len, char *out);
/* Unpack len bytes into *h (zeroed first). Returns 0, or LG_EPARSE (wrong version, truncated,
 * a bucket out of range). */
int lg_hist_unpack(const uint8_t *in, size_t len, lg_hist_t *h);
/* 0 when in[0..len) is exactly what lg_hist_pack makes of some histogram (version 1, minimal
 * varints, no empty bucket, every bucket in range), else LG_EPARSE. Lets a packed histogram from
 * the wire be stored as it came, without expanding it. */
int lg_hist_packed_check(const uint8_t *in, size_t len);
/* lg_hist_unpack of canonical input only (lg_hist_packed_check and unpack in one pass). */
int lg_hist_unpack_strict(const uint8_t *in, size_t len, lg_hist_t *h);

/* Zero s. */
void lg_dirstats_init(lg_dirstats_t *s);
/* Derive lat_sum and lat_sumsq from lat_n, lat_mean and lat_stddev. */
void lg_dirstats_derive_sums(lg_dirstats_t *s);
/* Merge the list of n stats into *out. With n == 1 *out is an exact copy (so one job's figures
 * stay fio's own); otherwise sums add and mean/stddev come from pooled N, sum and sum of squares.
 */
void lg_dirstats_merge(lg_dirstats_t *out, const lg_dirstats_t *const *list, size_t n);
/* Interval delta cur - prev of cumulative figures: ios, bytes, lat_n, lat_sum, lat_sumsq, hist.
 * If cur went backwards (fio reset its stats after ramp_time), the delta is cur itself.
 * lat_mean/lat_stddev of the delta are computed from its sums. A cumulative report cannot give
 * an interval's exact extremes: lat_min/lat_max are the values of the lowest and highest non-empty
 * buckets of the delta histogram (fio's histogram resolution) when has_hist, else 0.
 * iops and bw_bytes of the delta are 0: the caller knows the interval length. */
void lg_dirstats_delta(lg_dirstats_t *out, const lg_dirstats_t *cur, const lg_dirstats_t *prev);

/* Standard percentiles lg reports: fio's default percentile_list (which already ends at 99.99). */
#define LG_NPCT 17
extern const double lg_pct_list[LG_NPCT];

#endif
