/* agent.c: the agent's libuv loop: the DEALER to the controller, heartbeats, one run at a time
 * (prepare: validate, write the job, lay the file out; start at the agreed instant; stream
 * samples; report), and the spool of messages awaiting acknowledgement. */
#include "agent.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <uv.h>
#include <zmq.h>

#include "appclean.h"
#include "apprun.h"
#include "fiorun.h"
#include "jobfile.h"
#include "lg_datacheck.h"
#include "lg_auth.h"
#include "lg_error.h"
#include "lg_fio.h"
#include "lg_log.h"
#include "lg_owndir.h"
#include "lg_util.h"
#include "lg_wire.h"
#include "lg_zsock.h"
#include "platform.h"
#ifndef _WIN32
#include "readback.h"
#endif
#include "spool.h"

#define SPOOL_MAX (256u << 20)
#define RESEND_AFTER_MS 5000
#define HELLO_EVERY_MS 2000

typedef enum { RUN_NONE, RUN_PREPARING, RUN_READY, RUN_WAITING, RUN_RUNNING, RUN_CHECKING } run_state_t;

typedef struct {
    run_state_t state;
    Lg__Envelope *prepare; /* owns the RunSpec */
    const Lg__RunSpec *spec;
    char dir[1024];
    char job[1100];
    lg_fiorun_t *fio;
    lg_apprun_t *app; /* an application workload (pgbench, sysbench) instead of fio */
    uint64_t seq;
    int dirs_mask; /* bit per lg_dir_t reported in samples */
    lg_dirstats_t prev[LG_DIR_NR];
    char *last; /* last fio JSON object, verbatim */
    size_t last_len;
    uint32_t njobs;
    int64_t prev_t_ms; /* fio's timestamp of the previous report (at first: when fio started) */
    int32_t fio_exit;
    int64_t started_us; /* the held fio woke at the instant, controller clock */
    int64_t start_at_local_us; /* the agreed start instant in our clock */
    int stop_requested;
    const char *stop_note; /* how a Stop ended fio, when that is worth saying (a literal) */
    lg_plat_target_t tgt; /* file and block targets: resolved, checked and held */
    int has_tgt;
    /* The newest interval is held back until the next report: a report less than FOLD_MS
     * after it (fio's final one, a few ms past the last status report) is folded into it
     * rather than sent as a sample of a few ms with 0 I/Os and some bytes. */
    int has_pend;
    lg_dirstats_t *pend_from, *pend_to; /* cumulative figures at its start and end (LG_DIR_NR) */
    int64_t pend_t0_ms, pend_t1_ms;
    uint64_t pend_rt_ms; /* fio's runtime at its end (the first interval after a ramp) */
    /* The load host's own CPU (lg_cpu.h), read as each fio report arrives: the reading at the
     * previous report (at first: when fio started), and those at the held interval's ends. */
    lg_cpu_snap_t cpu_prev, cpu_from, cpu_to;
    int has_cpu_prev;
} run_t;

#define FOLD_MS 500 /* half of fio's 1 s status interval */

typedef struct {
    const lg_agent_config_t *cfg;
    uv_loop_t *loop;
    void *zctx;
    void *dealer;
    lg_zsock_t *zs;
    lg_authmon_t *authmon;   /* CURVE handshake verdicts: say why the controller is silent */
    uint64_t auth_said_ms;
    uv_timer_t hb_timer;
    uv_signal_t sigint, sigterm;
    uv_async_t stop_async;   /* lg_agent_stop from another thread (the Windows service) */
    uint64_t agent_id;
    uint64_t last_hello_ms;
    uint64_t last_heard_ms;  /* anything from the controller (it beats too) */
    char engine_dir[1024];   /* where lgsmb.so and lgiscsi.so are looked for */
    char work_dir[4096];     /* --work-dir as checked and resolved: ours alone (lg_owndir) */
    int has_lgsmb, has_lgiscsi;
    int controller_lost;
    uint64_t msg_seq;
    char fio_version[64];
    lg_spool_t *spool;
    lg_jobhost_t jobhost;
    /* clock exchanges: the offset of the one with the shortest round trip among the last 8 */
    int64_t ex_offset[8];
    uint64_t ex_rtt[8];
    size_t ex_n, ex_next;
    int64_t clock_offset_us;
    uint64_t rtt_us;
    run_t run;
    int stopping;
    /* SIGTERM during a run (systemctl stop): fio is ended as a Stop ends it, its result sent,
     * and the agent stops once the spool is acknowledged or at stop_deadline_ms. */
    int stop_after_run;
    uint64_t stop_deadline_ms;
    int replaced; /* the controller took a newer connection with our key instead */
} agent_t;

static void s_stop(agent_t *a);

int lg_agent_check_device(const lg_agent_config_t *cfg, const Lg__RunSpec *spec,
                          const char *dev, char *err, size_t errlen)
{
    /* Writing to a whole device destroys what is on it: only with the agent's own consent,
     * whatever the target's spelling (block:, a plain path, a link to it). */
    int named = strcmp(dev, spec->target) != 0;
    if ((lg_jobfile_writes(spec) || spec->size_based) && !cfg->allow_destructive) {
        snprintf(err, errlen,
                 "run %llu would write to block device \"%s\"%s%s%s: this agent was not started "
                 "with --allow-destructive",
                 (unsigned long long)spec->run_id, dev, named ? " (target \"" : "",
                 named ? spec->target : "", named ? "\")" : "");
        return LG_EDENIED;
    }
    uint64_t bytes = 0;
    int rc = lg_plat_block_bytes(dev, &bytes, err, errlen);
    if (rc)
        return rc;
    if (bytes < spec->size || bytes - spec->size < spec->offset) {
        snprintf(err, errlen, "block target \"%s\" has %llu bytes, the run needs %llu",
                 spec->target, (unsigned long long)bytes,
                 (unsigned long long)(spec->offset + spec->size));
        return LG_EDENIED;
    }
    return 0;
}

int lg_agent_check_block(const lg_agent_config_t *cfg, const Lg__RunSpec *spec, char *err,
                         size_t errlen)
{
    return lg_agent_check_device(cfg, spec, spec->target, err, errlen);
}

int lg_agent_path_allowed(const lg_agent_config_t *cfg, const char *path)
{
    if (path && (strncmp(path, "smb://", 6) == 0 || strncmp(path, "iscsi://", 8) == 0)) {
        /* A URL: under an allowed URL prefix (smb://host:port/share, iscsi://host:port/iqn). */
        if (strstr(path, "/../") || strstr(path, "/./"))
            return 0;
        for (size_t i = 0; i < cfg->nallow; i++) {
            const char *a = cfg->allow[i];
            size_t n = strlen(a);
            while (n > 0 && a[n - 1] == '/')
                n--;
            if (strchr(a, ':') && n > 8 && strncmp(path, a, n) == 0 &&
                (path[n] == 0 || path[n] == '/'))
                return 1;
        }
        return 0;
    }
    for (size_t i = 0; path && i < cfg->nallow; i++)
        if (lg_plat_path_under(path, cfg->allow[i]))
            return 1;
    return 0;
}

/* ---- sending ---- */

static int s_send(agent_t *a, Lg__Envelope *env)
{
    env->seq = ++a->msg_seq;
    int rc = lg_zsock_send(a->zs, NULL, 0, env);
    if (rc && rc != -EAGAIN)
        lg_warn("could not send to the controller: %s", lg_strerror(rc));
    return rc;
}

static int s_send_raw(void *arg, const uint8_t *buf, size_t len)
{
    agent_t *a = arg;
    return lg_zsock_send_raw(a->zs, NULL, 0, buf, len);
}

/* Pack env, keep it in the spool until acknowledged, and send it. */
static int s_send_spooled(agent_t *a, Lg__Envelope *env, uint64_t run_id, uint64_t seq,
                          int is_result)
{
    env->seq = ++a->msg_seq;
    uint8_t *buf;
    size_t len;
    int rc = lg_wire_pack(env, &buf, &len);
    if (rc)
        return rc;
    int sent = lg_wire_send_raw(lg_zsock_socket(a->zs), NULL, 0, buf, len);
    lg_zsock_drain(a->zs);
    if (sent && sent != -EAGAIN)
        lg_warn("could not send to the controller: %s (kept for resending)", lg_strerror(sent));
    rc = lg_spool_put(a->spool, run_id, seq, is_result, buf, len, lg_mono_ms());
    if (rc)
        lg_error("spool full (%zu bytes): a message of run %llu is lost", lg_spool_bytes(a->spool),
                 (unsigned long long)run_id);
    return rc;
}

