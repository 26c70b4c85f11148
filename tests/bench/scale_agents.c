/* scale_agents: many simulated agents in one process for tests/bench/controller_scale.sh. Each has
 * its own DEALER and name and behaves like lg-agent on the wire: ZMTP heartbeats with a TTL, Hello,
 * Heartbeat + Ping every heartbeat_ms of the Welcome, Prepared for a Prepare, one Sample a second
 * (a read direction with a latency histogram of a few hundred buckets) from the agreed start, and
 * the RunResult at the end, resending what the controller does not acknowledge. One thread and one
 * epoll over the sockets' ZMQ_FDs, so a wake-up costs what is ready, not a poll of every socket
 * (zmq_poll over 5,000 sockets cost a syscall or two per socket each time). A fleet larger than
 * one process's descriptors is split over several processes, each a slice of the names (--first).
 * Progress lines, and on SIGUSR1 how quickly the controller answered, go to stdout for the script;
 * usage: see s_usage. */
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>
#include <zmq.h>

#include "lg_auth.h"
#include "lg_error.h"
#include "lg_log.h"
#include "lg_stats.h"
#include "lg_util.h"
#include "lg_wire.h"
#include "scale_stats.h"

#define MAX_AGENTS 10000
#define HELLO_EVERY_MS 2000  /* as lg-agent: Hello again until welcomed */
#define RESEND_AFTER_MS 5000 /* as lg-agent's spool: unacknowledged samples go again */
#define RESULT_RESEND_MS 10000
/* zmq_poll over thousands of sockets costs a syscall per socket: handle what arrived in slices of
 * at least this long instead of waking for every message (--loop-ms; a few probe agents that
 * measure the controller's Pongs take 0 and wake for each message, as lg-agent does). */
#define LOOP_MIN_MS 10
#define NRUNS 16
/* A registered agent that hears nothing (no Pong, no beat) for this many heartbeats says so. */
#define SILENT_BEATS SCALE_SILENT_BEATS
#define RTT_SLOW_MS 250 /* a round trip this long is logged (at most once a second) */

typedef struct {
    const char *controller;
    const char *prefix;
    const char *bad_hello; /* this agent's Hello says 4,000,000,000 CPUs (--bad-hello) */
    uint64_t agents;
    uint64_t first; /* the first agent's number: names PREFIX<first>, PREFIX<first + 1>, ... */
    uint64_t bins;
    uint64_t seed;
    uint64_t timeout_s;
    uint64_t rate;         /* samples a second per agent; 1000 / rate ms each */
    uint64_t ping_ms;      /* a Ping this often besides each heartbeat's (0: none) */
    uint64_t loop_ms;      /* handle what arrived in slices at least this long */
    uint64_t connect_rate; /* agents connecting a second (0: all at once) */
} opts_t;

/* What the simulated agents did for one run, as a whole. */
typedef struct {
    uint64_t run_id;
    uint64_t agents;  /* took its Prepare */
    uint64_t dropped; /* stopped before the start: no result, as lg-agent */
    uint64_t started;
    uint64_t sent; /* distinct samples */
    uint64_t acked;
    uint64_t results;
    int announced, reported;
} run_stat_t;

typedef enum { A_IDLE, A_READY, A_RUNNING, A_REPORTING } agent_phase_t;

typedef struct {
    void *sock;
    uint32_t index;
    char name[64];
    uint64_t agent_id;
    uint64_t msg_seq;
    uint32_t hb_ms;
    uint64_t next_hb_ms;   /* next Heartbeat + Ping; next Hello while not welcomed */
    uint64_t next_ping_ms; /* next extra Ping (--ping-ms) */
    uint64_t last_hello_ms;
    uint64_t connect_ms;    /* when it connects (--connect-rate); 0: it has */
    uint64_t last_heard_ms; /* anything from the controller: it answers every Ping */
    int silent;
    int64_t clock_offset_us;
    uint64_t rtt_us;
    /* the run it takes part in */
    agent_phase_t phase;
    run_stat_t *rs;
    uint32_t ramp_s, runtime_s;
    uint64_t start_ms;     /* the agreed start instant, monotonic clock */
    int64_t start_wall_ms; /* the same instant, wall clock: the samples' t_ms */
    uint64_t seq;          /* samples sent */
    uint64_t acked;        /* 1..acked are all acknowledged */
    uint64_t nacked;       /* how many are (acks come as ranges, not always in order) */
    uint8_t *ackbits;      /* bit q: sample q acknowledged */
    uint64_t resend_ms;    /* when unacknowledged samples are due again */
    uint64_t result_ms;    /* when the RunResult was last sent */
    int result_acked;
    lg_dirstats_t *total; /* what the samples add up to, for the RunResult */
} sim_agent_t;

