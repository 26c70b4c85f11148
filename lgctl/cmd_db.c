/* cmd_db.c: lgctl db url, start, stop, shell and migrate: local mode's private cluster (or
 * LG_DATABASE_URL's database); and the open-use-close of the database every reading command
 * goes through. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "db.h"
#include "lg_error.h"
#include "lg_log.h"
#include "lg_util.h"
#include "localpg.h"
#include "migrate.h"

static int s_open_db(const lgctl_opts_t *o, lg_localpg_t *pg, PGconn **db)
{
    char err[4096];
    const char *conninfo = o->database;
    if (!conninfo) {
        if (lg_localpg_open(o->data_dir, pg, err, sizeof err) != 0) {
            lg_error("%s", err);
            return LGCTL_FAIL;
        }
        conninfo = pg->conninfo;
    }
    *db = lg_db_connect(conninfo, err, sizeof err);
    if (!*db) {
        lg_error("could not connect to the database: %s", err);
        lg_localpg_close(pg);
        return LGCTL_FAIL;
    }
    return LGCTL_OK;
}

int lg__cli_with_db(const lgctl_opts_t *o, int (*fn)(PGconn *db, void *arg), void *arg)
{
    lg_localpg_t pg;
    memset(&pg, 0, sizeof pg);
    PGconn *db = NULL;
    int rc = s_open_db(o, &pg, &db);
    if (rc)
        return rc;
    rc = fn(db, arg);
    PQfinish(db);
    lg_localpg_close(&pg);
    return rc;
}

static int s_migrate_fn(PGconn *db, void *arg)
{
    (void)arg;
    char err[1024];
    int applied = 0, views = 0;
    if (lg_db_migrate(db, &applied, &views, err, sizeof err) != 0) {
        lg_error("%s", err);
        return LGCTL_FAIL;
    }
    if (views)
        printf("%d migration%s applied; the %d views and functions of schema/views re-created\n",
               applied, applied == 1 ? "" : "s", views);
    else
        printf("%d migration%s applied\n", applied, applied == 1 ? "" : "s");
    return LGCTL_OK;
}

int lg__cli_db_migrate(cli_t *c)
{
    return lg__cli_with_db(&c->o, s_migrate_fn, NULL);
}

/* lgctl db url: where the database is, for scripts and psql; nothing is started. */
int lg__cli_db_url(cli_t *c)
{
    if (c->o.database) {
        printf("%s\n", c->o.database);
        return LGCTL_OK;
    }
    lg_localpg_t pg;
    char err[1024];
    if (lg_localpg_paths(c->o.data_dir, &pg, err, sizeof err) != 0) {
        lg_error("db url: %s", err);
        return LGCTL_FAIL;
    }
    printf("%s\n", pg.url);
    if (!lg_localpg_running(&pg))
        lg_warn("db url: the database of %s is not running now (lgctl db start keeps it "
                "up until lgctl db stop)",
                c->o.data_dir);
    return LGCTL_OK;
}

/* lgctl db start: the local cluster up (made if new, migrated) until lgctl db stop. */
int lg__cli_db_start(cli_t *c)
{
    if (c->o.database) {
        lg_error("db start: LG_DATABASE_URL is set: that database is not lgctl's to start");
        return LGCTL_USAGE;
    }
    lg_localpg_t pg;
    char err[4096];
    if (lg_localpg_open(c->o.data_dir, &pg, err, sizeof err) != 0) {
        lg_error("db start: %s", err);
        return LGCTL_FAIL;
    }
    PGconn *db = lg_db_connect(pg.conninfo, err, sizeof err);
    int applied = 0, rc = db ? lg_db_migrate(db, &applied, NULL, err, sizeof err) : LG_EDB;
    PQfinish(db);
    if (rc) {
        lg_error("db start: %s", err);
        lg_localpg_close(&pg);
        return LGCTL_FAIL;
    }
    lg_info("db start: the database of %s is %s until lgctl db stop", c->o.data_dir,
            pg.started ? "up" : "already up, and stays up");
    printf("%s\n", pg.url);
    return LGCTL_OK;
}

int lg__cli_db_stop(cli_t *c)
{
    lg_localpg_t pg;
    char err[1024];
    if (c->o.database || lg_localpg_paths(c->o.data_dir, &pg, err, sizeof err) != 0) {
        lg_error("db stop: %s", c->o.database
                                    ? "LG_DATABASE_URL is set: that database is not lgctl's to stop"
                                    : err);
        return c->o.database ? LGCTL_USAGE : LGCTL_FAIL;
    }
    if (!lg_localpg_running(&pg)) {
        lg_warn("db stop: the database of %s is not running", c->o.data_dir);
        return LGCTL_OK;
    }
    char ep[1100];
    snprintf(ep, sizeof ep, "%s/controller.endpoint", c->o.data_dir);
    if (access(ep, F_OK) == 0) {
        lg_error("db stop: a local \"lgctl run\" is in progress on %s; it stops the database "
                 "itself when it ends",
                 c->o.data_dir);
        return LGCTL_FAIL;
    }
    lg_localpg_stop(&pg);
    return lg_localpg_running(&pg) ? LGCTL_FAIL : LGCTL_OK;
}

/* lgctl db shell [-- PSQL ARGS]: psql on the database, started for the while if it was down. */
int lg__cli_db_shell(cli_t *c)
{
    lg_localpg_t pg;
    memset(&pg, 0, sizeof pg);
    char err[4096];
    const char *ci = c->o.database;
    if (!ci) {
        if (lg_localpg_open(c->o.data_dir, &pg, err, sizeof err) != 0) {
            lg_error("db shell: %s", err);
            return LGCTL_FAIL;
        }
        ci = pg.conninfo;
    }
    char psql[600] = "psql";
    if (pg.bindir[0]) {
        snprintf(psql, sizeof psql, "%s/psql", pg.bindir);
        if (access(psql, X_OK) != 0)
            lg_strlcpy(psql, "psql", sizeof psql);
    }
    const char *args[270];
    int n = 0;
    args[n++] = psql;
    args[n++] = ci;
    for (int i = 0; i < c->npos && n < 268; i++)
        args[n++] = c->pos[i];
    args[n] = NULL;
    /* psql has the terminal; Ctrl-C is its own (it cancels a query), not ours. */
    struct sigaction ign, old_int;
    memset(&ign, 0, sizeof ign);
    ign.sa_handler = SIG_IGN;
    sigaction(SIGINT, &ign, &old_int);
    pid_t pid = fork();
    if (pid == 0) {
        sigaction(SIGINT, &old_int, NULL);
        signal(SIGINT, SIG_DFL);
        execvp(psql, (char *const *)args);
        lg_error("db shell: could not run %s: %s", psql, strerror(errno));
        _exit(127);
    }
    int st = 0;
    if (pid < 0)
        lg_error("db shell: fork: %s", strerror(errno));
    else
        while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
        }
    sigaction(SIGINT, &old_int, NULL);
    lg_localpg_close(&pg);
    if (pid < 0)
        return LGCTL_FAIL;
    return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? LGCTL_OK : LGCTL_FAIL;
}
