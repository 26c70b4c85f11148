/* migrate.c: applies pending schema migrations, then re-creates the views and functions of
 * schema/views when one of them changed (Flyway's repeatable migrations); running it again
 * changes nothing. */
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

/* Run sql with params, expecting no rows back (or not caring). */
static int s_run(PGconn *db, const char *sql, int n, const char *const *params, char *err,
                 size_t errlen)
{
    lg_db_set_thread_deadline_ms(MIGRATE_DEADLINE_MS);
    int rc = lg_db_exec(db, sql, n, params, NULL, err, errlen);
    lg_db_set_thread_deadline_ms(0);
    return rc;
}

/* End the transaction (lg_db_end: COMMIT when rc is 0, else ROLLBACK) to the same deadline. */
static int s_end(PGconn *db, int rc, char *err, size_t errlen)
{
    lg_db_set_thread_deadline_ms(MIGRATE_DEADLINE_MS);
    rc = lg_db_end(db, rc, err, errlen);
    lg_db_set_thread_deadline_ms(0);
    return rc;
}

/* The first migration compiled in that r (public.lg_migration's names) does not record, or NULL;
 * *nrec: how many of them it does. */
static const lg_migration_t *s_first_missing(const PGresult *r, int *nrec)
{
    int name = lg_db_col(r, "name");
    const lg_migration_t *first = NULL;
    *nrec = 0;
    for (const lg_migration_t *m = lg_migrations; m->name; m++) {
        int found = 0;
        for (int i = 0; !found && i < PQntuples(r); i++)
            found = strcmp(lg_db_get(r, i, name), m->name) == 0;
        *nrec += found;
        if (!found && !first)
            first = m;
    }
    return first;
}

/* 1 when every migration is recorded. */
static int s_migrations_recorded(PGconn *db)
{
    PGresult *r = NULL;
    char err[256];
    if (lg_db_exec(db, "SELECT name FROM public.lg_migration", 0, NULL, &r, err, sizeof err))
        return 0;
    int nrec;
    int ok = s_first_missing(r, &nrec) == NULL;
    PQclear(r);
    return ok;
}

int lg_db_schema_check(PGconn *db, char *missing, size_t mlen, char *err, size_t errlen)
{
    missing[0] = 0;
    int n = 0;
    while (lg_migrations[n].name)
        n++;
    const char *last = n ? lg_migrations[n - 1].name : "none";
    PGresult *r = NULL;
    int rc = lg_db_query(db, "SELECT name FROM public.lg_migration", 0, NULL, &r, err, errlen);
    if (rc)
        return rc;
    if (!lg_db_result_tuples(r)) {
        lg_db_error_t e;
        lg_db_result_error(r, &e);
        if (strcmp(e.sqlstate, "42P01") == 0) { /* undefined_table: never migrated */
            lg_strlcpy(missing, n ? lg_migrations[0].name : "", mlen);
            snprintf(err, errlen,
                     "the database has no lg schema (no public.lg_migration); this lg's is %d "
                     "migrations, up to \"%s\"",
                     n, last);
            rc = LG_ESTATE;
        } else {
            snprintf(err, errlen, "could not read the schema's migrations: %s",
                     lg_db_result_message(r));
            for (char *c = err; *c; c++)
                if (*c == '\n' || *c == '\t')
                    *c = ' ';
            for (size_t l = strlen(err); l && err[l - 1] == ' ';)
                err[--l] = 0;
            rc = LG_EDB;
        }
        PQclear(r);
        return rc;
    }
    int nrec;
    const lg_migration_t *m = s_first_missing(r, &nrec);
    PQclear(r);
    if (!m)
        return 0;
    lg_strlcpy(missing, m->name, mlen);
    snprintf(err, errlen,
             "migration \"%s\" is not applied: the database has %d of this lg's %d migrations, up "
             "to \"%s\"",
             m->name, nrec, n, last);
    return LG_ESTATE;
}

/* 1 when public.lg_repeatable records exactly the files of schema/views with their checksums. */
static int s_repeatables_current(PGconn *db)
{
    PGresult *r = NULL;
    char err[256];
    if (lg_db_exec(db, "SELECT name, checksum FROM public.lg_repeatable", 0, NULL, &r, err,
                   sizeof err))
        return 0;
    int name = PQfnumber(r, "name"), sum = PQfnumber(r, "checksum");
    int ok = name >= 0 && sum >= 0, n = 0;
    for (const lg_repeatable_t *v = lg_repeatables; ok && v->name; v++, n++) {
        int found = 0;
        for (int i = 0; !found && i < PQntuples(r); i++)
            found = strcmp(PQgetvalue(r, i, name), v->name) == 0 &&
                    strcmp(PQgetvalue(r, i, sum), v->checksum) == 0;
        ok = found;
    }
    ok = ok && PQntuples(r) == n; /* a file removed is a change too */
    PQclear(r);
    return ok;
}

/* 1 when nothing is to be done: a reader (lg_reader) gets there without any DDL. */
static int s_up_to_date(PGconn *db)
{
    return s_migrations_recorded(db) && s_repeatables_current(db);
}

/* Apply m unless it is recorded: its SQL and its record in one transaction, which also forgets
 * the recorded views (a migration may drop one of them: they are re-created after). *done: 1
 * when it was applied now. */
