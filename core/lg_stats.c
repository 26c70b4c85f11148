/* lg_stats.c: fio's latency histogram and the arithmetic that merges and differences
 * per-direction statistics. The histogram functions copy fio 3.33 stat.c so that a percentile
 * lg computes from fio's json+ bins is the number fio itself prints. */
#include "lg_stats.h"

#include "lg_error.h"

#include <math.h>
#include <string.h>

const double lg_pct_list[LG_NPCT] = {1,  5,  10, 20, 30,   40,   50,    60,   70,
                                     80, 90, 95, 99, 99.5, 99.9, 99.95, 99.99};

/* fio's plat_val_to_idx(): the group is chosen by the value's most significant bit, the bucket
 * within it by the LG_HIST_BITS bits below; values past the last group land in the last bucket. */
unsigned lg_hist_idx(uint64_t val_ns)
{
    unsigned msb, error_bits, base, offset, idx;

    if (val_ns == 0)
        msb = 0;
    else
        msb = (unsigned)(sizeof(unsigned long long) * 8) - (unsigned)__builtin_clzll(val_ns) - 1;

    /* fio compares with <= PLAT_BITS, so values below 2 * PLAT_VAL are their own index. */
    if (msb <= LG_HIST_BITS)
        return (unsigned)val_ns;

    error_bits = msb - LG_HIST_BITS;
    base = (error_bits + 1) << LG_HIST_BITS;
    offset = (unsigned)((LG_HIST_VAL - 1) & (val_ns >> error_bits));
    idx = (base + offset) < (LG_HIST_NR - 1) ? (base + offset) : (LG_HIST_NR - 1);
    return idx;
}

/* fio's plat_idx_to_val(): the mean of the bucket's range, computed in double and truncated, as
 * fio does (so it is the key json+ prints). fio asserts on a bad index; we clamp instead because
 * the index may come from a caller's arithmetic, not only from our own histograms. */
uint64_t lg_hist_val(unsigned idx)
{
    unsigned error_bits;
    unsigned long long k, base;

    if (idx >= LG_HIST_NR)
        idx = LG_HIST_NR - 1;
    if (idx < (LG_HIST_VAL << 1))
        return idx;

    error_bits = (idx >> LG_HIST_BITS) - 1;
    base = 1ULL << (error_bits + LG_HIST_BITS);
    k = idx % LG_HIST_VAL;
    return (uint64_t)(base + ((k + 0.5) * (1 << error_bits)));
}

static size_t s_leb128(uint64_t v, uint8_t *out)
{
    size_t n = 0;
    do {
        uint8_t b = v & 0x7f;
        v >>= 7;
        out[n++] = b | (v ? 0x80 : 0);
    } while (v);
    return n;
}

size_t lg_hist_pack(const lg_hist_t *h, uint8_t *out)
{
    size_t n = 0;
    out[n++] = 1;
    long prev = -1;
    for (unsigned i = 0; i < LG_HIST_NR; i++) {
        if (!h->bins[i])
            continue;
        uint64_t gap = (uint64_t)((long)i - prev - 1);
        uint64_t count = h->bins[i] < (1ull << 61) ? h->bins[i] : (1ull << 61) - 1;
        /* gap and count in one varint when the gap is under 7 (fio's buckets are mostly
         * contiguous), else 7 there and the rest of the gap after */
        n += s_leb128(count << 3 | (gap < 7 ? gap : 7), out + n);
        if (gap >= 7)
            n += s_leb128(gap - 7, out + n);
        prev = (long)i;
    }
    return n;
}

void lg_hex_bytea(const uint8_t *in, size_t len, char *out)
{
    static const char hex[] = "0123456789abcdef";
    size_t n = 0;
    out[n++] = '\\'; /* COPY text: a backslash is written twice */
    out[n++] = '\\';
    out[n++] = 'x';
    for (size_t i = 0; i < len; i++) {
        out[n++] = hex[in[i] >> 4];
        out[n++] = hex[in[i] & 15];
    }
    out[n] = 0;
}

static int s_unleb128(const uint8_t *in, size_t len, size_t *pos, uint64_t *v)
{
    *v = 0;
    for (unsigned shift = 0; shift < 64; shift += 7) {
        if (*pos >= len)
            return LG_EPARSE;
        uint8_t b = in[(*pos)++];
        *v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80))
            return 0;
    }
    return LG_EPARSE;
}

/* A minimal varint: no final byte 0 after a continuation (0x80 0x00 spells 0 twice as long),
 * no bits past the 64th. */
static int s_unleb128_min(const uint8_t *in, size_t len, size_t *pos, uint64_t *v)
{
    size_t start = *pos;
    if (s_unleb128(in, len, pos, v))
        return LG_EPARSE;
    if (*pos - start > 1 && in[*pos - 1] == 0)
        return LG_EPARSE;
    if (*pos - start == 10 && in[*pos - 1] > 1)
        return LG_EPARSE;
    return 0;
}

