/* controller.h: lg-controller, the daemon that keeps agents, schedules campaign runs and
 * streams every sample and result into PostgreSQL. */
#ifndef LG_CONTROLLER_H
#define LG_CONTROLLER_H

#include <stdint.h>

#include "hook.h" /* LG_HOOK_TIMEOUT_DEFAULT_S: hook_timeout_s's default */

typedef struct {
    const char *agent_bind;    /* ROUTER for agents, e.g. tcp://0.0.0.0:5601 or tcp://127.0.0.1:* */
    const char *ctl_bind;      /* ROUTER for lgctl */
    const char *conninfo;      /* libpq connection string */
    const char *ready_file;    /* if set: written with the bound endpoints once listening */
    uint32_t heartbeat_ms;     /* default 1000 */
    uint32_t agent_timeout_ms; /* an agent silent this long is lost; default 10000 */
    const char *hook;          /* shell command run between SUT configs (between_configs: hook) */
    const char *readback;      /* shell command that reads a config's settings back after the
                                * hook (lg_setcheck.h); NULL: none */
    const char *operator_file; /* the operator's probes and credentials (lg_operator.h);
                                * NULL: none, so no spec may name one */
    uint32_t hook_timeout_s;   /* a hook still running this long is stopped; 0: the default */
    const char *key_file;      /* our CURVE key pair (lgctl keygen) */
    const char *agent_keys;    /* allow-list of agents' public keys (file or folder of .pub) */
    const char *ctl_keys;      /* allow-list of lgctl users' public keys */
    int plaintext;             /* no CURVE: only with loopback or ipc endpoints (local mode) */
    uint32_t io_threads;       /* ZeroMQ I/O threads (CURVE, sockets); 0: 2 */
    const char *spool_dir;     /* samples the database cannot take now wait here; NULL: none */
    uint64_t spool_max;        /* bytes; 0: LG_SPOOL_MAX_DEFAULT */
} lg_controller_config_t;

/* The spool's size limit unless --spool-max says otherwise: about a day of samples of 16
 * agents at one a second (about 300 bytes a sample and direction). */
#define LG_SPOOL_MAX_DEFAULT (1024ull << 20)

/* Run until SIGINT/SIGTERM or a shutdown request. Returns 0 or a negative error (logged). */
int lg_controller_main(const lg_controller_config_t *cfg);

#endif
