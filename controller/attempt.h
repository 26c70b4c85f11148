/* attempt.h: new attempts at a run's point (schema 030_attempts), on the store's thread. */
#ifndef LG_ATTEMPT_H
#define LG_ATTEMPT_H

#include "db.h" /* PGconn: db/ is the one door to PostgreSQL */
#include <stddef.h>
#include <stdint.h>

#include "ctrl.h"

/* A new pending attempt at run src's point (lg.run_attempt): only of a row that carries claim's
 * seal (else LG_EDENIED, err saying so), the copy sealed under the same key; gate: a gate (the
 * campaign's pause or hook) before it. Its run_id into new_id. 0 or an error. */
int lg__attempt_new(PGconn *db, const lg_claim_t *claim, const char *src, int gate, char *new_id,
                    size_t idlen, char *err, size_t errlen);

/* A run that failed for a transient reason, tried again (a step of the transaction that ends
 * it): data is a retry_step_t. A row not sealed by this controller is logged and left failed. */
typedef struct {
    uint64_t run_id;
    const lg_claim_t *claim;
} retry_step_t;
int lg__attempt_retry_step(PGconn *db, void *data, char *err, size_t errlen);

/* lgctl rerun: new attempts at the points of campaign_id's runs (nruns > 0) or at its failed
 * points (lg.v_failed_point), in one transaction, the campaign pending again; only a campaign
 * this controller accepted and that ended. *code (0 or LG_E*) and msg answer lgctl. 0 or a
 * database error. */
int lg__attempt_rerun(PGconn *db, const lg_claim_t *claim, uint64_t campaign_id,
                      const uint64_t *runs, size_t nruns, int *code, char *msg, size_t msglen,
                      char *err, size_t errlen);

#endif
