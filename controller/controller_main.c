/* controller_main.c: lg-controller's command line. All behaviour lives in lg_server. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "controller.h"
#include "db.h"
#include "lg_config.h"
#include "lg_log.h"
#include "lg_util.h"

static void s_usage(FILE *f)
{
    fputs("usage: lg-controller [options]\n"
          "  --database URL       libpq connection string (default: $LG_DATABASE_URL)\n"
          "  --agents EP          endpoint for agents (default tcp://0.0.0.0:5601)\n"
          "  --control EP         endpoint for lgctl (default tcp://127.0.0.1:5602)\n"
          "  --ready-file PATH    write the bound endpoints here once listening\n"
          "  --heartbeat-ms N     agent heartbeat interval (default 1000)\n"
          "  --agent-timeout-ms N an agent silent this long is lost (default 10000)\n"
          "  --db-timeout S       a database statement not answered within S seconds (1 to\n"
          "                       3600, default 30) is given up and the database taken for away\n"
          "  --spool-dir DIR      samples the database cannot take now are kept in DIR (made\n"
          "                       0700, this user's alone), acknowledged to their agents once\n"
          "                       on disk, and stored from there once it is back (default:\n"
          "                       $STATE_DIRECTORY/spool under systemd, else none: they wait in\n"
          "                       the agents' memory)\n"
          "  --spool-max SIZE     the spool's limit: bytes, or with K, M or G (default 1G);\n"
          "                       past it samples wait in the agents' memory\n"
          "  --io-threads N       ZeroMQ I/O threads, 1 to 16 (default 2): they encrypt and\n"
          "                       decrypt every message and take new agents' CURVE handshakes\n"
          "  --hook CMD           shell command run between SUT configs of campaigns with\n"
          "                       between_configs: hook (gets LG_LABEL_* of the next config)\n"
          "  --hook-timeout S     a hook still running after S seconds (1 to 86400; default\n"
          "                       $LG_HOOK_TIMEOUT, else 3600) gets SIGTERM, SIGKILL 5 s later,\n"
          "                       and its campaign fails\n"
          "  --reduction-allow P  the programs a config's reduction: probe may run: absolute\n"
          "                       paths separated by ':', or \"any\" (default: none)\n"
          "  --key FILE           this controller's CURVE key pair (lgctl keygen)\n"
          "  --agent-keys PATH    public keys of the agents that may register: a file of\n"
          "                       \"<key> name\" lines or a folder of .pub files\n"
          "  --control-keys PATH  public keys of the lgctl users that may submit and steer\n"
          "  --plaintext          no CURVE: only when both endpoints are loopback or ipc\n"
          "                       (local mode, tests)\n"
          "  --verbose            debug logging\n"
          "  --config FILE        options from a file: \"option: value\" lines (the options\n"
          "                       above without their --); the command line's come after\n"
          "  --version            print the version and exit\n",
          f);
}

/* A hook's deadline in seconds, from opt (an option or the variable that gives its default). */
static int s_hook_timeout(const char *opt, const char *v, uint32_t *out)
{
    uint64_t n;
    if (lg_parse_u64(v, 1, 86400, &n) != 0) {
        fprintf(stderr, "lg-controller: %s: \"%s\" is not a number of seconds from 1 to 86400\n",
                opt, v);
        return -1;
    }
    *out = (uint32_t)n;
    return 0;
}

static int s_u32(const char *opt, const char *v, uint32_t *out)
{
    uint64_t n;
    if (lg_parse_u64(v, 10, 3600000, &n) != 0) {
        fprintf(stderr, "lg-controller: %s: \"%s\" is not an integer from 10 to 3600000\n", opt,
                v);
        return -1;
    }
    *out = (uint32_t)n;
    return 0;
}

/* A size: bytes, or a number with K, M or G (powers of 1024); 64 KiB to 1 TiB. */
static int s_size(const char *opt, const char *v, uint64_t *out)
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
        fprintf(stderr, "lg-controller: %s: \"%s\" is not a size from 64K to 1024G\n", opt, v);
        return -1;
    }
    *out = x << shift;
    return 0;
}

/* What --config FILE may set (lg_config.h): the command line's options. */
static const char *const s_cfg_valued[] = {"database", "agents", "control", "ready-file",
                                           "heartbeat-ms", "agent-timeout-ms", "io-threads", "db-timeout",
                                           "spool-dir", "spool-max",
                                           "hook", "hook-timeout", "key", "agent-keys",
                                           "control-keys", "reduction-allow", NULL};
static const char *const s_cfg_flags[] = {"plaintext", "verbose", NULL};
static const lg_config_opts_t s_cfg = {"lg-controller", s_cfg_valued, s_cfg_flags, NULL};

static int s_main(int argc, char **argv);

/* The command line with --config FILE's options in front of the others (which win). */
int main(int argc, char **argv)
{
    const char *config = NULL;
    char **rest = calloc((size_t)argc + 1, sizeof *rest);
    if (!rest)
        return 1;
    int nrest = 0;
    rest[nrest++] = argv[0];
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--config") == 0 && i + 1 < argc)
            config = argv[++i];
        else
            rest[nrest++] = argv[i];
    }
    char **cargs = NULL, err[1024];
    int ncargs = 0;
    if (config && lg_config_args(config, &s_cfg, &cargs, &ncargs, err, sizeof err) != 0) {
        fprintf(stderr, "lg-controller: %s\n", err);
        free(rest);
        return 2;
    }
    int n = 0, rc = 1;
    char **all = lg_config_merge(rest[0], cargs, ncargs, rest, nrest, &n);
    if (all)
        rc = s_main(n, all);
    free(all);
    lg_config_free(cargs, ncargs);
    free(rest);
    return rc;
}

