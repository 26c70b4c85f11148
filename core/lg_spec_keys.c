/* lg_spec_keys.c: one handler per key of a campaign spec, driven by one table (name, required,
 * handler, range): SUT configs and their targets, profiles and load sweeps, preconditioning,
 * data pattern, and the rest. The machinery they share is in lg_spec.c. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lg_app.h"
#include "lg_datapattern.h"
#include "lg_error.h"
#include "lg_spec_int.h"
#include "lg_util.h"
/* ---- field handlers ---- */

typedef struct s_field s_field_t;
typedef int (*s_get_fn)(lg__spec_ctx_t *c, const yaml_node_t *v, const s_field_t *f);

/* One table drives parsing, ranges and the "allowed keys" hint (defaults: lg_spec_parse_text). */
struct s_field {
    const char *key;
    bool required;
    s_get_fn get;
    size_t offset; /* into lg_spec_t, for the generic handlers */
    uint64_t min, max;
};


static int s_get_name(lg__spec_ctx_t *c, const yaml_node_t *v, const s_field_t *f)
{
    char qb[128];
    const char *s = lg__spec_scalar(c, v, f->key);
    if (!s)
        return LG_ESPEC;
    if (!lg__spec_valid_name(s, 63))
        return lg__spec_fail(c, v, f->key, "must be " S_NAME_RULE ", got \"%s\"", lg__spec_q(s, qb, sizeof qb));
    c->spec->name = lg__spec_dup(s);
    return c->spec->name ? 0 : -ENOMEM;
}

static int s_get_size(lg__spec_ctx_t *c, const yaml_node_t *v, const s_field_t *f)
{
    char qb[128];
    uint64_t b;
    const char *s = lg__spec_scalar(c, v, f->key);
    if (!s)
        return LG_ESPEC;
    if (lg_parse_size(s, &b) != 0)
        return lg__spec_fail(c, v, f->key,
                             "is not a size: \"%s\"; give a number and a unit K, M, G, T, P or E, "
                             "each 1024 times the last, as fio's (16G, 16GB, 16GiB and 16 GB are "
                             "the same)",
                             lg__spec_q(s, qb, sizeof qb));
    if (b < f->min)
        return lg__spec_fail(c, v, f->key, "must be a size of at least 1M (e.g. 256M, 1G), got \"%s\"",
                      lg__spec_q(s, qb, sizeof qb));
    if (b > f->max) /* the database keeps sizes as bigint */
        return lg__spec_fail(c, v, f->key, "must be a size of at most 8E (%llu bytes), got \"%s\"",
                             (unsigned long long)f->max, lg__spec_q(s, qb, sizeof qb));
    *(uint64_t *)((char *)c->spec + f->offset) = b;
    c->size_node = v;
    return 0;
}

static int s_get_u32(lg__spec_ctx_t *c, const yaml_node_t *v, const s_field_t *f)
{
    char qb[128];
    const char *end;
    uint64_t n;
    const char *s = lg__spec_scalar(c, v, f->key);
    if (!s)
        return LG_ESPEC;
    if (lg__spec_parse_u64(s, &end, &n) != 0 || *end != '\0' || n < f->min || n > f->max)
        return lg__spec_fail(c, v, f->key, "must be an integer from %llu to %llu, got \"%s\"",
                      (unsigned long long)f->min, (unsigned long long)f->max,
                      lg__spec_q(s, qb, sizeof qb));
    *(uint32_t *)((char *)c->spec + f->offset) = (uint32_t)n;
    return 0;
}

static int s_get_duration(lg__spec_ctx_t *c, const yaml_node_t *v, const s_field_t *f)
{
    char qb[128];
    uint32_t secs;
    const char *s = lg__spec_scalar(c, v, f->key);
    if (!s)
        return LG_ESPEC;
    if (lg_parse_duration(s, &secs) != 0 || secs < f->min)
        return lg__spec_fail(c, v, f->key, "must be a duration%s (e.g. 90, 30s, 5m, 1h), got \"%s\"",
                      f->min ? " of at least 1s" : "", lg__spec_q(s, qb, sizeof qb));
    *(uint32_t *)((char *)c->spec + f->offset) = secs;
    return 0;
}

/* true or false, in the YAML 1.2 core schema's spellings ("yes"/"on" are 1.1-isms that surprise
 * people). */
static int s_bool_at(lg__spec_ctx_t *c, const yaml_node_t *v, const char *where, bool *out)
{
    char qb[128];
    const char *s = lg__spec_scalar(c, v, where);
    if (!s)
        return LG_ESPEC;
    if (!strcmp(s, "true") || !strcmp(s, "True") || !strcmp(s, "TRUE"))
        *out = true;
    else if (!strcmp(s, "false") || !strcmp(s, "False") || !strcmp(s, "FALSE"))
        *out = false;
    else
        return lg__spec_fail(c, v, where, "must be true or false, got \"%s\"",
                             lg__spec_q(s, qb, sizeof qb));
    return 0;
}

static int s_get_bool(lg__spec_ctx_t *c, const yaml_node_t *v, const s_field_t *f)
{
    return s_bool_at(c, v, f->key, (bool *)((char *)c->spec + f->offset));
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
            return lg__spec_fail(c, it, where, "must be integers from %u to %u, got \"%s\"", lo,
                                 hi, lg__spec_q(s, qb, sizeof qb));
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
        return lg__spec_fail(c, v, where, "at most %d load points, the grid has %zu",
                             LG_MAX_LOADS, nth * nqd);
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
 * resolution} */
static int s_get_search(lg__spec_ctx_t *c, const yaml_node_t *v, const char *where,
                        lg_profile_t *p)
{
    char qb[128];
    lg_search_t *s = &p->search;
    if (v->type != YAML_MAPPING_NODE)
        return lg__spec_fail(c, v, where,
                             "must be a mapping, e.g. {metric: p99_ms, limit: 5, vary: qd}, got %s",
                             lg__spec_node_kind(v));
    *s = (lg_search_t){.on = true, .metric = LG_SMETRIC_P99, .vary = LG_VARY_QD, .steps = 10,
                       .resolution_pct = 5};
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
                               "steps, resolution, runtime, threads, qd");
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
static int s_get_curve(lg__spec_ctx_t *c, const yaml_node_t *v, const char *where,
                       lg_profile_t *p)
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
            return lg__spec_fail(c, e.vn, e.path,
                                 "must be pgbench or sysbench-oltp, got \"%s\"",
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
                mul = !strcmp(end, "") ? 1 : !strcmp(end, "k") || !strcmp(end, "K") ? 1000
                    : !strcmp(end, "M") ? 1000000 : 0;
            }
            if (lg__spec_parse_u64(s, &end, &n) != 0 || !mul || n == 0 ||
                n > 1000000000ull / mul)
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
            rc = s_bool_at(c, e.vn, e.path, &a->keep);
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
        return lg__spec_fail(c, m, where, "jobs (%u) cannot exceed clients (%u): pgbench gives "
                             "each of its threads at least one client", a->jobs, a->clients);
    p->read_pct = 0;
    return 0;
}

