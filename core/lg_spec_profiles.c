/* lg_spec_profiles.c: the profiles: key of a campaign spec: standard profiles by name, custom
 * ones (block size or split, pattern, mix, pacing), load points and sweeps, latency-bounded
 * searches and their curves, and application benchmarks (pgbench, sysbench). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lg_app.h"
#include "lg_error.h"
#include "lg_spec_int.h"

/* ---- standard profiles and application workloads ---- */

/* The review method's profiles; 8k-7030 sweeps 2T2Q .. 16T16Q by default. */
static const lg_profile_t s_standard[] = {
    {.name = "4k-rand", .bs = 4096, .random = true, .read_pct = -1},
    {.name = "8k-7030", .bs = 8192, .random = true, .read_pct = 70, .sweep = true},
    {.name = "8k-seq", .bs = 8192, .random = false, .read_pct = -1},
    {.name = "128k-seq", .bs = 131072, .random = false, .read_pct = -1},
};
#define S_NSTANDARD (sizeof s_standard / sizeof s_standard[0])

const lg_profile_t *lg_profile_find(const char *name)
{
    if (!name)
        return NULL;
    for (size_t i = 0; i < S_NSTANDARD; i++)
        if (strcmp(s_standard[i].name, name) == 0)
            return &s_standard[i];
    return NULL;
}

/* ---- load points ---- */

int lg_parse_load(const char *s, lg_load_t *out)
{
    const char *end;
    uint64_t t, q;
    if (lg__spec_parse_u64(s, &end, &t) != 0 || (*end != 'T' && *end != 't'))
        return LG_EPARSE;
    if (lg__spec_parse_u64(end + 1, &end, &q) != 0 || (*end != 'Q' && *end != 'q'))
        return LG_EPARSE;
    uint64_t rate = 0;
    if (end[1] == '@') {
        /* offered IOPS over all agents: "@5000", "@20k" */
        if (lg__spec_parse_u64(end + 2, &end, &rate) != 0)
            return LG_EPARSE;
        if (*end == 'k' || *end == 'K') {
            rate *= 1000;
            end++;
        }
        if (*end || rate < 1 || rate > 100000000)
            return LG_EPARSE;
        end--; /* end[1] below is the terminator */
    }
    if (end[1] || t < 1 || t > 256 || q < 1 || q > 1024)
        return LG_EPARSE;
    out->threads = (uint32_t)t;
    out->qd = (uint32_t)q;
    out->rate = (uint32_t)rate;
    return 0;
}

/* A sequence of integers into vals (at most max). */
static int s_int_list(lg__spec_ctx_t *c, const yaml_node_t *v, const char *where, uint32_t lo,
                      uint32_t hi, uint32_t *vals, size_t max, size_t *n)
{
    char qb[128];
    if (v->type != YAML_SEQUENCE_NODE)
        return lg__spec_fail(c, v, where, "must be a list of integers, got %s",
                             lg__spec_node_kind(v));
    *n = 0;
    for (yaml_node_item_t *i = v->data.sequence.items.start; i < v->data.sequence.items.top; i++) {
        const yaml_node_t *it = yaml_document_get_node(c->doc, *i);
        const char *s = it ? lg__spec_scalar(c, it, where) : NULL, *end;
        uint64_t x;
        if (!s)
            return LG_ESPEC;
        if (lg__spec_parse_u64(s, &end, &x) != 0 || *end || x < lo || x > hi)
            return lg__spec_fail(c, it, where, "must be integers from %u to %u, got \"%s\"", lo, hi,
                                 lg__spec_q(s, qb, sizeof qb));
        if (*n == max)
            return lg__spec_fail(c, it, where, "at most %zu values", max);
        vals[(*n)++] = (uint32_t)x;
    }
    if (*n == 0)
        return lg__spec_fail(c, v, where, "must not be empty");
    return 0;
}

