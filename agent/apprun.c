/* apprun.c: an application benchmark run in the agent's loop. A chain of child processes, each
 * started when the one before ended (initdb, the server, readiness polls, the data set's load),
 * then the tool held by fiorun until the instant; afterwards the server is stopped and the
 * folders removed on a worker thread. Nothing goes through a shell but the tool's own
 * `exec "$0" "$@" 2>&1`, whose arguments are never interpolated. */
#include "apprun.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "appfs.h"
#include "appout.h"
#include "appprog.h"
#include "apprec.h"
#include "apprun_int.h"
#include "fiorun.h"
#include "lg_child.h"
#include "lg_error.h"
#include "lg_esc.h"
#include "lg_log.h"
#include "lg_util.h"
#include "platform.h"

#define TAIL_CAP 4096          /* the end of a step's or the server's output, for errors */
#define READY_TIMEOUT_MS 60000 /* the server must accept connections within this */
#define READY_POLL_MS 200
#define STOP_KILL_MS 20000       /* a server not down by then is killed with its group */
#define TOOL_STOP_GRACE_MS 10000 /* pgbench not ended by then after a Stop is killed */

/* ---- small helpers ---- */

static void s_fail_msg(lg_apprun_t *r, int code, const char *fmt, ...) LG_PRINTF(3, 4);
static void s_server_end(void *arg, const lg_child_exit_t *e);
static void s_teardown(lg_apprun_t *r);
static void s_run_step(lg_apprun_t *r);

/* The first error is the one that counts: what follows from it is only its consequence. */
static void s_fail_msg(lg_apprun_t *r, int code, const char *fmt, ...)
{
    if (r->err)
        return;
    r->err = code ? code : LG_ECHILD;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->errmsg, sizeof r->errmsg, fmt, ap);
    va_end(ap);
}

static void s_join_argv(char *const *argv, char *buf, size_t len)
{
    size_t n = 0;
    buf[0] = 0;
    for (size_t i = 0; argv[i] && n + 1 < len; i++) {
        int w = snprintf(buf + n, len - n, "%s%s", i ? " " : "", argv[i]);
        if (w < 0)
            break;
        n += (size_t)w;
    }
}

/* The last at most max bytes of a tail, from a line start where possible, else from a
 * character's start. */
static const char *s_tail_of(const char *t, size_t len, size_t max)
{
    if (len <= max)
        return t;
    const char *p = t + len - max;
    const char *nl = memchr(p, '\n', max);
    return nl && nl + 1 < t + len ? nl + 1 : p + lg_utf8_tail_skip(p, max);
}

/* A process the run started goes into its record before anything else happens: an agent
 * killed from now on leaves it findable. */
static void s_record_proc(lg_apprun_t *r, int pid, int server)
{
    if (r->rec_fd < 0 || pid <= 0)
        return;
    int rc = lg_apprec_add_proc(r->rec_fd, pid, server);
    if (rc && rc != -ESRCH && !r->rec_warned) {
        r->rec_warned = 1;
        lg_warn("%s run %llu: could not add process %d to the run's record: %s", r->tool_name,
                (unsigned long long)r->run_id, pid, lg_strerror(rc));
    }
}

/* ---- children ---- */

static void s_maybe_destroy(lg_apprun_t **self_p);

/* Start argv (argv[0] an absolute path) as the application user, in a session and process
 * group of its own, with a small fixed environment, its stdout and stderr in one pipe. Returns
 * 0 with *out set (on_end follows), or a negative libuv error with r's error message set. */
