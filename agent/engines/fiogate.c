/* fiogate.c: see fiogate.h. The engine's side runs inside fio's job (no libuv, no lg_core): plain
 * blocking calls on a short poll; the agent's side makes and reads files in its own run folder. */
#include "fiogate.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define S_TEXT_MAX 64

static int64_t s_clock_us(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static void s_sleep_us(int64_t us)
{
    struct timespec ts = {(time_t)(us / 1000000), (long)(us % 1000000) * 1000};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

int lg_fiogate_parse(const char *text, size_t len, int64_t *at_us)
{
    while (len && (text[len - 1] == '\n' || text[len - 1] == ' '))
        len--;
    size_t off = strlen(LG_FIOGATE_OFF);
    if (len == off && memcmp(text, LG_FIOGATE_OFF, off) == 0)
        return 1;
    if (len == 0 || len > 19)
        return -EBADMSG;
    int64_t v = 0;
    for (size_t i = 0; i < len; i++) {
        if (text[i] < '0' || text[i] > '9')
            return -EBADMSG;
        v = v * 10 + (text[i] - '0');
    }
    if (v <= 0)
        return -EBADMSG;
    *at_us = v;
    return 0;
}

/* The gate's instant: 0 (*at_us set), 1 called off, -ENOENT not yet there, or another error. The
 * agent renames the gate into place whole, so a gate that opens is complete. */
static int s_read_gate(const char *gate, int64_t *at_us)
{
    int fd = open(gate, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    char text[S_TEXT_MAX];
    ssize_t n;
    do
        n = read(fd, text, sizeof text);
    while (n < 0 && errno == EINTR);
    int e = errno;
    close(fd);
    if (n < 0)
        return -e;
    return lg_fiogate_parse(text, (size_t)n, at_us);
}

/* Wait until the gate holds an instant (or says the run is off), for at most LG_FIOGATE_WAIT_S. */
static int s_wait_gate(const char *gate, lg_fiogate_tick_fn tick, void *arg, int64_t *at_us,
                       char *err, size_t errlen)
{
    int64_t deadline = s_clock_us(CLOCK_MONOTONIC) + (int64_t)LG_FIOGATE_WAIT_S * 1000000;
    pid_t parent = getppid();
    for (;;) {
        int rc = s_read_gate(gate, at_us);
        if (rc == 0)
            return 0;
        if (rc == 1) {
            snprintf(err, errlen, "the run was called off before its start (gate \"%s\")", gate);
            return -ECANCELED;
        }
        if (rc != -ENOENT) {
            snprintf(err, errlen, "could not read the start gate \"%s\": %s", gate,
                     rc == -EBADMSG ? "not an instant" : strerror(-rc));
            return rc;
        }
        if (s_clock_us(CLOCK_MONOTONIC) >= deadline) {
            snprintf(err, errlen, "no start instant came through the gate \"%s\" within %d s", gate,
                     LG_FIOGATE_WAIT_S);
            return -ETIMEDOUT;
        }
        /* A job process whose fio is gone (killed with its agent) ends here, not after an hour. */
        if (getppid() != parent || (tick && tick(arg))) {
            snprintf(err, errlen, "fio ended before the start instant came (gate \"%s\")", gate);
            return -ECANCELED;
        }
        s_sleep_us(LG_FIOGATE_POLL_MS * 1000);
    }
}

int lg_fiogate_pass(const char *gate, unsigned job, lg_fiogate_tick_fn tick, void *arg,
                    int64_t *at_us, char *err, size_t errlen)
{
    char ready[PATH_MAX];
    if (snprintf(ready, sizeof ready, "%s%s%u", gate, LG_FIOGATE_READY, job) >= (int)sizeof ready) {
        snprintf(err, errlen, "the start gate's name \"%s\" is too long", gate);
        return -ENAMETOOLONG;
    }
    /* Ready: after the job's logins, each its own file in the agent's run folder. */
    int fd = open(ready, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) {
        int e = errno;
        snprintf(err, errlen, "could not say ready at \"%s\": %s", ready, strerror(e));
        return -e;
    }
    close(fd);
    int64_t at = 0;
    int rc = s_wait_gate(gate, tick, arg, &at, err, errlen);
    if (rc)
        return rc;
    if (at - s_clock_us(CLOCK_REALTIME) > (int64_t)LG_FIOGATE_WAIT_S * 1000000) {
        snprintf(err, errlen, "the start instant in \"%s\" is more than %d s away", gate,
                 LG_FIOGATE_WAIT_S);
        return -ERANGE;
    }
    /* Until a few ms before the instant, fio's status thread is answered every poll; the rest is
     * one absolute sleep, so the job wakes at the instant and not a poll after it. */
    for (;;) {
        int64_t left = at - s_clock_us(CLOCK_REALTIME);
        if (left <= 3 * LG_FIOGATE_POLL_MS * 1000)
            break;
        if (tick && tick(arg)) {
            snprintf(err, errlen, "fio ended before the start instant came (gate \"%s\")", gate);
            return -ECANCELED;
        }
        s_sleep_us(LG_FIOGATE_POLL_MS * 1000);
    }
    struct timespec ts = {(time_t)(at / 1000000), (long)(at % 1000000) * 1000};
    while (clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &ts, NULL) == EINTR)
        ;
    *at_us = at;
    return 0;
}

int lg_fiogate_open(const char *gate, int64_t at_us, char *err, size_t errlen)
{
    char tmp[PATH_MAX], text[S_TEXT_MAX];
    if (snprintf(tmp, sizeof tmp, "%s.tmp", gate) >= (int)sizeof tmp) {
        snprintf(err, errlen, "the start gate's name \"%s\" is too long", gate);
        return -ENAMETOOLONG;
    }
    int len = at_us > 0 ? snprintf(text, sizeof text, "%lld\n", (long long)at_us)
                        : snprintf(text, sizeof text, "%s\n", LG_FIOGATE_OFF);
    unlink(tmp); /* one a failed attempt left: the folder is ours */
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) {
        int e = errno;
        snprintf(err, errlen, "could not create \"%s\": %s", tmp, strerror(e));
        return -e;
    }
    ssize_t n = write(fd, text, (size_t)len);
    int e = n == len ? 0 : n < 0 ? errno : EIO;
    if (close(fd) != 0 && !e)
        e = errno;
    if (!e && rename(tmp, gate) != 0)
        e = errno;
    if (e) {
        unlink(tmp);
        snprintf(err, errlen, "could not open the start gate \"%s\": %s", gate, strerror(e));
        return -e;
    }
    return 0;
}

/* gate split into its folder and its name. Returns 0 or -ENAMETOOLONG. */
static int s_split(const char *gate, char *dir, size_t dirlen, const char **name)
{
    const char *slash = strrchr(gate, '/');
    *name = slash ? slash + 1 : gate;
    size_t n = slash ? (size_t)(slash - gate) : 0;
    if (n + 2 > dirlen)
        return -ENAMETOOLONG;
    if (slash && n == 0)
        n = 1; /* "/gate" */
    memcpy(dir, slash ? gate : ".", slash ? n : 1);
    dir[slash ? n : 1] = 0;
    return 0;
}

/* The files of kind (LG_FIOGATE_READY, _FAILED, _FIRST) beside gate: how many (removed too with
 * remove_them), or a negative errno; why, unless NULL, gets the text of the first; least, unless
 * NULL, the least number any of them holds (left as it was when none holds one). */
static int s_each(const char *gate, const char *kind, int remove_them, char *why, size_t whylen,
                  int64_t *least)
{
    char dir[PATH_MAX], prefix[NAME_MAX + 16];
    const char *name;
    int rc = s_split(gate, dir, sizeof dir, &name);
    if (rc)
        return rc;
    snprintf(prefix, sizeof prefix, "%s%s", name, kind);
    size_t plen = strlen(prefix);
    DIR *d = opendir(dir);
    if (!d)
        return -errno;
    int count = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strncmp(e->d_name, prefix, plen) != 0 || !e->d_name[plen])
            continue;
        char path[PATH_MAX + NAME_MAX + 2];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (why && count == 0) {
            int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
            ssize_t n = fd >= 0 ? read(fd, why, whylen - 1) : -1;
            why[n > 0 ? n : 0] = 0;
            if (fd >= 0)
                close(fd);
        }
        if (least) {
            char num[32];
            int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
            ssize_t n = fd >= 0 ? read(fd, num, sizeof num - 1) : -1;
            num[n > 0 ? n : 0] = 0;
            if (fd >= 0)
                close(fd);
            char *end;
            long long v = strtoll(num, &end, 10);
            if (end != num && v > 0 && (*least == 0 || v < *least))
                *least = v;
        }
        count++;
        if (remove_them)
            unlink(path);
    }
    closedir(d);
    return count;
}

