/* db.h: libpq helpers shared by lg-controller and lgctl: connect, run parameterised statements
 * with checked results, and JSON forms of histograms and percentiles for jsonb columns. */
#ifndef LG_DB_H
#define LG_DB_H

#include <libpq-fe.h>
#include <stddef.h>

#include "lg_stats.h"

/* Connect; NULL with the reason in err. Caller owns the result (PQfinish). */
PGconn *lg_db_connect(const char *conninfo, char *err, size_t errlen);
/* Run sql with n text parameters. Succeeds on COMMAND_OK or TUPLES_OK; then *out (if not NULL)
 * receives the result, which the caller PQclears. Returns 0 or LG_EDB with the message in err. */
int lg_db_exec(PGconn *db, const char *sql, int n, const char *const *params, PGresult **out,
               char *err, size_t errlen);
/* End a transaction: COMMIT when rc is 0, else (or when the commit fails) ROLLBACK, keeping the
 * first error in err. Returns the outcome: 0, rc, or the commit's error. */
int lg_db_end(PGconn *db, int rc, char *err, size_t errlen);
/* Sparse histogram as a JSON object {"bucket index": count, ...}. Caller owns the result (free). */
char *lg_db_hist_json(const lg_hist_t *h);
/* Percentiles of h for lg_pct_list as {"99.000000": ns, ...} (keys as fio prints them).
 * Caller owns the result (free). */
char *lg_db_pct_json(const lg_hist_t *h);

/* The names of the newest campaigns (at most 20, newest first, comma-separated) into buf, for a
 * "no campaign named X; campaigns: ..." message; "" when there are none or on error. */
void lg_db_campaign_names(PGconn *db, char *buf, size_t len);

#endif