static int s_spawn(lg_apprun_t *r, char **argv, lg_child_exit_cb on_end, lg_child_t **out)
{
    char *line = on_end == s_server_end ? r->server_line : r->cmd_line;
    s_join_argv(argv, line, sizeof r->cmd_line);
    lg_child_opts_t o;
    memset(&o, 0, sizeof o);
    o.argv = argv;
    o.env = r->env;
    o.cwd = r->sock.path;
    o.group = 1;
    o.setid = r->setid;
    o.uid = (unsigned)r->uid;
    o.gid = (unsigned)r->gid;
    o.out = LG_CHILD_MERGE;
    o.tail_cap = TAIL_CAP;
    o.on_exit = on_end;
    o.arg = r;
    int rc = lg_child_start(r->loop, &o, out);
    if (rc) {
        s_fail_msg(r, LG_ECHILD, "could not start \"%s\": %s", line, uv_strerror(rc));
        return rc;
    }
    /* not the readiness polls: a few a second, each ends within its 2 s timeout */
    if (on_end == s_server_end || r->step != ST_READY)
        s_record_proc(r, lg_child_pid(*out), on_end == s_server_end);
    return 0;
}

/* ---- the server ---- */

static void s_on_timer_kill(uv_timer_t *t)
{
    lg_apprun_t *r = t->data;
    if (r->server) {
        lg_warn("%s server %d did not stop in %d s: killing it", r->tool_name, r->server_pid,
                STOP_KILL_MS / 1000);
        lg_child_kill(r->server, SIGKILL);
    }
}

static void s_server_end(void *arg, const lg_child_exit_t *e)
{
    lg_apprun_t *r = arg;
    lg_child_kill(r->server, SIGKILL); /* whatever of its group is left */
    r->server = NULL;
    r->server_pid = 0;
    if (r->step < ST_STOPPING) {
        s_fail_msg(r, LG_ECHILD,
                   "the %s server (\"%s\") exited unexpectedly (status %lld, "
                   "signal %d): %s",
                   r->kind == LG_APP_PGBENCH ? "PostgreSQL" : "MariaDB", r->server_line,
                   (long long)e->status, e->term_signal,
                   e->tail_len ? s_tail_of(e->tail, e->tail_len, 1500) : "no output");
        s_teardown(r);
        return;
    }
    s_teardown(r); /* goes on with removing the folders */
}

static void s_rm_work(uv_work_t *w)
{
    lg_apprun_t *r = w->data;
    char err[512] = "";
    if (!r->keep && r->data.fd >= 0 && lg_appfs_folder_rm(&r->data, err, sizeof err) != 0)
        snprintf(r->rm_err, sizeof r->rm_err, "data folder \"%s\": %s", r->data.path, err);
    if (r->sock.fd >= 0 && lg_appfs_folder_rm(&r->sock, err, sizeof err) != 0 && !r->rm_err[0])
        snprintf(r->rm_err, sizeof r->rm_err, "socket folder \"%s\": %s", r->sock.path, err);
}

static void s_timer_closed(uv_handle_t *h)
{
    lg_apprun_t *r = h->data;
    r->timer_open = 0;
    s_maybe_destroy(&r);
}

/* Once lg_apprun_destroy was called and everything is done, its timer closed: free *self_p and
 * set it to NULL. Before that, nothing (a later callback calls it again). */
static void s_maybe_destroy(lg_apprun_t **self_p)
{
    lg_apprun_t *r = *self_p;
    if (!r || !r->destroyed || r->step != ST_DONE)
        return;
    if (r->timer_open) {
        if (!uv_is_closing((uv_handle_t *)&r->timer))
            uv_close((uv_handle_t *)&r->timer, s_timer_closed);
        return;
    }
    *self_p = NULL;
    lg_appout_clear(&r->out);
    free(r->rec_dir);
    free(r);
}