static int s_apply(PGconn *db, const lg_migration_t *m, int *done, char *err, size_t errlen)
{
    const char *params[1] = {m->name};
    PGresult *r = NULL;
    *done = 0;
    int rc = lg_db_exec(db, "SELECT 1 FROM public.lg_migration WHERE name = $1", 1, params, &r, err,
                        errlen);
    if (rc)
        return rc;
    int recorded = PQntuples(r) > 0;
    PQclear(r);
    if (recorded)
        return 0;
    rc = s_exec(db, "BEGIN", err, errlen);
    if (rc == 0 && (rc = s_exec(db, m->sql, err, errlen)) != 0) {
        char msg[1024];
        snprintf(msg, sizeof msg, "migration \"%s\" failed: %s", m->name, err);
        lg_strlcpy(err, msg, errlen);
    }
    if (rc == 0)
        rc =
            s_run(db, "INSERT INTO public.lg_migration (name) VALUES ($1)", 1, params, err, errlen);
    if (rc == 0)
        rc = s_run(db, "DELETE FROM public.lg_repeatable", 0, NULL, err, errlen);
    rc = s_end(db, rc, err, errlen);
    *done = rc == 0;
    return rc;
}

/* Drop the view named like v if there is one: views are created anew, in dependency order (a
 * function's file is named after the function, and no view has its name). */
static int s_drop_view(PGconn *db, const lg_repeatable_t *v, char *err, size_t errlen)
{
    const char *params[1] = {v->name};
    PGresult *r = NULL;
    int rc = lg_db_exec(db,
                        "SELECT 1 FROM pg_catalog.pg_class WHERE relkind = 'v'"
                        " AND relnamespace = 'lg'::pg_catalog.regnamespace AND relname = $1",
                        1, params, &r, err, errlen);
    if (rc)
        return rc;
    int exists = PQntuples(r) > 0;
    PQclear(r);
    if (!exists)
        return 0;
    char *id = PQescapeIdentifier(db, v->name, strlen(v->name));
    if (!id) {
        snprintf(err, errlen, "%s", PQerrorMessage(db));
        return LG_EDB;
    }
    char sql[256];
    snprintf(sql, sizeof sql, "DROP VIEW lg.%s", id);
    PQfreemem(id);
    rc = s_exec(db, sql, err, errlen);
    if (rc) {
        char msg[1024];
        snprintf(msg, sizeof msg,
                 "could not drop view \"lg.%s\" to re-create it: %s. Hint: an object outside "
                 "schema/views depends on it; drop it, migrate, and make it again.",
                 v->name, err);
        lg_strlcpy(err, msg, errlen);
    }
    return rc;
}

/* Re-create every view and function of schema/views in one transaction: drop the views in the
 * reverse order, run every file in order (views CREATE, functions CREATE OR REPLACE), record
 * the checksums. */
static int s_recreate(PGconn *db, char *err, size_t errlen)
{
    int n = 0;
    while (lg_repeatables[n].name)
        n++;
    int rc = s_exec(db, "BEGIN", err, errlen);
    for (int i = n - 1; rc == 0 && i >= 0; i--)
        rc = s_drop_view(db, &lg_repeatables[i], err, errlen);
    for (int i = 0; rc == 0 && i < n; i++) {
        if ((rc = s_exec(db, lg_repeatables[i].sql, err, errlen)) != 0) {
            char msg[1024];
            snprintf(msg, sizeof msg, "schema/views/%s.sql failed: %s", lg_repeatables[i].name,
                     err);
            lg_strlcpy(err, msg, errlen);
        }
    }
    if (rc == 0)
        rc = s_run(db, "DELETE FROM public.lg_repeatable", 0, NULL, err, errlen);
    for (int i = 0; rc == 0 && i < n; i++) {
        const char *params[2] = {lg_repeatables[i].name, lg_repeatables[i].checksum};
        rc = s_run(db, "INSERT INTO public.lg_repeatable (name, checksum) VALUES ($1, $2)", 2,
                   params, err, errlen);
    }
    return s_end(db, rc, err, errlen);
}

int lg_db_migrate(PGconn *db, int *applied, int *recreated, char *err, size_t errlen)
{
    *applied = 0;
    if (recreated)
        *recreated = 0;
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
                    " name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now());"
                    "CREATE TABLE IF NOT EXISTS public.lg_repeatable ("
                    " name text PRIMARY KEY, checksum text NOT NULL,"
                    " applied_at timestamptz NOT NULL DEFAULT now())",
                    err, errlen);
    for (const lg_migration_t *m = lg_migrations; rc == 0 && m->name; m++) {
        int done = 0;
        rc = s_apply(db, m, &done, err, errlen);
        *applied += done;
    }
    /* after a migration, always: it may have dropped or changed what a view reads */
    if (rc == 0 && (*applied > 0 || !s_repeatables_current(db))) {
        rc = s_recreate(db, err, errlen);
        for (const lg_repeatable_t *v = lg_repeatables; rc == 0 && recreated && v->name; v++)
            (*recreated)++;
    }
    char ignore[64];
    s_exec(db, "SELECT pg_advisory_unlock(" LOCK_KEY ")", ignore, sizeof ignore);
    snprintf(set, sizeof set, "SET statement_timeout = %u", lg_db_deadline_ms() + 1000);
    s_exec(db, set, ignore, sizeof ignore);
    return rc;
}
