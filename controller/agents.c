/* agents.c: the agents' side of the controller: the registry of connected agents (found by
 * routing id and name through agentmap.c; a Hello is stored off the loop by hello.c, then
 * Welcome), what they send (heartbeats, Prepared, samples, results, errors;
 * handed to the scheduler and the sample writer), our heartbeat to them and the loss of a silent
 * one. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctrl.h"
#include "lg_error.h"
#include "lg_esc.h"
#include "lg_log.h"
#include "lg_util.h"

/* Backpressure: with this many sample rows waiting for the database, stop reading agents until
 * a batch is written. Agents keep what is not acknowledged, so nothing is lost meanwhile. */
#define QUEUE_PAUSE_ROWS 8192

int lg__ctrl_send_agent(lg_ctrl_t *c, size_t conn, Lg__Envelope *env)
{
    int rc = lg_zsock_send(c->zs_agents, c->agents[conn].id, c->agents[conn].idlen, env);
    /* (sending reads what arrived meanwhile: a new agent may have moved the array) */
    if (rc)
        lg_warn("could not send to agent \"%s\": %s", c->agents[conn].name, lg_strerror(rc));
    else
        c->agents[conn].sent_ms = lg_mono_ms();
    return rc;
}

static void s_send_welcome_ex(lg_ctrl_t *c, const uint8_t *id, size_t idlen, uint64_t agent_id,
                              int replaced)
{
    Lg__Welcome w = LG__WELCOME__INIT;
    w.agent_id = agent_id;
    w.replaced = replaced;
    w.heartbeat_ms = c->cfg->heartbeat_ms;
    Lg__Envelope env = LG__ENVELOPE__INIT;
    env.body_case = LG__ENVELOPE__BODY_WELCOME;
    env.welcome = &w;
    lg_zsock_send(c->zs_agents, id, idlen, &env);
}

void lg__ctrl_send_welcome(lg_ctrl_t *c, const uint8_t *id, size_t idlen, uint64_t agent_id)
{
    s_send_welcome_ex(c, id, idlen, agent_id, 0);
}

/* A Hello this soon after the Welcome on its connection crossed it on the way (lg-agent says Hello
 * every 2 s until it is welcomed; later, only when it has heard nothing from us for seconds). */
#define HELLO_AGAIN_MS 2000

/* Host facts within reason: they become a database row. */
static int s_hello_bounded(const Lg__Hello *h)
{
    const char *one[] = {h->lg_version, h->os, h->cpu_model, h->fio_version};
    for (size_t i = 0; i < sizeof one / sizeof one[0]; i++)
        if (one[i] && strlen(one[i]) > 256)
            return 0;
    return h->n_engines <= 16 && h->n_allowed_targets <= 64 && h->n_nics <= 64 &&
           h->n_labels <= 32 && lg__hello__get_packed_size(h) <= 64 * 1024;
}

/* The Hello's labels as "key=value\n..." into labels (512 bytes); malformed ones are said and
 * left out, as are those beyond the room. */
static void s_hello_labels(const Lg__Hello *h, char labels[512])
{
    size_t nl = 0; /* bytes used in labels */
    labels[0] = 0;
    for (size_t i = 0; i < h->n_labels; i++) {
        const char *eq = h->labels[i] ? strchr(h->labels[i], '=') : NULL;
        if (!eq || eq == h->labels[i] || strchr(h->labels[i], '\n') ||
            nl + strlen(h->labels[i]) + 2 > 512) {
            lg__wire_count_malformed();
            lg_warn("agent \"%s\": ignored a malformed label", h->name);
            continue;
        }
        nl += (size_t)snprintf(labels + nl, 512 - nl, "%s\n", h->labels[i]);
    }
}

/* A connection of its own for routing id id: its position, or -ENOMEM, or -ENOSPC with
 * LG_MAX_AGENTS connected. The array grows by half again, so that registering many agents does
 * not copy it once per agent. */
