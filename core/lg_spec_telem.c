/* lg_spec_telem.c: the telemetry: key of a campaign spec (and of a config: its own sources), a
 * config's reduction: probe (a name of the operator's and its parameters), and their JSON forms as
 * lg.run keeps them for the controller. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "lg_error.h"
#include "lg_operator.h"
#include "lg_spec_int.h"

#define S_MAX_METRICS 64
#define S_MAX_URL 2048

int lg_parse_ms(const char *s, uint32_t *ms)
{
    if (!s || !*s)
        return LG_EPARSE;
    char *end = NULL;
    double v = strtod(s, &end);
    if (end == s || !(v >= 0) || !isfinite(v) || s[0] == '-' || s[0] == '+' || s[0] == ' ')
        return LG_EPARSE;
    double mult;
    if (!strcmp(end, "ms") || !*end)
        mult = 1;
    else if (!strcmp(end, "s"))
        mult = 1000;
    else if (!strcmp(end, "m"))
        mult = 60000;
    else
        return LG_EPARSE;
    double r = v * mult;
    if (r > 86400000.0 || r != floor(r))
        return LG_EPARSE;
    *ms = (uint32_t)r;
    return 0;
}

void lg_telemetry_clear(lg_telemetry_t *t)
{
    free(t->url);
    for (size_t k = 0; k < t->nmetrics; k++)
        free(t->metrics[k]);
    free(t->metrics);
    free(t->ca_file);
    free(t->token_file);
    memset(t, 0, sizeof *t);
}

void lg_telemetry_destroy(lg_telemetry_t **self_p, size_t n)
{
    lg_telemetry_t *t = self_p ? *self_p : NULL;
    if (!t)
        return;
    for (size_t i = 0; i < n; i++)
        lg_telemetry_clear(&t[i]);
    free(t);
    *self_p = NULL;
}

const lg_telemetry_t *lg_spec_telemetry(const lg_spec_t *spec, size_t k, size_t *n)
{
    if (k < spec->nconfigs && spec->configs[k].telemetry_given) {
        *n = spec->configs[k].ntelemetry;
        return spec->configs[k].telemetry;
    }
    *n = spec->ntelemetry;
    return spec->telemetry;
}

/* http(s)://HOST[:PORT][/PATH]: a host, no spaces. */
static int s_url_ok(const char *u)
{
    const char *h = !strncmp(u, "http://", 7) ? u + 7 : !strncmp(u, "https://", 8) ? u + 8 : NULL;
    if (!h || !*h || *h == '/' || *h == ':' || strlen(u) > S_MAX_URL)
        return 0;
    for (const char *p = u; *p; p++)
        if ((unsigned char)*p <= ' ' || *p == 0x7f)
            return 0;
    return 1;
}

static int s_metrics(lg__spec_ctx_t *c, const yaml_node_t *v, const char *where, lg_telemetry_t *t)
{
    char qb[128];
    if (v->type != YAML_SEQUENCE_NODE)
        return lg__spec_fail(c, v, where, "must be a list of metric names, got %s",
                             lg__spec_node_kind(v));
    size_t n = (size_t)(v->data.sequence.items.top - v->data.sequence.items.start);
    if (n > S_MAX_METRICS)
        return lg__spec_fail(c, v, where, "at most %d metric names", S_MAX_METRICS);
    if (n && !(t->metrics = calloc(n, sizeof *t->metrics)))
        return -ENOMEM;
    for (size_t i = 0; i < n; i++) {
        char w[160];
        const yaml_node_t *it;
        int rc = lg__spec_item(c, v, where, i, w, sizeof w, &it);
        if (rc)
            return rc;
        const char *s = lg__spec_scalar(c, it, w);
        if (!s)
            return LG_ESPEC;
        /* a metric name ([a-zA-Z_:][a-zA-Z0-9_:]*), optionally ending in * (a prefix) */
        size_t len = strlen(s);
        int ok = len > 0 && len < 128 && !(s[0] >= '0' && s[0] <= '9') && s[0] != '*';
        for (size_t k = 0; ok && k < len; k++)
            ok = (s[k] >= 'a' && s[k] <= 'z') || (s[k] >= 'A' && s[k] <= 'Z') ||
                 (s[k] >= '0' && s[k] <= '9') || s[k] == '_' || s[k] == ':' ||
                 (s[k] == '*' && k == len - 1);
        if (!ok)
            return lg__spec_fail(c, it, w,
                                 "must be a Prometheus metric name, or a prefix ending in *, "
                                 "got \"%s\"",
                                 lg__spec_q(s, qb, sizeof qb));
        if (!(t->metrics[i] = lg__spec_dup(s)))
            return -ENOMEM;
        t->nmetrics = i + 1;
    }
    return 0;
}