static void s_rm_after(uv_work_t *w, int status)
{
    lg_apprun_t *r = w->data;
    (void)status;
    if (r->rm_err[0])
        lg_warn("%s run %llu: %s", r->tool_name, (unsigned long long)r->run_id, r->rm_err);
    else if (r->keep)
        lg_info("%s run %llu: data folder \"%s\" kept (its server is stopped)", r->tool_name,
                (unsigned long long)r->run_id, r->data.path);
    lg_appfs_folder_close(&r->data);
    lg_appfs_folder_close(&r->sock);
    if (r->rec_fd >= 0) {
        close(r->rec_fd);
        r->rec_fd = -1;
        /* Everything stopped and removed (or kept, as asked): nothing left to clean up after.
         * What could not be removed keeps its record, for the next start to try again. */
        int rc = r->rm_err[0] ? 0 : lg_apprec_remove(r->rec_dir, r->run_id);
        if (rc)
            lg_warn("%s run %llu: could not remove its record in \"%s\": %s", r->tool_name,
                    (unsigned long long)r->run_id, r->rec_dir, lg_strerror(rc));
    }
    r->step = ST_DONE;
    if (!r->destroyed && r->cbs.on_done) {
        lg_apprun_result_t res;
        memset(&res, 0, sizeof res);
        res.tot = r->has_tot ? &r->tot : NULL;
        res.prepare_ms = r->prepare_ms;
        res.output = r->out.out ? r->out.out : "";
        res.output_len = r->out.out_len;
        res.exit_status = r->tool_ran ? r->tool_status : -1;
        res.term_signal = r->tool_sig;
        res.samples = r->out.seq;
        res.err = r->err;
        res.error = r->err ? r->errmsg : NULL;
        res.stop_note = r->stop_note[0] ? r->stop_note : NULL;
        r->cbs.on_done(r->arg, &res);
    }
    s_maybe_destroy(&r);
}

/* Stop everything: the step running, the tool, then the server; once all have exited the
 * folders are removed (s_rm_after) and on_done says how it went. */
static void s_teardown(lg_apprun_t *r)
{
    if (r->step < ST_STOPPING) {
        r->step = ST_STOPPING;
        if (r->timer_open)
            uv_timer_stop(&r->timer);
        if (r->cmd)
            lg_child_kill(r->cmd, SIGKILL);
        lg_fiorun_destroy(&r->tool); /* kills it if it still runs (or is held) */
        if (r->server) {
            /* PostgreSQL: SIGINT is a fast shutdown; MariaDB stops cleanly on SIGTERM. */
            lg_child_kill_one(r->server, r->kind == LG_APP_PGBENCH ? SIGINT : SIGTERM);
            uv_timer_start(&r->timer, s_on_timer_kill, STOP_KILL_MS, 0);
        }
    }
    if (r->step != ST_STOPPING || r->server || r->cmd)
        return;
    if (r->timer_open)
        uv_timer_stop(&r->timer);
    r->step = ST_REMOVING;
    r->rm.data = r;
    if (uv_queue_work(r->loop, &r->rm, s_rm_work, s_rm_after) != 0) {
        s_rm_work(&r->rm);
        s_rm_after(&r->rm, 0);
    }
}

/* ---- the tool ---- */

static void s_sample(void *arg, uint64_t seq, int64_t t_ms, uint64_t interval_ms,
                     const lg_app_sample_t *s)
{
    lg_apprun_t *r = arg;
    if (r->cbs.on_sample && !r->destroyed)
        r->cbs.on_sample(r->arg, seq, t_ms, interval_ms, s);
}

static void s_tool_out(void *arg, const char *data, size_t len)
{
    lg_apprun_t *r = arg;
    lg_appout_feed(&r->out, data, len);
}

static void s_tool_started(void *arg, int64_t t_us, int err)
{
    lg_apprun_t *r = arg;
    r->out.start_us = t_us;
    r->run_mono_ms = lg_mono_ms();
    if (err)
        s_fail_msg(r, LG_ECHILD, "could not start %s: %s", r->tool_name, uv_strerror(err));
    else
        r->step = ST_RUNNING;
    if (r->cbs.on_started && !r->destroyed)
        r->cbs.on_started(r->arg, t_us, err);
}

