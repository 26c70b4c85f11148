/* result.c: a result read whole, for code outside db/ (which sees PGresult only as a name): its
 * rows, its columns' names and types, whether the statement succeeded, and the error the server
 * sent, with its fields apart (SQLSTATE, detail, hint, position). */
#include "db.h"

#include <libpq-fe.h>
#include <stdlib.h>
#include <string.h>

#include "lg_util.h"

int lg_db_nrows(const PGresult *r)
{
    return r ? PQntuples(r) : 0;
}

void lg_db_result_destroy(PGresult **self_p)
{
    if (self_p && *self_p) {
        PQclear(*self_p);
        *self_p = NULL;
    }
}

int lg_db_nfields(const PGresult *r)
{
    return r ? PQnfields(r) : 0;
}

const char *lg_db_fname(const PGresult *r, int col)
{
    const char *n = r ? PQfname(r, col) : NULL;
    return n ? n : "";
}

/* PostgreSQL's built-in type OIDs (src/include/catalog/pg_type.dat); fixed, so written here
 * rather than asked of the server */
lg_db_kind_t lg_db_fkind(const PGresult *r, int col)
{
    switch (r && col >= 0 && col < PQnfields(r) ? PQftype(r, col) : 0) {
    case 16: /* bool */
        return LG_DB_BOOL;
    case 20: /* int8 */
    case 21: /* int2 */
    case 23: /* int4 */
    case 26: /* oid */
        return LG_DB_INT;
    case 700:  /* float4 */
    case 701:  /* float8 */
    case 1700: /* numeric */
        return LG_DB_REAL;
    default:
        return LG_DB_TEXT;
    }
}

PGresult *lg_db_result_make(lg_db_made_t status, int ncols, const char *const *names,
                            const unsigned *oids)
{
    ExecStatusType st = status == LG_DB_MADE_ROWS   ? PGRES_TUPLES_OK
                        : status == LG_DB_MADE_DONE ? PGRES_COMMAND_OK
                                                    : PGRES_FATAL_ERROR;
    if (ncols < 0 || (ncols > 0 && !names))
        return NULL;
    PGresult *r = PQmakeEmptyPGresult(NULL, st);
    if (!r || ncols == 0)
        return r;
    PGresAttDesc *a = calloc((size_t)ncols, sizeof *a);
    if (!a) {
        PQclear(r);
        return NULL;
    }
    for (int i = 0; i < ncols; i++)
        a[i] = (PGresAttDesc){.name = (char *)names[i],
                              .typid = oids ? oids[i] : 25, /* text */
                              .typlen = -1,
                              .atttypmod = -1};
    int ok = PQsetResultAttrs(r, ncols, a); /* copies the names */
    free(a);
    if (!ok) {
        PQclear(r);
        return NULL;
    }
    return r;
}

int lg_db_result_put(PGresult *r, int row, int col, const char *v)
{
    if (!r || row < 0 || col < 0 || col >= PQnfields(r))
        return -1;
    return PQsetvalue(r, row, col, (char *)v, v ? (int)strlen(v) : -1) ? 0 : -1;
}

int lg_db_result_ok(const PGresult *r)
{
    ExecStatusType st = r ? PQresultStatus(r) : PGRES_FATAL_ERROR;
    return st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK;
}

int lg_db_result_tuples(const PGresult *r)
{
    return r && PQresultStatus(r) == PGRES_TUPLES_OK;
}

const char *lg_db_result_message(const PGresult *r)
{
    return r ? PQresultErrorMessage(r) : "no result";
}

/* A field of r's error into buf, on one line ("" when r has none). */
static void s_field(const PGresult *r, int code, char *buf, size_t len)
{
    const char *v = r ? PQresultErrorField(r, code) : NULL;
    lg_strlcpy(buf, v ? v : "", len);
    for (char *c = buf; *c; c++)
        if (*c == '\n' || *c == '\t')
            *c = ' ';
}

void lg_db_result_error(const PGresult *r, lg_db_error_t *e)
{
    memset(e, 0, sizeof *e);
    s_field(r, PG_DIAG_SQLSTATE, e->sqlstate, sizeof e->sqlstate);
    s_field(r, PG_DIAG_MESSAGE_PRIMARY, e->message, sizeof e->message);
    s_field(r, PG_DIAG_MESSAGE_DETAIL, e->detail, sizeof e->detail);
    s_field(r, PG_DIAG_MESSAGE_HINT, e->hint, sizeof e->hint);
    const char *pos = r ? PQresultErrorField(r, PG_DIAG_STATEMENT_POSITION) : NULL;
    uint64_t p;
    e->position = pos && lg_parse_u64(pos, 1, INT32_MAX, &p) == 0 ? (int)p : 0;
}
