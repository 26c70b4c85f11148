/* fiorec.c: the record of a running fio (see fiorec.h): a few "key value" lines written when fio
 * is spawned and removed when it ended, and the next agent's clean-up of what a killed one left.
 * Processes are found through /proc and checked against the record before any signal. */
#include "fiorec.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "apprec.h"
#include "lg_error.h"
#include "lg_log.h"
#include "lg_util.h"

#define MAGIC "lg-fio-record 1"
#define POLL_MS 50

/* ---- text ---- */

int lg_fiorec_format(const lg_fiorec_t *rec, char *buf, size_t len)
{
    if (rec->pgid < 2 || rec->start == 0 || strlen(rec->boot) != 36 || rec->job[0] != '/' ||
        strpbrk(rec->job, "\n\r"))
        return LG_EPARSE;
    int n =
        snprintf(buf, len, MAGIC "\nrun %" PRIu64 "\npgid %d\nstart %" PRIu64 "\nboot %s\njob %s\n",
                 rec->run_id, rec->pgid, rec->start, rec->boot, rec->job);
    if (n < 0 || (size_t)n >= len)
        return LG_ETOOBIG;
    return n;
}

/* One "key value" line into out; *seen gets a bit per key. */
static int s_line(const char *key, const char *v, lg_fiorec_t *out, unsigned *seen)
{
    uint64_t u;
    if (!strcmp(key, "run") || !strcmp(key, "pgid") || !strcmp(key, "start")) {
        int which = key[0] == 'r' ? 0 : key[0] == 'p' ? 1 : 2;
        if (lg_parse_u64(v,
                         which == 1   ? 2
                         : which == 2 ? 1
                                      : 0,
                         which == 1 ? INT32_MAX : UINT64_MAX, &u) != 0)
            return LG_EPARSE;
        if (which == 0)
            out->run_id = u;
        else if (which == 1)
            out->pgid = (int)u;
        else
            out->start = u;
        *seen |= 1u << which;
        return 0;
    }
    if (!strcmp(key, "boot") && strlen(v) == 36) {
        lg_strlcpy(out->boot, v, sizeof out->boot);
        *seen |= 8;
        return 0;
    }
    if (!strcmp(key, "job") && v[0] == '/' && strlen(v) < sizeof out->job) {
        lg_strlcpy(out->job, v, sizeof out->job);
        *seen |= 16;
        return 0;
    }
    return LG_EPARSE;
}

int lg_fiorec_parse(const char *text, size_t len, lg_fiorec_t *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    unsigned seen = 0;
    size_t pos = 0;
    for (int lineno = 1; pos < len; lineno++) {
        const char *nl = memchr(text + pos, '\n', len - pos);
        if (!nl)
            break; /* cut short by a crash while written: the keys it lacks say so */
        char line[LG_APPREC_PATH + 16];
        size_t n = (size_t)(nl - (text + pos));
        if (n >= sizeof line || memchr(text + pos, 0, n)) {
            snprintf(err, errlen, "line %d: too long or not text", lineno);
            return LG_EPARSE;
        }
        memcpy(line, text + pos, n);
        line[n] = 0;
        pos += n + 1;
        if (lineno == 1 && strcmp(line, MAGIC) != 0) {
            snprintf(err, errlen, "line 1: not \"" MAGIC "\"");
            return LG_EPARSE;
        }
        char *sp = strchr(line, ' ');
        if (lineno > 1 && (!sp || s_line((*sp = 0, line), sp + 1, out, &seen) != 0)) {
            snprintf(err, errlen, "line %d: \"%s\" is malformed", lineno, line);
            return LG_EPARSE;
        }
    }
    if (seen != 31) {
        snprintf(err, errlen, "incomplete: run, pgid, start, boot and job needed");
        return LG_EPARSE;
    }
    return 0;
}

/* ---- the file ---- */

static void s_name(uint64_t run_id, char *buf, size_t len)
{
    snprintf(buf, len, "fio-%" PRIu64 ".rec", run_id);
}

