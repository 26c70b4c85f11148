/* agentcfg.c: what the agent's configuration allows: a target path or URL under --allow, a
 * whole device only with --allow-destructive and big enough, a --label's form. */
#include "agentcfg.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "jobfile.h"
#include "lg_error.h"
#include "platform.h"

int lg_agent_check_device(const lg_agent_config_t *cfg, const Lg__RunSpec *spec, const char *dev,
                          char *err, size_t errlen)
{
    /* Writing to a whole device destroys what is on it: only with the agent's own consent,
     * whatever the target's spelling (block:, a plain path, a link to it). */
    int named = strcmp(dev, spec->target) != 0;
    if ((lg_jobfile_writes(spec) || spec->size_based) && !cfg->allow_destructive) {
        snprintf(err, errlen,
                 "run %llu would write to block device \"%s\"%s%s%s: this agent was not started "
                 "with --allow-destructive",
                 (unsigned long long)spec->run_id, dev, named ? " (target \"" : "",
                 named ? spec->target : "", named ? "\")" : "");
        return LG_EDENIED;
    }
    uint64_t bytes = 0;
    int rc = lg_plat_block_bytes(dev, &bytes, err, errlen);
    if (rc)
        return rc;
    if (bytes < spec->size || bytes - spec->size < spec->offset) {
        snprintf(err, errlen, "block target \"%s\" has %llu bytes, the run needs %llu",
                 spec->target, (unsigned long long)bytes,
                 (unsigned long long)(spec->offset + spec->size));
        return LG_EDENIED;
    }
    return 0;
}

int lg_agent_check_block(const lg_agent_config_t *cfg, const Lg__RunSpec *spec, char *err,
                         size_t errlen)
{
    return lg_agent_check_device(cfg, spec, spec->target, err, errlen);
}

int lg_agent_path_allowed(const lg_agent_config_t *cfg, const char *path)
{
    if (path && (strncmp(path, "smb://", 6) == 0 || strncmp(path, "iscsi://", 8) == 0)) {
        /* A URL: under an allowed URL prefix (smb://host:port/share, iscsi://host:port/iqn). */
        if (strstr(path, "/../") || strstr(path, "/./"))
            return 0;
        for (size_t i = 0; i < cfg->nallow; i++) {
            const char *a = cfg->allow[i];
            size_t n = strlen(a);
            while (n > 0 && a[n - 1] == '/')
                n--;
            if (strchr(a, ':') && n > 8 && strncmp(path, a, n) == 0 &&
                (path[n] == 0 || path[n] == '/'))
                return 1;
        }
        return 0;
    }
    for (size_t i = 0; path && i < cfg->nallow; i++)
        if (lg_plat_path_under(path, cfg->allow[i]))
            return 1;
    return 0;
}

int lg_agent_label_ok(const char *label)
{
    const char *eq = label ? strchr(label, '=') : NULL;
    if (!eq || eq == label || eq - label > 31 || !eq[1] || strlen(eq + 1) > 63)
        return 0;
    for (const char *p = label; p < eq; p++)
        if (!islower((unsigned char)*p) && !isdigit((unsigned char)*p) && *p != '_' && *p != '-')
            return 0;
    for (const char *p = eq + 1; *p; p++)
        if (!isprint((unsigned char)*p))
            return 0;
    return 1;
}
