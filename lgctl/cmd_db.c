/* cmd_db.c: lgctl db url, start, stop, shell and migrate: local mode's private cluster (or
 * LG_DATABASE_URL's database); and the open-use-close of the database every reading command
 * goes through. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "archive.h"
#include "cli.h"
#include "db.h"
#include "lg_child.h"
#include "lg_error.h"
#include "lg_log.h"
#include "lg_util.h"
#include "localpg.h"
#include "migrate.h"

extern char **environ;

int lg__cli_with_db(const lgctl_opts_t *o, int (*fn)(PGconn *db, void *arg), void *arg)
{
    lg_db_open_t d;
    char err[4096];
    if (lg_db_open(o->db.url, o->db.data_dir, &d, err, sizeof err) != 0) {
        lg_error("%s", err);
        return LGCTL_FAIL;
    }
    int rc = fn(d.db, arg);
    lg_db_open_clear(&d);
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

int lg__cli_db_migrate(void *ctx)
{
    cli_t *c = ctx;
    return lg__cli_with_db(&c->o, s_migrate_fn, NULL);
}

typedef struct {
    const char *before, *path;
} archive_args_t;

/* The archive's size in MB or KB */
static void s_size(char *buf, size_t len, uint64_t bytes)
{
    if (bytes >= 1u << 20)
        snprintf(buf, len, "%.1f MB", (double)bytes / (1u << 20));
    else
        snprintf(buf, len, "%.1f KB", (double)bytes / 1024);
}

static int s_archive_fn(PGconn *db, void *arg)
{
    archive_args_t *a = arg;
    char err[4096], size[32];
    int applied;
    lg_archive_stats_t st;
    int rc = lg_db_migrate(db, &applied, NULL, err, sizeof err);
    if (rc == 0)
        rc = lg_archive(db, a->before, a->path, &st, err, sizeof err);
    if (rc) {
        lg_error("archive failed, nothing deleted: %s", err);
        return rc == LG_EPARSE ? LGCTL_USAGE : LGCTL_FAIL;
    }
    if (st.campaigns == 0) {
        printf("no campaign finished before %s: nothing archived, no file made\n", a->before);
        return LGCTL_OK;
    }
    s_size(size, sizeof size, st.bytes);
    printf("archived %llu campaign%s (%llu runs, %llu samples) finished before %s into %s (%s); "
           "%llu sample partition%s dropped\n",
           (unsigned long long)st.campaigns, st.campaigns == 1 ? "" : "s",
           (unsigned long long)st.runs, (unsigned long long)st.samples, a->before, a->path, size,
           (unsigned long long)st.dropped, st.dropped == 1 ? "" : "s");
    return LGCTL_OK;
}

int lg__cli_db_archive(void *ctx)
{
    cli_t *c = ctx;
    if (!c->before || !*c->before) {
        lg_error("db archive: --before DATE is required (the campaigns that finished before it)");
        return LGCTL_USAGE;
    }
    archive_args_t a = {c->before, c->pos[0]};
    return lg__cli_with_db(&c->o, s_archive_fn, &a);
}

static int s_restore_fn(PGconn *db, void *arg)
{
    const char *path = arg;
    char err[4096], size[32];
    int applied;
    lg_archive_stats_t st;
    int rc = lg_db_migrate(db, &applied, NULL, err, sizeof err);
    if (rc == 0)
        rc = lg_restore(db, path, &st, err, sizeof err);
    if (rc) {
        lg_error("restore failed: %s", err);
        return LGCTL_FAIL;
    }
    s_size(size, sizeof size, st.bytes);
    printf("restored %llu campaign%s (%llu runs, %llu samples) from %s (%s)\n",
           (unsigned long long)st.campaigns, st.campaigns == 1 ? "" : "s",
           (unsigned long long)st.runs, (unsigned long long)st.samples, path, size);
    return LGCTL_OK;
}

