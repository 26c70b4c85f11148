/* lgctl.h: what every part of lgctl shares: its options, its exit codes, the interrupt flag
 * (ctl.c) and local mode's entry (local.c). */
#ifndef LG_LGCTL_H
#define LG_LGCTL_H

#include "dbcli.h"
#include "render.h"

/* Exit codes: 0 ok, 1 failure, 2 bad usage or a broken spec. */
#define LGCTL_OK 0
#define LGCTL_FAIL 1
#define LGCTL_USAGE 2

typedef struct {
    lg_dbcli_t db;          /* data_dir: --data-dir or local mode's folder; url: $LG_DATABASE_URL,
                             * NULL: data_dir's private cluster */
    const char *controller; /* --controller or $LG_CONTROLLER; NULL = local mode */
    int quiet;
    int allow_destructive;       /* local mode: the agent may overwrite block: targets */
    const char *submit_id;       /* submit: the client-chosen id of the submission */
    const char *smb_credentials; /* local mode: the agent's --smb-credentials FILE */
    const char *iscsi_chap;      /* local mode: the agent's --iscsi-chap FILE */
    const char *app_user;        /* local mode: the agent's --app-user USER */
    const char *operator_file;   /* the operator's probes and credentials (--operator), or NULL */
    const char *key_file;        /* --key or $LG_KEY: our CURVE key pair */
    const char *controller_key;  /* --controller-key or $LG_CONTROLLER_KEY */
    int plaintext;               /* --plaintext: no CURVE towards a loopback controller */
    lg_format_t format;          /* --format of report, plan and run's report */
} lgctl_opts_t;

/* The operator's file of probes and credentials (--operator, else /etc/lg/operator.yaml as
 * root, else ~/.config/lg/operator.yaml, when it exists): its path (into buf when it is the
 * default), or NULL for none (cmd_plan.c). */
const char *lg__cli_operator_path(const lgctl_opts_t *o, char *buf, size_t len);
/* Local mode of "lgctl run". Returns an LGCTL_* exit code. */
int lgctl_local_run(const lgctl_opts_t *o, const char *spec_path, const char *text);
/* Flag set by SIGINT/SIGTERM (main wires it: lg_dbcli_start); every wait of lgctl's
 * ends on it, db/'s too. */
extern volatile int lgctl_interrupted;

#endif
