/* appfs.c: the filesystem and network checks of an application run (see appfs.h). Folders are
 * reached only through descriptors held since we made them, so that a link or a mount put in
 * their place meanwhile is never followed. */
#include "appfs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lg_error.h"
#include "lg_util.h"

#define RM_DEPTH 64

/* ---- removing a folder we made: never through a link, never onto another filesystem ---- */

static int s_rm_below(int dfd, dev_t dev, int depth, char *err, size_t errlen)
{
    if (depth > RM_DEPTH) {
        snprintf(err, errlen, "more than %d levels of folders", RM_DEPTH);
        return -ELOOP;
    }
    int dup_fd = dup(dfd);
    DIR *d = dup_fd >= 0 ? fdopendir(dup_fd) : NULL;
    if (!d) {
        if (dup_fd >= 0)
            close(dup_fd);
        snprintf(err, errlen, "could not read a folder: %s", strerror(errno));
        return -errno;
    }
    int rc = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        struct stat st;
        if (fstatat(dfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0)
            continue; /* gone meanwhile */
        if (S_ISDIR(st.st_mode)) {
            if (st.st_dev != dev) {
                snprintf(err, errlen, "\"%s\" is another filesystem mounted inside: left alone",
                         e->d_name);
                rc = -EXDEV;
                continue;
            }
            int sub = openat(dfd, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            if (sub < 0)
                continue;
            int r2 = s_rm_below(sub, dev, depth + 1, err, errlen);
            close(sub);
            if (r2 == 0 && unlinkat(dfd, e->d_name, AT_REMOVEDIR) != 0)
                r2 = -errno;
            if (r2 && !rc)
                rc = r2;
        } else if (unlinkat(dfd, e->d_name, 0) != 0 && errno != ENOENT && !rc) {
            rc = -errno;
            snprintf(err, errlen, "could not remove \"%s\": %s", e->d_name, strerror(errno));
        }
    }
    closedir(d);
    return rc;
}

int lg_appfs_folder_rm(lg_appfs_folder_t *f, char *err, size_t errlen)
{
    struct stat held, now;
    if (f->fd < 0 || fstat(f->fd, &held) != 0)
        return 0;
    int rc = s_rm_below(f->fd, held.st_dev, 0, err, errlen);
    if (fstatat(f->pfd, f->name, &now, AT_SYMLINK_NOFOLLOW) != 0 || now.st_dev != held.st_dev ||
        now.st_ino != held.st_ino) {
        snprintf(err, errlen, "\"%s\" is no longer the folder lg made: left alone", f->path);
        return LG_EDENIED;
    }
    if (rc == 0 && unlinkat(f->pfd, f->name, AT_REMOVEDIR) != 0) {
        rc = -errno;
        snprintf(err, errlen, "could not remove \"%s\": %s", f->path, strerror(errno));
    }
    return rc;
}

void lg_appfs_folder_close(lg_appfs_folder_t *f)
{
    if (f->fd >= 0)
        close(f->fd);
    if (f->pfd >= 0)
        close(f->pfd);
    f->fd = f->pfd = -1;
}

int lg_appfs_folder_make(lg_appfs_folder_t *f, int pfd, const char *parent, const char *name,
                         int give, uid_t uid, gid_t gid, char *err, size_t errlen)
{
    f->pfd = pfd;
    f->fd = -1;
    lg_strlcpy(f->name, name, sizeof f->name);
    snprintf(f->path, sizeof f->path, "%s/%s", strcmp(parent, "/") ? parent : "", name);
    if (mkdirat(pfd, name, 0700) != 0) {
        int e = -errno;
        snprintf(err, errlen, "could not create \"%s\": %s%s", f->path, strerror(-e),
                 e == -EEXIST ? " (lg never reuses or removes what it did not make; remove it "
                                "or choose another run)"
                              : "");
        lg_appfs_folder_close(f);
        return e;
    }
    struct stat st;
    f->fd = openat(pfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    int rc = 0;
    if (f->fd < 0 || fstat(f->fd, &st) != 0)
        rc = -errno;
    else if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid())
        rc = LG_EDENIED;
    else if ((give && fchown(f->fd, uid, gid) != 0) || fchmod(f->fd, 0700) != 0)
        rc = -errno;
    if (rc) {
        snprintf(err, errlen,
                 "\"%s\" is not the folder lg just made, or could not be given to "
                 "the application user: %s",
                 f->path, lg_strerror(rc));
        if (f->fd >= 0) /* made by us and empty: only an empty folder goes */
            unlinkat(pfd, name, AT_REMOVEDIR);
        lg_appfs_folder_close(f);
        return rc;
    }
    return 0;
}

int lg_appfs_reachable(uid_t uid, gid_t gid, const char *dir, char *bad, size_t blen)
{
    char p[1100];
    lg_strlcpy(p, dir, sizeof p);
    size_t n = strlen(p);
    for (size_t i = 1; i <= n; i++) {
        if (p[i] != '/' && p[i] != 0)
            continue;
        char c = p[i];
        p[i] = 0;
        struct stat st;
        int ok = stat(p, &st) == 0 &&
                 ((st.st_uid == uid && (st.st_mode & S_IXUSR)) ||
                  (st.st_uid != uid && st.st_gid == gid && (st.st_mode & S_IXGRP)) ||
                  (st.st_uid != uid && st.st_gid != gid && (st.st_mode & S_IXOTH)));
        if (!ok) {
            lg_strlcpy(bad, p, blen);
            return 0;
        }
        p[i] = c;
    }
    return 1;
}

/* ---- TCP: the servers must have no listening socket ---- */

int lg_appfs_tcp_listens(int pid, char *what, size_t wlen)
{
    char dir[64];
    snprintf(dir, sizeof dir, "/proc/%d/fd", pid);
    DIR *d = opendir(dir);
    if (!d) {
        snprintf(what, wlen, "could not read \"%s\": %s", dir, strerror(errno));
        return -1;
    }
    unsigned long inodes[256];
    size_t ni = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL && ni < 256) {
        char link[64 + 256], tgt[64];
        snprintf(link, sizeof link, "%s/%s", dir, e->d_name);
        ssize_t n = readlink(link, tgt, sizeof tgt - 1);
        if (n <= 0)
            continue;
        tgt[n] = 0;
        unsigned long ino;
        if (sscanf(tgt, "socket:[%lu]", &ino) == 1)
            inodes[ni++] = ino;
    }
    closedir(d);
    const char *tables[] = {"/proc/net/tcp", "/proc/net/tcp6"};
    for (size_t t = 0; t < 2; t++) {
        FILE *f = fopen(tables[t], "r");
        if (!f)
            continue;
        char l[512];
        while (fgets(l, sizeof l, f)) {
            char local[128];
            unsigned st;
            unsigned long ino;
            /* sl local rem st tx:rx tr:when retrnsmt uid timeout inode */
            if (sscanf(l, " %*s %127s %*s %x %*s %*s %*s %*s %*s %lu", local, &st, &ino) != 3 ||
                st != 0x0A)
                continue;
            for (size_t i = 0; i < ni; i++)
                if (inodes[i] == ino) {
                    snprintf(what, wlen, "it listens on TCP (%s %s)", tables[t], local);
                    fclose(f);
                    return 1;
                }
        }
        fclose(f);
    }
    return 0;
}
