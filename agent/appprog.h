/* appprog.h: where the programs of an application run are: PostgreSQL's server programs and
 * pgbench, or MariaDB's and sysbench. Looked up once at Prepare, so that a missing one fails the
 * run there with its name, never halfway through. */
#ifndef LG_APPPROG_H
#define LG_APPPROG_H

#include <stddef.h>

#include "lg_app.h"

#define LG_APPPROG_PATH 1024

typedef struct {
    char pgbin[LG_APPPROG_PATH]; /* pgbench: the folder of initdb, postgres, pgbench... */
    /* sysbench OLTP: each program's full path */
    char mdb_install[LG_APPPROG_PATH], mdbd[LG_APPPROG_PATH], mdb_admin[LG_APPPROG_PATH],
        mdb[LG_APPPROG_PATH], sysbench[LG_APPPROG_PATH];
} lg_appprog_t;

/* Fills the paths kind needs (pg_bindir: --pg-bindir, or NULL to look in
 * /usr/lib/postgresql/N/bin); sysbench's are looked up in absolute PATH entries and the
 * system's bin folders. Returns 0, or LG_ENOTFOUND with the missing program named in err. */
int lg_appprog_find(lg_app_kind_t kind, const char *pg_bindir, lg_appprog_t *out, char *err,
                    size_t errlen);

/* The folder of PostgreSQL's server programs: dir when given, else the newest
 * /usr/lib/postgresql/N/bin with initdb in it. Returns 0 or LG_ENOTFOUND. */
int lg_appprog_pg_bindir(const char *dir, char *buf, size_t len);

#endif
