/* lg_datapattern.c: map compress/dedup ratios to fio 3.33 buffer options. The reasoning and the
 * measurements behind each choice are in datapattern.h; the constants here are measured. */
#include "lg_datapattern.h"

#include <errno.h>
#include <math.h>
#include <string.h>

#include "lg_error.h"

/* 131072 as "128K", 4096 as "4K", 1000 as "1000": the spec's own way to write sizes. */
static void s_size_text(uint32_t b, char *buf, size_t len)
{
    if (b >= (1u << 20) && b % (1u << 20) == 0)
        snprintf(buf, len, "%uM", b >> 20);
    else if (b >= 1024 && b % 1024 == 0)
        snprintf(buf, len, "%uK", b >> 10);
    else
        snprintf(buf, len, "%u", b);
}

/* Asked and achievable ratios may differ by this factor (rounding to fio's integer percents). */
#define S_TOLERANCE 1.10
/* The largest chunk: small enough that a 4 KiB record holds a whole chunk, large enough that
 * the compressors' per-chunk overhead is ~1%. */
#define S_CHUNK_MAX 4096u
/* fio's dedup pool: 1% of size, the least fio takes (0 makes it index an empty array). */
#define S_WORKING_SET_PCT 1u
/* ZFS headers in front of compressed data: zstd 8 bytes, lz4 4. */
#define S_ZFS_HDR 8u

/* Compressor bytes per chunk beyond its random part, measured on fio's data: the mean of zstd
 * and lz4 (for the prediction) and lz4 alone (the larger, for ZFS's 1/8 rule). 4 KiB chunks:
 * zstd ~3, lz4 ~20; 512-byte chunks: ~3 and ~6. */
static double s_overhead_mean(unsigned chunk)
{
    return 4.0 + chunk / 512.0;
}
static double s_overhead_lz4(unsigned chunk)
{
    return 4.0 + chunk / 200.0;
}

/* fio's random bytes per chunk: segment * (100 - perc) / 100, truncated (lib/rand.c). */
static unsigned s_random_bytes(unsigned chunk, unsigned c)
{
    return (unsigned)((unsigned long long)chunk * (100 - c) / 100);
}

static double s_compress_predict(unsigned chunk, unsigned c)
{
    if (c == 0)
        return 1.0;
    return chunk / (s_random_bytes(chunk, c) + s_overhead_mean(chunk));
}

/* Whether ZFS stores records of unit bytes made of such chunks compressed: the output with its
 * header must fit in unit - unit/8. */
static int s_zfs_keeps(unsigned chunk, unsigned c, uint32_t unit)
{
    double per_chunk = s_random_bytes(chunk, c) + s_overhead_lz4(chunk);
    return per_chunk * (unit / chunk) + S_ZFS_HDR <= unit - unit / 8;
}

static double s_off(double got, double want)
{
    return fabs(log(got / want));
}

static int s_plan_compress(const lg_datapattern_t *p, unsigned chunk, lg_datapattern_plan_t *out,
                           char *err, size_t errlen)
{
    unsigned best = 0;
    double below = 1.0, above = 0.0;
    for (unsigned c = 1; c < 100; c++) {
        if (!s_zfs_keeps(chunk, c, p->dedup_unit))
            continue; /* stored as 1.0: the same as c = 0 */
        double r = s_compress_predict(chunk, c);
        if (s_off(r, p->compress_ratio) < s_off(s_compress_predict(chunk, best), p->compress_ratio))
            best = c;
        if (r <= p->compress_ratio && r > below)
            below = r;
        if (r >= p->compress_ratio && (above == 0.0 || r < above))
            above = r;
    }
    double got = s_compress_predict(chunk, best);
    if (s_off(got, p->compress_ratio) > log(S_TOLERANCE)) {
        snprintf(err, errlen,
                 "compress ratio %.3g cannot be made within 10%%: the nearest achievable are %.3g "
                 "and %.3g (ZFS keeps a record compressed only when that saves 1/8 of it, and fio "
                 "takes whole percents)",
                 p->compress_ratio, below, above);
        return LG_EPROTO;
    }
    out->compress_pct = best;
    out->compress_expected = got;
    return 0;
}

