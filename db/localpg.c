/* localpg.c: initdb / pg_ctl for the private cluster. PostgreSQL refuses to run as root, so
 * when lgctl runs as root the cluster belongs to the "postgres" user and its tools run through
 * runuser. The server listens on no TCP port at all: only on a socket in its own directory. */
#include "localpg.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <libpq-fe.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "db.h"
#include "lg_error.h"
#include "lg_log.h"
#include "lg_owndir.h"
#include "lg_proc.h"
#include "lg_util.h"

#define PG_USER "postgres"
#define PG_PORT "5432"

void lg_localpg_default_dir(char *buf, size_t len)
{
    const char *xdg = getenv("XDG_DATA_HOME");
    const char *home = getenv("HOME");
    if (xdg && xdg[0] == '/')
        snprintf(buf, len, "%s/lg", xdg);
    else if (geteuid() == 0) /* not /var/lib/lg: that is the lg daemons' (the lg user's) */
        snprintf(buf, len, "%s", LG_LOCALPG_ROOT_DIR);
    else
        snprintf(buf, len, "%s/.local/share/lg", home && home[0] ? home : "/tmp");
}

static int s_find_bindir(char *buf, size_t len)
{
    const char *env = getenv("LG_PG_BINDIR");
    if (env && env[0]) {
        lg_strlcpy(buf, env, len);
        return 0;
    }
    glob_t g;
    int found = glob("/usr/lib/postgresql/*/bin/initdb", 0, NULL, &g) == 0 && g.gl_pathc > 0;
    if (found) {
        /* glob sorts: the last is the newest major version (single digits aside, 15 > 13) */
        lg_strlcpy(buf, g.gl_pathv[g.gl_pathc - 1], len);
        char *slash = strrchr(buf, '/');
        if (slash)
            *slash = 0;
    }
    globfree(&g);
    return found ? 0 : -ENOENT;
}

/* Run a PostgreSQL tool, as the postgres user when we are root. */
static int s_tool(lg_localpg_t *pg, char *const *args, char *out, size_t outlen)
{
    char *argv[24];
    int n = 0;
    if (pg->as_root) {
        argv[n++] = "runuser";
        argv[n++] = "-u";
        argv[n++] = PG_USER;
        argv[n++] = "--";
    }
    for (int i = 0; args[i] && n < 23; i++)
        argv[n++] = args[i];
    argv[n] = NULL;
    return lg_proc_run_blocking(argv, out, outlen);
}

/* Gives a folder of the cluster to the postgres user (as root). Through a descriptor opened
 * without following links: pg/ is postgres's own, so a link it holds must never make root
 * hand over a folder outside. */
static int s_own(lg_localpg_t *pg, const char *path)
{
    if (!pg->as_root)
        return 0;
    struct passwd *pw = getpwnam(PG_USER);
    if (!pw)
        return -ENOENT;
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return errno == ELOOP || errno == ENOTDIR ? LG_EDENIED : -errno;
    int rc = fchown(fd, pw->pw_uid, pw->pw_gid) != 0 ? -errno : 0;
    close(fd);
    return rc;
}

static int s_running(lg_localpg_t *pg)
{
    char ctl[600];
    snprintf(ctl, sizeof ctl, "%s/pg_ctl", pg->bindir);
    char *args[] = {ctl, "-D", pg->data, "status", NULL};
    char out[512];
    return s_tool(pg, args, out, sizeof out) == 0;
}

static int s_create_db(lg_localpg_t *pg, char *err, size_t errlen)
{
    char ci[1400];
    snprintf(ci, sizeof ci, "host=%s port=" PG_PORT " user=" PG_USER " dbname=postgres", pg->sock);
    PGconn *db = lg_db_connect(ci, err, errlen);
    if (!db)
        return LG_EDB;
    PGresult *r = NULL;
    int rc =
        lg_db_exec(db, "SELECT 1 FROM pg_database WHERE datname = 'lg'", 0, NULL, &r, err, errlen);
    if (rc == 0) {
        int exists = PQntuples(r) > 0;
        PQclear(r);
        if (!exists)
            rc = lg_db_exec(db, "CREATE DATABASE lg", 0, NULL, NULL, err, errlen);
    }
    PQfinish(db);
    return rc;
}

