/* agents.c: the agents' side of the controller: the registry of connected agents (Hello stored
 * off the loop, then Welcome), what they send (heartbeats, Prepared, samples, results, errors;
 * handed to the scheduler and the sample writer), our heartbeat to them and the loss of a silent
 * one. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctrl.h"
#include "db.h"
#include "lg_error.h"
#include "lg_esc.h"
#include "lg_log.h"
#include "lg_util.h"
#include "store.h"
#include "text.h"

/* Backpressure: with this many sample rows waiting for the database, stop reading agents until
 * a batch is written. Agents keep what is not acknowledged, so nothing is lost meanwhile. */
#define QUEUE_PAUSE_ROWS 8192

int lg__ctrl_send_agent(lg_ctrl_t *c, size_t conn, Lg__Envelope *env)
{
    lg_agent_conn_t *a = &c->agents[conn];
    int rc = lg_zsock_send(c->zs_agents, a->id, a->idlen, env);
    if (rc)
        lg_warn("could not send to agent \"%s\": %s", a->name, lg_strerror(rc));
    return rc;
}

static ssize_t s_find_conn(lg_ctrl_t *c, const uint8_t *id, size_t idlen)
{
    for (size_t i = 0; i < c->nagents; i++)
        if (c->agents[i].idlen == idlen && memcmp(c->agents[i].id, id, idlen) == 0)
            return (ssize_t)i;
    return -1;
}