/* A profile given as a mapping: a custom one {name, bs, pattern, read, ...}, or a standard one
 * by name with only its load or pacing changed {name: 8k-7030, sweep: none}. */
static int s_get_profile_map(lg__spec_ctx_t *c, const yaml_node_t *m, const char *where,
                             lg_profile_t *p)
{
    char qb[128];
    bool have_name = false, have_bs = false, have_pattern = false, standard = false;
    const yaml_node_t *shape = NULL; /* a bs/pattern/read/bssplit key, for the standard check */
    char shape_path[160] = "";
    p->read_pct = -1;
    /* The name first: it decides which keys are allowed. */
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
            standard = true;
        }
        snprintf(p->name, sizeof p->name, "%s", s);
        have_name = true;
    }
    for (size_t i = 0; i < lg__spec_map_len(m); i++) {
        lg__spec_entry_t e;
        const char *s;
        uint64_t n;
        int rc = lg__spec_entry(c, m, i, where, &e);
        if (rc)
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
            if (!(s = lg__spec_scalar(c, e.vn, e.path)))
                return LG_ESPEC;
            /* Microseconds ("500us"), milliseconds ("20ms") or a duration ("2s"). */
            const char *end;
            uint32_t secs;
            if (lg__spec_parse_u64(s, &end, &n) == 0 && !strcmp(end, "us") && n <= 60000000)
                p->thinktime_us = (uint32_t)n;
            else if (lg__spec_parse_u64(s, &end, &n) == 0 && !strcmp(end, "ms") && n <= 60000)
                p->thinktime_us = (uint32_t)n * 1000;
            else if (lg_parse_duration(s, &secs) == 0 && secs <= 60)
                p->thinktime_us = secs * 1000000;
            else
                return lg__spec_fail(c, e.vn, e.path,
                                     "must be a pause of at most 60s (e.g. 500us, 20ms, 2s), "
                                     "got \"%s\"",
                                     lg__spec_q(s, qb, sizeof qb));
        } else if (!strcmp(k, "thinktime_blocks")) {
            rc = s_u32_in(c, e.vn, e.path, 1, 100000000, &p->thinktime_blocks);
        } else if (!strcmp(k, "bs") || !strcmp(k, "pattern") || !strcmp(k, "read") ||
                   !strcmp(k, "bssplit")) {
            if (!shape) {
                shape = e.kn;
                snprintf(shape_path, sizeof shape_path, "%s", e.path);
            }
            if (standard)
                continue; /* refused below, with the profile's name */
            if (!strcmp(k, "bssplit")) {
                rc = s_get_bssplit(c, e.vn, e.path, p);
                have_bs = have_bs || rc == 0;
            } else if (!(s = lg__spec_scalar(c, e.vn, e.path))) {
                return LG_ESPEC;
            } else if (!strcmp(k, "bs")) {
                if (p->nbssplit)
                    continue; /* bssplit decides */
                if (lg_parse_size(s, &n) != 0 || n < 512 || n > 16u * 1024 * 1024 || n % 512)
                    return lg__spec_fail(c, e.vn, e.path,
                                         "must be a multiple of 512 from 512 to 16M (e.g. 64k), "
                                         "got \"%s\"",
                                         lg__spec_q(s, qb, sizeof qb));
                p->bs = (uint32_t)n;
                have_bs = true;
            } else if (!strcmp(k, "pattern")) {
                if (strcmp(s, "random") && strcmp(s, "sequential"))
                    return lg__spec_fail(c, e.vn, e.path,
                                         "must be \"random\" or \"sequential\", got \"%s\"",
                                         lg__spec_q(s, qb, sizeof qb));
                p->random = !strcmp(s, "random");
                have_pattern = true;
            } else if (strcmp(s, "split") != 0) {
                const char *end;
                if (lg__spec_parse_u64(s, &end, &n) != 0 || *end != '\0' || n > 100)
                    return lg__spec_fail(c, e.vn, e.path,
                                         "must be an integer from 0 to 100 or \"split\", got "
                                         "\"%s\"",
                                         lg__spec_q(s, qb, sizeof qb));
                p->read_pct = (int)n;
            }
        } else {
            rc = lg__spec_fail(c, e.kn, e.path,
                               "unknown key; allowed in a profile: name, bs, bssplit, pattern, "
                               "read, sweep, search, curve, rate_iops, thinktime, "
                               "thinktime_blocks");
        }
        if (rc)
            return rc;
    }
    if (standard && shape)
        return lg__spec_fail(c, shape, shape_path,
                             "\"%s\" is a standard profile: only sweep, search, curve, rate_iops, "
                             "thinktime and thinktime_blocks may be changed; give a custom "
                             "profile another name",
                             p->name);
    const char *missing =
        !have_name ? "name" : standard ? NULL : !have_bs ? "bs" : !have_pattern ? "pattern" : NULL;
    if (missing) {
        char path[160];
        snprintf(path, sizeof path, "%s.%s", where, missing);
        return lg__spec_fail(c, m, path,
                             "missing required key in a custom profile (needs name, bs or "
                             "bssplit, pattern; read is optional)");
    }
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
                             "paced", p->loads[0].threads, p->loads[0].qd, p->loads[0].rate);
    return 0;
}