int lg__cli_db_restore(void *ctx)
{
    cli_t *c = ctx;
    return lg__cli_with_db(&c->o, s_restore_fn, (void *)c->pos[0]);
}

/* lgctl db url: where the database is, for scripts and psql; nothing is started. */
int lg__cli_db_url(void *ctx)
{
    cli_t *c = ctx;
    if (c->o.db.url) {
        printf("%s\n", c->o.db.url);
        return LGCTL_OK;
    }
    lg_localpg_t pg;
    char err[1024];
    if (lg_localpg_paths(c->o.db.data_dir, &pg, err, sizeof err) != 0) {
        lg_error("db url: %s", err);
        return LGCTL_FAIL;
    }
    printf("%s\n", pg.url);
    if (!lg_localpg_running(&pg))
        lg_warn("db url: the database of %s is not running now (lgctl db start keeps it "
                "up until lgctl db stop)",
                c->o.db.data_dir);
    return LGCTL_OK;
}

/* lgctl db start: the local cluster up (made if new, migrated) until lgctl db stop. */
int lg__cli_db_start(void *ctx)
{
    cli_t *c = ctx;
    if (c->o.db.url) {
        lg_error(
            "db start: a database is named (--db or LG_DATABASE_URL): it is not lgctl's to start");
        return LGCTL_USAGE;
    }
    lg_localpg_t pg;
    char err[4096];
    if (lg_localpg_open(c->o.db.data_dir, &pg, err, sizeof err) != 0) {
        lg_error("db start: %s", err);
        return LGCTL_FAIL;
    }
    PGconn *db = lg_db_connect(pg.conninfo, err, sizeof err);
    int applied = 0, rc = db ? lg_db_migrate(db, &applied, NULL, err, sizeof err) : LG_EDB;
    lg_db_close(&db);
    if (rc) {
        lg_error("db start: %s", err);
        lg_localpg_close(&pg);
        return LGCTL_FAIL;
    }
    lg_info("db start: the database of %s is %s until lgctl db stop", c->o.db.data_dir,
            pg.started ? "up" : "already up, and stays up");
    printf("%s\n", pg.url);
    return LGCTL_OK;
}

int lg__cli_db_stop(void *ctx)
{
    cli_t *c = ctx;
    lg_localpg_t pg;
    char err[1024];
    if (c->o.db.url || lg_localpg_paths(c->o.db.data_dir, &pg, err, sizeof err) != 0) {
        lg_error("db stop: %s",
                 c->o.db.url
                     ? "a database is named (--db or LG_DATABASE_URL): it is not lgctl's to stop"
                     : err);
        return c->o.db.url ? LGCTL_USAGE : LGCTL_FAIL;
    }
    if (!lg_localpg_running(&pg)) {
        lg_warn("db stop: the database of %s is not running", c->o.db.data_dir);
        return LGCTL_OK;
    }
    char ep[1100];
    snprintf(ep, sizeof ep, "%s/controller.endpoint", c->o.db.data_dir);
    if (access(ep, F_OK) == 0) {
        lg_error("db stop: a local \"lgctl run\" is in progress on %s; it stops the database "
                 "itself when it ends",
                 c->o.db.data_dir);
        return LGCTL_FAIL;
    }
    lg_localpg_stop(&pg);
    return lg_localpg_running(&pg) ? LGCTL_FAIL : LGCTL_OK;
}

/* The connection's password for psql: a password file of one line that matches every server,
 * in an anonymous file of ours (memfd, 0600, on no disk, gone with the last process that holds
 * it) that psql reads as PGPASSFILE=/proc/self/fd/N. Made close-on-exec: the child lets psql alone
 * inherit it. Returns the fd, or -1 after saying why. */
