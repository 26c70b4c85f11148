/* agent_gate.c: the start gate of runs whose engine logs in to its target (lgsmb, lgiscsi; the
 * engines' side is engines/fiogate.h). Their jobs log in at the engine's init, which took seconds
 * with many sessions: started at the instant, agents began I/O that far apart. So the measured
 * fio starts at Prepare instead, after the layout; each job logs in and says it is ready; the run
 * is Prepared once all are; and Start opens the gate with the instant, where every job wakes. */
#include "agent_int.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "apprec.h"
#include "fiogate.h"
#include "lg_child.h"
#include "lg_error.h"
#include "lg_log.h"
#include "lg_owndir.h"
#include "lg_util.h"

extern char **environ;

#define GATE_POLL_MS 20
/* The agent's own bound on the logins: the engine's on the wait that follows. The controller's
 * prepare budget (60 s and more for large targets) normally ends a run that hangs here first. */
#define GATE_LOGIN_MS ((uint64_t)LG_FIOGATE_WAIT_S * 1000)

int lg__agent_gated(const agent_t *a)
{
    const run_t *r = &a->run;
    return r->spec && !r->app && lg_jobfile_engine(r->spec->target_kind) != NULL;
}

/* A job's error as fio keeps it ("file:lgsmb.c:310, func=connect to, error=TEXT") into out as
 * "connect to: TEXT"; other text as it is. Returns out. */
static const char *s_job_error(const char *verror, char *out, size_t len)
{
    const char *f = strstr(verror, "func="), *e = strstr(verror, ", error=");
    if (f && e && e > f)
        snprintf(out, len, "%.*s: %s", (int)(e - f - 5), f + 5, e + 8);
    else
        snprintf(out, len, "%s", verror);
    return out;
}

static void s_on_login_poll(uv_timer_t *t)
{
    agent_t *a = t->data;
    run_t *r = &a->run;
    if (r->state != RUN_LOGIN) {
        uv_timer_stop(t);
        return;
    }
    char why[1024], said[1100], msg[1600];
    unsigned want = lg_jobfile_njobs(r->spec);
    if (lg_fiogate_failed(r->gate, why, sizeof why)) {
        snprintf(msg, sizeof msg, "logging in to \"%s\" failed at Prepare, before the start: %s",
                 r->spec->target, s_job_error(why, said, sizeof said));
        /* a server away or busy: the controller may try the run again */
        lg__agent_run_fail(a, lg__agent_connect_failure(why) ? LG_ECONNECT : LG_EFIO, msg);
        return;
    }
    int n = lg_fiogate_ready(r->gate);
    uint64_t took = lg_mono_ms() - r->login_t0_ms;
    if (n >= 0 && (unsigned)n >= want) {
        uv_timer_stop(t);
        r->state = RUN_READY;
        lg__agent_send_prepared(a, r->spec->run_id);
        lg_info("run %llu prepared: fio's %u jobs logged in to \"%s\" in %llu ms and wait for the "
                "start",
                (unsigned long long)r->spec->run_id, want, r->spec->target,
                (unsigned long long)took);
        return;
    }
    if (n < 0 || took > GATE_LOGIN_MS) {
        if (n < 0)
            snprintf(msg, sizeof msg, "could not read the run's folder \"%s\": %s", r->dir,
                     lg_strerror(n));
        else
            snprintf(msg, sizeof msg,
                     "fio's jobs did not all log in to \"%s\" within %llu s (%d of %u ready)",
                     r->spec->target, (unsigned long long)(GATE_LOGIN_MS / 1000), n, want);
        lg__agent_run_fail(a, n < 0 ? LG_EFIO : LG_ECONNECT, msg);
    }
}

int lg__agent_gate_start(agent_t *a)
{
    run_t *r = &a->run;
    snprintf(r->gate, sizeof r->gate, "%s/gate", r->dir);
    lg_fiogate_remove(r->gate); /* of an earlier attempt at this run, in this folder */
    snprintf(r->gate_env, sizeof r->gate_env, "%s=%s", LG_FIOGATE_ENV, r->gate);
    /* lgsmb parks the run's sessions for the next run, and adopts the last run's (smbpark.h);
     * no other fio is told to, whatever the agent's own environment holds. */
    static const char *const drop[] = {LG_SMBPARK_ENV, NULL};
    int park = r->spec->target_kind == LG__TARGET_KIND__TARGET_SMB && a->park_env[0];
    char *add[] = {r->gate_env, park ? a->park_env : NULL, NULL};
    r->fio_env = lg_child_env(environ, add, drop);
    if (!r->fio_env)
        return UV_ENOMEM;
    r->gated = 1;
    int rc = lg__agent_hold_fio(a);
    /* The hold stage goes on at once: it still gives fio PR_SET_PDEATHSIG and its record
     * (fiorec.h), and the jobs, not the exec, now wait for the instant. */
    if (rc == 0)
        rc = lg_fiorun_release(r->fio, lg_now_us());
    if (rc)
        return rc;
    r->state = RUN_LOGIN;
    r->login_t0_ms = lg_mono_ms();
    uv_timer_start(&a->gate_timer, s_on_login_poll, GATE_POLL_MS, GATE_POLL_MS);
    return 0;
}

