/* platform_posix.c: the agent's OS questions answered on Linux: /proc, /sys, getifaddrs, the
 * block device ioctl. */
#include "platform.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <limits.h>
#include <linux/fs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "lg_child.h"
#include "lg_error.h"
#include "lg_util.h"

static void s_read_cpu_model(char *buf, size_t len)
{
    lg_strlcpy(buf, "unknown", len);
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "model name", 10) == 0) {
            char *p = strchr(line, ':');
            if (p) {
                p += 1 + (p[1] == ' ');
                p[strcspn(p, "\n")] = 0;
                lg_strlcpy(buf, p, len);
            }
            break;
        }
    }
    fclose(f);
}

void lg_plat_host(lg_plat_host_t *h)
{
    struct utsname u;
    lg_strlcpy(h->os, "unknown", sizeof h->os);
    if (uname(&u) == 0)
        snprintf(h->os, sizeof h->os, "%s %s %s", u.sysname, u.release, u.machine);
    s_read_cpu_model(h->cpu, sizeof h->cpu);
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    h->ncpu = ncpu > 0 ? (uint32_t)ncpu : 0;
    long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGESIZE);
    h->mem_bytes = pages > 0 && psz > 0 ? (uint64_t)pages * (uint64_t)psz : 0;
}

static void s_read_sys(const char *ifname, const char *what, char *buf, size_t len)
{
    char path[128];
    buf[0] = 0;
    snprintf(path, sizeof path, "/sys/class/net/%s/%s", ifname, what);
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    if (!fgets(buf, (int)len, f))
        buf[0] = 0; /* a virtual link's speed reads as EINVAL */
    buf[strcspn(buf, "\n")] = 0;
    fclose(f);
}

void lg_plat_nics(lg_plat_nics_t *t)
{
    struct ifaddrs *ifa = NULL;
    t->n = 0;
    if (getifaddrs(&ifa) != 0)
        return;
    for (struct ifaddrs *i = ifa; i; i = i->ifa_next) {
        if (!i->ifa_name || (i->ifa_flags & IFF_LOOPBACK) || strlen(i->ifa_name) > IF_NAMESIZE)
            continue;
        size_t k = 0;
        while (k < t->n && strcmp(t->name[k], i->ifa_name) != 0)
            k++;
        if (k == t->n) {
            if (t->n == LG_PLAT_MAX_NICS)
                continue;
            Lg__Nic *n = &t->nic[k];
            lg__nic__init(n);
            lg_strlcpy(t->name[k], i->ifa_name, sizeof t->name[k]);
            n->name = t->name[k];
            char speed[32];
            s_read_sys(i->ifa_name, "speed", speed, sizeof speed);
            uint64_t v; /* "-1" or unreadable for virtual links: unknown, 0 */
            n->speed_mbps = lg_parse_u64(speed, 1, UINT32_MAX, &v) == 0 ? (uint32_t)v : 0;
            s_read_sys(i->ifa_name, "address", t->mac[k], sizeof t->mac[k]);
            n->mac = t->mac[k];
            n->addrs = t->addrp[k];
            t->ptr[k] = n;
            t->n++;
        }
        Lg__Nic *n = &t->nic[k];
        if (!i->ifa_addr || n->n_addrs == LG_PLAT_MAX_ADDRS)
            continue;
        const void *src = NULL;
        if (i->ifa_addr->sa_family == AF_INET)
            src = &((const struct sockaddr_in *)(const void *)i->ifa_addr)->sin_addr;
        else if (i->ifa_addr->sa_family == AF_INET6)
            src = &((const struct sockaddr_in6 *)(const void *)i->ifa_addr)->sin6_addr;
        if (src && inet_ntop(i->ifa_addr->sa_family, src, t->addr[k][n->n_addrs],
                             sizeof t->addr[k][n->n_addrs])) {
            t->addrp[k][n->n_addrs] = t->addr[k][n->n_addrs];
            n->n_addrs++;
        }
    }
    freeifaddrs(ifa);
}