static ssize_t s_new_conn(lg_ctrl_t *c, const uint8_t *id, size_t idlen)
{
    if (c->nagents == LG_MAX_AGENTS)
        return -ENOSPC;
    if (c->nagents == c->agents_cap) {
        size_t cap = c->agents_cap < 16 ? 16 : c->agents_cap + c->agents_cap / 2;
        if (cap > LG_MAX_AGENTS)
            cap = LG_MAX_AGENTS;
        lg_agent_conn_t *na = realloc(c->agents, cap * sizeof *na);
        if (!na)
            return -ENOMEM;
        c->agents = na;
        c->agents_cap = cap;
    }
    size_t k = c->nagents++;
    memset(&c->agents[k], 0, sizeof c->agents[k]);
    memcpy(c->agents[k].id, id, idlen);
    c->agents[k].idlen = idlen;
    return (ssize_t)k;
}

static void s_on_hello(lg_ctrl_t *c, const uint8_t *id, size_t idlen, const Lg__Hello *h,
                       const char *key, const char *keyname)
{
    /* The name goes to logs, lgctl's tables and reports: no control characters in it, and it is
     * the agent's identity in the database: valid UTF-8, never changed on its way there. */
    if (!h->name || !h->name[0] || strlen(h->name) > 63 || lg_has_ctrl(h->name) ||
        !lg_utf8_valid(h->name, strlen(h->name)) || !s_hello_bounded(h)) {
        lg__wire_count_malformed();
        lg_zsock_garbage(c->zs_agents, id, idlen);
        lg_warn("dropped a Hello without a valid agent name or with oversized host facts");
        return;
    }
    /* Under CURVE an agent is its key: the name the allow-list gives the key is the only one it
     * may register as, so a listed key cannot pose as another agent. */
    if (keyname && strcmp(h->name, keyname) != 0) {
        lg_zsock_garbage(c->zs_agents, id, idlen);
        lg_warn("refused a Hello from %s: it says it is agent \"%s\", but its CURVE key %s is "
                "agent \"%s\"'s in the allow-list",
                lg_zsock_peer(c->zs_agents)->addr, h->name, key, keyname);
        return;
    }
    char labels[512];
    s_hello_labels(h, labels);
    ssize_t k = lg__agents_by_id(c, id, idlen);
    if (k >= 0 && !strcmp(c->agents[k].name, h->name)) {
        lg_agent_conn_t *a = &c->agents[k];
        if (a->registering)
            return; /* its Hello is being stored: this is the agent asking again meanwhile */
        if (a->agent_id && !a->lost && lg_mono_ms() - a->welcomed_ms < HELLO_AGAIN_MS) {
            /* Sent before our Welcome reached it: welcomed again, as stored a moment ago. When
             * thousands register at once, the Hellos lg-agent repeats every 2 s until welcomed
             * otherwise stored every agent twice or three times over. */
            lg__ctrl_send_welcome(c, id, idlen, a->agent_id);
            return;
        }
    }
    ssize_t same = lg__agents_by_name(c, h->name);
    if (same >= 0 && same != k) {
        /* The same agent on a new connection (restarted, or a second process with its key):
         * the new one replaces the old, which is told so and closed; what the old one was
         * running sees a loss now, not after a timeout. */
        lg_agent_conn_t *o = &c->agents[same];
        lg_warn("agent \"%s\" connected again from %s: its new connection replaces the old one",
                h->name, lg_zsock_peer(c->zs_agents)->addr);
        s_send_welcome_ex(c, o->id, o->idlen, 0, 1);
        if (!o->lost && o->agent_id)
            lg__sched_on_replaced(c, (size_t)same);
        if (k >= 0) { /* plaintext only: this connection had registered another name */
            lg__agents_unindex(c, (size_t)k); /* its routing id is the old one's from now on */
            c->agents[k].agent_id = 0;
            c->agents[k].name[0] = 0;
            c->agents[k].lost = 1;
            c->agents[k].registering = 0;
        }
        lg__agents_unindex(c, (size_t)same);
        memcpy(o->id, id, idlen);
        o->idlen = idlen;
        k = same;
    }
    if (k < 0) {
        if ((k = s_new_conn(c, id, idlen)) < 0) {
            lg_error("agent \"%s\" refused: %s", h->name,
                     k == -ENOMEM ? "out of memory" : "too many agents connected");
            return;
        }
    } else {
        lg__agents_unindex(c, (size_t)k); /* its name may change */
    }
    lg_agent_conn_t *a = &c->agents[k];
    lg_strlcpy(a->name, h->name, sizeof a->name);
    lg_strlcpy(a->key, key ? key : "", sizeof a->key);
    lg_strlcpy(a->os, h->os, sizeof a->os);
    lg_strlcpy(a->cpu_model, h->cpu_model, sizeof a->cpu_model);
    lg_strlcpy(a->fio_version, h->fio_version, sizeof a->fio_version);
    lg_strlcpy(a->lg_version, h->lg_version, sizeof a->lg_version);
    a->cpu_count = h->cpu_count;
    a->mem_bytes = h->mem_bytes;
    lg_strlcpy(a->labels, labels, sizeof a->labels);
    a->last_seen_ms = lg_mono_ms();
    if (lg__agents_index(c, (size_t)k) != 0)
        return;
    /* Stored off the loop; Welcome goes out once the row is committed (hello.c). */
    if (lg__hello_store(c, id, idlen, h, labels) != 0) {
        lg_error("could not register agent \"%s\": out of memory", h->name);
        return;
    }
    a->registering = 1;
}