/* sweep: standard | none | [2T2Q, 16T16Q, ...] | {threads: [..], qd: [..]} */
static int s_get_sweep(lg__spec_ctx_t *c, const yaml_node_t *v, const char *where, lg_profile_t *p)
{
    char qb[128];
    p->nloads = 0;
    p->loads_given = true;
    if (v->type == YAML_SCALAR_NODE) {
        const char *s = lg__spec_scalar(c, v, where);
        if (!s)
            return LG_ESPEC;
        if (strcmp(s, "standard") == 0)
            p->sweep = true;
        else if (strcmp(s, "none") == 0)
            p->sweep = false;
        else
            return lg__spec_fail(c, v, where,
                                 "must be \"standard\", \"none\", a list of load points "
                                 "(e.g. [2T2Q, 16T16Q]) or {threads: [...], qd: [...]}, got \"%s\"",
                                 lg__spec_q(s, qb, sizeof qb));
        return 0;
    }
    p->sweep = false;
    if (v->type == YAML_SEQUENCE_NODE) {
        for (yaml_node_item_t *i = v->data.sequence.items.start; i < v->data.sequence.items.top;
             i++) {
            const yaml_node_t *it = yaml_document_get_node(c->doc, *i);
            const char *s = it ? lg__spec_scalar(c, it, where) : NULL;
            if (!s)
                return LG_ESPEC;
            if (p->nloads == LG_MAX_LOADS)
                return lg__spec_fail(c, it, where, "at most %d load points", LG_MAX_LOADS);
            if (lg_parse_load(s, &p->loads[p->nloads]) != 0)
                return lg__spec_fail(c, it, where,
                                     "load points are THREADSTQDQ with threads 1..256 and "
                                     "qd 1..1024 (e.g. 16T16Q), paced with @IOPS over all "
                                     "agents (e.g. 16T16Q@20k), got \"%s\"",
                                     lg__spec_q(s, qb, sizeof qb));
            p->nloads++;
        }
        if (p->nloads == 0)
            return lg__spec_fail(c, v, where, "must list at least one load point");
        return 0;
    }
    uint32_t th[LG_MAX_LOADS], qd[LG_MAX_LOADS];
    size_t nth = 0, nqd = 0;
    for (size_t i = 0; i < lg__spec_map_len(v); i++) {
        lg__spec_entry_t e;
        int rc = lg__spec_entry(c, v, i, where, &e);
        if (rc)
            return rc;
        if (strcmp(e.key, "threads") == 0)
            rc = s_int_list(c, e.vn, e.path, 1, 256, th, LG_MAX_LOADS, &nth);
        else if (strcmp(e.key, "qd") == 0)
            rc = s_int_list(c, e.vn, e.path, 1, 1024, qd, LG_MAX_LOADS, &nqd);
        else
            rc = lg__spec_fail(c, e.kn, e.path, "unknown key; allowed in a sweep: threads, qd");
        if (rc)
            return rc;
    }
    if (!nth || !nqd)
        return lg__spec_fail(c, v, where, "a sweep grid needs both threads and qd lists");
    if (nth * nqd > LG_MAX_LOADS)
        return lg__spec_fail(c, v, where, "at most %d load points, the grid has %zu", LG_MAX_LOADS,
                             nth * nqd);
    for (size_t a = 0; a < nth; a++)
        for (size_t b = 0; b < nqd; b++)
            p->loads[p->nloads++] = (lg_load_t){th[a], qd[b], 0};
    return 0;
}

/* bssplit: [{bs: 4k, pct: 50}, ...] or "4k/50:64k/50"; percentages add up to 100. */
static int s_get_bssplit(lg__spec_ctx_t *c, const yaml_node_t *v, const char *where,
                         lg_profile_t *p)
{
    char qb[128], buf[512];
    const char *s = lg__spec_scalar(c, v, where);
    if (!s)
        return LG_ESPEC;
    if (strlen(s) >= sizeof buf)
        return lg__spec_fail(c, v, where, "too long");
    uint32_t total = 0, maxbs = 0;
    if (lg_parse_bssplit(s, p->bssplit, LG_MAX_BSSPLIT, &p->nbssplit, &total) != 0)
        goto bad;
    for (size_t i = 0; i < p->nbssplit; i++)
        if (p->bssplit[i].bs > maxbs)
            maxbs = p->bssplit[i].bs;
    if (total != 100)
        return lg__spec_fail(c, v, where, "percentages add up to %u, not 100", total);
    p->bs = maxbs;
    return 0;
bad:
    return lg__spec_fail(c, v, where,
                         "must be BS/PERCENT pairs joined by ':' (at most %d, block sizes "
                         "multiples of 512), e.g. \"4k/50:64k/50\", got \"%s\"",
                         LG_MAX_BSSPLIT, lg__spec_q(s, qb, sizeof qb));
}