static void s_send_prepared(agent_t *a, uint64_t run_id)
{
    Lg__Prepared p = LG__PREPARED__INIT;
    p.run_id = run_id;
    Lg__Envelope env = LG__ENVELOPE__INIT;
    env.body_case = LG__ENVELOPE__BODY_PREPARED;
    env.prepared = &p;
    s_send(a, &env);
}

static void s_send_run_error(agent_t *a, uint64_t run_id, int code, const char *msg)
{
    lg_error("run %llu: %s", (unsigned long long)run_id, msg);
    Lg__RunError re = LG__RUN_ERROR__INIT;
    re.run_id = run_id;
    re.code = code;
    re.message = (char *)msg;
    Lg__Envelope env = LG__ENVELOPE__INIT;
    env.body_case = LG__ENVELOPE__BODY_RUN_ERROR;
    env.run_error = &re;
    s_send(a, &env);
}

int lg_agent_label_ok(const char *label)
{
    const char *eq = label ? strchr(label, '=') : NULL;
    if (!eq || eq == label || eq - label > 31 || !eq[1] || strlen(eq + 1) > 63)
        return 0;
    for (const char *p = label; p < eq; p++)
        if (!islower((unsigned char)*p) && !isdigit((unsigned char)*p) && *p != '_' && *p != '-')
            return 0;
    for (const char *p = eq + 1; *p; p++)
        if (!isprint((unsigned char)*p))
            return 0;
    return 1;
}

static void s_send_hello(agent_t *a)
{
    Lg__Hello h = LG__HELLO__INIT;
    static lg_plat_host_t host; /* one Hello at a time */
    lg_plat_host(&host);
    char *engines[4] = {(char *)lg_plat_async_engine(), "null"};
    size_t nengines = 2;
    if (a->has_lgsmb)
        engines[nengines++] = "lgsmb";
    if (a->has_lgiscsi)
        engines[nengines++] = "lgiscsi";
    h.name = (char *)a->cfg->name;
    h.lg_version = LG_VERSION;
    h.os = host.os;
    h.cpu_model = host.cpu;
    h.cpu_count = host.ncpu;
    h.mem_bytes = host.mem_bytes;
    h.fio_version = a->fio_version;
    h.n_engines = nengines;
    h.engines = engines;
    h.n_allowed_targets = a->cfg->nallow;
    h.allowed_targets = (char **)a->cfg->allow;
    h.n_labels = a->cfg->nlabels;
    h.labels = (char **)a->cfg->labels;
    static lg_plat_nics_t nics; /* large; one Hello at a time */
    lg_plat_nics(&nics);
    h.n_nics = nics.n;
    h.nics = nics.ptr;
    Lg__Envelope env = LG__ENVELOPE__INIT;
    env.body_case = LG__ENVELOPE__BODY_HELLO;
    env.hello = &h;
    a->last_hello_ms = lg_mono_ms();
    s_send(a, &env);
}

static void s_send_ping(agent_t *a)
{
    Lg__Ping p = LG__PING__INIT;
    p.t0_us = lg_now_us();
    Lg__Envelope env = LG__ENVELOPE__INIT;
    env.body_case = LG__ENVELOPE__BODY_PING;
    env.ping = &p;
    s_send(a, &env);
}

/* NTP-style: offset = t1 - (t0 + t3) / 2, trusting the exchange with the shortest round trip
 * (the least queueing) among the recent ones. */
static void s_on_pong(agent_t *a, const Lg__Pong *p)
{
    int64_t t3 = lg_now_us();
    if (p->t0_us <= 0 || t3 < p->t0_us || t3 - p->t0_us > 10000000)
        return;
    a->ex_rtt[a->ex_next] = (uint64_t)(t3 - p->t0_us);
    a->ex_offset[a->ex_next] = p->t1_us - (p->t0_us + t3) / 2;
    a->ex_next = (a->ex_next + 1) % 8;
    if (a->ex_n < 8)
        a->ex_n++;
    size_t best = 0;
    for (size_t i = 1; i < a->ex_n; i++)
        if (a->ex_rtt[i] < a->ex_rtt[best])
            best = i;
    a->clock_offset_us = a->ex_offset[best];
    a->rtt_us = a->ex_rtt[best];
}

static void s_send_heartbeat(agent_t *a)
{
    static const Lg__AgentState states[] = {
        [RUN_NONE] = LG__AGENT_STATE__AGENT_IDLE,
        [RUN_PREPARING] = LG__AGENT_STATE__AGENT_PREPARING,
        [RUN_READY] = LG__AGENT_STATE__AGENT_READY,
        [RUN_WAITING] = LG__AGENT_STATE__AGENT_READY,
        [RUN_RUNNING] = LG__AGENT_STATE__AGENT_RUNNING,
        [RUN_CHECKING] = LG__AGENT_STATE__AGENT_RUNNING,
    };
    Lg__Heartbeat hb = LG__HEARTBEAT__INIT;
    hb.state = states[a->run.state];
    hb.run_id = a->run.spec ? a->run.spec->run_id : 0;
    hb.unacked = lg_spool_count(a->spool);
    hb.clock_offset_us = a->clock_offset_us;
    hb.rtt_us = a->rtt_us;
    Lg__Envelope env = LG__ENVELOPE__INIT;
    env.body_case = LG__ENVELOPE__BODY_HEARTBEAT;
    env.heartbeat = &hb;
    s_send(a, &env);
}

/* ---- the run ---- */

static void s_run_clear(agent_t *a)
{
    run_t *r = &a->run;
    free(r->pend_from);
    free(r->pend_to);
    lg_fiorun_destroy(&r->fio);
#ifndef _WIN32
    /* Its server is stopped and its folders removed as the loop runs on. */
    lg_apprun_destroy(&r->app);
#endif
    if (r->has_tgt)
        lg_plat_target_close(&r->tgt);
    lg_wire_free(r->prepare);
    free(r->last);
    memset(r, 0, sizeof *r);
}

static void s_flush_sample(agent_t *a);

static void s_run_fail(agent_t *a, int code, const char *msg)
{
    uint64_t id = a->run.spec ? a->run.spec->run_id : 0;
    if (a->run.spec)
        s_flush_sample(a); /* what was measured is kept, even of a run that fails */
    s_send_run_error(a, id, code, msg);
    s_run_clear(a);
}

static int s_hold_fio(agent_t *a);

static void s_on_layout_exit(void *arg, int64_t status, int sig, const char *tail)
{
    agent_t *a = arg;
    run_t *r = &a->run;
    lg_fiorun_destroy(&r->fio);
    if (status != 0 || sig != 0) {
        char msg[1024];
        snprintf(msg, sizeof msg, "%s \"%s\" failed (fio exit %lld, signal %d): %s",
                 r->spec->target_kind == LG__TARGET_KIND__TARGET_SMB ? "reaching or laying out"
                 : lg_jobfile_engine(r->spec->target_kind)           ? "reaching"
                                                                     : "laying out",
                 r->spec->target, (long long)status, sig, tail);
        s_run_fail(a, LG_EFIO, msg);
        return;
    }
    /* The measured run's fio is forked and loaded now, held until the instant (s_handle_start):
     * at Start nothing but a wake-up and an exec lies between the instant and fio. */
    int rc = s_hold_fio(a);
    if (rc) {
        char msg[256];
        snprintf(msg, sizeof msg, "could not start fio \"%s\": %s", a->cfg->fio, uv_strerror(rc));
        s_run_fail(a, LG_EFIO, msg);
        return;
    }
    r->state = RUN_READY;
    s_send_prepared(a, r->spec->run_id);
    lg_info("run %llu prepared", (unsigned long long)r->spec->run_id);
}

/* With on_start, fio is held until lg_fiorun_release (lg_fiorun_start_held). */
/* The file whose appearance ends fio's jobs (--trigger-file): how a Stop reaches fio on Windows. */
static void s_trigger_path(const agent_t *a, char *buf, size_t len)
{
    snprintf(buf, len, "%s%cstop", a->run.dir, LG_PLAT_SEP);
}

