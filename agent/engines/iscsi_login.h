/* iscsi_login.h: an iSCSI session as lg opens one, shared by the lgiscsi engine and the agent's
 * read-back (readback.c): initiator name, a fresh ISID, CHAP from a credentials file (creds.h),
 * digests, and a connect and login bounded in time that keeps libiscsi's first reason. */
#ifndef LG_ENGINE_ISCSI_LOGIN_H
#define LG_ENGINE_ISCSI_LOGIN_H

#include <stddef.h>
#include <stdint.h>

#include <iscsi/iscsi.h>

#include "creds.h"

/* The initiator lgiscsi logs in as unless its initiator= option says otherwise: the target's
 * ACLs see the same name for a run and for its read-back. */
#define LG_ISCSI_DEFAULT_INITIATOR "iqn.2026-11.lg:initiator"
/* Login, READ CAPACITY and logout are bounded so that a target that accepts TCP but never
 * answers fails the caller instead of hanging it. */
#define LG_ISCSI_LOGIN_TIMEOUT_S 30
#define LG_ISCSI_LOGOUT_TIMEOUT_S 5
/* iscsi_which_events() returning 0 means "wait >= 100 ms" (reconnect back-off); libiscsi also
 * scans its timeouts only from iscsi_service(), so never sleep in poll() for longer than 1 s. */
#define LG_ISCSI_MAX_POLL_MS 1000

/* The CHAP user and password from the credentials file path into c (cleared first); both are
 * needed. Returns 0 or an errno value with the message, naming the file, in err. */
int lg_iscsi_read_chap(const char *path, lg_creds_t *c, char *err, size_t errlen);

/* A context for initiator with a random ISID (qualifier: its low bits), so that sessions of
 * sibling processes or of an earlier run are never taken over. NULL when out of memory. Caller
 * owns the result (lg_iscsi_logout). */
struct iscsi_context *lg_iscsi_context_new(const char *initiator, uint32_t qualifier);

/* TCP connect, login (with CHAP when chap is not NULL) and TEST UNIT READY of url's LUN, as
 * iscsi_full_connect_sync() does, but with a deadline of LG_ISCSI_LOGIN_TIMEOUT_S that covers
 * the TCP connect too, and keeping libiscsi's first reason for a failure ("Connection refused").
 * Leaves ctx's command timeout at LG_ISCSI_LOGIN_TIMEOUT_S. Returns 0, or an errno value with
 * the reason in why. */
int lg_iscsi_login(struct iscsi_context *ctx, const struct iscsi_url *url, const lg_creds_t *chap,
                   char *why, size_t why_len);

/* Log out (bounded by LG_ISCSI_LOGOUT_TIMEOUT_S) if logged in, and destroy the context. Takes
 * ownership of *ctx_p and sets it to NULL. */
void lg_iscsi_logout(struct iscsi_context **ctx_p);

/* CLOCK_MONOTONIC in milliseconds. */
int64_t lg__iscsi_now_ms(void);

#endif