static int s_u32_in(lg__spec_ctx_t *c, const yaml_node_t *v, const char *where, uint32_t lo,
                    uint32_t hi, uint32_t *out)
{
    char qb[128];
    const char *s = lg__spec_scalar(c, v, where), *end;
    uint64_t n;
    if (!s)
        return LG_ESPEC;
    if (lg__spec_parse_u64(s, &end, &n) != 0 || *end || n < lo || n > hi)
        return lg__spec_fail(c, v, where, "must be an integer from %u to %u, got \"%s\"", lo, hi,
                             lg__spec_q(s, qb, sizeof qb));
    *out = (uint32_t)n;
    return 0;
}

/* A number of milliseconds: "5", "5ms", "0.5ms", "500us". */
static int s_ms(lg__spec_ctx_t *c, const yaml_node_t *v, const char *where, double *out)
{
    char qb[128], *end;
    const char *s = lg__spec_scalar(c, v, where);
    if (!s)
        return LG_ESPEC;
    double d = strtod(s, &end);
    if (end != s && !strcmp(end, "us"))
        d /= 1000;
    else if (end == s || (*end && strcmp(end, "ms")))
        d = -1;
    if (!(d > 0 && d <= 600000))
        return lg__spec_fail(c, v, where,
                             "must be a latency above 0 in ms (e.g. 5, 0.5ms, 500us), got \"%s\"",
                             lg__spec_q(s, qb, sizeof qb));
    *out = d;
    return 0;
}

/* search: {metric: p99_ms, limit: 5, vary: qd|threads|rate, min, max, steps, threads, qd,
 * resolution, runtime, confirm} */