/* Walk a packed histogram into h (if not NULL). strict: only what lg_hist_pack makes (minimal
 * varints, no empty bucket). */
static int s_hist_walk(const uint8_t *in, size_t len, int strict, lg_hist_t *h)
{
    int (*next)(const uint8_t *, size_t, size_t *, uint64_t *) =
        strict ? s_unleb128_min : s_unleb128;
    if (len < 1 || in[0] != 1)
        return LG_EPARSE;
    size_t pos = 1;
    uint64_t idx = (uint64_t)-1;
    while (pos < len) {
        uint64_t v, gap;
        if (next(in, len, &pos, &v) || (strict && (v >> 3) == 0))
            return LG_EPARSE;
        gap = v & 7;
        if (gap == 7) {
            uint64_t more;
            if (next(in, len, &pos, &more) || more >= LG_HIST_NR)
                return LG_EPARSE;
            gap += more;
        }
        idx += gap + 1;
        if (idx >= LG_HIST_NR)
            return LG_EPARSE;
        if (h)
            h->bins[idx] = v >> 3;
    }
    return 0;
}

int lg_hist_unpack(const uint8_t *in, size_t len, lg_hist_t *h)
{
    memset(h, 0, sizeof *h);
    return s_hist_walk(in, len, 0, h);
}

int lg_hist_unpack_strict(const uint8_t *in, size_t len, lg_hist_t *h)
{
    memset(h, 0, sizeof *h);
    return s_hist_walk(in, len, 1, h);
}

int lg_hist_packed_check(const uint8_t *in, size_t len)
{
    return s_hist_walk(in, len, 1, NULL);
}

uint64_t lg_hist_total(const lg_hist_t *h)
{
    uint64_t total = 0;

    for (unsigned i = 0; i < LG_HIST_NR; i++)
        total += h->bins[i];
    return total;
}

/* fio's calc_clat_percentiles() for a single p. The source compares
 *     sum >= (long double)p / 100.0 * nr
 * but fio is built with -ffast-math (Makefile OPTFLAGS), and the fio-3.33 x86-64 binary
 * computes nr * 0.01L once, outside the loop, then multiplies by p, all in x87 extended
 * precision. The roundings differ from the source's: with 6000 samples the 60th percentile
 * threshold is exactly 3600 in fio's order but 3600.0000000000000002 in the source's, which picks
 * the next bucket. We copy the binary so that lg's percentiles are the ones fio printed. */
static long double s_pct_threshold(double p, uint64_t total)
{
    long double nr_pct = (long double)total * 0.01L;

    return (long double)p * nr_pct;
}

uint64_t lg_hist_percentile(const lg_hist_t *h, double p)
{
    uint64_t total = lg_hist_total(h);
    unsigned long long sum = 0;
    unsigned last = 0;
    long double threshold;

    if (total == 0)
        return 0;
    threshold = s_pct_threshold(p, total);
    for (unsigned i = 0; i < LG_HIST_NR; i++) {
        if (h->bins[i] == 0)
            continue;
        sum += h->bins[i];
        last = i;
        if ((long double)sum >= threshold)
            return lg_hist_val(i);
    }
    /* Only p > 100 or NaN gets here; fio logs an error, we answer with the highest bucket. */
    return lg_hist_val(last);
}

void lg_dirstats_init(lg_dirstats_t *s)
{
    memset(s, 0, sizeof(*s));
}

void lg_dirstats_derive_sums(lg_dirstats_t *s)
{
    double n = (double)s->lat_n;

    if (s->lat_n == 0) {
        s->lat_sum = 0;
        s->lat_sumsq = 0;
        return;
    }
    s->lat_sum = s->lat_mean * n;
    s->lat_sumsq = s->lat_stddev * s->lat_stddev * (n - 1) + n * s->lat_mean * s->lat_mean;
}

/* Mean and sample standard deviation from (N, sum, sum of squares). The subtraction can go
 * slightly negative through rounding when the spread is tiny against the mean: clamp to 0. */
static void s_mean_stddev(lg_dirstats_t *s)
{
    double n = (double)s->lat_n;
    double var;

    s->lat_mean = 0;
    s->lat_stddev = 0;
    if (s->lat_n == 0)
        return;
    s->lat_mean = s->lat_sum / n;
    if (s->lat_n < 2)
        return;
    var = (s->lat_sumsq - n * s->lat_mean * s->lat_mean) / (n - 1);
    s->lat_stddev = var > 0 ? sqrt(var) : 0;
}