int lg_plat_block_bytes(const char *path, uint64_t *bytes, char *err, size_t errlen)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        int e = -errno;
        snprintf(err, errlen, "block target \"%s\": %s", path, strerror(-e));
        return e;
    }
    if (!S_ISBLK(st.st_mode)) {
        snprintf(err, errlen, "block target \"%s\" is not a block device", path);
        return LG_EDENIED;
    }
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    *bytes = 0;
    if (fd < 0 || ioctl(fd, BLKGETSIZE64, bytes) != 0) {
        int e = -errno;
        if (fd >= 0)
            close(fd);
        snprintf(err, errlen, "block target \"%s\": %s", path, strerror(-e));
        return e;
    }
    close(fd);
    return 0;
}

const char *lg_plat_async_engine(void)
{
    return "libaio";
}

void lg_plat_fio_version(const char *fio, char *buf, size_t len)
{
    lg_strlcpy(buf, "unknown", len);
    /* fio path comes from the agent's own command line, never from the network; it is run
     * without a shell (looked up in PATH when it has no '/'), its stderr dropped, to a deadline. */
    char *argv[] = {(char *)fio, "--version", NULL};
    char out[256];
    lg_child_opts_t o;
    memset(&o, 0, sizeof o);
    o.argv = argv;
    o.out = LG_CHILD_PIPE;
    o.timeout_ms = 30000;
    o.kill_after_ms = 5000;
    lg_child_status_t st;
    if (lg_child_run(&o, out, sizeof out, &st) != 0 || !out[0])
        return;
    out[strcspn(out, "\n")] = 0;
    lg_strlcpy(buf, out, len);
}

int lg_plat_path_absolute(const char *p)
{
    return p && p[0] == '/';
}

int lg_plat_path_clean(const char *p)
{
    if (p[0] != '/' || strlen(p) > 1024)
        return 0;
    for (const unsigned char *c = (const unsigned char *)p; *c; c++)
        if (*c < 0x20 || *c == 0x7f || *c == '\\' || *c == '$')
            return 0;
    size_t n = strlen(p);
    return !strstr(p, "/../") && !(n >= 3 && strcmp(p + n - 3, "/..") == 0);
}

int lg_plat_path_under(const char *path, const char *prefix)
{
    if (!lg_plat_path_absolute(path) || !lg_plat_path_absolute(prefix) || strstr(path, "/../") ||
        strstr(path, "/./"))
        return 0;
    size_t n = strlen(prefix);
    while (n > 1 && prefix[n - 1] == '/')
        n--;
    return strncmp(path, prefix, n) == 0 && (path[n] == 0 || path[n] == '/' || n == 1);
}

void lg_plat_default_work_dir(const char *name, char *buf, size_t len)
{
    /* systemd's RuntimeDirectory= (the unit's /run/lg-agent, made for us alone), else for root
     * a folder of /run it makes itself (never a world-writable one, where another user could
     * make it first), else the user's own runtime folder, else /var/tmp (checked as ours). */
    const char *rt = getenv("RUNTIME_DIRECTORY");
    const char *xdg = getenv("XDG_RUNTIME_DIR");
    if (rt && rt[0] == '/')
        snprintf(buf, len, "%.*s/%s", (int)strcspn(rt, ":"), rt, name);
    else if (geteuid() == 0)
        snprintf(buf, len, "/run/lg-agent/%s", name);
    else if (xdg && xdg[0] == '/')
        snprintf(buf, len, "%s/lg-agent-%s", xdg, name);
    else
        snprintf(buf, len, "/var/tmp/lg-agent-%s", name);
}

void lg_plat_hostname(char *buf, size_t len)
{
    if (gethostname(buf, len - 1) != 0)
        lg_strlcpy(buf, "agent", len);
    buf[len - 1] = 0;
}

/* ---- targets, resolved and held ---- */

/* The path an open descriptor has now, as the kernel knows it. */
static int s_fd_path(int fd, char *buf, size_t len)
{
    char link[64];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, buf, len - 1);
    if (n < 0)
        return -errno;
    if ((size_t)n >= len - 1)
        return -ENAMETOOLONG;
    buf[n] = 0;
    return 0;
}

