/* report_status.c: lgctl status with no controller to ask: a campaign's final state from the
 * database, each point counted by its newest attempt (030_attempts). */
#include <stdio.h>
#include <string.h>

#include "db.h"
#include "lg_error.h"
#include "lg_esc.h"
#include "report.h"

int lg_report_status(PGconn *db, const char *name, FILE *out, char *err, size_t errlen)
{
    const char *p[1] = {name};
    PGresult *r = NULL;
    int rc = lg_db_exec(db,
                        "SELECT c.campaign_id, c.name, c.state,"
                        " count(*) FILTER (WHERE r.state = 'done') AS done,"
                        " count(*) FILTER (WHERE r.state IN ('failed', 'aborted')) AS failed,"
                        " count(r.*) AS runs, (SELECT count(*) FROM lg.v_failed_point v"
                        "   WHERE v.campaign_id = c.campaign_id) AS points_failed,"
                        " coalesce(to_char(c.finished_at, 'YYYY-MM-DD HH24:MI:SS TZ'), '')"
                        "   AS finished, coalesce(c.message, '') AS message"
                        /* each point's newest attempt (030_attempts) */
                        " FROM lg.v_campaign c LEFT JOIN lg.v_run r"
                        "   ON r.campaign_id = c.campaign_id AND NOT EXISTS (SELECT 1"
                        "   FROM lg.v_run n WHERE n.attempt > r.attempt"
                        "   AND coalesce(n.first_run, n.run_id) = coalesce(r.first_run, r.run_id))"
                        " WHERE c.campaign_id = (SELECT max(campaign_id) FROM lg.v_campaign"
                        "   WHERE name = $1)"
                        " GROUP BY c.campaign_id, c.name, c.state, c.finished_at, c.message",
                        1, p, &r, err, errlen);
    if (rc)
        return rc;
    if (lg_db_nrows(r) == 0) {
        lg_db_result_destroy(&r);
        char names[1024];
        lg_db_campaign_names(db, names, sizeof names);
        if (names[0])
            snprintf(err, errlen, "no campaign named \"%s\"; campaigns: %s", name, names);
        else
            snprintf(err, errlen, "no campaign named \"%s\": no campaigns in the database yet",
                     name);
        return LG_ENOTFOUND;
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
