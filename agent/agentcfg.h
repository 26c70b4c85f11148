/* agentcfg.h: the agent's configuration (what lg-agent's options and --config FILE set: see
 * options.c) and what it allows: targets under --allow, whole devices only with
 * --allow-destructive, labels. The daemon (agent.c) and application runs (apprun.c) read it. */
#ifndef LG_AGENTCFG_H
#define LG_AGENTCFG_H

#include <stddef.h>
#include <stdint.h>

#include "lg.pb-c.h"

#define LG_AGENT_MAX_ALLOW 64

#define LG_AGENT_MAX_LABELS 16
#define LG_AGENT_NAME_MAX 64 /* with its terminating zero */

/* Validate one --label: KEY=VALUE, KEY [a-z0-9_-]{1,31}, VALUE 1..63 printable characters. */
int lg_agent_label_ok(const char *label);

typedef struct {
    const char *controller;                /* ZeroMQ endpoint, e.g. tcp://127.0.0.1:5601 */
    const char *name;                      /* agent name: under CURVE, its key's name */
    const char *allow[LG_AGENT_MAX_ALLOW]; /* absolute directories or files targets must be in */
    size_t nallow;
    const char *fio;                         /* fio binary; default "fio" */
    const char *work_dir;                    /* where job files are written */
    uint32_t heartbeat_ms;                   /* default 1000 */
    int allow_destructive;                   /* runs may write to whole block devices */
    const char *labels[LG_AGENT_MAX_LABELS]; /* "key=value": campaigns select agents by them */
    size_t nlabels;
    uint32_t controller_timeout_ms; /* controller silent this long: lost (default 5 beats) */
    const char *engine_dir;         /* lgsmb.so, lgiscsi.so; default BIN/../lib/lg/engines */
    const char *smb_credentials;    /* smbclient-format file for smb:// targets */
    const char *iscsi_chap;         /* CHAP user and password for iscsi:// targets */
    const char *key_file;           /* our CURVE key pair */
    const char *controller_key;     /* the controller's public key: the only one we obey */
    int plaintext;                  /* no CURVE: loopback or ipc controller only */
    const char *app_user;           /* the account application benchmarks' database
                                     * servers run as (required when running as root) */
    const char *pg_bindir;          /* PostgreSQL's server programs; default: the newest
                                     * /usr/lib/postgresql/N/bin with initdb */
    uint32_t smb_keep_s;            /* lgsmb's sessions kept this long after a run for the
                                     * next run of the same target; 0: logged off at its end */
} lg_agent_config_t;

/* --smb-keep-sessions' default, in seconds. */
#define LG_AGENT_SMB_KEEP_S 60

/* May the run use its block device target? (consent to overwrite, a block device, big enough)
 * Returns 0, or LG_EDENIED / -errno with the reason in err. */
int lg_agent_check_block(const lg_agent_config_t *cfg, const Lg__RunSpec *spec, char *err,
                         size_t errlen);
/* The same for a target that resolved to the device dev: writing to it needs consent, and it
 * must be a block device large enough. */
int lg_agent_check_device(const lg_agent_config_t *cfg, const Lg__RunSpec *spec, const char *dev,
                          char *err, size_t errlen);
/* Is path inside one of the allowed prefixes? (both normalised, no ".."; smb:// and iscsi://
 * URLs under an allowed URL prefix) */
int lg_agent_path_allowed(const lg_agent_config_t *cfg, const char *path);

#endif
