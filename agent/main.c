/* main.c: lg-agent's command line. All behaviour lives in the lg_agent library. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent.h"
#include "lg_log.h"
#include "lg_util.h"

static void s_usage(FILE *f)
{
    fputs("usage: lg-agent --controller ENDPOINT [options]\n"
          "  --controller EP   controller's agent endpoint, e.g. tcp://10.0.0.5:5601\n"
          "  --name NAME       agent name (default: host name)\n"
          "  --allow PATH      a directory or file that runs may target (repeatable;\n"
          "                    no file target is allowed without one)\n"
          "  --fio PATH        fio binary (default: fio)\n"
          "  --work-dir DIR    where job files go (default: /var/tmp/lg-agent-NAME)\n"
          "  --heartbeat-ms N  heartbeat interval (default 1000)\n"
          "  --allow-destructive  let runs write to whole block devices (block: targets,\n"
          "                    which must also be under --allow); their data is destroyed\n"
          "  --verbose         debug logging\n",
          f);
}

int main(int argc, char **argv)
{
    lg_log_init("lg-agent");
    lg_agent_config_t cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.fio = "fio";
    char host[256] = "agent";
    gethostname(host, sizeof host - 1);
    cfg.name = host;
    char work[1100];
    for (int i = 1; i < argc; i++) {
        const char *o = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(o, "--help") == 0 || strcmp(o, "-h") == 0) {
            s_usage(stdout);
            return 0;
        } else if (strcmp(o, "--verbose") == 0) {
            lg_log_set_level(LG_LOG_DEBUG);
            continue;
        } else if (strcmp(o, "--allow-destructive") == 0) {
            cfg.allow_destructive = 1;
            continue;
        }
        if (!v) {
            fprintf(stderr, "lg-agent: option \"%s\" needs a value\n", o);
            return 2;
        }
        i++;
        if (strcmp(o, "--controller") == 0) {
            cfg.controller = v;
        } else if (strcmp(o, "--name") == 0) {
            cfg.name = v;
        } else if (strcmp(o, "--allow") == 0) {
            if (v[0] != '/' || cfg.nallow == LG_AGENT_MAX_ALLOW) {
                fprintf(stderr, "lg-agent: --allow \"%s\": need an absolute path (at most %d)\n",
                        v, LG_AGENT_MAX_ALLOW);
                return 2;
            }
            cfg.allow[cfg.nallow++] = v;
        } else if (strcmp(o, "--fio") == 0) {
            cfg.fio = v;
        } else if (strcmp(o, "--work-dir") == 0) {
            cfg.work_dir = v;
        } else if (strcmp(o, "--heartbeat-ms") == 0) {
            uint64_t n;
            if (lg_parse_u64(v, 10, 600000, &n) != 0) {
                fprintf(stderr, "lg-agent: --heartbeat-ms: \"%s\" is not an integer from 10 "
                                "to 600000\n", v);
                return 2;
            }
            cfg.heartbeat_ms = (uint32_t)n;
        } else {
            fprintf(stderr, "lg-agent: unknown option \"%s\"\n", o);
            s_usage(stderr);
            return 2;
        }
    }
    if (!cfg.controller) {
        fprintf(stderr, "lg-agent: --controller is required\n");
        s_usage(stderr);
        return 2;
    }
    if (strlen(cfg.name) == 0 || strlen(cfg.name) > 63) {
        fprintf(stderr, "lg-agent: --name must have 1 to 63 characters\n");
        return 2;
    }
    if (!cfg.work_dir) {
        snprintf(work, sizeof work, "/var/tmp/lg-agent-%s", cfg.name);
        cfg.work_dir = work;
    }
    int rc = lg_agent_main(&cfg);
    return rc == 0 ? 0 : 1;
}
