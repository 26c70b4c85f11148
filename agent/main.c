/* main.c: lg-agent's command line. All behaviour lives in the lg_agent library. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent.h"
#include "lg_auth.h"
#include "lg_config.h"
#include "fiorun.h"
#include "platform.h"
#include "lg_log.h"
#include "lg_util.h"
#ifdef _WIN32
#include "service.h"
#endif

static void s_usage(FILE *f)
{
    fputs("usage: lg-agent --controller ENDPOINT [options]\n"
          "  --controller EP   controller's agent endpoint, e.g. tcp://10.0.0.5:5601\n"
          "  --name NAME       agent name (default: host name)\n"
          "  --allow PATH      a directory or file that runs may target (repeatable;\n"
          "                    no file target is allowed without one)\n"
          "  --fio PATH        fio binary (default: fio)\n"
          "  --work-dir DIR    where job files go, a folder of the agent's user that\n"
          "                    nobody else can write (default: $RUNTIME_DIRECTORY/NAME;\n"
          "                    as root /run/lg-agent/NAME; else $XDG_RUNTIME_DIR/lg-agent-NAME\n"
          "                    or /var/tmp/lg-agent-NAME)\n"
          "  --heartbeat-ms N  heartbeat interval (default 1000)\n"
          "  --controller-timeout-ms N  the controller is lost after N ms of silence\n"
          "                    (default 5 heartbeats); we keep what it has not acknowledged\n"
          "  --label KEY=VALUE a label campaigns select agents by, e.g. rack=a (repeatable)\n"
          "  --engine-dir DIR  where the lgsmb and lgiscsi fio engines are\n"
          "                    (default: BIN/../lib/lg/engines)\n"
          "  --smb-credentials FILE  user and password for smb:// targets (smbclient -A\n"
          "                    format: username = ..., password = ..., domain = ...)\n"
          "  --iscsi-chap FILE CHAP user and password for iscsi:// targets (same format)\n"
          "                    smb:// and iscsi:// targets must be under an --allow URL prefix,\n"
          "                    e.g. --allow smb://nas/share --allow iscsi://nas:3260/iqn.x\n"
          "  --allow-destructive  let runs write to whole block devices (block: targets,\n"
          "                    which must also be under --allow); their data is destroyed\n"
          "  --key FILE        this agent's CURVE key pair (lgctl keygen); its public key\n"
          "                    must be in the controller's --agent-keys\n"
          "  --controller-key KEY  the controller's public key (a .pub file or 40 Z85\n"
          "                    characters): the only controller this agent obeys\n"
          "  --plaintext       no CURVE: only for a loopback or ipc controller (local mode)\n"
          "  --app-user USER   the account the database servers of application workloads\n"
          "                    (pgbench, sysbench) run as; required when lg-agent runs as\n"
          "                    root (PostgreSQL and MariaDB refuse root), else its own user\n"
          "  --pg-bindir DIR   PostgreSQL's server programs (initdb, postgres, pgbench...;\n"
          "                    default: the newest /usr/lib/postgresql/*/bin with initdb)\n"
          "  --config FILE     options from a file (\"option: value\" lines, see\n"
          "                    core/lg_config.h); the command line's come after them\n"
          "  --log-file FILE   append the log to FILE instead of stderr\n"
#ifdef _WIN32
          "  --install-service --config FILE  run as the Windows service \"lg-agent\" with\n"
          "                    FILE (absolute path), started at boot\n"
          "  --uninstall-service  stop and remove that service\n"
#endif
          "  --verbose         debug logging\n"
          "  --version         print the version and exit\n",
          f);
}

/* A duration option in milliseconds within [min, max]; says what is wrong otherwise. */
static int s_ms(const char *opt, const char *v, uint64_t min, uint64_t max, uint32_t *out)
{
    uint64_t n;
    if (lg_parse_u64(v, min, max, &n) != 0) {
        fprintf(stderr, "lg-agent: %s: \"%s\" is not an integer from %llu to %llu\n", opt, v,
                (unsigned long long)min, (unsigned long long)max);
        return -1;
    }
    *out = (uint32_t)n;
    return 0;
}

/* Options into cfg (whose strings point into argv, which must outlive it). Returns 0, 1 after
 * --help, or 2 after saying what is wrong. */
