/* lg_plan.c: a spec's run matrix, in the order the review method runs it: config by config
 * (a gate between configs), target by target, the fill if asked, then profile by profile and
 * workload by workload: steady-state preconditioning at 16T16Q, then every load point. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lg_error.h"
#include "lg_spec.h"

static const uint32_t s_grid[] = {2, 4, 8, 16};

/* Load points of a profile: explicit list, the standard grid, or the spec's default load. */
static size_t s_loads(const lg_spec_t *spec, const lg_profile_t *p, lg_load_t *out)
{
    if (p->nloads) {
        memcpy(out, p->loads, p->nloads * sizeof *out);
        return p->nloads;
    }
    if (p->sweep) {
        size_t n = 0;
        for (size_t t = 0; t < 4; t++)
            for (size_t q = 0; q < 4; q++)
                out[n++] = (lg_load_t){s_grid[t], s_grid[q], 0};
        return n;
    }
    out[0] = (lg_load_t){spec->threads, spec->qd, 0};
    return 1;
}

typedef struct {
    lg_run_plan_t *runs;
    size_t n;
    int gate_next;
    uint32_t searches; /* searches so far */
} s_acc_t;

static lg_run_plan_t *s_put(s_acc_t *a, const lg_spec_t *spec, uint32_t cfg, uint32_t tgt,
                            uint32_t pi, lg_phase_t phase, int read_pct, lg_load_t load,
                            uint32_t repeat)
{
    lg_run_plan_t *r = NULL;
    /* [random][read, write, mixed]: fio's rw= for each direction. */
    static const char *const rw[2][3] = {{"read", "write", "rw"},
                                         {"randread", "randwrite", "randrw"}};
    static const char *const dir[3] = {"read", "write", "mixed"};
    const lg_profile_t *p = &spec->profiles[pi];
    if (a->runs) {
        r = &a->runs[a->n];
        int d = read_pct == 100 ? 0 : read_pct == 0 ? 1 : 2;
        memset(r, 0, sizeof *r);
        r->config = cfg;
        r->target = tgt;
        r->profile_index = pi;
        r->gate = a->gate_next;
        r->phase = phase;
        r->repeat = repeat;
        r->read_pct = read_pct;
        r->threads = load.threads;
        r->qd = load.qd;
        r->rate = load.rate;
        r->curve_base = -1;
        if (p->app.kind && phase != LG_PHASE_FILL) {
            /* An application benchmark: its clients, no queue depth, no ramp (the tools have
             * none; sysbench's warm-up would not be in its totals either). */
            snprintf(r->profile, sizeof r->profile, "%s", p->name);
            snprintf(r->rw, sizeof r->rw, "%s", lg_appwl_name(p->app.kind));
            snprintf(r->direction, sizeof r->direction, "txn");
            r->threads = p->app.clients ? p->app.clients : spec->threads;
            r->qd = 1;
            r->runtime_s = p->app.runtime_s ? p->app.runtime_s : spec->runtime_s;
        } else if (phase == LG_PHASE_FILL) {
            /* Write the whole target once, sequentially at 128 KiB. */
            snprintf(r->profile, sizeof r->profile, "fill");
            snprintf(r->rw, sizeof r->rw, "write");
            snprintf(r->direction, sizeof r->direction, "write");
            r->bs = 131072;
            r->runtime_s = spec->precond_max_s;
        } else {
            snprintf(r->profile, sizeof r->profile, "%s", p->name);
            snprintf(r->rw, sizeof r->rw, "%s", rw[p->random][d]);
            snprintf(r->direction, sizeof r->direction, "%s", dir[d]);
            r->bs = p->bs;
            if (phase == LG_PHASE_STEADY) {
                r->runtime_s = spec->precond_max_s;
                r->round_s = spec->round_s;
            } else {
                r->ramp_s = spec->ramp_s;
                r->runtime_s = spec->runtime_s;
            }
        }
    }
    a->gate_next = 0;
    a->n++;
    return r;
}

/* The load of a search's probe: the fixed part from the search (or the spec), the varied one
 * (rate: the unpaced probe) from load. */
