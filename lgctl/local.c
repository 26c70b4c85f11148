/* local.c: "lgctl run" with no controller: the private PostgreSQL cluster, a controller and an
 * agent on loopback, the campaign, the report; and everything it started is stopped by PID,
 * whatever happened. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <libgen.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zmq.h>

#include "ctl.h"
#include "db.h"
#include "lg_auth.h"
#include "lg_child.h"
#include "lg_error.h"
#include "lg_log.h"
#include "lg_operator.h"
#include "lg_owndir.h"
#include "lg_proc.h"
#include "lg_spec.h"
#include "lg_util.h"
#include "lg_wire.h"
#include "lgctl.h"
#include "migrate.h"
#include "report.h"

#define LG_LOCAL_MAX_ALLOW 32

extern char **environ;

typedef struct {
    pid_t controller;
    pid_t agent;
    char ctl_log[1200];
    char agent_log[1200];
} children_t;

static int s_rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

/* Remove the run folder (job files, logs) unless LG_KEEP_RUN_DIR asks to keep it. */
static void s_remove_tree(const char *dir)
{
    const char *keep = getenv("LG_KEEP_RUN_DIR");
    if (keep && keep[0] && strcmp(keep, "0") != 0) {
        lg_info("kept %s", dir);
        return;
    }
    nftw(dir, s_rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static void s_bin(const char *env, const char *name, char *buf, size_t len)
{
    const char *e = getenv(env);
    if (e && e[0]) {
        lg_strlcpy(buf, e, len);
        return;
    }
    char self[1024];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0) {
        lg_strlcpy(buf, name, len);
        return;
    }
    self[n] = 0;
    snprintf(buf, len, "%s/%s", dirname(self), name);
}

static void s_tail(const char *what, const char *path)
{
    char *buf = NULL;
    size_t len = 0;
    if (lg_read_file(path, 64u << 20, &buf, &len) != 0)
        return;
    size_t from = len > 3000 ? len - 3000 : 0;
    lg_error("last lines of the %s log (%s):", what, path);
    lg_log_detail_text(buf + from); /* a line each: one message is one line (lg_log.c) */
    free(buf);
}

static int s_alive(void *arg)
{
    children_t *ch = arg;
    int st;
    if (ch->controller > 0 && lg_proc_exited(ch->controller, &st)) {
        lg_error("the local controller exited (status %d)", st);
        ch->controller = 0;
        s_tail("controller", ch->ctl_log);
        return 0;
    }
    if (ch->agent > 0 && lg_proc_exited(ch->agent, &st)) {
        lg_error("the local agent exited (status %d)", st);
        ch->agent = 0;
        s_tail("agent", ch->agent_log);
        return 0;
    }
    return 1;
}

/* Wait for the controller's ready file: "agents=EP\nctl=EP\n". */
static int s_wait_ready(children_t *ch, const char *path, char *agents, char *ctl, size_t len)
{
    for (int waited = 0; waited < 30000; waited += 50) {
        char *buf = NULL;
        if (lg_read_file(path, 4096, &buf, NULL) == 0) {
            char *a = strstr(buf, "agents="), *c = strstr(buf, "ctl=");
            if (a && c) {
                a += 7;
                c += 4;
                a[strcspn(a, "\n")] = 0;
                c[strcspn(c, "\n")] = 0;
                lg_strlcpy(agents, a, len);
                lg_strlcpy(ctl, c, len);
                free(buf);
                return 0;
            }
            free(buf);
        }
        if (!s_alive(ch) || lgctl_interrupted)
            return LG_ECHILD;
        struct timespec ts = {0, 50 * 1000000};
        nanosleep(&ts, NULL);
    }
    lg_error("the local controller did not start listening within 30 s");
    s_tail("controller", ch->ctl_log);
    return LG_ETIMEOUT;
}

/* A local run killed without its cleanup (kill -9, a power cut) leaves its campaign "running" in
 * the private cluster: with no other local run of this data folder alive, end it "aborted" now,
 * so that the next controller does not take up another campaign's run. */
static void s_abort_orphans(PGconn *db, const char *data_dir)
{
    DIR *d = opendir(data_dir);
    struct dirent *de;
    while (d && (de = readdir(d)) != NULL) {
        uint64_t pid;
        if (strncmp(de->d_name, "local-", 6) == 0 &&
            lg_parse_u64(de->d_name + 6, 1, INT32_MAX, &pid) == 0 && (pid_t)pid != getpid() &&
            kill((pid_t)pid, 0) == 0) {
            closedir(d);
            return; /* another local run is using this data folder */
        }
    }
    if (d)
        closedir(d);
    char err[512];
    PGresult *r = NULL;
    int rc = lg_db_exec(
        db,
        "WITH c AS (UPDATE lg.campaign SET state = 'aborted', finished_at = now(),"
        " message = 'interrupted: the local run that started it ended without finishing it'"
        " WHERE state IN ('pending', 'running', 'paused') RETURNING campaign_id, name),"
        " r AS (UPDATE lg.run SET state = 'aborted', error = coalesce(error,"
        " 'interrupted: the local run that started it ended') WHERE campaign_id IN"
        " (SELECT campaign_id FROM c) AND state IN ('pending', 'running') RETURNING run_id),"
        " ra AS (UPDATE lg.run_agent SET state = 'aborted' WHERE state = 'running' AND run_id IN"
        " (SELECT run_id FROM r) RETURNING 1)"
        " SELECT name FROM c",
        0, NULL, &r, err, sizeof err);
    if (rc) {
        lg_error("could not end interrupted campaigns: %s", err);
        return;
    }
    int c_name = lg_db_col(r, "name");
    for (int i = 0; i < lg_db_nrows(r); i++)
        lg_error("campaign \"%s\" was interrupted earlier: marked aborted",
                 lg_db_get(r, i, c_name));
    lg_db_result_destroy(&r);
}

/* A local run's state, from the spec's checks to the cleanup. */
typedef struct {
    lgctl_opts_t oc; /* the caller's options, its data_dir the checked, resolved folder */
    char data_dir[4096];
    char campaign_name[128];
    char allow[LG_LOCAL_MAX_ALLOW][1100]; /* what the agent may touch: the spec's targets */
    size_t nallow;
    int apps;           /* the spec has app: profiles */
    lg_db_open_t store; /* the database: LG_DATABASE_URL's or the private cluster */
    children_t ch;
    char run_dir[1100], ready[1200], work[1200], epfile[1100], sock_dir[1100];
    int short_dir; /* sock_dir is a folder of its own under /tmp */
    char agents_ep[256], ctl_ep[256];
    void *zctx, *sock;
    uint64_t cid;
} local_t;

/* One target of the spec into the agent's allow-list, after checking that running it is what
 * the user wants and can work. Returns 0 or an LGCTL_* exit code after saying why. */
static int s_allow_target(local_t *l, const char *spec_path, const lg_target_t *tg)
{
    const lgctl_opts_t *o = &l->oc;
    if (tg->kind == LG_TARGET_NULL || l->nallow == LG_LOCAL_MAX_ALLOW)
        return 0;
    if (tg->kind == LG_TARGET_BLOCK || tg->kind == LG_TARGET_ISCSI) {
        if (!o->allow_destructive) {
            lg_error("%s: target \"%s%s\" would be overwritten; run with --allow-destructive "
                     "if that is what you want",
                     spec_path, tg->kind == LG_TARGET_BLOCK ? "block:" : "", tg->path);
            return LGCTL_USAGE;
        }
        lg_strlcpy(l->allow[l->nallow++], tg->path, sizeof l->allow[0]);
        return 0;
    }
    char user[128];
    if (tg->kind == LG_TARGET_SMB && !o->smb_credentials &&
        lg_smb_url_user(tg->path, user, sizeof user)[0]) {
        lg_error("%s: target \"%s\" names the user \"%s\" and no --smb-credentials FILE "
                 "gives the password (lgctl never logs in as a guest instead)",
                 spec_path, tg->path, user);
        return LGCTL_USAGE;
    }
    if (tg->kind == LG_TARGET_SMB) { /* its folder on the share, as a URL prefix */
        lg_strlcpy(l->allow[l->nallow], tg->path, sizeof l->allow[0]);
        char *slash = strrchr(l->allow[l->nallow], '/');
        if (slash)
            *slash = 0;
        l->nallow++;
        return 0;
    }
    /* Exactly the target file (a dir: target names lg's file in its folder), never its
     * folder: "/dev/x" must not allow /dev. A path that is a device is overwritten like
     * a block: target, and needs the same consent. */
    struct stat st;
    if (!o->allow_destructive && stat(tg->path, &st) == 0 &&
        (S_ISBLK(st.st_mode) || S_ISCHR(st.st_mode))) {
        lg_error("%s: target \"%s\" is a device and would be overwritten; run with "
                 "--allow-destructive "
                 "if that is what you want",
                 spec_path, tg->path);
        return LGCTL_USAGE;
    }
    /* An application profile's server keeps its data in a folder the agent makes in the
     * target's folder: the folder is allowed then, not only lg's file in it. */
    char tgt[1100];
    lg_strlcpy(tgt, tg->path, sizeof tgt);
    if (tg->dir && l->apps) {
        char *slash = strrchr(tgt, '/');
        if (slash && slash != tgt)
            *slash = 0;
    }
    int dup = 0;
    for (size_t j = 0; j < l->nallow; j++)
        dup |= strcmp(l->allow[j], tgt) == 0;
    if (dup)
        return 0;
    lg_strlcpy(l->allow[l->nallow], tgt, sizeof l->allow[l->nallow]);
    /* The target's folder must exist: lgctl never makes it, so that a share that is not
     * mounted is an error here, not a benchmark of the local disk under its name. */
    char tmp[1100];
    lg_strlcpy(tmp, tg->path, sizeof tmp);
    const char *folder = dirname(tmp);
    if (tg->kind == LG_TARGET_FILE && (stat(folder, &st) != 0 || !S_ISDIR(st.st_mode))) {
        lg_error("%s: the folder \"%s\" of target \"%s\" does not exist%s", spec_path, folder,
                 tg->path, stat(folder, &st) == 0 ? " as a folder" : "");
        lg_log_hint("is the share mounted? lgctl never creates a target's folder");
        return LGCTL_FAIL;
    }
    l->nallow++;
    return 0;
}

/* What the spec asks of this machine, checked before anything starts: credentials only we can
 * read, an account for app: profiles' servers when root, consent to overwrite, the targets'
 * folders; the agent's allow-list made from its targets. Returns 0 or an LGCTL_* exit code. */
static int s_check_spec(local_t *l, const char *spec_path, const char *text)
{
    const lgctl_opts_t *o = &l->oc;
    lg_spec_t *spec = NULL;
    lg_spec_diag_t diag;
    if (lg_spec_parse_text(text, strlen(text), spec_path, &spec, &diag) != 0)
        return LGCTL_USAGE;
    lg_strlcpy(l->campaign_name, spec->name ? spec->name : "", sizeof l->campaign_name);
    int rc = 0;
    /* The agent refuses credentials others can read; say so before anything starts. */
    const char *creds[] = {o->smb_credentials, o->iscsi_chap};
    for (size_t i = 0; i < 2 && !rc; i++) {
        char why[512];
        if (creds[i] && lg_auth_secret_file_check(creds[i], "credentials file", why, sizeof why)) {
            lg_error("%s", why);
            rc = LGCTL_USAGE;
        }
    }
    /* A spec that names a probe or a credential of the operator's makes this user run a
     * program or send a secret: only when this user (or root) wrote it, as ssh refuses a config
     * another user could have changed. */
    int names = 0;
    for (size_t k = 0; k < spec->nconfigs; k++) {
        size_t n = 0;
        const lg_telemetry_t *t = lg_spec_telemetry(spec, k, &n);
        names |= spec->configs[k].reduction != NULL;
        for (size_t i = 0; i < n; i++)
            names |= t[i].credential[0] != 0;
    }
    char why[1400];
    if (!rc && names &&
        lg_trusted_file(spec_path, "it names probes or credentials of the operator's", why,
                        sizeof why) != 0) {
        lg_error("%s: refused: %s", spec_path, why);
        rc = LGCTL_USAGE;
    }
    /* Application profiles' database servers refuse root: as root, say whom they run as. */
    for (size_t i = 0; i < spec->nprofiles; i++)
        l->apps |= spec->profiles[i].app.kind != 0;
    if (!rc && l->apps && geteuid() == 0 && !o->app_user) {
        lg_error("%s: its app: profiles start PostgreSQL or MariaDB servers, which refuse to run "
                 "as root: run with --app-user USER (an unprivileged account)",
                 spec_path);
        rc = LGCTL_USAGE;
    }
    /* The agent may touch the spec's file targets, and nothing else. */
    for (size_t k = 0; k < spec->nconfigs && !rc; k++)
        for (size_t t = 0; t < spec->configs[k].ntargets && !rc; t++)
            rc = s_allow_target(l, spec_path, &spec->configs[k].targets[t]);
    lg_spec_destroy(&spec);
    return rc;
}

/* The data folder checked (ours, or root's, alone), the database opened (LG_DATABASE_URL or
 * the private cluster, started) and migrated; campaigns an earlier local run left running
 * ended. Returns 0 or LGCTL_FAIL after saying why, with nothing left open. */
static int s_open_store(local_t *l)
{
    const lgctl_opts_t *o = &l->oc;
    /* 0711: as root, the postgres user must traverse it to reach its cluster in pg/. Ours (or
     * root's) alone: links another user planted there would redirect what we write. */
    char err[4096];
    int rc = lg_owndir(o->db.data_dir, 0711, LG_OWNDIR_ROOT_OK, l->data_dir, sizeof l->data_dir,
                       err, sizeof err);
    if (rc) {
        lg_error("data folder: %s", err);
        return LGCTL_FAIL;
    }
    l->oc.db.data_dir = l->data_dir;
    if (!o->db.url && !o->quiet)
        lg_info("local mode: PostgreSQL in %s/pg", o->db.data_dir);
    if (lg_db_open(o->db.url, o->db.data_dir, &l->store, err, sizeof err) != 0) {
        lg_error("%s", err);
        return LGCTL_FAIL;
    }
    int applied = 0;
    if (lg_db_migrate(l->store.db, &applied, NULL, err, sizeof err) != 0) {
        lg_error("%s", err);
        lg_db_open_clear(&l->store);
        return LGCTL_FAIL;
    }
    if (!o->db.url)
        s_abort_orphans(l->store.db, o->db.data_dir);
    return 0;
}

/* The run's folder (logs, the agent's work, the ready file) and the sockets' folder. Plaintext,
 * the one place it is allowed: ipc sockets in a 0700 folder of ours, never TCP (any local user
 * could reach that). When the run folder's path is too long for a socket address, a short
 * private folder under /tmp holds them. Returns 0 or LGCTL_FAIL after saying why. */
static int s_make_dirs(local_t *l)
{
    snprintf(l->run_dir, sizeof l->run_dir, "%s/local-%ld", l->oc.db.data_dir, (long)getpid());
    lg_mkdirs(l->run_dir, 0700);
    snprintf(l->ready, sizeof l->ready, "%s/ready", l->run_dir);
    snprintf(l->work, sizeof l->work, "%s/agent", l->run_dir);
    snprintf(l->ch.ctl_log, sizeof l->ch.ctl_log, "%s/controller.log", l->run_dir);
    snprintf(l->ch.agent_log, sizeof l->ch.agent_log, "%s/agent.log", l->run_dir);
    unlink(l->ready);
    lg_strlcpy(l->sock_dir, l->run_dir, sizeof l->sock_dir);
    if (strlen(l->sock_dir) + sizeof "/control" > 100) {
        char tmpl[] = "/tmp/lg-XXXXXX";
        if (!mkdtemp(tmpl)) {
            lg_error("\"%s\" is too long for a socket path and no private folder could be made "
                     "in /tmp: %s",
                     l->run_dir, strerror(errno));
            return LGCTL_FAIL;
        }
        lg_strlcpy(l->sock_dir, tmpl, sizeof l->sock_dir);
        l->short_dir = 1;
    }
    return 0;
}

/* The local controller started and listening. Returns 0, or -1 after saying why. */
static int s_start_controller(local_t *l)
{
    char ctl_bin[1100];
    s_bin("LG_CONTROLLER_BIN", "lg-controller", ctl_bin, sizeof ctl_bin);
    char agents_bind[1200], ctl_bind[1200];
    snprintf(agents_bind, sizeof agents_bind, "ipc://%s/agents", l->sock_dir);
    snprintf(ctl_bind, sizeof ctl_bind, "ipc://%s/control", l->sock_dir);
    /* A spool of its own in the run's folder: samples a stalled database cannot take wait there. */
    char spool[1200];
    snprintf(spool, sizeof spool, "%s/spool", l->run_dir);
    char *cargv[] = {ctl_bin,        "--agents", agents_bind,   "--control",   ctl_bind,
                     "--ready-file", l->ready,   "--plaintext", "--spool-dir", spool,
                     NULL,           NULL,       NULL};
    /* The probes and credentials its spec may name: the operator's file, as lgctl found it. */
    char opbuf[1100];
    const char *opfile = lg__cli_operator_path(&l->oc, opbuf, sizeof opbuf);
    if (opfile) {
        cargv[10] = "--operator";
        cargv[11] = (char *)opfile;
    }
    /* The database in its environment, not its command line: the URL may hold a password, and
     * every user of the host can read a command line (ps). It keeps it from its hooks. */
    size_t ulen = sizeof "LG_DATABASE_URL=" + strlen(l->store.conninfo);
    char *url = malloc(ulen);
    if (url)
        snprintf(url, ulen, "LG_DATABASE_URL=%s", l->store.conninfo);
    char *add[] = {url, NULL};
    char **env = url ? lg_child_env(environ, add, NULL) : NULL;
    if (!env) {
        free(url);
        lg_error("could not start \"%s\": out of memory", ctl_bin);
        return -1;
    }
    l->ch.controller = lg_proc_spawn(cargv, env, l->ch.ctl_log);
    free(url);
    free(env);
    if (l->ch.controller < 0) {
        lg_error("could not start \"%s\": %s", ctl_bin, strerror(-l->ch.controller));
        l->ch.controller = 0;
        return -1;
    }
    if (s_wait_ready(&l->ch, l->ready, l->agents_ep, l->ctl_ep, sizeof l->agents_ep) != 0)
        return -1;
    return 0;
}

/* The local agent started, allowed the spec's targets and given our credentials' files.
 * Returns 0, or -1 after saying why. */
static int s_start_agent(local_t *l)
{
    const lgctl_opts_t *o = &l->oc;
    char agent_bin[1100];
    s_bin("LG_AGENT_BIN", "lg-agent", agent_bin, sizeof agent_bin);
    char *aargv[18 + 2 * LG_LOCAL_MAX_ALLOW] = {agent_bin, "--controller", l->agents_ep,
                                                "--name",  "local",        "--work-dir",
                                                l->work,   "--plaintext",  NULL};
    size_t na = 8;
    for (size_t i = 0; i < l->nallow; i++) {
        aargv[na++] = "--allow";
        aargv[na++] = l->allow[i];
    }
    if (o->allow_destructive)
        aargv[na++] = "--allow-destructive";
    if (o->smb_credentials) {
        aargv[na++] = "--smb-credentials";
        aargv[na++] = (char *)o->smb_credentials;
    }
    if (o->iscsi_chap) {
        aargv[na++] = "--iscsi-chap";
        aargv[na++] = (char *)o->iscsi_chap;
    }
    if (o->app_user) {
        aargv[na++] = "--app-user";
        aargv[na++] = (char *)o->app_user;
    }
    aargv[na] = NULL;
    /* Nothing of the database: the agent has none, and the programs it runs inherit from it. */
    static const char *const drop[] = {"LG_DATABASE_URL", "PG*", NULL};
    char **env = lg_child_env(environ, NULL, drop);
    if (!env) {
        lg_error("could not start \"%s\": out of memory", agent_bin);
        return -1;
    }
    l->ch.agent = lg_proc_spawn(aargv, env, l->ch.agent_log);
    free(env);
    if (l->ch.agent < 0) {
        lg_error("could not start \"%s\": %s", agent_bin, strerror(-l->ch.agent));
        l->ch.agent = 0;
        return -1;
    }
    return 0;
}

/* Ctrl-C: the campaign ends "aborted" (its finished runs stay, the run in flight is stopped and
 * kept as aborted), so no later run of this data folder takes it up. */
static void s_abort_campaign(local_t *l)
{
    lgctl_interrupted = 0;
    Lg__CtlRequest q = LG__CTL_REQUEST__INIT;
    q.op = LG__CTL_REQUEST__OP__OP_ABORT;
    q.name = l->campaign_name;
    Lg__Envelope *e = NULL;
    if (lgctl_call(l->sock, &q, &e, 10000) == 0) {
        lg_error("campaign \"%s\" aborted%s%s", l->campaign_name,
                 e->ctl_reply->message && e->ctl_reply->message[0] ? ": " : "",
                 e->ctl_reply->message ? e->ctl_reply->message : "");
        lg_wire_envelope_destroy(&e);
        /* Until the run in flight has ended and been stored. */
        for (int i = 0; i < 100 && !lgctl_interrupted; i++) {
            q.op = LG__CTL_REQUEST__OP__OP_STATUS;
            if (lgctl_call(l->sock, &q, &e, 5000) != 0)
                break;
            int busy = e->ctl_reply->current_run != 0;
            lg_wire_envelope_destroy(&e);
            if (!busy)
                break;
            struct timespec ts = {0, 100 * 1000000};
            nanosleep(&ts, NULL);
        }
    } else {
        lg_error("could not abort campaign \"%s\"", l->campaign_name);
    }
    lgctl_interrupted = 1;
}

/* The controller and agent started, the campaign submitted and waited for (aborted on Ctrl-C).
 * Returns an LGCTL_* exit code. */
static int s_run_campaign(local_t *l, const char *spec_path, const char *text)
{
    if (s_start_controller(l) != 0 || s_start_agent(l) != 0)
        return LGCTL_FAIL;
    /* A second lgctl (status, pause, resume, abort) finds this controller here. */
    snprintf(l->epfile, sizeof l->epfile, "%s/controller.endpoint", l->oc.db.data_dir);
    FILE *ef = lg_create_new_file(l->epfile, 0600);
    if (ef) {
        fprintf(ef, "%s\n", l->ctl_ep);
        fclose(ef);
    }
    l->zctx = zmq_ctx_new();
    l->sock = lgctl_connect(l->zctx, l->ctl_ep, &l->oc, 1);
    if (!l->sock)
        return LGCTL_FAIL;
    int result = lgctl_submit_and_wait(&l->oc, l->sock, spec_path, text, &l->cid, s_alive, &l->ch);
    if (lgctl_interrupted && l->cid && s_alive(&l->ch))
        s_abort_campaign(l);
    return result;
}

/* Whatever happened: what was started stopped by PID, the logs' last lines on failure, the
 * report of the campaign, the database closed, the run's folder removed (kept on failure).
 * Returns the exit code. */
static int s_finish(local_t *l, int result)
{
    char err[4096];
    if (l->epfile[0])
        unlink(l->epfile);
    if (l->short_dir) { /* the sockets' own folder: nothing else is in it */
        char p[1200];
        snprintf(p, sizeof p, "%s/agents", l->sock_dir);
        unlink(p);
        snprintf(p, sizeof p, "%s/control", l->sock_dir);
        unlink(p);
        rmdir(l->sock_dir);
    }
    lgctl_close(l->sock);
    if (l->zctx)
        zmq_ctx_term(l->zctx);
    if (l->ch.agent > 0)
        lg_proc_stop(l->ch.agent, 10000);
    if (l->ch.controller > 0) {
        int st = lg_proc_stop(l->ch.controller, 20000);
        if (st != 0 && result == LGCTL_OK) {
            lg_error("the local controller exited with status %d", st);
            s_tail("controller", l->ch.ctl_log);
        }
    }
    if (result != LGCTL_OK && result != LGCTL_USAGE) {
        s_tail("controller", l->ch.ctl_log);
        s_tail("agent", l->ch.agent_log);
    }
    if (l->cid) {
        if (lg_report_print(l->store.db, l->cid, NULL, l->oc.format, stdout, err, sizeof err) !=
            0) {
            lg_error("%s", err);
            result = LGCTL_FAIL;
        }
    }
    lg_db_open_clear(&l->store);
    if (result == LGCTL_OK)
        s_remove_tree(l->run_dir);
    else
        lg_log_hint("the logs of the local controller and agent are in %s", l->run_dir);
    return result;
}

int lgctl_local_run(const lgctl_opts_t *o_given, const char *spec_path, const char *text)
{
    local_t *l = calloc(1, sizeof *l);
    if (!l)
        return LGCTL_FAIL;
    l->oc = *o_given;
    int rc = s_check_spec(l, spec_path, text);
    if (rc == 0)
        rc = s_open_store(l);
    if (rc == 0 && (rc = s_make_dirs(l)) != 0)
        lg_db_open_clear(&l->store);
    if (rc == 0)
        rc = s_finish(l, s_run_campaign(l, spec_path, text));
    free(l);
    return rc;
}