static int s_plan_dedup(const lg_datapattern_t *p, uint32_t bs, lg_datapattern_plan_t *out,
                        char *err, size_t errlen)
{
    out->dedup_expected = out->dedup_expected_one_pass = 1.0;
    if (p->dedup_ratio == 1.0)
        return 0;
    if (bs % p->dedup_unit) {
        /* The largest unit that would work: the largest power of two that divides bs. */
        uint32_t fit = bs & (~bs + 1);
        char unit[16], fits[16], bss[16];
        s_size_text(p->dedup_unit, unit, sizeof unit);
        s_size_text(fit, fits, sizeof fits);
        s_size_text(bs, bss, sizeof bss);
        snprintf(
            err, errlen,
            "dedup ratio %.3g needs each write to cover whole %s dedup units, but the block "
            "size is %s (fio makes a write a duplicate or not as a whole); set data.dedup_unit "
            "to %s or less if the pool's recordsize or volblocksize is that small, use a "
            "block size that is a multiple of %s, or leave dedup_ratio out",
            p->dedup_ratio, unit, bss, fits, unit);
        return LG_EPROTO;
    }
    /* After overwrites the distinct share is (100 - P)% new data plus the 1% pool, so the ratio
     * is 100/k with k = 101 - P; P = 1 gives 1.0 like no dedupe at all, so k runs from 99 (P =
     * 2) down to 2 (P = 99, the most fio allows beside a 1% pool). best = 0: no dedupe. */
    unsigned best = 0;
    double below = 1.0, above = 0.0, best_d = 1.0;
    for (unsigned k = 99; k >= 2; k--) {
        double d = 100.0 / k;
        if (s_off(d, p->dedup_ratio) < s_off(best_d, p->dedup_ratio)) {
            best = k;
            best_d = d;
        }
        if (d <= p->dedup_ratio && d > below)
            below = d;
        if (d >= p->dedup_ratio && (above == 0.0 || d < above))
            above = d;
    }
    if (s_off(best_d, p->dedup_ratio) > log(S_TOLERANCE)) {
        if (above == 0.0)
            snprintf(err, errlen,
                     "dedup ratio %.3g cannot be made: with fio's smallest dedup pool (1%% of "
                     "size) overwritten data reaches at most 50",
                     p->dedup_ratio);
        else
            snprintf(err, errlen,
                     "dedup ratio %.3g cannot be made within 10%%: the nearest achievable are "
                     "%.3g and %.3g (fio takes whole percents)",
                     p->dedup_ratio, below, above);
        return LG_EPROTO;
    }
    if (best == 0)
        return 0;
    out->dedupe_pct = 101 - best;
    out->working_set_pct = S_WORKING_SET_PCT;
    out->dedup_expected = 100.0 / best;
    out->dedup_expected_one_pass = 100.0 / (best - 1);
    return 0;
}

int lg_datapattern_plan(const lg_datapattern_t *p, uint32_t bs, lg_datapattern_plan_t *out,
                        char *err, size_t errlen)
{
    memset(out, 0, sizeof(*out));
    uint32_t u = p->dedup_unit;
    if (u < 512 || u > (16u << 20) || (u & (u - 1))) {
        snprintf(err, errlen, "dedup unit %u is not a power of two from 512 to 16M", u);
        return LG_EPROTO;
    }
    if (bs == 0) {
        snprintf(err, errlen, "block size 0");
        return LG_EPROTO;
    }
    /* Negated tests so that NaN fails them too. */
    if (!(p->compress_ratio >= 1.0 && p->compress_ratio <= 20.0) ||
        !(p->dedup_ratio >= 1.0 && p->dedup_ratio <= 100.0)) {
        snprintf(err, errlen,
                 "compress ratio %g or dedup ratio %g out of range (1 to 20, 1 to 100)",
                 p->compress_ratio, p->dedup_ratio);
        return LG_EPROTO;
    }
    unsigned chunk = S_CHUNK_MAX;
    if (bs < chunk)
        chunk = bs;
    if (u < chunk)
        chunk = u;
    int rc = s_plan_compress(p, chunk, out, err, errlen);
    if (!rc)
        rc = s_plan_dedup(p, bs, out, err, errlen);
    if (rc) {
        memset(out, 0, sizeof(*out));
        return rc;
    }
    if (out->compress_pct || out->dedupe_pct)
        out->chunk = chunk; /* fio's dedup path also fills chunk by chunk */
    return 0;
}

int lg_datapattern_fio_options(const lg_datapattern_t *p, uint32_t bs, FILE *f, char *err,
                               size_t errlen)
{
    lg_datapattern_plan_t pl;
    int rc = lg_datapattern_plan(p, bs, &pl, err, errlen);
    if (rc)
        return rc;
    fputs("refill_buffers=1\n", f);
    if (pl.compress_pct)
        fprintf(f, "buffer_compress_percentage=%u\n", pl.compress_pct);
    if (pl.chunk)
        fprintf(f, "buffer_compress_chunk=%u\n", pl.chunk);
    if (pl.dedupe_pct)
        fprintf(f,
                "dedupe_percentage=%u\ndedupe_mode=working_set\n"
                "dedupe_working_set_percentage=%u\ndedupe_global=1\n",
                pl.dedupe_pct, pl.working_set_pct);
    if (ferror(f)) {
        snprintf(err, errlen, "could not write the data pattern options");
        return -EIO;
    }
    return 0;
}
