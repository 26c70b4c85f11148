/* submit.c: a new campaign: the spec is parsed and validated here too (a controller never
 * trusts lgctl's check), then stored verbatim with its SUT config and run matrix in one
 * transaction. */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctrl.h"
#include "db.h"
#include "lg_error.h"
#include "lg_log.h"
#include "lg_spec.h"
#include "lg_util.h"
#include "store.h"

static char *s_labels_json(const lg_sutconfig_t *cfg)
{
    json_t *o = json_object();
    if (!o)
        return NULL;
    for (size_t i = 0; i < cfg->nlabels; i++)
        json_object_set_new(o, cfg->labels[i].key, json_string(cfg->labels[i].value));
    char *s = json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS);
    json_decref(o);
    return s;
}

static const char *const s_between[] = {"pause", "hook", "none"};

/* The columns of lg.run a submission fills, by name: the INSERT is made from this table, and each
 * value is put by its column's name (s_put), never by position. */
static const struct {
    const char *name, *cast;
} s_run_cols[] = {
    {"campaign_id", ""},
    {"ordinal", ""},
    {"sut_config_id", ""},
    {"profile", ""},
    {"direction", ""},
    {"rw", ""},
    {"bs", ""},
    {"read_pct", ""},
    {"threads", ""},
    {"qd", ""},
    {"ramp_s", ""},
    {"runtime_s", ""},
    {"target_kind", ""},
    {"target", ""},
    {"size_bytes", ""},
    {"direct", ""},
    {"phase", ""},
    {"config_ordinal", ""},
    {"protocol", ""},
    {"repeat", ""},
    {"gate", ""},
    {"rate_iops", ""},
    {"thinktime_us", ""},
    {"thinktime_blocks", ""},
    {"bssplit", ""},
    {"compress_ratio", ""},
    {"dedup_ratio", ""},
    {"dedup_unit", ""},
    {"round_s", ""},
    {"agents", "::jsonb"},
    {"share", ""},
    {"target_fs", ""},
    {"target_mount", ""},
    {"headline", ""},
    {"search_id", ""},
    {"probe", ""},
    {"rate_total", ""},
    {"curve_pct", ""},
    {"curve_base", ""},
    {"app", ""},
    {"app_params", "::jsonb"},
    {"telemetry", "::jsonb"},
    {"reduction", "::jsonb"},
    {"retries", ""},
};
#define NRUNCOLS (sizeof s_run_cols / sizeof *s_run_cols)

/* "INSERT INTO lg.run (a, b, ...) VALUES ($1, $2, ...)" from s_run_cols, into buf. */
static void s_run_insert_sql(char *buf, size_t len)
{
    size_t o = (size_t)snprintf(buf, len, "INSERT INTO lg.run (");
    for (size_t i = 0; i < NRUNCOLS && o < len; i++)
        o += (size_t)snprintf(buf + o, len - o, "%s%s", i ? ", " : "", s_run_cols[i].name);
    o += (size_t)snprintf(buf + o, o < len ? len - o : 0, ") VALUES (");
    for (size_t i = 0; i < NRUNCOLS && o < len; i++)
        o += (size_t)snprintf(buf + o, len - o, "%s$%zu%s", i ? ", " : "", i + 1,
                              s_run_cols[i].cast);
    snprintf(buf + o, o < len ? len - o : 0, ")");
}

/* Put value under column name; a name not in s_run_cols is a bug, said once and counted. */
static void s_put(const char **vals, const char *name, const char *value, int *bad)
{
    for (size_t i = 0; i < NRUNCOLS; i++)
        if (!strcmp(s_run_cols[i].name, name)) {
            vals[i] = value;
            return;
        }
    lg_error("submit: lg.run has no column \"%s\" in s_run_cols", name);
    (*bad)++;
}

/* The campaign's SUT configs in lg.sut_config (one row per distinct label set): their ids into
 * sut (the first 64). */
