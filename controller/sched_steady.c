/* sched_steady.c: a run's samples as they arrive: lgctl watch's live figures, and the steady state
 * of a preconditioning run judged round by round (lg_steady.h); an application run's per-second
 * reports, stored and acknowledged one by one. */
#include <jansson.h>
#include <stdlib.h>

#include "lg_error.h"
#include "lg_log.h"
#include "lg_spec.h"
#include "lg_steady.h"
#include "row.h"
#include "sched_int.h"
#include "sched_jobs.h"

/* Count one sample of agent ra into its rounds; returns 1 if a new overall round completed. */
static void s_count_sample(lg_ctrl_t *c, lg_run_agent_t *ra, uint64_t seq, uint64_t interval_ms,
                           uint64_t ios)
{
    lg_current_t *cur = &c->cur;
    if (cur->run_phase != LG_PHASE_STEADY || cur->round_s == 0 || seq <= ra->seq_done)
        return;
    ra->seq_done = seq;
    uint64_t round_ms = (uint64_t)cur->round_s * 1000;
    /* A sample belongs to the round its midpoint falls in. */
    size_t r = (size_t)((ra->elapsed_ms + interval_ms / 2) / round_ms);
    ra->elapsed_ms += interval_ms;
    if (r >= ra->nround) {
        double *n = realloc(ra->round_ios, (r + 1) * sizeof *n);
        if (!n)
            return;
        for (size_t i = ra->nround; i <= r; i++)
            n[i] = 0;
        ra->round_ios = n;
        ra->nround = r + 1;
    }
    ra->round_ios[r] += (double)ios;
}

void lg__sched_steady_json(lg_ctrl_t *c, const lg_steady_t *w, char **out)
{
    json_t *o = json_object(), *rounds = json_array();
    for (size_t i = 0; i < c->cur.nrounds; i++)
        json_array_append_new(rounds, json_real(c->cur.rounds[i]));
    json_object_set_new(o, "round_s", json_integer(c->cur.round_s));
    json_object_set_new(o, "rounds_iops", rounds);
    json_object_set_new(o, "window", json_integer((json_int_t)w->n));
    json_object_set_new(o, "mean", json_real(w->mean));
    json_object_set_new(o, "min", json_real(w->min));
    json_object_set_new(o, "max", json_real(w->max));
    json_object_set_new(o, "range", json_real(w->range));
    json_object_set_new(o, "slope", json_real(w->slope));
    json_object_set_new(o, "excursion", json_real(w->excursion));
    json_object_set_new(o, "range_ok", json_boolean(w->range_ok));
    json_object_set_new(o, "slope_ok", json_boolean(w->slope_ok));
    *out = json_dumps(o, JSON_COMPACT);
    json_decref(o);
}

/* Rounds every agent has completed become overall rounds; judge the window after each. */
static void s_steady_advance(lg_ctrl_t *c)
{
    lg_current_t *cur = &c->cur;
    if (cur->run_phase != LG_PHASE_STEADY || cur->ss_reached || cur->phase != PH_RUNNING)
        return;
    uint64_t round_ms = (uint64_t)cur->round_s * 1000;
    for (;;) {
        size_t r = cur->nrounds;
        double ios = 0;
        int counted = 0;
        for (size_t i = 0; i < cur->nra; i++) {
            lg_run_agent_t *ra = &cur->ra[i];
            if (ra->state == RA_FAILED)
                continue;
            /* Complete once the agent's samples cover the round's end (half a sample late). */
            if (ra->elapsed_ms < (r + 1) * round_ms - 500)
                return;
            ios += r < ra->nround ? ra->round_ios[r] : 0;
            counted++;
        }
        if (!counted)
            return;
        double *n = realloc(cur->rounds, (r + 1) * sizeof *n);
        if (!n)
            return;
        cur->rounds = n;
        cur->rounds[r] = ios / cur->round_s;
        cur->nrounds = r + 1;
        lg_steady_t w;
        lg_steady_judge(cur->rounds, cur->nrounds, &w);
        lg_info("run %llu: round %zu: %.0f IOPS (window mean %.0f, range %.1f%%, excursion "
                "%.1f%%)",
                (unsigned long long)cur->run_id, cur->nrounds, cur->rounds[r], w.mean,
                w.mean > 0 ? 100 * w.range / w.mean : 0,
                w.mean > 0 ? 100 * w.excursion / w.mean : 0);
        if (w.reached) {
            cur->ss_reached = 1;
            lg_info("run %llu: steady state reached after %zu rounds",
                    (unsigned long long)cur->run_id, cur->nrounds);
            for (size_t i = 0; i < cur->nra; i++)
                if (cur->ra[i].state == RA_RUNNING)
                    lg__sched_send_stop(c, &cur->ra[i]);
            return;
        }
    }
}

void lg__sched_on_sample(lg_ctrl_t *c, size_t conn, const Lg__Sample *s)
{
    lg_run_agent_t *ra = lg__sched_find_ra(c, conn);
    if (!ra || s->run_id != c->cur.run_id)
        return;
    uint64_t ios = 0, bytes = 0, n = 0;
    double lat = 0;
    for (size_t i = 0; i < s->n_dirs; i++) {
        ios += s->dirs[i]->ios;
        bytes += s->dirs[i]->bytes;
        n += s->dirs[i]->lat_n;
        lat += s->dirs[i]->lat_sum;
    }
    if (s->seq > ra->live_seq && s->interval_ms > 0) {
        ra->live_seq = s->seq;
        ra->live_iops = ios * 1000.0 / (double)s->interval_ms;
        ra->live_mbps = bytes * 1000.0 / (double)s->interval_ms / 1e6;
        ra->live_bytes += bytes;
        ra->live_ms += s->interval_ms;
        ra->live_lat_ms = n ? lat / (double)n / 1e6 : 0;
    }
    s_count_sample(c, ra, s->seq, s->interval_ms, ios);
    s_steady_advance(c);
}

/* A per-second report of an application run (Sample.app), which the writer stores: lgctl watch's
 * figures (transactions per second in the IOPS column). */
void lg__sched_on_app_sample(lg_ctrl_t *c, size_t conn, const Lg__Sample *s)
{
    lg_run_agent_t *ra = lg__sched_find_ra(c, conn);
    if (ra && s->run_id == c->cur.run_id && s->seq > ra->live_seq) {
        ra->live_seq = s->seq;
        ra->live_iops = s->app->tps == s->app->tps ? s->app->tps : 0;
        ra->live_mbps = 0;
        double lat =
            s->app->lat_avg_ms == s->app->lat_avg_ms ? s->app->lat_avg_ms : s->app->lat_pct_ms;
        ra->live_lat_ms = lat == lat ? lat : 0;
    }
}

/* After a restart: count again what the database already holds of the run (one row per agent
 * and seq: agent_id, seq, interval_ms, ios). */
void lg__sched_steady_rebuild(lg_ctrl_t *c, lg_row_t *const *rows, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        uint64_t aid = lg_row_u64(rows[i], "agent_id");
        for (size_t k = 0; k < c->cur.nra; k++)
            if (c->cur.ra[k].agent_id == aid)
                s_count_sample(c, &c->cur.ra[k], lg_row_u64(rows[i], "seq"),
                               lg_row_u64(rows[i], "interval_ms"), lg_row_u64(rows[i], "ios"));
    }
}