/* s_park_sweep: remove from the park folder dfd what an earlier agent's parked workers left (they
 * end with that agent: no run of this one may take them). Returns how many names. */
static int s_park_sweep(int dfd)
{
    int dd = dup(dfd), n = 0;
    DIR *d = dd >= 0 ? fdopendir(dd) : NULL;
    if (!d) {
        if (dd >= 0)
            close(dd);
        return 0;
    }
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        const char *s = e->d_name;
        if ((s[0] == 'p' || s[0] == 't' || s[0] == 'c') && s[1] == '-' && unlinkat(dfd, s, 0) == 0)
            n++;
    }
    closedir(d);
    return n;
}

void lg__agent_park_init(agent_t *a)
{
    char path[sizeof a->work_dir + 16], err[1200];
    a->park_dir[0] = a->park_env[0] = 0;
    if (!a->cfg->smb_keep_s)
        return;
    snprintf(path, sizeof path, "%s/smb-park", a->work_dir);
    uint64_t start = lg_apprec_starttime((int)getpid(), NULL);
    int dfd = -1;
    if (lg_owndir(path, 0700, 0, a->park_dir, sizeof a->park_dir, err, sizeof err) != 0) {
        lg_warn("SMB sessions are not kept between runs: %s", err);
        a->park_dir[0] = 0;
        return;
    }
    if (!start || (dfd = open(a->park_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
        lg_warn("SMB sessions are not kept between runs: %s",
                start ? strerror(errno) : "this process's start time is unknown");
        a->park_dir[0] = 0;
        return;
    }
    int n = s_park_sweep(dfd);
    close(dfd);
    if (n)
        lg_info("removed %d SMB sessions' names that an earlier agent parked in \"%s\"", n,
                a->park_dir);
    int len = snprintf(a->park_env, sizeof a->park_env, "%s=%u:%d:%" PRIu64 ":%s", LG_SMBPARK_ENV,
                       (unsigned)a->cfg->smb_keep_s, (int)getpid(), start, a->park_dir);
    if (len < 0 || (size_t)len >= sizeof a->park_env)
        a->park_env[0] = 0;
    else
        lg_info("SMB sessions are kept %u s after a run for the next run of the same target "
                "(in \"%s\")",
                (unsigned)a->cfg->smb_keep_s, a->park_dir);
}

void lg__agent_park_reap(agent_t *a)
{
    int sub = 0;
    if (!a->park_dir[0] || (getpid() != 1 && (prctl(PR_GET_CHILD_SUBREAPER, &sub) != 0 || !sub)))
        return;
    DIR *d = opendir("/proc");
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL) {
        uint64_t pid;
        char path[64], buf[512];
        if (lg_parse_u64(e->d_name, 2, INT32_MAX, &pid) != 0)
            continue;
        snprintf(path, sizeof path, "/proc/%s/stat", e->d_name);
        /* "PID (lgsmb-parked) Z PPID ...": a worker's name, a zombie, our child */
        const char *l = lg_read_small(path, 0, buf, sizeof buf) ? strchr(buf, '(') : NULL;
        const char *r = l ? strrchr(l, ')') : NULL;
        int ppid = 0;
        if (r && r - l == 13 &&
            (!strncmp(l + 1, "lgsmb-parked", 12) || !strncmp(l + 1, "lgsmb-worker", 12)) &&
            sscanf(r + 1, " Z %d", &ppid) == 1 && ppid == (int)getpid())
            waitpid((pid_t)pid, NULL, WNOHANG);
    }
    if (d)
        closedir(d);
}

/* The instant: the run is running from here; started_us is the instant, as the jobs woke at it. */
static void s_gate_opened(agent_t *a)
{
    run_t *r = &a->run;
    uv_timer_stop(&a->gate_timer);
    r->state = RUN_RUNNING;
    r->started_us = r->start_at_local_us + a->clock_offset_us;
    r->prev_t_ms = r->start_at_local_us / 1000;
    lg_plat_cpu_snap(lg_fiorun_pid(r->fio), &r->cpu_prev);
    r->has_cpu_prev = 1;
    lg_info("run %llu started: its fio jobs, logged in at Prepare, went through the gate at the "
            "agreed instant (clock offset %lld us)",
            (unsigned long long)r->spec->run_id, (long long)a->clock_offset_us);
}

/* At the instant (the timer), or at a report of fio's past it, whichever the loop sees first. The
 * loop's clock may be behind: a timer that came early waits the rest. */
static void s_on_instant(uv_timer_t *t)
{
    agent_t *a = t->data;
    if (a->run.state != RUN_WAITING || !a->run.gated)
        return;
    int64_t left_us = a->run.start_at_local_us - lg_now_us();
    if (left_us > 1000) {
        uv_timer_start(t, s_on_instant, (uint64_t)left_us / 1000, 0);
        return;
    }
    s_gate_opened(a);
}

int lg__agent_gate_release(agent_t *a, int64_t at_local_us, char *err, size_t errlen)
{
    run_t *r = &a->run;
    int rc = lg_fiogate_open(r->gate, at_local_us, err, errlen);
    if (rc)
        return rc;
    int64_t now = lg_now_us();
    if (now > at_local_us) {
        /* The Start came late: the jobs go as they read the gate, now, and the run counts from
         * then. */
        lg_warn("run %llu: the start gate opened %lld us after the agreed instant",
                (unsigned long long)r->spec->run_id, (long long)(now - at_local_us));
        r->start_at_local_us = now;
    }
    int64_t wait_us = r->start_at_local_us - now;
    uv_timer_start(&a->gate_timer, s_on_instant, wait_us > 0 ? (uint64_t)wait_us / 1000 : 0, 0);
    return 0;
}

int lg__agent_gate_report(agent_t *a, int64_t t_ms)
{
    run_t *r = &a->run;
    if (t_ms * 1000 < r->start_at_local_us || r->state < RUN_WAITING)
        return 0; /* jobs logging in or waiting: all zeros (start_at_local_us is 0 till Start) */
    if (r->state == RUN_WAITING)
        s_gate_opened(a); /* a report past the instant came before the timer */
    return r->state == RUN_RUNNING;
}

void lg__agent_gate_fio_exit(agent_t *a, int64_t status, int sig, const char *tail)
{
    run_t *r = &a->run;
    char why[1024] = "", said[1100], msg[2048];
    if (!lg_fiogate_failed(r->gate, why, sizeof why))
        lg_strlcpy(why, tail[0] ? tail : "no message", sizeof why);
    snprintf(msg, sizeof msg,
             "fio ended before the start, while its jobs logged in to \"%s\" (fio exit %lld, "
             "signal %d): %s",
             r->spec->target, (long long)status, sig, s_job_error(why, said, sizeof said));
    lg__agent_run_fail(a, lg__agent_connect_failure(why) ? LG_ECONNECT : LG_EFIO, msg);
}

void lg__agent_gate_clear(agent_t *a)
{
    run_t *r = &a->run;
    if (!r->gated)
        return;
    uv_timer_stop(&a->gate_timer);
    if (r->state == RUN_LOGIN || r->state == RUN_READY) {
        char err[1400];
        if (lg_fiogate_open(r->gate, 0, err, sizeof err) != 0)
            lg_debug("run %llu: %s", (unsigned long long)r->spec->run_id, err);
    }
    free(r->fio_env);
    r->fio_env = NULL;
}

int64_t lg__agent_gate_started_us(const agent_t *a, int64_t started_us)
{
    const run_t *r = &a->run;
    if (!r->gated)
        return started_us;
    int64_t first = lg_fiogate_first(r->gate);
    return first > 0 ? first + a->clock_offset_us : started_us;
}

void lg__agent_gate_window(const agent_t *a, int64_t *start_ms, int64_t *end_ms)
{
    const run_t *r = &a->run;
    if (!r->gated)
        return;
    int64_t marked = lg_fiogate_marked(r->gate);
    if (marked > 0)
        lg_info(
            "run %llu: its first job asked fio for its first report after the ramp, %lld ms "
            "past the ramp's end (the mark is a second past it: fio_engine.h)",
            (unsigned long long)r->spec->run_id,
            (long long)((marked - r->start_at_local_us) / 1000 - (int64_t)r->spec->ramp_s * 1000));
    int64_t first = lg_fiogate_first(r->gate);
    uint64_t rt = lg_iowin_runtime_ms(&r->iowin);
    if (first <= 0 || !rt)
        return;
    /* The measured I/O began no earlier than the first I/O plus the ramp (fio notices the ramp's
     * end as a job next looks, later under load) and no later than the reports say; it lasted
     * the runtime. The window spans both bounds, so that it holds all of it. */
    int64_t lo = first / 1000 + (int64_t)r->spec->ramp_s * 1000;
    if (lo < *start_ms)
        *start_ms = lo;
    if (*start_ms + (int64_t)rt > *end_ms)
        *end_ms = *start_ms + (int64_t)rt;
}
