/* lg_fs.c: the rule of lg_fs.h. */
#include "lg_fs.h"

#include <stdio.h>
#include <string.h>

#include "lg_error.h"

lg_fs_kind_t lg_fs_expect(const char *protocol, const char *fs)
{
    if (fs && fs[0]) {
        if (!strcmp(fs, "cifs") || !strcmp(fs, "smb"))
            return LG_FS_CIFS;
        if (!strcmp(fs, "nfs"))
            return LG_FS_NFS;
        if (!strcmp(fs, "iscsi"))
            return LG_FS_ISCSI;
        if (!strcmp(fs, "local"))
            return LG_FS_LOCAL;
        return LG_FS_ANY;
    }
    if (!protocol)
        return LG_FS_ANY;
    if (!strcmp(protocol, "smb") || !strcmp(protocol, "cifs"))
        return LG_FS_CIFS;
    if (!strcmp(protocol, "nfs"))
        return LG_FS_NFS;
    if (!strcmp(protocol, "iscsi"))
        return LG_FS_ISCSI;
    return LG_FS_ANY;
}

const char *lg_fs_kind_name(lg_fs_kind_t k)
{
    static const char *const n[] = {"any", "an SMB share", "an NFS mount",
                                    "a disk of an iSCSI session", "a local filesystem"};
    return k <= LG_FS_LOCAL ? n[k] : "?";
}

/* Is path the mount point m or below it? */
static int s_under(const char *path, const char *m)
{
    size_t n = strlen(m);
    while (n > 1 && (m[n - 1] == '/' || m[n - 1] == '\\'))
        n--;
    return strncmp(path, m, n) == 0 &&
           (path[n] == 0 || path[n] == '/' || path[n] == '\\' || (n == 1 && m[0] == '/'));
}

int lg_fs_check(const char *path, const char *protocol, lg_fs_kind_t want, const char *mount,
                const lg_fs_facts_t *f, char *err, size_t errlen)
{
    const char *proto = protocol && protocol[0] ? protocol : "?";
    if (mount && mount[0]) {
        if (!f->known) {
            snprintf(err, errlen,
                     "target \"%s\": the spec asks for mount point %s, and where the target sits "
                     "could not be found out on this host",
                     path, mount);
            return LG_EDENIED;
        }
        /* The mount point itself, not a folder below some other mount that happens to be
         * under the same path. */
        if (strcmp(f->mount, mount) != 0 &&
            !(s_under(f->mount, mount) && s_under(mount, f->mount))) {
            snprintf(err, errlen,
                     "target \"%s\" is on %s (%s), not on the mount point %s the spec asks for: "
                     "is the share mounted there?",
                     path, f->mount, f->type, mount);
            return LG_EDENIED;
        }
    }
    if (want == LG_FS_ANY)
        return 0;
    if (!f->known) {
        snprintf(err, errlen,
                 "target \"%s\" (protocol %s) must be on %s, and its filesystem could not be "
                 "found out on this host; write fs: any in the target's spec if it is meant",
                 path, proto, lg_fs_kind_name(want));
        return LG_EDENIED;
    }
    int ok = want == LG_FS_CIFS    ? f->smb
             : want == LG_FS_NFS   ? f->nfs
             : want == LG_FS_ISCSI ? f->iscsi
                                   : !f->network;
    if (ok)
        return 0;
    snprintf(err, errlen,
             "target \"%s\" (protocol %s) must be on %s, but it is on %s%s, mounted at %s: is the "
             "share mounted? (write fs: any in the target's spec if this is meant)",
             path, proto, lg_fs_kind_name(want), f->type,
             f->network ? " (a network filesystem)"
             : f->iscsi ? " (an iSCSI disk)"
                        : " (local)",
             f->mount);
    return LG_EDENIED;
}