static ssize_t s_find_name(lg_ctrl_t *c, const char *name)
{
    for (size_t i = 0; i < c->nagents; i++)
        if (c->agents[i].name[0] && strcmp(c->agents[i].name, name) == 0)
            return (ssize_t)i;
    return -1;
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

static void s_send_welcome(lg_ctrl_t *c, const uint8_t *id, size_t idlen, uint64_t agent_id)
{
    s_send_welcome_ex(c, id, idlen, agent_id, 0);
}

/* What an agent says of itself beyond the columns: NICs (link speed, addresses), engines,
 * allowed targets and its labels, as lg.agent.facts. */
static char *s_facts_json(const Lg__Hello *h, const char *labels)
{
    json_t *o = json_object(), *nics = json_array(), *eng = json_array(), *allow = json_array();
    json_t *lab = json_object();
    for (size_t i = 0; i < h->n_nics; i++) {
        const Lg__Nic *n = h->nics[i];
        json_t *a = json_array();
        for (size_t k = 0; k < n->n_addrs; k++)
            json_array_append_new(a, json_string(n->addrs[k] ? n->addrs[k] : ""));
        json_array_append_new(
            nics, json_pack("{s:s, s:i, s:s, s:o}", "name", n->name ? n->name : "", "speed_mbps",
                            (json_int_t)n->speed_mbps, "mac", n->mac ? n->mac : "", "addrs", a));
    }
    for (size_t i = 0; i < h->n_engines; i++)
        json_array_append_new(eng, json_string(h->engines[i] ? h->engines[i] : ""));
    for (size_t i = 0; i < h->n_allowed_targets; i++)
        json_array_append_new(allow,
                              json_string(h->allowed_targets[i] ? h->allowed_targets[i] : ""));
    for (const char *p = labels; *p;) {
        size_t len = strcspn(p, "\n");
        const char *eq = memchr(p, '=', len);
        if (eq) {
            char key[64];
            size_t kl = (size_t)(eq - p) < sizeof key - 1 ? (size_t)(eq - p) : sizeof key - 1;
            memcpy(key, p, kl);
            key[kl] = 0;
            json_object_set_new(lab, key, json_stringn(eq + 1, len - (size_t)(eq - p) - 1));
        }
        p += len + (p[len] == '\n');
    }
    json_object_set_new(o, "nics", nics);
    json_object_set_new(o, "engines", eng);
    json_object_set_new(o, "allowed_targets", allow);
    json_object_set_new(o, "labels", lab);
    char *text = json_dumps(o, JSON_COMPACT);
    json_decref(o);
    return text;
}

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

/* A Hello on its way to lg.agent: the row is written off the loop (controller/store.c). */
typedef struct {
    uint8_t id[LG_ID_MAX];
    size_t idlen;
    char *p[8]; /* name, lg_version, os, cpu_model, cpu_count, mem_bytes, fio_version, facts */
    uint64_t agent_id;
} hello_job_t;

static void s_hello_job_destroy(hello_job_t **self_p)
{
    hello_job_t *j = self_p ? *self_p : NULL;
    if (!j)
        return;
    *self_p = NULL;
    for (int i = 0; i < 8; i++)
        free(j->p[i]);
    free(j);
}

static int s_hello_work(PGconn *db, void *job, char *err, size_t errlen)
{
    hello_job_t *j = job;
    PGresult *r = NULL;
    int rc = lg_db_exec(db,
                        "INSERT INTO lg.agent (name, lg_version, os, cpu_model, cpu_count,"
                        " mem_bytes, fio_version, facts) VALUES ($1, $2, $3, $4, $5, $6, $7,"
                        " $8::jsonb)"
                        " ON CONFLICT (name) DO UPDATE SET lg_version = EXCLUDED.lg_version,"
                        " os = EXCLUDED.os, cpu_model = EXCLUDED.cpu_model,"
                        " cpu_count = EXCLUDED.cpu_count, mem_bytes = EXCLUDED.mem_bytes,"
                        " fio_version = EXCLUDED.fio_version, facts = EXCLUDED.facts,"
                        " last_seen = now() RETURNING agent_id",
                        8, (const char *const *)j->p, &r, err, errlen);
    if (rc)
        return rc;
    j->agent_id = strtoull(lg_db_get(r, 0, lg_db_col(r, "agent_id")), NULL, 10);
    lg_db_result_destroy(&r);
    return 0;
}

static void s_hello_done(void *arg, void *job, int rc, const char *err)
{
    lg_ctrl_t *c = arg;
    hello_job_t *j = job;
    ssize_t k = c->stopping || !c->zs_agents ? -1 : s_find_conn(c, j->id, j->idlen);
    lg_agent_conn_t *a = k >= 0 ? &c->agents[k] : NULL;
    if (a && strcmp(a->name, j->p[0]) != 0)
        a = NULL; /* the connection gave its name to another meanwhile */
    if (a)
        a->registering = 0;
    if (rc && rc != LG_ESTATE) /* it asks again in a while */
        lg_error("could not register agent \"%s\": %s", j->p[0], err);
    if (!a || rc) {
        s_hello_job_destroy(&j);
        return;
    }
    a->agent_id = j->agent_id;
    a->state = LG__AGENT_STATE__AGENT_IDLE;
    a->lost = 0;
    lg_info("agent \"%s\" registered (id %llu, %s, %s CPUs, %s)", a->name,
            (unsigned long long)a->agent_id, a->os, j->p[4], a->fio_version);
    s_send_welcome(c, a->id, a->idlen, a->agent_id);
    s_hello_job_destroy(&j);
    lg__sched_on_agent(c, (size_t)k);
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

/* The agent's row on its way to lg.agent (s_hello_work, then s_hello_done). Returns 0 or -ENOMEM
 * (nothing queued). */
static int s_hello_store(lg_ctrl_t *c, const uint8_t *id, size_t idlen, const Lg__Hello *h,
                         const char *labels)
{
    hello_job_t *j = calloc(1, sizeof *j);
    char cpus[16], mem[32];
    snprintf(cpus, sizeof cpus, "%u", h->cpu_count);
    snprintf(mem, sizeof mem, "%llu", (unsigned long long)h->mem_bytes);
    const char *v[8] = {h->name,
                        h->lg_version ? h->lg_version : "",
                        h->os ? h->os : "",
                        h->cpu_model ? h->cpu_model : "",
                        cpus,
                        mem,
                        h->fio_version ? h->fio_version : "",
                        NULL};
    static const char *const what[8] = {"name", "lg version", "OS",         "CPU model",
                                        "",     "",           "fio version"};
    int bad = !j;
    /* what the host and fio (--version) said, as text takes it (text.h) */
    for (int i = 0; !bad && i < 7; i++)
        bad = (j->p[i] = lg_text_in(v[i], strlen(v[i]), 0, 0, NULL, 0, "agent \"%s\"'s %s", h->name,
                                    what[i])) == NULL;
    if (!bad)
        bad = (j->p[7] = s_facts_json(h, labels)) == NULL;
    if (!bad) {
        memcpy(j->id, id, idlen);
        j->idlen = idlen;
        bad = lg_store_submit(c->store, s_hello_work, s_hello_done, c, j) != 0;
    }
    if (bad) {
        s_hello_job_destroy(&j);
        return -ENOMEM;
    }
    return 0;
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
    ssize_t k = s_find_conn(c, id, idlen);
    if (k >= 0 && c->agents[k].registering && !strcmp(c->agents[k].name, h->name))
        return; /* its Hello is being stored: this is the agent asking again meanwhile */
    ssize_t same = s_find_name(c, h->name);
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
            c->agents[k].agent_id = 0;
            c->agents[k].name[0] = 0;
            c->agents[k].lost = 1;
            c->agents[k].registering = 0;
        }
        memcpy(o->id, id, idlen);
        o->idlen = idlen;
        k = same;
    }
    if (k < 0) {
        if (c->nagents == LG_MAX_AGENTS) {
            lg_error("agent \"%s\" refused: %d agents already connected", h->name, LG_MAX_AGENTS);
            return;
        }
        lg_agent_conn_t *na = realloc(c->agents, (c->nagents + 1) * sizeof *na);
        if (!na)
            return;
        c->agents = na;
        k = (ssize_t)c->nagents++;
        memset(&c->agents[k], 0, sizeof c->agents[k]);
        memcpy(c->agents[k].id, id, idlen);
        c->agents[k].idlen = idlen;
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
    /* Stored off the loop; Welcome goes out once the row is committed (s_hello_done). */
    if (s_hello_store(c, id, idlen, h, labels) != 0) {
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
        lg_zsock_send(c->zs_agents, id, idlen, &out);
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
    ssize_t k = s_find_conn(c, id, idlen);
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
        s_send_welcome(c, id, idlen, 0);
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

void lg__ctrl_check_agents(lg_ctrl_t *c)
{
    uint64_t now = lg_mono_ms();
    uint32_t beat = c->cfg->heartbeat_ms ? c->cfg->heartbeat_ms : 1000;
    if (c->zs_agents && now - c->last_beat_ms >= beat) {
        /* Our beat, so that agents can tell a silent controller (see lg-agent
         * --controller-timeout-ms); sent while we do not read them too (backpressure). */
        c->last_beat_ms = now;
        Lg__Heartbeat hb = LG__HEARTBEAT__INIT;
        Lg__Envelope env = LG__ENVELOPE__INIT;
        env.body_case = LG__ENVELOPE__BODY_HEARTBEAT;
        env.heartbeat = &hb;
        for (size_t i = 0; i < c->nagents; i++)
            if (c->agents[i].agent_id && !c->agents[i].lost &&
                lg_zsock_send(c->zs_agents, c->agents[i].id, c->agents[i].idlen, &env) != 0)
                lg_debug("could not beat to agent \"%s\" (gone?)", c->agents[i].name);
        /* Sending drains what arrived meanwhile: agents heard just now are newer than now. */
        now = lg_mono_ms();
    }
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
    }
    for (size_t i = 0; i < c->nagents; i++) {
        lg_agent_conn_t *a = &c->agents[i];
        if (!a->lost && a->last_seen_ms + limit < now) {
            a->lost = 1;
            lg_warn("agent \"%s\" is lost: nothing heard for %u ms", a->name, limit);
        }
    }
}
