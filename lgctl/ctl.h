/* ctl.h: lgctl's connection to a controller (ctl.c), for its commands and for local mode. */
#ifndef LG_LGCTL_CTL_H
#define LG_LGCTL_CTL_H

#include <stddef.h>
#include <stdint.h>

#include "lg.pb-c.h"
#include "lgctl.h"

/* A DEALER socket to the controller's control endpoint, with CURVE from o's keys, or in
 * plaintext when local (the local-mode controller, on loopback or ipc) or o->plaintext; NULL
 * with a message on failure. Close it with lgctl_close. */
void *lgctl_connect(void *zctx, const char *endpoint, const lgctl_opts_t *o, int local);
void lgctl_close(void *sock);
/* One request/reply with the controller. Caller owns *reply (lg_wire_envelope_destroy the envelope
 * held in *env_out). Returns 0, LG_ETIMEOUT or a negative error. */
int lgctl_call(void *sock, Lg__CtlRequest *req, Lg__Envelope **env_out, int timeout_ms);
/* One request to the controller (--controller or the local one of a run in progress). Returns 0
 * with *reply (the caller destroys it: lg_wire_envelope_destroy; its code may still be an error),
 * or LGCTL_FAIL after saying why. */
int lgctl_ctl_request(const lgctl_opts_t *o, Lg__CtlRequest *q, int timeout_ms,
                      Lg__Envelope **reply);
/* After a submission that got no answer: the hint that tells how to find out, by the submit id
 * lgctl_call gave it, whether it was made. */
void lgctl_submit_unanswered(const char *spec_path);
/* Submit spec to the controller at endpoint, wait until the campaign ends and return its id in
 * *campaign_id; progress goes to stderr. Returns an LGCTL_* exit code. */
int lgctl_submit_and_wait(const lgctl_opts_t *o, void *sock, const char *spec_path,
                          const char *text, uint64_t *campaign_id, int (*alive)(void *),
                          void *alive_arg);
/* Wait until campaign cid ends (its progress to stderr, as lgctl_submit_and_wait). LGCTL_OK when
 * every point gave figures, else LGCTL_FAIL. */
int lgctl_wait_campaign(const lgctl_opts_t *o, void *sock, uint64_t cid, int (*alive)(void *),
                        void *alive_arg);
/* A progress bar of width characters, '#' for the done fraction frac, into buf (width + 1). */
void lgctl_bar(char *buf, size_t width, double frac);

#endif
