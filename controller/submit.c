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
#include "lg_runrow.h"
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
                         lg_between_name(spec->between),
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

/* Run i of the plan (p) as its lg.run row, of campaign cid, SUT config sut and (a search's probe)
 * search sid. The row's strings are its own (lg_runrow_clear, also on failure). 0 or -ENOMEM. */
static int s_run_row(const lg_spec_t *spec, const lg_run_plan_t *p, size_t i, uint64_t cid,
                     uint64_t sut, uint64_t sid, lg_runrow_t *row)
{
    const lg_sutconfig_t *sc = &spec->configs[p->config];
    const lg_target_t *t = &sc->targets[p->target];
    const lg_profile_t *prof = &spec->profiles[p->profile_index];
    int fill = p->phase == LG_PHASE_FILL;
    memset(row, 0, sizeof *row);
    row->campaign_id = cid;
    row->ordinal = (uint32_t)(i + 1);
    row->sut_config_id = sut;
    lg_strlcpy(row->profile, p->profile, sizeof row->profile);
    lg_strlcpy(row->direction, p->direction, sizeof row->direction);
    lg_strlcpy(row->rw, p->rw, sizeof row->rw);
    row->bs = p->bs;
    row->read_pct = p->read_pct;
    row->threads = p->threads;
    row->qd = p->qd;
    row->ramp_s = p->ramp_s;
    row->runtime_s = p->runtime_s;
    row->target_kind = t->kind;
    row->size_bytes = spec->size;
    row->direct = spec->direct;
    row->phase = p->phase;
    row->config_ordinal = p->config + 1;
    lg_strlcpy(row->protocol, t->protocol, sizeof row->protocol);
    lg_strlcpy(row->target_fs, t->fs, sizeof row->target_fs);
    row->repeat = p->repeat;
    row->gate = p->gate;
    if (!fill) {
        row->rate_iops = prof->rate_iops;
        row->thinktime_us = prof->thinktime_us;
        row->thinktime_blocks = prof->thinktime_blocks;
        row->bssplit.n = prof->nbssplit;
        memcpy(row->bssplit.v, prof->bssplit, prof->nbssplit * sizeof *prof->bssplit);
    }
    row->compress_ratio = spec->compress_ratio;
    row->dedup_ratio = spec->dedup_ratio;
    row->dedup_unit = spec->dedup_unit;
    row->round_s = p->round_s;
    row->share = lg_spec_agents(spec, t).share;
    /* the spec's own load point: what bar charts and quoted figures show */
    row->headline = (p->threads == spec->threads && p->qd == spec->qd && !p->rate &&
                     !p->curve_pct && p->phase != LG_PHASE_SEARCH) ||
                    (prof->app.kind && !fill);
    row->search_id = p->search ? sid : 0;
    row->probe = p->probe;
    row->rate_total = p->rate;
    row->curve_pct = p->curve_pct;
    row->curve_base = p->curve_pct && p->curve_base >= 0 ? (uint32_t)p->curve_base + 1 : 0;
    /* An application benchmark: which tool, and its data set */
    const lg_appwl_t *ap = &prof->app;
    if (ap->kind && !fill) {
        row->app = ap->kind;
        row->app_params = (lg_runrow_app_t){.set = true,
                                            .scale = ap->scale,
                                            .jobs = ap->jobs,
                                            .tables = ap->tables,
                                            .table_size = ap->table_size,
                                            .keep = ap->keep};
    }
    /* retries: the profile's, else the campaign's; a search's probes never (the search's next
     * step is taken on each probe's end) */
    row->retries = p->probe ? 0 : prof->retries_given ? prof->retries : spec->retries;
    /* The NAS's telemetry sources and reduction probe of the run's config */
    size_t ntel = 0;
    const lg_telemetry_t *tel = lg_spec_telemetry(spec, p->config, &ntel);
    row->target = strdup(t->path);
    row->target_mount = strdup(t->mount ? t->mount : "");
    row->agents = s_run_agents(spec, t, p);
    row->telemetry = ntel ? lg_telemetry_json(tel, ntel) : NULL;
    row->reduction = lg_reduction_json(sc);
    if (!row->target || !row->target_mount || !row->agents || (ntel && !row->telemetry) ||
        (sc->reduction && !row->reduction))
        return -ENOMEM;
    return 0;
}

/* Run i of the plan (runs[i]) as its lg.run row (run_sql: lg_runrow_insert_sql), with its search's
 * id (sid[search]), made first when it is that search's first run. */
static int s_insert_run(PGconn *db, const lg_spec_t *spec, const lg_run_plan_t *runs, size_t i,
                        const char *cid, char (*sut)[24], char (*sid)[24], const char *run_sql,
                        char *err, size_t errlen)
{
    const lg_run_plan_t *p = &runs[i];
    int rc = 0;
    if (p->search && !sid[p->search][0] &&
        (rc = s_insert_search(db, spec, p, cid, sut, sid[p->search], err, errlen)) != 0)
        return rc;
    lg_runrow_t row;
    rc = s_run_row(spec, p, i, strtoull(cid, NULL, 10), strtoull(sut[p->config], NULL, 10),
                   p->search ? strtoull(sid[p->search], NULL, 10) : 0, &row);
    if (rc) {
        snprintf(err, errlen, "out of memory");
    } else {
        lg_runrow_text_t text;
        lg_runrow_encode(&row, &text);
        rc = lg_db_exec(db, run_sql, (int)text.n, text.val, NULL, err, errlen);
    }
    lg_runrow_clear(&row);
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
    char run_sql[2048];
    if (lg_runrow_insert_sql(run_sql, sizeof run_sql) != 0) {
        snprintf(err, errlen, "internal error: lg.run's INSERT is longer than %zu bytes",
                 sizeof run_sql);
        return LG_ESTATE;
    }
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
        rc = s_insert_run(db, spec, runs, i, cid, sut, sid, run_sql, err, errlen);
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