/* realpath of the longest existing prefix of p, with the rest appended as written: an allowed
 * folder that does not exist yet (a share not mounted) resolves to where it would be. */
static void s_resolve_loose(const char *p, char *out, size_t len)
{
    char head[1100], tail[1100] = "";
    lg_strlcpy(head, p, sizeof head);
    for (;;) {
        char *r = realpath(head, NULL);
        if (r) {
            snprintf(out, len, "%s%s", strcmp(r, "/") == 0 && tail[0] ? "" : r, tail);
            free(r);
            return;
        }
        char *slash = strrchr(head, '/');
        if (!slash || slash == head) {
            lg_strlcpy(out, p, len); /* nothing of it exists but "/" */
            return;
        }
        char t2[1100];
        snprintf(t2, sizeof t2, "%s%s", slash, tail);
        lg_strlcpy(tail, t2, sizeof tail);
        *slash = 0;
    }
}

int lg_plat_real_allowed(const char *real, const char *const *allow, size_t nallow, char *which,
                         size_t wlen)
{
    for (size_t i = 0; i < nallow; i++) {
        if (!allow[i] || allow[i][0] != '/')
            continue; /* smb:// and iscsi:// prefixes */
        char r[1100];
        s_resolve_loose(allow[i], r, sizeof r);
        if (lg_plat_path_under(real, r)) {
            lg_strlcpy(which, r, wlen);
            return 1;
        }
    }
    return 0;
}

/* Create the folders of rest (a relative path; its last component is the file) below the open
 * folder dfd, never through a link, and create or open the file. Returns a descriptor or -errno;
 * *created says whether the file is new. */