typedef struct {
    const opts_t *o;
    sim_agent_t *a;
    size_t n;
    int ep; /* epoll over the sockets' ZMQ_FDs */
    lg_dirstats_t *scratch;
    run_stat_t runs[NRUNS];
    size_t nruns;
    uint64_t t0_ms;
    size_t registered;
    int all_registered;
    /* counters for the summary */
    uint64_t msgs_out, msgs_in, send_errors, samples_resent, hellos, unexpected;
    scale_seen_t all, win; /* since the start; since the last SIGUSR1 */
    uint64_t slow_logged_ms;
} sim_t;

static volatile sig_atomic_t s_stop, s_report;

static void s_on_signal(int sig)
{
    if (sig == SIGUSR1)
        s_report = 1;
    else
        s_stop = 1;
}

/* ---- what the agents see ---- */

/* A Pong came back rtt_us after its Ping; the controller answered it in_us after the Ping left
 * (its clock is ours: one host), which a slow one's log line tells apart from the way back. */
static void s_seen_rtt(sim_t *s, const sim_agent_t *a, uint64_t rtt_us, int64_t in_us)
{
    scale_seen_rtt(&s->all, rtt_us);
    scale_seen_rtt(&s->win, rtt_us);
    uint64_t now = lg_mono_ms(), ms = rtt_us / 1000;
    if (ms >= RTT_SLOW_MS && now - s->slow_logged_ms >= 1000) {
        s->slow_logged_ms = now;
        lg_info("\"%s\" waited %llu ms for a Pong (the controller answered %.1f ms after the "
                "Ping left)",
                a->name, (unsigned long long)ms, (double)in_us / 1000.0);
    }
}

/* ---- sending ---- */

static int s_send(sim_t *s, sim_agent_t *a, Lg__Envelope *env)
{
    env->seq = ++a->msg_seq;
    int rc = lg_wire_send(a->sock, NULL, 0, env);
    if (rc) {
        /* Nothing waits here: a lost heartbeat is the next one's job, samples are resent. */
        if (s->send_errors++ == 0)
            lg_warn("could not send for \"%s\": %s", a->name, lg_strerror(rc));
        return rc;
    }
    s->msgs_out++;
    return 0;
}

static void s_send_hello(sim_t *s, sim_agent_t *a, uint64_t now)
{
    Lg__Hello h = LG__HELLO__INIT;
    char *engines[] = {"libaio", "null"};
    h.name = a->name;
    h.lg_version = LG_VERSION;
    h.os = "Linux (simulated by scale_agents)";
    h.cpu_model = "simulated";
    /* beyond lg.agent.cpu_count (integer): a row the database refuses, for tests */
    h.cpu_count = s->o->bad_hello && !strcmp(a->name, s->o->bad_hello) ? 4000000000u : 16;
    h.mem_bytes = 64ull << 30;
    h.fio_version = "fio-3.33";
    h.n_engines = 2;
    h.engines = engines;
    Lg__Envelope env = LG__ENVELOPE__INIT;
    env.body_case = LG__ENVELOPE__BODY_HELLO;
    env.hello = &h;
    a->last_hello_ms = now;
    s->hellos++;
    s_send(s, a, &env);
}

static void s_send_ping(sim_t *s, sim_agent_t *a)
{
    Lg__Ping p = LG__PING__INIT;
    p.t0_us = lg_now_us();
    Lg__Envelope env = LG__ENVELOPE__INIT;
    env.body_case = LG__ENVELOPE__BODY_PING;
    env.ping = &p;
    s_send(s, a, &env);
}

static void s_send_heartbeat(sim_t *s, sim_agent_t *a)
{
    static const Lg__AgentState states[] = {
        [A_IDLE] = LG__AGENT_STATE__AGENT_IDLE,
        [A_READY] = LG__AGENT_STATE__AGENT_READY,
        [A_RUNNING] = LG__AGENT_STATE__AGENT_RUNNING,
        [A_REPORTING] = LG__AGENT_STATE__AGENT_IDLE, /* lg-agent clears its run on reporting */
    };
    Lg__Heartbeat hb = LG__HEARTBEAT__INIT;
    hb.state = states[a->phase];
    hb.run_id = a->phase == A_READY || a->phase == A_RUNNING ? a->rs->run_id : 0;
    hb.unacked = a->rs ? a->seq - a->nacked + (a->phase == A_REPORTING && !a->result_acked) : 0;
    hb.clock_offset_us = a->clock_offset_us;
    hb.rtt_us = a->rtt_us;
    Lg__Envelope env = LG__ENVELOPE__INIT;
    env.body_case = LG__ENVELOPE__BODY_HEARTBEAT;
    env.heartbeat = &hb;
    s_send(s, a, &env);
}