static void s_on_sample(lg_ctrl_t *c, size_t k, const Lg__Sample *s)
{
    lg_agent_conn_t *a = &c->agents[k];
    if (s->seq == 0 || s->seq > INT32_MAX) {
        lg__wire_count_malformed();
        lg_zsock_garbage(c->zs_agents, a->id, a->idlen);
        lg_warn("dropped a sample with seq %llu from \"%s\"", (unsigned long long)s->seq, a->name);
        return;
    }
    int known = lg__sched_sample_ok(c, k, s->run_id);
    if (known < 0)
        return; /* not acknowledged: the agent resends it once we can tell */
    if (!known) {
        /* Acknowledge it so the agent stops resending what can never be stored. */
        lg_warn("dropped a sample of unknown run %llu from \"%s\"", (unsigned long long)s->run_id,
                a->name);
        Lg__Ack ack = LG__ACK__INIT;
        ack.run_id = s->run_id;
        ack.seq = s->seq;
        Lg__Envelope env = LG__ENVELOPE__INIT;
        env.body_case = LG__ENVELOPE__BODY_ACK_MSG;
        env.ack_msg = &ack;
        lg__ctrl_send_agent(c, k, &env);
        return;
    }
    /* A fio sample or an application run's report (its own table): both through the writer */
    int rc = lg_writer_add(c->writer, a->id, a->idlen, a->agent_id, s);
    if (rc) {
        lg__wire_count_malformed();
        lg_warn("dropped %s %llu of run %llu from \"%s\": %s", s->app ? "report" : "sample",
                (unsigned long long)s->seq, (unsigned long long)s->run_id, a->name,
                rc != LG_EPROTO ? lg_strerror(rc)
                : s->app        ? "an application report with fio statistics, or a figure "
                                  "beyond bigint"
                                : "malformed statistics (a direction out of range, a figure "
                                  "beyond bigint, or a histogram not in lg's packed form)");
        return;
    }
    if (s->app)
        lg__sched_on_app_sample(c, k, s);
    else
        lg__sched_on_sample(c, k, s);
    if (lg_writer_queued(c->writer) >= QUEUE_PAUSE_ROWS && !lg_zsock_paused(c->zs_agents)) {
        lg_writer_flush(c->writer); /* to the database, or to the spool if it is away */
        if (lg_writer_queued(c->writer) >= QUEUE_PAUSE_ROWS)
            lg_zsock_pause(c->zs_agents, 1);
    }
}

void lg__ctrl_on_writer_done(void *arg)
{
    lg_ctrl_t *c = arg;
    if (c->zs_agents && lg_zsock_paused(c->zs_agents) &&
        lg_writer_queued(c->writer) < QUEUE_PAUSE_ROWS) {
        /* Agents were not read meanwhile: their silence was ours. */
        uint64_t now = lg_mono_ms();
        for (size_t i = 0; i < c->nagents; i++)
            c->agents[i].last_seen_ms = now;
        lg_zsock_pause(c->zs_agents, 0);
    }
}