static int s_get_profiles(lg__spec_ctx_t *c, const yaml_node_t *v, const s_field_t *f)
{
    if (v->type != YAML_SEQUENCE_NODE)
        return lg__spec_fail(c, v, f->key,
                      "must be a sequence of profiles (e.g. [4k-rand, 128k-seq]), "
                      "got %s",
                      lg__spec_node_kind(v));
    size_t n = (size_t)(v->data.sequence.items.top - v->data.sequence.items.start);
    if (n == 0)
        return lg__spec_fail(c, v, f->key, "must list at least one profile");
    if (n > S_MAX_PROFILES)
        return lg__spec_fail(c, v, f->key, "at most %d profiles are allowed, got %zu", S_MAX_PROFILES, n);
    c->spec->profiles = calloc(n, sizeof *c->spec->profiles);
    if (!c->spec->profiles)
        return -ENOMEM;
    for (size_t i = 0; i < n; i++) {
        char where[64], qb[128];
        const yaml_node_t *it;
        lg_profile_t *p = &c->spec->profiles[i];
        int rc = lg__spec_item(c, v, f->key, i, where, sizeof where, &it);
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
                return lg__spec_fail(c, it, where,
                              "unknown profile \"%s\"; known: 4k-rand, 8k-7030, 8k-seq, 128k-seq",
                              lg__spec_q(s, qb, sizeof qb));
            *p = *std;
        }
        p->line = (int)it->start_mark.line + 1;
        /* Runs are keyed by profile name downstream; a repeat would make two runs ambiguous. */
        for (size_t j = 0; j < i; j++)
            if (strcmp(c->spec->profiles[j].name, p->name) == 0)
                return lg__spec_fail(c, it, where, "profile \"%s\" is already listed as %s[%zu]", p->name,
                              f->key, j);
        c->spec->nprofiles = i + 1;
    }
    return 0;
}


/* ---- SUT configs and targets ---- */

static int s_get_labels(lg__spec_ctx_t *c, const yaml_node_t *map, const char *where,
                        lg_sutconfig_t *cfg)
{
    if (map->type != YAML_MAPPING_NODE)
        return lg__spec_fail(c, map, where, "must be a mapping, got %s", lg__spec_node_kind(map));
    size_t n = lg__spec_map_len(map);
    if (n > S_MAX_LABELS)
        return lg__spec_fail(c, map, where, "at most %d labels are allowed, got %zu",
                             S_MAX_LABELS, n);
    if (n && !(cfg->labels = calloc(n, sizeof *cfg->labels)))
        return -ENOMEM;
    size_t bytes = 0;
    for (size_t i = 0; i < n; i++) {
        lg__spec_entry_t e;
        const char *val;
        int rc = lg__spec_entry(c, map, i, where, &e);
        if (rc)
            return rc;
        if (!lg__spec_valid_name(e.key, 63))
            return lg__spec_fail(c, e.kn, e.path, "label names must be " S_NAME_RULE);
        if (!(val = lg__spec_scalar(c, e.vn, e.path)))
            return LG_ESPEC;
        if (strlen(val) > S_MAX_LABEL_VALUE)
            return lg__spec_fail(c, e.vn, e.path,
                                 "label values are at most %d characters, got %zu",
                                 S_MAX_LABEL_VALUE, strlen(val));
        bytes += strlen(e.key) + strlen(val) + 8;
        if (bytes > S_MAX_LABELS_BYTES)
            return lg__spec_fail(c, e.kn, e.path,
                                 "the labels of a config take at most %d bytes (names and values "
                                 "together; the database indexes them)",
                                 S_MAX_LABELS_BYTES);
        lg_label_t *l = &cfg->labels[cfg->nlabels++]; /* counted first: destroy frees it */
        l->key = lg__spec_dup(e.key);
        l->value = lg__spec_dup(val);
        if (!l->key || !l->value)
            return -ENOMEM;
    }
    return 0;
}

/* What every agent refuses in a target ('$', "." and ".." components: lg_path_refused_part, of
 * path: the target s without its file:, block: or dir:), refused here so that the error names
 * the spec's line before anything is submitted. */
static int s_target_refused(lg__spec_ctx_t *c, const yaml_node_t *v, const char *where,
                            const char *s, const char *path)
{
    char qb[128];
    const char *part = lg_path_refused_part(path);
    return part ? lg__spec_fail(c, v, where,
                                "must not hold %s: lg-agent refuses such a target, got \"%s\"",
                                part, lg__spec_q(s, qb, sizeof qb))
                : 0;
}

/* smb://[user@]host[:port]/share/path or iscsi://host[:port]/iqn/lun: checked here, used by the
 * agent's lgsmb and lgiscsi engines. Credentials never appear in a spec. */
