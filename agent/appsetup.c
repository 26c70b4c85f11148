/* appsetup.c: what an application run checks and makes before any process starts: the spec's
 * bounds, the user its servers and tools run as, its data folder beside the target and its
 * socket folder under /tmp, and the record a killed agent's successor cleans up by. */
#include "apprun_int.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "apprec.h"
#include "lg_error.h"
#include "lg_util.h"
#include "platform.h"

/* The spec's application part within bounds, defaults filled in. */
int lg__apprun_check_spec(lg_apprun_t *r, const lg_agent_config_t *cfg, const Lg__RunSpec *spec,
                          char *err, size_t errlen)
{
    const Lg__AppSpec *a = spec->app;
    if (a->kind == LG__APP_KIND__APP_PGBENCH) {
        r->kind = LG_APP_PGBENCH;
        r->tool_name = "pgbench";
    } else if (a->kind == LG__APP_KIND__APP_SYSBENCH_OLTP) {
        r->kind = LG_APP_SYSBENCH_OLTP;
        r->tool_name = "sysbench";
    } else {
        snprintf(err, errlen, "run spec: unknown application kind %d", (int)a->kind);
        return LG_EPROTO;
    }
    if (spec->threads < 1 || spec->threads > 1024 || spec->runtime_s < 1 ||
        spec->runtime_s > 7 * 86400) {
        snprintf(err, errlen,
                 "run spec: %u clients or runtime %u s out of range (1..1024 "
                 "clients, 1 s..7 days)",
                 spec->threads, spec->runtime_s);
        return LG_EPROTO;
    }
    r->clients = spec->threads;
    r->scale = a->scale ? a->scale : 1;
    r->tables = a->tables ? a->tables : 1;
    r->table_size = a->table_size ? a->table_size : 10000;
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    r->jobs = a->jobs ? a->jobs : (uint32_t)(ncpu > 0 ? ncpu : 1);
    if (r->jobs > r->clients) /* pgbench refuses more threads than clients */
        r->jobs = r->clients;
    if (r->scale > 100000 || r->tables > 1024 || r->table_size > 1000000000ull || a->jobs > 1024) {
        snprintf(err, errlen,
                 "run spec: scale %u, jobs %u, tables %u or table size %llu out "
                 "of range",
                 r->scale, a->jobs, r->tables, (unsigned long long)r->table_size);
        return LG_EPROTO;
    }
    if (!spec->target || !lg_plat_path_clean(spec->target) || !strrchr(spec->target, '/')) {
        snprintf(err, errlen, "run spec: target \"%s\" is not a clean absolute path",
                 spec->target ? spec->target : "");
        return LG_EPROTO;
    }
    if (!lg_agent_path_allowed(cfg, spec->target)) {
        snprintf(err, errlen,
                 "target \"%s\" is outside this agent's allowed targets (see "
                 "--allow)",
                 spec->target);
        return LG_EDENIED;
    }
    return 0;
}

/* Who the servers and the tools run as: --app-user (required as root), else ourselves. */
int lg__apprun_app_user(lg_apprun_t *r, const lg_agent_config_t *cfg, char *err, size_t errlen)
{
    if (geteuid() != 0) {
        r->setid = 0;
        if (cfg->app_user) {
            struct passwd *pw = getpwnam(cfg->app_user);
            if (!pw || pw->pw_uid != geteuid()) {
                snprintf(err, errlen,
                         "--app-user \"%s\": this agent does not run as root, so "
                         "its database servers run as its own user; leave --app-user out or "
                         "give that user",
                         cfg->app_user);
                return LG_EDENIED;
            }
        }
        return 0;
    }
    if (!cfg->app_user) {
        snprintf(err, errlen,
                 "application workloads need --app-user USER on an agent running "
                 "as root: PostgreSQL and MariaDB refuse to run as root");
        return LG_EDENIED;
    }
    struct passwd *pw = getpwnam(cfg->app_user);
    if (!pw) {
        snprintf(err, errlen, "--app-user \"%s\": no such user", cfg->app_user);
        return LG_ENOTFOUND;
    }
    if (pw->pw_uid == 0) {
        snprintf(err, errlen,
                 "--app-user \"%s\" is root: the database servers refuse to run "
                 "as root; give an unprivileged user",
                 cfg->app_user);
        return LG_EDENIED;
    }
    r->setid = 1;
    r->uid = pw->pw_uid;
    r->gid = pw->pw_gid;
    return 0;
}

/* The data folder "dirname(target)/lg-TOOL-RUNID-AGENT", made in the target's folder as
 * resolved now and held open (whatever happens to the path meanwhile). Returns 0 or an error
 * with err set (nothing made then). */