static void s_tool_exit(void *arg, int64_t status, int sig, const char *err_tail)
{
    lg_apprun_t *r = arg;
    lg_appout_finish(&r->out);
    r->tool_ran = 1;
    r->tool_status = status;
    r->tool_sig = sig;
    char perr[256] = "";
    const lg_appout_t *o = &r->out;
    r->has_tot =
        o->out && lg_app_parse_final(r->kind, o->out, o->out_len, &r->tot, perr, sizeof perr) == 0;
    const char *tail = o->out_len ? s_tail_of(o->out, o->out_len, 1500) : err_tail;
    if (r->stopped && r->has_tot)
        snprintf(r->stop_note, sizeof r->stop_note,
                 "%s ended on SIGALRM, its own -T timer (the Stop), %.1f s of its %u s into the "
                 "run, and printed its summary over the time it ran",
                 r->tool_name, (double)(lg_mono_ms() - r->run_mono_ms) / 1000.0, r->runtime_s);
    if (r->stopped && !r->has_tot && r->stop_killed)
        s_fail_msg(r, LG_ESTATE,
                   "%s did not end within %d s of the Stop (SIGALRM) and was "
                   "killed, so it printed no summary: the run has only its %llu per-second "
                   "reports",
                   r->tool_name, TOOL_STOP_GRACE_MS / 1000, (unsigned long long)o->seq);
    else if (r->stopped && !r->has_tot)
        s_fail_msg(r, LG_ESTATE,
                   "%s was stopped before its end and printed no summary: the run "
                   "has only its %llu per-second reports",
                   r->tool_name, (unsigned long long)o->seq);
    else if ((status != 0 || sig != 0) && !r->stopped)
        s_fail_msg(r, LG_ECHILD, "%s exited with status %lld (signal %d): %s", r->tool_name,
                   (long long)status, sig, tail && tail[0] ? tail : "no output");
    else if (!r->has_tot)
        s_fail_msg(r, LG_EPARSE, "%s's summary could not be read: %s", r->tool_name, perr);
    if (o->out_cut)
        lg_warn("%s run %llu: its output was cut at %u bytes", r->tool_name,
                (unsigned long long)r->run_id, LG_APPOUT_CAP);
    lg_fiorun_destroy(&r->tool);
    s_teardown(r);
}

/* sysbench's oltp_read_write arguments that prepare and run share, formatted in b */
typedef struct {
    char sock[200], tables[40], size[48];
} s_sysbench_bufs_t;

#define SYSBENCH_ARGC 8 /* what s_sysbench_argv puts in argv */

static int s_sysbench_argv(lg_apprun_t *r, s_sysbench_bufs_t *b, char **argv)
{
    snprintf(b->sock, sizeof b->sock, "--mysql-socket=%s", r->sockfile);
    snprintf(b->tables, sizeof b->tables, "--tables=%u", r->tables);
    snprintf(b->size, sizeof b->size, "--table-size=%llu", (unsigned long long)r->table_size);
    char *a[SYSBENCH_ARGC] = {
        r->prog.sysbench,    "oltp_read_write",   "--db-driver=mysql", b->sock,
        "--mysql-user=root", "--mysql-db=sbtest", b->tables,           b->size};
    memcpy(argv, a, sizeof a);
    return SYSBENCH_ARGC;
}