static int s_passfile(const char *pass)
{
    if (strpbrk(pass, "\r\n")) {
        lg_error("db shell: the database password holds a line break, which no password file "
                 "can hold");
        return -1;
    }
    size_t len = strlen(pass), n = 0;
    char *line = malloc(2 * len + 16);
    int fd = line ? memfd_create("lg-pgpass", MFD_CLOEXEC) : -1;
    if (fd < 0 || fchmod(fd, 0600) != 0) {
        lg_error("db shell: could not make a password file for psql: %s",
                 line ? strerror(errno) : "out of memory");
        if (fd >= 0)
            close(fd);
        free(line);
        return -1;
    }
    memcpy(line, "*:*:*:*:", 8);
    n = 8;
    for (const char *p = pass; *p; p++) {
        if (*p == ':' || *p == '\\')
            line[n++] = '\\';
        line[n++] = *p;
    }
    line[n++] = '\n';
    ssize_t w = write(fd, line, n);
    explicit_bzero(line, n);
    free(line);
    if (w != (ssize_t)n) {
        lg_error("db shell: could not write a password file for psql: %s",
                 w < 0 ? strerror(errno) : "short write");
        close(fd);
        return -1;
    }
    return fd;
}

/* psql on the database: argv[1] its settings but the password (a command line is everyone's to
 * read), the password in a file of its own (*passfd, -1 when none; the caller closes it) named by
 * its environment (*env, the caller frees the array). Returns 0, or -1 after saying why. */
static int s_psql_conn(const char *ci, char *pub, size_t publen, int *passfd, char ***env)
{
    char pass[4096], err[1024];
    *passfd = -1;
    *env = NULL;
    int rc = lg_db_conninfo_split(ci, pub, publen, pass, sizeof pass, err, sizeof err);
    if (rc == 0 && pass[0] && (*passfd = s_passfile(pass)) < 0)
        rc = -1;
    explicit_bzero(pass, sizeof pass);
    if (rc) {
        if (rc != -1)
            lg_error("db shell: %s", err);
        return -1;
    }
    char pf[64];
    snprintf(pf, sizeof pf, "PGPASSFILE=/proc/self/fd/%d", *passfd);
    char *add[] = {pf, NULL};
    static const char *const drop[] = {"PGPASSWORD", NULL}; /* it would win over the file */
    *env = lg_child_env(environ, *passfd >= 0 ? add : NULL, *passfd >= 0 ? drop : NULL);
    if (!*env) {
        lg_error("db shell: out of memory");
        if (*passfd >= 0)
            close(*passfd);
        *passfd = -1;
        return -1;
    }
    return 0;
}

/* lgctl db shell [-- PSQL ARGS]: psql on the database, started for the while if it was down. */
int lg__cli_db_shell(void *ctx)
{
    cli_t *c = ctx;
    lg_localpg_t pg;
    memset(&pg, 0, sizeof pg);
    char err[4096];
    const char *ci = c->o.db.url;
    if (!ci) {
        if (lg_localpg_open(c->o.db.data_dir, &pg, err, sizeof err) != 0) {
            lg_error("db shell: %s", err);
            return LGCTL_FAIL;
        }
        ci = pg.conninfo;
    }
    char psql[600] = "psql", pub[8192];
    if (pg.bindir[0]) {
        snprintf(psql, sizeof psql, "%s/psql", pg.bindir);
        if (access(psql, X_OK) != 0)
            lg_strlcpy(psql, "psql", sizeof psql);
    }
    int passfd;
    char **env;
    if (s_psql_conn(ci, pub, sizeof pub, &passfd, &env) != 0) {
        lg_localpg_close(&pg);
        return LGCTL_FAIL;
    }
    const char *args[270];
    int n = 0;
    args[n++] = psql;
    args[n++] = pub;
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
        if (passfd >= 0)
            fcntl(passfd, F_SETFD, 0);
        environ = env; /* what execvp passes on */
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
    if (passfd >= 0)
        close(passfd);
    free(env);
    lg_localpg_close(&pg);
    if (pid < 0)
        return LGCTL_FAIL;
    return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? LGCTL_OK : LGCTL_FAIL;
}
