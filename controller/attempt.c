/* attempt.c: new attempts at a run's point (schema 030_attempts), made on the store's thread: a
 * retry of a run that failed for a transient reason (in the transaction that ends it), and lgctl
 * rerun's. The controller copies only a row that carries its own seal, and seals the copy. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attempt.h"
#include "db.h"
#include "lg_error.h"
#include "lg_log.h"
#include "lg_seal.h"
#include "lg_util.h"

int lg__attempt_new(PGconn *db, const lg_claim_t *claim, const char *src, int gate, char *new_id,
                    size_t idlen, char *err, size_t errlen)
{
    const char *p1[1] = {src};
    PGresult *r = NULL;
    int rc = lg_db_exec(db,
                        "SELECT lg.run_seal_text(r) AS seal_text, r.seal FROM lg.run r"
                        " WHERE r.run_id = $1",
                        1, p1, &r, err, errlen);
    if (rc)
        return rc;
    int ok = lg_db_nrows(r) == 1 && !lg_db_isnull(r, 0, lg_db_col(r, "seal"));
    if (ok) {
        const char *t = lg_db_get(r, 0, lg_db_col(r, "seal_text"));
        ok = lg_seal_check(claim->seal_key, t, strlen(t), lg_db_get(r, 0, lg_db_col(r, "seal")));
    }
    lg_db_result_destroy(&r);
    if (!ok) {
        snprintf(err, errlen,
                 "run %s: its row does not carry this controller's seal: not run again", src);
        return LG_EDENIED;
    }
    const char *p2[2] = {src, gate ? "t" : "f"};
    if ((rc = lg_db_exec(db, "SELECT lg.run_attempt($1, $2) AS run_id", 2, p2, &r, err, errlen)))
        return rc;
    lg_strlcpy(new_id, lg_db_get(r, 0, lg_db_col(r, "run_id")), idlen);
    lg_db_result_destroy(&r);
    const char *p3[1] = {new_id};
    rc = lg_db_exec(db, "SELECT lg.run_seal_text(r) AS seal_text FROM lg.run r WHERE r.run_id = $1",
                    1, p3, &r, err, errlen);
    if (rc)
        return rc;
    char seal[LG_SEAL_HEX];
    const char *t = lg_db_get(r, 0, lg_db_col(r, "seal_text"));
    lg_seal(claim->seal_key, t, strlen(t), seal);
    lg_db_result_destroy(&r);
    const char *p4[2] = {new_id, seal};
    return lg_db_exec(db, "UPDATE lg.run SET seal = $2 WHERE run_id = $1", 2, p4, NULL, err,
                      errlen);
}

int lg__attempt_retry_step(PGconn *db, void *data, char *err, size_t errlen)
{
    const retry_step_t *s = data;
    char src[24], id[24];
    snprintf(src, sizeof src, "%llu", (unsigned long long)s->run_id);
    int rc = lg__attempt_new(db, s->claim, src, 0, id, sizeof id, err, errlen);
    if (rc == LG_EDENIED) { /* the failed run stays failed; the campaign goes on */
        lg_warn("%s", err);
        return 0;
    }
    if (rc == 0)
        lg_info("run %s failed for a reason that may pass: run %s tries its point again", src, id);
    return rc;
}

/* ---- lgctl rerun ---- */

/* The campaign's newest attempt of each point to run again, in ordinal order: its failed points,
 * or the points of runs (n > 0). Rows: run_id, ordinal, config_ordinal, probe. */
