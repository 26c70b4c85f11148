/* lg_search.c: what the latency-bounded search probes next (lg_search.h). Stateless: the next
 * load follows from the probes so far, whatever happened in between (a restart, a take-up). */
#include <string.h>

#include "lg_search.h"

static const char *const s_metric_names[LG_SMETRIC_NR] = {
    "lat_avg_ms", "p50_ms", "p90_ms", "p95_ms", "p99_ms", "p99_9_ms", "lat_max_ms"};
static const double s_metric_pct[LG_SMETRIC_NR] = {0, 50, 90, 95, 99, 99.9, 100};

const char *lg_smetric_name(lg_smetric_t m)
{
    return (unsigned)m < LG_SMETRIC_NR ? s_metric_names[m] : "?";
}

double lg_smetric_pct(lg_smetric_t m)
{
    return (unsigned)m < LG_SMETRIC_NR ? s_metric_pct[m] : 0;
}

int lg_smetric_parse(const char *s)
{
    if (!strcmp(s, "mean_ms") || !strcmp(s, "avg_ms"))
        return LG_SMETRIC_MEAN;
    if (!strcmp(s, "max_ms"))
        return LG_SMETRIC_MAX;
    if (!strcmp(s, "p999_ms"))
        return LG_SMETRIC_P999;
    for (int i = 0; i < LG_SMETRIC_NR; i++)
        if (!strcmp(s, s_metric_names[i]))
            return i;
    return -1;
}

const char *lg_vary_name(lg_vary_t v)
{
    return v == LG_VARY_THREADS ? "threads" : v == LG_VARY_RATE ? "rate" : "qd";
}

int lg_vary_parse(const char *s)
{
    return !strcmp(s, "qd")        ? LG_VARY_QD
           : !strcmp(s, "threads") ? LG_VARY_THREADS
           : !strcmp(s, "rate")    ? LG_VARY_RATE
                                   : -1;
}

const char *lg_search_state_name(lg_search_state_t st)
{
    switch (st) {
    case LG_SEARCH_KNEE:
        return "knee";
    case LG_SEARCH_NOT_REACHED:
        return "not-reached";
    case LG_SEARCH_FIRST_OVER:
        return "first-over";
    case LG_SEARCH_STEPS:
        return "steps";
    case LG_SEARCH_FAILED:
        return "failed";
    default:
        return "probing";
    }
}

uint32_t lg_search_probes_max(const lg_search_t *s)
{
    return s->steps * (1 + s->confirm);
}

uint32_t lg_search_first(const lg_search_t *s)
{
    return s->vary == LG_VARY_RATE ? 0 : s->min;
}

/* A probe's place on the load axis: its load, or for an unpaced rate probe the rate it reached
 * (the most that can be offered at this concurrency). */
static uint64_t s_key(const lg_search_t *s, const lg_probe_t *p)
{
    if (s->vary == LG_VARY_RATE && p->load == 0)
        return p->iops >= 1 ? (uint64_t)(p->iops + 0.5) : 1;
    return p->load;
}

static uint32_t s_trial(const lg_probe_t *p)
{
    return p->trial ? p->trial : 1;
}

bool lg_search_counts(const lg_probe_t *p, size_t n, size_t i)
{
    return i + 1 >= n || s_trial(&p[i + 1]) != s_trial(&p[i]) + 1;
}

/* The bracket of the probes that count: the lowest load over the limit (bad) and the highest
 * under it below that (good). Returns 1 when a probe failed. */