static int s_get_search(lg__spec_ctx_t *c, const yaml_node_t *v, const char *where, lg_profile_t *p)
{
    char qb[128];
    lg_search_t *s = &p->search;
    if (v->type != YAML_MAPPING_NODE)
        return lg__spec_fail(c, v, where,
                             "must be a mapping, e.g. {metric: p99_ms, limit: 5, vary: qd}, got %s",
                             lg__spec_node_kind(v));
    *s = (lg_search_t){.on = true,
                       .metric = LG_SMETRIC_P99,
                       .vary = LG_VARY_QD,
                       .steps = 10,
                       .resolution_pct = 5,
                       .confirm = 1};
    bool have_limit = false, have_min = false, have_max = false;
    for (size_t i = 0; i < lg__spec_map_len(v); i++) {
        lg__spec_entry_t e;
        int rc = lg__spec_entry(c, v, i, where, &e);
        if (rc)
            return rc;
        const char *k = e.key, *str;
        if (!strcmp(k, "metric") || !strcmp(k, "vary")) {
            if (!(str = lg__spec_scalar(c, e.vn, e.path)))
                return LG_ESPEC;
            int x = !strcmp(k, "metric") ? lg_smetric_parse(str) : lg_vary_parse(str);
            if (x < 0)
                return lg__spec_fail(c, e.vn, e.path, "must be one of %s, got \"%s\"",
                                     !strcmp(k, "metric")
                                         ? "lat_avg_ms, p50_ms, p90_ms, p95_ms, p99_ms, p99_9_ms, "
                                           "lat_max_ms"
                                         : "qd, threads, rate",
                                     lg__spec_q(str, qb, sizeof qb));
            if (!strcmp(k, "metric"))
                s->metric = (lg_smetric_t)x;
            else
                s->vary = (lg_vary_t)x;
        } else if (!strcmp(k, "limit")) {
            rc = s_ms(c, e.vn, e.path, &s->limit_ms);
            have_limit = true;
        } else if (!strcmp(k, "min")) {
            rc = s_u32_in(c, e.vn, e.path, 0, 100000000, &s->min);
            have_min = true;
        } else if (!strcmp(k, "max")) {
            rc = s_u32_in(c, e.vn, e.path, 1, 100000000, &s->max);
            have_max = true;
        } else if (!strcmp(k, "steps")) {
            rc = s_u32_in(c, e.vn, e.path, 1, 32, &s->steps);
        } else if (!strcmp(k, "confirm")) {
            rc = s_u32_in(c, e.vn, e.path, 0, LG_SEARCH_CONFIRM_MAX, &s->confirm);
        } else if (!strcmp(k, "resolution")) {
            if (!(str = lg__spec_scalar(c, e.vn, e.path)))
                return LG_ESPEC;
            char tmp[16];
            snprintf(tmp, sizeof tmp, "%s", str);
            size_t l = strlen(tmp);
            if (l && tmp[l - 1] == '%')
                tmp[l - 1] = 0;
            uint64_t n;
            const char *end;
            if (lg__spec_parse_u64(tmp, &end, &n) != 0 || *end || n < 1 || n > 50)
                return lg__spec_fail(c, e.vn, e.path,
                                     "must be a percentage from 1 to 50 (e.g. 5%%), got \"%s\"",
                                     lg__spec_q(str, qb, sizeof qb));
            s->resolution_pct = (uint32_t)n;
        } else if (!strcmp(k, "runtime")) {
            if (!(str = lg__spec_scalar(c, e.vn, e.path)))
                return LG_ESPEC;
            if (lg_parse_duration(str, &s->runtime_s) != 0 || s->runtime_s < 1)
                return lg__spec_fail(c, e.vn, e.path,
                                     "must be a duration of at least 1s (e.g. 30s, 2m), got \"%s\"",
                                     lg__spec_q(str, qb, sizeof qb));
        } else if (!strcmp(k, "threads")) {
            rc = s_u32_in(c, e.vn, e.path, 1, 256, &s->threads);
        } else if (!strcmp(k, "qd")) {
            rc = s_u32_in(c, e.vn, e.path, 1, 1024, &s->qd);
        } else {
            rc = lg__spec_fail(c, e.kn, e.path,
                               "unknown key; allowed in a search: metric, limit, vary, min, max, "
                               "steps, resolution, runtime, threads, qd, confirm");
        }
        if (rc)
            return rc;
    }
    if (!have_limit) {
        char path[160];
        snprintf(path, sizeof path, "%s.limit", where);
        return lg__spec_fail(c, v, path, "a search needs a limit (ms of its metric, e.g. 5)");
    }
    uint32_t top = s->vary == LG_VARY_QD ? 1024 : s->vary == LG_VARY_THREADS ? 256 : 100000000;
    if (!have_min)
        s->min = s->vary == LG_VARY_RATE ? 0 : 1;
    if (!have_max)
        s->max = s->vary == LG_VARY_QD ? 256 : s->vary == LG_VARY_THREADS ? 64 : 0;
    if ((s->vary != LG_VARY_RATE && s->min < 1) || s->min > top || s->max > top ||
        (s->max && s->min > s->max))
        return lg__spec_fail(c, v, where,
                             "min %u and max %u do not fit vary: %s (%s from 1 to %u, min <= max)",
                             s->min, s->max, lg_vary_name(s->vary),
                             s->vary == LG_VARY_RATE ? "IOPS" : lg_vary_name(s->vary), top);
    return 0;
}

/* curve: [10, 50, 90, 100]: percentages of the maximum found */
static int s_get_curve(lg__spec_ctx_t *c, const yaml_node_t *v, const char *where, lg_profile_t *p)
{
    return s_int_list(c, v, where, 1, 100, p->curve, LG_MAX_CURVE, &p->ncurve);
}

/* An application benchmark: {name: oltp, app: sysbench-oltp, tables: 16, table_size: 1M,
 * threads: 16, runtime: 1h} or {name: tpcb, app: pgbench, scale: 100, clients: 16}. Each tool
 * takes its own keys only: a key of the other tool is an error, not ignored. */
