/* migrate.c: applies pending schema migrations; running it again changes nothing. */
#include "migrate.h"

#include <libpq-fe.h>
#include <stdio.h>
#include <string.h>

#include "lg_error.h"
#include "lg_util.h"

#define LOCK_KEY "7318008" /* advisory lock id for migrations */

static int s_exec(PGconn *db, const char *sql, char *err, size_t errlen)
{
    PGresult *r = PQexec(db, sql);
    int ok = PQresultStatus(r) == PGRES_COMMAND_OK || PQresultStatus(r) == PGRES_TUPLES_OK;
    if (!ok)
        snprintf(err, errlen, "%s", PQresultErrorMessage(r));
    PQclear(r);
    return ok ? 0 : LG_EDB;
}

/* 1 when every migration is recorded: a reader (lg_reader) gets there without any DDL. */
static int s_up_to_date(PGconn *db)
{
    PGresult *r = PQexec(db, "SELECT name FROM public.lg_migration");
    int ok = PQresultStatus(r) == PGRES_TUPLES_OK;
    for (const lg_migration_t *m = lg_migrations; ok && m->name; m++) {
        int found = 0;
        for (int i = 0; !found && i < PQntuples(r); i++)
            found = strcmp(PQgetvalue(r, i, 0), m->name) == 0;
        ok = found;
    }
    PQclear(r);
    return ok;
}

int lg_db_migrate(PGconn *db, int *applied, char *err, size_t errlen)
{
    *applied = 0;
    if (s_up_to_date(db))
        return 0;
    if (s_exec(db, "SELECT pg_advisory_lock(" LOCK_KEY ")", err, errlen))
        return LG_EDB;
    int rc = s_exec(db,
                    "CREATE TABLE IF NOT EXISTS public.lg_migration ("
                    " name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())",
                    err, errlen);
    for (const lg_migration_t *m = lg_migrations; rc == 0 && m->name; m++) {
        const char *params[1] = {m->name};
        PGresult *r = PQexecParams(db, "SELECT 1 FROM public.lg_migration WHERE name = $1", 1,
                                   NULL, params, NULL, NULL, 0);
        if (PQresultStatus(r) != PGRES_TUPLES_OK) {
            snprintf(err, errlen, "%s", PQresultErrorMessage(r));
            PQclear(r);
            rc = LG_EDB;
            break;
        }
        int done = PQntuples(r) > 0;
        PQclear(r);
        if (done)
            continue;
        rc = s_exec(db, "BEGIN", err, errlen);
        if (rc == 0 && (rc = s_exec(db, m->sql, err, errlen)) != 0) {
            char msg[1024];
            snprintf(msg, sizeof msg, "migration \"%s\" failed: %s", m->name, err);
            lg_strlcpy(err, msg, errlen);
        }
        if (rc == 0) {
            r = PQexecParams(db, "INSERT INTO public.lg_migration (name) VALUES ($1)", 1, NULL,
                             params, NULL, NULL, 0);
            if (PQresultStatus(r) != PGRES_COMMAND_OK) {
                snprintf(err, errlen, "%s", PQresultErrorMessage(r));
                rc = LG_EDB;
            }
            PQclear(r);
        }
        if (rc == 0)
            rc = s_exec(db, "COMMIT", err, errlen);
        if (rc) {
            char ignore[64];
            s_exec(db, "ROLLBACK", ignore, sizeof ignore);
            break;
        }
        (*applied)++;
    }
    char ignore[64];
    s_exec(db, "SELECT pg_advisory_unlock(" LOCK_KEY ")", ignore, sizeof ignore);
    return rc;
}
