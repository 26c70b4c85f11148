/* failed.c: the measured points of a campaign that have no figures (lg.v_failed_point), named for
 * a reader: lgctl report and status and lg-export print them and exit 1. */
#include <stdio.h>
#include <stdlib.h>

#include "db.h"
#include "lg_esc.h"

int lg_db_failed_points(PGconn *db, const char *name, const char *cid, FILE *out, char *err,
                        size_t errlen)
{
    const char *p[2] = {name, cid};
    PGresult *r = NULL;
    int rc = lg_db_exec(
        db,
        "SELECT v.run_id, v.sut, v.point_text, v.attempt, coalesce(v.error, '') AS error"
        " FROM lg.v_failed_point v WHERE v.campaign_id = coalesce($2::bigint,"
        "   (SELECT max(campaign_id) FROM lg.v_campaign WHERE $1::text IS NULL OR name = $1))"
        " ORDER BY v.ordinal, v.run_id",
        2, p, &r, err, errlen);
    if (rc)
        return rc;
    int n = lg_db_nrows(r);
    for (int i = 0; i < n; i++) {
        char sut[512], point[512], e[1024]; /* from the database: escaped */
        fprintf(out, "failed: run %s (%s, %s), attempt %s: %s\n",
                lg_db_get(r, i, lg_db_col(r, "run_id")),
                lg_esc_ctrl(lg_db_get(r, i, lg_db_col(r, "sut")), sut, sizeof sut),
                lg_esc_ctrl(lg_db_get(r, i, lg_db_col(r, "point_text")), point, sizeof point),
                lg_db_get(r, i, lg_db_col(r, "attempt")),
                lg_esc_ctrl(lg_db_get(r, i, lg_db_col(r, "error")), e, sizeof e));
    }
    lg_db_result_destroy(&r);
    return n;
}