static int s_get_app_profile(lg__spec_ctx_t *c, const yaml_node_t *m, const char *where,
                             lg_profile_t *p)
{
    char qb[128];
    lg_appwl_t *a = &p->app;
    bool have_name = false;
    for (size_t i = 0; i < lg__spec_map_len(m); i++) { /* app: first: it decides the keys */
        lg__spec_entry_t e;
        int rc = lg__spec_entry(c, m, i, where, &e);
        if (rc)
            return rc;
        if (strcmp(e.key, "app") != 0)
            continue;
        const char *s = lg__spec_scalar(c, e.vn, e.path);
        if (!s)
            return LG_ESPEC;
        if (!(a->kind = lg_appwl_parse(s)))
            return lg__spec_fail(c, e.vn, e.path, "must be pgbench or sysbench-oltp, got \"%s\"",
                                 lg__spec_q(s, qb, sizeof qb));
    }
    int pg = a->kind == LG_APP_PGBENCH;
    if (pg)
        a->scale = 10;
    else {
        a->tables = 4;
        a->table_size = 10000;
    }
    for (size_t i = 0; i < lg__spec_map_len(m); i++) {
        lg__spec_entry_t e;
        int rc = lg__spec_entry(c, m, i, where, &e);
        if (rc)
            return rc;
        const char *k = e.key, *s;
        uint64_t n;
        if (!strcmp(k, "app"))
            continue;
        if (!strcmp(k, "name")) {
            if (!(s = lg__spec_scalar(c, e.vn, e.path)))
                return LG_ESPEC;
            if (!lg__spec_valid_name(s, sizeof p->name - 1))
                return lg__spec_fail(c, e.vn, e.path, "must be " S_NAME_RULE ", got \"%s\"",
                                     lg__spec_q(s, qb, sizeof qb));
            if (lg_profile_find(s))
                return lg__spec_fail(c, e.vn, e.path,
                                     "\"%s\" is a standard fio profile: give the application "
                                     "workload another name",
                                     s);
            snprintf(p->name, sizeof p->name, "%s", s);
            have_name = true;
        } else if (!strcmp(k, pg ? "clients" : "threads")) {
            rc = s_u32_in(c, e.vn, e.path, 1, 1000, &a->clients);
        } else if (pg && !strcmp(k, "scale")) {
            rc = s_u32_in(c, e.vn, e.path, 1, 100000, &a->scale);
        } else if (pg && !strcmp(k, "jobs")) {
            rc = s_u32_in(c, e.vn, e.path, 1, 1000, &a->jobs);
        } else if (!pg && !strcmp(k, "tables")) {
            rc = s_u32_in(c, e.vn, e.path, 1, 10000, &a->tables);
        } else if (!pg && !strcmp(k, "table_size")) {
            /* rows: "1M" is a million here, not 2^20 as in a byte size */
            if (!(s = lg__spec_scalar(c, e.vn, e.path)))
                return LG_ESPEC;
            const char *end;
            uint64_t mul = 1;
            if (lg__spec_parse_u64(s, &end, &n) == 0) {
                mul = !strcmp(end, "")                         ? 1
                      : !strcmp(end, "k") || !strcmp(end, "K") ? 1000
                      : !strcmp(end, "M")                      ? 1000000
                                                               : 0;
            }
            if (lg__spec_parse_u64(s, &end, &n) != 0 || !mul || n == 0 || n > 1000000000ull / mul)
                return lg__spec_fail(c, e.vn, e.path,
                                     "must be a row count from 1 to 1000M (e.g. 10000, 100k, "
                                     "1M), got \"%s\"",
                                     lg__spec_q(s, qb, sizeof qb));
            a->table_size = n * mul;
        } else if (!strcmp(k, "runtime")) {
            if (!(s = lg__spec_scalar(c, e.vn, e.path)))
                return LG_ESPEC;
            if (lg_parse_duration(s, &a->runtime_s) != 0 || a->runtime_s < 1)
                return lg__spec_fail(c, e.vn, e.path,
                                     "must be a duration of at least 1s (e.g. 30s, 5m, 1h), got "
                                     "\"%s\"",
                                     lg__spec_q(s, qb, sizeof qb));
        } else if (!strcmp(k, "keep")) {
            rc = lg__spec_bool(c, e.vn, e.path, &a->keep);
        } else {
            rc = lg__spec_fail(c, e.kn, e.path, "unknown key; allowed with app: %s: %s",
                               lg_appwl_name(a->kind),
                               pg ? "name, app, scale, clients, jobs, runtime, keep"
                                  : "name, app, tables, table_size, threads, runtime, keep");
        }
        if (rc)
            return rc;
    }
    if (!have_name) {
        char path[160];
        snprintf(path, sizeof path, "%s.name", where);
        return lg__spec_fail(c, m, path, "missing required key in an application profile");
    }
    if (pg && a->jobs && a->clients && a->jobs > a->clients)
        return lg__spec_fail(c, m, where,
                             "jobs (%u) cannot exceed clients (%u): pgbench gives "
                             "each of its threads at least one client",
                             a->jobs, a->clients);
    p->read_pct = 0;
    return 0;
}

