/* platform_posix.c: the agent's OS questions answered on Linux: /proc, /sys, getifaddrs, the
 * block device ioctl. */
#include "platform.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <linux/fs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

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

const char *lg_plat_async_engine(void) { return "libaio"; }

void lg_plat_fio_version(const char *fio, char *buf, size_t len)
{
    lg_strlcpy(buf, "unknown", len);
    char cmd[1100];
    /* fio path comes from the agent's own command line, never from the network. */
    if (snprintf(cmd, sizeof cmd, "'%s' --version 2>/dev/null", fio) >= (int)sizeof cmd ||
        strchr(fio, '\''))
        return;
    FILE *p = popen(cmd, "r");
    if (!p)
        return;
    if (fgets(buf, (int)len, p))
        buf[strcspn(buf, "\n")] = 0;
    pclose(p);
}

int lg_plat_path_absolute(const char *p) { return p && p[0] == '/'; }

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
    if (!lg_plat_path_absolute(path) || !lg_plat_path_absolute(prefix) ||
        strstr(path, "/../") || strstr(path, "/./"))
        return 0;
    size_t n = strlen(prefix);
    while (n > 1 && prefix[n - 1] == '/')
        n--;
    return strncmp(path, prefix, n) == 0 && (path[n] == 0 || path[n] == '/' || n == 1);
}

void lg_plat_default_work_dir(const char *name, char *buf, size_t len)
{
    snprintf(buf, len, "/var/tmp/lg-agent-%s", name);
}

void lg_plat_hostname(char *buf, size_t len)
{
    if (gethostname(buf, len - 1) != 0)
        lg_strlcpy(buf, "agent", len);
    buf[len - 1] = 0;
}
