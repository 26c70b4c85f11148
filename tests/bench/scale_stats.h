/* scale_stats.h: what scale_agents' simulated agents send and what they see of the controller:
 * synthetic samples shaped like a busy fio job's second, and the Ping round trips, lateness and
 * silences of a stretch of time with the one-line report controller_scale.sh reads. */
#ifndef SCALE_STATS_H
#define SCALE_STATS_H

#include <stdint.h>

#include "lg_stats.h"

/* A registered agent that hears nothing (no Pong, no beat) for this many heartbeats says so. */
#define SCALE_SILENT_BEATS 3
/* Ping round trips by whole ms; the last slot takes 10 s and more. */
#define SCALE_RTT_SLOTS 10001

/* What the agents saw of the controller over a stretch of time. */
typedef struct {
    uint64_t pongs;
    uint64_t rtt_sum_us, rtt_max_us;
    uint32_t rtt_ms[SCALE_RTT_SLOTS];
    uint64_t late_ms;  /* the latest a heartbeat went out after it was due: our own lag */
    uint64_t silences; /* an agent heard nothing from the controller for SCALE_SILENT_BEATS */
} scale_seen_t;

/* A Pong came back rtt_us after its Ping. */
void scale_seen_rtt(scale_seen_t *w, uint64_t rtt_us);
/* A heartbeat went out late_ms after it was due. */
void scale_seen_late(scale_seen_t *w, uint64_t late_ms);
/* "scale_agents: WHAT: N Pongs, round trip mean ... p99 ... ms; heartbeats up to ... ms late; N
 * times an agent heard nothing for 3 heartbeats" on stdout, flushed. */
void scale_seen_print(const char *what, const scale_seen_t *w);

/* Sample seq of an agent into *st (bins buckets), deterministic in (seed, agent, seq): the same
 * sample again for a resend. */
void scale_make_stats(uint64_t seed, unsigned bins, uint32_t agent, uint64_t seq,
                      lg_dirstats_t *st);
/* Add a sample's figures and histogram to a run's total t. */
void scale_total_add(lg_dirstats_t *t, const lg_dirstats_t *s);

#endif