/* The name of a profile given as a mapping, read first: it decides which keys are allowed. A
 * standard profile's name copies it into *p (*standard). */
static int s_profile_name(lg__spec_ctx_t *c, const yaml_node_t *m, const char *where,
                          lg_profile_t *p, bool *have_name, bool *standard)
{
    char qb[128];
    for (size_t i = 0; i < lg__spec_map_len(m); i++) {
        lg__spec_entry_t e;
        int rc = lg__spec_entry(c, m, i, where, &e);
        if (rc)
            return rc;
        if (strcmp(e.key, "name") != 0)
            continue;
        const char *s = lg__spec_scalar(c, e.vn, e.path);
        if (!s)
            return LG_ESPEC;
        if (!lg__spec_valid_name(s, sizeof p->name - 1))
            return lg__spec_fail(c, e.vn, e.path, "must be " S_NAME_RULE ", got \"%s\"",
                                 lg__spec_q(s, qb, sizeof qb));
        const lg_profile_t *std = lg_profile_find(s);
        if (std) {
            *p = *std;
            *standard = true;
        }
        snprintf(p->name, sizeof p->name, "%s", s);
        *have_name = true;
    }
    return 0;
}

/* thinktime: microseconds ("500us"), milliseconds ("20ms") or a duration ("2s"). */
static int s_thinktime(lg__spec_ctx_t *c, const lg__spec_entry_t *e, lg_profile_t *p)
{
    char qb[128];
    const char *s, *end;
    uint64_t n;
    uint32_t secs;
    if (!(s = lg__spec_scalar(c, e->vn, e->path)))
        return LG_ESPEC;
    if (lg__spec_parse_u64(s, &end, &n) == 0 && !strcmp(end, "us") && n <= 60000000)
        p->thinktime_us = (uint32_t)n;
    else if (lg__spec_parse_u64(s, &end, &n) == 0 && !strcmp(end, "ms") && n <= 60000)
        p->thinktime_us = (uint32_t)n * 1000;
    else if (lg_parse_duration(s, &secs) == 0 && secs <= 60)
        p->thinktime_us = secs * 1000000;
    else
        return lg__spec_fail(c, e->vn, e->path,
                             "must be a pause of at most 60s (e.g. 500us, 20ms, 2s), "
                             "got \"%s\"",
                             lg__spec_q(s, qb, sizeof qb));
    return 0;
}