int lg_localpg_paths(const char *data_dir, lg_localpg_t *pg, char *err, size_t errlen)
{
    memset(pg, 0, sizeof *pg);
    pg->as_root = geteuid() == 0;
    if (s_find_bindir(pg->bindir, sizeof pg->bindir) != 0) {
        snprintf(err, errlen,
                 "PostgreSQL server binaries not found under /usr/lib/postgresql "
                 "(install the postgresql package or set LG_PG_BINDIR)");
        return -ENOENT;
    }
    snprintf(pg->root, sizeof pg->root, "%s/pg", data_dir);
    snprintf(pg->data, sizeof pg->data, "%s/data", pg->root);
    snprintf(pg->sock, sizeof pg->sock, "%s/run", pg->root);
    snprintf(pg->log, sizeof pg->log, "%s/server.log", pg->root);
    /* A socket address holds 107 bytes: a long data folder's cluster listens in a short folder
     * of /tmp named after it (the same each time, so later lgctl runs find it), which must be
     * ours alone: a folder someone else made there is refused, never used. */
    pg->short_sock = strlen(pg->sock) + sizeof "/.s.PGSQL." PG_PORT ".lock" > 100;
    if (pg->short_sock) {
        uint64_t h = 1469598103934665603ull; /* FNV-1a of the data folder */
        for (const char *p = data_dir; *p; p++)
            h = (h ^ (unsigned char)*p) * 1099511628211ull;
        snprintf(pg->sock, sizeof pg->sock, "/tmp/lg-pg-%016llx", (unsigned long long)h);
    }
    snprintf(pg->conninfo, sizeof pg->conninfo,
             "host=%s port=" PG_PORT " user=" PG_USER " dbname=lg", pg->sock);
    /* The same as a URL, the host (a folder) percent-encoded. */
    size_t o = (size_t)snprintf(pg->url, sizeof pg->url, "postgresql://" PG_USER "@/lg?host=");
    for (const char *p = pg->sock; *p && o + 4 < sizeof pg->url; p++)
        o += (size_t)snprintf(pg->url + o, sizeof pg->url - o,
                              (isalnum((unsigned char)*p) || strchr("-._~", *p)) ? "%c" : "%%%02X",
                              (unsigned char)*p);
    snprintf(pg->url + o, sizeof pg->url - o, "&port=" PG_PORT);
    return 0;
}

int lg_localpg_running(lg_localpg_t *pg)
{
    struct stat st;
    char pgver[1200];
    snprintf(pgver, sizeof pgver, "%s/PG_VERSION", pg->data);
    return stat(pgver, &st) == 0 && s_running(pg);
}

