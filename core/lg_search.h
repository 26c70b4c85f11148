/* lg_search.h: the latency-bounded load search (a profile's search: key). The controller raises
 * the load of a profile's probes until a merged latency metric passes a limit: doubling from
 * the lowest load until a probe passes it, then bisecting between the highest load that stayed
 * under it and the lowest that passed it. A probe over the limit is tried again at the same load
 * (confirm: times, as RFC 2544 repeats its trials) before the search acts on it: a load is over
 * only when every trial there was. What to probe next is a pure function of the probes so far
 * (lg_search_next): the probes are stored runs, so a controller that restarts goes on from what
 * the database holds, and the stepping is tested without a controller. */
#ifndef LG_SEARCH_H
#define LG_SEARCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What the search varies: QD per thread (threads fixed), threads (QD fixed) or the offered rate
 * in IOPS over all agents (threads x QD fixed; the first probe runs unpaced, to learn the most
 * the target gives). */
typedef enum { LG_VARY_QD = 0, LG_VARY_THREADS = 1, LG_VARY_RATE = 2 } lg_vary_t;

/* The latency metric compared with the limit, of all I/Os of a probe merged over its agents
 * (reads and writes together). */
typedef enum {
    LG_SMETRIC_MEAN = 0, /* lat_avg_ms */
    LG_SMETRIC_P50,
    LG_SMETRIC_P90,
    LG_SMETRIC_P95,
    LG_SMETRIC_P99,
    LG_SMETRIC_P999,
    LG_SMETRIC_MAX,
    LG_SMETRIC_NR
} lg_smetric_t;

typedef struct {
    bool on;
    lg_smetric_t metric;
    double limit_ms; /* > 0 */
    lg_vary_t vary;
    uint32_t min, max;       /* bounds of the varied load (rate: IOPS; min 0 = bisect from 0) */
    uint32_t steps;          /* at most this many probes */
    uint32_t resolution_pct; /* rate: stop when the bracket is narrower than this % of its top */
    uint32_t threads, qd;    /* the fixed part of the load (the varied one is ignored) */
    uint32_t runtime_s;      /* each probe's runtime; 0: the campaign's */
    uint32_t confirm;        /* trials more at a load whose trial was over the limit (0..3) */
} lg_search_t;

/* The most confirm: can be; the plan holds steps x (1 + confirm) probes. */
#define LG_SEARCH_CONFIRM_MAX 3

/* One probe that ran: its load (rate: offered IOPS, 0 = unpaced), its trial at that load, and
 * what it measured. */
typedef struct {
    uint32_t load;
    bool ok;         /* it gave a result (else the search ends, failed) */
    double value_ms; /* the metric */
    double iops;     /* all I/Os per second, merged */
    uint32_t trial;  /* 1: the first at its load; k > 1: a repeat of the probe before it (0 reads
                      * as 1) */
} lg_probe_t;

typedef enum {
    LG_SEARCH_PROBE = 0,   /* run next_load next */
    LG_SEARCH_KNEE,        /* found: good < bad, closer than the resolution */
    LG_SEARCH_NOT_REACHED, /* the limit held up to max */
    LG_SEARCH_FIRST_OVER,  /* the first load already passed the limit */
    LG_SEARCH_STEPS,       /* out of steps: the bracket found so far */
    LG_SEARCH_FAILED       /* a probe gave no result */
} lg_search_state_t;

typedef struct {
    lg_search_state_t state;
    uint32_t next_load;  /* LG_SEARCH_PROBE */
    uint32_t next_trial; /* LG_SEARCH_PROBE: 1 a new load, > 1 a repeat of the last probe */
    int good;            /* index of the highest load under the limit (below bad); -1 none */
    int bad;             /* index of the lowest load over the limit; -1 none */
} lg_search_step_t;

/* The most probes a search can run: steps loads, each tried up to 1 + confirm times. */
uint32_t lg_search_probes_max(const lg_search_t *s);
/* The first load probed: min (rate: 0, unpaced). */
uint32_t lg_search_first(const lg_search_t *s);
/* Given the probes so far (in the order they ran), what comes next, and the bracket. The last
 * probe over the limit with fewer than 1 + confirm trials at its load: its load again (a repeat).
 * Otherwise only the last trial at each load counts (the one the search acts on: a load is over
 * only if all its trials were, as a repeat is run only after a trial over it); good and bad are
 * such trials; steps counts loads, not repeats. */
void lg_search_next(const lg_search_t *s, const lg_probe_t *p, size_t n, lg_search_step_t *out);
/* Does probe i of the n count, i.e. is it not followed by a repeat at its load? */
bool lg_search_counts(const lg_probe_t *p, size_t n, size_t i);
/* "knee", "not-reached", "first-over", "steps", "failed", "probing" */
const char *lg_search_state_name(lg_search_state_t st);
/* "lat_avg_ms", "p50_ms", ..., the names lg.metric uses; lg_smetric_parse the reverse (also
 * "mean_ms", "avg_ms"); -1 if unknown. */
const char *lg_smetric_name(lg_smetric_t m);
int lg_smetric_parse(const char *s);
/* "qd", "threads", "rate"; parse: -1 if unknown */
const char *lg_vary_name(lg_vary_t v);
int lg_vary_parse(const char *s);
/* The metric's percentile (50, 90, ..., 99.9) or 0 for mean, 100 for max. */
double lg_smetric_pct(lg_smetric_t m);

#endif