static int s_create_below(int dfd, char *rest, int *created, char *err, size_t errlen,
                          const char *path)
{
    int cur = dup(dfd);
    if (cur < 0)
        return -errno;
    char *save = NULL;
    char *comp = strtok_r(rest, "/", &save);
    while (comp) {
        char *next = strtok_r(NULL, "/", &save);
        if (!next)
            break;
        /* The folders must be there: an absent one is most often a share that is not mounted,
         * and creating it would put the run on the local disk under the share's name. */
        int nfd = openat(cur, comp, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (nfd < 0 && errno == ENOENT) {
            snprintf(err, errlen,
                     "target \"%s\": its folder \"%s\" does not exist (is the share mounted? "
                     "lg-agent creates the target file, never its folders)",
                     path, comp);
            close(cur);
            return -ENOENT;
        }
        if (nfd < 0) {
            int e = -errno;
            snprintf(err, errlen, "target \"%s\": \"%s\" is %s", path, comp,
                     e == -ELOOP || e == -ENOTDIR ? "a symbolic link or not a folder: refused"
                                                  : strerror(-e));
            close(cur);
            return e == -ELOOP || e == -ENOTDIR ? LG_EDENIED : e;
        }
        close(cur);
        cur = nfd;
        comp = next;
    }
    if (!comp) {
        close(cur);
        snprintf(err, errlen, "target \"%s\" names a folder, not a file", path);
        return LG_EDENIED;
    }
    int fd = openat(cur, comp, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    *created = fd >= 0;
    if (fd < 0 && errno == EEXIST) /* it appeared meanwhile: take it as it is, never a link */
        fd = openat(cur, comp, O_PATH | O_NOFOLLOW | O_CLOEXEC);
    int e = fd < 0 ? -errno : 0;
    close(cur);
    if (fd < 0)
        snprintf(err, errlen, "could not create target \"%s\": %s", path, strerror(-e));
    return fd < 0 ? e : fd;
}

int lg_plat_target_open(const char *path, const char *const *allow, size_t nallow, int create,
                        lg_plat_target_t *t, char *err, size_t errlen)
{
    memset(t, 0, sizeof *t);
    t->fd = -1;
    if (!lg_plat_path_absolute(path)) {
        snprintf(err, errlen, "target \"%s\" is not an absolute path", path);
        return LG_EDENIED;
    }
    /* Links followed: what it names now. Checked below by where the descriptor really is. */
    int fd = open(path, O_PATH | O_CLOEXEC);
    if (fd < 0 && errno == ENOENT && create) {
        /* The longest existing folder of it, then folders and file created below it. */
        char head[1100];
        lg_strlcpy(head, path, sizeof head);
        int dfd = -1;
        size_t cut = strlen(head);
        while (dfd < 0) {
            char *slash = strrchr(head, '/');
            if (!slash)
                break;
            cut = (size_t)(slash - head);
            if (slash == head) {
                dfd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
                break;
            }
            *slash = 0;
            dfd = open(head, O_PATH | O_DIRECTORY | O_CLOEXEC);
            if (dfd < 0 && errno != ENOENT) {
                int e = -errno;
                snprintf(err, errlen, "target \"%s\": \"%s\": %s", path, head, strerror(-e));
                return e == -ENOTDIR || e == -ELOOP ? LG_EDENIED : e;
            }
        }
        if (dfd < 0) {
            snprintf(err, errlen, "target \"%s\": no folder of it exists", path);
            return -ENOENT;
        }
        /* Where the new file will be, from the resolved folder: inside, or nothing is made. */
        char dreal[1100], want[2300], which[1100];
        int rc = s_fd_path(dfd, dreal, sizeof dreal);
        const char *rest = path + cut + 1;
        snprintf(want, sizeof want, "%s/%s", strcmp(dreal, "/") == 0 ? "" : dreal, rest);
        if (rc == 0 && !lg_plat_real_allowed(want, allow, nallow, which, sizeof which)) {
            snprintf(err, errlen,
                     "target \"%s\" would be created at \"%s\", outside this agent's allowed "
                     "targets (a symbolic link leads out of them)",
                     path, want);
            rc = LG_EDENIED;
        }
        if (rc) {
            close(dfd);
            return rc;
        }
        char restbuf[1100];
        lg_strlcpy(restbuf, rest, sizeof restbuf);
        fd = s_create_below(dfd, restbuf, &t->created, err, errlen, path);
        close(dfd);
        if (fd < 0)
            return fd;
    } else if (fd < 0) {
        int e = -errno;
        snprintf(err, errlen, "could not open target \"%s\": %s", path, strerror(-e));
        return e;
    }
    t->fd = fd;
    char which[1100];
    struct stat st;
    int rc = s_fd_path(fd, t->real, sizeof t->real);
    if (rc == 0 && fstat(fd, &st) != 0)
        rc = -errno;
    if (rc) {
        snprintf(err, errlen, "target \"%s\": %s", path, strerror(-rc));
        lg_plat_target_close(t);
        return rc;
    }
    if (S_ISLNK(st.st_mode)) {
        snprintf(err, errlen,
                 "target \"%s\" is a symbolic link that leads nowhere (or one "
                 "appeared while the file was being created): refused",
                 path);
        rc = LG_EDENIED;
    } else if (!lg_plat_real_allowed(t->real, allow, nallow, which, sizeof which)) {
        snprintf(err, errlen,
                 "target \"%s\" resolves to \"%s\", outside this agent's allowed targets (a "
                 "symbolic link leads out of them)",
                 path, t->real);
        rc = LG_EDENIED;
    } else if (S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "target \"%s\" is a folder; give a file in it (or dir:%s)", path,
                 path);
        rc = LG_EDENIED;
    } else if (S_ISREG(st.st_mode) && st.st_nlink > 1) {
        snprintf(err, errlen,
                 "target \"%s\" has %lu hard links: another name of it may lie outside this "
                 "agent's allowed targets; refused",
                 path, (unsigned long)st.st_nlink);
        rc = LG_EDENIED;
    } else if (!S_ISREG(st.st_mode) && !S_ISBLK(st.st_mode) && !S_ISCHR(st.st_mode)) {
        snprintf(err, errlen, "target \"%s\" is neither a regular file nor a device", path);
        rc = LG_EDENIED;
    }
    if (rc) {
        lg_plat_target_close(t);
        return rc;
    }
    t->dev = (uint64_t)st.st_dev;
    t->ino = (uint64_t)st.st_ino;
    t->is_dev = S_ISBLK(st.st_mode) || S_ISCHR(st.st_mode);
    t->is_chr = S_ISCHR(st.st_mode);
    t->size = S_ISREG(st.st_mode) ? (uint64_t)st.st_size : 0;
    snprintf(t->fio_path, sizeof t->fio_path, "/proc/self/fd/%d", LG_PLAT_TARGET_FD);
    return 0;
}

int lg_plat_target_recheck(const lg_plat_target_t *t, const char *path, char *err, size_t errlen)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        snprintf(err, errlen,
                 "target \"%s\" is gone since it was checked (%s): a link or file "
                 "was swapped during the run",
                 path, strerror(errno));
        return LG_EDENIED;
    }
    if ((uint64_t)st.st_dev != t->dev || (uint64_t)st.st_ino != t->ino) {
        char now[1100] = "";
        char *r = realpath(path, NULL);
        if (r) {
            lg_strlcpy(now, r, sizeof now);
            free(r);
        }
        snprintf(err, errlen,
                 "target \"%s\" changed since it was checked: it was \"%s\", now it is \"%s\" "
                 "(a link or file was swapped); nothing was written through the new one",
                 path, t->real, now);
        return LG_EDENIED;
    }
    return 0;
}