void lg_dirstats_merge(lg_dirstats_t *out, const lg_dirstats_t *const *list, size_t n)
{
    /* Built aside so that out may be one of the inputs. */
    lg_dirstats_t acc;
    bool any_hist = false, all_hist = true, any_lat = false;

    if (n == 1) {
        if (out != list[0])
            memcpy(out, list[0], sizeof(*out));
        return;
    }
    lg_dirstats_init(&acc);
    for (size_t i = 0; i < n; i++) {
        const lg_dirstats_t *s = list[i];

        acc.ios += s->ios;
        acc.bytes += s->bytes;
        acc.iops += s->iops;
        acc.bw_bytes += s->bw_bytes;
        if (s->runtime_ms > acc.runtime_ms)
            acc.runtime_ms = s->runtime_ms;
        acc.lat_n += s->lat_n;
        acc.lat_sum += s->lat_sum;
        acc.lat_sumsq += s->lat_sumsq;
        if (s->lat_n > 0) {
            if (!any_lat || s->lat_min < acc.lat_min)
                acc.lat_min = s->lat_min;
            any_lat = true;
            if (!s->has_hist)
                all_hist = false;
        }
        if (s->lat_max > acc.lat_max)
            acc.lat_max = s->lat_max;
        if (s->has_hist) {
            any_hist = true;
            for (unsigned b = 0; b < LG_HIST_NR; b++)
                acc.hist.bins[b] += s->hist.bins[b];
        }
    }
    s_mean_stddev(&acc);
    /* A histogram missing one job's samples would give wrong percentiles: rather none. An
     * input without samples has no bins in fio's output, so it does not spoil the others. */
    acc.has_hist = any_hist && all_hist;
    if (!acc.has_hist)
        memset(&acc.hist, 0, sizeof(acc.hist));
    memcpy(out, &acc, sizeof(*out));
}

/* True when any cumulative figure of cur is below prev: fio restarted its counters. */
static bool s_went_backwards(const lg_dirstats_t *cur, const lg_dirstats_t *prev)
{
    if (cur->ios < prev->ios || cur->bytes < prev->bytes || cur->lat_n < prev->lat_n ||
        cur->runtime_ms < prev->runtime_ms)
        return true;
    if (cur->has_hist && prev->has_hist) {
        for (unsigned b = 0; b < LG_HIST_NR; b++)
            if (cur->hist.bins[b] < prev->hist.bins[b])
                return true;
    }
    return false;
}

void lg_dirstats_delta(lg_dirstats_t *out, const lg_dirstats_t *cur, const lg_dirstats_t *prev)
{
    lg_dirstats_t d;
    bool reset = s_went_backwards(cur, prev);

    lg_dirstats_init(&d);
    if (reset) {
        d.ios = cur->ios;
        d.bytes = cur->bytes;
        d.runtime_ms = cur->runtime_ms;
        d.lat_n = cur->lat_n;
        d.lat_sum = cur->lat_sum;
        d.lat_sumsq = cur->lat_sumsq;
        d.has_hist = cur->has_hist;
        if (d.has_hist)
            memcpy(&d.hist, &cur->hist, sizeof(d.hist));
    } else {
        d.ios = cur->ios - prev->ios;
        d.bytes = cur->bytes - prev->bytes;
        d.runtime_ms = cur->runtime_ms - prev->runtime_ms;
        d.lat_n = cur->lat_n - prev->lat_n;
        d.lat_sum = cur->lat_sum - prev->lat_sum;
        d.lat_sumsq = cur->lat_sumsq - prev->lat_sumsq;
        /* fio prints no bins while N is 0, so a previous report without samples is an empty
         * histogram, not an unknown one. */
        d.has_hist = cur->has_hist && (prev->has_hist || prev->lat_n == 0);
        if (d.has_hist) {
            for (unsigned b = 0; b < LG_HIST_NR; b++)
                d.hist.bins[b] = cur->hist.bins[b] - (prev->has_hist ? prev->hist.bins[b] : 0);
        }
    }
    if (d.lat_n == 0) {
        /* Rounding in the printed means can leave crumbs in the sums of an idle interval. */
        d.lat_sum = 0;
        d.lat_sumsq = 0;
    }
    s_mean_stddev(&d);

    if (reset && d.lat_n > 0) {
        /* Everything since the reset is in cur, so its own extremes are exact. */
        d.lat_min = cur->lat_min;
        d.lat_max = cur->lat_max;
    } else if (d.has_hist) {
        unsigned lo = LG_HIST_NR, hi = 0;

        for (unsigned b = 0; b < LG_HIST_NR; b++) {
            if (d.hist.bins[b] == 0)
                continue;
            if (lo == LG_HIST_NR)
                lo = b;
            hi = b;
        }
        if (lo < LG_HIST_NR) {
            d.lat_min = lg_hist_val(lo);
            d.lat_max = lg_hist_val(hi);
        }
    }
    memcpy(out, &d, sizeof(*out));
}
