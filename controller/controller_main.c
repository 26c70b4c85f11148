/* controller_main.c: lg-controller's command line. All behaviour lives in lg_server. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "controller.h"
#include "db.h"
#include "lg_config.h"
#include "lg_error.h"
#include "lg_log.h"
#include "lg_opt.h"
#include "lg_util.h"

/* What the command line sets: the daemon's config, and what main does itself. */
typedef struct {
    lg_controller_config_t cfg;
    const char *config;    /* --config FILE, taken first (lg_opt_early) */
    uint32_t db_timeout_s; /* --db-timeout; 0: db.h's default */
} cmdline_t;

/* --spool-max: bytes, or a number with K, M or G (powers of 1024); 64 KiB to 1 TiB. */
static int s_spool_max(void *ctx, const lg_opt_t *o, const char *v, char *err, size_t errlen)
{
    char num[32];
    size_t n = strlen(v);
    unsigned shift = 0;
    if (n && strchr("KkMmGg", v[n - 1])) {
        shift = strchr("Kk", v[n - 1]) ? 10 : strchr("Mm", v[n - 1]) ? 20 : 30;
        n--;
    }
    uint64_t x = 0;
    int bad = n == 0 || n >= sizeof num;
    if (!bad) {
        memcpy(num, v, n);
        num[n] = 0;
        bad = lg_parse_u64(num, 1, 1ull << 40, &x) != 0 || x > (1ull << 40) >> shift ||
              (x << shift) < (64u << 10);
    }
    if (bad) {
        snprintf(err, errlen, "--%s: \"%s\" is not a size from 64K to 1024G", o->name, v);
        return -1;
    }
    ((cmdline_t *)ctx)->cfg.spool_max = x << shift;
    return 0;
}

#define C(field) offsetof(cmdline_t, cfg.field)

/* lg-controller's options, each written once: its command line, --help, lg-controller(8)'s
 * OPTIONS and the keys of its --config file (/etc/lg/controller.yaml) come from this table. */
