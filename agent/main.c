/* main.c: lg-agent's command line. All behaviour lives in the lg_agent library. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent.h"
#include "fiorun.h"
#include "lg_auth.h"
#include "lg_config.h"
#include "lg_error.h"
#include "lg_log.h"
#include "lg_util.h"
#include "options.h"
#include "platform.h"
#ifdef _WIN32
#include "service.h"
#endif

/* The command line (argv, which must outlive cl: its strings point into it) into cl, by
 * lg_agent_opts, with the defaults it does not give. Returns 0, 1 after --help or --version, or 2
 * after saying what is wrong. */
static int s_parse(int argc, char **argv, lg_agent_cmdline_t *cl)
{
    static char host[256] = "agent", work[1100];
    lg_agent_config_t *cfg = &cl->cfg;
    memset(cfg, 0, sizeof *cfg);
    cl->log_file = NULL;
    cfg->fio = "fio";
    cfg->smb_keep_s = LG_AGENT_SMB_KEEP_S;
    lg_plat_hostname(host, sizeof host);
    cfg->name = host;
    char err[1024];
    int rc = lg_opt_parse(&lg_agent_opts, argc, argv, cl, err, sizeof err);
    if (rc == LG_OPT_DONE)
        return 1;
    if (rc) {
        fprintf(stderr, "lg-agent: %s\n", err);
        if (rc == LG_ENOTFOUND)
            lg_opt_help(&lg_agent_opts, stderr);
        return 2;
    }
    if (!cfg->controller) {
        fprintf(stderr, "lg-agent: --controller is required\n");
        lg_opt_help(&lg_agent_opts, stderr);
        return 2;
    }
    if (strlen(cfg->name) == 0 || strlen(cfg->name) > 63) {
        fprintf(stderr, "lg-agent: --name must have 1 to 63 characters\n");
        return 2;
    }
    const char *creds[] = {cfg->smb_credentials, cfg->iscsi_chap};
    for (size_t i = 0; i < 2; i++) {
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

/* --log-file FILE opened for appending, never through a link (the agent often runs as root), and
 * made the log's; NULL after saying why. */
static FILE *s_open_log(const char *log_file)
{
#ifdef _WIN32
    FILE *log = fopen(log_file, "a");
#else
    int lfd = open(log_file, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
    FILE *log = lfd >= 0 ? fdopen(lfd, "a") : NULL;
    if (lfd >= 0 && !log)
        close(lfd);
#endif
    if (!log) {
        fprintf(stderr, "lg-agent: --log-file \"%s\": cannot open it\n", log_file);
        return NULL;
    }
    setvbuf(log, NULL, _IONBF, 0); /* every line on disk at once */
    lg_log_set_file(log);
    return log;
}

/* The command line (--config FILE's options in front, without it and the service verbs: line)
 * parsed into cl; then the service verbs, or the agent. */
static int s_run(const lg_cmdline_t *line, lg_agent_cmdline_t *cl)
{
    const char *config = cl->config;
    int install = cl->install, uninstall = cl->uninstall, service = cl->service;
#ifndef _WIN32
    (void)config;
    if (install || uninstall || service) {
        fprintf(stderr, "lg-agent: the service options are for Windows; on Linux run lg-agent "
                        "--config FILE under systemd\n");
        return 2;
    }
#else
    char err[1024];
    if (uninstall) {
        if (lg_service_uninstall(err, sizeof err) != 0) {
            fprintf(stderr, "lg-agent: %s\n", err);
            return 1;
        }
        printf("service \"%s\" removed\n", LG_SERVICE_NAME);
        return 0;
    }
#endif
    int rc = s_parse(line->argc, line->argv, cl);
    const lg_agent_config_t *cfg = &cl->cfg;
    FILE *log = NULL;
    if (rc == 0 && cl->log_file && !install && !(log = s_open_log(cl->log_file)))
        rc = 2;
    int handled = 0; /* by a service option (Windows) */
#ifdef _WIN32
    handled = rc == 0 && (install || service);
    if (rc == 0 && install) {
        if (!config || !lg_plat_path_absolute(config)) {
            fprintf(stderr, "lg-agent: --install-service needs --config FILE by absolute path\n");
            rc = 2;
        } else if (lg_service_install(config, err, sizeof err) != 0) {
            fprintf(stderr, "lg-agent: %s\n", err);
            rc = 1;
        } else {
            printf("service \"%s\" installed (automatic start) with %s\n", LG_SERVICE_NAME, config);
        }
    } else if (rc == 0 && service) {
        rc = lg_service_run(cfg);
    }
#endif
    if (!handled && rc == 0)
        rc = lg_agent_main(cfg) == 0 ? 0 : 1;
    else if (!handled && rc == 1) /* --help */
        rc = 0;
    lg_log_set_file(NULL);
    if (log)
        fclose(log);
    return rc;
}

/* The command line with --config FILE's options in front (lg_cmdline_load), then s_run. */
static int s_main(int argc, char **argv)
{
    lg_agent_cmdline_t cl;
    memset(&cl, 0, sizeof cl);
    lg_cmdline_t line;
    char err[1024];
    int rc = lg_cmdline_load(&line, &lg_agent_opts, argc, argv, &cl, &cl.config, err, sizeof err);
    if (rc) {
        fprintf(stderr, "lg-agent: %s\n", err);
        rc = 2;
    } else {
        rc = s_run(&line, &cl);
    }
    lg_cmdline_clear(&line);
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
#ifndef _WIN32
    /* Only the agent puts a start gate into fio's environment (agent_gate.c): one this agent was
     * started with would hold its layout fio at a gate nobody opens. */
    unsetenv("LG_FIO_GATE");
#endif
    lg_log_init("lg-agent");
    lg_log_set_timestamps(1);
    return s_main(argc, argv);
}