/* An agent busy with a run that is not (or no longer) ours, e.g. one aborted while this
 * controller was down: tell it to stop. */
static void s_on_heartbeat(lg_ctrl_t *c, size_t k, const Lg__Heartbeat *hb)
{
    c->agents[k].state = hb->state;
    c->agents[k].run_id = hb->run_id;
    c->agents[k].unacked = hb->unacked;
    c->agents[k].clock_offset_us = hb->clock_offset_us;
    c->agents[k].rtt_us = hb->rtt_us;
    if (hb->run_id == 0 || hb->state == LG__AGENT_STATE__AGENT_IDLE ||
        lg__sched_agent_in_run(c, k, hb->run_id))
        return;
    lg_warn("agent \"%s\" is busy with run %llu, which is not running here: stopping it",
            c->agents[k].name, (unsigned long long)hb->run_id);
    Lg__Stop st = LG__STOP__INIT;
    st.run_id = hb->run_id;
    Lg__Envelope env = LG__ENVELOPE__INIT;
    env.body_case = LG__ENVELOPE__BODY_STOP;
    env.stop = &st;
    lg__ctrl_send_agent(c, k, &env);
}

/* An agent that reports the end of the run it was busy with is idle again: it clears its run
 * as it sends that. (A resent report of an older run says nothing of the current one.) */
static void s_agent_done(lg_ctrl_t *c, size_t k, uint64_t run_id)
{
    lg_agent_conn_t *a = &c->agents[k];
    if (a->run_id == 0 || a->run_id == run_id) {
        a->state = LG__AGENT_STATE__AGENT_IDLE;
        a->run_id = 0;
    }
}

void lg__ctrl_on_agent_msg(void *arg, const uint8_t *id, size_t idlen, Lg__Envelope *env)
{
    lg_ctrl_t *c = arg;
    if (env->body_case == LG__ENVELOPE__BODY_PING) {
        /* Answered at once, before anything else, so the round trip is all network. */
        Lg__Pong pong = LG__PONG__INIT;
        pong.t0_us = env->ping->t0_us;
        pong.t1_us = lg_now_us();
        Lg__Envelope out = LG__ENVELOPE__INIT;
        out.body_case = LG__ENVELOPE__BODY_PONG;
        out.pong = &pong;
        if (lg_zsock_send(c->zs_agents, id, idlen, &out) == 0) {
            ssize_t k = lg__agents_by_id(c, id, idlen);
            if (k >= 0) /* it heard from us: no beat of ours is due for a while */
                c->agents[k].sent_ms = lg_mono_ms();
        }
        lg_wire_envelope_destroy(&env);
        return;
    }
    /* Under CURVE every connection carries its key and the one name it may use (ZAP's
     * User-Id); in plaintext (loopback, local mode) there is none. */
    char key[LG_KEY_Z85 + 1], keyname[LG_KEY_NAME_MAX];
    int curve = !c->cfg->plaintext;
    if (curve &&
        lg_zap_user_split(lg_zsock_peer(c->zs_agents)->user, key, keyname, sizeof keyname) != 0) {
        lg_warn("dropped a message from a connection without a ZAP identity");
        lg_wire_envelope_destroy(&env);
        return;
    }
    if (env->body_case == LG__ENVELOPE__BODY_HELLO) {
        s_on_hello(c, id, idlen, env->hello, curve ? key : NULL, curve ? keyname : NULL);
        lg_wire_envelope_destroy(&env);
        return;
    }
    ssize_t k = lg__agents_by_id(c, id, idlen);
    if (k >= 0 && curve && strcmp(c->agents[k].name, keyname) != 0) {
        /* A routing id of another agent's connection, from a key that is not that agent's. */
        lg_zsock_garbage(c->zs_agents, id, idlen);
        lg_warn("dropped a message from %s: its key %s is agent \"%s\"'s, not \"%s\"'s",
                lg_zsock_peer(c->zs_agents)->addr, key, keyname, c->agents[k].name);
        lg_wire_envelope_destroy(&env);
        return;
    }
    if (k < 0) {
        /* Not registered (we restarted, or it skipped Hello): ask it to say Hello. */
        lg__ctrl_send_welcome(c, id, idlen, 0);
        lg_wire_envelope_destroy(&env);
        return;
    }
    c->agents[k].last_seen_ms = lg_mono_ms();
    if (!c->agents[k].agent_id) { /* still registering: it sends this again once welcomed */
        lg_wire_envelope_destroy(&env);
        return;
    }
    if (c->agents[k].lost) {
        c->agents[k].lost = 0;
        lg_info("agent \"%s\" is back", c->agents[k].name);
    }
    switch (env->body_case) {
    case LG__ENVELOPE__BODY_HEARTBEAT:
        s_on_heartbeat(c, (size_t)k, env->heartbeat);
        break;
    case LG__ENVELOPE__BODY_PREPARED:
        lg__sched_on_prepared(c, (size_t)k, env->prepared);
        break;
    case LG__ENVELOPE__BODY_SAMPLE:
        s_on_sample(c, (size_t)k, env->sample);
        break;
    case LG__ENVELOPE__BODY_RUN_RESULT:
        s_agent_done(c, (size_t)k, env->run_result->run_id);
        lg__sched_on_result(c, (size_t)k, env->run_result);
        break;
    case LG__ENVELOPE__BODY_RUN_ERROR:
        s_agent_done(c, (size_t)k, env->run_error->run_id);
        lg__sched_on_error(c, (size_t)k, env->run_error);
        break;
    case LG__ENVELOPE__BODY_CHECK_RESULT:
        lg__check_on_result(c, (size_t)k, env->check_result);
        break;
    default:
        lg__wire_count_malformed();
        lg_zsock_garbage(c->zs_agents, c->agents[k].id, c->agents[k].idlen);
        lg_warn("dropped an unexpected message (body %d) from agent \"%s\"", (int)env->body_case,
                c->agents[k].name);
        break;
    }
    lg_wire_envelope_destroy(&env);
}