static int s_send_sample(sim_t *s, sim_agent_t *a, uint64_t seq)
{
    scale_make_stats(s->o->seed, (unsigned)s->o->bins, a->index, seq, s->scratch);
    Lg__DirStats *d = lg_wire_dirstats_new(s->scratch, LG_DIR_READ);
    if (!d)
        return -ENOMEM;
    Lg__Sample smp = LG__SAMPLE__INIT;
    smp.run_id = a->rs->run_id;
    smp.seq = seq;
    uint64_t iv = 1000 / s->o->rate;
    smp.t_ms = a->start_wall_ms + (int64_t)a->ramp_s * 1000 + (int64_t)(seq * iv);
    smp.interval_ms = iv;
    smp.n_dirs = 1;
    smp.dirs = &d;
    Lg__Envelope env = LG__ENVELOPE__INIT;
    env.body_case = LG__ENVELOPE__BODY_SAMPLE;
    env.sample = &smp;
    int rc = s_send(s, a, &env);
    lg_wire_dirstats_destroy(&d);
    return rc;
}

static int s_send_result(sim_t *s, sim_agent_t *a)
{
    lg_dirstats_t *t = a->total;
    double secs = (double)a->seq;
    t->iops = secs > 0 ? (double)t->ios / secs : 0;
    t->bw_bytes = secs > 0 ? (double)t->bytes / secs : 0;
    t->lat_mean = t->lat_n ? t->lat_sum / (double)t->lat_n : 0;
    double var = t->lat_n > 1 ? (t->lat_sumsq - (double)t->lat_n * t->lat_mean * t->lat_mean) /
                                    (double)(t->lat_n - 1)
                              : 0;
    t->lat_stddev = var > 0 ? sqrt(var) : 0;
    Lg__DirStats *d = lg_wire_dirstats_new(t, LG_DIR_READ);
    if (!d)
        return -ENOMEM;
    Lg__RunResult res = LG__RUN_RESULT__INIT;
    res.run_id = a->rs->run_id;
    res.n_dirs = 1;
    res.dirs = &d;
    res.fio_json = "{\"jobs\":[]}";
    res.samples = a->seq;
    res.njobs = 1;
    res.started_us = a->start_wall_ms * 1000 + a->clock_offset_us;
    Lg__Envelope env = LG__ENVELOPE__INIT;
    env.body_case = LG__ENVELOPE__BODY_RUN_RESULT;
    env.run_result = &res;
    a->result_ms = lg_mono_ms();
    int rc = s_send(s, a, &env);
    lg_wire_dirstats_destroy(&d);
    return rc;
}

/* ---- runs ---- */

static run_stat_t *s_run_stat(sim_t *s, uint64_t run_id)
{
    for (size_t i = 0; i < s->nruns; i++)
        if (s->runs[i].run_id == run_id)
            return &s->runs[i];
    run_stat_t *rs = &s->runs[s->nruns % NRUNS]; /* the oldest gives way */
    if (s->nruns < NRUNS)
        s->nruns++;
    memset(rs, 0, sizeof *rs);
    rs->run_id = run_id;
    return rs;
}

/* Print the run's line once every agent's part is delivered and acknowledged (or the run was
 * stopped before it started: then with no agents). */
static void s_run_check(run_stat_t *rs)
{
    if (rs->reported || rs->results + rs->dropped < rs->agents || rs->acked < rs->sent)
        return;
    rs->reported = 1;
    printf("scale_agents: run %llu done: %llu agents, %llu samples sent, %llu acknowledged, "
           "%llu results acknowledged\n",
           (unsigned long long)rs->run_id, (unsigned long long)(rs->agents - rs->dropped),
           (unsigned long long)rs->sent, (unsigned long long)rs->acked,
           (unsigned long long)rs->results);
    fflush(stdout);
}

/* Back to idle once the controller has everything of the run. */
static void s_run_end(sim_agent_t *a)
{
    run_stat_t *rs = a->rs;
    a->phase = A_IDLE;
    a->rs = NULL;
    a->seq = a->acked = a->nacked = 0;
    a->result_acked = 0;
    free(a->total);
    a->total = NULL;
    free(a->ackbits);
    a->ackbits = NULL;
    s_run_check(rs);
}

static void s_on_prepare(sim_t *s, sim_agent_t *a, const Lg__Prepare *p)
{
    if (!p->spec)
        return;
    uint64_t run_id = p->spec->run_id;
    if (a->rs && a->rs->run_id == run_id && a->phase == A_READY) {
        /* Sent again (we registered again): say so again. */
    } else if (a->phase != A_IDLE) {
        /* as lg-agent, busy with another run; said, as a run that cannot start is its effect */
        lg_warn("\"%s\" ignores the Prepare of run %llu: busy with run %llu (%llu of %llu "
                "samples acknowledged)",
                a->name, (unsigned long long)run_id,
                (unsigned long long)(a->rs ? a->rs->run_id : 0), (unsigned long long)a->nacked,
                (unsigned long long)a->seq);
        return;
    } else {
        a->total = malloc(sizeof *a->total);
        if (!a->total) {
            lg_error("out of memory");
            return;
        }
        lg_dirstats_init(a->total);
        a->rs = s_run_stat(s, run_id);
        a->rs->agents++;
        a->phase = A_READY;
        a->ramp_s = p->spec->ramp_s;
        a->runtime_s = p->spec->runtime_s;
        a->seq = a->acked = a->nacked = 0;
        a->result_acked = 0;
        free(a->ackbits);
        a->ackbits = calloc((size_t)a->runtime_s * s->o->rate / 8 + 2, 1);
        if (!a->ackbits) {
            lg_error("out of memory");
            return;
        }
    }
    Lg__Prepared pr = LG__PREPARED__INIT;
    pr.run_id = run_id;
    Lg__Envelope env = LG__ENVELOPE__INIT;
    env.body_case = LG__ENVELOPE__BODY_PREPARED;
    env.prepared = &pr;
    s_send(s, a, &env);
}