int lg_fiorec_create(const char *dir, uint64_t run_id, int pgid, const char *job, lg_fiorec_t *out,
                     char *err, size_t errlen)
{
    lg_fiorec_t rec;
    memset(&rec, 0, sizeof rec);
    rec.run_id = run_id;
    rec.pgid = pgid;
    lg_strlcpy(rec.job, job, sizeof rec.job);
    int zombie;
    rec.start = lg_apprec_starttime(pgid, &zombie);
    if (!rec.start || zombie)
        return -ESRCH;
    char text[LG_FIOREC_MAX_BYTES], name[64];
    int n = lg_apprec_boot_id(rec.boot, sizeof rec.boot);
    if (n == 0)
        n = lg_fiorec_format(&rec, text, sizeof text);
    if (n < 0) {
        snprintf(err, errlen, "the record of run %" PRIu64 "'s fio could not be made: %s", run_id,
                 lg_strerror(n));
        return n;
    }
    s_name(run_id, name, sizeof name);
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    int fd = dfd < 0
                 ? -1
                 : openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    int rc = fd < 0 ? -errno : 0;
    if (rc == 0) {
        /* a few hundred bytes into a new file: one write, or an error */
        ssize_t w = write(fd, text, (size_t)n);
        if (w != n)
            rc = w < 0 ? -errno : -EIO;
        else if (fsync(fd) != 0 || fsync(dfd) != 0)
            rc = -errno;
    }
    if (fd >= 0)
        close(fd);
    if (rc) {
        snprintf(err, errlen, "could not write the record \"%s/%s\": %s", dir, name, strerror(-rc));
        if (fd >= 0)
            unlinkat(dfd, name, 0);
    }
    if (dfd >= 0)
        close(dfd);
    if (rc == 0)
        *out = rec;
    return rc;
}

int lg_fiorec_remove(const char *dir, uint64_t run_id)
{
    char name[64];
    s_name(run_id, name, sizeof name);
    return lg_rec_remove(dir, name);
}

/* ---- the processes ---- */

/* pid's process group, session and start time from /proc/PID/stat; 0 when gone or a zombie. */
static int s_stat(int pid, int *pgrp, int *sid, uint64_t *start)
{
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", pid);
    if (!lg_read_small(path, 0, buf, sizeof buf))
        return 0;
    /* "pid (comm) state ppid pgrp session ...": comm may hold anything, so count from its last
     * ')' */
    char *p = strrchr(buf, ')');
    int ppid;
    char state;
    if (!p || sscanf(p + 1, " %c %d %d %d", &state, &ppid, pgrp, sid) != 4 || state == 'Z' ||
        state == 'X')
        return 0;
    *start = lg_apprec_starttime(pid, NULL);
    return *start != 0;
}

/* Does pid's command line hold arg as one of its arguments? */
static int s_cmdline_has(int pid, const char *arg)
{
    char path[64], buf[8192];
    snprintf(path, sizeof path, "/proc/%d/cmdline", pid);
    size_t n = lg_read_small(path, 0, buf, sizeof buf);
    for (const char *a = buf; a < buf + n; a += strlen(a) + 1)
        if (!strcmp(a, arg))
            return 1;
    return 0;
}

/* Each live process of rec's fio goes to fn (with its process group). Returns how many. Its
 * processes: the leader (the record's pid and start time), and, started after it with the job
 * file on their command line, the members of its group and the job processes fio forked, which
 * each make a session of their own (setsid) and so are not in the group: a program someone
 * runs on the job file from a shell is in that shell's session and left alone. */
static int s_each(const lg_fiorec_t *rec, void (*fn)(int pid, int pgrp))
{
    DIR *d = opendir("/proc");
    if (!d)
        return 0;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        uint64_t pid, start;
        int grp, sid;
        if (lg_parse_u64(e->d_name, 2, INT32_MAX, &pid) != 0 || (int)pid == getpid() ||
            !s_stat((int)pid, &grp, &sid, &start))
            continue;
        int ok = (int)pid == rec->pgid
                     ? start == rec->start
                     : start >= rec->start && (grp == rec->pgid || sid == (int)pid);
        if (ok && s_cmdline_has((int)pid, rec->job)) {
            n++;
            if (fn)
                fn((int)pid, grp);
        }
    }
    closedir(d);
    return n;
}