static int s_hold_tool(lg_apprun_t *r)
{
    char rt[24], cl[24], jobs[24];
    s_sysbench_bufs_t sb;
    snprintf(rt, sizeof rt, "%u", r->runtime_s);
    snprintf(cl, sizeof cl, "%u", r->clients);
    char pgbench[1100];
    char *argv[24];
    int n = 0;
    /* stderr into stdout, in order (pgbench's progress is on stderr); "$0" "$@" are the tool
     * and its arguments, passed as arguments: the shell interpolates nothing of them. */
    argv[n++] = "/bin/sh";
    argv[n++] = "-c";
    argv[n++] = "exec \"$0\" \"$@\" 2>&1";
    if (r->kind == LG_APP_PGBENCH) {
        snprintf(pgbench, sizeof pgbench, "%s/pgbench", r->prog.pgbin);
        snprintf(jobs, sizeof jobs, "%u", r->jobs);
        char *a[] = {pgbench, "-h", r->sock.path, "-U", "postgres", "-P", "1",
                     "-T",    rt,   "-c",         cl,   "-j",       jobs, "bench"};
        for (size_t i = 0; i < sizeof a / sizeof a[0]; i++)
            argv[n++] = a[i];
    } else {
        char thr[40], tm[40];
        snprintf(thr, sizeof thr, "--threads=%u", r->clients);
        snprintf(tm, sizeof tm, "--time=%u", r->runtime_s);
        n += s_sysbench_argv(r, &sb, argv + n);
        argv[n++] = thr;
        argv[n++] = tm;
        argv[n++] = "--report-interval=1";
        argv[n++] = "run";
    }
    argv[n] = NULL;
    /* The client runs as the server does (--app-user), not as the agent: it only needs the
     * private socket, which that user owns. */
    /* with the load step's clean environment: an agent started with PGPORT or LD_PRELOAD set
     * must not point the measured tool elsewhere */
    int rc = lg_fiorun_start_held_env(r->loop, argv, r->sock.path, r->setid ? &r->uid : NULL,
                                      r->setid ? &r->gid : NULL, r->env, NULL, s_tool_started,
                                      s_tool_exit, r, &r->tool);
    if (rc) {
        char cmd[512];
        s_join_argv(argv + 3, cmd, sizeof cmd);
        s_fail_msg(r, LG_ECHILD, "could not start \"%s\": %s", cmd, uv_strerror(rc));
        return rc;
    }
    lg_fiorun_set_raw(r->tool, s_tool_out);
    s_record_proc(r, (int)lg_fiorun_pid(r->tool), 0);
    return 0;
}

/* ---- the preparation, step by step ---- */

static const char *s_step_name(const lg_apprun_t *r)
{
    int pg = r->kind == LG_APP_PGBENCH;
    switch (r->step) {
    case ST_INSTALL:
        return pg ? "creating the database cluster" : "creating the database";
    case ST_READY:
        return pg ? "waiting for PostgreSQL to accept connections"
                  : "waiting for MariaDB to accept connections";
    case ST_CREATEDB:
        return "creating the benchmark database";
    case ST_LOAD:
        return "loading the data set";
    default:
        return "preparing";
    }
}

static void s_on_timer_step(uv_timer_t *t)
{
    s_run_step(t->data);
}

static void s_cmd_end(void *arg, const lg_child_exit_t *e)
{
    lg_apprun_t *r = arg;
    r->cmd = NULL;
    if (r->step >= ST_STOPPING) {
        s_teardown(r);
        return;
    }
    int ok = e->status == 0 && e->term_signal == 0;
    size_t stail_len = 0;
    const char *stail = lg_child_tail(r->server, &stail_len);
    if (r->step == ST_READY && !ok) {
        if (lg_mono_ms() < r->ready_deadline_ms) {
            uv_timer_start(&r->timer, s_on_timer_step, READY_POLL_MS, 0);
            return;
        }
        s_fail_msg(r, LG_ETIMEOUT,
                   "%s run %llu: the server did not accept connections within "
                   "%d s (\"%s\": %s); server output: %s",
                   r->tool_name, (unsigned long long)r->run_id, READY_TIMEOUT_MS / 1000,
                   r->cmd_line, e->tail_len ? e->tail : "no output",
                   stail_len ? s_tail_of(stail, stail_len, 1500) : "none");
        s_teardown(r);
        return;
    }
    if (!ok) {
        s_fail_msg(r, LG_ECHILD,
                   "%s run %llu: %s failed: \"%s\" exited with status %lld "
                   "(signal %d): %s",
                   r->tool_name, (unsigned long long)r->run_id, s_step_name(r), r->cmd_line,
                   (long long)e->status, e->term_signal,
                   e->tail_len ? s_tail_of(e->tail, e->tail_len, 1500) : "no output");
        s_teardown(r);
        return;
    }
    if (r->step == ST_READY) {
        char what[300];
        int l = lg_appfs_tcp_listens(r->server_pid, what, sizeof what);
        if (l != 0) {
            s_fail_msg(r, LG_EDENIED,
                       "%s run %llu: the server must be reachable only through "
                       "its socket, and %s",
                       r->tool_name, (unsigned long long)r->run_id,
                       l > 0 ? what : "its sockets could not be checked");
            if (l < 0)
                lg_log_detail("%s", what);
            s_teardown(r);
            return;
        }
    }
    r->step++;
    s_run_step(r);
}