static void s_on_start(sim_agent_t *a, const Lg__Start *st)
{
    if (a->phase != A_READY || a->rs->run_id != st->run_id)
        return;
    /* Both clocks of the agreed instant: t_ms in the agent's wall clock, timers in monotonic. */
    int64_t wait_ms = (st->start_at_us - a->clock_offset_us - lg_now_us()) / 1000;
    if (wait_ms < 0)
        wait_ms = 0;
    a->start_ms = lg_mono_ms() + (uint64_t)wait_ms;
    a->start_wall_ms = (st->start_at_us - a->clock_offset_us) / 1000;
    a->phase = A_RUNNING;
    a->resend_ms = 0;
    run_stat_t *rs = a->rs;
    rs->started++;
    if (!rs->announced) {
        rs->announced = 1;
        printf("scale_agents: run %llu started: %llu agents prepared, %u s\n",
               (unsigned long long)rs->run_id, (unsigned long long)rs->agents, a->runtime_s);
        fflush(stdout);
    }
}

static void s_on_stop(sim_t *s, sim_agent_t *a, const Lg__Stop *st)
{
    if (!a->rs || a->rs->run_id != st->run_id)
        return;
    if (a->phase == A_READY) {
        a->rs->dropped++;
        s_run_end(a);
    } else if (a->phase == A_RUNNING) {
        /* fio stops on SIGTERM and still reports: the result of what ran. */
        a->phase = A_REPORTING;
        s_send_result(s, a);
    }
}

static void s_on_ack(sim_agent_t *a, const Lg__Ack *ack)
{
    if (!a->rs || a->rs->run_id != ack->run_id)
        return;
    if (ack->result) {
        if (!a->result_acked && a->phase == A_REPORTING) {
            a->result_acked = 1;
            a->rs->results++;
        }
    } else if (a->ackbits) {
        /* seq_from..seq (seq_from 0: everything up to seq, as an older controller means it) */
        uint64_t lo = ack->seq_from ? ack->seq_from : 1, hi = ack->seq < a->seq ? ack->seq : a->seq;
        for (uint64_t q = lo; q <= hi; q++)
            if (!(a->ackbits[q / 8] & (1u << (q % 8)))) {
                a->ackbits[q / 8] |= (uint8_t)(1u << (q % 8));
                a->nacked++;
                a->rs->acked++;
            }
        uint64_t was = a->acked;
        while (a->acked < a->seq && (a->ackbits[(a->acked + 1) / 8] & (1u << ((a->acked + 1) % 8))))
            a->acked++;
        /* The oldest unacknowledged sample runs the clock: acks of newer ones past a hole (a
         * controller restart lost it in flight) must not put its resend off. */
        if (a->acked != was)
            a->resend_ms = lg_mono_ms() + RESEND_AFTER_MS;
    }
    if (a->phase == A_REPORTING && a->result_acked && a->nacked == a->seq)
        s_run_end(a);
    else if (a->rs)
        s_run_check(a->rs);
}

static void s_on_msg(sim_t *s, sim_agent_t *a, Lg__Envelope *env)
{
    uint64_t now = lg_mono_ms();
    switch (env->body_case) {
    case LG__ENVELOPE__BODY_WELCOME:
        if (env->welcome->agent_id == 0) { /* the controller does not know us */
            if (a->agent_id)
                s->registered--;
            a->agent_id = 0;
            if (now - a->last_hello_ms > 500)
                s_send_hello(s, a, now);
            break;
        }
        if (a->agent_id == 0) {
            if (++s->registered == s->n && !s->all_registered) {
                /* the wall clock too: the script takes a fleet's time from several processes */
                s->all_registered = 1;
                printf("scale_agents: %zu agents registered in %.3f s (at %.3f)\n", s->n,
                       (double)(now - s->t0_ms) / 1000.0, (double)lg_now_us() / 1e6);
                fflush(stdout);
            }
            /* Heartbeats spread over the interval, as agents started at different times. */
            a->hb_ms = env->welcome->heartbeat_ms ? env->welcome->heartbeat_ms : 1000;
            a->next_hb_ms = now + 1 + (uint64_t)a->index * a->hb_ms / s->n;
        }
        a->agent_id = env->welcome->agent_id;
        s_send_ping(s, a); /* so the first heartbeat already carries a clock offset */
        break;
    case LG__ENVELOPE__BODY_PONG: {
        int64_t t3 = lg_now_us();
        const Lg__Pong *p = env->pong;
        if (p->t0_us > 0 && t3 >= p->t0_us) {
            a->rtt_us = (uint64_t)(t3 - p->t0_us);
            s_seen_rtt(s, a, a->rtt_us, p->t1_us - p->t0_us);
            a->clock_offset_us = p->t1_us - (p->t0_us + t3) / 2;
        }
        break;
    }
    case LG__ENVELOPE__BODY_PREPARE:
        s_on_prepare(s, a, env->prepare);
        break;
    case LG__ENVELOPE__BODY_START:
        s_on_start(a, env->start);
        break;
    case LG__ENVELOPE__BODY_STOP:
        s_on_stop(s, a, env->stop);
        break;
    case LG__ENVELOPE__BODY_ACK_MSG:
        s_on_ack(a, env->ack_msg);
        break;
    case LG__ENVELOPE__BODY_HEARTBEAT: /* the controller's own beat: nothing to answer */
        break;
    default:
        if (s->unexpected++ == 0)
            lg_warn("\"%s\" dropped an unexpected message (body %d)", a->name, (int)env->body_case);
        break;
    }
}