static int s_source(lg__spec_ctx_t *c, const yaml_node_t *m, const char *where, lg_telemetry_t *t)
{
    char qb[128];
    if (m->type != YAML_MAPPING_NODE)
        return lg__spec_fail(c, m, where,
                             "must be a mapping {name, url, interval, timeout, metrics, "
                             "credential}, got %s",
                             lg__spec_node_kind(m));
    t->interval_ms = 1000;
    t->timeout_ms = 800;
    const yaml_node_t *iv = NULL, *to = NULL;
    int have_name = 0;
    for (size_t i = 0; i < lg__spec_map_len(m); i++) {
        lg__spec_entry_t e;
        int rc = lg__spec_entry(c, m, i, where, &e);
        if (rc)
            return rc;
        const char *s = NULL;
        if (!strcmp(e.key, "name") || !strcmp(e.key, "url") || !strcmp(e.key, "interval") ||
            !strcmp(e.key, "timeout")) {
            if (!(s = lg__spec_scalar(c, e.vn, e.path)))
                return LG_ESPEC;
        }
        if (!strcmp(e.key, "name")) {
            if (!lg__spec_valid_name(s, 63))
                return lg__spec_fail(c, e.vn, e.path, "must be " S_NAME_RULE ", got \"%s\"",
                                     lg__spec_q(s, qb, sizeof qb));
            snprintf(t->name, sizeof t->name, "%s", s);
            have_name = 1;
        } else if (!strcmp(e.key, "url")) {
            if (!s_url_ok(s))
                return lg__spec_fail(c, e.vn, e.path,
                                     "must be an http:// or https:// URL of a Prometheus "
                                     "endpoint (e.g. http://nas:9100/metrics), got \"%s\"",
                                     lg__spec_q(s, qb, sizeof qb));
            if (!(t->url = lg__spec_dup(s)))
                return -ENOMEM;
        } else if (!strcmp(e.key, "interval")) {
            if (lg_parse_ms(s, &t->interval_ms) || t->interval_ms < 100 || t->interval_ms > 3600000)
                return lg__spec_fail(c, e.vn, e.path,
                                     "must be a duration from 100ms to 1h (e.g. 1s, 500ms), got "
                                     "\"%s\"",
                                     lg__spec_q(s, qb, sizeof qb));
            iv = e.vn;
        } else if (!strcmp(e.key, "timeout")) {
            if (lg_parse_ms(s, &t->timeout_ms) || t->timeout_ms < 10 || t->timeout_ms > 600000)
                return lg__spec_fail(c, e.vn, e.path,
                                     "must be a duration from 10ms to 10m (e.g. 800ms), got "
                                     "\"%s\"",
                                     lg__spec_q(s, qb, sizeof qb));
            to = e.vn;
        } else if (!strcmp(e.key, "metrics")) {
            rc = s_metrics(c, e.vn, e.path, t);
        } else if (!strcmp(e.key, "credential")) {
            const char *cn = lg__spec_scalar(c, e.vn, e.path);
            if (!cn)
                return LG_ESPEC;
            if (!lg__spec_valid_name(cn, 63))
                return lg__spec_fail(c, e.vn, e.path,
                                     "must be the name of a credential in the controller's "
                                     "operator file (" S_NAME_RULE "), got \"%s\"",
                                     lg__spec_q(cn, qb, sizeof qb));
            snprintf(t->credential, sizeof t->credential, "%s", cn);
        } else if (!strcmp(e.key, "ca_file") || !strcmp(e.key, "token_file")) {
            rc = lg__spec_fail(c, e.kn, e.path,
                               "a spec names no file the controller reads: a token and a CA are "
                               "a credential of the controller's operator file, bound to one "
                               "origin; name it here with credential: NAME (docs/telemetry.md)");
        } else {
            rc = lg__spec_fail(c, e.kn, e.path,
                               "unknown key; allowed in a telemetry source: name, url, interval, "
                               "timeout, metrics, credential");
        }
        if (rc)
            return rc;
    }
    char path[160];
    if (!have_name || !t->url) {
        snprintf(path, sizeof path, "%s.%s", where, have_name ? "url" : "name");
        return lg__spec_fail(c, m, path, "missing required key");
    }
    if (t->timeout_ms >= t->interval_ms) {
        snprintf(path, sizeof path, "%s.timeout", where);
        return lg__spec_fail(c,
                             to   ? to
                             : iv ? iv
                                  : m,
                             path,
                             "must be shorter than the interval (%u ms), got %u ms: a scrape "
                             "ends before the next is due",
                             t->interval_ms, t->timeout_ms);
    }
    return 0;
}