static int s_insert_configs(PGconn *db, const lg_spec_t *spec, char (*sut)[24], char *err,
                            size_t errlen)
{
    PGresult *r = NULL;
    for (size_t k = 0; k < spec->nconfigs && k < 64; k++) {
        char *labels = s_labels_json(&spec->configs[k]);
        if (!labels) {
            snprintf(err, errlen, "out of memory");
            return -ENOMEM;
        }
        const char *pl[1] = {labels};
        int rc = lg_db_exec(db,
                            "INSERT INTO lg.sut_config (labels) VALUES ($1::jsonb)"
                            " ON CONFLICT (labels) DO UPDATE SET labels = EXCLUDED.labels"
                            " RETURNING sut_config_id",
                            1, pl, &r, err, errlen);
        free(labels);
        if (rc)
            return rc;
        lg_strlcpy(sut[k], lg_db_get(r, 0, lg_db_col(r, "sut_config_id")), sizeof sut[k]);
        lg_db_result_destroy(&r);
    }
    return 0;
}

/* The lg.campaign row, this controller's (claim: owner and lease): its id into cid (text) and
 * *campaign_id. */
static int s_insert_campaign(PGconn *db, const lg_spec_t *spec, const char *submit_id,
                             const lg_claim_t *claim, char cid[24], uint64_t *campaign_id,
                             char *err, size_t errlen)
{
    PGresult *r = NULL;
    char secs[16];
    snprintf(secs, sizeof secs, "%d", LG_LEASE_S);
    const char *pc[9] = {spec->name,
                         spec->path ? spec->path : "",
                         spec->text,
                         s_between[spec->between],
                         spec->stop_on_agent_loss ? "stop" : "continue",
                         submit_id && submit_id[0] ? submit_id : NULL,
                         claim->owner,
                         claim->instance,
                         secs};
    int rc = lg_db_exec(db,
                        "INSERT INTO lg.campaign (name, spec_path, spec, between_configs,"
                        " on_agent_loss, submit_id, owner, lease_holder, lease_until)"
                        " VALUES ($1, $2, $3, $4, $5, $6, $7, $8,"
                        " now() + make_interval(secs => $9::integer))"
                        " RETURNING campaign_id",
                        9, pc, &r, err, errlen);
    if (rc)
        return rc;
    lg_strlcpy(cid, lg_db_get(r, 0, lg_db_col(r, "campaign_id")), 24);
    *campaign_id = strtoull(cid, NULL, 10);
    lg_db_result_destroy(&r);
    return 0;
}

/* The lg.search row of run p's search, made with its first run: its id into sid. */
static int s_insert_search(PGconn *db, const lg_spec_t *spec, const lg_run_plan_t *p,
                           const char *cid, char (*sut)[24], char sid[24], char *err, size_t errlen)
{
    const lg_target_t *t = &spec->configs[p->config].targets[p->target];
    const lg_search_t *se = &spec->profiles[p->profile_index].search;
    PGresult *r = NULL;
    char sv[9][32];
    snprintf(sv[8], 32, "%u", se->confirm);
    snprintf(sv[0], 32, "%u", p->config + 1);
    snprintf(sv[1], 32, "%.17g", se->limit_ms);
    snprintf(sv[2], 32, "%u", se->min);
    snprintf(sv[3], 32, "%u", se->max);
    snprintf(sv[4], 32, "%u", se->steps);
    snprintf(sv[5], 32, "%u", se->resolution_pct);
    snprintf(sv[6], 32, "%u", se->threads ? se->threads : spec->threads);
    snprintf(sv[7], 32, "%u", se->qd ? se->qd : spec->qd);
    const char *ps[16] = {cid,
                          sut[p->config],
                          sv[0],
                          t->protocol,
                          p->profile,
                          p->direction,
                          lg_smetric_name(se->metric),
                          sv[1],
                          lg_vary_name(se->vary),
                          sv[2],
                          sv[3],
                          sv[4],
                          sv[5],
                          sv[6],
                          sv[7],
                          sv[8]};
    int rc = lg_db_exec(db,
                        "INSERT INTO lg.search (campaign_id, sut_config_id, config_ordinal,"
                        " protocol, profile, direction, metric, limit_ms, vary, min_load,"
                        " max_load, steps, resolution_pct, threads, qd, confirm) VALUES ($1, $2,"
                        " $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)"
                        " RETURNING search_id",
                        16, ps, &r, err, errlen);
    if (rc)
        return rc;
    lg_strlcpy(sid, lg_db_get(r, 0, lg_db_col(r, "search_id")), 24);
    lg_db_result_destroy(&r);
    return 0;
}

/* A run's values as text, and what it carries as JSON (owned: s_run_text_clear). */
typedef struct {
    char v[17][32], bssplit[512];
    char probe[16], rate[16], cpct[16], cbase[16];
    char app_params[256];
    char *agents, *teljson, *redjson;
} run_text_t;