static void s_recv_all(sim_t *s, sim_agent_t *a)
{
    for (;;) {
        Lg__Envelope *env = NULL;
        int rc = lg_wire_recv(a->sock, 0, NULL, NULL, NULL, &env);
        if (rc == LG_EPROTO)
            continue; /* logged and counted by lg_wire_recv */
        if (rc)
            return;
        s->msgs_in++;
        uint64_t now = lg_mono_ms();
        if (a->silent) {
            a->silent = 0;
            if (s->all.silences <= 20)
                lg_info("\"%s\" hears the controller again after %.3f s", a->name,
                        (double)(now - a->last_heard_ms) / 1000.0);
        }
        a->last_heard_ms = now;
        s_on_msg(s, a, env);
        lg_wire_envelope_destroy(&env);
    }
}

/* What is due for agent a at now; returns when it next has something to do. */
static uint64_t s_timers(sim_t *s, sim_agent_t *a, uint64_t now)
{
    if (a->connect_ms) { /* its turn to connect (--connect-rate), and to say Hello */
        if (now < a->connect_ms)
            return a->connect_ms;
        a->connect_ms = 0;
        if (zmq_connect(a->sock, s->o->controller) != 0)
            lg_warn("could not connect \"%s\": %s", a->name, zmq_strerror(zmq_errno()));
        s_send_hello(s, a, now);
        return now + HELLO_EVERY_MS;
    }
    if (a->agent_id == 0) {
        if (now - a->last_hello_ms >= HELLO_EVERY_MS)
            s_send_hello(s, a, now);
        return a->last_hello_ms + HELLO_EVERY_MS;
    }
    if (!a->silent && now - a->last_heard_ms > (uint64_t)SILENT_BEATS * a->hb_ms) {
        /* Not for the controller to judge: what the agents see, for the report. */
        a->silent = 1;
        s->win.silences++;
        if (s->all.silences++ < 20)
            lg_warn("\"%s\" has heard nothing from the controller for %llu ms", a->name,
                    (unsigned long long)(now - a->last_heard_ms));
    }
    if (now >= a->next_hb_ms) {
        scale_seen_late(&s->all, now - a->next_hb_ms);
        scale_seen_late(&s->win, now - a->next_hb_ms);
        s_send_heartbeat(s, a);
        s_send_ping(s, a);
        a->next_hb_ms += a->hb_ms;
        if (a->next_hb_ms <= now) /* we fell behind: no burst to catch up */
            a->next_hb_ms = now + a->hb_ms;
    }
    uint64_t next = a->next_hb_ms;
    if (s->o->ping_ms) {
        if (now >= a->next_ping_ms) {
            s_send_ping(s, a);
            a->next_ping_ms = now + s->o->ping_ms;
        }
        if (a->next_ping_ms < next)
            next = a->next_ping_ms;
    }
    if (a->phase == A_RUNNING) {
        uint64_t iv = 1000 / s->o->rate, nsamples = (uint64_t)a->runtime_s * s->o->rate;
        uint64_t due = a->start_ms + (uint64_t)a->ramp_s * 1000 + (a->seq + 1) * iv;
        while (a->seq < nsamples && now >= due) {
            /* Made once, as fio reports once: a failed send is the resend's to repair. */
            s_send_sample(s, a, ++a->seq);
            scale_total_add(a->total, s->scratch);
            a->rs->sent++;
            if (a->nacked == a->seq - 1) /* the oldest unacknowledged one starts the clock */
                a->resend_ms = now + RESEND_AFTER_MS;
            due += iv;
        }
        if (a->seq == nsamples) {
            a->phase = A_REPORTING;
            s_send_result(s, a);
        } else if (due < next) {
            next = due;
        }
    }
    if (a->phase == A_REPORTING && !a->result_acked) {
        if (now - a->result_ms >= RESULT_RESEND_MS)
            s_send_result(s, a);
        if (a->result_ms + RESULT_RESEND_MS < next)
            next = a->result_ms + RESULT_RESEND_MS;
    }
    if ((a->phase == A_RUNNING || a->phase == A_REPORTING) && a->nacked < a->seq) {
        if (now >= a->resend_ms) {
            for (uint64_t q = a->acked + 1; q <= a->seq; q++)
                if (!(a->ackbits[q / 8] & (1u << (q % 8))) && s_send_sample(s, a, q) == 0)
                    s->samples_resent++;
            a->resend_ms = now + RESEND_AFTER_MS;
        }
        if (a->resend_ms < next)
            next = a->resend_ms;
    }
    return next;
}

