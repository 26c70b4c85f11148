/* cmd_keygen.c: lgctl keygen: a CURVE key pair for talking to a controller (or for an agent
 * or a controller to use), in a private folder made if missing. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "lg_auth.h"
#include "lg_log.h"
#include "lg_util.h"

int lg__cli_keygen(void *ctx)
{
    cli_t *c = ctx;
    const char *keydir = c->dir ? c->dir : ".";
    char err[1024];
    /* a missing key folder is made, private (0700), with any missing parents */
    char dir[4096];
    lg_strlcpy(dir, keydir, sizeof dir);
    for (char *p = dir + 1;; p++) {
        int end = *p == 0;
        if (*p == '/' || end) {
            *p = 0;
            if (mkdir(dir, 0700) != 0 && errno != EEXIST) {
                lg_error("keygen: could not create the folder \"%s\": %s", dir, strerror(errno));
                return LGCTL_FAIL;
            }
            if (end)
                break;
            *p = '/';
        }
    }
    if (lg_auth_keygen(keydir, c->pos[0], err, sizeof err) != 0) {
        lg_error("keygen: %s", err);
        return LGCTL_FAIL;
    }
    printf("%s/%s.key: the key pair (secret: keep it on this host, mode 0600)\n"
           "%s/%s.pub: the public key, for the other side's allow-list or --controller-key\n",
           keydir, c->pos[0], keydir, c->pos[0]);
    return LGCTL_OK;
}