static int s_spawn_fio(agent_t *a, const char *job, int stream, lg_fiorun_object_cb on_obj,
                       lg_fiorun_start_cb on_start, lg_fiorun_exit_cb on_exit)
{
    char *argv[8];
    int n = 0;
    argv[n++] = (char *)a->cfg->fio;
#ifdef _WIN32
    /* Jobs as threads: fio for Windows has no process-shared mutexes and would say so on stdout,
     * ahead of its JSON. */
    argv[n++] = "--thread";
    char trig[1200] = "--trigger-file=";
    s_trigger_path(a, trig + strlen(trig), sizeof trig - strlen(trig));
    if (stream)
        argv[n++] = trig;
#endif
    if (stream) {
        argv[n++] = "--output-format=json+";
        argv[n++] = "--status-interval=1";
    } else {
        argv[n++] = "--output-format=json"; /* one object, dropped: not fio's text in our log */
    }
    argv[n++] = (char *)job;
    argv[n] = NULL;
    int fd = a->run.has_tgt ? (int)a->run.tgt.fd : -1;
    if (on_start)
        return lg_fiorun_start_held(a->loop, argv, a->run.dir, fd, on_obj, on_start, on_exit, a,
                                    &a->run.fio);
    return lg_fiorun_start(a->loop, argv, a->run.dir, fd, on_obj, on_exit, a, &a->run.fio);
}

/* An smb:// or iscsi:// target: the engine must be here, credentials readable, and writing to
 * a LUN needs the same consent as a block device. */
static int s_check_engine_target(agent_t *a, const Lg__RunSpec *spec, const char *engine,
                                 char *err, size_t errlen)
{
    int have = (!strcmp(engine, "lgsmb") && a->has_lgsmb) ||
               (!strcmp(engine, "lgiscsi") && a->has_lgiscsi);
    if (!have) {
        snprintf(err, errlen,
                 "target \"%s\" needs the %s engine, which this agent does not have (no %s/%s.so;"
                 " see --engine-dir)",
                 spec->target, engine, a->engine_dir, engine);
        return LG_EDENIED;
    }
    if (spec->target_kind == LG__TARGET_KIND__TARGET_ISCSI &&
        (lg_jobfile_writes(spec) || spec->size_based) && !a->cfg->allow_destructive) {
        snprintf(err, errlen,
                 "run %llu would write to LUN \"%s\": this agent was not started with "
                 "--allow-destructive",
                 (unsigned long long)spec->run_id, spec->target);
        return LG_EDENIED;
    }
    const char *cred = spec->target_kind == LG__TARGET_KIND__TARGET_SMB ? a->cfg->smb_credentials
                                                                         : a->cfg->iscsi_chap;
    char user[128];
    if (spec->target_kind == LG__TARGET_KIND__TARGET_SMB && !cred &&
        lg_smb_url_user(spec->target, user, sizeof user)[0]) {
        /* A named user without a password would be a guest login, measuring another share. */
        snprintf(err, errlen,
                 "target \"%s\" names the user \"%s\", and this agent has no --smb-credentials "
                 "file with that user's password: start lg-agent with --smb-credentials FILE "
                 "(never a guest login instead)",
                 spec->target, user);
        return LG_EDENIED;
    }
    char why[512];
    int rc = cred ? lg_auth_secret_file_check(cred, "credentials file", why, sizeof why) : 0;
    if (rc == 0 && cred && access(cred, R_OK) != 0) {
        rc = -errno;
        snprintf(why, sizeof why, "credentials file \"%s\": %s", cred, strerror(-rc));
    }
    if (rc)
        snprintf(err, errlen, "target \"%s\": %s", spec->target, why);
    return rc;
}

/* ---- application workloads: pgbench or sysbench against a private database server ---- */

#ifndef _WIN32
static void s_app_prepared(void *arg, uint64_t prepare_ms)
{
    agent_t *a = arg;
    run_t *r = &a->run;
    r->state = RUN_READY;
    s_send_prepared(a, r->spec->run_id);
    lg_info("run %llu prepared (server and data set ready in %llu ms)",
            (unsigned long long)r->spec->run_id, (unsigned long long)prepare_ms);
}

/* An error is reported by s_app_done, which follows. */
static void s_app_started(void *arg, int64_t t_us, int err)
{
    agent_t *a = arg;
    run_t *r = &a->run;
    if (err || r->state != RUN_WAITING)
        return;
    r->state = RUN_RUNNING;
    r->started_us = t_us + a->clock_offset_us;
    lg_info("run %llu started %lld us after the agreed instant (clock offset %lld us)",
            (unsigned long long)r->spec->run_id, (long long)(t_us - r->start_at_local_us),
            (long long)a->clock_offset_us);
}

static void s_app_sample(void *arg, uint64_t seq, int64_t t_ms, uint64_t interval_ms,
                         const lg_app_sample_t *s)
{
    agent_t *a = arg;
    run_t *r = &a->run;
    Lg__AppStats st = LG__APP_STATS__INIT;
    st.tps = s->tps;
    st.qps = s->qps;
    st.read_qps = s->read_qps;
    st.write_qps = s->write_qps;
    st.other_qps = s->other_qps;
    st.lat_avg_ms = s->lat_avg_ms;
    st.lat_stddev_ms = s->lat_stddev_ms;
    st.lat_pct_ms = s->lat_pct_ms;
    st.pct = s->pct;
    st.err_ps = s->err_ps;
    st.reconn_ps = s->reconn_ps;
    st.failed = s->failed;
    st.threads = s->threads;
    Lg__Sample smp = LG__SAMPLE__INIT;
    smp.run_id = r->spec->run_id;
    smp.seq = seq;
    smp.t_ms = t_ms;
    smp.interval_ms = interval_ms;
    smp.app = &st;
    r->seq = seq;
    Lg__Envelope env = LG__ENVELOPE__INIT;
    env.body_case = LG__ENVELOPE__BODY_SAMPLE;
    env.sample = &smp;
    s_send_spooled(a, &env, smp.run_id, smp.seq, 0);
}

static void s_app_done(void *arg, const lg_apprun_result_t *res)
{
    agent_t *a = arg;
    run_t *r = &a->run;
    if (res->err || !res->tot) {
        s_run_fail(a, res->err ? res->err : LG_ECHILD,
                   res->error ? res->error : "the tool printed no summary");
        return;
    }
    const lg_app_total_t *t = res->tot;
    int pg = t->kind == LG_APP_PGBENCH;
    Lg__AppTotals at = LG__APP_TOTALS__INIT;
    at.kind = r->spec->app->kind;
    at.transactions = t->transactions;
    at.tps = t->tps;
    at.qps = t->qps;
    at.queries = t->queries;
    at.lat_avg_ms = t->lat_avg_ms;
    at.lat_stddev_ms = t->lat_stddev_ms;
    at.lat_min_ms = t->lat_min_ms;
    at.lat_max_ms = t->lat_max_ms;
    at.lat_pct_ms = t->lat_pct_ms;
    at.pct = t->pct;
    at.failed = pg ? t->failed : t->errors;
    at.duration_s = t->duration_s;
    at.threads = pg ? t->clients : t->threads;
    if (at.threads == 0)
        at.threads = r->spec->threads;
    at.prepare_ms = res->prepare_ms;
    at.output = (char *)res->output; /* NUL-terminated by lg_apprun */
    at.reads = t->reads;
    at.writes = t->writes;
    at.others = t->others;
    at.reconnects = t->reconnects;
    at.scale = t->scale;
    Lg__RunResult out = LG__RUN_RESULT__INIT;
    out.run_id = r->spec->run_id;
    out.samples = res->samples;
    out.fio_exit = (int32_t)res->exit_status;
    out.fio_json = "";
    out.started_us = r->started_us;
    out.app = &at;
    out.stop_note = (char *)(res->stop_note ? res->stop_note : ""); /* into the run's error */
    Lg__Envelope env = LG__ENVELOPE__INIT;
    env.body_case = LG__ENVELOPE__BODY_RUN_RESULT;
    env.run_result = &out;
    s_send_spooled(a, &env, out.run_id, 0, 1);
    lg_info("run %llu finished: %llu samples, %.1f tps", (unsigned long long)out.run_id,
            (unsigned long long)res->samples, t->tps);
    s_run_clear(a);
}
#endif

/* Removes the folders of earlier runs from the work folder (each run's job files are kept until
 * the next run, to be read). The work folder is ours alone, so what is in it is what we made. */