/* Start the server process (its output's tail kept for messages). */
static int s_start_server(lg_apprun_t *r)
{
    char postgres[1100], datadir[1200], sockarg[200], pidarg[200];
    int rc;
    if (r->kind == LG_APP_PGBENCH) {
        snprintf(postgres, sizeof postgres, "%s/postgres", r->prog.pgbin);
        char *argv[] = {
            postgres, "-D", r->data.path, "-c", "listen_addresses=", "-k", r->sock.path, NULL};
        rc = s_spawn(r, argv, s_server_end, &r->server);
    } else {
        snprintf(datadir, sizeof datadir, "--datadir=%s", r->data.path);
        snprintf(sockarg, sizeof sockarg, "--socket=%s", r->sockfile);
        snprintf(pidarg, sizeof pidarg, "--pid-file=%s/mysqld.pid", r->sock.path);
        char *argv[] = {
            r->prog.mdbd, "--no-defaults", "--skip-networking", datadir, sockarg, pidarg, NULL};
        rc = s_spawn(r, argv, s_server_end, &r->server);
    }
    if (rc == 0) {
        r->server_pid = lg_child_pid(r->server);
        lg_info("%s run %llu: server %d started on \"%s\" (socket in \"%s\")", r->tool_name,
                (unsigned long long)r->run_id, r->server_pid, r->data.path, r->sock.path);
    }
    return rc;
}

static void s_run_step(lg_apprun_t *r)
{
    char bin[1100], a1[1200], a2[200], a3[64];
    int rc = 0;
    int pg = r->kind == LG_APP_PGBENCH;
    if (r->step >= ST_STOPPING)
        return;
    if (r->step == ST_START)
        r->step = ST_INSTALL;
    switch (r->step) {
    case ST_INSTALL:
        if (pg) {
            snprintf(bin, sizeof bin, "%s/initdb", r->prog.pgbin);
            char *argv[] = {bin,         "-A", "trust",      "-U", "postgres",
                            "--no-sync", "-D", r->data.path, NULL};
            rc = s_spawn(r, argv, s_cmd_end, &r->cmd);
        } else {
            snprintf(a1, sizeof a1, "--datadir=%s", r->data.path);
            /* root with no password: the socket, in a folder only the server's user may
             * enter, is the only way in (--skip-networking). */
            char *argv[] = {r->prog.mdb_install,
                            "--no-defaults",
                            a1,
                            "--auth-root-authentication-method=normal",
                            "--skip-test-db",
                            NULL};
            rc = s_spawn(r, argv, s_cmd_end, &r->cmd);
        }
        break;
    case ST_READY:
        if (!r->server) {
            if ((rc = s_start_server(r)) != 0)
                break;
            r->ready_deadline_ms = lg_mono_ms() + READY_TIMEOUT_MS;
            uv_timer_start(&r->timer, s_on_timer_step, READY_POLL_MS, 0);
            return;
        }
        if (pg) {
            snprintf(bin, sizeof bin, "%s/pg_isready", r->prog.pgbin);
            char *argv[] = {bin,  "-q",       "-h", r->sock.path, "-U", "postgres",
                            "-d", "postgres", "-t", "2",          NULL};
            rc = s_spawn(r, argv, s_cmd_end, &r->cmd);
        } else {
            snprintf(a2, sizeof a2, "--socket=%s", r->sockfile);
            char *argv[] = {r->prog.mdb_admin,     "--no-defaults", a2,  "-u", "root",
                            "--connect-timeout=2", "ping",          NULL};
            rc = s_spawn(r, argv, s_cmd_end, &r->cmd);
        }
        break;
    case ST_CREATEDB:
        if (pg) {
            snprintf(bin, sizeof bin, "%s/createdb", r->prog.pgbin);
            char *argv[] = {bin, "-h", r->sock.path, "-U", "postgres", "bench", NULL};
            rc = s_spawn(r, argv, s_cmd_end, &r->cmd);
        } else {
            snprintf(a2, sizeof a2, "--socket=%s", r->sockfile);
            char *argv[] = {r->prog.mdb, "--no-defaults",          a2,  "-u", "root",
                            "-e",        "CREATE DATABASE sbtest", NULL};
            rc = s_spawn(r, argv, s_cmd_end, &r->cmd);
        }
        break;
    case ST_LOAD:
        if (pg) {
            snprintf(bin, sizeof bin, "%s/pgbench", r->prog.pgbin);
            snprintf(a3, sizeof a3, "%u", r->scale);
            char *argv[] = {bin,  "-h", r->sock.path, "-U",    "postgres",
                            "-i", "-s", a3,           "bench", NULL};
            rc = s_spawn(r, argv, s_cmd_end, &r->cmd);
        } else {
            s_sysbench_bufs_t sb;
            char *argv[SYSBENCH_ARGC + 2];
            int n = s_sysbench_argv(r, &sb, argv);
            argv[n++] = "prepare";
            argv[n] = NULL;
            rc = s_spawn(r, argv, s_cmd_end, &r->cmd);
        }
        break;
    case ST_HELD:
        r->prepare_ms = lg_mono_ms() - r->t0_ms;
        if (r->prepare_ms == 0)
            r->prepare_ms = 1;
        if ((rc = s_hold_tool(r)) != 0)
            break;
        lg_info("%s run %llu: prepared in %llu ms", r->tool_name, (unsigned long long)r->run_id,
                (unsigned long long)r->prepare_ms);
        if (r->cbs.on_prepared && !r->destroyed)
            r->cbs.on_prepared(r->arg, r->prepare_ms);
        return;
    default:
        return;
    }
    if (rc)
        s_teardown(r);
}

