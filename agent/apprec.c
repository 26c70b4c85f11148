/* apprec.c: the record of an application run's server and folders (see apprec.h). A few lines
 * of "key value" text: written whole before the first process starts, a line appended (and
 * fsynced) per process started, removed once everything is stopped and removed. */
#include "apprec.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lg_app.h"
#include "lg_error.h"
#include "lg_util.h"

#define MAGIC "lg-app-record 1"
#define SOCK_PREFIX "/tmp/lg-app-"

/* ---- text ---- */

static const char *s_kind_name(int kind)
{
    return kind == LG_APP_PGBENCH ? "pgbench" : kind == LG_APP_SYSBENCH_OLTP ? "sysbench" : NULL;
}

/* An absolute path with no control characters, no empty, "." or ".." part and no '$'. */
static int s_path_ok(const char *p)
{
    if (p[0] != '/' || lg_path_refused_part(p))
        return 0;
    for (const char *c = p; *c; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f || (c[0] == '/' && c[1] == '/'))
            return 0;
    size_t n = strlen(p);
    return n > 1 && p[n - 1] != '/';
}

static const char *s_base(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

/* A boot_id: 36 characters of lowercase hex digits and dashes (8-4-4-4-12). */
static int s_boot_ok(const char *b)
{
    if (strlen(b) != 36)
        return 0;
    for (int i = 0; i < 36; i++) {
        int dash = i == 8 || i == 13 || i == 18 || i == 23;
        if (dash ? b[i] != '-' : !((b[i] >= '0' && b[i] <= '9') || (b[i] >= 'a' && b[i] <= 'f')))
            return 0;
    }
    return 1;
}

/* What is wrong with rec's paths, or NULL. */
static const char *s_check_paths(const lg_apprec_t *rec)
{
    if (!s_path_ok(rec->server))
        return "the server program is not a clean absolute path";
    if (!s_path_ok(rec->data) || strncmp(s_base(rec->data), "lg-", 3) != 0)
        return "the data folder is not a clean absolute path to a folder named lg-...";
    if (!s_path_ok(rec->sock) || strncmp(rec->sock, SOCK_PREFIX, strlen(SOCK_PREFIX)) != 0 ||
        strchr(rec->sock + strlen(SOCK_PREFIX), '/') || !rec->sock[strlen(SOCK_PREFIX)])
        return "the socket folder is not " SOCK_PREFIX "...";
    return NULL;
}

int lg_apprec_format(const lg_apprec_t *rec, char *buf, size_t len)
{
    const char *kind = s_kind_name(rec->kind);
    if (!kind || !s_boot_ok(rec->boot) || s_check_paths(rec))
        return LG_EPARSE;
    int n =
        snprintf(buf, len,
                 MAGIC "\nkind %s\nrun %" PRIu64 "\nkeep %d\nuid %u\nboot %s\nserver %s\n"
                       "data %" PRIu64 " %" PRIu64 " %s\nsock %" PRIu64 " %" PRIu64 " %s\n",
                 kind, rec->run_id, rec->keep ? 1 : 0, rec->uid, rec->boot, rec->server,
                 rec->data_dev, rec->data_ino, rec->data, rec->sock_dev, rec->sock_ino, rec->sock);
    if (n < 0 || (size_t)n >= len)
        return LG_ETOOBIG;
    return n;
}

/* "N M PATH" (data and sock lines): two numbers, then the rest of the line. */
static int s_dev_ino_path(char *v, uint64_t *dev, uint64_t *ino, char *path, size_t plen)
{
    char *sp1 = strchr(v, ' ');
    char *sp2 = sp1 ? strchr(sp1 + 1, ' ') : NULL;
    if (!sp2)
        return LG_EPARSE;
    *sp1 = *sp2 = 0;
    if (lg_parse_u64(v, 0, UINT64_MAX, dev) != 0 || lg_parse_u64(sp1 + 1, 1, UINT64_MAX, ino) ||
        lg_strlcpy(path, sp2 + 1, plen) >= plen)
        return LG_EPARSE;
    return 0;
}

/* "PID START" of a proc or server line. */
static int s_proc(char *v, lg_apprec_t *out, int server)
{
    char *sp = strchr(v, ' ');
    uint64_t pid, start;
    if (!sp)
        return LG_EPARSE;
    *sp = 0;
    if (lg_parse_u64(v, 2, INT32_MAX, &pid) != 0 || lg_parse_u64(sp + 1, 1, UINT64_MAX, &start))
        return LG_EPARSE;
    if (out->nprocs == LG_APPREC_MAX_PROCS) { /* the newest are the ones that may still run */
        memmove(out->procs, out->procs + 1, (LG_APPREC_MAX_PROCS - 1) * sizeof *out->procs);
        out->nprocs--;
    }
    lg_apprec_proc_t *p = &out->procs[out->nprocs++];
    p->pid = (int)pid;
    p->start = start;
    p->server = server;
    return 0;
}

/* One "key value" line into out; *seen gets a bit per required key. */
static int s_line(char *key, char *v, lg_apprec_t *out, unsigned *seen)
{
    uint64_t u;
    if (!strcmp(key, "kind")) {
        out->kind = !strcmp(v, "pgbench")    ? LG_APP_PGBENCH
                    : !strcmp(v, "sysbench") ? LG_APP_SYSBENCH_OLTP
                                             : 0;
        *seen |= 1;
        return out->kind ? 0 : LG_EPARSE;
    }
    if (!strcmp(key, "run") || !strcmp(key, "keep") || !strcmp(key, "uid")) {
        int which = key[0] == 'r' ? 0 : key[0] == 'k' ? 1 : 2;
        uint64_t max = which == 0 ? UINT64_MAX : which == 1 ? 1 : UINT32_MAX;
        if (lg_parse_u64(v, 0, max, &u) != 0)
            return LG_EPARSE;
        if (which == 0)
            out->run_id = u;
        else if (which == 1)
            out->keep = (int)u;
        else
            out->uid = (unsigned)u;
        *seen |= 2u << which;
        return 0;
    }
    if (!strcmp(key, "boot")) {
        *seen |= 128;
        return s_boot_ok(v) && lg_strlcpy(out->boot, v, sizeof out->boot) < sizeof out->boot
                   ? 0
                   : LG_EPARSE;
    }
    if (!strcmp(key, "server")) {
        *seen |= 16;
        return lg_strlcpy(out->server, v, sizeof out->server) < sizeof out->server ? 0 : LG_EPARSE;
    }
    if (!strcmp(key, "data")) {
        *seen |= 32;
        return s_dev_ino_path(v, &out->data_dev, &out->data_ino, out->data, sizeof out->data);
    }
    if (!strcmp(key, "sock")) {
        *seen |= 64;
        return s_dev_ino_path(v, &out->sock_dev, &out->sock_ino, out->sock, sizeof out->sock);
    }
    if (!strcmp(key, "proc") || !strcmp(key, "server-proc"))
        return s_proc(v, out, key[0] == 's');
    return LG_EPARSE;
}

int lg_apprec_parse(const char *text, size_t len, lg_apprec_t *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (len > LG_APPREC_MAX_BYTES) {
        snprintf(err, errlen, "over %d bytes", LG_APPREC_MAX_BYTES);
        return LG_EPARSE;
    }
    unsigned seen = 0;
    size_t pos = 0;
    for (int lineno = 1; pos < len; lineno++) {
        const char *nl = memchr(text + pos, '\n', len - pos);
        if (!nl)
            break; /* a last line cut short by a crash: never one of the header's */
        char line[LG_APPREC_PATH + 64];
        size_t n = (size_t)(nl - (text + pos));
        if (n >= sizeof line || memchr(text + pos, 0, n)) {
            snprintf(err, errlen, "line %d: too long or not text", lineno);
            return LG_EPARSE;
        }
        memcpy(line, text + pos, n);
        line[n] = 0;
        pos += n + 1;
        if (lineno == 1) {
            if (strcmp(line, MAGIC) != 0) {
                snprintf(err, errlen, "line 1: not \"" MAGIC "\"");
                return LG_EPARSE;
            }
            continue;
        }
        char *sp = strchr(line, ' ');
        if (!sp || s_line((*sp = 0, line), sp + 1, out, &seen) != 0) {
            snprintf(err, errlen, "line %d: \"%s\" is malformed", lineno, line);
            return LG_EPARSE;
        }
    }
    if (seen != 255) {
        snprintf(err, errlen,
                 "incomplete: kind, run, keep, uid, boot, server, data and sock "
                 "needed");
        return LG_EPARSE;
    }
    const char *bad = s_check_paths(out);
    if (bad) {
        snprintf(err, errlen, "%s", bad);
        return LG_EPARSE;
    }
    return 0;
}

/* ---- the file ---- */

void lg_apprec_name(uint64_t run_id, char *buf, size_t len)
{
    snprintf(buf, len, "app-%" PRIu64 ".rec", run_id);
}

static int s_write_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return w < 0 ? -errno : -EIO;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

int lg_apprec_create(const char *dir, const lg_apprec_t *rec, int *fd_out, char *err, size_t errlen)
{
    char text[LG_APPREC_MAX_BYTES / 2], name[64];
    int n = lg_apprec_format(rec, text, sizeof text);
    if (n < 0) {
        snprintf(err, errlen, "the record of run %" PRIu64 " could not be written: %s", rec->run_id,
                 lg_strerror(n));
        return n;
    }
    lg_apprec_name(rec->run_id, name, sizeof name);
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0) {
        int e = -errno;
        snprintf(err, errlen, "could not open \"%s\": %s", dir, strerror(-e));
        return e;
    }
    int fd =
        openat(dfd, name, O_WRONLY | O_APPEND | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    int rc = fd < 0 ? -errno : s_write_all(fd, text, (size_t)n);
    if (rc == 0 && fsync(fd) != 0)
        rc = -errno;
    if (rc == 0 && fsync(dfd) != 0)
        rc = -errno;
    if (rc) {
        snprintf(err, errlen, "could not write the record \"%s/%s\": %s%s", dir, name,
                 strerror(-rc),
                 rc == -EEXIST ? " (left by an earlier agent that could not clean up after "
                                 "the run: see its log)"
                               : "");
        if (fd >= 0) {
            close(fd);
            unlinkat(dfd, name, 0);
        }
        close(dfd);
        return rc;
    }
    close(dfd);
    *fd_out = fd;
    return 0;
}

int lg_apprec_add_proc(int fd, int pid, int server)
{
    uint64_t start = lg_apprec_starttime(pid, NULL);
    if (!start)
        return -ESRCH;
    char line[96];
    int n = snprintf(line, sizeof line, "%s %d %" PRIu64 "\n", server ? "server-proc" : "proc", pid,
                     start);
    int rc = s_write_all(fd, line, (size_t)n);
    if (rc == 0 && fdatasync(fd) != 0)
        rc = -errno;
    return rc;
}

int lg_rec_remove(const char *dir, const char *name)
{
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0)
        return -errno;
    int rc = unlinkat(dfd, name, 0) == 0 || errno == ENOENT ? 0 : -errno;
    if (rc == 0 && fsync(dfd) != 0)
        rc = -errno;
    close(dfd);
    return rc;
}