static void s_prune_runs(const char *work_dir, const char *keep)
{
    DIR *d = opendir(work_dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strncmp(e->d_name, "run-", 4) != 0 || strcmp(e->d_name, keep) == 0)
            continue;
        char sub[4200];
        snprintf(sub, sizeof sub, "%s/%s", work_dir, e->d_name);
        DIR *s = opendir(sub);
        if (s) {
            struct dirent *f;
            while ((f = readdir(s)) != NULL) {
                if (strcmp(f->d_name, ".") == 0 || strcmp(f->d_name, "..") == 0)
                    continue;
                char file[4500];
                snprintf(file, sizeof file, "%s/%s", sub, f->d_name);
                remove(file);
            }
            closedir(s);
        }
        if (rmdir(sub) != 0)
            lg_debug("could not remove \"%s\": %s", sub, strerror(errno));
    }
    closedir(d);
}

/* The run's folder for its job files: run-ID, made 0700 in the work folder. */
static int s_run_dir(agent_t *a, uint64_t run_id, char *err, size_t errlen)
{
    run_t *r = &a->run;
    char name[64];
    snprintf(name, sizeof name, "run-%llu", (unsigned long long)run_id);
    s_prune_runs(a->work_dir, name);
    snprintf(r->dir, sizeof r->dir, "%s/%s", a->work_dir, name);
    int rc = lg_mkdirs(r->dir, 0700);
    if (rc)
        snprintf(err, errlen, "could not create \"%s\": %s", r->dir, lg_strerror(rc));
    return rc;
}

static void s_prepare_app(agent_t *a)
{
    run_t *r = &a->run;
#ifdef _WIN32
    (void)r;
    s_run_fail(a, LG_EDENIED, "application workloads (pgbench, sysbench) run on Linux agents only");
#else
    static const lg_apprun_cbs_t cbs = {s_app_prepared, s_app_started, s_app_sample, s_app_done};
    char err[1024];
    r->state = RUN_PREPARING;
    int rc = lg_apprun_prepare(a->loop, a->cfg, r->spec, a->cfg->name, a->work_dir, &cbs, a,
                               &r->app, err, sizeof err);
    if (rc)
        s_run_fail(a, rc, err);
#endif
}

static void s_handle_prepare(agent_t *a, Lg__Envelope *env)
{
    const Lg__RunSpec *spec = env->prepare->spec;
    if (!spec) {
        lg_warn("dropped a Prepare without a run spec");
        lg_wire_free(env);
        return;
    }
    if (a->run.state != RUN_NONE) {
        char msg[128];
        snprintf(msg, sizeof msg, "busy with run %llu",
                 (unsigned long long)(a->run.spec ? a->run.spec->run_id : 0));
        if (a->run.spec && a->run.spec->run_id == spec->run_id) {
            /* A repeat (the controller restarted): already on it; say so again if ready. */
            if (a->run.state == RUN_READY)
                s_send_prepared(a, spec->run_id);
            lg_wire_free(env);
            return;
        }
        s_send_run_error(a, spec->run_id, LG_ESTATE, msg);
        lg_wire_free(env);
        return;
    }
    run_t *r = &a->run;
    r->prepare = env;
    r->spec = spec;
    if (spec->app && spec->app->kind != LG__APP_KIND__APP_NONE) {
        s_prepare_app(a);
        return;
    }
    char err[512];
    int rc = lg_jobfile_validate(spec, err, sizeof err);
    if (rc) {
        s_run_fail(a, rc, err);
        return;
    }
    if (spec->target_kind != LG__TARGET_KIND__TARGET_NULL &&
        !lg_agent_path_allowed(a->cfg, spec->target)) {
        snprintf(err, sizeof err,
                 "target \"%s\" is outside this agent's allowed targets (see --allow)",
                 spec->target);
        s_run_fail(a, LG_EDENIED, err);
        return;
    }
    if (spec->target_kind == LG__TARGET_KIND__TARGET_FILE ||
        spec->target_kind == LG__TARGET_KIND__TARGET_BLOCK) {
        /* What the path leads to now, links followed, must be inside the allow-list too; it is
         * held open and fio is given the held descriptor, so a link swapped in later cannot
         * redirect the run. */
        rc = lg_plat_target_open(spec->target, a->cfg->allow, a->cfg->nallow,
                                 spec->target_kind == LG__TARGET_KIND__TARGET_FILE, &r->tgt, err,
                                 sizeof err);
        if (rc) {
            s_run_fail(a, rc, err);
            return;
        }
        r->has_tgt = 1;
        /* Is it what the spec says it is (an SMB share, not the empty mount point of one)? */
        lg_fs_facts_t fsf;
        lg_plat_target_fs(&r->tgt, &fsf);
        rc = lg_fs_check(spec->target, spec->protocol, lg_fs_expect(spec->protocol, spec->fs),
                         spec->mount, &fsf, err, sizeof err);
        if (rc) {
            if (r->tgt.created) /* ours, just made: leave nothing behind on the wrong disk */
                remove(r->tgt.real);
            s_run_fail(a, rc, err);
            return;
        }
        lg_info("run %llu: target \"%s\" is %s\"%s\"%s on %s (%s), held for fio",
                (unsigned long long)spec->run_id, spec->target, r->tgt.is_dev ? "device " : "",
                r->tgt.real, r->tgt.created ? " (created)" : "", fsf.mount, fsf.type);
        if ((r->tgt.is_dev || spec->target_kind == LG__TARGET_KIND__TARGET_BLOCK) &&
            (rc = lg_agent_check_device(a->cfg, spec, r->tgt.real, err, sizeof err)) != 0) {
            s_run_fail(a, rc, err);
            return;
        }
    }
    const char *engine = lg_jobfile_engine(spec->target_kind);
    if (engine && (rc = s_check_engine_target(a, spec, engine, err, sizeof err)) != 0) {
        s_run_fail(a, rc, err);
        return;
    }
    rc = s_run_dir(a, spec->run_id, err, sizeof err);
    if (rc) {
        s_run_fail(a, rc, err);
        return;
    }
    if (strcmp(spec->rw, "randread") == 0 || strcmp(spec->rw, "read") == 0)
        r->dirs_mask = 1 << LG_DIR_READ;
    else if (strcmp(spec->rw, "randwrite") == 0 || strcmp(spec->rw, "write") == 0)
        r->dirs_mask = 1 << LG_DIR_WRITE;
    else
        r->dirs_mask = (1 << LG_DIR_READ) | (1 << LG_DIR_WRITE);
    /* fio is given the held target, never the path again. */
    Lg__RunSpec held = *spec;
    if (r->has_tgt)
        held.target = r->tgt.fio_path;
    snprintf(r->job, sizeof r->job, "%s/job.fio", r->dir);
    rc = lg_jobfile_write(&held, r->job, 0, &a->jobhost, err, sizeof err);
    if (rc) {
        s_run_fail(a, rc, err);
        return;
    }
    r->state = RUN_PREPARING;
    uint64_t need = spec->offset + spec->size;
    int layout_file = spec->target_kind == LG__TARGET_KIND__TARGET_FILE && !r->tgt.is_dev &&
                      r->tgt.size < need;
    if (!layout_file && !engine) {
        s_on_layout_exit(a, 0, 0, "");
        return;
    }
    /* A file shorter than the run needs is laid out: extended here, then written by fio through
     * the held descriptor (fio's own layout would unlink and re-create it by name). An smb://
     * file missing or short is laid out by lgsmb the same way, else probed like an iscsi://
     * LUN (connect, log in, read a block): a wrong password or a missing share or LUN fails
     * here, naming the target. */
    if (layout_file && (rc = lg_plat_target_extend(&r->tgt, need, err, sizeof err)) != 0) {
        s_run_fail(a, rc, err);
        return;
    }
    char layout[1100];
    snprintf(layout, sizeof layout, "%s/layout.fio", r->dir);
    rc = lg_jobfile_write(&held, layout, 1, &a->jobhost, err, sizeof err);
    if (rc == 0)
        rc = s_spawn_fio(a, layout, 0, NULL, NULL, s_on_layout_exit);
    if (rc) {
        snprintf(err, sizeof err, "could not start fio \"%s\": %s", a->cfg->fio,
                 rc < -1000 ? lg_strerror(rc) : uv_strerror(rc));
        s_run_fail(a, LG_EFIO, err);
    }
}

/* A report still inside ramp_time counts I/O but no latency: fio resets its stats at the end of
 * the ramp, so such reports must not become samples. */