int lg_fiogate_ready(const char *gate)
{
    return s_each(gate, LG_FIOGATE_READY, 0, NULL, 0, NULL);
}

int lg_fiogate_failed(const char *gate, char *why, size_t whylen)
{
    return s_each(gate, LG_FIOGATE_FAILED, 0, why, whylen, NULL) > 0;
}

/* "<gate><kind><job>" holding text, written whole (as "<gate>.failing.<job>") before it has the
 * name the agent looks for. Best effort. */
static void s_put(const char *gate, const char *kind, unsigned job, const char *text)
{
    char tmp[PATH_MAX], path[PATH_MAX];
    if (snprintf(path, sizeof path, "%s%s%u", gate, kind, job) >= (int)sizeof path ||
        snprintf(tmp, sizeof tmp, "%s.failing.%u", gate, job) >= (int)sizeof tmp)
        return;
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0)
        return;
    ssize_t n = write(fd, text, strlen(text));
    if (close(fd) != 0 || n != (ssize_t)strlen(text) || rename(tmp, path) != 0)
        unlink(tmp);
}

void lg_fiogate_fail(const char *gate, unsigned job, const char *why)
{
    s_put(gate, LG_FIOGATE_FAILED, job, why);
}

int64_t lg_fiogate_first(const char *gate)
{
    int64_t least = 0;
    s_each(gate, LG_FIOGATE_FIRST, 0, NULL, 0, &least);
    return least;
}