static int s_main(int argc, char **argv)
{
    lg_log_init("lg-controller");
    lg_db_set_app("lg-controller"); /* its statements: 30 s each (db.h), then it connects again */
    lg_log_set_timestamps(1);
    lg_controller_config_t cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.agent_bind = "tcp://0.0.0.0:5601";
    cfg.ctl_bind = "tcp://127.0.0.1:5602";
    cfg.conninfo = getenv("LG_DATABASE_URL");
    cfg.hook = getenv("LG_HOOK");
    cfg.heartbeat_ms = 1000;
    cfg.agent_timeout_ms = 10000;
    cfg.io_threads = 2;
    /* Under systemd (StateDirectory=lg) the spool is /var/lib/lg/spool unless said otherwise. */
    static char state_spool[4096];
    const char *sd = getenv("STATE_DIRECTORY");
    if (sd && sd[0] == '/' && !strchr(sd, ':') &&
        snprintf(state_spool, sizeof state_spool, "%s/spool", sd) < (int)sizeof state_spool)
        cfg.spool_dir = state_spool;
    cfg.hook_timeout_s = LG_HOOK_TIMEOUT_DEFAULT_S;
    const char *ht = getenv("LG_HOOK_TIMEOUT"); /* as LG_HOOK: lgctl's local mode passes both */
    if (ht && ht[0] && s_hook_timeout("LG_HOOK_TIMEOUT", ht, &cfg.hook_timeout_s))
        return 2;
    for (int i = 1; i < argc; i++) {
        const char *o = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(o, "--help") == 0 || strcmp(o, "-h") == 0) {
            s_usage(stdout);
            return 0;
        } else if (strcmp(o, "--version") == 0) {
            printf("lg-controller %s\n", LG_VERSION);
            return 0;
        } else if (strcmp(o, "--verbose") == 0) {
            lg_log_set_level(LG_LOG_DEBUG);
            continue;
        } else if (strcmp(o, "--plaintext") == 0) {
            cfg.plaintext = 1;
            continue;
        }
        if (!v) {
            fprintf(stderr, "lg-controller: option \"%s\" needs a value\n", o);
            return 2;
        }
        i++;
        if (strcmp(o, "--database") == 0)
            cfg.conninfo = v;
        else if (strcmp(o, "--agents") == 0)
            cfg.agent_bind = v;
        else if (strcmp(o, "--control") == 0)
            cfg.ctl_bind = v;
        else if (strcmp(o, "--hook") == 0)
            cfg.hook = v;
        else if (strcmp(o, "--reduction-allow") == 0)
            cfg.reduction_allow = v;
        else if (strcmp(o, "--key") == 0)
            cfg.key_file = v;
        else if (strcmp(o, "--agent-keys") == 0)
            cfg.agent_keys = v;
        else if (strcmp(o, "--control-keys") == 0)
            cfg.ctl_keys = v;
        else if (strcmp(o, "--ready-file") == 0)
            cfg.ready_file = v;
        else if (strcmp(o, "--heartbeat-ms") == 0) {
            if (s_u32(o, v, &cfg.heartbeat_ms))
                return 2;
        } else if (strcmp(o, "--agent-timeout-ms") == 0) {
            if (s_u32(o, v, &cfg.agent_timeout_ms))
                return 2;
        } else if (strcmp(o, "--hook-timeout") == 0) {
            if (s_hook_timeout(o, v, &cfg.hook_timeout_s))
                return 2;
        } else if (strcmp(o, "--db-timeout") == 0) {
            uint64_t n;
            if (lg_parse_u64(v, 1, 3600, &n) != 0) {
                fprintf(stderr, "lg-controller: %s: \"%s\" is not a number of seconds from 1 to "
                        "3600\n", o, v);
                return 2;
            }
            lg_db_set_deadline_ms((uint32_t)n * 1000);
        } else if (strcmp(o, "--spool-dir") == 0) {
            cfg.spool_dir = v;
        } else if (strcmp(o, "--spool-max") == 0) {
            if (s_size(o, v, &cfg.spool_max))
                return 2;
        } else if (strcmp(o, "--io-threads") == 0) {
            uint64_t n;
            if (lg_parse_u64(v, 1, 16, &n) != 0) {
                fprintf(stderr, "lg-controller: %s: \"%s\" is not an integer from 1 to 16\n", o, v);
                return 2;
            }
            cfg.io_threads = (uint32_t)n;
        } else {
            fprintf(stderr, "lg-controller: unknown option \"%s\"\n", o);
            s_usage(stderr);
            return 2;
        }
    }
    if (!cfg.conninfo) {
        fprintf(stderr, "lg-controller: no database: give --database or set LG_DATABASE_URL\n");
        return 2;
    }
    return lg_controller_main(&cfg) == 0 ? 0 : 1;
}
