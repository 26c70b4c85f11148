/* cols.c: reading a query's result by column name, as pg_dump does (i_name = PQfnumber(res,
 * "name") once per result, then every row by it): a query that gains a column moves no reader.
 * A name that is not in the result is the query and its reader disagreeing: said loudly, and read
 * as an empty value, never a crash. */
#include "db.h"

#include <libpq-fe.h>
#include <stdio.h>
#include <string.h>

#include "lg_log.h"

int lg_db_col(const PGresult *r, const char *name)
{
    int c = r ? PQfnumber(r, name) : -1;
    if (c >= 0)
        return c;
    char cols[1024] = "";
    size_t len = 0;
    for (int k = 0; r && k < PQnfields(r) && len < sizeof cols; k++) {
        int n = snprintf(cols + len, sizeof cols - len, "%s%s", k ? ", " : "", PQfname(r, k));
        len += n > 0 ? (size_t)n : 0;
    }
    lg_error("no column \"%s\" in a query's result: it reads as empty", name);
    lg_log_detail("The result's columns: %s.", r ? cols : "none (no result)");
    lg_log_hint("The query and the code reading it disagree: name the column in the query's "
                "select list (AS %s) or read the name it has.",
                name);
    return -1;
}

int lg_db_cols(const PGresult *r, const char *const *names, int *cols, size_t n)
{
    int missing = 0;
    for (size_t k = 0; k < n; k++) {
        cols[k] = lg_db_col(r, names[k]);
        missing += cols[k] < 0;
    }
    return missing;
}

const char *lg_db_get(const PGresult *r, int row, int col)
{
    const char *v = col >= 0 ? PQgetvalue(r, row, col) : NULL;
    return v ? v : "";
}

int lg_db_isnull(const PGresult *r, int row, int col)
{
    return col < 0 || PQgetisnull(r, row, col);
}