int lg__spec_get_telemetry(lg__spec_ctx_t *c, const yaml_node_t *v, const char *where,
                           lg_telemetry_t **out, size_t *n)
{
    if (v->type != YAML_SEQUENCE_NODE)
        return lg__spec_fail(c, v, where,
                             "must be a list of sources, e.g. [{name: nas, url: "
                             "\"http://nas:9100/metrics\"}], got %s",
                             lg__spec_node_kind(v));
    size_t cnt = (size_t)(v->data.sequence.items.top - v->data.sequence.items.start);
    if (cnt > LG_MAX_TELEMETRY)
        return lg__spec_fail(c, v, where, "at most %d sources", LG_MAX_TELEMETRY);
    if (cnt && !(*out = calloc(cnt, sizeof **out)))
        return -ENOMEM;
    for (size_t i = 0; i < cnt; i++) {
        char w[160];
        const yaml_node_t *it;
        int rc = lg__spec_item(c, v, where, i, w, sizeof w, &it);
        if (rc)
            return rc;
        *n = i + 1;
        if ((rc = s_source(c, it, w, &(*out)[i])) != 0)
            return rc;
        for (size_t k = 0; k < i; k++)
            if (!strcmp((*out)[k].name, (*out)[i].name))
                return lg__spec_fail(c, it, w, "the name \"%s\" is given twice", (*out)[i].name);
    }
    return 0;
}

/* reduction: {probe: NAME, KEY: VALUE ...}: the probe is the operator's (its program and words
 * are in the controller's operator file); a value is a plain name or path, which the controller
 * checks again against what the probe declares. */