/* ---- the public part ---- */

int lg_apprun_prepare(uv_loop_t *loop, const lg_agent_config_t *cfg, const Lg__RunSpec *spec,
                      const char *agent_name, const char *record_dir, const lg_apprun_cbs_t *cbs,
                      void *arg, lg_apprun_t **out, char *err, size_t errlen)
{
    if (!spec || !spec->app || spec->app->kind == LG__APP_KIND__APP_NONE) {
        snprintf(err, errlen, "run spec: not an application workload");
        return LG_EPROTO;
    }
    lg_apprun_t *r = calloc(1, sizeof *r);
    if (!r)
        return -ENOMEM;
    r->loop = loop;
    r->spec = spec;
    r->run_id = spec->run_id;
    r->runtime_s = spec->runtime_s;
    r->keep = spec->app->keep ? 1 : 0;
    r->cbs = *cbs;
    r->arg = arg;
    r->data.fd = r->data.pfd = r->sock.fd = r->sock.pfd = -1;
    r->rec_fd = -1;
    int rc = lg__apprun_check_spec(r, cfg, spec, err, errlen);
    if (rc == 0)
        rc = lg__apprun_app_user(r, cfg, err, errlen);
    if (rc == 0)
        rc = lg_appprog_find(r->kind, cfg->pg_bindir, &r->prog, err, errlen);
    if (rc == 0) {
        r->t0_ms = lg_mono_ms();
        rc = lg__apprun_make_data(r, cfg, agent_name, err, errlen);
    }
    if (rc) {
        free(r);
        return rc;
    }
    rc = lg__apprun_make_sock(r, err, errlen);
    if (rc == 0 && record_dir)
        rc = lg__apprun_record(r, record_dir, err, errlen);
    if (rc) {
        char e2[256];
        lg_appfs_folder_rm(&r->data, e2, sizeof e2);
        lg_appfs_folder_close(&r->data);
        lg_appfs_folder_rm(&r->sock, e2, sizeof e2);
        lg_appfs_folder_close(&r->sock);
        free(r);
        return rc;
    }
    lg_appout_init(&r->out, r->kind, r->tool_name, spec->run_id, s_sample, r);
    snprintf(r->sockfile, sizeof r->sockfile, "%s/mysqld.sock", r->sock.path);
    /* The whole environment of every step, the server and the measured tool: nothing of the
     * agent's (PG*, MYSQL_*, LD_*, ...) reaches them. */
    snprintf(r->env_buf[0], sizeof r->env_buf[0], "HOME=%s", r->sock.path);
    lg_strlcpy(r->env_buf[1], "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
               sizeof r->env_buf[1]);
    lg_strlcpy(r->env_buf[2], "LC_ALL=C", sizeof r->env_buf[2]);
    snprintf(r->env_buf[3], sizeof r->env_buf[3], "TMPDIR=%s", r->sock.path);
    for (int i = 0; i < 4; i++)
        r->env[i] = r->env_buf[i];
    r->env[4] = NULL;
    uv_timer_init(loop, &r->timer);
    r->timer.data = r;
    r->timer_open = 1;
    r->step = ST_START;
    uv_timer_start(&r->timer, s_on_timer_step, 0, 0);
    lg_info("%s run %llu: preparing in \"%s\"%s%s", r->tool_name, (unsigned long long)spec->run_id,
            r->data.path, r->setid ? " as user " : "", r->setid ? cfg->app_user : "");
    *out = r;
    return 0;
}

