/* lg_fs.h: is a target what its spec says? A file target labelled smb must sit on an SMB share,
 * nfs on NFS, iscsi on a disk of an iSCSI session: otherwise an unmounted share's empty mount
 * point, or a typo, turns a NAS review into a benchmark of the load host's own disk under the
 * NAS's name. The platform layer gathers the facts (lg_fs_facts_t); this file decides. */
#ifndef LG_FS_H
#define LG_FS_H

#include <stddef.h>

typedef enum { LG_FS_ANY, LG_FS_CIFS, LG_FS_NFS, LG_FS_ISCSI, LG_FS_LOCAL } lg_fs_kind_t;

/* What a target must sit on: the spec's fs: when given ("cifs", "nfs", "iscsi", "local",
 * "any"), else by its protocol label: smb and cifs need an SMB share, nfs an NFS mount, iscsi a
 * disk of an iSCSI session; any other label (local, file, block, null, ...) anything. */
lg_fs_kind_t lg_fs_expect(const char *protocol, const char *fs);
const char *lg_fs_kind_name(lg_fs_kind_t k);

/* Where a path really sits, as the platform sees it. */
typedef struct {
    char type[32];    /* "cifs", "smb3", "nfs4", "ext4", "tmpfs", "overlay"; Windows: "NTFS" */
    char mount[1024]; /* the mount point (Windows: the volume root or \\server\share\) */
    int smb, nfs;     /* an SMB or NFS filesystem */
    int network;      /* any network filesystem */
    int iscsi;        /* its disk belongs to an iSCSI session */
    int known;        /* the facts could be gathered at all */
} lg_fs_facts_t;

/* 0 when the target at path with facts f is what want and mount (NULL or "": no mount point
 * asked) say; else LG_EDENIED with err naming the target, where it really is and what to write in
 * the spec if it is meant (fs: any). */
int lg_fs_check(const char *path, const char *protocol, lg_fs_kind_t want, const char *mount,
                const lg_fs_facts_t *f, char *err, size_t errlen);

#endif