static int s_in_ramp(const lg_fio_report_t *rep)
{
    uint64_t ios = 0, lat = 0;
    for (size_t j = 0; j < rep->njobs; j++)
        for (int d = 0; d < LG_DIR_NR; d++) {
            ios += rep->jobs[j].dir[d].ios;
            lat += rep->jobs[j].dir[d].lat_n;
        }
    return ios > 0 && lat == 0;
}

/* The held interval now ends at reading b: its host figure extends to b; so does fio's, unless
 * fio was gone by then (its final report can arrive after it exited), when it keeps the end it
 * had. */
static void s_cpu_extend(lg_cpu_snap_t *to, const lg_cpu_snap_t *b)
{
    lg_cpu_snap_t keep = *to;
    *to = *b;
    if (!b->fio_ok && keep.fio_ok) {
        to->fio = keep.fio;
        to->fio_hz = keep.fio_hz;
        to->fio_ok = 1;
        to->fio_wall_us = keep.fio_wall_us;
    }
}

/* Send the held interval as a sample (see run_t.has_pend). */
static void s_flush_sample(agent_t *a)
{
    run_t *r = &a->run;
    if (!r->has_pend)
        return;
    r->has_pend = 0;
    lg_dirstats_t *delta = malloc(sizeof(lg_dirstats_t));
    if (!delta)
        return;
    Lg__Sample smp = LG__SAMPLE__INIT;
    Lg__DirStats *dirs[LG_DIR_NR];
    size_t nd = 0;
    for (int d = 0; d < LG_DIR_NR; d++) {
        if (!(r->dirs_mask & (1 << d)))
            continue;
        lg_dirstats_delta(delta, &r->pend_to[d], &r->pend_from[d]);
        dirs[nd] = lg_wire_dirstats_new(delta, (lg_dir_t)d);
        if (dirs[nd])
            nd++;
    }
    smp.run_id = r->spec->run_id;
    smp.seq = ++r->seq;
    smp.t_ms = r->pend_t1_ms;
    /* Wall-clock length of the interval: fio's runtime stops while a job thinks (thinktime),
     * so it would squeeze bursty intervals. The first sample after a ramp starts where fio
     * reset its figures, which only fio's runtime knows. */
    if (r->seq == 1 && r->spec->ramp_s > 0)
        smp.interval_ms = r->pend_rt_ms;
    else
        smp.interval_ms =
            r->pend_t1_ms > r->pend_t0_ms ? (uint64_t)(r->pend_t1_ms - r->pend_t0_ms) : 0;
    smp.n_dirs = nd;
    smp.dirs = dirs;
    lg_cpu_use_t cpu;
    lg_cpu_use(&r->cpu_from, &r->cpu_to, &cpu);
    if (cpu.cpus) {
        smp.host_cpus = cpu.cpus;
        smp.host_cpu_pct = cpu.busy_pct;
        smp.fio_cpu_pct = cpu.fio_pct;
    }
    Lg__Envelope env = LG__ENVELOPE__INIT;
    env.body_case = LG__ENVELOPE__BODY_SAMPLE;
    env.sample = &smp;
    s_send_spooled(a, &env, smp.run_id, smp.seq, 0);
    for (size_t i = 0; i < nd; i++)
        lg_wire_dirstats_free(dirs[i]);
    free(delta);
}

static void s_on_fio_object(void *arg, const char *text, size_t len)
{
    agent_t *a = arg;
    run_t *r = &a->run;
    lg_fio_report_t *rep = NULL;
    char err[256];
    if (lg_fio_report_parse(text, len, &rep, err, sizeof err) != 0) {
        lg_warn("run %llu: skipped an unreadable fio report: %s",
                (unsigned long long)r->spec->run_id, err);
        return;
    }
    char *copy = malloc(len + 1);
    if (copy) {
        memcpy(copy, text, len);
        copy[len] = 0;
        free(r->last);
        r->last = copy;
        r->last_len = len;
    }
    r->njobs = (uint32_t)rep->njobs;
    lg_cpu_snap_t now;
    lg_plat_cpu_snap(lg_fiorun_pid(r->fio), &now);
    if (r->spec->ramp_s > 0 && s_in_ramp(rep)) {
        r->prev_t_ms = rep->timestamp_ms;
        r->cpu_prev = now;
        r->has_cpu_prev = 1;
        lg_fio_report_destroy(&rep);
        return;
    }
    lg_dirstats_t *cur = malloc(sizeof(lg_dirstats_t) * LG_DIR_NR);
    if (!r->pend_from)
        r->pend_from = malloc(sizeof(lg_dirstats_t) * LG_DIR_NR);
    if (!r->pend_to)
        r->pend_to = malloc(sizeof(lg_dirstats_t) * LG_DIR_NR);
    if (!cur || !r->pend_from || !r->pend_to) {
        free(cur);
        lg_fio_report_destroy(&rep);
        return;
    }
    uint64_t rt_cur = 0;
    for (int d = 0; d < LG_DIR_NR; d++) {
        lg_fio_report_total(rep, (lg_dir_t)d, &cur[d]);
        if (cur[d].runtime_ms > rt_cur)
            rt_cur = cur[d].runtime_ms;
    }
    int64_t t = rep->timestamp_ms;
    if (r->has_pend && t - r->pend_t1_ms < FOLD_MS) {
        /* a short tail: the held interval now ends here */
        memcpy(r->pend_to, cur, sizeof(lg_dirstats_t) * LG_DIR_NR);
        r->pend_t1_ms = t;
        r->pend_rt_ms = rt_cur;
        s_cpu_extend(&r->cpu_to, &now);
    } else {
        s_flush_sample(a);
        memcpy(r->pend_from, r->prev, sizeof(lg_dirstats_t) * LG_DIR_NR);
        memcpy(r->pend_to, cur, sizeof(lg_dirstats_t) * LG_DIR_NR);
        r->pend_t0_ms = r->prev_t_ms;
        r->pend_t1_ms = t;
        r->pend_rt_ms = rt_cur;
        r->has_pend = 1;
        r->cpu_from = r->has_cpu_prev ? r->cpu_prev : now;
        r->cpu_to = now;
    }
    r->cpu_prev = now;
    r->has_cpu_prev = 1;
    memcpy(r->prev, cur, sizeof(lg_dirstats_t) * LG_DIR_NR);
    r->prev_t_ms = t;
    free(cur);
    lg_fio_report_destroy(&rep);
}

/* Send the run's RunResult (kept in the spool until acknowledged) and end the run. */
static void s_send_result(agent_t *a, Lg__DataCheck *dc)
{
    run_t *r = &a->run;
    uint64_t run_id = r->spec->run_id;
    s_flush_sample(a); /* the last interval, with any short tail folded in */
    lg_fio_report_t *rep = NULL;
    char err[512];
    if (lg_fio_report_parse(r->last, r->last_len, &rep, err, sizeof err) != 0) {
        s_run_fail(a, LG_EFIO, err); /* parsed once already: cannot happen */
        return;
    }
    Lg__RunResult res = LG__RUN_RESULT__INIT;
    Lg__DirStats *dirs[LG_DIR_NR];
    size_t nd = 0;
    lg_dirstats_t *tot = malloc(sizeof *tot);
    for (int d = 0; tot && d < LG_DIR_NR; d++) {
        if (!(r->dirs_mask & (1 << d)))
            continue;
        lg_fio_report_total(rep, (lg_dir_t)d, tot);
        dirs[nd] = lg_wire_dirstats_new(tot, (lg_dir_t)d);
        if (dirs[nd])
            nd++;
    }
    free(tot);
    res.run_id = run_id;
    res.n_dirs = nd;
    res.dirs = dirs;
    res.fio_json = r->last;
    res.fio_exit = r->fio_exit;
    res.samples = r->seq;
    res.njobs = (uint32_t)rep->njobs;
    res.started_us = r->started_us;
    res.datacheck = dc;
    res.stop_note = (char *)(r->stop_note ? r->stop_note : "");
    Lg__Envelope env = LG__ENVELOPE__INIT;
    env.body_case = LG__ENVELOPE__BODY_RUN_RESULT;
    env.run_result = &res;
    s_send_spooled(a, &env, run_id, 0, 1);
    for (size_t i = 0; i < nd; i++)
        lg_wire_dirstats_free(dirs[i]);
    lg_fio_report_destroy(&rep);
    lg_info("run %llu finished: %llu samples", (unsigned long long)run_id,
            (unsigned long long)r->seq);
    s_run_clear(a);
}