static int s_bracket(const lg_search_t *s, const lg_probe_t *p, size_t n, lg_search_step_t *out)
{
    int failed = 0;
    for (size_t i = 0; i < n; i++) {
        if (!p[i].ok) {
            failed = 1;
            continue;
        }
        if (lg_search_counts(p, n, i) && p[i].value_ms > s->limit_ms &&
            (out->bad < 0 || s_key(s, &p[i]) < s_key(s, &p[out->bad])))
            out->bad = (int)i;
    }
    uint64_t hi = out->bad >= 0 ? s_key(s, &p[out->bad]) : UINT64_MAX;
    for (size_t i = 0; i < n; i++)
        if (p[i].ok && lg_search_counts(p, n, i) && p[i].value_ms <= s->limit_ms &&
            s_key(s, &p[i]) < hi && (out->good < 0 || s_key(s, &p[i]) > s_key(s, &p[out->good])))
            out->good = (int)i;
    return failed;
}

/* The next load from the bracket (out->state set when there is none). */
static uint64_t s_next(const lg_search_t *s, const lg_probe_t *p, size_t n, lg_search_step_t *out)
{
    int rate = s->vary == LG_VARY_RATE;
    uint64_t lo = out->good >= 0 ? s_key(s, &p[out->good]) : 0;
    uint64_t hi = out->bad >= 0 ? s_key(s, &p[out->bad]) : UINT64_MAX;
    if (out->bad < 0) {
        /* Under the limit everywhere so far: double, up to max. Unpaced and still under it: no
         * rate reaches the limit at this concurrency. */
        uint64_t max = s->max ? s->max : UINT32_MAX;
        if (rate || lo >= max) {
            out->state = LG_SEARCH_NOT_REACHED;
            return 0;
        }
        return lo * 2 < max ? lo * 2 : max;
    }
    if (out->good < 0 && !(rate && s->min == 0)) {
        /* Nothing under the limit yet: the lowest load comes first (rate: after the unpaced
         * probe); over the limit there already, the search is over. */
        int probed_min = 0;
        for (size_t i = 0; i < n; i++)
            probed_min |= p[i].load == s->min && (!rate || p[i].load != 0);
        if (probed_min || (uint64_t)s->min >= hi) {
            out->state = LG_SEARCH_FIRST_OVER;
            return 0;
        }
        return s->min;
    }
    /* A bracket (rate from 0: 0 counts as under the limit). */
    uint64_t width = hi - lo;
    int narrow =
        rate ? (width <= 1 || width * 100 <= (uint64_t)s->resolution_pct * hi) : width <= 1;
    if (narrow) {
        out->state = out->good >= 0 ? LG_SEARCH_KNEE : LG_SEARCH_FIRST_OVER;
        return 0;
    }
    return lo > 0 && lo * 2 < hi ? lo * 2 : lo + width / 2;
}

void lg_search_next(const lg_search_t *s, const lg_probe_t *p, size_t n, lg_search_step_t *out)
{
    out->state = LG_SEARCH_PROBE;
    out->next_load = lg_search_first(s);
    out->next_trial = 1;
    out->good = out->bad = -1;
    if (n == 0)
        return;
    if (s_bracket(s, p, n, out)) {
        out->state = LG_SEARCH_FAILED;
        return;
    }
    /* The last trial was over the limit: try its load again before acting on it (a stall of the
     * target or the load host for one trial is not the target's limit). */
    const lg_probe_t *last = &p[n - 1];
    if (last->value_ms > s->limit_ms && s_trial(last) <= s->confirm) {
        out->next_load = last->load;
        out->next_trial = s_trial(last) + 1;
        return;
    }
    uint64_t next = s_next(s, p, n, out);
    if (out->state != LG_SEARCH_PROBE)
        return;
    size_t loads = 0;
    for (size_t i = 0; i < n; i++) {
        loads += s_trial(&p[i]) == 1;
        if (lg_search_counts(p, n, i) && s_key(s, &p[i]) == next) { /* nothing new to learn */
            out->state = out->good >= 0 ? LG_SEARCH_KNEE : LG_SEARCH_FIRST_OVER;
            return;
        }
    }
    if (loads >= s->steps) {
        out->state = LG_SEARCH_STEPS;
        return;
    }
    out->next_load = (uint32_t)next;
}