int lg_localpg_open(const char *data_dir, lg_localpg_t *pg, char *err, size_t errlen)
{
    /* 0711: as root, the postgres user must traverse it to reach its cluster in pg/. A folder
     * another user owns or can write is refused: its links could redirect root's writes. */
    struct stat st;
    if (strcmp(data_dir, LG_LOCALPG_ROOT_DIR) == 0 && stat(data_dir, &st) != 0 &&
        stat("/var/lib/lg/pg/data/PG_VERSION", &st) == 0)
        lg_warn("local mode's folder for root is now " LG_LOCALPG_ROOT_DIR " (/var/lib/lg is the "
                "lg daemons'); the results of an older lg are in /var/lib/lg/pg: to keep them, "
                "run \"install -d -m 0711 " LG_LOCALPG_ROOT_DIR
                " && mv /var/lib/lg/pg " LG_LOCALPG_ROOT_DIR "/\" first");
    char real[4096];
    int rc = lg_owndir(data_dir, 0711, LG_OWNDIR_ROOT_OK, real, sizeof real, err, errlen);
    if (rc)
        return rc;
    rc = lg_localpg_paths(real, pg, err, errlen);
    if (rc)
        return rc;
    int short_sock = pg->short_sock;
    rc = lg_mkdirs(pg->root, 0700);
    if (rc == 0)
        rc = lg_mkdirs(pg->sock, 0700);
    if (rc == 0 && short_sock) {
        struct stat ss;
        struct passwd *pw = pg->as_root ? getpwnam(PG_USER) : NULL;
        uid_t mine = geteuid(), theirs = pw ? pw->pw_uid : mine;
        if (lstat(pg->sock, &ss) != 0 || !S_ISDIR(ss.st_mode) || (ss.st_mode & 077) ||
            (ss.st_uid != mine && ss.st_uid != theirs)) {
            snprintf(err, errlen,
                     "\"%s\" (the socket folder of the cluster in \"%s\", whose "
                     "own path is too long for a socket) is not a 0700 folder of ours: refused",
                     pg->sock, data_dir);
            return LG_EDENIED;
        }
    }
    if (rc == 0)
        rc = s_own(pg, pg->root);
    if (rc == 0)
        rc = s_own(pg, pg->sock);
    if (rc) {
        snprintf(err, errlen, "could not prepare \"%s\": %s", pg->root, lg_strerror(rc));
        return rc;
    }
    char out[4096];
    char pgver[1200];
    snprintf(pgver, sizeof pgver, "%s/PG_VERSION", pg->data);
    if (stat(pgver, &st) != 0) {
        char initdb[600];
        snprintf(initdb, sizeof initdb, "%s/initdb", pg->bindir);
        char *args[] = {initdb, "-D",   pg->data,           "-U",        PG_USER, "--auth=trust",
                        "-E",   "UTF8", "--locale=C.UTF-8", "--no-sync", NULL};
        rc = s_tool(pg, args, out, sizeof out);
        if (rc != 0) {
            snprintf(err, errlen, "initdb of \"%s\" failed (exit %d): %s", pg->data, rc, out);
            if (pg->as_root)
                lg_strlcpy(err + strlen(err),
                           " (as root, the cluster belongs to the postgres "
                           "user, which must be able to reach the data directory)",
                           errlen - strlen(err));
            return LG_EDB;
        }
    }
    if (!s_running(pg)) {
        char ctl[600], opts[1400];
        snprintf(ctl, sizeof ctl, "%s/pg_ctl", pg->bindir);
        snprintf(opts, sizeof opts,
                 "-c listen_addresses='' -c unix_socket_directories='%s' -p " PG_PORT
                 " -c unix_socket_permissions=0700 -c fsync=on",
                 pg->sock);
        char *args[] = {ctl,  "-D", pg->data, "-l", pg->log, "-w",
                        "-t", "60", "-o",     opts, "start", NULL};
        rc = s_tool(pg, args, out, sizeof out);
        if (rc != 0) {
            snprintf(err, errlen, "could not start PostgreSQL in \"%s\" (exit %d): %s; see %s",
                     pg->data, rc, out, pg->log);
            return LG_EDB;
        }
        pg->started = 1;
    }
    rc = s_create_db(pg, err, errlen);
    if (rc) {
        lg_localpg_close(pg);
        return rc;
    }
    return 0;
}

void lg_localpg_close(lg_localpg_t *pg)
{
    if (!pg->started)
        return;
    lg_localpg_stop(pg);
}

void lg_localpg_stop(lg_localpg_t *pg)
{
    char ctl[600], out[1024];
    snprintf(ctl, sizeof ctl, "%s/pg_ctl", pg->bindir);
    char *args[] = {ctl, "-D", pg->data, "-m", "fast", "-w", "stop", NULL};
    int rc = s_tool(pg, args, out, sizeof out);
    if (rc != 0)
        lg_warn("could not stop PostgreSQL in \"%s\": %s", pg->data, out);
    pg->started = 0;
}