/* ---- setup and the loop ---- */

static int s_fd_limit(size_t n)
{
    /* Per agent: the DEALER's mailbox and its connection; plus the context's own. */
    rlim_t need = (rlim_t)(2 * n + 64);
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
        return -errno;
    if (rl.rlim_cur >= need)
        return 0;
    rl.rlim_cur = rl.rlim_max >= need ? need : rl.rlim_max;
    setrlimit(RLIMIT_NOFILE, &rl);
    if (rl.rlim_cur >= need)
        return 0;
    lg_error("%zu agents need about %llu file descriptors; the limit is %llu", n,
             (unsigned long long)need, (unsigned long long)rl.rlim_max);
    lg_log_hint("Raise the hard limit (ulimit -Hn), or split the agents over processes, each "
                "a slice of their names (--first, --agents).");
    return -EMFILE;
}

static int s_open(sim_t *s, void *ctx)
{
    /* CURVE with LG_AGENT_KEYS (the controller's agent allow-list folder) and LG_CONTROLLER_KEY:
     * each simulated agent is its own key, as real ones are (the controller binds a name to a
     * key); their public keys go into one PREFIX-fleet.pub there, which the controller reads
     * when the first of them knocks. Else plaintext (loopback or ipc only). */
    const char *kdir = getenv("LG_AGENT_KEYS"), *ckey = getenv("LG_CONTROLLER_KEY");
    int curve = kdir && ckey;
    char spub[LG_KEY_Z85 + 1], why[1024];
    lg_keypair_t *kp = curve ? calloc(s->n, sizeof *kp) : NULL;
    if (curve && (!kp || lg_auth_load_public(ckey, spub, why, sizeof why) != 0)) {
        lg_error("%s", kp ? why : "out of memory");
        free(kp);
        return LG_EDENIED;
    }
    if (!curve && !lg_auth_endpoint_local(s->o->controller)) {
        lg_error("plaintext is only for loopback or ipc: set LG_AGENT_KEYS and LG_CONTROLLER_KEY");
        return LG_EDENIED;
    }
    if (curve) {
        char path[1200], tmp[1300];
        snprintf(path, sizeof path, "%s/%s-fleet-%llu.pub", kdir, s->o->prefix,
                 (unsigned long long)s->o->first);
        snprintf(tmp, sizeof tmp, "%s.tmp", path);
        FILE *f = fopen(tmp, "w");
        for (size_t i = 0; f && i < s->n; i++) {
            if (zmq_curve_keypair(kp[i].pub, kp[i].sec) != 0)
                break;
            fprintf(f, "%s %s%04llu\n", kp[i].pub, s->o->prefix,
                    (unsigned long long)(s->o->first + i));
        }
        /* The whole list at once (rename): the controller never reads half of it. */
        if (!f || fclose(f) != 0 || rename(tmp, path) != 0) {
            lg_error("could not write the fleet's allow-list \"%s\"", path);
            free(kp);
            return LG_EDENIED;
        }
    }
    for (size_t i = 0; i < s->n; i++) {
        sim_agent_t *a = &s->a[i];
        a->index = (uint32_t)(s->o->first - 1 + i);
        snprintf(a->name, sizeof a->name, "%s%04llu", s->o->prefix,
                 (unsigned long long)(s->o->first + i));
        a->sock = zmq_socket(ctx, ZMQ_DEALER);
        if (!a->sock) {
            int e = -zmq_errno();
            lg_error("could not open socket %zu of %zu: %s", i + 1, s->n, lg_strerror(e));
            return e;
        }
        /* as lg-agent's socket: ZMTP pings with a TTL, which the controller times out by */
        int rc = lg_wire_sock_setup(a->sock);
        if (rc == 0)
            rc = lg_wire_sock_keepalive(a->sock, 1);
        if (rc == 0 && zmq_setsockopt(a->sock, ZMQ_ROUTING_ID, a->name, strlen(a->name)) != 0)
            rc = -zmq_errno();
        if (rc == 0 && curve && lg_auth_client(a->sock, &kp[i], spub) != 0)
            rc = -zmq_errno();
        if (rc == 0 && !s->o->connect_rate && zmq_connect(a->sock, s->o->controller) != 0)
            rc = -zmq_errno();
        if (rc) {
            lg_error("could not connect \"%s\" to \"%s\": %s", a->name, s->o->controller,
                     lg_strerror(rc));
            free(kp);
            return rc;
        }
        zmq_fd_t fd;
        size_t fdlen = sizeof fd;
        struct epoll_event ev = {.events = EPOLLIN, .data.u32 = (uint32_t)i};
        if (zmq_getsockopt(a->sock, ZMQ_FD, &fd, &fdlen) != 0 ||
            epoll_ctl(s->ep, EPOLL_CTL_ADD, fd, &ev) != 0) {
            lg_error("could not watch the socket of \"%s\": %s", a->name, strerror(errno));
            free(kp);
            return -EIO;
        }
    }
    if (kp)
        memset(kp, 0, s->n * sizeof *kp);
    free(kp);
    return 0;
}

