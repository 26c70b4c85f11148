/* smbctx.h: a libsmbclient context as lg sets one up, shared by the lgsmb engine and the agent's
 * read-back (readback.c): the credentials file's user (creds.h) through the authentication
 * callback, no fallback to anonymous when there is one, a range of dialects and a timeout. */
#ifndef LG_ENGINE_SMBCTX_H
#define LG_ENGINE_SMBCTX_H

#include <stddef.h>

#include <libsmbclient.h>

#include "creds.h"

/* The lowest and highest dialects lgsmb negotiates by default (its smb_min_protocol option). */
#define LG_SMBCTX_MIN_PROTOCOL "SMB2_02"
#define LG_SMBCTX_MAX_PROTOCOL "SMB3"

/* A new, uninitialised context in *out, so that the caller may set its debug level and log
 * callback first. Returns 0 or a negative errno value with the message in err. Caller owns
 * *out (smbc_free_context). Like every libsmbclient call, one thread at a time. */
int lg_smbctx_new(SMBCCTX **out, char *err, size_t errlen);

/* Initialise ctx made by lg_smbctx_new: log on as creds (NULL: the user in the URL, else a
 * guest; not NULL: a refused logon fails rather than fall back to anonymous), negotiate
 * min_protocol (NULL: LG_SMBCTX_MIN_PROTOCOL) up to LG_SMBCTX_MAX_PROTOCOL, bound each call by
 * timeout_ms (0: libsmbclient's default). creds must outlive ctx; ctx stays the caller's, also
 * on failure. Returns 0 or a negative errno value with the message in err. */
int lg_smbctx_init(SMBCCTX *ctx, const lg_creds_t *creds, const char *min_protocol, int timeout_ms,
                   char *err, size_t errlen);

#endif
