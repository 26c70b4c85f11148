/* scale_stats.c: see scale_stats.h. */
#include "scale_stats.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>

void scale_seen_rtt(scale_seen_t *w, uint64_t rtt_us)
{
    uint64_t ms = rtt_us / 1000;
    w->pongs++;
    w->rtt_sum_us += rtt_us;
    if (rtt_us > w->rtt_max_us)
        w->rtt_max_us = rtt_us;
    w->rtt_ms[ms < SCALE_RTT_SLOTS ? ms : SCALE_RTT_SLOTS - 1]++;
}

void scale_seen_late(scale_seen_t *w, uint64_t late_ms)
{
    if (late_ms > w->late_ms)
        w->late_ms = late_ms;
}

static unsigned s_rtt_pct(const scale_seen_t *w, double p)
{
    uint64_t want = (uint64_t)ceil(p / 100.0 * (double)w->pongs), cum = 0;
    for (unsigned i = 0; i < SCALE_RTT_SLOTS; i++)
        if ((cum += w->rtt_ms[i]) >= want && cum > 0)
            return i;
    return 0;
}

void scale_seen_print(const char *what, const scale_seen_t *w)
{
    printf("scale_agents: %s: %llu Pongs, round trip mean %.1f ms, p50 %u ms, p99 %u ms, max "
           "%.1f ms; heartbeats up to %llu ms late; %llu times an agent heard nothing for %d "
           "heartbeats\n",
           what, (unsigned long long)w->pongs,
           w->pongs ? (double)w->rtt_sum_us / (double)w->pongs / 1000.0 : 0.0, s_rtt_pct(w, 50),
           s_rtt_pct(w, 99), (double)w->rtt_max_us / 1000.0, (unsigned long long)w->late_ms,
           (unsigned long long)w->silences, SCALE_SILENT_BEATS);
    fflush(stdout);
}

static uint64_t s_rand(uint64_t *st)
{
    /* splitmix64: the same sample again for a resend, cheap next to what is measured. */
    uint64_t z = (*st += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Sample seq of an agent, shaped like a busy fio job's second: bins consecutive buckets around a
 * median of 100..800 us (by agent), bell-shaped counts with +-20% noise, none empty, and the
 * figures (ios, bytes, lat_*) that histogram implies. Deterministic in (seed, agent, seq). */
void scale_make_stats(uint64_t seed, unsigned bins, uint32_t agent, uint64_t seq, lg_dirstats_t *st)
{
    uint64_t r = seed * 0x100000001B3ull ^ ((uint64_t)agent << 32) ^ seq;
    unsigned nb = bins;
    unsigned mid = lg_hist_idx(100000 + (uint64_t)(agent % 8) * 100000);
    unsigned lo = mid > nb / 2 ? mid - nb / 2 : 0;
    if (lo + nb > LG_HIST_NR)
        lo = LG_HIST_NR - nb;
    double sigma = nb / 6.0;
    lg_dirstats_init(st);
    st->has_hist = true;
    double sum = 0, sumsq = 0;
    uint64_t n = 0;
    for (unsigned i = 0; i < nb; i++) {
        double x = ((double)i - nb / 2.0) / sigma;
        double noise = 0.8 + 0.4 * (double)(s_rand(&r) >> 11) / 9007199254740992.0;
        uint64_t c = 1 + (uint64_t)(2000.0 * exp(-x * x / 2) * noise);
        double v = (double)lg_hist_val(lo + i);
        st->hist.bins[lo + i] = c;
        n += c;
        sum += (double)c * v;
        sumsq += (double)c * v * v;
    }
    st->ios = st->lat_n = n;
    st->bytes = n * 4096;
    st->runtime_ms = 1000;
    st->iops = (double)n;
    st->bw_bytes = (double)st->bytes;
    st->lat_min = lg_hist_val(lo);
    st->lat_max = lg_hist_val(lo + nb - 1);
    st->lat_sum = sum;
    st->lat_sumsq = sumsq;
    st->lat_mean = sum / (double)n;
    double var = (sumsq - (double)n * st->lat_mean * st->lat_mean) / (double)(n - 1);
    st->lat_stddev = var > 0 ? sqrt(var) : 0;
}

void scale_total_add(lg_dirstats_t *t, const lg_dirstats_t *s)
{
    if (t->lat_n == 0 || s->lat_min < t->lat_min)
        t->lat_min = s->lat_min;
    if (s->lat_max > t->lat_max)
        t->lat_max = s->lat_max;
    t->ios += s->ios;
    t->bytes += s->bytes;
    t->runtime_ms += s->runtime_ms;
    t->lat_n += s->lat_n;
    t->lat_sum += s->lat_sum;
    t->lat_sumsq += s->lat_sumsq;
    t->has_hist = true;
    for (unsigned i = 0; i < LG_HIST_NR; i++)
        t->hist.bins[i] += s->hist.bins[i];
}