static void s_run_text_clear(run_text_t *x)
{
    free(x->agents);
    free(x->teljson);
    free(x->redjson);
    memset(x, 0, sizeof *x);
}

/* The run's agents as lg.run.agents JSON. An agent's own threads x QD (agents: [{name, threads,
 * qd}]) stands for the campaign's load point (the spec's threads x qd); a sweep's other points
 * and a search's probes run on every agent at their own load, as their labels say. NULL: out of
 * memory. */
static char *s_run_agents(const lg_spec_t *spec, const lg_target_t *t, const lg_run_plan_t *p)
{
    lg_agents_t ag = lg_spec_agents(spec, t);
    lg_agentsel_t *at_point = NULL;
    if ((p->threads != spec->threads || p->qd != spec->qd || p->phase == LG_PHASE_SEARCH) &&
        ag.nsel) {
        at_point = malloc(ag.nsel * sizeof *at_point);
        if (!at_point)
            return NULL;
        for (size_t k = 0; k < ag.nsel; k++) {
            at_point[k] = ag.sel[k];
            at_point[k].threads = at_point[k].qd = 0;
        }
        ag.sel = at_point;
    }
    char *agents = lg_agents_json(&ag);
    free(at_point);
    return agents;
}

/* Run i's (p's) figures as text into x. */
static void s_run_text(const lg_spec_t *spec, const lg_run_plan_t *p, size_t i, run_text_t *x)
{
    const lg_profile_t *prof = &spec->profiles[p->profile_index];
    int fill = p->phase == LG_PHASE_FILL;
    snprintf(x->v[0], 32, "%zu", i + 1);
    snprintf(x->v[1], 32, "%u", p->bs);
    snprintf(x->v[2], 32, "%d", p->read_pct);
    snprintf(x->v[3], 32, "%u", p->threads);
    snprintf(x->v[4], 32, "%u", p->qd);
    snprintf(x->v[5], 32, "%u", p->ramp_s);
    snprintf(x->v[6], 32, "%u", p->runtime_s);
    snprintf(x->v[7], 32, "%u", p->config + 1);
    snprintf(x->v[8], 32, "%u", p->repeat);
    snprintf(x->v[9], 32, "%u", fill ? 0 : prof->rate_iops);
    snprintf(x->v[10], 32, "%u", fill ? 0 : prof->thinktime_us);
    snprintf(x->v[11], 32, "%u", fill ? 0 : prof->thinktime_blocks);
    snprintf(x->v[12], 32, "%.17g", spec->compress_ratio);
    snprintf(x->v[13], 32, "%.17g", spec->dedup_ratio);
    snprintf(x->v[14], 32, "%u", spec->dedup_unit);
    snprintf(x->v[15], 32, "%u", p->round_s);
    /* retries: the profile's, else the campaign's; a search's probes never (the search's next
     * step is taken on each probe's end) */
    snprintf(x->v[16], 32, "%u",
             p->probe              ? 0
             : prof->retries_given ? prof->retries
                                   : spec->retries);
    size_t o = 0;
    x->bssplit[0] = 0;
    for (size_t b = 0; !fill && b < prof->nbssplit && o < sizeof x->bssplit; b++)
        o += (size_t)snprintf(x->bssplit + o, sizeof x->bssplit - o, "%s%u/%u", b ? ":" : "",
                              prof->bssplit[b].bs, prof->bssplit[b].pct);
    snprintf(x->probe, sizeof x->probe, "%u", p->probe);
    snprintf(x->rate, sizeof x->rate, "%u", p->rate);
    snprintf(x->cpct, sizeof x->cpct, "%u", p->curve_pct);
    snprintf(x->cbase, sizeof x->cbase, "%d", p->curve_base + 1);
    /* An application benchmark: which tool, and its data set */
    const lg_appwl_t *ap = &prof->app;
    x->app_params[0] = 0;
    if (ap->kind && !fill)
        snprintf(x->app_params, sizeof x->app_params,
                 "{\"scale\": %u, \"jobs\": %u, \"tables\": %u, \"table_size\": %llu,"
                 " \"keep\": %s}",
                 ap->scale, ap->jobs, ap->tables, (unsigned long long)ap->table_size,
                 ap->keep ? "true" : "false");
}

