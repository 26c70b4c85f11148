/* lgctl.h: pieces of lgctl shared between its main and local mode. */
#ifndef LG_LGCTL_H
#define LG_LGCTL_H

#include <stddef.h>
#include <stdint.h>

#include "lg.pb-c.h"
#include "table.h"

/* Exit codes: 0 ok, 1 failure, 2 bad usage or a broken spec. */
#define LGCTL_OK 0
#define LGCTL_FAIL 1
#define LGCTL_USAGE 2

typedef struct {
    const char *data_dir;   /* --data-dir or the default */
    const char *controller; /* --controller or $LG_CONTROLLER; NULL = local mode */
    const char *database;   /* $LG_DATABASE_URL; NULL = the private cluster */
    int quiet;
    int allow_destructive;  /* local mode: the agent may overwrite block: targets */
    const char *submit_id;  /* submit: the client-chosen id of the submission */
    const char *smb_credentials; /* local mode: the agent's --smb-credentials FILE */
    const char *iscsi_chap;      /* local mode: the agent's --iscsi-chap FILE */
    const char *app_user;        /* local mode: the agent's --app-user USER */
    const char *key_file;        /* --key or $LG_KEY: our CURVE key pair */
    const char *controller_key;  /* --controller-key or $LG_CONTROLLER_KEY */
    int plaintext;               /* --plaintext: no CURVE towards a loopback controller */
    lg_format_t format;          /* --format of report, plan and run's report */
} lgctl_opts_t;

/* A DEALER socket to the controller's control endpoint, with CURVE from o's keys, or in
 * plaintext when local (the local-mode controller, on loopback or ipc) or o->plaintext; NULL
 * with a message on failure. Close it with lgctl_close. */
void *lgctl_connect(void *zctx, const char *endpoint, const lgctl_opts_t *o, int local);
void lgctl_close(void *sock);
/* One request/reply with the controller. Caller owns *reply (lg_wire_free the envelope held in
 * *env_out). Returns 0, LG_ETIMEOUT or a negative error. */
int lgctl_call(void *sock, Lg__CtlRequest *req, Lg__Envelope **env_out, int timeout_ms);
/* Submit spec to the controller at endpoint, wait until the campaign ends and return its id in
 * *campaign_id; progress goes to stderr. Returns an LGCTL_* exit code. */
int lgctl_submit_and_wait(const lgctl_opts_t *o, void *sock, const char *spec_path,
                          const char *text, uint64_t *campaign_id, int (*alive)(void *),
                          void *alive_arg);
/* Local mode of "lgctl run". Returns an LGCTL_* exit code. */
int lgctl_local_run(const lgctl_opts_t *o, const char *spec_path, const char *text);
/* Print the report of a campaign (0 with name NULL: the newest) from the database. */
int lgctl_report(const lgctl_opts_t *o, uint64_t campaign_id, const char *name);
/* Flag set by SIGINT/SIGTERM. */
extern volatile int lgctl_interrupted;

#endif