static int s_parse(int argc, char **argv, lg_agent_config_t *cfg, const char **log_file)
{
    static char host[256] = "agent", work[1100];
    memset(cfg, 0, sizeof *cfg);
    cfg->fio = "fio";
    lg_plat_hostname(host, sizeof host);
    cfg->name = host;
    for (int i = 1; i < argc; i++) {
        const char *o = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(o, "--help") == 0 || strcmp(o, "-h") == 0) {
            s_usage(stdout);
            return 1;
        } else if (strcmp(o, "--version") == 0) {
            printf("lg-agent %s\n", LG_VERSION);
            return 1; /* as --help: done, exit 0 */
        } else if (strcmp(o, "--verbose") == 0) {
            lg_log_set_level(LG_LOG_DEBUG);
            continue;
        } else if (strcmp(o, "--allow-destructive") == 0) {
            cfg->allow_destructive = 1;
            continue;
        } else if (strcmp(o, "--plaintext") == 0) {
            cfg->plaintext = 1;
            continue;
        }
        if (!v) {
            fprintf(stderr, "lg-agent: option \"%s\" needs a value\n", o);
            return 2;
        }
        i++;
        if (strcmp(o, "--controller") == 0) {
            cfg->controller = v;
        } else if (strcmp(o, "--log-file") == 0) {
            *log_file = v;
        } else if (strcmp(o, "--name") == 0) {
            cfg->name = v;
        } else if (strcmp(o, "--key") == 0) {
            cfg->key_file = v;
        } else if (strcmp(o, "--controller-key") == 0) {
            cfg->controller_key = v;
        } else if (strcmp(o, "--allow") == 0) {
            if ((!lg_plat_path_absolute(v) && strncmp(v, "smb://", 6) != 0 &&
                 strncmp(v, "iscsi://", 8) != 0) ||
                cfg->nallow == LG_AGENT_MAX_ALLOW) {
                fprintf(stderr, "lg-agent: --allow \"%s\": need an absolute path or an smb:// or"
                                " iscsi:// prefix (at most %d)\n",
                        v, LG_AGENT_MAX_ALLOW);
                return 2;
            }
            cfg->allow[cfg->nallow++] = v;
        } else if (strcmp(o, "--fio") == 0) {
            cfg->fio = v;
        } else if (strcmp(o, "--work-dir") == 0) {
            cfg->work_dir = v;
        } else if (strcmp(o, "--engine-dir") == 0) {
            cfg->engine_dir = v;
        } else if (strcmp(o, "--app-user") == 0) {
            if (!v[0] || strlen(v) > 32) {
                fprintf(stderr, "lg-agent: --app-user \"%s\": need a user name\n", v);
                return 2;
            }
            cfg->app_user = v;
        } else if (strcmp(o, "--pg-bindir") == 0) {
            if (!lg_plat_path_absolute(v)) {
                fprintf(stderr, "lg-agent: --pg-bindir \"%s\": need an absolute path\n", v);
                return 2;
            }
            cfg->pg_bindir = v;
        } else if (strcmp(o, "--smb-credentials") == 0 || strcmp(o, "--iscsi-chap") == 0) {
            if (!lg_plat_path_absolute(v) || access(v, R_OK) != 0) {
                fprintf(stderr, "lg-agent: %s \"%s\": need a readable file by absolute path\n",
                        o, v);
                return 2;
            }
            if (strcmp(o, "--smb-credentials") == 0)
                cfg->smb_credentials = v;
            else
                cfg->iscsi_chap = v;
        } else if (strcmp(o, "--label") == 0) {
            if (!lg_agent_label_ok(v) || cfg->nlabels == LG_AGENT_MAX_LABELS) {
                fprintf(stderr, "lg-agent: --label \"%s\": need KEY=VALUE, KEY of a-z 0-9 _ -"
                                " (at most %d labels)\n", v, LG_AGENT_MAX_LABELS);
                return 2;
            }
            cfg->labels[cfg->nlabels++] = v;
        } else if (strcmp(o, "--controller-timeout-ms") == 0) {
            if (s_ms(o, v, 100, 3600000, &cfg->controller_timeout_ms) != 0)
                return 2;
        } else if (strcmp(o, "--heartbeat-ms") == 0) {
            if (s_ms(o, v, 10, 600000, &cfg->heartbeat_ms) != 0)
                return 2;
        } else {
            fprintf(stderr, "lg-agent: unknown option \"%s\"\n", o);
            s_usage(stderr);
            return 2;
        }
    }
    if (!cfg->controller) {
        fprintf(stderr, "lg-agent: --controller is required\n");
        s_usage(stderr);
        return 2;
    }
    if (strlen(cfg->name) == 0 || strlen(cfg->name) > 63) {
        fprintf(stderr, "lg-agent: --name must have 1 to 63 characters\n");
        return 2;
    }
    const char *creds[] = {cfg->smb_credentials, cfg->iscsi_chap};
    for (size_t i = 0; i < 2; i++) {
        char err[512];
        if (creds[i] && lg_auth_secret_file_check(creds[i], "credentials file", err, sizeof err)) {
            fprintf(stderr, "lg-agent: %s\n", err);
            return 2;
        }
    }
    if (!cfg->work_dir) {
        lg_plat_default_work_dir(cfg->name, work, sizeof work);
        cfg->work_dir = work;
    }
    return 0;
}