static int s_rerun_points(PGconn *db, const char *cid, const uint64_t *runs, size_t n,
                          PGresult **out, char *err, size_t errlen)
{
    if (n == 0) {
        const char *p[1] = {cid};
        return lg_db_exec(
            db,
            "SELECT r.run_id, r.ordinal, r.config_ordinal, NULL AS probe" LG_FAILED_POINTS_FROM
            " AND r.campaign_id = $1"
            " ORDER BY r.ordinal, r.run_id",
            1, p, out, err, errlen);
    }
    char list[256 * 21 + 3];
    size_t o = 0;
    list[o++] = '{';
    for (size_t i = 0; i < n && o < sizeof list - 24; i++)
        o += (size_t)snprintf(list + o, sizeof list - o, "%s%llu", i ? "," : "",
                              (unsigned long long)runs[i]);
    snprintf(list + o, sizeof list - o, "}");
    const char *p[2] = {cid, list};
    return lg_db_exec(
        db,
        "SELECT DISTINCT ON (x.ordinal, coalesce(n.first_run, n.run_id)) n.run_id, n.ordinal,"
        " n.config_ordinal, n.probe, (SELECT string_agg(g::text, ', ') FROM unnest($2::bigint[]) g"
        "   WHERE NOT EXISTS (SELECT 1 FROM lg.run y WHERE y.run_id = g AND y.campaign_id = $1))"
        "   AS unknown"
        " FROM lg.run x JOIN lg.run n"
        "   ON coalesce(n.first_run, n.run_id) = coalesce(x.first_run, x.run_id)"
        " WHERE x.campaign_id = $1 AND x.run_id = ANY ($2::bigint[])"
        " ORDER BY x.ordinal, coalesce(n.first_run, n.run_id), n.attempt DESC",
        2, p, out, err, errlen);
}

/* Does the campaign (FOR UPDATE) belong to this controller and is it over? Its between_configs
 * and number of configs into between and *nconfigs; *code and msg say why not. */
static int s_rerun_campaign(PGconn *db, const lg_claim_t *claim, const char *cid, char *between,
                            size_t blen, int *nconfigs, int *code, char *msg, size_t msglen,
                            char *err, size_t errlen)
{
    const char *p[1] = {cid};
    PGresult *r = NULL;
    int rc = lg_db_exec(db,
                        "SELECT c.state, c.owner, c.between_configs, (SELECT count(DISTINCT"
                        " config_ordinal) FROM lg.run WHERE campaign_id = c.campaign_id) AS nconf"
                        " FROM lg.campaign c WHERE c.campaign_id = $1 FOR UPDATE",
                        1, p, &r, err, errlen);
    if (rc)
        return rc;
    const char *state = lg_db_nrows(r) ? lg_db_get(r, 0, lg_db_col(r, "state")) : "";
    if (!lg_db_nrows(r)) {
        *code = LG_ENOTFOUND;
        snprintf(msg, msglen, "no campaign %s", cid);
    } else if (strcmp(lg_db_get(r, 0, lg_db_col(r, "owner")), claim->owner) != 0) {
        *code = LG_EDENIED;
        snprintf(msg, msglen,
                 "campaign %s was accepted by another controller: only that one runs it again",
                 cid);
    } else if (strcmp(state, "done") && strcmp(state, "failed") && strcmp(state, "aborted")) {
        *code = LG_ESTATE;
        snprintf(msg, msglen, "campaign %s is %s: run its points again once it ended", cid, state);
    } else {
        lg_strlcpy(between, lg_db_get(r, 0, lg_db_col(r, "between_configs")), blen);
        *nconfigs = (int)strtol(lg_db_get(r, 0, lg_db_col(r, "nconf")), NULL, 10);
    }
    lg_db_result_destroy(&r);
    return 0;
}

/* New attempts at the points of r (s_rerun_points), in order: a gate (pause or hook) before the
 * first of each config when the campaign has several, so the SUT is set for it again. The runs
 * made into made (text). */
static int s_rerun_make(PGconn *db, const lg_claim_t *claim, const PGresult *r, int gates,
                        char *made, size_t madelen, char *err, size_t errlen)
{
    const char *last_cfg = NULL;
    size_t o = 0;
    made[0] = 0;
    for (int i = 0; i < lg_db_nrows(r); i++) {
        const char *cfg = lg_db_get(r, i, lg_db_col(r, "config_ordinal"));
        int gate = gates && (!last_cfg || strcmp(cfg, last_cfg) != 0);
        last_cfg = cfg;
        char id[24];
        int rc = lg__attempt_new(db, claim, lg_db_get(r, i, lg_db_col(r, "run_id")), gate, id,
                                 sizeof id, err, errlen);
        if (rc)
            return rc;
        if (o < madelen)
            o += (size_t)snprintf(made + o, madelen - o, "%s%s", i ? ", " : "", id);
    }
    return 0;
}