static lg_load_t s_probe_load(const lg_spec_t *spec, const lg_search_t *s, uint32_t load)
{
    lg_load_t l = {s->threads ? s->threads : spec->threads, s->qd ? s->qd : spec->qd, 0};
    if (s->vary == LG_VARY_QD)
        l.qd = load;
    else if (s->vary == LG_VARY_THREADS)
        l.threads = load;
    else
        l.rate = load;
    return l;
}

static void s_workload(s_acc_t *a, const lg_spec_t *spec, uint32_t cfg, uint32_t tgt, uint32_t pi,
                       int read_pct)
{
    const lg_profile_t *p = &spec->profiles[pi];
    lg_load_t loads[LG_MAX_LOADS];
    size_t nl = s_loads(spec, p, loads);
    if (spec->precondition == LG_PRECOND_STEADY)
        s_put(a, spec, cfg, tgt, pi, LG_PHASE_STEADY, read_pct, (lg_load_t){16, 16, 0}, 1);
    /* The search: every probe it may take is planned (so the plan says its worst case: each of
     * its steps loads tried 1 + confirm times); the controller fills in each probe's load as the
     * one before it ends, and skips the rest once it found the knee. */
    uint32_t search = 0;
    if (p->search.on) {
        search = ++a->searches;
        for (uint32_t k = 1; k <= lg_search_probes_max(&p->search); k++) {
            lg_run_plan_t *r =
                s_put(a, spec, cfg, tgt, pi, LG_PHASE_SEARCH, read_pct,
                      s_probe_load(spec, &p->search, lg_search_first(&p->search)), 1);
            if (r) {
                r->search = search;
                r->probe = k;
                if (p->search.runtime_s)
                    r->runtime_s = p->search.runtime_s;
            }
        }
        if (!p->loads_given)
            nl = 0; /* a search stands for the load points, unless sweep: was given too */
    }
    size_t first = a->n;
    for (size_t l = 0; l < nl; l++)
        for (uint32_t rep = 1; rep <= spec->repeats; rep++)
            s_put(a, spec, cfg, tgt, pi, LG_PHASE_MEASURE, read_pct, loads[l], rep);
    /* The curve: paced runs at a percentage of the maximum found, at the load that found it;
     * the controller sets each one's rate when that maximum is known. Without a search the
     * base is the first load point's first run, unpaced. */
    for (size_t k = 0; k < p->ncurve; k++)
        for (uint32_t rep = 1; rep <= spec->repeats; rep++) {
            lg_load_t l =
                search ? s_probe_load(spec, &p->search, lg_search_first(&p->search)) : loads[0];
            l.rate = 0;
            lg_run_plan_t *r = s_put(a, spec, cfg, tgt, pi, LG_PHASE_MEASURE, read_pct, l, rep);
            if (r) {
                r->curve_pct = p->curve[k];
                r->curve_base = search ? -1 : (int32_t)first;
                r->search = search;
            }
        }
}

/* One pass: counts runs when a->runs is NULL, fills them otherwise. */
static void s_walk(s_acc_t *a, const lg_spec_t *spec)
{
    for (uint32_t c = 0; c < spec->nconfigs; c++) {
        /* a hook prepares every config, the first too; a pause waits between configs, and its
         * gate before the first config (which the operator set up before submitting) only runs
         * the operator's read-back check, as does the gate of each config it resumes */
        a->gate_next = spec->between != LG_BETWEEN_NONE;
        for (uint32_t t = 0; t < spec->configs[c].ntargets; t++) {
            /* The fill is for fio's workloads: an application makes its own data. */
            uint32_t fio_pi = 0;
            while (fio_pi < spec->nprofiles && spec->profiles[fio_pi].app.kind)
                fio_pi++;
            if (spec->precondition == LG_PRECOND_FILL && fio_pi < spec->nprofiles &&
                spec->configs[c].targets[t].kind != LG_TARGET_NULL)
                s_put(a, spec, c, t, fio_pi, LG_PHASE_FILL, 0, (lg_load_t){1, 16, 0}, 1);
            for (uint32_t pi = 0; pi < spec->nprofiles; pi++) {
                const lg_profile_t *p = &spec->profiles[pi];
                if (p->app.kind) {
                    /* No preconditioning: loading the data set is the application's own. */
                    for (uint32_t rep = 1; rep <= spec->repeats; rep++)
                        s_put(a, spec, c, t, pi, LG_PHASE_MEASURE, 0, (lg_load_t){1, 1, 0}, rep);
                } else if (p->read_pct < 0) {
                    s_workload(a, spec, c, t, pi, 100);
                    s_workload(a, spec, c, t, pi, 0);
                } else {
                    s_workload(a, spec, c, t, pi, p->read_pct);
                }
            }
        }
    }
}