int lg_fiorec_alive(const lg_fiorec_t *rec)
{
    return s_each(rec, NULL);
}

/* The group it leads (fio's, or a job's: nothing but fio is in those), else it alone. */
static void s_kill_one(int pid, int pgrp)
{
    kill(pgrp == pid ? -pid : pid, SIGKILL);
}

int lg_fiorec_kill(const lg_fiorec_t *rec)
{
    return s_each(rec, s_kill_one);
}

static void s_sleep_ms(unsigned ms)
{
    struct timespec ts = {(time_t)(ms / 1000), (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

/* ---- cleaning up ---- */

/* The record named name in the open folder dfd into rec. Returns 0 or an error with err set. */
static int s_read(int dfd, const char *name, lg_fiorec_t *rec, char *err, size_t errlen)
{
    char text[LG_FIOREC_MAX_BYTES + 1];
    long len = lg_rec_read(dfd, name, text, LG_FIOREC_MAX_BYTES, err, errlen);
    return len < 0 ? (int)len : lg_fiorec_parse(text, (size_t)len, rec, err, errlen);
}

/* One record: 1 when its group is still alive afterwards, else 0 (and the record is gone). */
static int s_clean_one(const char *dir, int dfd, const char *name, unsigned wait_ms)
{
    lg_fiorec_t rec;
    char err[512], boot[40];
    if (s_read(dfd, name, &rec, err, sizeof err) != 0) {
        lg_warn("\"%s/%s\" is not a record of an fio run: %s", dir, name, err);
        lg_log_hint("Look at it and remove it; lg-agent leaves it alone.");
        return 0;
    }
    int n = lg_apprec_boot_id(boot, sizeof boot) == 0 && strcmp(boot, rec.boot) != 0
                ? 0 /* its PIDs name other processes now, even with the same start times */
                : lg_fiorec_alive(&rec);
    if (n > 0) {
        lg_fiorec_kill(&rec);
        for (uint64_t end = lg_mono_ms() + wait_ms; (n = lg_fiorec_alive(&rec)) > 0;
             s_sleep_ms(POLL_MS))
            if (lg_mono_ms() >= end)
                break;
        if (n > 0) {
            lg_error("could not end the fio (pgid %d) that a previous agent left running for run "
                     "%" PRIu64 ": %d of its processes are still alive",
                     rec.pgid, rec.run_id, n);
            lg_log_hint("No run starts while it is alive: the next Prepare tries again.");
            return 1;
        }
        lg_warn("killed the fio (pgid %d) that a previous agent left running for run %" PRIu64,
                rec.pgid, rec.run_id);
    } else {
        lg_info("the fio (pgid %d) of run %" PRIu64 " that a previous agent recorded had ended",
                rec.pgid, rec.run_id);
    }
    int rc = unlinkat(dfd, name, 0) == 0 || errno == ENOENT ? 0 : -errno;
    if (rc)
        lg_warn("could not remove \"%s/%s\": %s", dir, name, strerror(-rc));
    return 0;
}

int lg_fiorec_clean(const char *dir, unsigned wait_ms)
{
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0)
        return 0;
    int dup_fd = dup(dfd);
    DIR *d = dup_fd >= 0 ? fdopendir(dup_fd) : NULL;
    if (!d) {
        if (dup_fd >= 0)
            close(dup_fd);
        close(dfd);
        return 0;
    }
    /* The names first: cleaning removes records from the folder being read. */
    char names[16][64];
    int n = 0, left = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL && n < 16) {
        size_t l = strlen(e->d_name);
        if (!strncmp(e->d_name, "fio-", 4) && l > 8 && l < sizeof names[0] &&
            !strcmp(e->d_name + l - 4, ".rec"))
            lg_strlcpy(names[n++], e->d_name, sizeof names[0]);
    }
    closedir(d);
    for (int i = 0; i < n; i++)
        left += s_clean_one(dir, dfd, names[i], wait_ms);
    close(dfd);
    return left;
}
