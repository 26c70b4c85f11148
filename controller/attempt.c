/* attempt.c: new attempts at a run's point (schema 030_attempts), made on the store's thread: a
 * retry of a run that failed for a transient reason (in the transaction that ends it), and lgctl
 * rerun's. The controller copies only a row that carries its own seal, and seals the copy. */
#include <libpq-fe.h>
#include <stdio.h>
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
    lg_db_clear(&r);
    if (!ok) {
        snprintf(err, errlen,
                 "run %s: its row does not carry this controller's seal: not run again", src);
        return LG_EDENIED;
    }
    const char *p2[2] = {src, gate ? "t" : "f"};
    if ((rc = lg_db_exec(db, "SELECT lg.run_attempt($1, $2) AS run_id", 2, p2, &r, err, errlen)))
        return rc;
    lg_strlcpy(new_id, lg_db_get(r, 0, lg_db_col(r, "run_id")), idlen);
    lg_db_clear(&r);
    const char *p3[1] = {new_id};
    rc = lg_db_exec(db, "SELECT lg.run_seal_text(r) AS seal_text FROM lg.run r WHERE r.run_id = $1",
                    1, p3, &r, err, errlen);
    if (rc)
        return rc;
    char seal[LG_SEAL_HEX];
    const char *t = lg_db_get(r, 0, lg_db_col(r, "seal_text"));
    lg_seal(claim->seal_key, t, strlen(t), seal);
    lg_db_clear(&r);
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