/* A key of a custom profile's shape: bssplit, bs, pattern or read. */
static int s_profile_shape(lg__spec_ctx_t *c, const lg__spec_entry_t *e, lg_profile_t *p,
                           bool *have_bs, bool *have_pattern)
{
    char qb[128];
    const char *k = e->key, *s;
    uint64_t n;
    if (!strcmp(k, "bssplit")) {
        int rc = s_get_bssplit(c, e->vn, e->path, p);
        *have_bs = *have_bs || rc == 0;
        return rc;
    }
    if (!(s = lg__spec_scalar(c, e->vn, e->path)))
        return LG_ESPEC;
    if (!strcmp(k, "bs")) {
        if (p->nbssplit)
            return 0; /* bssplit decides */
        if (lg_parse_size(s, &n) != 0 || n < 512 || n > 16u * 1024 * 1024 || n % 512)
            return lg__spec_fail(c, e->vn, e->path,
                                 "must be a multiple of 512 from 512 to 16M (e.g. 64k), "
                                 "got \"%s\"",
                                 lg__spec_q(s, qb, sizeof qb));
        p->bs = (uint32_t)n;
        *have_bs = true;
    } else if (!strcmp(k, "pattern")) {
        if (strcmp(s, "random") && strcmp(s, "sequential"))
            return lg__spec_fail(c, e->vn, e->path,
                                 "must be \"random\" or \"sequential\", got \"%s\"",
                                 lg__spec_q(s, qb, sizeof qb));
        p->random = !strcmp(s, "random");
        *have_pattern = true;
    } else if (strcmp(s, "split") != 0) {
        const char *end;
        if (lg__spec_parse_u64(s, &end, &n) != 0 || *end != '\0' || n > 100)
            return lg__spec_fail(c, e->vn, e->path,
                                 "must be an integer from 0 to 100 or \"split\", got "
                                 "\"%s\"",
                                 lg__spec_q(s, qb, sizeof qb));
        p->read_pct = (int)n;
    }
    return 0;
}

/* What a profile's pacing keys allow together, once all are read. */
static int s_profile_pacing(lg__spec_ctx_t *c, const yaml_node_t *m, const char *where,
                            lg_profile_t *p)
{
    if (p->thinktime_us && !p->thinktime_blocks)
        p->thinktime_blocks = 1;
    int paced = p->ncurve || (p->search.on && p->search.vary == LG_VARY_RATE);
    for (size_t i = 0; i < p->nloads; i++)
        paced |= p->loads[i].rate != 0;
    if (paced && p->rate_iops)
        return lg__spec_fail(c, m, where,
                             "rate_iops (a cap per thread) cannot go with paced load points, a "
                             "rate search or a curve, which set the rate over all agents");
    if (p->ncurve && !p->search.on && p->nloads && p->loads[0].rate)
        return lg__spec_fail(c, m, where,
                             "a curve is of the first load point's unpaced run: %uT%uQ@%u is "
                             "paced",
                             p->loads[0].threads, p->loads[0].qd, p->loads[0].rate);
    return 0;
}

/* A profile given as a mapping: a custom one {name, bs, pattern, read, ...}, or a standard one
 * by name with only its load or pacing changed {name: 8k-7030, sweep: none}. */
static int s_get_profile_map(lg__spec_ctx_t *c, const yaml_node_t *m, const char *where,
                             lg_profile_t *p)
{
    bool have_name = false, have_bs = false, have_pattern = false, standard = false;
    const yaml_node_t *shape = NULL; /* a bs/pattern/read/bssplit key, for the standard check */
    char shape_path[160] = "";
    p->read_pct = -1;
    int rc = s_profile_name(c, m, where, p, &have_name, &standard);
    if (rc)
        return rc;
    for (size_t i = 0; i < lg__spec_map_len(m); i++) {
        lg__spec_entry_t e;
        if ((rc = lg__spec_entry(c, m, i, where, &e)) != 0)
            return rc;
        const char *k = e.key;
        if (!strcmp(k, "name"))
            continue;
        if (!strcmp(k, "sweep")) {
            rc = s_get_sweep(c, e.vn, e.path, p);
        } else if (!strcmp(k, "search")) {
            rc = s_get_search(c, e.vn, e.path, p);
        } else if (!strcmp(k, "curve")) {
            rc = s_get_curve(c, e.vn, e.path, p);
        } else if (!strcmp(k, "rate_iops")) {
            rc = s_u32_in(c, e.vn, e.path, 1, 100000000, &p->rate_iops);
        } else if (!strcmp(k, "thinktime")) {
            rc = s_thinktime(c, &e, p);
        } else if (!strcmp(k, "thinktime_blocks")) {
            rc = s_u32_in(c, e.vn, e.path, 1, 100000000, &p->thinktime_blocks);
        } else if (!strcmp(k, "retries")) {
            rc = s_u32_in(c, e.vn, e.path, 0, 10, &p->retries);
            p->retries_given = true;
        } else if (!strcmp(k, "bs") || !strcmp(k, "pattern") || !strcmp(k, "read") ||
                   !strcmp(k, "bssplit")) {
            if (!shape) {
                shape = e.kn;
                snprintf(shape_path, sizeof shape_path, "%s", e.path);
            }
            if (!standard) /* a standard one's is refused below, with the profile's name */
                rc = s_profile_shape(c, &e, p, &have_bs, &have_pattern);
        } else {
            rc = lg__spec_fail(c, e.kn, e.path,
                               "unknown key; allowed in a profile: name, bs, bssplit, pattern, "
                               "read, sweep, search, curve, rate_iops, thinktime, "
                               "thinktime_blocks, retries");
        }
        if (rc)
            return rc;
    }
    if (standard && shape)
        return lg__spec_fail(c, shape, shape_path,
                             "\"%s\" is a standard profile: only sweep, search, curve, rate_iops, "
                             "thinktime, thinktime_blocks and retries may be changed; give a "
                             "custom profile another name",
                             p->name);
    const char *missing = !have_name      ? "name"
                          : standard      ? NULL
                          : !have_bs      ? "bs"
                          : !have_pattern ? "pattern"
                                          : NULL;
    if (missing) {
        char path[160];
        snprintf(path, sizeof path, "%s.%s", where, missing);
        return lg__spec_fail(c, m, path,
                             "missing required key in a custom profile (needs name, bs or "
                             "bssplit, pattern; read is optional)");
    }
    return s_profile_pacing(c, m, where, p);
}

