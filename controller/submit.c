/* submit.c: a new campaign: the spec is parsed and validated here too (a controller never
 * trusts lgctl's check), then stored verbatim with its SUT config and run matrix in one
 * transaction. */
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

static char *s_labels_json(const lg_spec_t *spec)
{
    json_t *o = json_object();
    if (!o)
        return NULL;
    for (size_t i = 0; i < spec->nlabels; i++)
        json_object_set_new(o, spec->labels[i].key, json_string(spec->labels[i].value));
    char *s = json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS);
    json_decref(o);
    return s;
}

static int s_insert(lg_ctrl_t *c, const lg_spec_t *spec, const lg_run_plan_t *runs, size_t nruns,
                    uint64_t *campaign_id, char *err, size_t errlen)
{
    char *labels = s_labels_json(spec);
    if (!labels) {
        snprintf(err, errlen, "out of memory");
        return -ENOMEM;
    }
    PGresult *r = NULL;
    const char *pl[1] = {labels};
    int rc = lg_db_exec(c->db, "BEGIN", 0, NULL, NULL, err, errlen);
    if (rc == 0)
        rc = lg_db_exec(c->db,
                        "INSERT INTO lg.sut_config (labels) VALUES ($1::jsonb)"
                        " ON CONFLICT (labels) DO UPDATE SET labels = EXCLUDED.labels"
                        " RETURNING sut_config_id",
                        1, pl, &r, err, errlen);
    free(labels);
    if (rc)
        return rc;
    char sut[24];
    lg_strlcpy(sut, PQgetvalue(r, 0, 0), sizeof sut);
    PQclear(r);
    const char *pc[3] = {spec->name, spec->path ? spec->path : "", spec->text};
    rc = lg_db_exec(c->db,
                    "INSERT INTO lg.campaign (name, spec_path, spec) VALUES ($1, $2, $3)"
                    " RETURNING campaign_id",
                    3, pc, &r, err, errlen);
    if (rc)
        return rc;
    char cid[24];
    lg_strlcpy(cid, PQgetvalue(r, 0, 0), sizeof cid);
    *campaign_id = strtoull(cid, NULL, 10);
    PQclear(r);
    const char *kind = spec->target_kind == LG_TARGET_NULL ? "null" : "file";
    char size[24];
    snprintf(size, sizeof size, "%llu", (unsigned long long)spec->size);
    for (size_t i = 0; rc == 0 && i < nruns; i++) {
        const lg_run_plan_t *p = &runs[i];
        char ord[16], bs[16], rp[16], th[16], qd[16], ramp[16], rt[16];
        snprintf(ord, sizeof ord, "%zu", i + 1);
        snprintf(bs, sizeof bs, "%u", p->bs);
        snprintf(rp, sizeof rp, "%d", p->read_pct);
        snprintf(th, sizeof th, "%u", p->threads);
        snprintf(qd, sizeof qd, "%u", p->qd);
        snprintf(ramp, sizeof ramp, "%u", p->ramp_s);
        snprintf(rt, sizeof rt, "%u", p->runtime_s);
        const char *pr[17] = {cid, ord, sut, p->profile, p->direction, p->rw, bs, rp, th, qd,
                              ramp, rt, kind, spec->target, size, spec->direct ? "t" : "f"};
        rc = lg_db_exec(c->db,
                        "INSERT INTO lg.run (campaign_id, ordinal, sut_config_id, profile,"
                        " direction, rw, bs, read_pct, threads, qd, ramp_s, runtime_s,"
                        " target_kind, target, size_bytes, direct) VALUES ($1, $2, $3, $4, $5,"
                        " $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)",
                        16, pr, NULL, err, errlen);
    }
    if (rc == 0)
        rc = lg_db_exec(c->db, "COMMIT", 0, NULL, NULL, err, errlen);
    return rc;
}

int lg__submit(lg_ctrl_t *c, const char *text, size_t len, const char *path, uint64_t *campaign_id,
               char *err, size_t errlen)
{
    lg_spec_t *spec = NULL;
    lg_spec_diag_t diag;
    int rc = lg_spec_parse_text(text, len, path && path[0] ? path : "<submitted>", &spec, &diag);
    if (rc) {
        lg_spec_diag_format(&diag, err, errlen);
        return LG_ESPEC;
    }
    lg_run_plan_t *runs = NULL;
    size_t nruns = 0;
    rc = lg_spec_plan(spec, &runs, &nruns);
    if (rc) {
        snprintf(err, errlen, "could not plan the campaign: %s", lg_strerror(rc));
        lg_spec_destroy(&spec);
        return rc;
    }
    if (!lg__ctrl_db_ok(c)) {
        snprintf(err, errlen, "the database is unreachable: %s", PQerrorMessage(c->db));
        rc = LG_EDB;
    } else {
        rc = s_insert(c, spec, runs, nruns, campaign_id, err, errlen);
        if (rc) {
            char e[64];
            lg_db_exec(c->db, "ROLLBACK", 0, NULL, NULL, e, sizeof e);
        }
    }
    if (rc == 0)
        lg_info("campaign %llu \"%s\" submitted: %zu runs", (unsigned long long)*campaign_id,
                spec->name, nruns);
    free(runs);
    lg_spec_destroy(&spec);
    return rc;
}

int lg__campaign_status(lg_ctrl_t *c, uint64_t campaign_id, Lg__CtlReply *reply, char *state,
                        size_t statelen, char *err, size_t errlen)
{
    char id[24];
    snprintf(id, sizeof id, "%llu", (unsigned long long)campaign_id);
    const char *p[1] = {id};
    PGresult *r = NULL;
    if (!lg__ctrl_db_ok(c)) {
        snprintf(err, errlen, "the database is unreachable");
        return LG_EDB;
    }
    int rc = lg_db_exec(c->db,
                        "SELECT c.state, count(r.run_id),"
                        " count(r.run_id) FILTER (WHERE r.state = 'done'),"
                        " count(r.run_id) FILTER (WHERE r.state = 'failed')"
                        " FROM lg.campaign c LEFT JOIN lg.run r USING (campaign_id)"
                        " WHERE c.campaign_id = $1 GROUP BY c.state",
                        1, p, &r, err, errlen);
    if (rc)
        return rc;
    if (PQntuples(r) == 0) {
        PQclear(r);
        snprintf(err, errlen, "no campaign %s", id);
        return LG_ENOTFOUND;
    }
    lg_strlcpy(state, PQgetvalue(r, 0, 0), statelen);
    reply->campaign_id = campaign_id;
    reply->runs_total = (uint32_t)strtoul(PQgetvalue(r, 0, 1), NULL, 10);
    reply->runs_done = (uint32_t)strtoul(PQgetvalue(r, 0, 2), NULL, 10);
    reply->runs_failed = (uint32_t)strtoul(PQgetvalue(r, 0, 3), NULL, 10);
    PQclear(r);
    return 0;
}