/* Measuring what a run with a data pattern wrote reads the whole target: a worker thread does
 * it so that heartbeats and acknowledgements go on. An smb:// or iscsi:// target is read back
 * through libsmbclient or libiscsi: this agent's region, offset .. offset + limit. */
typedef struct {
    uv_work_t req;
    agent_t *agent;
    char path[1100];
    int remote;              /* path is an smb:// or iscsi:// URL */
    const char *credentials; /* the agent's --smb-credentials or --iscsi-chap file, or NULL */
    uint64_t offset;
    uint64_t limit;
    uint32_t unit;
    lg_datacheck_t out;
    int rc;
    char err[256];
} datacheck_job_t;

static void s_datacheck_work(uv_work_t *req)
{
    datacheck_job_t *j = req->data;
    if (j->remote) {
#ifdef _WIN32
        /* No lgsmb or lgiscsi engine on Windows, so no run of this agent writes to a URL. */
        j->rc = LG_EDENIED;
        snprintf(j->err, sizeof j->err, "the Windows agent cannot read back \"%s\"", j->path);
#else
        j->rc = lg_readback_datacheck(j->path, j->credentials, j->offset, j->limit, j->unit,
                                      &j->out, j->err, sizeof j->err);
#endif
    } else {
        j->rc = lg_datacheck_file(j->path, j->unit, j->limit, &j->out, j->err, sizeof j->err);
    }
}

static void s_datacheck_done(uv_work_t *req, int status)
{
    datacheck_job_t *j = req->data;
    agent_t *a = j->agent;
    if (!a->stopping && a->run.state == RUN_CHECKING) {
        Lg__DataCheck dc = LG__DATA_CHECK__INIT;
        dc.unit = j->unit;
        if (status == 0 && j->rc == 0) {
            dc.records = j->out.records;
            dc.unique = j->out.unique;
            dc.zero = j->out.zero;
            dc.zstd_ratio = j->out.zstd_ratio;
            dc.lz4_ratio = j->out.lz4_ratio;
            dc.dedup_ratio = j->out.dedup_ratio;
            lg_info("run %llu wrote data that compresses %.2f:1 (zstd), %.2f:1 (lz4) and dedups "
                    "%.2f:1 in %u-byte records",
                    (unsigned long long)a->run.spec->run_id, dc.zstd_ratio, dc.lz4_ratio,
                    dc.dedup_ratio, dc.unit);
        } else {
            dc.error = j->err[0] ? j->err : (char *)"the check was cancelled";
        }
        s_send_result(a, &dc);
    }
    free(j);
}

static void s_start_datacheck(agent_t *a)
{
    run_t *r = &a->run;
    datacheck_job_t *j = calloc(1, sizeof *j);
    if (!j) {
        s_send_result(a, NULL);
        return;
    }
    j->req.data = j;
    j->agent = a;
    if (lg_jobfile_engine(r->spec->target_kind)) {
        j->remote = 1;
        lg_strlcpy(j->path, r->spec->target, sizeof j->path);
        j->credentials = r->spec->target_kind == LG__TARGET_KIND__TARGET_SMB
                             ? a->cfg->smb_credentials
                             : a->cfg->iscsi_chap;
        j->offset = r->spec->offset;
    } else {
        lg_plat_target_self_path(&r->tgt, j->path, sizeof j->path);
    }
    j->limit = r->spec->size;
    j->unit = r->spec->dedup_unit ? r->spec->dedup_unit : 131072;
    r->state = RUN_CHECKING;
    if (uv_queue_work(a->loop, &j->req, s_datacheck_work, s_datacheck_done) != 0) {
        free(j);
        s_send_result(a, NULL);
    }
}

static void s_on_fio_exit(void *arg, int64_t status, int sig, const char *tail)
{
    agent_t *a = arg;
    run_t *r = &a->run;
    lg_fio_report_t *rep = NULL;
    char err[512];
    int rc = LG_EFIO;
    if (r->last)
        rc = lg_fio_report_parse(r->last, r->last_len, &rep, err, sizeof err);
    int how = lg_fiorun_stop_how(r->fio);
    if (how == LG_FIORUN_STOP_TERMINATED) {
        /* Its last output is an interval report, not the final one: do not pass it off as that. */
        char msg[512];
        snprintf(msg, sizeof msg,
                 "stopped: fio did not end within %d s of its trigger file and was ended with "
                 "TerminateProcess, so it wrote no final report (the %llu interval samples sent "
                 "are kept)",
                 LG_FIORUN_STOP_GRACE_MS / 1000, (unsigned long long)r->seq);
        lg_fio_report_destroy(&rep);
        s_run_fail(a, LG_EFIO, msg);
        return;
    }
    /* Said with the result, so that the run's error tells how the Stop ended fio here. */
    r->stop_note = how == LG_FIORUN_STOP_TRIGGER
                       ? "fio ended on its trigger file (the Windows agent's Stop) and wrote its "
                         "final report"
                       : NULL;
    if ((status != 0 || sig != 0) && !r->stop_requested) {
        char msg[2048];
        snprintf(msg, sizeof msg, "fio exited with status %lld (signal %d): %s",
                 (long long)status, sig, tail[0] ? tail : "no message");
        lg_fio_report_destroy(&rep);
        s_run_fail(a, LG_EFIO, msg);
        return;
    }
    if (rc != 0) {
        char msg[1024];
        snprintf(msg, sizeof msg, "fio gave no final report: %s",
                 r->last ? err : (tail[0] ? tail : "empty output"));
        s_run_fail(a, LG_EFIO, msg);
        return;
    }
    r->fio_exit = (int32_t)status;
    lg_fio_report_destroy(&rep);
    lg_fiorun_destroy(&r->fio);
    /* fio wrote through the held descriptor; a path that now leads elsewhere means someone
     * swapped it during the run: say so rather than report a run on a moving target. */
    if (r->has_tgt && lg_plat_target_recheck(&r->tgt, r->spec->target, err, sizeof err) != 0) {
        s_run_fail(a, LG_EDENIED, err);
        return;
    }
    if (r->spec->target_kind != LG__TARGET_KIND__TARGET_NULL && lg_jobfile_writes(r->spec) &&
        (r->spec->compress_ratio > 0 || r->spec->dedup_ratio > 0)) {
        s_start_datacheck(a);
        return;
    }
    s_send_result(a, NULL);
}

/* The held fio woke at the instant (t_us, our clock) and has replaced its hold stage, or could
 * not be executed. */
static void s_on_fio_started(void *arg, int64_t t_us, int err)
{
    agent_t *a = arg;
    run_t *r = &a->run;
    if (err) {
        char msg[256];
        snprintf(msg, sizeof msg, "could not start fio \"%s\": %s", a->cfg->fio, uv_strerror(err));
        s_run_fail(a, LG_EFIO, msg);
        return;
    }
    if (r->state != RUN_WAITING)
        return;
    r->state = RUN_RUNNING;
    r->started_us = t_us + a->clock_offset_us;
    r->prev_t_ms = t_us / 1000;
    lg_plat_cpu_snap(lg_fiorun_pid(r->fio), &r->cpu_prev);
    r->has_cpu_prev = 1;
    /* The lag and the offset are what a start skew is made of: say them. */
    lg_info("run %llu started %lld us after the agreed instant (clock offset %lld us)",
            (unsigned long long)r->spec->run_id, (long long)(t_us - r->start_at_local_us),
            (long long)a->clock_offset_us);
}

/* End a running fio so that it still writes its final report (lg_fiorun_stop): SIGTERM, or on
 * Windows the trigger file named on its command line (s_spawn_fio). */
static void s_stop_fio(agent_t *a)
{
    char trig[1100];
    s_trigger_path(a, trig, sizeof trig);
    lg_fiorun_stop(a->run.fio, trig);
}

static int s_hold_fio(agent_t *a)
{
    return s_spawn_fio(a, a->run.job, 1, s_on_fio_object, s_on_fio_started, s_on_fio_exit);
}

