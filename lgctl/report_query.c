/* report_query.c: lgctl's queries compiled in (queries/NAME.sql, db/query.h), run by name: the
 * report's, its status from the database and its comparison's notes. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "db.h"
#include "lg_error.h"
#include "report_int.h"

int lg__query_exec(PGconn *db, const char *name, const char *const *parts, int n,
                   const char *const *params, PGresult **out, char *err, size_t errlen)
{
    lg_query_t q;
    if (lg_query_load(lg_lgctl_queries, name, &q, err, errlen) != 0)
        return LG_EPARSE;
    char *sql = lg_query_sql(&q, parts);
    lg_query_clear(&q);
    if (!sql) {
        snprintf(err, errlen, "out of memory");
        return -ENOMEM;
    }
    int rc = lg_db_exec(db, sql, n, params, out, err, errlen);
    free(sql);
    return rc;
}

int lg__query_section(PGconn *db, const char *name, const char *cid, int md, FILE *out,
                      lg_render_row_fn row, void *arg, PGresult **res, char *err, size_t errlen)
{
    lg_query_t q;
    if (lg_query_load(lg_lgctl_queries, name, &q, err, errlen) != 0)
        return LG_EPARSE;
    const char *p[1] = {cid};
    int rc = lg_render_section(db, &q, 1, p, md ? LG_FMT_MARKDOWN : LG_FMT_TABLE, out, row, arg,
                               res, err, errlen);
    lg_query_clear(&q);
    return rc;
}

int lg__report_none(PGconn *db, const char *what, const char *none, char *err, size_t errlen)
{
    char names[1024];
    lg_db_campaign_names(db, names, sizeof names);
    if (names[0])
        snprintf(err, errlen, "no campaign %s; campaigns: %s", what, names);
    else
        snprintf(err, errlen, "%s", none);
    return LG_ENOTFOUND;
}
