/* appprog.c: where an application run's programs are. See appprog.h. */
#include "appprog.h"

#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lg_error.h"
#include "lg_util.h"

/* s_which: the first executable name in PATH's absolute entries or the system's bin folders,
 * into buf. Returns 0 or LG_ENOTFOUND (buf then ""). */
static int s_which(const char *name, char *buf, size_t len)
{
    const char *path = getenv("PATH");
    char dirs[4096];
    snprintf(dirs, sizeof dirs, "%s:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
             path ? path : "");
    char *save = NULL;
    for (char *d = strtok_r(dirs, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
        if (d[0] != '/')
            continue; /* never a relative PATH entry for a program run as root */
        snprintf(buf, len, "%s/%s", d, name);
        if (access(buf, X_OK) == 0)
            return 0;
    }
    buf[0] = 0;
    return LG_ENOTFOUND;
}

int lg_appprog_pg_bindir(const char *dir, char *buf, size_t len)
{
    if (dir) {
        lg_strlcpy(buf, dir, len);
        return 0;
    }
    glob_t g;
    buf[0] = 0;
    if (glob("/usr/lib/postgresql/*/bin/initdb", 0, NULL, &g) != 0)
        return LG_ENOTFOUND;
    unsigned long best = 0;
    for (size_t i = 0; i < g.gl_pathc; i++) {
        const char *v = g.gl_pathv[i] + strlen("/usr/lib/postgresql/");
        char *end;
        unsigned long n = strtoul(v, &end, 10);
        if (end != v && *end == '/' && n >= best && access(g.gl_pathv[i], X_OK) == 0) {
            best = n;
            snprintf(buf, len, "/usr/lib/postgresql/%.*s/bin", (int)(end - v), v);
        }
    }
    globfree(&g);
    return buf[0] ? 0 : LG_ENOTFOUND;
}

int lg_appprog_find(lg_app_kind_t kind, const char *pg_bindir, lg_appprog_t *r, char *err,
                    size_t errlen)
{
    if (kind == LG_APP_PGBENCH) {
        if (lg_appprog_pg_bindir(pg_bindir, r->pgbin, sizeof r->pgbin) != 0) {
            snprintf(err, errlen,
                     "pgbench runs need PostgreSQL's server programs: none in "
                     "/usr/lib/postgresql/*/bin (install postgresql, or give --pg-bindir DIR)");
            return LG_ENOTFOUND;
        }
        const char *need[] = {"initdb", "postgres", "pg_isready", "createdb", "pgbench"};
        for (size_t i = 0; i < sizeof need / sizeof need[0]; i++) {
            char p[1200];
            snprintf(p, sizeof p, "%s/%s", r->pgbin, need[i]);
            if (access(p, X_OK) != 0) {
                snprintf(err, errlen,
                         "pgbench runs need \"%s\", which is missing (see "
                         "--pg-bindir)",
                         p);
                return LG_ENOTFOUND;
            }
        }
        return 0;
    }
    struct {
        const char *name;
        char *buf;
    } need[] = {{"mariadb-install-db", r->mdb_install},
                {"mariadbd", r->mdbd},
                {"mariadb-admin", r->mdb_admin},
                {"mariadb", r->mdb},
                {"sysbench", r->sysbench}};
    for (size_t i = 0; i < sizeof need / sizeof need[0]; i++)
        if (s_which(need[i].name, need[i].buf, sizeof r->mdb) != 0) {
            snprintf(err, errlen,
                     "sysbench runs need \"%s\", which is not installed (in PATH, "
                     "/usr/sbin or /usr/bin)",
                     need[i].name);
            return LG_ENOTFOUND;
        }
    return 0;
}