int lg__attempt_rerun(PGconn *db, const lg_claim_t *claim, uint64_t campaign_id,
                      const uint64_t *runs, size_t nruns, int *code, char *msg, size_t msglen,
                      char *err, size_t errlen)
{
    char cid[24], between[16] = "", made[1024];
    snprintf(cid, sizeof cid, "%llu", (unsigned long long)campaign_id);
    int nconfigs = 0;
    PGresult *r = NULL;
    int rc = lg_db_exec(db, "BEGIN", 0, NULL, NULL, err, errlen);
    if (rc == 0)
        rc = s_rerun_campaign(db, claim, cid, between, sizeof between, &nconfigs, code, msg, msglen,
                              err, errlen);
    if (rc == 0 && *code == 0)
        rc = s_rerun_points(db, cid, runs, nruns, &r, err, errlen);
    if (rc == 0 && *code == 0) {
        const char *unknown =
            nruns && lg_db_nrows(r) ? lg_db_get(r, 0, lg_db_col(r, "unknown")) : "";
        int probe = 0;
        for (int i = 0; i < lg_db_nrows(r); i++)
            probe |= !lg_db_isnull(r, i, lg_db_col(r, "probe"));
        char given[256] = ""; /* none of them is the campaign's: named as given */
        for (size_t i = 0, o = 0; nruns && lg_db_nrows(r) == 0 && i < nruns && o < sizeof given;
             i++)
            o += (size_t)snprintf(given + o, sizeof given - o, "%s%llu", i ? ", " : "",
                                  (unsigned long long)runs[i]);
        if (given[0])
            unknown = given;
        if (unknown[0]) {
            *code = LG_ENOTFOUND;
            snprintf(msg, msglen, "campaign %s has no run %s", cid, unknown);
        } else if (probe) {
            *code = LG_ESTATE;
            snprintf(msg, msglen, "a search's probe is not run again on its own");
        } else if (lg_db_nrows(r) == 0) {
            *code = LG_ENOTFOUND;
            snprintf(msg, msglen, "campaign %s has no failed point: nothing to run again", cid);
        }
    }
    int n = r ? lg_db_nrows(r) : 0;
    if (rc == 0 && *code == 0)
        rc = s_rerun_make(db, claim, r, nconfigs > 1 && strcmp(between, "none") != 0, made,
                          sizeof made, err, errlen);
    if (rc == LG_EDENIED) { /* a row this controller did not seal: refused, nothing made */
        *code = LG_EDENIED;
        lg_strlcpy(msg, err, msglen);
        rc = 0;
    }
    if (rc == 0 && *code == 0) { /* gates of the new attempts are passed anew */
        const char *p[2] = {cid, lg_db_get(r, 0, lg_db_col(r, "ordinal"))};
        rc = lg_db_exec(
            db,
            "UPDATE lg.campaign SET state = 'pending', finished_at = NULL,"
            " message = NULL, pause_requested = false,"
            " gate_passed = least(gate_passed, $2::integer - 1),"
            " gate_resumed = least(gate_resumed, $2::integer - 1) WHERE campaign_id = $1",
            2, p, NULL, err, errlen);
        snprintf(msg, msglen, "%d point%s to run again: run%s %s", n, n == 1 ? "" : "s",
                 n == 1 ? "" : "s", made);
    }
    lg_db_result_destroy(&r);
    if (rc == 0 && *code) {
        char ignored[256];
        lg_db_end(db, LG_ESTATE, ignored, sizeof ignored); /* ROLLBACK: nothing changed */
        return 0;
    }
    return lg_db_end(db, rc, err, errlen);
}