static int s_target_url(lg__spec_ctx_t *c, const yaml_node_t *v, const char *where,
                        lg_target_t *t, const char *s)
{
    char qb[128];
    int smb = strncmp(s, "smb://", 6) == 0;
    const char *rest = s + (smb ? 6 : 8), *slash = strchr(rest, '/');
    const char *at = memchr(rest, '@', slash ? (size_t)(slash - rest) : strlen(rest));
    const char *host = at ? at + 1 : rest;
    if (strlen(s) > S_MAX_PATH)
        return lg__spec_fail(c, v, where, "target is longer than %d characters", S_MAX_PATH);
    for (const char *p = s; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            return lg__spec_fail(c, v, where, "target must not contain control characters");
    int rc = s_target_refused(c, v, where, s, s);
    if (rc)
        return rc;
    if (at && (memchr(rest, ':', (size_t)(at - rest)) || memchr(rest, '%', (size_t)(at - rest)) ||
               !smb))
        return lg__spec_fail(c, v, where,
                             "credentials never go in a spec: give the agent %s (got \"%s\")",
                             smb ? "--smb-credentials FILE" : "--iscsi-chap FILE",
                             lg__spec_q(s, qb, sizeof qb));
    if (!slash || slash == host || host[0] == ':')
        return lg__spec_fail(c, v, where, "%s has no host, got \"%s\"",
                             smb ? "smb://[user@]host[:port]/share/path"
                                 : "iscsi://host[:port]/iqn/lun",
                             lg__spec_q(s, qb, sizeof qb));
    const char *port = memchr(host, ':', (size_t)(slash - host));
    if (port) {
        uint64_t pn;
        char pb[8] = "";
        size_t pl = (size_t)(slash - port - 1);
        if (pl == 0 || pl >= sizeof pb)
            return lg__spec_fail(c, v, where, "bad port in \"%s\"", lg__spec_q(s, qb, sizeof qb));
        memcpy(pb, port + 1, pl);
        const char *end;
        if (lg__spec_parse_u64(pb, &end, &pn) != 0 || *end || pn == 0 || pn > 65535)
            return lg__spec_fail(c, v, where, "bad port in \"%s\"", lg__spec_q(s, qb, sizeof qb));
    }
    const char *a = slash + 1, *b = strchr(a, '/');
    if (!b || b == a || !b[1] || b[strlen(b) - 1] == '/')
        return lg__spec_fail(c, v, where, "%s, got \"%s\"",
                             smb ? "must name a share and a file: smb://host/share/path"
                                 : "must name a target and a LUN: iscsi://host/iqn/lun",
                             lg__spec_q(s, qb, sizeof qb));
    if (!smb) {
        uint64_t lun;
        const char *end;
        if (strchr(b + 1, '/') || lg__spec_parse_u64(b + 1, &end, &lun) != 0 || *end ||
            lun > 16383)
            return lg__spec_fail(c, v, where, "the LUN must be a number from 0 to 16383, got "
                                              "\"%s\"",
                                 lg__spec_q(s, qb, sizeof qb));
    }
    t->kind = smb ? LG_TARGET_SMB : LG_TARGET_ISCSI;
    free(t->path);
    t->path = lg__spec_dup(s);
    return t->path ? 0 : -ENOMEM;
}

/* A Windows load host's absolute path: "C:\dir" (or "C:/dir"), a UNC path "\\nas\share\dir",
 * or a device "\\.\PhysicalDrive1". */
static int s_win_absolute(const char *p)
{
    if (((p[0] >= 'A' && p[0] <= 'Z') || (p[0] >= 'a' && p[0] <= 'z')) && p[1] == ':' &&
        (p[2] == '\\' || p[2] == '/'))
        return 1;
    return p[0] == '\\' && p[1] == '\\' && p[2] && p[2] != '\\';
}

/* A target: "/abs/path", "file:/abs/path", "dir:/abs/dir" (lg's file in that folder, e.g. a
 * mounted share), "block:/dev/...", "smb://...", "iscsi://...", or "null" / "null:" (fio's
 * null engine); for Windows load hosts also "C:\dir", "\\nas\share\dir" and
 * "block:\\.\PhysicalDrive1". */
static int s_target_path(lg__spec_ctx_t *c, const yaml_node_t *v, const char *where,
                         lg_target_t *t)
{
    char qb[128];
    const char *s = lg__spec_scalar(c, v, where);
    if (!s)
        return LG_ESPEC;
    if (strncmp(s, "smb://", 6) == 0 || strncmp(s, "iscsi://", 8) == 0)
        return s_target_url(c, v, where, t, s);
    if (strncmp(s, "dir:", 4) == 0) {
        const char *d = s + 4;
        int win = s_win_absolute(d);
        char sep = win ? '\\' : '/';
        size_t n = strlen(d);
        while (n > 1 && (d[n - 1] == '/' || (win && d[n - 1] == '\\')))
            n--;
        if (d[0] != '/' && !win)
            return lg__spec_fail(c, v, where, "dir: needs an absolute path, got \"%s\"",
                                 lg__spec_q(s, qb, sizeof qb));
        char *path = malloc(n + 32);
        if (!path)
            return -ENOMEM;
        snprintf(path, n + 32, "%.*s%clg-data.bin", (int)n, d, sep);
        if (n == 1 && d[0] == '/')
            snprintf(path, n + 32, "/lg-data.bin");
        int rc = 0;
        for (const char *p = path; *p && rc == 0; p++)
            if ((unsigned char)*p < 0x20 || *p == 0x7f)
                rc = lg__spec_fail(c, v, where, "path must not contain control characters");
        if (rc == 0 && strlen(path) > S_MAX_PATH)
            rc = lg__spec_fail(c, v, where, "path is longer than %d characters", S_MAX_PATH);
        if (rc == 0)
            rc = s_target_refused(c, v, where, s, d);
        if (rc) {
            free(path);
            return rc;
        }
        t->kind = LG_TARGET_FILE;
        t->dir = true;
        free(t->path);
        t->path = path;
        return 0;
    }
    if (strcmp(s, "null") == 0 || strcmp(s, "null:") == 0) {
        t->kind = LG_TARGET_NULL;
        free(t->path);
        t->path = lg__spec_dup("");
        return t->path ? 0 : -ENOMEM;
    }
    int block = strncmp(s, "block:", 6) == 0;
    const char *path = block ? s + 6 : strncmp(s, "file:", 5) == 0 ? s + 5 : s;
    if (path[0] != '/' && !s_win_absolute(path))
        return lg__spec_fail(c, v, where,
                             "must be an absolute path (\"/abs/path\", \"file:/abs/path\", "
                             "\"dir:/abs/dir\" or \"block:/dev/...\"; on Windows hosts "
                             "\"C:\\dir\", \"\\\\nas\\share\\dir\"), smb://host/share/path, "
                             "iscsi://host/iqn/lun or \"null:\", got \"%s\"",
                             lg__spec_q(s, qb, sizeof qb));
    if (strlen(path) > S_MAX_PATH)
        return lg__spec_fail(c, v, where, "path is longer than %d characters", S_MAX_PATH);
    /* The path ends up in fio job files, where a newline would start a new option. */
    for (const char *p = path; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            return lg__spec_fail(c, v, where, "path must not contain control characters");
    int rc = s_target_refused(c, v, where, s, path);
    if (rc)
        return rc;
    t->kind = block ? LG_TARGET_BLOCK : LG_TARGET_FILE;
    free(t->path);
    t->path = lg__spec_dup(path);
    return t->path ? 0 : -ENOMEM;
}

static int s_protocol(lg__spec_ctx_t *c, const yaml_node_t *v, const char *where, lg_target_t *t)
{
    char qb[128];
    const char *s = lg__spec_scalar(c, v, where);
    if (!s)
        return LG_ESPEC;
    size_t n = strlen(s);
    bool ok = n > 0 && n < sizeof t->protocol;
    for (size_t i = 0; ok && i < n; i++)
        ok = (s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '-';
    if (!ok)
        return lg__spec_fail(c, v, where,
                             "must be a protocol name of 1 to 31 characters from a-z 0-9 - "
                             "(e.g. smb, iscsi, nfs, local), got \"%s\"",
                             lg__spec_q(s, qb, sizeof qb));
    snprintf(t->protocol, sizeof t->protocol, "%s", s);
    return 0;
}

/* fs: what the file target's filesystem must be (the agent checks before Prepare). */
static int s_target_fs(lg__spec_ctx_t *c, const yaml_node_t *v, const char *where, lg_target_t *t)
{
    char qb[128];
    const char *s = lg__spec_scalar(c, v, where);
    if (!s)
        return LG_ESPEC;
    static const char *const ok[] = {"cifs", "smb", "nfs", "iscsi", "local", "any"};
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++)
        if (!strcmp(s, ok[i])) {
            snprintf(t->fs, sizeof t->fs, "%s", i == 1 ? "cifs" : s);
            return 0;
        }
    return lg__spec_fail(c, v, where,
                         "must be cifs (or smb), nfs, iscsi, local or any: what the target's "
                         "filesystem must be, got \"%s\"",
                         lg__spec_q(s, qb, sizeof qb));
}

/* mount: the mount point the target must sit under, e.g. /mnt/nas-smb. */
static int s_target_mount(lg__spec_ctx_t *c, const yaml_node_t *v, const char *where,
                          lg_target_t *t)
{
    char qb[128];
    const char *s = lg__spec_scalar(c, v, where);
    if (!s)
        return LG_ESPEC;
    if ((s[0] != '/' && !s_win_absolute(s)) || strlen(s) > S_MAX_PATH)
        return lg__spec_fail(c, v, where, "must be the absolute path of a mount point, got \"%s\"",
                             lg__spec_q(s, qb, sizeof qb));
    for (const char *p = s; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            return lg__spec_fail(c, v, where, "must not contain control characters");
    int rc = s_target_refused(c, v, where, s, s);
    if (rc)
        return rc;
    free(t->mount);
    t->mount = lg__spec_dup(s);
    return t->mount ? 0 : -ENOMEM;
}

static void s_default_protocol(lg_target_t *t)
{
    if (!t->protocol[0])
        snprintf(t->protocol, sizeof t->protocol, "%s",
                 t->kind == LG_TARGET_NULL    ? "null"
                 : t->kind == LG_TARGET_BLOCK ? "block"
                 : t->kind == LG_TARGET_SMB   ? "smb"
                 : t->kind == LG_TARGET_ISCSI ? "iscsi"
                                              : "local");
}

/* {protocol: smb, target: /mnt/nas/lg.bin} */
static int s_get_target_entry(lg__spec_ctx_t *c, const yaml_node_t *m, const char *where,
                              lg_target_t *t)
{
    if (m->type == YAML_SCALAR_NODE) { /* a bare path */
        int rc = s_target_path(c, m, where, t);
        s_default_protocol(t);
        return rc;
    }
    if (m->type != YAML_MAPPING_NODE)
        return lg__spec_fail(c, m, where, "must be a mapping {protocol, target}, got %s",
                             lg__spec_node_kind(m));
    bool have_target = false;
    for (size_t i = 0; i < lg__spec_map_len(m); i++) {
        lg__spec_entry_t e;
        int rc = lg__spec_entry(c, m, i, where, &e);
        if (rc)
            return rc;
        if (!strcmp(e.key, "protocol"))
            rc = s_protocol(c, e.vn, e.path, t);
        else if (!strcmp(e.key, "target")) {
            rc = s_target_path(c, e.vn, e.path, t);
            have_target = true;
        } else if (!strcmp(e.key, "agents"))
            rc = lg__spec_get_agents(c, e.vn, e.path, &t->agents);
        else if (!strcmp(e.key, "share"))
            rc = lg__spec_get_share(c, e.vn, e.path, &t->agents);
        else if (!strcmp(e.key, "fs"))
            rc = s_target_fs(c, e.vn, e.path, t);
        else if (!strcmp(e.key, "mount"))
            rc = s_target_mount(c, e.vn, e.path, t);
        else
            rc = lg__spec_fail(c, e.kn, e.path, "unknown key; allowed in a target: protocol, "
                                                "target, agents, share, fs, mount");
        if (rc)
            return rc;
    }
    if (!have_target) {
        char path[160];
        snprintf(path, sizeof path, "%s.target", where);
        return lg__spec_fail(c, m, path, "missing required key");
    }
    s_default_protocol(t);
    return lg__spec_check_share(c, m, where, t, &t->agents);
}

static int s_get_targets(lg__spec_ctx_t *c, const yaml_node_t *v, const char *where,
                         lg_sutconfig_t *cfg)
{
    if (v->type != YAML_SEQUENCE_NODE)
        return lg__spec_fail(c, v, where, "must be a list of {protocol, target}, got %s",
                             lg__spec_node_kind(v));
    size_t n = (size_t)(v->data.sequence.items.top - v->data.sequence.items.start);
    if (n == 0 || n > S_MAX_TARGETS)
        return lg__spec_fail(c, v, where, "must list 1 to %d targets", S_MAX_TARGETS);
    if (!(cfg->targets = calloc(n, sizeof *cfg->targets)))
        return -ENOMEM;
    for (size_t i = 0; i < n; i++) {
        char w[160];
        const yaml_node_t *it;
        int rc = lg__spec_item(c, v, where, i, w, sizeof w, &it);
        if (rc)
            return rc;
        cfg->ntargets = i + 1;
        rc = s_get_target_entry(c, it, w, &cfg->targets[i]);
        if (rc)
            return rc;
        for (size_t j = 0; j < i; j++)
            if (!strcmp(cfg->targets[j].protocol, cfg->targets[i].protocol))
                return lg__spec_fail(c, it, w,
                                     "protocol \"%s\" is already given for this config as "
                                     "%s[%zu]",
                                     cfg->targets[i].protocol, where, j);
    }
    return 0;
}

/* One element of configs: {labels: {...}, targets: [...]} or {labels, target, protocol}. */
static int s_get_config(lg__spec_ctx_t *c, const yaml_node_t *m, const char *where,
                        lg_sutconfig_t *cfg)
{
    if (m->type != YAML_MAPPING_NODE)
        return lg__spec_fail(c, m, where, "must be a mapping {labels, targets}, got %s",
                             lg__spec_node_kind(m));
    cfg->line = (int)m->start_mark.line + 1;
    const yaml_node_t *target = NULL, *protocol = NULL, *targets = NULL;
    for (size_t i = 0; i < lg__spec_map_len(m); i++) {
        lg__spec_entry_t e;
        int rc = lg__spec_entry(c, m, i, where, &e);
        if (rc)
            return rc;
        if (!strcmp(e.key, "labels"))
            rc = s_get_labels(c, e.vn, e.path, cfg);
        else if (!strcmp(e.key, "targets"))
            rc = s_get_targets(c, e.vn, e.path, cfg), targets = e.kn;
        else if (!strcmp(e.key, "target"))
            target = e.vn;
        else if (!strcmp(e.key, "protocol"))
            protocol = e.vn;
        else if (!strcmp(e.key, "telemetry"))
            rc = lg__spec_get_telemetry(c, e.vn, e.path, &cfg->telemetry, &cfg->ntelemetry),
            cfg->telemetry_given = true;
        else if (!strcmp(e.key, "reduction"))
            rc = lg__spec_get_argv(c, e.vn, e.path, &cfg->reduction, &cfg->nreduction);
        else
            rc = lg__spec_fail(c, e.kn, e.path,
                               "unknown key; allowed in a config: labels, targets (or target "
                               "and protocol), telemetry, reduction");
        if (rc)
            return rc;
    }
    char path[160];
    if (targets && (target || protocol))
        return lg__spec_fail(c, target ? target : protocol, where,
                             "give either targets or target/protocol, not both");
    if (!targets) {
        snprintf(path, sizeof path, "%s.target", where);
        if (!target)
            return lg__spec_fail(c, m, path, "missing required key (or targets)");
        if (!(cfg->targets = calloc(1, sizeof *cfg->targets)))
            return -ENOMEM;
        cfg->ntargets = 1;
        int rc = s_target_path(c, target, path, &cfg->targets[0]);
        if (rc == 0 && protocol) {
            snprintf(path, sizeof path, "%s.protocol", where);
            rc = s_protocol(c, protocol, path, &cfg->targets[0]);
        }
        if (rc)
            return rc;
        s_default_protocol(&cfg->targets[0]);
    }
    return 0;
}

static int s_get_configs(lg__spec_ctx_t *c, const yaml_node_t *v, const s_field_t *f)
{
    if (v->type != YAML_SEQUENCE_NODE)
        return lg__spec_fail(c, v, f->key, "must be a list of SUT configs, got %s",
                             lg__spec_node_kind(v));
    size_t n = (size_t)(v->data.sequence.items.top - v->data.sequence.items.start);
    if (n == 0 || n > S_MAX_CONFIGS)
        return lg__spec_fail(c, v, f->key, "must list 1 to %d configs", S_MAX_CONFIGS);
    if (!(c->spec->configs = calloc(n, sizeof *c->spec->configs)))
        return -ENOMEM;
    for (size_t i = 0; i < n; i++) {
        char w[64];
        const yaml_node_t *it;
        int rc = lg__spec_item(c, v, f->key, i, w, sizeof w, &it);
        if (rc)
            return rc;
        c->spec->nconfigs = i + 1;
        rc = s_get_config(c, it, w, &c->spec->configs[i]);
        if (rc)
            return rc;
    }
    c->configs_node = v;
    return 0;
}

/* The one-config shorthand: sut.labels, target and protocol at the top level. */
static lg_sutconfig_t *s_implicit(lg__spec_ctx_t *c)
{
    if (!c->spec->configs) {
        c->spec->configs = calloc(1, sizeof *c->spec->configs);
        if (!c->spec->configs)
            return NULL;
        c->spec->nconfigs = 1;
    }
    lg_sutconfig_t *cfg = &c->spec->configs[0];
    if (!cfg->targets) {
        cfg->targets = calloc(1, sizeof *cfg->targets);
        if (!cfg->targets)
            return NULL;
        cfg->ntargets = 1;
    }
    return cfg;
}

static int s_get_sut(lg__spec_ctx_t *c, const yaml_node_t *v, const s_field_t *f)
{
    if (v->type != YAML_MAPPING_NODE)
        return lg__spec_fail(c, v, f->key, "must be a mapping, got %s", lg__spec_node_kind(v));
    lg_sutconfig_t *cfg = s_implicit(c);
    if (!cfg)
        return -ENOMEM;
    c->sut_node = v;
    for (size_t i = 0; i < lg__spec_map_len(v); i++) {
        lg__spec_entry_t e;
        int rc = lg__spec_entry(c, v, i, f->key, &e);
        if (rc)
            return rc;
        if (strcmp(e.key, "labels") != 0)
            return lg__spec_fail(c, e.kn, e.path, "unknown key; allowed under \"sut\": labels");
        if ((rc = s_get_labels(c, e.vn, "sut.labels", cfg)) != 0)
            return rc;
    }
    return 0;
}

static int s_get_target(lg__spec_ctx_t *c, const yaml_node_t *v, const s_field_t *f)
{
    lg_sutconfig_t *cfg = s_implicit(c);
    if (!cfg)
        return -ENOMEM;
    c->target_node = v;
    return s_target_path(c, v, f->key, &cfg->targets[0]);
}

static int s_get_protocol(lg__spec_ctx_t *c, const yaml_node_t *v, const s_field_t *f)
{
    lg_sutconfig_t *cfg = s_implicit(c);
    if (!cfg)
        return -ENOMEM;
    c->protocol_node = v;
    return s_protocol(c, v, f->key, &cfg->targets[0]);
}

/* ---- methodology ---- */

static int s_precond_mode(lg__spec_ctx_t *c, const yaml_node_t *v, const char *where)
{
    char qb[128];
    const char *s = lg__spec_scalar(c, v, where);
    if (!s)
        return LG_ESPEC;
    if (!strcmp(s, "steady-state"))
        c->spec->precondition = LG_PRECOND_STEADY;
    else if (!strcmp(s, "fill"))
        c->spec->precondition = LG_PRECOND_FILL;
    else if (!strcmp(s, "none"))
        c->spec->precondition = LG_PRECOND_NONE;
    else
        return lg__spec_fail(c, v, where,
                             "must be steady-state, fill or none, got \"%s\"",
                             lg__spec_q(s, qb, sizeof qb));
    return 0;
}

/* precondition: steady-state | fill | none | {mode, round, max} */
static int s_get_precondition(lg__spec_ctx_t *c, const yaml_node_t *v, const s_field_t *f)
{
    c->precond_node = v;
    if (v->type == YAML_SCALAR_NODE)
        return s_precond_mode(c, v, f->key);
    if (v->type != YAML_MAPPING_NODE)
        return lg__spec_fail(c, v, f->key, "must be a mode or {mode, round, max}, got %s",
                             lg__spec_node_kind(v));
    for (size_t i = 0; i < lg__spec_map_len(v); i++) {
        char qb[128];
        lg__spec_entry_t e;
        uint32_t secs;
        const char *s;
        int rc = lg__spec_entry(c, v, i, f->key, &e);
        if (rc)
            return rc;
        if (!strcmp(e.key, "mode")) {
            rc = s_precond_mode(c, e.vn, e.path);
        } else if (!strcmp(e.key, "round") || !strcmp(e.key, "max")) {
            if (!(s = lg__spec_scalar(c, e.vn, e.path)))
                return LG_ESPEC;
            if (lg_parse_duration(s, &secs) != 0 || secs < 1 || secs > 7 * 86400)
                return lg__spec_fail(c, e.vn, e.path,
                                     "must be a duration from 1s to 7 days (e.g. 60s, 30m), "
                                     "got \"%s\"",
                                     lg__spec_q(s, qb, sizeof qb));
            if (!strcmp(e.key, "round"))
                c->spec->round_s = secs;
            else
                c->spec->precond_max_s = secs;
        } else {
            rc = lg__spec_fail(c, e.kn, e.path,
                               "unknown key; allowed in precondition: mode, round, max");
        }
        if (rc)
            return rc;
    }
    return 0;
}

static int s_ratio(lg__spec_ctx_t *c, const yaml_node_t *v, const char *where, double lo,
                   double hi, double *out)
{
    char qb[128];
    const char *s = lg__spec_scalar(c, v, where);
    if (!s)
        return LG_ESPEC;
    char *end = NULL;
    errno = 0;
    double d = strtod(s, &end);
    if (errno || end == s || *end || !(d >= lo && d <= hi) || s[0] == '-' || s[0] == '+')
        return lg__spec_fail(c, v, where, "must be a ratio from %g to %g (e.g. 2.0), got \"%s\"",
                             lo, hi, lg__spec_q(s, qb, sizeof qb));
    *out = d;
    return 0;
}

/* data: {compress_ratio, dedup_ratio, dedup_unit} */
static int s_get_data(lg__spec_ctx_t *c, const yaml_node_t *v, const s_field_t *f)
{
    c->data_node = v;
    if (v->type != YAML_MAPPING_NODE)
        return lg__spec_fail(c, v, f->key,
                             "must be a mapping {compress_ratio, dedup_ratio, dedup_unit}, got %s",
                             lg__spec_node_kind(v));
    for (size_t i = 0; i < lg__spec_map_len(v); i++) {
        char qb[128];
        lg__spec_entry_t e;
        int rc = lg__spec_entry(c, v, i, f->key, &e);
        if (rc)
            return rc;
        if (!strcmp(e.key, "compress_ratio")) {
            rc = s_ratio(c, e.vn, e.path, 1.0, 20.0, &c->spec->compress_ratio);
        } else if (!strcmp(e.key, "dedup_ratio")) {
            rc = s_ratio(c, e.vn, e.path, 1.0, 100.0, &c->spec->dedup_ratio);
        } else if (!strcmp(e.key, "dedup_unit")) {
            uint64_t b;
            const char *s = lg__spec_scalar(c, e.vn, e.path);
            if (!s)
                return LG_ESPEC;
            if (lg_parse_size(s, &b) != 0 || b < 512 || b > 16u << 20 || (b & (b - 1)))
                return lg__spec_fail(c, e.vn, e.path,
                                     "must be a power of two from 512 to 16M (e.g. 128k, 4k), "
                                     "got \"%s\"",
                                     lg__spec_q(s, qb, sizeof qb));
            c->spec->dedup_unit = (uint32_t)b;
        } else {
            rc = lg__spec_fail(c, e.kn, e.path,
                               "unknown key; allowed in data: compress_ratio, dedup_ratio, "
                               "dedup_unit");
        }
        if (rc)
            return rc;
    }
    return 0;
}

static int s_get_between(lg__spec_ctx_t *c, const yaml_node_t *v, const s_field_t *f)
{
    char qb[128];
    const char *s = lg__spec_scalar(c, v, f->key);
    if (!s)
        return LG_ESPEC;
    if (!strcmp(s, "pause"))
        c->spec->between = LG_BETWEEN_PAUSE;
    else if (!strcmp(s, "hook"))
        c->spec->between = LG_BETWEEN_HOOK;
    else if (!strcmp(s, "none"))
        c->spec->between = LG_BETWEEN_NONE;
    else
        return lg__spec_fail(c, v, f->key,
                             "must be pause (wait for lgctl resume), hook (the controller's "
                             "hook command) or none, got \"%s\"",
                             lg__spec_q(s, qb, sizeof qb));
    return 0;
}

static int s_get_on_loss(lg__spec_ctx_t *c, const yaml_node_t *v, const s_field_t *f)
{
    char qb[128];
    const char *s = lg__spec_scalar(c, v, f->key);
    if (!s)
        return LG_ESPEC;
    if (strcmp(s, "continue") && strcmp(s, "stop"))
        return lg__spec_fail(c, v, f->key,
                             "must be continue (the run ends partial, the campaign goes on) or "
                             "stop, got \"%s\"",
                             lg__spec_q(s, qb, sizeof qb));
    c->spec->stop_on_agent_loss = !strcmp(s, "stop");
    return 0;
}

static int s_get_agents(lg__spec_ctx_t *c, const yaml_node_t *v, const s_field_t *f)
{
    return lg__spec_get_agents(c, v, f->key, &c->spec->agents);
}

static int s_get_share(lg__spec_ctx_t *c, const yaml_node_t *v, const s_field_t *f)
{
    c->share_node = v;
    return lg__spec_get_share(c, v, f->key, &c->spec->agents);
}

static int s_get_telemetry(lg__spec_ctx_t *c, const yaml_node_t *v, const s_field_t *f)
{
    return lg__spec_get_telemetry(c, v, f->key, &c->spec->telemetry, &c->spec->ntelemetry);
}

static const s_field_t s_fields[] = {
    {"name", true, s_get_name, 0, 0, 0},
    {"sut", false, s_get_sut, 0, 0, 0},
    {"target", false, s_get_target, 0, 0, 0},
    {"protocol", false, s_get_protocol, 0, 0, 0},
    {"configs", false, s_get_configs, 0, 0, 0},
    {"size", false, s_get_size, offsetof(lg_spec_t, size), 1024 * 1024, INT64_MAX},
    {"profiles", true, s_get_profiles, 0, 0, 0},
    {"threads", false, s_get_u32, offsetof(lg_spec_t, threads), 1, 256},
    {"qd", false, s_get_u32, offsetof(lg_spec_t, qd), 1, 1024},
    {"ramp", false, s_get_duration, offsetof(lg_spec_t, ramp_s), 0, UINT32_MAX},
    {"runtime", false, s_get_duration, offsetof(lg_spec_t, runtime_s), 1, UINT32_MAX},
    {"repeats", false, s_get_u32, offsetof(lg_spec_t, repeats), 1, 100},
    {"direct", false, s_get_bool, offsetof(lg_spec_t, direct), 0, 0},
    {"precondition", false, s_get_precondition, 0, 0, 0},
    {"data", false, s_get_data, 0, 0, 0},
    {"between_configs", false, s_get_between, 0, 0, 0},
    {"on_agent_loss", false, s_get_on_loss, 0, 0, 0},
    {"agents", false, s_get_agents, 0, 0, 0},
    {"share", false, s_get_share, 0, 0, 0},
    {"telemetry", false, s_get_telemetry, 0, 0, 0},
};
#define S_NFIELDS (sizeof s_fields / sizeof s_fields[0])

static int s_unknown_key(lg__spec_ctx_t *c, const yaml_node_t *kn, const char *path)
{
    char allowed[512] = "";
    size_t o = 0;
    for (size_t i = 0; i < S_NFIELDS && o < sizeof allowed; i++)
        o += (size_t)snprintf(allowed + o, sizeof allowed - o, "%s%s", i ? ", " : "",
                              s_fields[i].key);
    return lg__spec_fail(c, kn, path, "unknown key; allowed: %s", allowed);
}

int lg__spec_walk_top(lg__spec_ctx_t *c, const yaml_node_t *root)
{
    bool seen[S_NFIELDS] = {false};
    if (root->type != YAML_MAPPING_NODE)
        return lg__spec_fail(c, root, "",
                             "the spec must be a mapping of keys (name, target, profiles, "
                             "...), got %s",
                             lg__spec_node_kind(root));
    /* configs first, so the shorthand keys can be refused next to it. */
    for (size_t i = 0; i < lg__spec_map_len(root); i++) {
        lg__spec_entry_t e;
        int rc = lg__spec_entry(c, root, i, "", &e);
        if (rc)
            return rc;
        if (!strcmp(e.key, "configs")) {
            if ((rc = s_get_configs(c, e.vn, &s_fields[4])) != 0)
                return rc;
            seen[4] = true;
        }
    }
    for (size_t i = 0; i < lg__spec_map_len(root); i++) {
        lg__spec_entry_t e;
        size_t fi = 0;
        int rc = lg__spec_entry(c, root, i, "", &e);
        if (rc)
            return rc;
        while (fi < S_NFIELDS && strcmp(s_fields[fi].key, e.key) != 0)
            fi++;
        if (fi == S_NFIELDS)
            return s_unknown_key(c, e.kn, e.path);
        if (!strcmp(e.key, "profiles"))
            c->profiles_node = e.kn;
        if (fi == 4)
            continue;
        if (seen[4] && (fi == 1 || fi == 2 || fi == 3))
            return lg__spec_fail(c, e.kn, e.path,
                                 "with configs, give labels and targets inside each config");
        if ((rc = s_fields[fi].get(c, e.vn, &s_fields[fi])) != 0)
            return rc;
        seen[fi] = true;
    }
    for (size_t fi = 0; fi < S_NFIELDS; fi++)
        if (s_fields[fi].required && !seen[fi])
            return lg__spec_fail(c, root, s_fields[fi].key, "missing required key");
    if (!seen[4] && !seen[2])
        return lg__spec_fail(c, root, "target", "missing required key (or configs)");
    if (!seen[4]) {
        lg_sutconfig_t *cfg = s_implicit(c);
        if (!cfg)
            return -ENOMEM;
        cfg->line = 1;
        s_default_protocol(&cfg->targets[0]);
    }
    for (size_t k = 0; k < c->spec->nconfigs; k++)
        for (size_t i = 0; i < c->spec->configs[k].ntargets; i++) {
            const lg_target_t *t = &c->spec->configs[k].targets[i];
            int rc = t->agents.share_given ? 0
                                           : lg__spec_check_share(c, c->share_node ? c->share_node
                                                                                   : root,
                                                                  "share", t, &c->spec->agents);
            if (rc)
                return rc;
        }
    for (size_t i = 0; i < c->spec->nprofiles; i++)
        if (c->spec->profiles[i].bs > c->spec->size)
            return lg__spec_fail(c, c->size_node ? c->size_node : root, "size",
                                 "the target region (%llu bytes) is smaller than the %u-byte "
                                 "blocks of profile \"%s\"",
                                 (unsigned long long)c->spec->size, c->spec->profiles[i].bs,
                                 c->spec->profiles[i].name);
    /* An application benchmark keeps its database in a folder: every target it runs on must be
     * one (dir:). */
    for (size_t i = 0; i < c->spec->nprofiles; i++) {
        const lg_profile_t *p = &c->spec->profiles[i];
        for (size_t k = 0; p->app.kind && k < c->spec->nconfigs; k++)
            for (size_t t = 0; t < c->spec->configs[k].ntargets; t++) {
                const lg_target_t *tg = &c->spec->configs[k].targets[t];
                char key[64];
                snprintf(key, sizeof key, "profiles[%zu].app", i);
                if (!tg->dir)
                    return lg__spec_fail_at(c->diag, p->line, 0, key,
                                            "profile \"%s\" (app: %s) keeps its database in a "
                                            "folder on the target: target \"%s\" (protocol %s, "
                                            "config %zu) must be given as dir:/abs/dir",
                                            p->name, lg_appwl_name(p->app.kind), tg->path,
                                            tg->protocol, k + 1);
            }
    }
    /* What submit stores at once: plan and submit accept exactly the same specs. */
    lg_run_plan_t *runs = NULL;
    size_t nruns = 0;
    int prc = lg_spec_plan(c->spec, &runs, &nruns);
    free(runs);
    if (prc == 0 && nruns > S_MAX_RUNS)
        return lg__spec_fail(c, c->profiles_node ? c->profiles_node : root, "profiles",
                             "the campaign has %zu runs (configs x targets x profiles x load "
                             "points x repeats); the limit is %d: split it into several campaigns",
                             nruns, S_MAX_RUNS);
    /* A data pattern must be one fio can really write with each workload's block size. */
    if (c->spec->compress_ratio > 0 || c->spec->dedup_ratio > 0) {
        lg_datapattern_t dp = {c->spec->compress_ratio ? c->spec->compress_ratio : 1.0,
                               c->spec->dedup_ratio ? c->spec->dedup_ratio : 1.0,
                               c->spec->dedup_unit};
        lg_datapattern_plan_t plan;
        char why[768];
        for (size_t i = 0; i <= c->spec->nprofiles; i++) {
            const lg_profile_t *p = i < c->spec->nprofiles ? &c->spec->profiles[i] : NULL;
            if (p ? p->read_pct == 100 || p->app.kind : c->spec->precondition != LG_PRECOND_FILL)
                continue; /* reads write nothing; the fill writes at 128k; an app its own data */
            uint32_t bs = p ? p->bs : 131072;
            if (lg_datapattern_plan(&dp, bs, &plan, why, sizeof why) != 0)
                return lg__spec_fail(c, c->data_node ? c->data_node : root, "data",
                                     "%s%s%s writes %u-byte blocks: %s", p ? "profile \"" : "",
                                     p ? p->name : "the fill", p ? "\"" : "", bs, why);
        }
    }
    if (c->spec->precondition == LG_PRECOND_STEADY &&
        c->spec->precond_max_s < 5 * c->spec->round_s)
        return lg__spec_fail(c, c->precond_node ? c->precond_node : root, "precondition",
                             "max (%us) must allow at least the 5 rounds of the steady-state "
                             "window (5 x %us)",
                             c->spec->precond_max_s, c->spec->round_s);
    return 0;
}