int lg_plat_target_extend(lg_plat_target_t *t, uint64_t bytes, char *err, size_t errlen)
{
    char self[64];
    lg_plat_target_self_path(t, self, sizeof self);
    int fd = open(self, O_WRONLY | O_CLOEXEC);
    int rc = fd < 0 ? -errno : 0;
    if (rc == 0 && ftruncate(fd, (off_t)bytes) != 0)
        rc = -errno;
    if (fd >= 0)
        close(fd);
    if (rc)
        snprintf(err, errlen, "could not extend target \"%s\" to %llu bytes: %s", t->real,
                 (unsigned long long)bytes, strerror(-rc));
    return rc;
}

void lg_plat_target_self_path(const lg_plat_target_t *t, char *buf, size_t len)
{
    snprintf(buf, len, "/proc/self/fd/%d", (int)t->fd);
}

void lg_plat_target_close(lg_plat_target_t *t)
{
    if (t->fd >= 0)
        close((int)t->fd);
    t->fd = -1;
}

/* ---- where a target sits: /proc/self/mountinfo and sysfs ---- */

/* mountinfo escapes space, tab, newline and backslash as \ooo. */
static void s_unescape(char *s)
{
    char *o = s;
    for (char *p = s; *p; p++) {
        if (p[0] == '\\' && p[1] >= '0' && p[1] <= '3' && p[2] >= '0' && p[2] <= '7' &&
            p[3] >= '0' && p[3] <= '7') {
            *o++ = (char)((p[1] - '0') * 64 + (p[2] - '0') * 8 + (p[3] - '0'));
            p += 3;
        } else
            *o++ = *p;
    }
    *o = 0;
}

/* Is the block device dev a disk of an iSCSI session (sysfs: .../sessionN/target.../block/sdX)? */
static int s_dev_iscsi(dev_t dev)
{
    char link[128], real[PATH_MAX];
    snprintf(link, sizeof link, "/sys/dev/block/%u:%u", major(dev), minor(dev));
    if (!realpath(link, real))
        return 0;
    return strstr(real, "/session") != NULL;
}

