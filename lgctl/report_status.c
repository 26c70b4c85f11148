/* report_status.c: lgctl status with no controller to ask: a campaign's final state from the
 * database, each point counted by its newest attempt (queries/report_status.sql). */
#include <stdio.h>
#include <string.h>

#include "db.h"
#include "lg_error.h"
#include "lg_esc.h"
#include "report.h"
#include "report_int.h"

int lg_report_status(PGconn *db, const char *name, FILE *out, char *err, size_t errlen)
{
    const char *p[1] = {name};
    PGresult *r = NULL;
    int rc = lg__query_exec(db, "report_status", NULL, 1, p, &r, err, errlen);
    if (rc)
        return rc;
    if (lg_db_nrows(r) == 0) {
        lg_db_result_destroy(&r);
        char what[600], none[700];
        snprintf(what, sizeof what, "named \"%s\"", name);
        snprintf(none, sizeof none, "no campaign %s: no campaigns in the database yet", what);
        return lg__report_none(db, what, none, err, errlen);
    }
    char cname[1024], msg[4096]; /* from the database: escaped (see lg_report_print) */
    const char *finished = lg_db_get(r, 0, lg_db_col(r, "finished")),
               *message = lg_db_get(r, 0, lg_db_col(r, "message"));
    const char *pf = lg_db_get(r, 0, lg_db_col(r, "points_failed"));
    char with[64] = "";
    if (strcmp(pf, "0") != 0)
        snprintf(with, sizeof with, " with %s failed", pf);
    fprintf(out, "campaign %s \"%s\": %s%s, %s of %s runs done, %s failed or aborted%s%s\n",
            lg_db_get(r, 0, lg_db_col(r, "campaign_id")),
            lg_esc_ctrl(lg_db_get(r, 0, lg_db_col(r, "name")), cname, sizeof cname),
            lg_db_get(r, 0, lg_db_col(r, "state")), with, lg_db_get(r, 0, lg_db_col(r, "done")),
            lg_db_get(r, 0, lg_db_col(r, "runs")), lg_db_get(r, 0, lg_db_col(r, "failed")),
            finished[0] ? "; finished " : "", finished);
    if (message[0])
        fprintf(out, "message: %s\n", lg_esc_ctrl(message, msg, sizeof msg));
    fprintf(out, "(from the database: no controller runs it now)\n");
    lg_db_result_destroy(&r);
    return 0;
}