int lg__spec_get_reduction(lg__spec_ctx_t *c, const yaml_node_t *v, const char *where,
                           lg_sutconfig_t *cfg)
{
    char qb[128];
    if (v->type != YAML_MAPPING_NODE)
        return lg__spec_fail(c, v, where,
                             "must name a probe of the controller's operator file and its "
                             "parameters, e.g. {probe: zfs, dataset: tank/lz4}; a spec names no "
                             "program (docs/reduction.md), got %s",
                             lg__spec_node_kind(v));
    size_t cnt = lg__spec_map_len(v);
    if (cnt > LG_OP_MAX_PARAMS + 1)
        return lg__spec_fail(c, v, where, "at most %d parameters", LG_OP_MAX_PARAMS);
    if (!(cfg->reduction_keys = calloc(cnt + 1, sizeof(char *))) ||
        !(cfg->reduction_vals = calloc(cnt + 1, sizeof(char *))))
        return -ENOMEM;
    for (size_t i = 0; i < cnt; i++) {
        lg__spec_entry_t e;
        int rc = lg__spec_entry(c, v, i, where, &e);
        if (rc)
            return rc;
        const char *s = lg__spec_scalar(c, e.vn, e.path);
        if (!s)
            return LG_ESPEC;
        if (!strcmp(e.key, "probe")) {
            if (!lg__spec_valid_name(s, 63))
                return lg__spec_fail(c, e.vn, e.path, "must be " S_NAME_RULE ", got \"%s\"",
                                     lg__spec_q(s, qb, sizeof qb));
            if (!(cfg->reduction = lg__spec_dup(s)))
                return -ENOMEM;
            continue;
        }
        if (!lg__spec_valid_name(e.key, 63))
            return lg__spec_fail(c, e.kn, e.path, "a parameter name must be " S_NAME_RULE);
        if (!lg_operator_value_ok(s, LG_OP_PARAM_PATH))
            return lg__spec_fail(c, e.vn, e.path,
                                 "must be a plain name or path (letters, digits, . _ + : @ %% , - "
                                 "and /; not starting with -; no =, spaces, . or .. parts), got "
                                 "\"%s\"",
                                 lg__spec_q(s, qb, sizeof qb));
        size_t k = cfg->nreduction_params;
        if (!(cfg->reduction_keys[k] = lg__spec_dup(e.key)) ||
            !(cfg->reduction_vals[k] = lg__spec_dup(s)))
            return -ENOMEM;
        cfg->nreduction_params = k + 1;
    }
    if (!cfg->reduction)
        return lg__spec_fail(c, v, where, "names no probe: {probe: NAME, ...}");
    return 0;
}

int lg_telemetry_resolve(lg_telemetry_t *t, size_t n, const struct lg_operator *op, char *err,
                         size_t errlen)
{
    for (size_t i = 0; i < n; i++) {
        free(t[i].token_file);
        free(t[i].ca_file);
        t[i].token_file = t[i].ca_file = NULL;
        if (!t[i].credential[0])
            continue;
        const lg_op_cred_t *cr = NULL;
        char why[600];
        if (lg_operator_cred_for(op, t[i].credential, t[i].url, &cr, why, sizeof why) != 0) {
            snprintf(err, errlen, "telemetry source \"%s\": %s", t[i].name, why);
            return LG_EDENIED;
        }
        if ((cr->token_file && !(t[i].token_file = strdup(cr->token_file))) ||
            (cr->ca_file && !(t[i].ca_file = strdup(cr->ca_file)))) {
            snprintf(err, errlen, "out of memory");
            return -ENOMEM;
        }
    }
    return 0;
}

char *lg_telemetry_json(const lg_telemetry_t *t, size_t n)
{
    json_t *a = json_array();
    if (!a)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        json_t *m = json_array();
        for (size_t k = 0; k < t[i].nmetrics; k++)
            json_array_append_new(m, json_string(t[i].metrics[k]));
        json_t *o = json_pack("{s:s, s:s, s:I, s:I, s:o}", "name", t[i].name, "url", t[i].url,
                              "interval_ms", (json_int_t)t[i].interval_ms, "timeout_ms",
                              (json_int_t)t[i].timeout_ms, "metrics", m);
        if (!o) {
            json_decref(a);
            return NULL;
        }
        if (t[i].credential[0])
            json_object_set_new(o, "credential", json_string(t[i].credential));
        json_array_append_new(a, o);
    }
    char *s = json_dumps(a, JSON_COMPACT);
    json_decref(a);
    return s;
}

static char *s_jdup(json_t *o, const char *k)
{
    const char *s = json_string_value(json_object_get(o, k));
    return s ? strdup(s) : NULL;
}

