/* smbctx.c: see smbctx.h. Compiled into the lgsmb engine and into the agent, so that the
 * read-back of a run logs on exactly as the run did. */
#include "smbctx.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

int lg_smbctx_new(SMBCCTX **out, char *err, size_t errlen)
{
    *out = smbc_new_context();
    if (!*out) {
        int e = errno ? errno : ENOMEM;
        snprintf(err, errlen, "could not create an SMB context: %s", strerror(e));
        return -e;
    }
    return 0;
}

/* Hands out the credentials file's user; without one, the user in the URL or a guest. */
static void s_auth_cb(SMBCCTX *ctx, const char *srv, const char *shr, char *wg, int wglen, char *un,
                      int unlen, char *pw, int pwlen)
{
    (void)srv;
    (void)shr;
    const lg_creds_t *c = smbc_getOptionUserData(ctx);
    if (!c)
        return;
    if (c->domain[0])
        snprintf(wg, (size_t)wglen, "%s", c->domain);
    snprintf(un, (size_t)unlen, "%s", c->user);
    snprintf(pw, (size_t)pwlen, "%s", c->password);
}

int lg_smbctx_init(SMBCCTX *ctx, const lg_creds_t *creds, const char *min_protocol, int timeout_ms,
                   char *err, size_t errlen)
{
    smbc_setOptionUserData(ctx, (void *)creds);
    smbc_setFunctionAuthDataWithContext(ctx, s_auth_cb);
    smbc_setOptionNoAutoAnonymousLogin(ctx, creds != NULL);
    if (timeout_ms > 0)
        smbc_setTimeout(ctx, timeout_ms);
    if (!smbc_init_context(ctx)) {
        int e = errno ? errno : EIO;
        snprintf(err, errlen, "could not initialise libsmbclient: %s", strerror(e));
        return -e;
    }
    const char *minp = min_protocol && min_protocol[0] ? min_protocol : LG_SMBCTX_MIN_PROTOCOL;
    if (!smbc_setOptionProtocols(ctx, minp, LG_SMBCTX_MAX_PROTOCOL)) {
        snprintf(err, errlen, "smb_min_protocol \"%s\" is not an SMB dialect", minp);
        return -EINVAL;
    }
    return 0;
}