/* The run's values under their columns' names into pr (s_put). */
static void s_run_put(const char **pr, const lg_spec_t *spec, const lg_run_plan_t *p,
                      const char *cid, const char *sut, const char *sid, const char *size,
                      const run_text_t *x, int *bad)
{
    const lg_target_t *t = &spec->configs[p->config].targets[p->target];
    const lg_profile_t *prof = &spec->profiles[p->profile_index];
    int fill = p->phase == LG_PHASE_FILL;
    s_put(pr, "campaign_id", cid, bad);
    s_put(pr, "ordinal", x->v[0], bad);
    s_put(pr, "sut_config_id", sut, bad);
    s_put(pr, "profile", p->profile, bad);
    s_put(pr, "direction", p->direction, bad);
    s_put(pr, "rw", p->rw, bad);
    s_put(pr, "bs", x->v[1], bad);
    s_put(pr, "read_pct", x->v[2], bad);
    s_put(pr, "threads", x->v[3], bad);
    /* the spec's own load point: what bar charts and quoted figures show */
    s_put(pr, "headline",
          (p->threads == spec->threads && p->qd == spec->qd && !p->rate && !p->curve_pct &&
           p->phase != LG_PHASE_SEARCH) ||
                  (prof->app.kind && !fill)
              ? "t"
              : "f",
          bad);
    s_put(pr, "qd", x->v[4], bad);
    s_put(pr, "ramp_s", x->v[5], bad);
    s_put(pr, "runtime_s", x->v[6], bad);
    s_put(pr, "target_kind",
          t->kind == LG_TARGET_NULL    ? "null"
          : t->kind == LG_TARGET_BLOCK ? "block"
          : t->kind == LG_TARGET_SMB   ? "smb"
          : t->kind == LG_TARGET_ISCSI ? "iscsi"
                                       : "file",
          bad);
    s_put(pr, "target", t->path, bad);
    s_put(pr, "size_bytes", size, bad);
    s_put(pr, "direct", spec->direct ? "t" : "f", bad);
    s_put(pr, "phase", lg_phase_name(p->phase), bad);
    s_put(pr, "config_ordinal", x->v[7], bad);
    s_put(pr, "protocol", t->protocol, bad);
    s_put(pr, "target_fs", t->fs, bad);
    s_put(pr, "target_mount", t->mount ? t->mount : "", bad);
    s_put(pr, "repeat", x->v[8], bad);
    s_put(pr, "gate", p->gate ? "t" : "f", bad);
    s_put(pr, "rate_iops", x->v[9], bad);
    s_put(pr, "thinktime_us", x->v[10], bad);
    s_put(pr, "thinktime_blocks", x->v[11], bad);
    s_put(pr, "bssplit", x->bssplit, bad);
    s_put(pr, "compress_ratio", x->v[12], bad);
    s_put(pr, "dedup_ratio", x->v[13], bad);
    s_put(pr, "dedup_unit", x->v[14], bad);
    s_put(pr, "round_s", x->v[15], bad);
    s_put(pr, "agents", x->agents, bad);
    s_put(pr, "share", lg_share_name(lg_spec_agents(spec, t).share), bad);
    s_put(pr, "search_id", p->search ? sid : NULL, bad);
    s_put(pr, "probe", p->probe ? x->probe : NULL, bad);
    s_put(pr, "rate_total", x->rate, bad);
    s_put(pr, "curve_pct", p->curve_pct ? x->cpct : NULL, bad);
    s_put(pr, "curve_base", p->curve_pct && p->curve_base >= 0 ? x->cbase : NULL, bad);
    s_put(pr, "app", prof->app.kind && !fill ? lg_appwl_name(prof->app.kind) : NULL, bad);
    s_put(pr, "app_params", x->app_params[0] ? x->app_params : NULL, bad);
    /* The NAS's telemetry sources and reduction probe of the run's config */
    s_put(pr, "telemetry", x->teljson, bad);
    s_put(pr, "reduction", x->redjson, bad);
    s_put(pr, "retries", x->v[16], bad);
}

/* Run i of the plan (runs[i]) as its lg.run row (run_sql), with its search's id (sid[search]),
 * made first when it is that search's first run. */