void lg_fiogate_first_io(const char *gate, unsigned job, int64_t at_us)
{
    char text[32];
    snprintf(text, sizeof text, "%lld\n", (long long)at_us);
    s_put(gate, LG_FIOGATE_FIRST, job, text);
}

void lg_fiogate_mark(const char *gate, unsigned job, int64_t at_us)
{
    char text[32];
    snprintf(text, sizeof text, "%lld\n", (long long)at_us);
    s_put(gate, LG_FIOGATE_MARK, job, text);
}

int64_t lg_fiogate_marked(const char *gate)
{
    int64_t least = 0;
    s_each(gate, LG_FIOGATE_MARK, 0, NULL, 0, &least);
    return least;
}

void lg_fiogate_remove(const char *gate)
{
    char tmp[PATH_MAX];
    s_each(gate, LG_FIOGATE_FIRST, 1, NULL, 0, NULL);
    s_each(gate, LG_FIOGATE_MARK, 1, NULL, 0, NULL);
    s_each(gate, LG_FIOGATE_READY, 1, NULL, 0, NULL);
    s_each(gate, LG_FIOGATE_FAILED, 1, NULL, 0, NULL);
    s_each(gate, ".failing.", 1, NULL, 0, NULL);
    unlink(gate);
    if (snprintf(tmp, sizeof tmp, "%s.tmp", gate) < (int)sizeof tmp)
        unlink(tmp);
}
