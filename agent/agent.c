/* agent.c: the agent's libuv loop: the DEALER to the controller, Hello, heartbeats and the
 * clock exchange, the messages it receives (each handled in agent_prepare.c, agent_run.c; what
 * it sends is in agent_send.c), the spool of messages awaiting acknowledgement, and stopping. */
#include "agent_int.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zmq.h>

#include "appclean.h"
#include "lg_error.h"
#include "lg_fio.h"
#include "lg_log.h"
#include "lg_owndir.h"
#include "lg_util.h"
#include "lg_wire.h"

#define SPOOL_MAX (256u << 20)
#define RESEND_AFTER_MS 5000
#define HELLO_EVERY_MS 2000

static void s_stop(agent_t *a);

/* ---- sending (the messages themselves are in agent_send.c) ---- */

static int s_send_raw(void *arg, const uint8_t *buf, size_t len)
{
    agent_t *a = arg;
    return lg_zsock_send_raw(a->zs, NULL, 0, buf, len);
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
    lg__agent_send(a, &env);
}

static void s_send_ping(agent_t *a)
{
    Lg__Ping p = LG__PING__INIT;
    p.t0_us = lg_now_us();
    Lg__Envelope env = LG__ENVELOPE__INIT;
    env.body_case = LG__ENVELOPE__BODY_PING;
    env.ping = &p;
    lg__agent_send(a, &env);
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
        [RUN_LOGIN] = LG__AGENT_STATE__AGENT_PREPARING,
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
    lg__agent_send(a, &env);
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
            lg_wire_envelope_destroy(&env);
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
        lg__agent_handle_prepare(a, env);
        return; /* env is owned by the run now (or freed) */
    case LG__ENVELOPE__BODY_START:
        lg__agent_handle_start(a, env->start);
        break;
    case LG__ENVELOPE__BODY_CHECK:
        lg__agent_handle_check(a, env->check);
        break;
    case LG__ENVELOPE__BODY_STOP:
        lg__agent_handle_stop(a, env->stop);
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
        lg_warn("dropped an unexpected message (body %d) from the controller", (int)env->body_case);
        break;
    }
    lg_wire_envelope_destroy(&env);
}

/* A beat later than LATE_MS says our loop was held (busy, or waiting for a CPU on an overloaded
 * machine, as the controller may have been): what the controller sent meanwhile is read before it
 * is judged silent, and the time we were held does not count as its silence. Otherwise this
 * timer, run before the socket is read after such a hold, took the controller for lost and said
 * Hello again. Returns 1 when what was read stopped the agent. */
#define LATE_MS 200
static int s_held(agent_t *a, uint64_t now, uint32_t hb)
{
    uint64_t last = a->beat_ms;
    a->beat_ms = now;
    if (!last || now - last <= hb + LATE_MS)
        return 0;
    uint64_t held = now - last - hb;
    a->last_heard_ms = a->last_heard_ms + held < now ? a->last_heard_ms + held : now;
    lg_zsock_drain(a->zs);
    return a->stopping;
}

