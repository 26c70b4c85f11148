/* options.h: lg-agent's options, each written once (lg_opt.h): its command line, --help,
 * lg-agent(8)'s OPTIONS and the keys of its --config file (/etc/lg/agent.yaml) come from this
 * one table. */
#ifndef LG_AGENT_OPTIONS_H
#define LG_AGENT_OPTIONS_H

#include "agent.h"
#include "lg_opt.h"

/* What lg-agent's command line sets: the agent's config, and what main does itself. Strings
 * point into the argv parsed. */
typedef struct {
    lg_agent_config_t cfg;
    const char *log_file;            /* --log-file */
    const char *config;              /* --config FILE, taken first (lg_opt_early) */
    int install, uninstall, service; /* Windows' service verbs, likewise */
} lg_agent_cmdline_t;

/* Parsed into an lg_agent_cmdline_t. */
extern const lg_optset_t lg_agent_opts;

#endif
