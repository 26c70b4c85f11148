/* appclean.c: cleaning up after an agent killed during an application run (see appclean.h).
 * Nothing is found by name: processes come from the record and the server's own pid file and
 * are checked against /proc before any signal; folders are reached through descriptors and
 * compared with the device and inode recorded when they were made. */
#include "appclean.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "appfs.h"
#include "apprec.h"
#include "lg_app.h"
#include "lg_error.h"
#include "lg_log.h"
#include "lg_util.h"

#define POLL_MS 50
#define CLIENT_WAIT_MS 3000

typedef struct {
    lg_apprec_t rec;
    const char *tool;   /* "pgbench", "sysbench" */
    const char *server; /* "PostgreSQL", "MariaDB" */
    char done[2048];    /* what was done, for the one line that says so */
    size_t done_len;
    int server_left; /* a server of the record still runs */
    int server_seen; /* a running server was found (and stopped, or not) */
} clean_t;

static void s_did(clean_t *c, const char *fmt, ...) LG_PRINTF(2, 3);

static void s_did(clean_t *c, const char *fmt, ...)
{
    if (c->done_len + 3 >= sizeof c->done)
        return;
    if (c->done_len)
        c->done_len += (size_t)snprintf(c->done + c->done_len, sizeof c->done - c->done_len, "; ");
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(c->done + c->done_len, sizeof c->done - c->done_len, fmt, ap);
    va_end(ap);
    if (n > 0)
        c->done_len += (size_t)n;
    if (c->done_len >= sizeof c->done)
        c->done_len = sizeof c->done - 1;
}