static void s_on_heartbeat(uv_timer_t *t)
{
    agent_t *a = t->data;
    uint64_t now = lg_mono_ms();
#ifndef _WIN32
    lg__agent_park_reap(a);
#endif
    if (a->stop_after_run && ((a->run.state == RUN_NONE && lg_spool_count(a->spool) == 0) ||
                              now >= a->stop_deadline_ms)) {
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
    if (s_held(a, now, hb))
        return; /* stopped meanwhile (a Welcome said we were replaced) */
    if (!a->controller_lost && now - a->last_heard_ms > limit) {
        /* Runs go on and measurements stay in the spool; a Hello now and then re-registers us
         * with a controller that restarted meanwhile. */
        a->controller_lost = 1;
        lg_warn("the controller is lost: nothing heard for %u ms; keeping %zu unacknowledged "
                "messages",
                limit, (size_t)lg_spool_count(a->spool));
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
    lg__agent_run_clear(a);
    lg_zsock_close(&a->zs);
    uv_timer_stop(&a->hb_timer);
    uv_close((uv_handle_t *)&a->hb_timer, NULL);
    uv_close((uv_handle_t *)&a->gate_timer, NULL);
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
        lg__agent_stop_fio(a);
        return;
    }
    lg_info("caught signal %d: stopping", signum);
    s_stop(a);
}

/* The running agent's stop handle, for lg_agent_stop from other threads. */
static uv_once_t s_stop_once = UV_ONCE_INIT;
static uv_mutex_t s_stop_mutex;
static uv_async_t *s_stop_handle;

static void s_stop_init(void)
{
    uv_mutex_init(&s_stop_mutex);
}

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

/* fio's external engines for smb:// and iscsi://: --engine-dir, else BIN/../lib/lg/engines. */
static void s_find_engines(agent_t *a)
{
    if (a->cfg->engine_dir) {
        lg_strlcpy(a->engine_dir, a->cfg->engine_dir, sizeof a->engine_dir);
    } else {
        char exe[1024];
        size_t len = sizeof exe;
        if (uv_exepath(exe, &len) == 0) {
            char *slash = strrchr(exe, LG_PLAT_SEP);
            if (slash)
                *slash = 0;
#ifdef _WIN32
            snprintf(a->engine_dir, sizeof a->engine_dir, "%s\\..\\lib\\lg\\engines", exe);
#else
            snprintf(a->engine_dir, sizeof a->engine_dir, "%s/../lib/lg/engines", exe);
#endif
        }
    }
    char so[1100];
    snprintf(so, sizeof so, "%s/lgsmb.so", a->engine_dir);
    a->has_lgsmb = access(so, R_OK) == 0;
    snprintf(so, sizeof so, "%s/lgiscsi.so", a->engine_dir);
    a->has_lgiscsi = access(so, R_OK) == 0;
    lg_info("engines in %s: lgsmb %s, lgiscsi %s", a->engine_dir, a->has_lgsmb ? "yes" : "no",
            a->has_lgiscsi ? "yes" : "no");
    a->jobhost.engine_dir = a->engine_dir;
    a->jobhost.smb_credentials = a->cfg->smb_credentials;
    a->jobhost.iscsi_chap = a->cfg->iscsi_chap;
}

/* The DEALER's routing id and CURVE keys, and its connection to the controller. Returns 0 or a
 * negative error (logged). */
static int s_connect(agent_t *a)
{
    int rc = lg_wire_sock_setup(a->dealer);
    if (rc == 0)
        rc = lg_wire_sock_keepalive(a->dealer, 1);
    /* A routing id of this process's own: the same across reconnects of this connection, new
     * when the agent restarts, never guessable by another peer. Who we are is our key (the
     * controller checks the name in Hello against it), not this id; the name in it is for logs. */
    unsigned char rnd[8];
    char rid[LG_AGENT_NAME_MAX + 20];
    if (uv_random(NULL, NULL, rnd, sizeof rnd, 0, NULL) != 0)
        for (size_t i = 0; i < sizeof rnd; i++)
            rnd[i] = (unsigned char)(lg_now_us() >> (i * 3));
    int n = snprintf(rid, sizeof rid, "%s#", a->cfg->name);
    for (size_t i = 0; i < sizeof rnd && n + 3 < (int)sizeof rid; i++)
        n += snprintf(rid + n, sizeof rid - (size_t)n, "%02x", rnd[i]);
    if (rc == 0 && zmq_setsockopt(a->dealer, ZMQ_ROUTING_ID, rid, strlen(rid)) != 0)
        rc = -zmq_errno();
    char why[1024];
    const lg_agent_config_t *cfg = a->cfg;
    if (rc == 0 && (rc = lg_auth_client_setup(a->zctx, a->dealer, cfg->controller, cfg->key_file,
                                              cfg->controller_key, cfg->plaintext, &a->authmon, why,
                                              sizeof why)) != 0)
        lg_error("%s", why);
    if (rc == 0 && zmq_connect(a->dealer, a->cfg->controller) != 0) {
        rc = -zmq_errno();
        lg_error("could not connect to \"%s\": %s", a->cfg->controller, zmq_strerror(-rc));
    }
    return rc;
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
    /* The fio its host has, from the oldest whose status stream lg reads on (lg_fio.h); a
     * version that does not parse (a build from a bare git tree) is let through and said. */
    int fio_ok = lg_fio_version_supported(a.fio_version);
    if (fio_ok == 0) {
        lg_error("fio \"%s\" is %s; lg-agent needs %s or newer", cfg->fio, a.fio_version,
                 LG_FIO_OLDEST);
        lg_log_hint("lg reads fio's json+ status output from fio %s on. Install a newer fio, or "
                    "give its path with --fio.",
                    LG_FIO_OLDEST + 4);
        return LG_EFIO;
    }
    if (fio_ok < 0)
        lg_warn("fio \"%s\" says it is \"%s\", not a version lg knows; trying it", cfg->fio,
                a.fio_version);
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
    /* And what is left of an fio it ran (its job processes, which do not die with it) is
     * killed before this agent registers: no run of ours may start beside it. */
    a.fio_left = lg_fiorec_clean(a.work_dir, LG_FIOREC_KILL_MS);
    /* lgsmb's sessions parked by an earlier agent end with it; their names go. */
    lg__agent_park_init(&a);
#endif
    a.jobhost.clocksource = lg_jobfile_detect_clocksource(
        "/sys/devices/system/clocksource/clocksource0/current_clocksource", "/proc/cpuinfo");
    lg_info("fio clocksource: %s",
            a.jobhost.clocksource ? a.jobhost.clocksource : "fio's own choice");
    s_find_engines(&a);
    a.spool = lg_spool_new(SPOOL_MAX);
    a.zctx = zmq_ctx_new();
    a.dealer = zmq_socket(a.zctx, ZMQ_DEALER);
    if (!a.spool || !a.zctx || !a.dealer)
        return -ENOMEM;
    int rc = s_connect(&a);
    if (rc == 0)
        rc = lg_zsock_new(a.loop, a.dealer, 0, s_on_msg, &a, &a.zs);
    if (rc) {
        lg_authmon_destroy(&a.authmon);
        zmq_close(a.dealer);
        zmq_ctx_term(a.zctx);
        lg_spool_destroy(&a.spool);
        return rc;
    }
    uv_timer_init(a.loop, &a.hb_timer);
    a.hb_timer.data = &a;
    uv_timer_init(a.loop, &a.gate_timer);
    a.gate_timer.data = &a;
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
    lg_info("agent \"%s\" (%s) connecting to %s (%s)", cfg->name, a.fio_version, cfg->controller,
            cfg->plaintext ? "plaintext" : "CURVE");
    s_send_hello(&a);

    uv_run(a.loop, UV_RUN_DEFAULT);
    s_set_stop_handle(NULL);
    uv_walk(a.loop, s_close_walk, NULL);
    uv_run(a.loop, UV_RUN_DEFAULT);
    rc = uv_loop_close(a.loop);
    if (rc)
        lg_warn("libuv loop did not close cleanly: %s", uv_strerror(rc));
    if (lg_spool_count(a.spool))
        lg_warn("%zu messages were never acknowledged by the controller", lg_spool_count(a.spool));
    lg_spool_destroy(&a.spool);
    lg_authmon_destroy(&a.authmon);
    zmq_close(a.dealer);
    zmq_ctx_term(a.zctx);
    return a.replaced ? LG_EDENIED : 0;
}