int lg_apprun_release(lg_apprun_t *r, int64_t at_us)
{
    if (!r || r->step != ST_HELD || r->released)
        return UV_EINVAL;
    int rc = lg_fiorun_release(r->tool, at_us);
    if (rc == 0)
        r->released = 1;
    return rc;
}

static void s_on_stop_grace(uv_timer_t *t)
{
    lg_apprun_t *r = t->data;
    if (r->step != ST_RUNNING || !r->tool)
        return;
    lg_warn("%s run %llu: still running %d s after the Stop (SIGALRM): killing it", r->tool_name,
            (unsigned long long)r->run_id, TOOL_STOP_GRACE_MS / 1000);
    r->stop_killed = 1;
    lg_fiorun_kill(r->tool, SIGKILL);
}

void lg_apprun_stop(lg_apprun_t *r)
{
    if (!r || r->step >= ST_STOPPING)
        return;
    if (r->step == ST_RUNNING && r->tool) {
        if (r->stopped)
            return; /* stopping already (its grace timer runs) */
        r->stopped = 1;
        if (r->kind != LG_APP_PGBENCH) {
            lg_fiorun_kill(r->tool, SIGINT); /* sysbench has no signal that ends it with its
                                              * summary: it dies on each */
            return;
        }
        /* pgbench's -T is its own SIGALRM: on it the clients end and pgbench prints its summary
         * over the time it ran, as at -T's end. One stuck on its server is killed after a grace. */
        lg_fiorun_kill(r->tool, SIGALRM);
        if (r->timer_open)
            uv_timer_start(&r->timer, s_on_stop_grace, TOOL_STOP_GRACE_MS, 0);
        return;
    }
    s_fail_msg(r, LG_ESTATE, "%s run %llu was stopped before it started", r->tool_name,
               (unsigned long long)r->run_id);
    s_teardown(r);
}

const char *lg_apprun_data_dir(const lg_apprun_t *r)
{
    return r ? r->data.path : "";
}

int lg_apprun_server_pid(const lg_apprun_t *r)
{
    return r ? r->server_pid : 0;
}

void lg_apprun_destroy(lg_apprun_t **self_p)
{
    lg_apprun_t *r = *self_p;
    if (!r)
        return;
    *self_p = NULL;
    r->destroyed = 1;
    r->spec = NULL; /* the caller may free it now: the teardown uses the copies */
    if (r->step == ST_DONE) {
        s_maybe_destroy(&r);
        return;
    }
    if (r->step == ST_START)
        r->step = ST_INSTALL; /* nothing runs yet: straight to removing */
    s_teardown(r);
}
