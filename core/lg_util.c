/* lg_util.c: clocks, strict parsing, files. */
#include "lg_util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#ifndef _WIN32
#include <unistd.h>
#endif

#include "lg_error.h"

int64_t lg_now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

uint64_t lg_mono_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

int lg_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
    if (!s || *s < '0' || *s > '9')
        return LG_EPARSE;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end || v < min || v > max)
        return LG_EPARSE;
    *out = v;
    return 0;
}

size_t lg_strlcpy(char *dst, const char *src, size_t len)
{
    size_t n = strlen(src);
    if (len) {
        size_t c = n < len - 1 ? n : len - 1;
        memcpy(dst, src, c);
        dst[c] = 0;
    }
    return n;
}

size_t lg_read_small(const char *path, int extra_flags, char *buf, size_t len)
{
    if (len == 0)
        return 0;
    buf[0] = 0;
#ifdef _WIN32 /* no /proc, pid files or O_CLOEXEC there: the Windows build reads none */
    (void)path, (void)extra_flags;
    return 0;
#else
    int fd = open(path, O_RDONLY | O_CLOEXEC | extra_flags);
    if (fd < 0)
        return 0;
    ssize_t n = read(fd, buf, len - 1);
    close(fd);
    if (n <= 0)
        return 0;
    buf[n] = 0;
    return (size_t)n;
#endif
}

int lg_read_file(const char *path, size_t max, char **buf, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return -errno;
    size_t cap = 4096, n = 0;
    char *b = malloc(cap);
    if (!b) {
        fclose(f);
        return -ENOMEM;
    }
    for (;;) {
        if (n + 1 >= cap) {
            if (cap > max + 1) {
                free(b);
                fclose(f);
                return LG_ETOOBIG;
            }
            char *nb = realloc(b, cap * 2);
            if (!nb) {
                free(b);
                fclose(f);
                return -ENOMEM;
            }
            b = nb;
            cap *= 2;
        }
        size_t r = fread(b + n, 1, cap - 1 - n, f);
        n += r;
        if (r == 0)
            break;
    }
    int err = ferror(f) ? -EIO : 0;
    fclose(f);
    if (err || n > max) {
        free(b);
        return err ? err : LG_ETOOBIG;
    }
    b[n] = 0;
    *buf = b;
    if (len)
        *len = n;
    return 0;
}

#ifdef _WIN32
#include <direct.h>
/* Windows folders have ACLs, not modes: the mode is not used there. */
#define s_mkdir(p, mode) ((void)(mode), _mkdir(p))
#else
#define s_mkdir(p, mode) mkdir(p, mode)
#endif

int lg_mkdirs(const char *path, unsigned mode)
{
    char tmp[4096];
    if (lg_strlcpy(tmp, path, sizeof tmp) >= sizeof tmp)
        return -ENAMETOOLONG;
    for (char *p = tmp + 1; *p; p++) {
#ifdef _WIN32
        if (*p != '/' && *p != '\\')
            continue;
        if (p == tmp + 2 && tmp[1] == ':') /* "C:\" is no folder to make */
            continue;
        char sep = *p;
#else
        if (*p != '/')
            continue;
        char sep = '/';
#endif
        *p = 0;
        if (s_mkdir(tmp, mode) != 0 && errno != EEXIST)
            return -errno;
        *p = sep;
    }
    if (s_mkdir(tmp, mode) != 0 && errno != EEXIST)
        return -errno;
    return 0;
}

const char *lg_smb_url_user(const char *url, char *buf, size_t len)
{
    if (len)
        buf[0] = 0;
    if (!url || strncmp(url, "smb://", 6) != 0 || !len)
        return buf;
    const char *host = url + 6, *end = host + strcspn(host, "/");
    const char *at = memchr(host, '@', (size_t)(end - host));
    if (at && at > host) {
        size_t n = (size_t)(at - host) < len - 1 ? (size_t)(at - host) : len - 1;
        memcpy(buf, host, n);
        buf[n] = 0;
    }
    return buf;
}

const char *lg_fmt_thousands(char *buf, size_t len, double v, int decimals)
{
    char digits[400];
    if (!len)
        return buf;
    double a = v < 0 ? -v : v == 0 ? 0.0 : v; /* -0.0 prints as "0" */
    snprintf(digits, sizeof digits, "%.*f", decimals, a);
    const char *dot = strchr(digits, '.');
    size_t ilen = dot ? (size_t)(dot - digits) : strlen(digits), o = 0;
    if (v < 0 && strspn(digits, "0.") != strlen(digits) && o + 1 < len)
        buf[o++] = '-';
    for (size_t i = 0; i < ilen && o + 2 < len; i++) {
        if (i && (ilen - i) % 3 == 0)
            buf[o++] = ',';
        buf[o++] = digits[i];
    }
    buf[o] = 0;
    if (dot)
        lg_strlcpy(buf + o, dot, len - o);
    return buf;
}

/* The platform-neutral half of the agent's path check (its platform files), so that the
 * spec's reader refuses, with the spec's line, what every agent would refuse at Prepare. */
const char *lg_path_refused_part(const char *p)
{
    if (strchr(p, '$'))
        return "a '$' (fio expands ${VAR} in job files)";
    size_t i = strncmp(p, "\\\\.\\", 4) == 0 ? 4 : 0; /* \\.\PhysicalDrive1 */
    while (p[i]) {
        size_t j = i + strcspn(p + i, "/\\");
        if ((j - i == 1 && p[i] == '.') || (j - i == 2 && p[i] == '.' && p[i + 1] == '.'))
            return j - i == 1 ? "a \".\" component" : "a \"..\" component";
        i = p[j] ? j + 1 : j;
    }
    return NULL;
}
