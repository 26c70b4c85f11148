/* sweep.c: lgctl compare --sweep: IOPS and average latency per load point of swept profiles,
 * a column pair per configuration (lg.sweep). */
#include "compare.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare_int.h"
#include "db.h"
#include "lg_esc.h"

int lg_sweep_print(PGconn *db, const lg_compare_opts_t *o, FILE *out, char *err, size_t errlen)
{
    lg__cmp_sel_t s;
    int rc = lg__cmp_sel(o, &s, err, errlen);
    if (rc)
        return rc;
    const char *p[2] = {s.where, s.campaigns};
    PGresult *r = NULL;
    rc = lg__cmp_check(db, NULL, &s, err, errlen);
    if (rc == 0) {
        rc = lg__cmp_query(db, "SELECT * FROM lg.sweep($1::jsonb, " CAMPAIGNS_SQL("2") ")", 2, p,
                           &r, err, errlen);
    }
    if (rc == 0 && lg_db_nrows(r) == 0) {
        lg_db_result_destroy(&r);
        rc = lg__cmp_no_match(db, &s, "iops", err, errlen);
        /* every filter matches: nothing was swept */
        if (strstr(err, "match the selection together"))
            snprintf(err, errlen,
                     "no profile was measured at more than one load point in the "
                     "selection");
    }
    lg__cmp_sel_clear(&s);
    if (rc)
        return rc;
    if (o->format == LG_FMT_CSV || o->format == LG_FMT_JSON) {
        lg_tbl_print_result(r, o->format, out);
        lg_db_result_destroy(&r);
        return 0;
    }
    /* lg.sweep's columns, by name */
    int md = o->format == LG_FMT_MARKDOWN, n = lg_db_nrows(r), c_prof = lg_db_col(r, "profile"),
        c_dir = lg_db_col(r, "direction"), c_cfg = lg_db_col(r, "config"),
        c_th = lg_db_col(r, "threads"), c_qd = lg_db_col(r, "qd"), c_iops = lg_db_col(r, "iops"),
        c_lat = lg_db_col(r, "lat_avg_ms");
    for (int i = 0; i < n;) {
        int e = i;
        while (e < n && !strcmp(lg_db_get(r, e, c_prof), lg_db_get(r, i, c_prof)) &&
               !strcmp(lg_db_get(r, e, c_dir), lg_db_get(r, i, c_dir)))
            e++;
        /* The configurations of this profile and direction, lettered A, B, ... */
        const char *cfg[26];
        int ncfg = 0;
        for (int j = i; j < e; j++) {
            int k = 0;
            while (k < ncfg && strcmp(cfg[k], lg_db_get(r, j, c_cfg)) != 0)
                k++;
            if (k == ncfg && ncfg < 26)
                cfg[ncfg++] = lg_db_get(r, j, c_cfg);
        }
        char prof[256], sut[1024];
        fprintf(out, "%s%s %s: IOPS and average latency (ms) per load point%s\n", md ? "**" : "",
                lg_esc_text(lg_db_get(r, i, c_prof), md, prof, sizeof prof), lg_db_get(r, i, c_dir),
                md ? "**\n" : "");
        for (int k = 0; k < ncfg; k++)
            fprintf(out, "  %c: %s\n", 'A' + k, lg_esc_text(cfg[k], md, sut, sizeof sut));
        if (md)
            fputc('\n', out);
        lg_tbl_t t = {.ncols = 1 + 2 * (size_t)ncfg};
        lg_tbl_add(&t, 0, "load");
        for (int k = 0; k < ncfg; k++) {
            lg_tbl_add(&t, 0, "%c IOPS", 'A' + k);
            lg_tbl_add(&t, 0, "%c lat ms", 'A' + k);
        }
        for (int j = i; j < e;) {
            int pe = j;
            while (pe < e && !strcmp(lg_db_get(r, pe, c_th), lg_db_get(r, j, c_th)) &&
                   !strcmp(lg_db_get(r, pe, c_qd), lg_db_get(r, j, c_qd)))
                pe++;
            lg_tbl_add(&t, 0, "%sT%sQ", lg_db_get(r, j, c_th), lg_db_get(r, j, c_qd));
            for (int k = 0; k < ncfg; k++) {
                int x = j;
                while (x < pe && strcmp(lg_db_get(r, x, c_cfg), cfg[k]) != 0)
                    x++;
                char a[64], b[64];
                lg__cmp_fig(a, sizeof a, "IOPS", x < pe ? lg__cmp_null(r, x, c_iops) : NULL);
                lg__cmp_fig(b, sizeof b, "ms", x < pe ? lg__cmp_null(r, x, c_lat) : NULL);
                lg_tbl_add(&t, x < pe ? 0 : 2, "%s", a);
                lg_tbl_add(&t, x < pe ? 0 : 2, "%s", b);
            }
            j = pe;
        }
        lg_tbl_print(&t, o->format, o->colour, 1, out);
        fputc('\n', out);
        lg_tbl_clear(&t);
        i = e;
    }
    lg_db_result_destroy(&r);
    return 0;
}