/* The command line with --config FILE's options in front (and without --config FILE and the
 * service verbs), parsed into cfg; then the service verbs, or the agent. */
static int s_main(int argc, char **argv)
{
    const char *config = NULL;
    int install = 0, uninstall = 0, service = 0;
    char **rest = calloc((size_t)argc + 1, sizeof *rest);
    int nrest = 0;
    if (!rest)
        return 1;
    rest[nrest++] = argv[0];
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--config") == 0 && i + 1 < argc)
            config = argv[++i];
        else if (strcmp(argv[i], "--install-service") == 0)
            install = 1;
        else if (strcmp(argv[i], "--uninstall-service") == 0)
            uninstall = 1;
        else if (strcmp(argv[i], "--service") == 0)
            service = 1;
        else
            rest[nrest++] = argv[i];
    }
#ifndef _WIN32
    if (install || uninstall || service) {
        fprintf(stderr, "lg-agent: the service options are for Windows; on Linux run lg-agent "
                        "--config FILE under systemd\n");
        free(rest);
        return 2;
    }
#else
    if (uninstall) {
        char err[512];
        free(rest);
        if (lg_service_uninstall(err, sizeof err) != 0) {
            fprintf(stderr, "lg-agent: %s\n", err);
            return 1;
        }
        printf("service \"%s\" removed\n", LG_SERVICE_NAME);
        return 0;
    }
#endif
    char **cargs = NULL;
    int ncargs = 0;
    char err[1024];
    if (config && lg_config_args(config, &lg_agent_config_opts, &cargs, &ncargs, err, sizeof err) != 0) {
        fprintf(stderr, "lg-agent: %s\n", err);
        free(rest);
        return 2;
    }
    int n = 0;
    char **all = lg_config_merge(rest[0], cargs, ncargs, rest, nrest, &n);
    if (!all) {
        lg_config_free(cargs, ncargs);
        free(rest);
        return 1;
    }
    lg_agent_config_t cfg;
    const char *log_file = NULL;
    int rc = s_parse(n, all, &cfg, &log_file);
    FILE *log = NULL;
    if (rc == 0 && log_file && !install) {
#ifdef _WIN32
        log = fopen(log_file, "a");
#else
        /* Appended to, never through a link (the agent often runs as root). */
        int lfd = open(log_file, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
        log = lfd >= 0 ? fdopen(lfd, "a") : NULL;
        if (lfd >= 0 && !log)
            close(lfd);
#endif
        if (!log) {
            fprintf(stderr, "lg-agent: --log-file \"%s\": cannot open it\n", log_file);
            rc = 2;
        } else {
            setvbuf(log, NULL, _IONBF, 0); /* every line on disk at once */
            lg_log_set_file(log);
        }
    }
#ifdef _WIN32
    if (rc == 0 && install) {
        if (!config || !lg_plat_path_absolute(config)) {
            fprintf(stderr, "lg-agent: --install-service needs --config FILE by absolute path\n");
            rc = 2;
        } else if (lg_service_install(config, err, sizeof err) != 0) {
            fprintf(stderr, "lg-agent: %s\n", err);
            rc = 1;
        } else {
            printf("service \"%s\" installed (automatic start) with %s\n", LG_SERVICE_NAME,
                   config);
        }
    } else if (rc == 0 && service) {
        rc = lg_service_run(&cfg);
    } else
#endif
    if (rc == 0)
        rc = lg_agent_main(&cfg) == 0 ? 0 : 1;
    else if (rc == 1) /* --help */
        rc = 0;
    lg_log_set_file(NULL);
    if (log)
        fclose(log);
    lg_config_free(cargs, ncargs);
    free(all);
    free(rest);
    return rc;
}

int main(int argc, char **argv)
{
    /* Not for people: the agent starts itself this way to hold a measured run's fio until the
     * agreed instant (see lg_fiorun_start_held). First, so that it sets nothing else up. */
#ifndef _WIN32
    if (argc > 1 && strcmp(argv[1], "--exec-at-fd") == 0) {
        uint64_t fd;
        if (argc < 5 || lg_parse_u64(argv[2], 3, 1023, &fd) != 0 || strcmp(argv[3], "--") != 0) {
            fprintf(stderr, "lg-agent: --exec-at-fd: want FD -- PROGRAM [ARGS...]\n");
            return 2;
        }
        return lg_fiorun_hold_main((int)fd, argv + 4);
    }
#else
    if (argc > 1 && strcmp(argv[1], "--hold") == 0) {
        if (argc < 4 || strcmp(argv[2], "--") != 0) {
            fprintf(stderr, "lg-agent: --hold: want -- PROGRAM [ARGS...]\n");
            return 2;
        }
        return lg_fiorun_hold_main_win(argv + 3);
    }
#endif
    lg_log_init("lg-agent");
    lg_log_set_timestamps(1);
    return s_main(argc, argv);
}

