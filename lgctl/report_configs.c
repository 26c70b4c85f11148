/* report_configs.c: what lgctl report says of a campaign's SUT configs above its table
 * (report_int.h). */
#include "report_int.h"

#include <stdlib.h>
#include <string.h>

#include "db.h"
#include "lg_esc.h"
#include "lg_util.h"

/* The labels that every SUT config the campaign measured has, with the same value, as a JSON
 * object into common ("{}" with one config or none in common). Returns 0 or an LG_E* code. */
int lg__report_common_labels(PGconn *db, const char *cid, char *common, size_t len, char *err,
                             size_t errlen)
{
    const char *p[1] = {cid};
    PGresult *r = NULL;
    int rc = lg__query_exec(db, "report_common", NULL, 1, p, &r, err, errlen);
    if (rc)
        return rc;
    lg_strlcpy(common, lg_db_nrows(r) ? lg_db_get(r, 0, lg_db_col(r, "common")) : "{}", len);
    lg_db_result_destroy(&r);
    return 0;
}

/* "SUT configs: a; b", each config once in the order they ran (r's sut: without the labels
 * common to all, which a line "In every config: ..." says once before it). */
void lg__report_sut_line(PGconn *db, const PGresult *r, int sut_col, int nconfigs,
                         const char *common, int md, FILE *out)
{
    char shown[1024];
    if (strcmp(common, "{}") != 0) {
        const char *p[1] = {common};
        PGresult *s = NULL;
        char err[256];
        if (lg__query_exec(db, "report_sut_short", NULL, 1, p, &s, err, sizeof err) == 0 &&
            lg_db_nrows(s))
            fprintf(out, "%sIn every config: %s\n", md ? "\n" : "",
                    lg_esc_text(lg_db_get(s, 0, lg_db_col(s, "sut")), md, shown, sizeof shown));
        lg_db_result_destroy(&s);
    }
    fprintf(out, "%sSUT config%s:", md ? "\n" : "", nconfigs == 1 ? "" : "s");
    for (int i = 0, k = 0; i < lg_db_nrows(r); i++) {
        int seen = 0;
        for (int j = 0; j < i && !seen; j++)
            seen = strcmp(lg_db_get(r, j, sut_col), lg_db_get(r, i, sut_col)) == 0;
        if (!seen)
            fprintf(out, "%s %s", k++ ? ";" : "",
                    lg_esc_text(lg_db_get(r, i, sut_col), md, shown, sizeof shown));
    }
    fputs(lg_db_nrows(r) ? "\n\n" : " none: the campaign has no runs\n", out);
}

/* What the operator's check (lg-controller --readback) read back of each config before its first
 * run, beside the config's labels; nothing when the campaign had no check. */
int lg__report_checks(PGconn *db, const char *cid, int md, FILE *out, char *err, size_t errlen)
{
    const char *p[1] = {cid};
    PGresult *r = NULL;
    int rc = lg__query_exec(db, "report_checks", NULL, 1, p, &r, err, errlen);
    if (rc)
        return rc;
    if (lg_db_nrows(r))
        fprintf(out, "%sRead back before each config (lg-controller --readback):\n",
                md ? "\n" : "");
    for (int i = 0; i < lg_db_nrows(r); i++) {
        char sut[1024], read[2048], why[2048];
        const char *e = lg_db_get(r, i, lg_db_col(r, "error"));
        fprintf(out, "%s config %s (%s): %s%s%s\n", md ? "-" : " ",
                lg_db_get(r, i, lg_db_col(r, "config")),
                lg_esc_text(lg_db_get(r, i, lg_db_col(r, "sut")), md, sut, sizeof sut),
                lg_esc_text(lg_db_get(r, i, lg_db_col(r, "read")), md, read, sizeof read),
                e[0] ? (lg_db_get(r, i, lg_db_col(r, "read"))[0] ? "; " : "") : " (as labelled)",
                e[0] ? lg_esc_text(e, md, why, sizeof why) : "");
    }
    if (lg_db_nrows(r))
        fputc('\n', out);
    lg_db_result_destroy(&r);
    return 0;
}