int lg_spec_plan(const lg_spec_t *spec, lg_run_plan_t **runs, size_t *nruns)
{
    if (!spec || !runs || !nruns)
        return -EINVAL;
    *runs = NULL;
    *nruns = 0;
    s_acc_t a = {NULL, 0, 0, 0};
    s_walk(&a, spec);
    if (a.n == 0)
        return 0;
    size_t n = a.n;
    a.runs = calloc(n, sizeof *a.runs);
    if (!a.runs)
        return -ENOMEM;
    a.n = 0;
    a.searches = 0;
    s_walk(&a, spec);
    *runs = a.runs;
    *nruns = n;
    return 0;
}

uint64_t lg_plan_seconds(const lg_run_plan_t *runs, size_t nruns)
{
    uint64_t s = 0;
    for (size_t i = 0; i < nruns; i++)
        s += (uint64_t)runs[i].ramp_s + runs[i].runtime_s;
    return s;
}

size_t lg_plan_unwritten_reads(const lg_spec_t *spec, const lg_run_plan_t *runs, size_t nruns,
                               void (*warn)(void *arg, const char *msg), void *arg)
{
    /* one flag per (config, target): its first run has been looked at */
    size_t ntargets = 0;
    for (size_t c = 0; c < spec->nconfigs; c++)
        ntargets += spec->configs[c].ntargets;
    size_t *first = calloc(spec->nconfigs + 1, sizeof *first); /* configs' first flag */
    bool *seen = calloc(ntargets ? ntargets : 1, sizeof *seen);
    size_t warned = 0;
    if (!first || !seen) {
        free(first);
        free(seen);
        return 0; /* out of memory: a warning is not worth failing the command */
    }
    for (size_t c = 0; c < spec->nconfigs; c++)
        first[c + 1] = first[c] + spec->configs[c].ntargets;
    for (size_t i = 0; i < nruns; i++) {
        const lg_run_plan_t *r = &runs[i];
        const lg_target_t *t = &spec->configs[r->config].targets[r->target];
        bool *s = &seen[first[r->config] + r->target];
        if (*s)
            continue;
        *s = true;
        if ((t->kind != LG_TARGET_BLOCK && t->kind != LG_TARGET_ISCSI) ||
            r->phase == LG_PHASE_FILL || r->read_pct == 0)
            continue;
        char msg[1024];
        snprintf(msg, sizeof msg,
                 "%s target \"%s\" (config %u) is read first (run %zu: %s %s) and nothing "
                 "writes it before: lg writes a device or LUN only in write runs, and a region "
                 "never written reads as zeros without touching the disks (a fresh thin LUN or "
                 "zvol), so those figures would not be the disks'; give \"precondition: fill\" "
                 "(writes it once at 128k first) unless it holds data already",
                 lg_target_kind_name(t->kind), t->path, r->config + 1, i + 1, r->profile,
                 r->direction);
        warn(arg, msg);
        warned++;
    }
    free(first);
    free(seen);
    return warned;
}

uint32_t lg_plan_fill_s(uint32_t ramp_s, uint32_t max_s, const uint64_t *size,
                        const uint64_t *bytes, const uint64_t *ms, size_t n)
{
    double need_s = 0;
    for (size_t i = 0; i < n; i++) {
        if (!bytes[i] || !ms[i] || !size[i])
            return max_s;
        double s = (double)ms[i] / 1000.0 * (double)size[i] / (double)bytes[i];
        if (s > need_s)
            need_s = s;
    }
    double t = ramp_s + ceil(need_s);
    return n && t < max_s ? (uint32_t)t : max_s;
}
