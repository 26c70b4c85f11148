/* agent.h: lg-agent, the daemon on each load host. It registers with the controller, receives
 * structured run specs, runs fio on the targets its own config allows, and streams samples and
 * results back, keeping each until the controller acknowledges its commit. */
#ifndef LG_AGENT_H
#define LG_AGENT_H

#include "agentcfg.h"

/* Run the agent until SIGINT or SIGTERM. Returns 0 or a negative error (bad config, cannot reach
 * the socket layer); errors are logged. */
int lg_agent_main(const lg_agent_config_t *cfg);
/* Ask the running lg_agent_main to stop (as SIGTERM does); safe from any thread. */
void lg_agent_stop(void);

#endif