int lg_telemetry_from_json(const char *json, lg_telemetry_t **out, size_t *n, char *err,
                           size_t errlen)
{
    *out = NULL;
    *n = 0;
    if (!json || !*json)
        return 0;
    json_error_t je;
    json_t *a = json_loads(json, 0, &je);
    if (!a || !json_is_array(a) || json_array_size(a) > LG_MAX_TELEMETRY) {
        snprintf(err, errlen, "telemetry sources: not a list of at most %d: %s", LG_MAX_TELEMETRY,
                 a ? "wrong shape" : je.text);
        json_decref(a);
        return LG_EPARSE;
    }
    size_t cnt = json_array_size(a);
    lg_telemetry_t *t = cnt ? calloc(cnt, sizeof *t) : NULL;
    if (cnt && !t) {
        json_decref(a);
        return -ENOMEM;
    }
    int rc = 0;
    for (size_t i = 0; i < cnt && !rc; i++) {
        json_t *o = json_array_get(a, i);
        const char *name = json_string_value(json_object_get(o, "name"));
        t[i].url = s_jdup(o, "url");
        t[i].interval_ms = (uint32_t)json_integer_value(json_object_get(o, "interval_ms"));
        t[i].timeout_ms = (uint32_t)json_integer_value(json_object_get(o, "timeout_ms"));
        const char *cred = json_string_value(json_object_get(o, "credential"));
        snprintf(t[i].credential, sizeof t[i].credential, "%s", cred ? cred : "");
        *n = i + 1;
        if (!name || !t[i].url || t[i].interval_ms < 100 || t[i].timeout_ms < 10 ||
            t[i].timeout_ms >= t[i].interval_ms) {
            snprintf(err, errlen,
                     "telemetry source %zu: missing or bad name, url, interval_ms "
                     "or timeout_ms",
                     i + 1);
            rc = LG_EPARSE;
            break;
        }
        snprintf(t[i].name, sizeof t[i].name, "%s", name);
        json_t *m = json_object_get(o, "metrics");
        size_t nm = json_is_array(m) ? json_array_size(m) : 0;
        if (nm && !(t[i].metrics = calloc(nm, sizeof *t[i].metrics))) {
            rc = -ENOMEM;
            break;
        }
        for (size_t k = 0; k < nm; k++) {
            const char *s = json_string_value(json_array_get(m, k));
            if (s && (t[i].metrics[t[i].nmetrics] = strdup(s)))
                t[i].nmetrics++;
        }
    }
    json_decref(a);
    if (rc) {
        lg_telemetry_destroy(&t, *n);
        *n = 0;
        return rc;
    }
    *out = t;
    return 0;
}

char *lg_reduction_json(const lg_sutconfig_t *cfg)
{
    if (!cfg || !cfg->reduction)
        return NULL;
    json_t *p = json_object();
    for (size_t i = 0; p && i < cfg->nreduction_params; i++)
        json_object_set_new(p, cfg->reduction_keys[i], json_string(cfg->reduction_vals[i]));
    json_t *o = p ? json_pack("{s:s, s:o}", "probe", cfg->reduction, "params", p) : NULL;
    char *s = o ? json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
    json_decref(o);
    return s;
}

void lg_reduction_ref_free(char *probe, char **keys, char **vals, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(keys ? keys[i] : NULL);
        free(vals ? vals[i] : NULL);
    }
    free(keys);
    free(vals);
    free(probe);
}

int lg_reduction_from_json(const char *json, char **probe, char ***keys, char ***vals, size_t *n)
{
    *probe = NULL;
    *keys = *vals = NULL;
    *n = 0;
    json_error_t je;
    json_t *o = json ? json_loads(json, 0, &je) : NULL;
    const char *pr = json_string_value(json_object_get(o, "probe"));
    json_t *p = json_object_get(o, "params");
    size_t cnt = json_is_object(p) ? json_object_size(p) : 0;
    int rc = LG_EPARSE;
    if (pr && json_is_object(p) && cnt <= LG_OP_MAX_PARAMS && (*probe = strdup(pr)) &&
        (*keys = calloc(cnt + 1, sizeof **keys)) && (*vals = calloc(cnt + 1, sizeof **vals))) {
        const char *k;
        json_t *v;
        rc = 0;
        json_object_foreach(p, k, v)
        {
            const char *s = json_string_value(v);
            if (!s || !((*keys)[*n] = strdup(k)) || !((*vals)[*n] = strdup(s))) {
                rc = LG_EPARSE;
                break;
            }
            (*n)++;
        }
    }
    json_decref(o);
    if (rc) {
        lg_reduction_ref_free(*probe, *keys, *vals, *n);
        *probe = NULL;
        *keys = *vals = NULL;
        *n = 0;
    }
    return rc;
}
