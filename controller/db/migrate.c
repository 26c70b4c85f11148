/* migrate.c: applies pending schema migrations; running it again changes nothing. */
#include "migrate.h"

#include <libpq-fe.h>
#include <stdio.h>
#include <string.h>

#include "db.h"
#include "lg_error.h"
#include "lg_util.h"

#define LOCK_KEY "7318008" /* advisory lock id for migrations */

/* A migration may rewrite large tables: its own deadline, 10 minutes, not a statement's. */
#define MIGRATE_DEADLINE_MS 600000

static int s_exec(PGconn *db, const char *sql, char *err, size_t errlen)
{
    lg_db_set_thread_deadline_ms(MIGRATE_DEADLINE_MS);
    int rc = lg_db_script(db, sql, err, errlen);
    lg_db_set_thread_deadline_ms(0);
    return rc;
}

/* 1 when every migration is recorded: a reader (lg_reader) gets there without any DDL. */
static int s_up_to_date(PGconn *db)
{
    PGresult *r = NULL;
    char err[256];
    int ok = lg_db_query(db, "SELECT name FROM public.lg_migration", 0, NULL, &r, err,
                         sizeof err) == 0 &&
             PQresultStatus(r) == PGRES_TUPLES_OK;
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
    /* the server's statement_timeout too: a migration is not a statement (lg_db_connect) */
    char set[64];
    snprintf(set, sizeof set, "SET statement_timeout = %d", MIGRATE_DEADLINE_MS + 1000);
    if (s_exec(db, set, err, errlen))
        return LG_EDB;
    if (s_exec(db, "SELECT pg_advisory_lock(" LOCK_KEY ")", err, errlen))
        return LG_EDB;
    int rc = s_exec(db,
                    "CREATE TABLE IF NOT EXISTS public.lg_migration ("
                    " name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())",
                    err, errlen);
    for (const lg_migration_t *m = lg_migrations; rc == 0 && m->name; m++) {
        const char *params[1] = {m->name};
        PGresult *r = NULL;
        rc = lg_db_query(db, "SELECT 1 FROM public.lg_migration WHERE name = $1", 1, params, &r,
                         err, errlen);
        if (rc)
            break;
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
            rc = lg_db_query(db, "INSERT INTO public.lg_migration (name) VALUES ($1)", 1, params,
                             &r, err, errlen);
            if (rc == 0 && PQresultStatus(r) != PGRES_COMMAND_OK) {
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
    snprintf(set, sizeof set, "SET statement_timeout = %u", lg_db_deadline_ms() + 1000);
    s_exec(db, set, ignore, sizeof ignore);
    return rc;
}