void lg__ctrl_on_writer_ack(void *arg, const uint8_t *id, size_t idlen, uint64_t run_id,
                            uint64_t seq_from, uint64_t seq)
{
    lg_ctrl_t *c = arg;
    Lg__Ack ack = LG__ACK__INIT;
    ack.run_id = run_id;
    ack.seq_from = seq_from;
    ack.seq = seq;
    Lg__Envelope env = LG__ENVELOPE__INIT;
    env.body_case = LG__ENVELOPE__BODY_ACK_MSG;
    env.ack_msg = &ack;
    if (c->zs_agents)
        lg_zsock_send(c->zs_agents, id, idlen, &env);
}

/* A new agent's first beat falls in one of this many slices of a beat, by its position. */
#define BEAT_SPREAD 10

/* Our beat, so that agents can tell a silent controller (see lg-agent --controller-timeout-ms);
 * sent while we do not read them too (backpressure). Each agent's is due a beat after its last,
 * and a new agent's first in one of BEAT_SPREAD slices of a beat: with the tick every 100 ms,
 * 10,000 agents are beaten a tenth at a time, not all at once (that held the loop, and the Pongs
 * waiting in it, for tens of ms once a second). An agent that heard from us within the beat (a
 * Pong to the Ping it sends every beat, as a rule) is spared it: an agent tells a silent
 * controller by any message, and every message is a wake-up and a few syscalls on both sides.
 * The message is packed once. */