void lg_plat_target_fs(const lg_plat_target_t *t, lg_fs_facts_t *f)
{
    memset(f, 0, sizeof *f);
    struct stat st;
    if (stat(t->real, &st) != 0)
        return;
    if (t->is_dev) { /* a device: no filesystem, but it may be an iSCSI disk */
        lg_strlcpy(f->type, "block device", sizeof f->type);
        lg_strlcpy(f->mount, t->real, sizeof f->mount);
        f->iscsi = S_ISBLK(st.st_mode) && s_dev_iscsi(st.st_rdev);
        f->known = 1;
        return;
    }
    /* The longest mount point that holds the target's resolved path. */
    FILE *mi = fopen("/proc/self/mountinfo", "r");
    if (!mi)
        return;
    char line[4096];
    size_t best = 0;
    while (fgets(line, sizeof line, mi)) {
        /* id parent maj:min root mountpoint options [optional...] - fstype source superopts */
        char *save = NULL, *fld[5] = {0};
        char *tok = strtok_r(line, " ", &save);
        for (int i = 0; tok && i < 5; i++, tok = i < 5 ? strtok_r(NULL, " ", &save) : tok)
            fld[i] = tok;
        if (!fld[4])
            continue;
        char *dash = NULL;
        while ((tok = strtok_r(NULL, " ", &save)))
            if (!strcmp(tok, "-")) {
                dash = strtok_r(NULL, " ", &save);
                break;
            }
        if (!dash)
            continue;
        char *mp = fld[4];
        s_unescape(mp);
        size_t n = strlen(mp);
        int under = !strcmp(mp, "/") ||
                    (strncmp(t->real, mp, n) == 0 && (t->real[n] == '/' || t->real[n] == 0));
        if (!under || (n < best && best))
            continue;
        best = n;
        lg_strlcpy(f->mount, mp, sizeof f->mount);
        lg_strlcpy(f->type, dash, sizeof f->type);
    }
    fclose(mi);
    if (!best && strcmp(f->mount, "/") != 0)
        return;
    const char *ty = f->type;
    f->smb = !strcmp(ty, "cifs") || !strcmp(ty, "smb3") || !strcmp(ty, "smbfs");
    f->nfs = !strncmp(ty, "nfs", 3);
    f->network = f->smb || f->nfs || !strcmp(ty, "ceph") || !strcmp(ty, "glusterfs") ||
                 !strcmp(ty, "9p") || !strncmp(ty, "fuse.sshfs", 10);
    f->iscsi = s_dev_iscsi(st.st_dev);
    f->known = 1;
}

/* ---- the load host's own CPU ---- */

/* Every process's /proc/PID/stat into *procs (caller frees). Processes that end meanwhile are
 * skipped. Returns how many, or 0 when /proc cannot be read. */
static size_t s_all_procs(lg_cpu_proc_t **procs)
{
    *procs = NULL;
    DIR *d = opendir("/proc");
    if (!d)
        return 0;
    size_t n = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] < '1' || e->d_name[0] > '9')
            continue;
        char path[64], buf[1024];
        snprintf(path, sizeof path, "/proc/%.20s/stat", e->d_name);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            continue;
        ssize_t got = read(fd, buf, sizeof buf);
        close(fd);
        lg_cpu_proc_t p;
        if (got <= 0 || lg_cpu_proc_parse(buf, (size_t)got, &p) != 0)
            continue;
        if (n == cap) {
            size_t nc = cap ? cap * 2 : 512;
            lg_cpu_proc_t *np = realloc(*procs, nc * sizeof *np);
            if (!np)
                break;
            *procs = np;
            cap = nc;
        }
        (*procs)[n++] = p;
    }
    closedir(d);
    return n;
}

void lg_plat_cpu_snap(int64_t fio_pid, lg_cpu_snap_t *s)
{
    memset(s, 0, sizeof *s);
    cpu_set_t aff;
    lg_cpu_set_t set;
    int have_set = sched_getaffinity(0, sizeof aff, &aff) == 0;
    lg_cpu_set_clear(&set);
    for (unsigned i = 0; have_set && i < CPU_SETSIZE && i < LG_CPU_SET_MAX; i++)
        if (CPU_ISSET(i, &aff))
            lg_cpu_set_add(&set, i);
    char *text = NULL;
    size_t len = 0;
    if (lg_read_file("/proc/stat", 16u << 20, &text, &len) == 0) {
        s->host_ok = lg_cpu_stat_parse(text, len, have_set ? &set : NULL, &s->host) == 0;
        free(text);
    }
    if (fio_pid <= 0 || fio_pid > INT32_MAX)
        return;
    lg_cpu_proc_t *procs;
    size_t n = s_all_procs(&procs);
    s->fio = lg_cpu_tree_ticks(procs, n, (int)fio_pid, &s->fio_ok);
    free(procs);
    long hz = sysconf(_SC_CLK_TCK);
    s->fio_hz = hz > 0 ? (uint64_t)hz : 100;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    s->fio_wall_us = (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}