static int s_insert_run(PGconn *db, const lg_spec_t *spec, const lg_run_plan_t *runs, size_t i,
                        const char *cid, char (*sut)[24], char (*sid)[24], const char *size,
                        const char *run_sql, char *err, size_t errlen)
{
    const lg_run_plan_t *p = &runs[i];
    const lg_target_t *t = &spec->configs[p->config].targets[p->target];
    int rc = 0;
    if (p->search && !sid[p->search][0] &&
        (rc = s_insert_search(db, spec, p, cid, sut, sid[p->search], err, errlen)) != 0)
        return rc;
    run_text_t x;
    s_run_text(spec, p, i, &x);
    x.teljson = x.redjson = NULL;
    if (!(x.agents = s_run_agents(spec, t, p)))
        return -ENOMEM;
    size_t ntel = 0;
    const lg_telemetry_t *tel = lg_spec_telemetry(spec, p->config, &ntel);
    x.teljson = ntel ? lg_telemetry_json(tel, ntel) : NULL;
    const lg_sutconfig_t *sc = &spec->configs[p->config];
    x.redjson = lg_reduction_json(sc);
    const char *pr[NRUNCOLS] = {NULL};
    int bad = 0;
    s_run_put(pr, spec, p, cid, sut[p->config], p->search ? sid[p->search] : NULL, size, &x, &bad);
    if ((ntel && !x.teljson) || (sc->reduction && !x.redjson)) {
        rc = -ENOMEM;
    } else if (bad) {
        snprintf(err, errlen, "internal error: %d run columns unknown", bad);
        rc = LG_ESTATE;
    } else {
        rc = lg_db_exec(db, run_sql, (int)NRUNCOLS, pr, NULL, err, errlen);
    }
    s_run_text_clear(&x);
    return rc;
}

/* Every run row of campaign cid sealed under claim's key (lg_seal.h): what the controller will
 * act on, as lg.run_seal_text renders it, so a row changed by anyone else is refused later. */
static int s_seal_runs(PGconn *db, const char *cid, const lg_claim_t *claim, char *err,
                       size_t errlen)
{
    PGresult *r = NULL;
    const char *p1[1] = {cid};
    int rc = lg_db_exec(db,
                        "SELECT r.run_id, lg.run_seal_text(r) AS seal_text FROM lg.run r"
                        " WHERE r.campaign_id = $1 ORDER BY r.run_id",
                        1, p1, &r, err, errlen);
    if (rc)
        return rc;
    int n = lg_db_nrows(r);
    size_t cap_ids = (size_t)n * 21 + 3, cap_seals = (size_t)n * LG_SEAL_HEX + 3;
    char *ids = malloc(cap_ids), *seals = malloc(cap_seals);
    size_t oi = 0, os = 0;
    if (ids && seals) {
        ids[oi++] = '{';
        seals[os++] = '{';
        for (int i = 0; i < n; i++) {
            const char *t = lg_db_get(r, i, lg_db_col(r, "seal_text"));
            const char *id = lg_db_get(r, i, lg_db_col(r, "run_id"));
            char seal[LG_SEAL_HEX];
            lg_seal(claim->seal_key, t, strlen(t), seal);
            oi += (size_t)snprintf(ids + oi, cap_ids - oi, "%s%.20s", i ? "," : "", id);
            os += (size_t)snprintf(seals + os, cap_seals - os, "%s%s", i ? "," : "", seal);
        }
        snprintf(ids + oi, cap_ids - oi, "}");
        snprintf(seals + os, cap_seals - os, "}");
    }
    lg_db_result_destroy(&r);
    if (!ids || !seals) {
        snprintf(err, errlen, "out of memory");
        rc = -ENOMEM;
    } else {
        const char *p[2] = {ids, seals};
        rc = lg_db_exec(db,
                        "UPDATE lg.run r SET seal = s.seal FROM unnest($1::bigint[], $2::text[])"
                        " AS s(run_id, seal) WHERE r.run_id = s.run_id",
                        2, p, NULL, err, errlen);
    }
    free(ids);
    free(seals);
    return rc;
}