static void s_beat(lg_ctrl_t *c, uint64_t now, uint32_t beat)
{
    uint8_t *buf = NULL;
    size_t len = 0;
    for (size_t i = 0; i < c->nagents; i++) {
        lg_agent_conn_t *a = &c->agents[i];
        if (!a->agent_id || a->lost)
            continue;
        if (!a->beat_due_ms)
            a->beat_due_ms = now + (i % BEAT_SPREAD) * beat / BEAT_SPREAD;
        if (a->beat_due_ms > now)
            continue;
        a->beat_due_ms += beat;
        if (a->beat_due_ms <= now) /* late (a busy loop): no burst to catch up */
            a->beat_due_ms = now + beat;
        if (now - a->sent_ms < beat)
            continue;
        if (!buf) {
            Lg__Heartbeat hb = LG__HEARTBEAT__INIT;
            Lg__Envelope env = LG__ENVELOPE__INIT;
            env.body_case = LG__ENVELOPE__BODY_HEARTBEAT;
            env.heartbeat = &hb;
            if (lg_wire_pack(&env, &buf, &len) != 0)
                return;
        }
        if (lg_wire_send_raw(lg_zsock_socket(c->zs_agents), a->id, a->idlen, buf, len) != 0)
            lg_debug("could not beat to agent \"%s\" (gone?)", a->name);
        else
            a->sent_ms = now;
    }
    if (buf) /* what arrived meanwhile, read now: sending may have taken its wake-up */
        lg_zsock_drain(c->zs_agents);
    free(buf);
}

/* Checks are a tick apart; two further apart say our loop was held meanwhile: busy, or waiting
 * for a CPU on an overloaded machine, as were the agents on it (it_retry beside the suite on 2
 * cores: the agent's and our run delay in /proc/PID/schedstat grew by about 55 s in one minute,
 * the agent's heartbeat timer ran up to 22 s late). We could not hear them, and an agent held as
 * long needs a while after us to run and send: the time we were held does not count as their
 * silence, and none is judged for a grace after it. With a grace alone (500 ms) such an agent,
 * alive throughout, was called lost mid-run; and a hold inside the tick, before the judgement,
 * was only seen at the next tick. */
static void s_deaf(lg_ctrl_t *c, uint64_t now)
{
    uint64_t last = c->checked_ms;
    c->checked_ms = now;
    if (!last || now - last <= LG_CTRL_TICK_MS + LG_CTRL_LATE_MS)
        return;
    uint64_t held = now - last - LG_CTRL_TICK_MS;
    for (size_t i = 0; i < c->nagents; i++) {
        lg_agent_conn_t *a = &c->agents[i];
        a->last_seen_ms = a->last_seen_ms + held < now ? a->last_seen_ms + held : now;
    }
    if (c->judge_from_ms < now + LG_CTRL_GRACE_MS)
        c->judge_from_ms = now + LG_CTRL_GRACE_MS;
}

void lg__ctrl_check_agents(lg_ctrl_t *c)
{
    uint64_t now = lg_mono_ms();
    uint32_t beat = c->cfg->heartbeat_ms ? c->cfg->heartbeat_ms : 1000;
    if (c->zs_agents) {
        s_beat(c, now, beat);
        /* Sending drains what arrived meanwhile: agents heard just now are newer than now. */
        now = lg_mono_ms();
    }
    s_deaf(c, now);
    if (c->zs_agents && lg_zsock_paused(c->zs_agents))
        return; /* not reading them: their silence says nothing */
    uint32_t limit = c->cfg->agent_timeout_ms ? c->cfg->agent_timeout_ms : 10000;
    int silent = 0;
    for (size_t i = 0; i < c->nagents; i++)
        silent |= !c->agents[i].lost && c->agents[i].last_seen_ms + limit < now;
    if (!silent || now < c->judge_from_ms)
        return;
    /* Before an agent is called lost, what has arrived is read: after a busy loop its messages
     * may be waiting in the socket, not missing. Still behind after that: judged next tick. */
    if (c->zs_agents) {
        lg_zsock_drain(c->zs_agents);
        if (lg_zsock_pending(c->zs_agents))
            return;
        now = lg_mono_ms();
        s_deaf(c, now); /* held while reading */
        if (now < c->judge_from_ms)
            return;
    }
    for (size_t i = 0; i < c->nagents; i++) {
        lg_agent_conn_t *a = &c->agents[i];
        if (!a->lost && a->last_seen_ms + limit < now) {
            a->lost = 1;
            lg_warn("agent \"%s\" is lost: nothing heard for %u ms", a->name, limit);
        }
    }
}