static void s_sleep_ms(uint64_t ms)
{
    struct timespec ts = {(time_t)(ms / 1000), (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* ZMQ_FD is readable while the socket has commands to take in (a message arrived, say): each
 * agent it names is read until nothing is left, which takes them in and clears it. An agent that
 * sent is read again at once (s_timers): sending may take in those commands itself. */
static int s_loop(sim_t *s)
{
    uint64_t deadline = s->t0_ms + s->o->timeout_s * 1000, last_wait = 0;
    for (size_t i = 0; i < s->n; i++) {
        if (s->o->connect_rate && i) { /* connected in turn by s_timers */
            s->a[i].connect_ms = s->t0_ms + i * 1000 / s->o->connect_rate;
            continue;
        }
        if (s->o->connect_rate && zmq_connect(s->a[i].sock, s->o->controller) != 0)
            lg_warn("could not connect \"%s\": %s", s->a[i].name, zmq_strerror(zmq_errno()));
        s_send_hello(s, &s->a[i], s->t0_ms);
        s_recv_all(s, &s->a[i]);
    }
    uint64_t next = s->t0_ms;
    enum { MAXEV = 1024 };
    struct epoll_event ev[MAXEV];
    while (!s_stop) {
        if (s_report) {
            s_report = 0;
            scale_seen_print("since the last report", &s->win);
            memset(&s->win, 0, sizeof s->win);
        }
        uint64_t now = lg_mono_ms();
        if (now >= deadline) {
            lg_warn("stopping after the --timeout of %llu s", (unsigned long long)s->o->timeout_s);
            break;
        }
        if (now - last_wait < s->o->loop_ms) {
            s_sleep_ms(s->o->loop_ms - (now - last_wait));
            now = lg_mono_ms();
        }
        long wait = next > now ? (long)(next - now) : 0;
        last_wait = now;
        int rc;
        do {
            rc = epoll_wait(s->ep, ev, MAXEV, (int)(wait > 1000 ? 1000 : wait));
            for (int k = 0; k < rc; k++)
                s_recv_all(s, &s->a[ev[k].data.u32]);
            wait = 0; /* more ready than one call holds: the rest at once */
        } while (rc == MAXEV && !s_stop);
        if (rc < 0 && errno != EINTR) {
            lg_error("epoll_wait failed: %s", strerror(errno));
            return -errno;
        }
        now = lg_mono_ms();
        next = now + 1000;
        for (size_t i = 0; i < s->n; i++) {
            uint64_t out = s->msgs_out;
            uint64_t t = s_timers(s, &s->a[i], now);
            if (s->msgs_out != out)
                s_recv_all(s, &s->a[i]);
            if (t < next)
                next = t;
        }
    }
    return 0;
}

static int s_run(const opts_t *o)
{
    sim_t s;
    memset(&s, 0, sizeof s);
    s.o = o;
    s.n = (size_t)o->agents;
    int rc = s_fd_limit(s.n);
    if (rc)
        return 1;
    s.a = calloc(s.n, sizeof *s.a);
    s.ep = epoll_create1(EPOLL_CLOEXEC);
    s.scratch = malloc(sizeof *s.scratch);
    void *ctx = zmq_ctx_new();
    if (!s.a || s.ep < 0 || !s.scratch || !ctx) {
        lg_error("out of memory");
        rc = -ENOMEM;
        goto out;
    }
    zmq_ctx_set(ctx, ZMQ_MAX_SOCKETS, (int)s.n + 16);
    rc = s_open(&s, ctx);
    if (rc)
        goto out;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = s_on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGUSR1, &sa, NULL);
    s.t0_ms = lg_mono_ms();
    rc = s_loop(&s);
    scale_seen_print("overall", &s.all);
    printf("scale_agents: %zu agents, %zu registered; %llu messages sent (%llu Hellos, %llu "
           "samples resent), %llu received (%llu unexpected), %llu send errors\n",
           s.n, s.registered, (unsigned long long)s.msgs_out, (unsigned long long)s.hellos,
           (unsigned long long)s.samples_resent, (unsigned long long)s.msgs_in,
           (unsigned long long)s.unexpected, (unsigned long long)s.send_errors);
    fflush(stdout);
out:
    for (size_t i = 0; s.a && i < s.n; i++) {
        if (s.a[i].sock)
            zmq_close(s.a[i].sock);
        free(s.a[i].total);
    }
    if (ctx)
        zmq_ctx_term(ctx);
    free(s.a);
    if (s.ep >= 0)
        close(s.ep);
    free(s.scratch);
    return rc ? 1 : 0;
}

/* ---- command line ---- */

static void s_usage(FILE *f)
{
    fputs("usage: scale_agents --controller EP [--agents N] [--prefix P] [--first F] [--bins B]\n"
          "                    [--seed S] [--timeout S] [--rate R] [--ping-ms P] [--loop-ms L]\n"
          "                    [--connect-rate C] [--bad-hello NAME]\n"
          "  --controller EP   the controller's agent endpoint\n"
          "  --agents N        simulated agents, each with its own socket (default 1000)\n"
          "  --prefix P        their names: P0001, P0002, ... (default sim)\n"
          "  --first F         the first one's number: PF, P(F+1), ... (default 1), so that\n"
          "                    several processes can share a fleet, each a slice of its names\n"
          "  --bins B          latency histogram buckets per sample (default 300)\n"
          "  --seed S          seed of the histogram counts (default 1)\n"
          "  --timeout S       stop after S seconds (default 600); SIGTERM stops it too\n"
          "  --rate R          samples a second per agent, R dividing 1000 (default 1)\n"
          "  --ping-ms P       a clock Ping every P ms besides each heartbeat's (default 0: none)\n"
          "  --loop-ms L       handle arrivals in slices of at least L ms (default 10; 0 wakes\n"
          "                    for every message: for a few probe agents, not thousands)\n"
          "  --connect-rate C  the agents connect C a second, one after another (default 0:\n"
          "                    all at once, as after a controller restart)\n"
          "  --bad-hello NAME  that agent says it has 4,000,000,000 CPUs, which its database\n"
          "                    row cannot hold (for tests of a refused registration)\n"
          "SIGUSR1 prints what the agents saw of the controller since the last SIGUSR1: Ping\n"
          "round trips, how late our heartbeats went out, silences.\n",
          f);
}

static int s_num(const char *opt, const char *v, uint64_t min, uint64_t max, uint64_t *out)
{
    if (lg_parse_u64(v, min, max, out) != 0) {
        fprintf(stderr, "scale_agents: %s: \"%s\" is not an integer from %llu to %llu\n", opt, v,
                (unsigned long long)min, (unsigned long long)max);
        return -1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    lg_log_init("scale_agents");
    opts_t o = {.prefix = "sim",
                .agents = 1000,
                .first = 1,
                .bins = 300,
                .seed = 1,
                .timeout_s = 600,
                .rate = 1,
                .loop_ms = LOOP_MIN_MS};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            s_usage(stdout);
            return 0;
        }
        const char *v = i + 1 < argc ? argv[++i] : NULL;
        if (!v) {
            fprintf(stderr, "scale_agents: option \"%s\" needs a value\n", a);
            return 2;
        }
        int bad = 0;
        if (!strcmp(a, "--controller"))
            o.controller = v;
        else if (!strcmp(a, "--prefix"))
            o.prefix = v;
        else if (!strcmp(a, "--bad-hello"))
            o.bad_hello = v;
        else if (!strcmp(a, "--agents"))
            bad = s_num(a, v, 1, MAX_AGENTS, &o.agents);
        else if (!strcmp(a, "--first"))
            bad = s_num(a, v, 1, 1000000, &o.first);
        else if (!strcmp(a, "--bins"))
            bad = s_num(a, v, 1, LG_HIST_NR, &o.bins);
        else if (!strcmp(a, "--seed"))
            bad = s_num(a, v, 0, UINT32_MAX, &o.seed);
        else if (!strcmp(a, "--timeout"))
            bad = s_num(a, v, 1, 86400, &o.timeout_s);
        else if (!strcmp(a, "--ping-ms"))
            bad = s_num(a, v, 0, 60000, &o.ping_ms);
        else if (!strcmp(a, "--loop-ms"))
            bad = s_num(a, v, 0, 1000, &o.loop_ms);
        else if (!strcmp(a, "--connect-rate"))
            bad = s_num(a, v, 0, 1000000, &o.connect_rate);
        else if (!strcmp(a, "--rate")) {
            bad = s_num(a, v, 1, 1000, &o.rate);
            if (!bad && 1000 % o.rate) {
                fprintf(stderr, "scale_agents: --rate: %llu does not divide 1000\n",
                        (unsigned long long)o.rate);
                bad = 1;
            }
        } else {
            fprintf(stderr, "scale_agents: unknown option \"%s\"\n", a);
            s_usage(stderr);
            return 2;
        }
        if (bad)
            return 2;
    }
    if (!o.controller || !o.prefix[0] || strlen(o.prefix) > 32) {
        fprintf(stderr, "scale_agents: give --controller EP and a --prefix of 1 to 32 "
                        "characters\n");
        s_usage(stderr);
        return 2;
    }
    return s_run(&o);
}