static const lg_opt_t s_opts[] = {
    {"database", 0, "URL", LG_OPT_STR, 0, C(conninfo), 0, 0, NULL,
     "libpq connection string (default: $LG_DATABASE_URL); one with a\n"
     "password goes there or in --config: ps shows a command line",
     "libpq connection string (default: $LG_DATABASE_URL). One with a password goes there or "
     "in the --config file: every user of the host can read a command line (ps)."},
    {"agents", 0, "EP", LG_OPT_STR, 0, C(agent_bind), 0, 0, NULL,
     "endpoint for agents (default tcp://0.0.0.0:5601)", NULL},
    {"control", 0, "EP", LG_OPT_STR, 0, C(ctl_bind), 0, 0, NULL,
     "endpoint for lgctl (default tcp://127.0.0.1:5602)", NULL},
    {"ready-file", 0, "PATH", LG_OPT_STR, 0, C(ready_file), 0, 0, NULL,
     "write the bound endpoints here once listening", NULL},
    {"heartbeat-ms", 0, "N", LG_OPT_UINT, 0, C(heartbeat_ms), 10, 3600000, NULL,
     "agent heartbeat interval (default 1000)", NULL},
    {"agent-timeout-ms", 0, "N", LG_OPT_UINT, 0, C(agent_timeout_ms), 10, 3600000, NULL,
     "an agent silent this long is lost (default 10000)", NULL},
    {"db-timeout", 0, "S", LG_OPT_SECONDS, 0, offsetof(cmdline_t, db_timeout_s), 1, 3600, NULL,
     "a database statement not answered within S seconds (1 to\n"
     "3600, default 30) is given up and the database taken for away",
     "a database statement not answered within _S_ seconds (1 to 3600; default 30) is given up: "
     "its connection is shut and made anew, the database is taken for away (run deadlines stop) "
     "until it answers"},
    {"spool-dir", 0, "DIR", LG_OPT_STR, 0, C(spool_dir), 0, 0, NULL,
     "samples the database cannot take now are kept in DIR (made\n"
     "0700, this user's alone), acknowledged to their agents once\n"
     "on disk, and stored from there once it is back (default:\n"
     "$STATE_DIRECTORY/spool under systemd, else none: they wait in\n"
     "the agents' memory)",
     "samples the database cannot take now are appended to _DIR_/samples.spool (each record "
     "checksummed and fsynced), acknowledged to their agents once on disk, and stored from "
     "there, oldest first, once the database answers; a spool a killed controller left is stored "
     "on the next start. _DIR_ is made 0700 and must be this user's alone (as must every folder "
     "above it); one controller per spool. Default: $STATE_DIRECTORY/spool under systemd "
     "(/var/lib/lg/spool), else none: samples then wait in the agents' memory"},
    {"spool-max", 0, "SIZE", LG_OPT_FN, 0, 0, 0, 0, s_spool_max,
     "the spool's limit: bytes, or with K, M or G (default 1G);\n"
     "past it samples wait in the agents' memory",
     "the spool's size limit, in bytes or with K, M or G (64K to 1024G; default 1G, about a day "
     "of 16 agents' samples): past it the controller says so once and samples wait in the "
     "agents' memory, read more slowly"},
    {"io-threads", 0, "N", LG_OPT_UINT, 0, C(io_threads), 1, 16, NULL,
     "ZeroMQ I/O threads, 1 to 16 (default 2): they encrypt and\n"
     "decrypt every message and take new agents' CURVE handshakes",
     NULL},
    {"hook", 0, "CMD", LG_OPT_STR, 0, C(hook), 0, 0, NULL,
     "shell command run before each SUT config, and once after\n"
     "the last, of campaigns with between_configs: hook (gets\n"
     "LG_LABEL_* of the config and LG_PHASE=before|after)",
     NULL},
    {"readback", 0, "CMD", LG_OPT_STR, 0, C(readback), 0, 0, NULL,
     "shell command run after the hook before each SUT config: it\n"
     "prints the settings it reads back (KEY=VALUE lines); a label\n"
     "that reads otherwise stops the campaign (default $LG_READBACK)",
     "shell command run after the hook before each SUT config (same environment): it prints the "
     "settings it reads back from the NAS, a _KEY=VALUE_ or _KEY VALUE_ line each; a key that is "
     "one of the config's labels must read its value, or the campaign stops before the config is "
     "measured; what it read is stored and shown by *lgctl report* (default $LG_READBACK)"},
    {"hook-timeout", 0, "S", LG_OPT_SECONDS, 0, C(hook_timeout_s), 1, 86400, NULL,
     "a hook still running after S seconds (1 to 86400; default\n"
     "$LG_HOOK_TIMEOUT, else 3600) gets SIGTERM, SIGKILL 5 s later,\n"
     "and its campaign fails",
     "a hook still running after _S_ seconds (1 to 86400; default $LG_HOOK_TIMEOUT, else 3600) "
     "gets SIGTERM, SIGKILL 5 s later, and its campaign fails saying it timed out"},
    {"operator", 0, "FILE", LG_OPT_STR, 0, C(operator_file), 0, 0, NULL,
     "the operator's probes and credentials (YAML): the only\n"
     "programs a spec's reduction: may name and the only secrets\n"
     "telemetry may send, each to its one origin (default: none)",
     "the operator's file of reduction probes (each a name, its whole argv and the named "
     "parameters a spec may fill in) and telemetry credentials (each a name bound to one origin, "
     "with a token file and a CA file): the only programs a spec's *reduction:* may run and the "
     "only secrets its telemetry may send, and where. It must be this user's or root's and "
     "writable by nobody else. A spec names them and nothing more (lg-spec(5)); default: none"},
    {"key", 0, "FILE", LG_OPT_STR, 0, C(key_file), 0, 0, NULL,
     "this controller's CURVE key pair (lgctl keygen)", NULL},
    {"agent-keys", 0, "PATH", LG_OPT_STR, 0, C(agent_keys), 0, 0, NULL,
     "public keys of the agents that may register: a file of\n"
     "\"<key> name\" lines or a folder of .pub files",
     NULL},
    {"control-keys", 0, "PATH", LG_OPT_STR, 0, C(ctl_keys), 0, 0, NULL,
     "public keys of the lgctl users that may submit and steer", NULL},
    {"plaintext", 0, NULL, LG_OPT_FLAG, 0, C(plaintext), 0, 0, NULL,
     "no CURVE: only when both endpoints are loopback or ipc\n"
     "(local mode, tests)",
     NULL},
    {"verbose", 0, NULL, LG_OPT_FN, 0, 0, 0, 0, lg_opt_verbose, "debug logging", NULL},
    /* taken out first (lg_opt_early); here only when it lacks its value */
    {"config", 0, "FILE", LG_OPT_STR, LG_OPT_CLI | LG_OPT_EARLY, offsetof(cmdline_t, config), 0, 0,
     NULL,
     "options from a file: \"option: value\" lines (the options\n"
     "above without their --); the command line's come after",
     NULL},
    {"version", 0, NULL, LG_OPT_VERSION, LG_OPT_CLI, 0, 0, 0, NULL, "print the version and exit",
     NULL},
    {"help", 'h', NULL, LG_OPT_HELP, LG_OPT_CLI | LG_OPT_HIDDEN, 0, 0, 0, NULL, NULL, NULL},
    /* the build's, for lg-controller(8) (doc/man-page.sh) */
    {"man-options", 0, NULL, LG_OPT_MAN, LG_OPT_CLI | LG_OPT_HIDDEN, 0, 0, 0, NULL, NULL, NULL},
    {NULL, 0, NULL, 0, 0, 0, 0, 0, NULL, NULL, NULL},
};

