/* lg_spec_keys.c: the table of a campaign spec's top-level keys (name, required, handler, range)
 * and the handlers of the small ones: name, size, the load and timing numbers, preconditioning,
 * data pattern, between_configs, on_agent_loss. lg_spec_walk.c walks a spec through the table;
 * the bigger keys have their own files (lg_spec_configs.c, lg_spec_profiles.c, ...). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lg_error.h"
#include "lg_spec_int.h"

typedef lg__spec_field_t s_field_t; /* an entry of the table below, short */

/* ---- generic handlers: a value at offset in lg_spec_t, within [min, max] ---- */

static int s_get_name(lg__spec_ctx_t *c, const yaml_node_t *v, const s_field_t *f)
{
    char qb[128];
    const char *s = lg__spec_scalar(c, v, f->key);
    if (!s)
        return LG_ESPEC;
    if (!lg__spec_valid_name(s, 63))
        return lg__spec_fail(c, v, f->key, "must be " S_NAME_RULE ", got \"%s\"",
                             lg__spec_q(s, qb, sizeof qb));
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
        return lg__spec_fail(c, v, f->key,
                             "must be a size of at least 1M (e.g. 256M, 1G), got \"%s\"",
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
        return lg__spec_fail(c, v, f->key,
                             "must be a duration%s (e.g. 90, 30s, 5m, 1h), got \"%s\"",
                             f->min ? " of at least 1s" : "", lg__spec_q(s, qb, sizeof qb));
    *(uint32_t *)((char *)c->spec + f->offset) = secs;
    return 0;
}

static int s_get_bool(lg__spec_ctx_t *c, const yaml_node_t *v, const s_field_t *f)
{
    return lg__spec_bool(c, v, f->key, (bool *)((char *)c->spec + f->offset));
}

/* ---- methodology ---- */

static int s_precond_mode(lg__spec_ctx_t *c, const yaml_node_t *v, const char *where)
{
    char qb[128];
    const char *s = lg__spec_scalar(c, v, where);
    if (!s)
        return LG_ESPEC;
    if (lg_precond_parse(s, &c->spec->precondition) != 0)
        return lg__spec_fail(c, v, where, "must be steady-state, fill or none, got \"%s\"",
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

static int s_ratio(lg__spec_ctx_t *c, const yaml_node_t *v, const char *where, double lo, double hi,
                   double *out)
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
    if (lg_between_parse(s, &c->spec->between) != 0)
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

/* ---- keys read in their own files ---- */

static int s_get_sut(lg__spec_ctx_t *c, const yaml_node_t *v, const s_field_t *f)
{
    return lg__spec_get_sut(c, v, f->key);
}

static int s_get_target(lg__spec_ctx_t *c, const yaml_node_t *v, const s_field_t *f)
{
    return lg__spec_get_target(c, v, f->key);
}

static int s_get_protocol(lg__spec_ctx_t *c, const yaml_node_t *v, const s_field_t *f)
{
    return lg__spec_get_protocol(c, v, f->key);
}

static int s_get_configs(lg__spec_ctx_t *c, const yaml_node_t *v, const s_field_t *f)
{
    return lg__spec_get_configs(c, v, f->key);
}

static int s_get_profiles(lg__spec_ctx_t *c, const yaml_node_t *v, const s_field_t *f)
{
    return lg__spec_get_profiles(c, v, f->key);
}

/* ---- the table ---- */

static const s_field_t s_fields[] = {
    {"name", true, s_get_name, 0, 0, 0},
    [LG__SPEC_K_SUT] = {"sut", false, s_get_sut, 0, 0, 0},
    [LG__SPEC_K_TARGET] = {"target", false, s_get_target, 0, 0, 0},
    [LG__SPEC_K_PROTOCOL] = {"protocol", false, s_get_protocol, 0, 0, 0},
    [LG__SPEC_K_CONFIGS] = {"configs", false, s_get_configs, 0, 0, 0},
    /* the rest in order after configs */
    {"size", false, s_get_size, offsetof(lg_spec_t, size), 1024 * 1024, INT64_MAX},
    {"profiles", true, s_get_profiles, 0, 0, 0},
    {"threads", false, s_get_u32, offsetof(lg_spec_t, threads), 1, 256},
    {"qd", false, s_get_u32, offsetof(lg_spec_t, qd), 1, 1024},
    {"ramp", false, s_get_duration, offsetof(lg_spec_t, ramp_s), 0, UINT32_MAX},
    {"runtime", false, s_get_duration, offsetof(lg_spec_t, runtime_s), 1, UINT32_MAX},
    {"repeats", false, s_get_u32, offsetof(lg_spec_t, repeats), 1, 100},
    {"retries", false, s_get_u32, offsetof(lg_spec_t, retries), 0, 10},
    {"direct", false, s_get_bool, offsetof(lg_spec_t, direct), 0, 0},
    {"precondition", false, s_get_precondition, 0, 0, 0},
    {"data", false, s_get_data, 0, 0, 0},
    {"between_configs", false, s_get_between, 0, 0, 0},
    {"on_agent_loss", false, s_get_on_loss, 0, 0, 0},
    {"agents", false, s_get_agents, 0, 0, 0},
    {"share", false, s_get_share, 0, 0, 0},
    {"telemetry", false, s_get_telemetry, 0, 0, 0},
};
_Static_assert(sizeof s_fields / sizeof s_fields[0] == LG__SPEC_NKEYS,
               "LG__SPEC_NKEYS (lg_spec_int.h) counts the keys of s_fields");

const lg__spec_field_t *const lg__spec_fields = s_fields;

int lg__spec_unknown_key(lg__spec_ctx_t *c, const yaml_node_t *kn, const char *path)
{
    char allowed[512] = "";
    size_t o = 0;
    for (size_t i = 0; i < LG__SPEC_NKEYS && o < sizeof allowed; i++)
        o += (size_t)snprintf(allowed + o, sizeof allowed - o, "%s%s", i ? ", " : "",
                              s_fields[i].key);
    return lg__spec_fail(c, kn, path, "unknown key; allowed: %s", allowed);
}