/* The campaign, its SUT configs, searches and run matrix, inside the caller's transaction. */
static int s_insert(PGconn *db, const lg_spec_t *spec, const lg_run_plan_t *runs, size_t nruns,
                    const char *submit_id, const lg_claim_t *claim, uint64_t *campaign_id,
                    char *err, size_t errlen)
{
    char sut[64][24];
    int rc = s_insert_configs(db, spec, sut, err, errlen);
    if (rc)
        return rc;
    char cid[24];
    rc = s_insert_campaign(db, spec, submit_id, claim, cid, campaign_id, err, errlen);
    if (rc)
        return rc;
    char size[24];
    snprintf(size, sizeof size, "%llu", (unsigned long long)spec->size);
    char run_sql[1024];
    s_run_insert_sql(run_sql, sizeof run_sql);
    /* lg.search ids by the plan's search number (1-based, in plan order) */
    uint32_t nsearch = 0;
    for (size_t i = 0; i < nruns; i++)
        if (runs[i].search > nsearch)
            nsearch = runs[i].search;
    char(*sid)[24] = nsearch ? calloc(nsearch + 1, sizeof *sid) : NULL;
    if (nsearch && !sid) {
        snprintf(err, errlen, "out of memory");
        return -ENOMEM;
    }
    for (size_t i = 0; rc == 0 && i < nruns; i++)
        rc = s_insert_run(db, spec, runs, i, cid, sut, sid, size, run_sql, err, errlen);
    free(sid);
    if (rc == 0)
        rc = s_seal_runs(db, cid, claim, err, errlen);
    /* New label keys become columns of the publishing views. */
    if (rc == 0)
        rc = lg_db_exec(db, "SELECT lg.refresh_views()", 0, NULL, NULL, err, errlen);
    return rc;
}

/* A submission on its way: parsed, planned and stored off the loop (controller/store.c). */
typedef struct {
    lg_ctrl_t *c;
    uint8_t id[LG_ID_MAX]; /* the lgctl that asked, on the control socket */
    size_t idlen;
    char *text, *path, *submit_id;
    uint64_t campaign_id;
    int existed; /* the same submit id made this campaign before */
    size_t nruns;
    char name[64];
    int refused; /* not queued: the database was away (nothing can be made) */
} submit_job_t;

static void s_job_destroy(submit_job_t **self_p)
{
    submit_job_t *j = self_p ? *self_p : NULL;
    if (!j)
        return;
    *self_p = NULL;
    free(j->text);
    free(j->path);
    free(j->submit_id);
    free(j);
}

/* What the spec names of the operator's is there and fits: each config's reduction probe with
 * its parameters, each telemetry source's credential with its URL's origin. Else LG_ESPEC with
 * err naming the config or source and why (nothing is stored). */
static int s_check_operator(const lg_operator_t *op, lg_spec_t *spec, char *err, size_t errlen)
{
    char why[700];
    for (size_t k = 0; k < spec->nconfigs; k++) {
        lg_sutconfig_t *sc = &spec->configs[k];
        char **argv = NULL;
        if (sc->reduction &&
            lg_operator_probe_argv(op, sc->reduction, sc->reduction_keys, sc->reduction_vals,
                                   sc->nreduction_params, &argv, why, sizeof why) != 0) {
            snprintf(err, errlen, "%s:%d: config %zu: reduction: %s", spec->path ? spec->path : "",
                     sc->line, k + 1, why);
            return LG_ESPEC;
        }
        lg_operator_argv_free(argv);
        size_t n = 0;
        lg_telemetry_t *t = (lg_telemetry_t *)lg_spec_telemetry(spec, k, &n);
        if (lg_telemetry_resolve(t, n, op, why, sizeof why) != 0) {
            snprintf(err, errlen, "%s: config %zu: %s", spec->path ? spec->path : "", k + 1, why);
            return LG_ESPEC;
        }
    }
    return 0;
}