static void s_handle_start(agent_t *a, const Lg__Start *st)
{
    run_t *r = &a->run;
    if (r->state != RUN_READY || r->spec->run_id != st->run_id) {
        if (r->spec && r->spec->run_id == st->run_id && r->state >= RUN_WAITING)
            return; /* a repeated Start */
        s_send_run_error(a, st->run_id, LG_ESTATE, "Start for a run that is not prepared");
        return;
    }
#ifndef _WIN32
    if (r->app) {
        r->start_at_local_us = st->start_at_us - a->clock_offset_us;
        int arc = lg_apprun_release(r->app, r->start_at_local_us);
        if (arc) {
            char msg[256];
            snprintf(msg, sizeof msg, "could not start the application benchmark: %s",
                     uv_strerror(arc));
            s_run_fail(a, LG_ECHILD, msg);
            return;
        }
        r->state = RUN_WAITING;
        return;
    }
#endif
    /* The instant is in the controller's clock: ours is offset behind it. The held fio sleeps
     * until it on its own (an absolute clock_nanosleep), away from this loop's latency, and
     * tells when it woke (s_on_fio_started). */
    char err[1024];
    if (r->has_tgt && lg_plat_target_recheck(&r->tgt, r->spec->target, err, sizeof err) != 0) {
        s_run_fail(a, LG_EDENIED, err);
        return;
    }
    r->start_at_local_us = st->start_at_us - a->clock_offset_us;
    int rc = lg_fiorun_release(r->fio, r->start_at_local_us);
    if (rc) {
        char msg[256];
        snprintf(msg, sizeof msg, "could not start fio \"%s\": %s", a->cfg->fio, uv_strerror(rc));
        s_run_fail(a, LG_EFIO, msg);
        return;
    }
    r->state = RUN_WAITING;
}

static void s_handle_stop(agent_t *a, const Lg__Stop *st)
{
    run_t *r = &a->run;
    if (!r->spec || r->spec->run_id != st->run_id || r->state == RUN_CHECKING)
        return; /* measuring what was written: the result follows */
#ifndef _WIN32
    if (r->state == RUN_RUNNING && r->app) {
        /* pgbench and sysbench print no summary when interrupted: the result is an error
         * saying so, after the samples measured until then. */
        r->stop_requested = 1;
        lg_apprun_stop(r->app);
        return;
    }
#endif
    if (r->state == RUN_RUNNING) {
        r->stop_requested = 1;
        s_stop_fio(a);
        return;
    }
    lg_info("run %llu stopped before it started", (unsigned long long)st->run_id);
    s_run_clear(a);
}

/* ---- messages from the controller ---- */

static void s_on_msg(void *arg, const uint8_t *id, size_t idlen, Lg__Envelope *env)
{
    agent_t *a = arg;
    (void)id;
    (void)idlen;
    a->last_heard_ms = lg_mono_ms();
    if (a->controller_lost) {
        a->controller_lost = 0;
        lg_info("the controller is back; resending what it has not acknowledged (%zu)",
                (size_t)lg_spool_count(a->spool));
        lg_spool_resend(a->spool, a->last_heard_ms, 0, s_send_raw, a);
    }
    switch (env->body_case) {
    case LG__ENVELOPE__BODY_HEARTBEAT: /* the controller's beat: heard, nothing more */
        break;
    case LG__ENVELOPE__BODY_WELCOME:
        if (env->welcome->replaced) {
            /* Another process with our key registered as this agent: two must not run. */
            lg_error("another lg-agent with this agent's key and name connected to the "
                     "controller and replaced this one: stopping");
            a->replaced = 1;
            lg_wire_free(env);
            s_stop(a);
            return;
        }
        if (env->welcome->agent_id == 0) { /* the controller does not know us (restarted) */
            if (lg_mono_ms() - a->last_hello_ms > 500)
                s_send_hello(a);
            break;
        }
        if (a->agent_id != env->welcome->agent_id)
            lg_info("registered with the controller as agent %llu",
                    (unsigned long long)env->welcome->agent_id);
        a->agent_id = env->welcome->agent_id;
        s_send_ping(a); /* so the first heartbeat already carries a clock offset */
        /* Whatever the controller may have missed while we were apart. */
        lg_spool_resend(a->spool, lg_mono_ms(), 0, s_send_raw, a);
        break;
    case LG__ENVELOPE__BODY_PREPARE:
        s_handle_prepare(a, env);
        return; /* env is owned by the run now (or freed) */
    case LG__ENVELOPE__BODY_START:
        s_handle_start(a, env->start);
        break;
    case LG__ENVELOPE__BODY_STOP:
        s_handle_stop(a, env->stop);
        break;
    case LG__ENVELOPE__BODY_PONG:
        s_on_pong(a, env->pong);
        break;
    case LG__ENVELOPE__BODY_ACK_MSG:
        lg_spool_ack(a->spool, env->ack_msg->run_id, env->ack_msg->seq_from, env->ack_msg->seq,
                     env->ack_msg->result);
        break;
    default:
        lg__wire_count_malformed();
        lg_warn("dropped an unexpected message (body %d) from the controller",
                (int)env->body_case);
        break;
    }
    lg_wire_free(env);
}

static void s_on_heartbeat(uv_timer_t *t)
{
    agent_t *a = t->data;
    uint64_t now = lg_mono_ms();
    if (a->stop_after_run &&
        ((a->run.state == RUN_NONE && lg_spool_count(a->spool) == 0) || now >= a->stop_deadline_ms)) {
        lg_info("stopping%s", lg_spool_count(a->spool)
                                   ? ": the controller did not acknowledge everything in time"
                                   : ": the run's result is acknowledged");
        s_stop(a);
        return;
    }
    char why[512];
    if (a->authmon && lg_authmon_poll(a->authmon, why, sizeof why) < 0 &&
        (a->auth_said_ms == 0 || now - a->auth_said_ms >= 30000)) {
        a->auth_said_ms = now;
        lg_error("cannot talk to the controller: %s", why);
    }
    if (a->agent_id == 0) {
        if (now - a->last_hello_ms >= HELLO_EVERY_MS)
            s_send_hello(a);
        return;
    }
    uint32_t hb = a->cfg->heartbeat_ms ? a->cfg->heartbeat_ms : 1000;
    uint32_t limit = a->cfg->controller_timeout_ms ? a->cfg->controller_timeout_ms : 5 * hb;
    if (!a->controller_lost && now - a->last_heard_ms > limit) {
        /* Runs go on and measurements stay in the spool; a Hello now and then re-registers us
         * with a controller that restarted meanwhile. */
        a->controller_lost = 1;
        lg_warn("the controller is lost: nothing heard for %u ms; keeping %zu unacknowledged "
                "messages", limit, (size_t)lg_spool_count(a->spool));
    }
    if (a->controller_lost && now - a->last_hello_ms >= HELLO_EVERY_MS)
        s_send_hello(a);
    s_send_heartbeat(a);
    s_send_ping(a);
    lg_spool_resend(a->spool, now, RESEND_AFTER_MS, s_send_raw, a);
}

static void s_close_walk(uv_handle_t *h, void *arg)
{
    (void)arg;
    if (!uv_is_closing(h))
        uv_close(h, NULL);
}

static void s_stop(agent_t *a)
{
    if (a->stopping)
        return;
    a->stopping = 1;
    s_run_clear(a);
    lg_zsock_close(&a->zs);
    uv_timer_stop(&a->hb_timer);
    uv_close((uv_handle_t *)&a->hb_timer, NULL);
    uv_close((uv_handle_t *)&a->sigint, NULL);
    uv_close((uv_handle_t *)&a->sigterm, NULL);
    uv_close((uv_handle_t *)&a->stop_async, NULL);
}

static void s_on_signal(uv_signal_t *sig, int signum)
{
    agent_t *a = sig->data;
    if (a->run.state == RUN_RUNNING && (a->run.fio || a->run.app) && !a->stop_after_run &&
        !a->stopping) {
        /* A second signal stops at once. */
        if (a->run.app)
            lg_info("caught signal %d: ending run %llu as a Stop does (the tool is stopped: "
                    "pgbench and sysbench print no summary when interrupted, so the reports sent "
                    "so far are kept and the run ends with an error saying so; then its server is "
                    "stopped and its folder removed, unless the spec keeps it), then stopping",
                    signum, (unsigned long long)a->run.spec->run_id);
        else
            lg_info("caught signal %d: ending run %llu as a Stop does (fio writes its final "
                    "report, which goes to the controller), then stopping",
                    signum, (unsigned long long)a->run.spec->run_id);
        a->stop_after_run = 1;
        a->stop_deadline_ms = lg_mono_ms() + 45000;
        a->run.stop_requested = 1;
#ifndef _WIN32
        if (a->run.app) {
            lg_apprun_stop(a->run.app);
            return;
        }
#endif
        s_stop_fio(a);
        return;
    }
    lg_info("caught signal %d: stopping", signum);
    s_stop(a);
}

