/* options.c: lg-agent's option table (options.h), with the checks of the options whose values
 * must be more than strings: targets' prefixes, labels, credentials files. */
#include "options.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "platform.h"

#define C(field) offsetof(lg_agent_cmdline_t, cfg.field)
#define M(field) offsetof(lg_agent_cmdline_t, field)
#ifdef _WIN32
#define WINDOWS_ONLY 0
#else
#define WINDOWS_ONLY LG_OPT_HIDDEN /* and refused by main: not on lg-agent(8) either */
#endif

/* --allow: an absolute path or an smb:// or iscsi:// prefix, repeatable. */
static int s_allow(void *ctx, const lg_opt_t *o, const char *v, char *err, size_t errlen)
{
    lg_agent_config_t *cfg = &((lg_agent_cmdline_t *)ctx)->cfg;
    (void)o;
    if ((!lg_plat_path_absolute(v) && strncmp(v, "smb://", 6) != 0 &&
         strncmp(v, "iscsi://", 8) != 0) ||
        cfg->nallow == LG_AGENT_MAX_ALLOW) {
        snprintf(err, errlen,
                 "--allow \"%s\": need an absolute path or an smb:// or iscsi:// "
                 "prefix (at most %d)",
                 v, LG_AGENT_MAX_ALLOW);
        return -1;
    }
    cfg->allow[cfg->nallow++] = v;
    return 0;
}

static int s_label(void *ctx, const lg_opt_t *o, const char *v, char *err, size_t errlen)
{
    lg_agent_config_t *cfg = &((lg_agent_cmdline_t *)ctx)->cfg;
    (void)o;
    if (!lg_agent_label_ok(v) || cfg->nlabels == LG_AGENT_MAX_LABELS) {
        snprintf(err, errlen,
                 "--label \"%s\": need KEY=VALUE, KEY of a-z 0-9 _ - (at most %d "
                 "labels)",
                 v, LG_AGENT_MAX_LABELS);
        return -1;
    }
    cfg->labels[cfg->nlabels++] = v;
    return 0;
}

static int s_app_user(void *ctx, const lg_opt_t *o, const char *v, char *err, size_t errlen)
{
    (void)o;
    if (!v[0] || strlen(v) > 32) {
        snprintf(err, errlen, "--app-user \"%s\": need a user name", v);
        return -1;
    }
    ((lg_agent_cmdline_t *)ctx)->cfg.app_user = v;
    return 0;
}

static int s_pg_bindir(void *ctx, const lg_opt_t *o, const char *v, char *err, size_t errlen)
{
    (void)o;
    if (!lg_plat_path_absolute(v)) {
        snprintf(err, errlen, "--pg-bindir \"%s\": need an absolute path", v);
        return -1;
    }
    ((lg_agent_cmdline_t *)ctx)->cfg.pg_bindir = v;
    return 0;
}

/* --smb-credentials, --iscsi-chap: a file to read by absolute path (its mode is checked once
 * the command line is whole), stored where the table says. */
static int s_creds(void *ctx, const lg_opt_t *o, const char *v, char *err, size_t errlen)
{
    if (!lg_plat_path_absolute(v) || access(v, R_OK) != 0) {
        snprintf(err, errlen, "--%s \"%s\": need a readable file by absolute path", o->name, v);
        return -1;
    }
    *(const char **)(void *)((char *)ctx + o->off) = v;
    return 0;
}

