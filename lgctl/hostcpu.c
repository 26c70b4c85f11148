/* hostcpu.c: the saturated load hosts behind a report's runs and a comparison's figures
 * (lg.v_host_run). */
#include "hostcpu.h"

#include <stdlib.h>
#include <string.h>

#include "db.h"
#include "lg_cpu.h"
#include "lg_esc.h"
#include "report_int.h"

int lg_hostcpu_report_warning(PGconn *db, const char *cid, int md, FILE *out, char *err,
                              size_t errlen)
{
    const char *p[1] = {cid};
    PGresult *r = NULL;
    int rc = lg__query_exec(db, "report_hosts", NULL, 1, p, &r, err, errlen);
    if (rc)
        return rc;
    int c_agent = lg_db_col(r, "agent"), c_runs = lg_db_col(r, "runs"), c_n = lg_db_col(r, "n"),
        c_busy = lg_db_col(r, "busy");
    for (int i = 0; i < lg_db_nrows(r); i++) {
        char name[512]; /* from the database: escaped */
        int one = strcmp(lg_db_get(r, i, c_n), "1") == 0;
        fprintf(out,
                "%swarning: load host \"%s\" was saturated in run%s %s (its CPUs %.0f%% busy over "
                "the measured window; %.0f%% is saturated): %s the load host's limit, not the "
                "NAS's.\n",
                md ? "\n" : "", lg_esc_text(lg_db_get(r, i, c_agent), md, name, sizeof name),
                one ? "" : "s", lg_db_get(r, i, c_runs), strtod(lg_db_get(r, i, c_busy), NULL),
                LG_CPU_SATURATED_PCT, one ? "its figures are" : "their figures are");
    }
    lg_db_result_destroy(&r);
    return 0;
}

/* The figures lg.compare averages whose run had a saturated load host (compare_hosts.sql). */
int lg_hostcpu_compare_note(PGconn *db, const char *dimension, const char *metrics,
                            const char *filter, const char *campaigns, const char *ignore, int md,
                            FILE *out, char *err, size_t errlen)
{
    const char *p[5] = {dimension, metrics, filter, campaigns, ignore};
    PGresult *r = NULL;
    int rc = lg__query_exec(db, "compare_hosts", NULL, 5, p, &r, err, errlen);
    if (rc)
        return rc;
    int c_side = lg_db_col(r, "side"), c_cfg = lg_db_col(r, "config"),
        c_agent = lg_db_col(r, "agent"), c_runs = lg_db_col(r, "runs"), c_n = lg_db_col(r, "n"),
        c_busy = lg_db_col(r, "busy");
    for (int i = 0; i < lg_db_nrows(r); i++) {
        char dim[256], side[512], cfg[1024], name[512]; /* from the database: escaped */
        int one = strcmp(lg_db_get(r, i, c_n), "1") == 0;
        fprintf(out,
                "%snote: a load host was saturated on the %s=%s side: config \"%s\", host \"%s\" "
                "(CPUs %.0f%% busy, run%s %s): %s the load host's limit, not the NAS's.\n",
                md ? "\n" : "", lg_esc_text(dimension, md, dim, sizeof dim),
                lg_esc_text(lg_db_get(r, i, c_side), md, side, sizeof side),
                lg_esc_text(lg_db_get(r, i, c_cfg), md, cfg, sizeof cfg),
                lg_esc_text(lg_db_get(r, i, c_agent), md, name, sizeof name),
                strtod(lg_db_get(r, i, c_busy), NULL), one ? "" : "s", lg_db_get(r, i, c_runs),
                one ? "its figures are" : "their figures are");
    }
    lg_db_result_destroy(&r);
    return 0;
}