int lg_apprec_remove(const char *dir, uint64_t run_id)
{
    char name[64];
    lg_apprec_name(run_id, name, sizeof name);
    return lg_rec_remove(dir, name);
}

long lg_rec_read(int dfd, const char *name, char *text, size_t max, char *err, size_t errlen)
{
    int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        snprintf(err, errlen, "%s", strerror(errno));
        if (fd >= 0)
            close(fd);
        return -EIO;
    }
    if (!S_ISREG(st.st_mode) || st.st_uid != geteuid() || (size_t)st.st_size > max) {
        snprintf(err, errlen, "not a record lg wrote (a file of its own user, at most %zu bytes)",
                 max);
        close(fd);
        return LG_EDENIED;
    }
    size_t len = 0;
    ssize_t n;
    while (len < max && (n = read(fd, text + len, max - len)) > 0)
        len += (size_t)n;
    close(fd);
    text[len] = 0;
    return (long)len;
}

int lg_apprec_boot_id(char *buf, size_t len)
{
    buf[0] = 0;
    int fd = open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    char id[64];
    ssize_t n = read(fd, id, sizeof id - 1);
    int e = errno;
    close(fd);
    if (n < 36)
        return n < 0 ? -e : -EIO;
    id[36] = 0;
    if (!s_boot_ok(id))
        return -EIO;
    lg_strlcpy(buf, id, len);
    return 0;
}

uint64_t lg_apprec_starttime(int pid, int *zombie)
{
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", pid);
    if (zombie)
        *zombie = 0;
    if (!lg_read_small(path, 0, buf, sizeof buf))
        return 0;
    /* "pid (comm) state ppid ...": comm may hold anything, so fields count from its last ')' */
    char *p = strrchr(buf, ')');
    if (!p || p[1] != ' ')
        return 0;
    char state = p[2];
    unsigned long long start = 0;
    /* after the state: fields 4..21, then starttime (field 22) */
    p += 3;
    for (int field = 4; field < 22 && p; field++)
        p = strchr(p + 1, ' ');
    if (!p || sscanf(p + 1, "%llu", &start) != 1)
        return 0;
    if (zombie)
        *zombie = state == 'Z' || state == 'X';
    return start;
}