/* The running agent's stop handle, for lg_agent_stop from other threads. */
static uv_once_t s_stop_once = UV_ONCE_INIT;
static uv_mutex_t s_stop_mutex;
static uv_async_t *s_stop_handle;

static void s_stop_init(void) { uv_mutex_init(&s_stop_mutex); }

static void s_set_stop_handle(uv_async_t *h)
{
    uv_once(&s_stop_once, s_stop_init);
    uv_mutex_lock(&s_stop_mutex);
    s_stop_handle = h;
    uv_mutex_unlock(&s_stop_mutex);
}

void lg_agent_stop(void)
{
    uv_once(&s_stop_once, s_stop_init);
    uv_mutex_lock(&s_stop_mutex);
    if (s_stop_handle)
        uv_async_send(s_stop_handle);
    uv_mutex_unlock(&s_stop_mutex);
}

static void s_on_stop_async(uv_async_t *h)
{
    lg_info("asked to stop");
    s_stop(h->data);
}

int lg_agent_main(const lg_agent_config_t *cfg)
{
    agent_t a;
    memset(&a, 0, sizeof a);
    a.cfg = cfg;
    a.loop = uv_default_loop();
    lg_plat_fio_version(cfg->fio, a.fio_version, sizeof a.fio_version);
    if (strncmp(a.fio_version, "fio-", 4) != 0) {
        lg_error("could not run fio \"%s\"", cfg->fio);
        lg_log_hint("Install fio or give its path with --fio.");
        return LG_EFIO;
    }
    /* The job files fio reads (and would run any exec_prerun= in) go into a folder nobody else
     * can enter or rename: a local user who made or could swap it could run commands as us. */
    char err[1024];
    if (lg_owndir(cfg->work_dir, 0700, 0, a.work_dir, sizeof a.work_dir, err, sizeof err) != 0) {
        lg_error("work folder: %s", err);
        lg_log_hint("Give --work-dir a folder of the agent's own user that nobody else can write, "
                    "or leave it out (the default is private to the agent).");
        return LG_EDENIED;
    }
    lg_info("work folder: %s", a.work_dir);
#ifndef _WIN32
    /* Before anything else: what an agent killed during an application run left (its private
     * database server, its folders) is stopped and removed, and the log says so. */
    lg_appclean_run(a.work_dir);
#endif
    a.jobhost.clocksource = lg_jobfile_detect_clocksource(
        "/sys/devices/system/clocksource/clocksource0/current_clocksource", "/proc/cpuinfo");
    lg_info("fio clocksource: %s", a.jobhost.clocksource ? a.jobhost.clocksource
                                                         : "fio's own choice");
    /* fio's external engines for smb:// and iscsi://: --engine-dir, else BIN/../lib/lg/engines. */
    if (cfg->engine_dir) {
        lg_strlcpy(a.engine_dir, cfg->engine_dir, sizeof a.engine_dir);
    } else {
        char exe[1024];
        size_t len = sizeof exe;
        if (uv_exepath(exe, &len) == 0) {
            char *slash = strrchr(exe, LG_PLAT_SEP);
            if (slash)
                *slash = 0;
#ifdef _WIN32
            snprintf(a.engine_dir, sizeof a.engine_dir, "%s\\..\\lib\\lg\\engines", exe);
#else
            snprintf(a.engine_dir, sizeof a.engine_dir, "%s/../lib/lg/engines", exe);
#endif
        }
    }
    char so[1100];
    snprintf(so, sizeof so, "%s/lgsmb.so", a.engine_dir);
    a.has_lgsmb = access(so, R_OK) == 0;
    snprintf(so, sizeof so, "%s/lgiscsi.so", a.engine_dir);
    a.has_lgiscsi = access(so, R_OK) == 0;
    lg_info("engines in %s: lgsmb %s, lgiscsi %s", a.engine_dir, a.has_lgsmb ? "yes" : "no",
            a.has_lgiscsi ? "yes" : "no");
    a.jobhost.engine_dir = a.engine_dir;
    a.jobhost.smb_credentials = cfg->smb_credentials;
    a.jobhost.iscsi_chap = cfg->iscsi_chap;
    a.spool = lg_spool_new(SPOOL_MAX);
    a.zctx = zmq_ctx_new();
    a.dealer = zmq_socket(a.zctx, ZMQ_DEALER);
    if (!a.spool || !a.zctx || !a.dealer)
        return -ENOMEM;
    int rc = lg_wire_sock_setup(a.dealer);
    /* A routing id of this process's own: the same across reconnects of this connection, new
     * when the agent restarts, never guessable by another peer. Who we are is our key (the
     * controller checks the name in Hello against it), not this id; the name in it is for logs. */
    unsigned char rnd[8];
    char rid[LG_AGENT_NAME_MAX + 20];
    if (uv_random(NULL, NULL, rnd, sizeof rnd, 0, NULL) != 0)
        for (size_t i = 0; i < sizeof rnd; i++)
            rnd[i] = (unsigned char)(lg_now_us() >> (i * 3));
    int n = snprintf(rid, sizeof rid, "%s#", cfg->name);
    for (size_t i = 0; i < sizeof rnd && n + 3 < (int)sizeof rid; i++)
        n += snprintf(rid + n, sizeof rid - (size_t)n, "%02x", rnd[i]);
    if (rc == 0 && zmq_setsockopt(a.dealer, ZMQ_ROUTING_ID, rid, strlen(rid)) != 0)
        rc = -zmq_errno();
    char why[1024];
    if (rc == 0 && (rc = lg_auth_client_setup(a.zctx, a.dealer, cfg->controller, cfg->key_file,
                                              cfg->controller_key, cfg->plaintext, &a.authmon,
                                              why, sizeof why)) != 0)
        lg_error("%s", why);
    if (rc == 0 && zmq_connect(a.dealer, cfg->controller) != 0) {
        rc = -zmq_errno();
        lg_error("could not connect to \"%s\": %s", cfg->controller, zmq_strerror(-rc));
    }
    if (rc == 0)
        rc = lg_zsock_new(a.loop, a.dealer, 0, s_on_msg, &a, &a.zs);
    if (rc) {
        lg_authmon_free(&a.authmon);
        zmq_close(a.dealer);
        zmq_ctx_term(a.zctx);
        lg_spool_destroy(&a.spool);
        return rc;
    }
    uv_timer_init(a.loop, &a.hb_timer);
    a.hb_timer.data = &a;
    uv_signal_init(a.loop, &a.sigint);
    uv_signal_init(a.loop, &a.sigterm);
    a.sigint.data = a.sigterm.data = &a;
    uv_signal_start(&a.sigint, s_on_signal, SIGINT);
    uv_signal_start(&a.sigterm, s_on_signal, SIGTERM);
    uv_async_init(a.loop, &a.stop_async, s_on_stop_async);
    a.stop_async.data = &a;
    s_set_stop_handle(&a.stop_async);
    uint32_t hb = cfg->heartbeat_ms ? cfg->heartbeat_ms : 1000;
    uv_timer_start(&a.hb_timer, s_on_heartbeat, hb, hb);
    lg_info("agent \"%s\" (%s) connecting to %s (%s)", cfg->name, a.fio_version,
            cfg->controller, cfg->plaintext ? "plaintext" : "CURVE");
    s_send_hello(&a);

    uv_run(a.loop, UV_RUN_DEFAULT);
    s_set_stop_handle(NULL);
    uv_walk(a.loop, s_close_walk, NULL);
    uv_run(a.loop, UV_RUN_DEFAULT);
    rc = uv_loop_close(a.loop);
    if (rc)
        lg_warn("libuv loop did not close cleanly: %s", uv_strerror(rc));
    if (lg_spool_count(a.spool))
        lg_warn("%zu messages were never acknowledged by the controller",
                lg_spool_count(a.spool));
    lg_spool_destroy(&a.spool);
    lg_authmon_free(&a.authmon);
    zmq_close(a.dealer);
    zmq_ctx_term(a.zctx);
    return a.replaced ? LG_EDENIED : 0;
}
