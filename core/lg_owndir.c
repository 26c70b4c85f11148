/* lg_owndir.c: folders that are lg's own and files created anew in them (see lg_owndir.h). */
#include "lg_owndir.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lg_error.h"
#include "lg_util.h"

#ifdef _WIN32
#include <io.h>

int lg_owndir(const char *path, unsigned mode, unsigned flags, char *real, size_t reallen,
              char *err, size_t errlen)
{
    (void)flags;
    int rc = lg_mkdirs(path, mode);
    if (rc) {
        snprintf(err, errlen, "could not create \"%s\": %s", path, lg_strerror(rc));
        return rc;
    }
    if (!_fullpath(real, path, reallen))
        lg_strlcpy(real, path, reallen);
    return 0;
}

int lg_create_new(const char *path, unsigned mode)
{
    (void)mode;
    if (_unlink(path) != 0 && errno != ENOENT)
        return -errno;
    int fd = _open(path, _O_WRONLY | _O_CREAT | _O_EXCL | _O_BINARY | _O_NOINHERIT, 0600);
    return fd >= 0 ? fd : -errno;
}

FILE *lg_create_new_file(const char *path, unsigned mode)
{
    int fd = lg_create_new(path, mode);
    if (fd < 0) {
        errno = -fd;
        return NULL;
    }
    FILE *f = _fdopen(fd, "wb");
    if (!f)
        _close(fd);
    return f;
}

#else
#include <pwd.h>
#include <unistd.h>

static const char *s_user(unsigned uid, char *buf, size_t len)
{
    struct passwd *pw = getpwuid((uid_t)uid);
    if (pw)
        snprintf(buf, len, "uid %u (%s)", uid, pw->pw_name);
    else
        snprintf(buf, len, "uid %u (no such user)", uid);
    return buf;
}

/* One folder of the resolved path: the last (is_last) must be ours, the others root's or ours
 * and, if others can write them, sticky. */
static int s_check(const char *dir, const char *whole, int is_last, unsigned flags, char *err,
                   size_t errlen)
{
    struct stat st;
    if (lstat(dir, &st) != 0) {
        int rc = -errno;
        snprintf(err, errlen, "could not check \"%s\": %s", dir, strerror(errno));
        return rc;
    }
    uid_t me = geteuid();
    char who[128], mine[128];
    if (!S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "\"%s\" is not a folder (it changed while it was checked): refused",
                 dir);
        return LG_EDENIED;
    }
    if (is_last) {
        int owner_ok = st.st_uid == me || ((flags & LG_OWNDIR_ROOT_OK) && st.st_uid == 0);
        if (!owner_ok) {
            snprintf(err, errlen,
                     "\"%s\" belongs to %s, not to %s: refused (whoever owns a folder can "
                     "redirect what is written there); use a folder of your own or remove it",
                     dir, s_user(st.st_uid, who, sizeof who), s_user(me, mine, sizeof mine));
            return LG_EDENIED;
        }
        if (st.st_mode & 022) {
            snprintf(err, errlen,
                     "\"%s\" is writable by %s (mode %04o): refused (another user could replace "
                     "what is written there); chmod go-w it or use another folder",
                     dir, (st.st_mode & 002) ? "others" : "its group",
                     (unsigned)(st.st_mode & 07777));
            return LG_EDENIED;
        }
        return 0;
    }
    if (st.st_uid != 0 && st.st_uid != me) {
        snprintf(err, errlen,
                 "\"%s\" is inside \"%s\", which belongs to %s: refused (its owner could rename "
                 "the folder and put another in its place); use a folder outside it",
                 whole, dir, s_user(st.st_uid, who, sizeof who));
        return LG_EDENIED;
    }
    if ((st.st_mode & 022) && !(st.st_mode & S_ISVTX)) {
        snprintf(err, errlen,
                 "\"%s\" is inside \"%s\", which %s can write (mode %04o, not sticky): refused "
                 "(they could rename the folder and put another in its place)",
                 whole, dir, (st.st_mode & 002) ? "everyone" : "its group",
                 (unsigned)(st.st_mode & 07777));
        return LG_EDENIED;
    }
    return 0;
}

int lg_owndir(const char *path, unsigned mode, unsigned flags, char *real, size_t reallen,
              char *err, size_t errlen)
{
    int rc = lg_mkdirs(path, mode);
    if (rc) {
        snprintf(err, errlen, "could not create \"%s\": %s", path, lg_strerror(rc));
        return rc;
    }
    char *r = realpath(path, NULL);
    if (!r) {
        rc = -errno;
        snprintf(err, errlen, "could not resolve \"%s\": %s", path, strerror(errno));
        return rc;
    }
    if (strlen(r) >= reallen) {
        snprintf(err, errlen, "\"%s\" resolves to a path too long (%zu bytes)", path, strlen(r));
        free(r);
        return -ENAMETOOLONG;
    }
    /* From the top down: "/", "/var", "/var/lib", ... then the folder itself. */
    char part[4096];
    size_t n = strlen(r);
    if (n > 1)
        rc = s_check("/", r, 0, flags, err, errlen);
    for (size_t i = 1; i < n && rc == 0; i++) {
        if (r[i] != '/')
            continue;
        memcpy(part, r, i);
        part[i] = 0;
        rc = s_check(part, r, 0, flags, err, errlen);
    }
    if (rc == 0)
        rc = s_check(r, r, 1, flags, err, errlen);
    if (rc == 0)
        lg_strlcpy(real, r, reallen);
    free(r);
    return rc;
}

int lg_create_new(const char *path, unsigned mode)
{
    if (unlink(path) != 0 && errno != ENOENT)
        return -errno;
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, (mode_t)mode);
    return fd >= 0 ? fd : -errno;
}

FILE *lg_create_new_file(const char *path, unsigned mode)
{
    int fd = lg_create_new(path, mode);
    if (fd < 0) {
        errno = -fd;
        return NULL;
    }
    FILE *f = fdopen(fd, "wb");
    if (!f) {
        int e = errno;
        close(fd);
        errno = e;
    }
    return f;
}
#endif