int lg__apprun_make_data(lg_apprun_t *r, const lg_agent_config_t *cfg, const char *agent_name,
                         char *err, size_t errlen)
{
    const Lg__RunSpec *spec = r->spec;
    char parent[1100], real[1100], name[256], bad[1100];
    lg_strlcpy(parent, spec->target, sizeof parent);
    char *slash = strrchr(parent, '/');
    if (slash == parent)
        parent[1] = 0;
    else
        *slash = 0;
    int pfd = open(parent, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (pfd < 0) {
        int rc = -errno;
        snprintf(err, errlen, "the folder of target \"%s\", \"%s\": %s", spec->target, parent,
                 strerror(-rc));
        return rc;
    }
    char link[64];
    snprintf(link, sizeof link, "/proc/self/fd/%d", pfd);
    ssize_t n = readlink(link, real, sizeof real - 1);
    if (n <= 0 || (size_t)n >= sizeof real - 1) {
        snprintf(err, errlen, "the folder \"%s\" could not be resolved", parent);
        close(pfd);
        return LG_EDENIED;
    }
    real[n] = 0;
    /* An agent name is [A-Za-z0-9._-] in practice; anything else is not put in a path. */
    char agent[LG_AGENT_NAME_MAX];
    lg_strlcpy(agent, agent_name ? agent_name : "agent", sizeof agent);
    for (char *p = agent; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
              *p == '.' || *p == '-' || *p == '_'))
            *p = '_';
    snprintf(name, sizeof name, "lg-%s-%llu-%s", r->tool_name, (unsigned long long)spec->run_id,
             agent);
    char want[1400];
    snprintf(want, sizeof want, "%s/%s", strcmp(real, "/") ? real : "", name);
    char which[1100];
    if (!lg_plat_real_allowed(want, cfg->allow, cfg->nallow, which, sizeof which)) {
        snprintf(err, errlen,
                 "the data folder of target \"%s\" would be \"%s\", outside this "
                 "agent's allowed targets (a symbolic link leads out of them)",
                 spec->target, want);
        close(pfd);
        return LG_EDENIED;
    }
    if (r->setid && !lg_appfs_reachable(r->uid, r->gid, real, bad, sizeof bad)) {
        snprintf(err, errlen,
                 "the application user \"%s\" cannot enter \"%s\" (no search "
                 "permission), so its server could not reach its data in \"%s\"",
                 cfg->app_user, bad, real);
        close(pfd);
        return LG_EDENIED;
    }
    return lg_appfs_folder_make(&r->data, pfd, real, name, r->setid, r->uid, r->gid, err, errlen);
}

/* The sockets' folder: a fresh one under /tmp (a socket's path has at most 107 bytes). */
int lg__apprun_make_sock(lg_apprun_t *r, char *err, size_t errlen)
{
    char tmpl[] = "/tmp/lg-app-XXXXXX";
    int tfd = open("/tmp", O_PATH | O_DIRECTORY | O_CLOEXEC);
    int rc;
    if (tfd < 0 || !mkdtemp(tmpl)) {
        rc = -errno;
        snprintf(err, errlen, "could not create a socket folder in /tmp: %s", strerror(-rc));
        if (tfd >= 0)
            close(tfd);
        return rc;
    }
    /* mkdtemp made it 0700 and ours; lg_appfs_folder_make wants to make it itself */
    if (unlinkat(tfd, tmpl + 5, AT_REMOVEDIR) != 0) {
        rc = -errno;
        snprintf(err, errlen, "could not create a socket folder in /tmp: %s", strerror(-rc));
        close(tfd);
        return rc;
    }
    return lg_appfs_folder_make(&r->sock, tfd, "/tmp", tmpl + 5, r->setid, r->uid, r->gid, err,
                                errlen);
}

/* The record of the folders just made and the server to come, in dir, before any process
 * starts: a killed agent's successor finds them by it (appclean.h). */
int lg__apprun_record(lg_apprun_t *r, const char *dir, char *err, size_t errlen)
{
    lg_apprec_t rec;
    memset(&rec, 0, sizeof rec);
    struct stat ds, ss;
    if (fstat(r->data.fd, &ds) != 0 || fstat(r->sock.fd, &ss) != 0) {
        int rc = -errno;
        snprintf(err, errlen, "could not read the run's folders: %s", strerror(-rc));
        return rc;
    }
    rec.kind = r->kind;
    rec.run_id = r->run_id;
    rec.keep = r->keep ? 1 : 0;
    rec.uid = r->setid ? (unsigned)r->uid : (unsigned)geteuid();
    int rc = lg_apprec_boot_id(rec.boot, sizeof rec.boot);
    if (rc) {
        snprintf(err, errlen,
                 "could not read this boot's id (/proc/sys/kernel/random/boot_id) "
                 "for the run's record: %s",
                 lg_strerror(rc));
        return rc;
    }
    char server[1200];
    if (r->kind == LG_APP_PGBENCH)
        snprintf(server, sizeof server, "%s/postgres", r->prog.pgbin);
    else
        lg_strlcpy(server, r->prog.mdbd, sizeof server);
    char real[PATH_MAX];
    lg_strlcpy(rec.server, realpath(server, real) ? real : server, sizeof rec.server);
    lg_strlcpy(rec.data, r->data.path, sizeof rec.data);
    rec.data_dev = (uint64_t)ds.st_dev;
    rec.data_ino = (uint64_t)ds.st_ino;
    lg_strlcpy(rec.sock, r->sock.path, sizeof rec.sock);
    rec.sock_dev = (uint64_t)ss.st_dev;
    rec.sock_ino = (uint64_t)ss.st_ino;
    rc = lg_apprec_create(dir, &rec, &r->rec_fd, err, errlen);
    if (rc == 0)
        r->rec_dir = strdup(dir);
    if (rc == 0 && !r->rec_dir) {
        close(r->rec_fd);
        r->rec_fd = -1;
        lg_apprec_remove(dir, rec.run_id);
        snprintf(err, errlen, "out of memory");
        return -ENOMEM;
    }
    return rc;
}
