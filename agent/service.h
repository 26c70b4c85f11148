/* service.h: lg-agent as a Windows service (service_win.c): installed to run
 * "lg-agent.exe --service --config FILE" at boot under the service control manager, which
 * starts it, stops it and tells it when the machine shuts down. */
#ifndef LG_SERVICE_H
#define LG_SERVICE_H

#include <stddef.h>

#include "agent.h"

#define LG_SERVICE_NAME "lg-agent"

/* Register the service (automatic start) for this executable with config (an absolute path).
 * Returns 0, or -1 with err saying why (e.g. not an administrator). */
int lg_service_install(const char *config, char *err, size_t errlen);
/* Stop the service if it runs and remove it. */
int lg_service_uninstall(char *err, size_t errlen);
/* Run cfg's agent under the service control manager until it is stopped. Returns the process
 * exit code. */
int lg_service_run(const lg_agent_config_t *cfg);

#endif