static const lg_optset_t s_set = {
    "lg-controller", "usage: lg-controller [options]\n", NULL, 20, s_opts, NULL, NULL};

static int s_main(int argc, char **argv, cmdline_t *cl);

/* The command line with --config FILE's options in front of the others (which win). */
int main(int argc, char **argv)
{
    cmdline_t cl;
    memset(&cl, 0, sizeof cl);
    lg_cmdline_t line;
    char err[1024];
    int rc = lg_cmdline_load(&line, &s_set, argc, argv, &cl, &cl.config, err, sizeof err);
    if (rc)
        fprintf(stderr, "lg-controller: %s\n", err);
    else
        rc = s_main(line.argc, line.argv, &cl);
    lg_cmdline_clear(&line);
    return rc < 0 ? 2 : rc;
}

static int s_main(int argc, char **argv, cmdline_t *cl)
{
    lg_log_init("lg-controller");
    lg_db_set_app("lg-controller"); /* its statements: 30 s each (db.h), then it connects again */
    lg_log_set_timestamps(1);
    lg_controller_config_t *cfg = &cl->cfg;
    cfg->agent_bind = "tcp://0.0.0.0:5601";
    cfg->ctl_bind = "tcp://127.0.0.1:5602";
    cfg->conninfo = getenv("LG_DATABASE_URL");
    cfg->hook = getenv("LG_HOOK");
    cfg->readback = getenv("LG_READBACK");
    cfg->heartbeat_ms = 1000;
    cfg->agent_timeout_ms = 10000;
    cfg->io_threads = 2;
    /* Under systemd (StateDirectory=lg) the spool is /var/lib/lg/spool unless said otherwise. */
    static char state_spool[4096];
    const char *sd = getenv("STATE_DIRECTORY");
    if (sd && sd[0] == '/' && !strchr(sd, ':') &&
        snprintf(state_spool, sizeof state_spool, "%s/spool", sd) < (int)sizeof state_spool)
        cfg->spool_dir = state_spool;
    cfg->hook_timeout_s = LG_HOOK_TIMEOUT_DEFAULT_S;
    char err[1024];
    const char *ht = getenv("LG_HOOK_TIMEOUT"); /* as LG_HOOK: lgctl's local mode passes both */
    if (ht && ht[0] &&
        lg_opt_apply(lg_opt_find(&s_set, "hook-timeout"), "LG_HOOK_TIMEOUT", ht, cl, err,
                     sizeof err) != 0) {
        fprintf(stderr, "lg-controller: %s\n", err);
        return 2;
    }
    int rc = lg_opt_parse(&s_set, argc, argv, cl, err, sizeof err);
    if (rc == LG_OPT_DONE)
        return 0;
    if (rc) {
        fprintf(stderr, "lg-controller: %s\n", err);
        if (rc == LG_ENOTFOUND)
            lg_opt_help(&s_set, stderr);
        return 2;
    }
    if (cl->db_timeout_s)
        lg_db_set_deadline_ms(cl->db_timeout_s * 1000);
    if (!cfg->conninfo) {
        fprintf(stderr, "lg-controller: no database: give --database or set LG_DATABASE_URL\n");
        return 2;
    }
    return lg_controller_main(cfg) == 0 ? 0 : 1;
}