static const lg_opt_t s_opts[] = {
    {"controller", 0, "EP", LG_OPT_STR, 0, C(controller), 0, 0, NULL,
     "controller's agent endpoint, e.g. tcp://10.0.0.5:5601", NULL},
    {"name", 0, "NAME", LG_OPT_STR, 0, C(name), 0, 0, NULL, "agent name (default: host name)",
     NULL},
    {"allow", 0, "PATH", LG_OPT_FN, LG_OPT_LIST, 0, 0, 0, s_allow,
     "a directory or file that runs may target (repeatable;\n"
     "no file target is allowed without one)",
     NULL},
    {"fio", 0, "PATH", LG_OPT_STR, 0, C(fio), 0, 0, NULL, "fio binary (default: fio)", NULL},
    {"work-dir", 0, "DIR", LG_OPT_STR, 0, C(work_dir), 0, 0, NULL,
     "where job files go, a folder of the agent's user that\n"
     "nobody else can write (default: $RUNTIME_DIRECTORY/NAME;\n"
     "as root /run/lg-agent/NAME; else $XDG_RUNTIME_DIR/lg-agent-NAME\n"
     "or /var/tmp/lg-agent-NAME)",
     "where job files go, a folder of the agent's user that nobody else can write (default: "
     "$RUNTIME_DIRECTORY/NAME; as root /run/lg-agent/NAME; else $XDG_RUNTIME_DIR/lg-agent-NAME "
     "or /var/tmp/lg-agent-NAME). A folder that belongs to another user, that others can write, "
     "or that lies inside a folder another user owns or can write (unless sticky, as /tmp) is "
     "refused: whoever can change it could make fio run commands as the agent."},
    {"heartbeat-ms", 0, "N", LG_OPT_UINT, 0, C(heartbeat_ms), 10, 600000, NULL,
     "heartbeat interval (default 1000)", NULL},
    {"controller-timeout-ms", 0, "N", LG_OPT_UINT, 0, C(controller_timeout_ms), 100, 3600000, NULL,
     "the controller is lost after N ms of silence\n"
     "(default 5 heartbeats); we keep what it has not acknowledged",
     NULL},
    {"label", 0, "KEY=VALUE", LG_OPT_FN, LG_OPT_LIST, 0, 0, 0, s_label,
     "a label campaigns select agents by, e.g. rack=a (repeatable)", NULL},
    {"engine-dir", 0, "DIR", LG_OPT_STR, 0, C(engine_dir), 0, 0, NULL,
     "where the lgsmb and lgiscsi fio engines are\n"
     "(default: BIN/../lib/lg/engines)",
     NULL},
    {"smb-credentials", 0, "FILE", LG_OPT_FN, 0, C(smb_credentials), 0, 0, s_creds,
     "user and password for smb:// targets (smbclient -A\n"
     "format: username = ..., password = ..., domain = ...)",
     NULL},
    {"iscsi-chap", 0, "FILE", LG_OPT_FN, 0, C(iscsi_chap), 0, 0, s_creds,
     "CHAP user and password for iscsi:// targets (same format)\n"
     "smb:// and iscsi:// targets must be under an --allow URL prefix,\n"
     "e.g. --allow smb://nas/share --allow iscsi://nas:3260/iqn.x",
     NULL},
    {"smb-keep-sessions", 0, "SECONDS", LG_OPT_SECONDS, 0, C(smb_keep_s), 0, 3600, NULL,
     "keep the SMB sessions of an smb:// run (lgsmb, iodepth > 1)\n"
     "logged on this long for the next run of the same target\n"
     "(default 60; 0: log off at each run's end)",
     "keep the SMB sessions of an smb:// run (the lgsmb engine's, at a queue depth over 1) logged "
     "on this long after the run, for the next run of the same target (server, share, user, "
     "password, dialects) to take instead of logging on again (default 60; 0: every run logs off "
     "at its end). Kept sessions end with lg-agent."},
    {"allow-destructive", 0, NULL, LG_OPT_FLAG, 0, C(allow_destructive), 0, 0, NULL,
     "let runs write to whole block devices (block: targets,\n"
     "which must also be under --allow); their data is destroyed",
     NULL},
    {"key", 0, "FILE", LG_OPT_STR, 0, C(key_file), 0, 0, NULL,
     "this agent's CURVE key pair (lgctl keygen); its public key\n"
     "must be in the controller's --agent-keys",
     NULL},
    {"controller-key", 0, "KEY", LG_OPT_STR, 0, C(controller_key), 0, 0, NULL,
     "the controller's public key (its .pub file, or z85:KEY\n"
     "inline): the only controller this agent obeys",
     NULL},
    {"plaintext", 0, NULL, LG_OPT_FLAG, 0, C(plaintext), 0, 0, NULL,
     "no CURVE: only for a loopback or ipc controller (local mode)", NULL},
    {"app-user", 0, "USER", LG_OPT_FN, 0, 0, 0, 0, s_app_user,
     "the account the database servers of application workloads\n"
     "(pgbench, sysbench) run as; required when lg-agent runs as\n"
     "root (PostgreSQL and MariaDB refuse root), else its own user",
     "the account the database servers of application workloads (pgbench, sysbench) run as, and "
     "the tools that load and drive them; required when lg-agent runs as root (PostgreSQL and "
     "MariaDB refuse root), else its own user (then leave it out or give that user). It must be "
     "able to enter every folder above a target's (search permission), since its server's data "
     "folder is made there"},
    {"pg-bindir", 0, "DIR", LG_OPT_FN, 0, 0, 0, 0, s_pg_bindir,
     "PostgreSQL's server programs (initdb, postgres, pgbench...;\n"
     "default: the newest /usr/lib/postgresql/*/bin with initdb)",
     "PostgreSQL's server programs (initdb, postgres, pg_isready, createdb, pgbench), an "
     "absolute path (default: the newest /usr/lib/postgresql/\\*/bin with initdb in it)"},
    /* taken out first with the service verbs (lg_opt_early); here only when it lacks its value */
    {"config", 0, "FILE", LG_OPT_STR, LG_OPT_CLI | LG_OPT_EARLY, M(config), 0, 0, NULL,
     "options from a file (\"option: value\" lines, see\n"
     "core/lg_config.h); the command line's come after them",
     NULL},
    {"log-file", 0, "FILE", LG_OPT_STR, 0, M(log_file), 0, 0, NULL,
     "append the log to FILE instead of stderr", NULL},
    {"install-service", 0, NULL, LG_OPT_FLAG, LG_OPT_CLI | LG_OPT_EARLY | WINDOWS_ONLY, M(install),
     0, 0, NULL,
     "with --config FILE (an absolute path): run as the Windows\n"
     "service \"lg-agent\" with FILE, started at boot",
     NULL},
    {"uninstall-service", 0, NULL, LG_OPT_FLAG, LG_OPT_CLI | LG_OPT_EARLY | WINDOWS_ONLY,
     M(uninstall), 0, 0, NULL, "stop and remove that service", NULL},
    /* how the service control manager starts it (service_win.c) */
    {"service", 0, NULL, LG_OPT_FLAG, LG_OPT_CLI | LG_OPT_EARLY | LG_OPT_HIDDEN, M(service), 0, 0,
     NULL, NULL, NULL},
    {"verbose", 0, NULL, LG_OPT_FN, 0, 0, 0, 0, lg_opt_verbose, "debug logging", NULL},
    {"version", 0, NULL, LG_OPT_VERSION, LG_OPT_CLI, 0, 0, 0, NULL, "print the version and exit",
     NULL},
    {"help", 'h', NULL, LG_OPT_HELP, LG_OPT_CLI | LG_OPT_HIDDEN, 0, 0, 0, NULL, NULL, NULL},
    /* the build's, for lg-agent(8) (doc/man-page.sh) */
    {"man-options", 0, NULL, LG_OPT_MAN, LG_OPT_CLI | LG_OPT_HIDDEN, 0, 0, 0, NULL, NULL, NULL},
    {NULL, 0, NULL, 0, 0, 0, 0, 0, NULL, NULL, NULL},
};

const lg_optset_t lg_agent_opts = {
    "lg-agent", "usage: lg-agent --controller ENDPOINT [options]\n", NULL, 17, s_opts, NULL, NULL};