static int s_submit_work(PGconn *db, void *job, char *err, size_t errlen)
{
    submit_job_t *j = job;
    lg_spec_t *spec = NULL;
    lg_spec_diag_t diag;
    int rc = lg_spec_parse_text(j->text, strlen(j->text), j->path[0] ? j->path : "<submitted>",
                                &spec, &diag);
    if (rc) {
        lg_spec_diag_format(&diag, err, errlen);
        return LG_ESPEC;
    }
    lg_strlcpy(j->name, spec->name, sizeof j->name);
    rc = s_check_operator(j->c->op, spec, err, errlen);
    if (rc) {
        lg_spec_destroy(&spec);
        return rc;
    }
    lg_run_plan_t *runs = NULL;
    rc = lg_spec_plan(spec, &runs, &j->nruns);
    if (rc) {
        snprintf(err, errlen, "could not plan the campaign: %s", lg_strerror(rc));
        lg_spec_destroy(&spec);
        return rc;
    }
    rc = lg_db_exec(db, "BEGIN", 0, NULL, NULL, err, errlen);
    if (rc == 0 && j->submit_id[0]) {
        PGresult *r = NULL;
        const char *p[1] = {j->submit_id};
        rc = lg_db_exec(db, "SELECT campaign_id FROM lg.campaign WHERE submit_id = $1", 1, p, &r,
                        err, errlen);
        if (rc == 0 && lg_db_nrows(r) == 1) {
            j->campaign_id = strtoull(lg_db_get(r, 0, lg_db_col(r, "campaign_id")), NULL, 10);
            j->existed = 1;
        }
        if (rc == 0)
            lg_db_result_destroy(&r);
    }
    if (rc == 0 && !j->existed)
        rc = s_insert(db, spec, runs, j->nruns, j->submit_id, &j->c->claim, &j->campaign_id, err,
                      errlen);
    if (rc == 0)
        rc = lg_db_exec(db, "COMMIT", 0, NULL, NULL, err, errlen);
    if (rc) {
        char e[64];
        lg_db_exec(db, "ROLLBACK", 0, NULL, NULL, e, sizeof e);
    }
    free(runs);
    lg_spec_destroy(&spec);
    return rc;
}

static void s_submit_done(void *arg, void *job, int rc, const char *err)
{
    (void)arg;
    submit_job_t *j = job;
    lg_ctrl_t *c = j->c;
    Lg__CtlReply rep = LG__CTL_REPLY__INIT;
    char msg[2048] = "";
    rep.code = rc;
    rep.campaign_id = rc ? 0 : j->campaign_id;
    if ((rc == LG_ETIMEOUT || rc == LG_EDB) && !j->refused) /* a COMMIT sent may be taken */
        snprintf(msg, sizeof msg,
                 "%s; the campaign may still be created if the database took it before it "
                 "stopped answering: lgctl submit --submit-id %s finds out without making a "
                 "second",
                 err, j->submit_id);
    else if (rc)
        lg_strlcpy(msg, err, sizeof msg);
    else if (j->existed)
        snprintf(msg, sizeof msg, "already submitted as campaign %llu (submit id %s)",
                 (unsigned long long)j->campaign_id, j->submit_id);
    rep.message = msg;
    rep.state = (char *)"";
    rep.name = j->name;
    rep.current = (char *)"";
    Lg__Envelope out = LG__ENVELOPE__INIT;
    out.body_case = LG__ENVELOPE__BODY_CTL_REPLY;
    out.ctl_reply = &rep;
    if (c->zs_ctl && rc != LG_ESTATE)
        lg_zsock_send(c->zs_ctl, j->id, j->idlen, &out);
    if (rc == 0 && !j->existed)
        lg_info("campaign %llu \"%s\" submitted: %zu runs", (unsigned long long)j->campaign_id,
                j->name, j->nruns);
    else if (rc == 0)
        lg_info("campaign %llu \"%s\" submitted again (submit id %s): nothing new",
                (unsigned long long)j->campaign_id, j->name, j->submit_id);
    int fresh = rc == 0 && !j->existed;
    s_job_destroy(&j);
    if (fresh && !c->stopping)
        lg__sched_tick(c);
}

int lg__submit_start(lg_ctrl_t *c, const uint8_t *id, size_t idlen, const char *text,
                     const char *path, const char *submit_id)
{
    submit_job_t *j = calloc(1, sizeof *j);
    if (!j)
        return -ENOMEM;
    j->c = c;
    memcpy(j->id, id, idlen);
    j->idlen = idlen;
    j->text = strdup(text ? text : "");
    j->path = strdup(path ? path : "");
    j->submit_id = strdup(submit_id ? submit_id : "");
    if (j->text && j->path && j->submit_id && lg_store_away_since(c->store)) {
        /* Said now rather than after lgctl gave up: nothing is queued, so nothing is made. */
        j->refused = 1;
        char why[256];
        snprintf(why, sizeof why,
                 "the database is unreachable (for %llu s): nothing was "
                 "submitted; submit again once it answers",
                 (unsigned long long)((lg_mono_ms() - lg_store_away_since(c->store)) / 1000));
        s_submit_done(c, j, LG_EDB, why);
        return 0;
    }
    if (!j->text || !j->path || !j->submit_id ||
        lg_store_submit(c->store, s_submit_work, s_submit_done, c, j) != 0) {
        s_job_destroy(&j);
        return -ENOMEM;
    }
    return 0;
}