static void s_sleep_ms(unsigned ms)
{
    struct timespec ts = {(time_t)(ms / 1000), (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

/* Is the process that was pid at start gone (or a zombie)? */
static int s_gone(int pid, uint64_t start)
{
    int zombie;
    uint64_t now = lg_apprec_starttime(pid, &zombie);
    return now != start || zombie;
}

static int s_wait_gone(int pid, uint64_t start, unsigned ms)
{
    for (uint64_t end = lg_mono_ms() + ms; !s_gone(pid, start); s_sleep_ms(POLL_MS))
        if (lg_mono_ms() >= end)
            return 0;
    return 1;
}

/* Signal pid's process group when it leads one (every process of a run was started in a
 * session of its own), else pid alone. */
static void s_signal(int pid, int sig)
{
    if (getpgid(pid) == pid)
        kill(-pid, sig);
    else
        kill(pid, sig);
}

/* ---- is it the server? ---- */

static int s_exe_is(int pid, const char *want)
{
    char link[64], exe[LG_APPREC_PATH + 16];
    snprintf(link, sizeof link, "/proc/%d/exe", pid);
    ssize_t n = readlink(link, exe, sizeof exe - 1);
    if (n <= 0)
        return 0;
    exe[n] = 0;
    size_t wl = strlen(want);
    return !strcmp(exe, want) || (!strncmp(exe, want, wl) && !strcmp(exe + wl, " (deleted)"));
}

/* Does pid's command line give dir as its data folder ("-D DIR" or "--datadir=DIR")? */
static int s_cmdline_names(int pid, const char *dir)
{
    char path[64], buf[8192];
    snprintf(path, sizeof path, "/proc/%d/cmdline", pid);
    size_t n = lg_read_small(path, 0, buf, sizeof buf);
    for (const char *a = buf; a < buf + n; a += strlen(a) + 1)
        if (!strcmp(a, dir) || (!strncmp(a, "--datadir=", 10) && !strcmp(a + 10, dir)))
            return 1;
    return 0;
}

/* Is pid the record's server: its program, and working in (or started on) its data folder? */
static int s_is_server(const clean_t *c, int pid)
{
    if (pid <= 1 || pid == getpid() || !s_exe_is(pid, c->rec.server))
        return 0;
    char cwd[64];
    struct stat st;
    snprintf(cwd, sizeof cwd, "/proc/%d/cwd", pid);
    if (stat(cwd, &st) == 0 && (uint64_t)st.st_dev == c->rec.data_dev &&
        (uint64_t)st.st_ino == c->rec.data_ino)
        return 1;
    return s_cmdline_names(pid, c->rec.data);
}

/* The PID in the server's own pid file (PostgreSQL's DATA/postmaster.pid, MariaDB's
 * SOCK/mysqld.pid: its first line), 0 when there is none. */
static int s_pidfile_pid(const clean_t *c)
{
    char path[LG_APPREC_PATH + 32], buf[64];
    if (c->rec.kind == LG_APP_PGBENCH)
        snprintf(path, sizeof path, "%s/postmaster.pid", c->rec.data);
    else
        snprintf(path, sizeof path, "%s/mysqld.pid", c->rec.sock);
    if (!lg_read_small(path, O_NOFOLLOW, buf, sizeof buf))
        return 0;
    buf[strcspn(buf, "\n")] = 0;
    uint64_t pid;
    return lg_parse_u64(buf, 2, INT32_MAX, &pid) == 0 ? (int)pid : 0;
}

/* ---- stopping ---- */

static void s_stop_server(clean_t *c, int pid, const char *found_by)
{
    uint64_t start = pid > 0 ? lg_apprec_starttime(pid, NULL) : 0;
    if (!start)
        return;
    if (!s_is_server(c, pid)) { /* a PID used again since, by another program */
        s_did(c, "%s names pid %d, which is not its server: left alone", found_by, pid);
        return;
    }
    c->server_seen = 1;
    /* PostgreSQL: SIGINT is a fast shutdown; MariaDB stops cleanly on SIGTERM. */
    int sig = c->rec.kind == LG_APP_PGBENCH ? SIGINT : SIGTERM;
    kill(pid, sig);
    if (s_wait_gone(pid, start, LG_APPCLEAN_STOP_MS)) {
        s_did(c, "stopped its %s server (pid %d, from %s) with %s", c->server, pid, found_by,
              sig == SIGINT ? "SIGINT" : "SIGTERM");
        return;
    }
    lg_warn("%s run %llu: its %s server (pid %d) did not stop within %d s: killing it", c->tool,
            (unsigned long long)c->rec.run_id, c->server, pid, LG_APPCLEAN_STOP_MS / 1000);
    s_signal(pid, SIGKILL);
    if (s_wait_gone(pid, start, LG_APPCLEAN_KILL_MS)) {
        s_did(c, "killed its %s server (pid %d, from %s) after %d s", c->server, pid, found_by,
              LG_APPCLEAN_STOP_MS / 1000);
        return;
    }
    s_did(c, "could not stop its %s server (pid %d)", c->server, pid);
    c->server_left = 1;
}

/* The run's clients (initdb, the load, the tool): killed with their process groups. */
static void s_kill_clients(clean_t *c)
{
    int killed = 0;
    uint64_t end = lg_mono_ms() + CLIENT_WAIT_MS;
    for (size_t i = 0; i < c->rec.nprocs; i++) {
        const lg_apprec_proc_t *p = &c->rec.procs[i];
        if (p->server || p->pid == getpid() || s_gone(p->pid, p->start))
            continue;
        s_signal(p->pid, SIGKILL);
        killed++;
    }
    int left = 0;
    for (size_t i = 0; i < c->rec.nprocs; i++) {
        const lg_apprec_proc_t *p = &c->rec.procs[i];
        uint64_t now = lg_mono_ms();
        if (!p->server && !s_wait_gone(p->pid, p->start, now < end ? (unsigned)(end - now) : 0))
            left++;
    }
    if (killed)
        s_did(c, "killed %d of its client processes%s", killed, left ? " (some did not end)" : "");
}

/* ---- removing ---- */

/* Remove the folder at path if it is still the one recorded (device, inode, owner). */
static void s_rm_folder(clean_t *c, const char *what, const char *path, uint64_t dev, uint64_t ino)
{
    char parent[LG_APPREC_PATH];
    lg_strlcpy(parent, path, sizeof parent);
    char *slash = strrchr(parent, '/');
    const char *name = path + (slash - parent) + 1;
    if (slash == parent)
        parent[1] = 0;
    else
        *slash = 0;
    lg_appfs_folder_t f = {.pfd = -1, .fd = -1};
    lg_strlcpy(f.name, name, sizeof f.name);
    lg_strlcpy(f.path, path, sizeof f.path);
    f.pfd = open(parent, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (f.pfd >= 0)
        f.fd = openat(f.pfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    struct stat st;
    if (f.fd < 0) {
        int e = errno;
        if (e == ENOENT)
            s_did(c, "its %s \"%s\" was gone already", what, path);
        else
            s_did(c, "left its %s \"%s\" alone: %s", what, path, strerror(e));
    } else if (fstat(f.fd, &st) != 0 || (uint64_t)st.st_dev != dev || (uint64_t)st.st_ino != ino ||
               st.st_uid != c->rec.uid) {
        s_did(c, "left \"%s\" alone: it is not the %s lg made", path, what);
    } else {
        char err[512] = "";
        if (lg_appfs_folder_rm(&f, err, sizeof err) == 0)
            s_did(c, "removed its %s \"%s\"", what, path);
        else
            s_did(c, "could not remove all of its %s \"%s\": %s", what, path, err);
    }
    lg_appfs_folder_close(&f);
}

/* ---- one record ---- */

/* The record named name in the open folder dfd into c. Returns 0 or an error with err set. */
static int s_read(int dfd, const char *name, clean_t *c, char *err, size_t errlen)
{
    char text[LG_APPREC_MAX_BYTES + 1];
    long len = lg_rec_read(dfd, name, text, LG_APPREC_MAX_BYTES, err, errlen);
    if (len < 0)
        return (int)len;
    int rc = lg_apprec_parse(text, (size_t)len, &c->rec, err, errlen);
    if (rc == 0) {
        int pg = c->rec.kind == LG_APP_PGBENCH;
        c->tool = pg ? "pgbench" : "sysbench";
        c->server = pg ? "PostgreSQL" : "MariaDB";
    }
    return rc;
}

static void s_clean_one(const char *work_dir, int dfd, const char *name)
{
    clean_t c;
    memset(&c, 0, sizeof c);
    char err[512];
    if (s_read(dfd, name, &c, err, sizeof err) != 0) {
        lg_warn("\"%s/%s\" is not a record of an application run: %s", work_dir, name, err);
        lg_log_hint("Look at it and remove it; lg-agent leaves it alone.");
        return;
    }
    lg_warn("%s run %llu: an agent ended during it without cleaning up (its record \"%s/%s\"): "
            "stopping what is left of its %s server and removing its folders",
            c.tool, (unsigned long long)c.rec.run_id, work_dir, name, c.server);
    char boot[40];
    if (lg_apprec_boot_id(boot, sizeof boot) == 0 && strcmp(boot, c.rec.boot) != 0) {
        /* its PIDs name other processes now, even with the same start times */
        s_did(&c, "the machine restarted since: no process of it runs");
        c.server_seen = 1;
    } else {
        s_kill_clients(&c);
        int pid = s_pidfile_pid(&c);
        s_stop_server(&c, pid, "its pid file");
        for (size_t i = 0; i < c.rec.nprocs; i++) {
            const lg_apprec_proc_t *p = &c.rec.procs[i];
            if (p->server && p->pid != pid && !s_gone(p->pid, p->start))
                s_stop_server(&c, p->pid, "the record");
        }
    }
    if (!c.server_seen)
        s_did(&c, "its %s server was not running", c.server);
    if (c.server_left) {
        lg_warn("%s run %llu: %s", c.tool, (unsigned long long)c.rec.run_id, c.done);
        lg_log_hint("The record stays: the next start tries again. Its folders are left as "
                    "they are while the server runs.");
        return;
    }
    if (c.rec.keep)
        s_did(&c, "kept its data folder \"%s\" (keep: true)", c.rec.data);
    else
        s_rm_folder(&c, "data folder", c.rec.data, c.rec.data_dev, c.rec.data_ino);
    s_rm_folder(&c, "socket folder", c.rec.sock, c.rec.sock_dev, c.rec.sock_ino);
    int rc = lg_apprec_remove(work_dir, c.rec.run_id);
    if (rc)
        s_did(&c, "could not remove the record: %s", lg_strerror(rc));
    lg_warn("%s run %llu cleaned up: %s", c.tool, (unsigned long long)c.rec.run_id, c.done);
}

int lg_appclean_run(const char *work_dir)
{
    int dfd = open(work_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
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
    char names[64][64];
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL && n < 64) {
        size_t l = strlen(e->d_name);
        if (!strncmp(e->d_name, "app-", 4) && l > 8 && l < sizeof names[0] &&
            !strcmp(e->d_name + l - 4, ".rec"))
            lg_strlcpy(names[n++], e->d_name, sizeof names[0]);
    }
    closedir(d);
    for (int i = 0; i < n; i++)
        s_clean_one(work_dir, dfd, names[i]);
    close(dfd);
    return n;
}