int lg__spec_get_profiles(lg__spec_ctx_t *c, const yaml_node_t *v, const char *key)
{
    if (v->type != YAML_SEQUENCE_NODE)
        return lg__spec_fail(c, v, key,
                             "must be a sequence of profiles (e.g. [4k-rand, 128k-seq]), "
                             "got %s",
                             lg__spec_node_kind(v));
    size_t n = (size_t)(v->data.sequence.items.top - v->data.sequence.items.start);
    if (n == 0)
        return lg__spec_fail(c, v, key, "must list at least one profile");
    if (n > S_MAX_PROFILES)
        return lg__spec_fail(c, v, key, "at most %d profiles are allowed, got %zu", S_MAX_PROFILES,
                             n);
    c->spec->profiles = calloc(n, sizeof *c->spec->profiles);
    if (!c->spec->profiles)
        return -ENOMEM;
    for (size_t i = 0; i < n; i++) {
        char where[64], qb[128];
        const yaml_node_t *it;
        lg_profile_t *p = &c->spec->profiles[i];
        int rc = lg__spec_item(c, v, key, i, where, sizeof where, &it);
        if (rc)
            return rc;
        if (it->type == YAML_MAPPING_NODE) {
            bool app = false;
            for (size_t k = 0; k < lg__spec_map_len(it); k++) {
                lg__spec_entry_t e;
                if ((rc = lg__spec_entry(c, it, k, where, &e)) != 0)
                    return rc;
                app = app || !strcmp(e.key, "app");
            }
            if ((rc = app ? s_get_app_profile(c, it, where, p)
                          : s_get_profile_map(c, it, where, p)) != 0)
                return rc;
        } else {
            const char *s = lg__spec_scalar(c, it, where);
            if (!s)
                return LG_ESPEC;
            const lg_profile_t *std = lg_profile_find(s);
            if (!std)
                return lg__spec_fail(
                    c, it, where,
                    "unknown profile \"%s\"; known: 4k-rand, 8k-7030, 8k-seq, 128k-seq",
                    lg__spec_q(s, qb, sizeof qb));
            *p = *std;
        }
        p->line = (int)it->start_mark.line + 1;
        /* Runs are keyed by profile name downstream; a repeat would make two runs ambiguous. */
        for (size_t j = 0; j < i; j++)
            if (strcmp(c->spec->profiles[j].name, p->name) == 0)
                return lg__spec_fail(c, it, where, "profile \"%s\" is already listed as %s[%zu]",
                                     p->name, key, j);
        c->spec->nprofiles = i + 1;
    }
    return 0;
}
