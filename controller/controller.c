/* controller.c: lg-controller's loop: the agents' ROUTER, the lgctl ROUTER, the agent registry,
 * and the tick that drives the scheduler and the sample writer. */
#include "controller.h"

#include <signal.h>
#include <sys/resource.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>
#include <zmq.h>

#include "ctrl.h"
#include "hook.h"
#include "lg_scrape.h"
#include "sched_jobs.h"
#include "store.h"
#include "db.h"
#include "lg_error.h"
#include "lg_esc.h"
#include "lg_log.h"
#include "lg_owndir.h"
#include "lg_util.h"

#define TICK_MS 100
/* Backpressure: with this many sample rows waiting for the database, stop reading agents until
 * a batch is written. Agents keep what is not acknowledged, so nothing is lost meanwhile. */
#define QUEUE_PAUSE_ROWS 8192
#define AGENTS_RCVHWM 10000
/* what was received is written for at most this long after SIGTERM; then any database wait
 * is ended (lg_db_set_interrupt): what was not stored stays in the agents' spools, unacknowledged,
 * and is sent again to the next controller */
#define STOP_GRACE_MS 4000

int lg__ctrl_send_agent(lg_ctrl_t *c, size_t conn, Lg__Envelope *env)
{
    lg_agent_conn_t *a = &c->agents[conn];
    int rc = lg_zsock_send(c->zs_agents, a->id, a->idlen, env);
    if (rc)
        lg_warn("could not send to agent \"%s\": %s", a->name, lg_strerror(rc));
    return rc;
}

/* ---- what the scheduler asks of the world (ctrl.h: lg_sched_io_t) ---- */
static int s_io_submit(lg_ctrl_t *c, lg_store_work_fn work, lg_store_done_fn done, void *job)
{
    return lg_store_submit(c->store, work, done, c, job);
}
static int s_io_tx(lg_ctrl_t *c, lg_tx_t *t, lg_store_done_fn done, void *arg)
{
    return lg_store_tx(c->store, t, done, arg);
}
static uint64_t s_io_away(lg_ctrl_t *c) { return lg_store_away_since(c->store); }
static size_t s_io_store_pending(lg_ctrl_t *c) { return lg_store_pending(c->store); }
static size_t s_io_writer_pending(lg_ctrl_t *c) { return lg_writer_pending(c->writer); }
static int s_io_writer_failing(lg_ctrl_t *c) { return lg_writer_failing(c->writer); }
static uint64_t s_io_writer_spooled(lg_ctrl_t *c) { return lg_writer_spooled(c->writer); }
static uint64_t s_io_now(lg_ctrl_t *c)
{
    (void)c;
    return lg_mono_ms();
}
static int s_io_hook(lg_ctrl_t *c, char *const *env, lg_hook_done_cb done, void *arg)
{
    return lg_hook_run(c->loop, c->cfg->hook, env, lg_hook_timeout_s(c->cfg) * 1000u, done, arg);
}

static void s_on_scrape(void *arg, const lg_scrape_t *sc) { lg__sched_on_scrape(arg, sc); }

static void s_io_telem_start(lg_ctrl_t *c, uint64_t run_id, const char *json)
{
    lg_telemetry_t *src = NULL;
    size_t n = 0;
    char err[256];
    if (lg_telemetry_from_json(json, &src, &n, err, sizeof err) != 0) {
        lg_warn("run %llu: its telemetry sources cannot be read: %s", (unsigned long long)run_id,
                err);
        return;
    }
    if (n && !c->scraper)
        c->scraper = lg_scraper_new(c->loop, s_on_scrape, NULL, c);
    if (n && !c->scraper)
        lg_warn("run %llu: the telemetry scraper could not start: the run goes on without it",
                (unsigned long long)run_id);
    else if (n && lg_scraper_start(c->scraper, run_id, src, n) != 0)
        lg_warn("run %llu: could not start its telemetry: out of memory",
                (unsigned long long)run_id);
    else if (n)
        lg_info("run %llu: scraping %zu telemetry source(s) every %u ms", (unsigned long long)run_id,
                n, src[0].interval_ms);
    lg_telemetry_free(src, n);
}

static void s_io_telem_stop(lg_ctrl_t *c, uint64_t run_id) { lg_scraper_stop(c->scraper, run_id); }

static int s_io_proc(lg_ctrl_t *c, char *const *argv, char *const *env, uint32_t timeout_ms,
                     size_t out_max, lg_proc_done_cb done, void *arg)
{
    return lg_proc_run(c->loop, argv, env, timeout_ms, out_max, done, arg);
}

const lg_sched_io_t lg__sched_io = {
    .telem_start = s_io_telem_start,
    .telem_stop = s_io_telem_stop,
    .proc = s_io_proc,
    .send = lg__ctrl_send_agent,
    .submit = s_io_submit,
    .tx = s_io_tx,
    .store_away_since = s_io_away,
    .store_pending = s_io_store_pending,
    .writer_pending = s_io_writer_pending,
    .writer_failing = s_io_writer_failing,
    .writer_spooled = s_io_writer_spooled,
    .now_ms = s_io_now,
    .hook = s_io_hook,
};

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
        json_array_append_new(nics, json_pack("{s:s, s:i, s:s, s:o}", "name",
                                              n->name ? n->name : "", "speed_mbps",
                                              (json_int_t)n->speed_mbps, "mac",
                                              n->mac ? n->mac : "", "addrs", a));
    }
    for (size_t i = 0; i < h->n_engines; i++)
        json_array_append_new(eng, json_string(h->engines[i] ? h->engines[i] : ""));
    for (size_t i = 0; i < h->n_allowed_targets; i++)
        json_array_append_new(allow, json_string(h->allowed_targets[i] ? h->allowed_targets[i]
                                                                        : ""));
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

static void s_hello_job_free(hello_job_t *j)
{
    for (int i = 0; j && i < 8; i++)
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
    j->agent_id = strtoull(PQgetvalue(r, 0, PQfnumber(r, "agent_id")), NULL, 10);
    PQclear(r);
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
        s_hello_job_free(j);
        return;
    }
    a->agent_id = j->agent_id;
    a->state = LG__AGENT_STATE__AGENT_IDLE;
    a->lost = 0;
    lg_info("agent \"%s\" registered (id %llu, %s, %s CPUs, %s)", a->name,
            (unsigned long long)a->agent_id, a->os, j->p[4], a->fio_version);
    s_send_welcome(c, a->id, a->idlen, a->agent_id);
    s_hello_job_free(j);
    lg__sched_on_agent(c, (size_t)k);
}

static void s_on_hello(lg_ctrl_t *c, const uint8_t *id, size_t idlen, const Lg__Hello *h,
                       const char *key, const char *keyname)
{
    /* The name goes to logs, lgctl's tables and reports: no control characters in it. */
    if (!h->name || !h->name[0] || strlen(h->name) > 63 || lg_has_ctrl(h->name) ||
        !s_hello_bounded(h)) {
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
    char labels[512] = "";
    size_t nl = 0; /* bytes used in labels */
    for (size_t i = 0; i < h->n_labels; i++) {
        const char *eq = h->labels[i] ? strchr(h->labels[i], '=') : NULL;
        if (!eq || eq == h->labels[i] || strchr(h->labels[i], '\n') ||
            nl + strlen(h->labels[i]) + 2 > sizeof labels) {
            lg__wire_count_malformed();
            lg_warn("agent \"%s\": ignored a malformed label", h->name);
            continue;
        }
        nl += (size_t)snprintf(labels + nl, sizeof labels - nl, "%s\n", h->labels[i]);
    }
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
            lg_error("agent \"%s\" refused: %d agents already connected", h->name,
                     LG_MAX_AGENTS);
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
    hello_job_t *j = calloc(1, sizeof *j);
    char cpus[16], mem[32];
    snprintf(cpus, sizeof cpus, "%u", h->cpu_count);
    snprintf(mem, sizeof mem, "%llu", (unsigned long long)h->mem_bytes);
    const char *v[8] = {h->name, h->lg_version ? h->lg_version : "", h->os ? h->os : "",
                        h->cpu_model ? h->cpu_model : "", cpus, mem,
                        h->fio_version ? h->fio_version : "", NULL};
    int bad = !j;
    for (int i = 0; !bad && i < 7; i++)
        bad = (j->p[i] = strdup(v[i])) == NULL;
    if (!bad)
        bad = (j->p[7] = s_facts_json(h, labels)) == NULL;
    if (!bad) {
        memcpy(j->id, id, idlen);
        j->idlen = idlen;
        bad = lg_store_submit(c->store, s_hello_work, s_hello_done, c, j) != 0;
    }
    if (bad) {
        s_hello_job_free(j);
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
        lg_warn("dropped a sample of unknown run %llu from \"%s\"",
                (unsigned long long)s->run_id, a->name);
        Lg__Ack ack = LG__ACK__INIT;
        ack.run_id = s->run_id;
        ack.seq = s->seq;
        Lg__Envelope env = LG__ENVELOPE__INIT;
        env.body_case = LG__ENVELOPE__BODY_ACK_MSG;
        env.ack_msg = &ack;
        lg__ctrl_send_agent(c, k, &env);
        return;
    }
    if (s->app) { /* an application run's report: no directions, its own table */
        if (s->n_dirs || lg__sched_on_app_sample(c, k, s) != 0)
            lg_warn("dropped report %llu of run %llu from \"%s\"%s", (unsigned long long)s->seq,
                    (unsigned long long)s->run_id, a->name,
                    s->n_dirs ? ": an application report with fio statistics" : "");
        return;
    }
    int rc = lg_writer_add(c->writer, a->id, a->idlen, a->agent_id, s);
    if (rc) {
        lg__wire_count_malformed();
        lg_warn("dropped sample %llu of run %llu from \"%s\": %s", (unsigned long long)s->seq,
                (unsigned long long)s->run_id, a->name,
                rc == LG_EPROTO ? "malformed statistics (a direction out of range, a figure "
                                  "beyond bigint, or a histogram not in lg's packed form)"
                                : lg_strerror(rc));
        return;
    }
    lg__sched_on_sample(c, k, s);
    if (lg_writer_queued(c->writer) >= QUEUE_PAUSE_ROWS && !lg_zsock_paused(c->zs_agents)) {
        lg_writer_flush(c->writer); /* to the database, or to the spool if it is away */
        if (lg_writer_queued(c->writer) >= QUEUE_PAUSE_ROWS)
            lg_zsock_pause(c->zs_agents, 1);
    }
}

static void s_on_writer_done(void *arg)
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

static void s_on_agent_msg(void *arg, const uint8_t *id, size_t idlen, Lg__Envelope *env)
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
        lg_wire_free(env);
        return;
    }
    /* Under CURVE every connection carries its key and the one name it may use (ZAP's
     * User-Id); in plaintext (loopback, local mode) there is none. */
    char key[LG_KEY_Z85 + 1], keyname[LG_KEY_NAME_MAX];
    int curve = !c->cfg->plaintext;
    if (curve && lg_zap_user_split(lg_zsock_peer(c->zs_agents)->user, key, keyname,
                                   sizeof keyname) != 0) {
        lg_warn("dropped a message from a connection without a ZAP identity");
        lg_wire_free(env);
        return;
    }
    if (env->body_case == LG__ENVELOPE__BODY_HELLO) {
        s_on_hello(c, id, idlen, env->hello, curve ? key : NULL, curve ? keyname : NULL);
        lg_wire_free(env);
        return;
    }
    ssize_t k = s_find_conn(c, id, idlen);
    if (k >= 0 && curve && strcmp(c->agents[k].name, keyname) != 0) {
        /* A routing id of another agent's connection, from a key that is not that agent's. */
        lg_zsock_garbage(c->zs_agents, id, idlen);
        lg_warn("dropped a message from %s: its key %s is agent \"%s\"'s, not \"%s\"'s",
                lg_zsock_peer(c->zs_agents)->addr, key, keyname, c->agents[k].name);
        lg_wire_free(env);
        return;
    }
    if (k < 0) {
        /* Not registered (we restarted, or it skipped Hello): ask it to say Hello. */
        s_send_welcome(c, id, idlen, 0);
        lg_wire_free(env);
        return;
    }
    c->agents[k].last_seen_ms = lg_mono_ms();
    if (!c->agents[k].agent_id) { /* still registering: it sends this again once welcomed */
        lg_wire_free(env);
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
    default:
        lg__wire_count_malformed();
        lg_zsock_garbage(c->zs_agents, c->agents[k].id, c->agents[k].idlen);
        lg_warn("dropped an unexpected message (body %d) from agent \"%s\"", (int)env->body_case,
                c->agents[k].name);
        break;
    }
    lg_wire_free(env);
}

static void s_on_writer_ack(void *arg, const uint8_t *id, size_t idlen, uint64_t run_id,
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

static void s_begin_stop(lg_ctrl_t *c);

static void s_on_ctl_msg(void *arg, const uint8_t *id, size_t idlen, Lg__Envelope *env)
{
    lg_ctrl_t *c = arg;
    Lg__CtlReply rep = LG__CTL_REPLY__INIT;
    char msg[2048] = "", state[32] = "", name[64] = "", current[512] = "";
    Lg__AgentInfo *infos = NULL, **infop = NULL;
    Lg__AgentLive *live = NULL, **livep = NULL;
    int deferred = 0;
    if (env->body_case != LG__ENVELOPE__BODY_CTL_REQUEST) {
        lg__wire_count_malformed();
        lg_zsock_garbage(c->zs_ctl, id, idlen);
        lg_warn("dropped a non-request message on the control socket");
        lg_wire_free(env);
        return;
    }
    const Lg__CtlRequest *q = env->ctl_request;
    uint64_t cid = q->campaign_id;
    int op = q->op;
    switch (op) {
    case LG__CTL_REQUEST__OP__OP_SUBMIT:
        /* Parsed and stored off the loop; the reply follows from there (submit.c). */
        rep.code = lg__submit_start(c, id, idlen, q->spec_text, q->spec_path, q->submit_id);
        if (rep.code == 0)
            deferred = 1;
        else
            snprintf(msg, sizeof msg, "could not take the submission: %s", lg_strerror(rep.code));
        break;
    case LG__CTL_REQUEST__OP__OP_STATUS:
    case LG__CTL_REQUEST__OP__OP_FIND:
    case LG__CTL_REQUEST__OP__OP_PAUSE:
    case LG__CTL_REQUEST__OP__OP_RESUME:
    case LG__CTL_REQUEST__OP__OP_ABORT:
        /* Read or changed by the store, off the loop; the reply follows from there (ctlops.c). */
        rep.code = lg__ctl_campaign_request(c, id, idlen, op, cid, q->name);
        if (rep.code == 0)
            deferred = 1;
        else
            snprintf(msg, sizeof msg, "could not take the request: %s", lg_strerror(rep.code));
        break;
    case LG__CTL_REQUEST__OP__OP_AGENTS:
        if (c->nagents) {
            infos = calloc(c->nagents, sizeof *infos);
            infop = calloc(c->nagents, sizeof *infop);
        }
        for (size_t i = 0; infos && infop && i < c->nagents; i++) {
            static const char *const names[] = {"unknown", "idle", "preparing", "ready",
                                                "running"};
            const lg_agent_conn_t *a = &c->agents[i];
            if (!a->agent_id)
                continue; /* a connection that gave its name to a newer one */
            Lg__AgentInfo *ai = &infos[rep.n_agent_list];
            lg__agent_info__init(ai);
            ai->name = (char *)a->name;
            ai->agent_id = a->agent_id;
            ai->state = (char *)(a->lost ? "lost"
                                 : a->state >= 0 && a->state <= 4 ? names[a->state]
                                                                  : "unknown");
            ai->run_id = a->run_id;
            ai->last_seen_ms = lg_mono_ms() - a->last_seen_ms;
            ai->os = (char *)a->os;
            ai->cpu_model = (char *)a->cpu_model;
            ai->cpu_count = a->cpu_count;
            ai->mem_bytes = a->mem_bytes;
            ai->fio_version = (char *)a->fio_version;
            ai->lg_version = (char *)a->lg_version;
            ai->unacked = a->unacked;
            ai->clock_offset_us = a->clock_offset_us;
            ai->rtt_us = a->rtt_us;
            ai->labels = (char *)a->labels; /* "k=v\n...": lgctl shows it comma-separated */
            infop[rep.n_agent_list++] = ai;
        }
        rep.agent_list = infop;
        break;
    case LG__CTL_REQUEST__OP__OP_SHUTDOWN:
        lg_info("shutdown requested by lgctl");
        s_begin_stop(c);
        break;
    default:
        rep.code = LG_EPROTO;
        snprintf(msg, sizeof msg, "unknown request %d", (int)q->op);
        break;
    }
    for (size_t i = 0; i < c->nagents; i++)
        rep.agents += !c->agents[i].lost;
    rep.message = msg;
    rep.state = state;
    rep.name = name;
    rep.current = current;
    Lg__Envelope out = LG__ENVELOPE__INIT;
    out.body_case = LG__ENVELOPE__BODY_CTL_REPLY;
    out.ctl_reply = &rep;
    if (c->zs_ctl && !deferred)
        lg_zsock_send(c->zs_ctl, id, idlen, &out);
    free(infos);
    free(infop);
    free(live);
    free(livep);
    lg_wire_free(env);
}

static void s_check_agents(lg_ctrl_t *c)
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
    for (size_t i = 0; i < c->nagents; i++) {
        lg_agent_conn_t *a = &c->agents[i];
        if (!a->lost && a->last_seen_ms + limit < now) {
            a->lost = 1;
            lg_warn("agent \"%s\" is lost: nothing heard for %u ms", a->name, limit);
        }
    }
}

static void s_close_all(lg_ctrl_t *c)
{
    lg_zsock_close(&c->zs_agents);
    lg_zsock_close(&c->zs_ctl);
    lg_scraper_free(c->scraper);
    c->scraper = NULL;
    lg_writer_destroy(&c->writer);
    lg_store_destroy(&c->store);
    uv_timer_stop(&c->tick);
    uv_close((uv_handle_t *)&c->tick, NULL);
    uv_close((uv_handle_t *)&c->sigint, NULL);
    uv_close((uv_handle_t *)&c->sigterm, NULL);
    /* A hook still running would hold the loop open (and is in a process group of its own,
     * beyond a terminal's ^C): stop it. A restarted controller runs it again at the same gate. */
    lg_proc_cancel_all(c->loop);
}

static uint64_t s_stop_started;
static int s_stop_said;
static int s_spool_said;
static int s_store_was_away;
static volatile int s_db_interrupt;

/* How late the tick runs says how long the loop was busy with something else: said when it is
 * over LATE_SAY_MS (at most once a second), as a loop that keeps agents waiting. */
#define LATE_SAY_MS 40
static uint64_t s_tick_last, s_late_said, s_late_max;

static void s_on_tick(uv_timer_t *t)
{
    lg_ctrl_t *c = t->data;
    uint64_t now = lg_mono_ms();
    if (s_tick_last && now - s_tick_last > TICK_MS + LATE_SAY_MS && now - s_late_said >= 1000) {
        s_late_said = now;
        lg_warn("the event loop was busy for %llu ms (agents' heartbeats and Pings waited)",
                (unsigned long long)(now - s_tick_last - TICK_MS));
    }
    if (s_tick_last && now - s_tick_last > TICK_MS && now - s_tick_last - TICK_MS > s_late_max)
        s_late_max = now - s_tick_last - TICK_MS;
    s_tick_last = now;
    /* The store found the database back: the writer need not sit out its pause. */
    int away = lg_store_away_since(c->store) != 0;
    if (s_store_was_away && !away)
        lg_writer_retry_now(c->writer);
    s_store_was_away = away;
    if (!s_db_interrupt)
        lg_writer_flush(c->writer);
    if (c->stopping) {
        /* Finish writing what was received before closing: it is measured data. */
        if ((!lg_writer_busy(c->writer) && lg_writer_unsaved(c->writer) == 0) ||
            lg_mono_ms() - s_stop_started > STOP_GRACE_MS) {
            if (lg_writer_unsaved(c->writer) && !s_stop_said) {
                s_stop_said = 1;
                lg_error("stopping with %zu samples not stored (the database did not take them "
                         "in time; the agents send them again to the next controller)",
                         lg_writer_unsaved(c->writer));
            }
            if (lg_writer_spooled(c->writer) && !s_spool_said) {
                s_spool_said = 1;
                lg_warn("%llu samples' rows wait in the spool; the next controller stores them",
                        (unsigned long long)lg_writer_spooled(c->writer));
            }
            s_db_interrupt = 1; /* a statement still waiting ends within 100 ms */
            lg_store_hold(c->store); /* and nothing new starts */
            if (!lg_writer_busy(c->writer) && !lg_store_busy(c->store))
                s_close_all(c);
        }
        return;
    }
    s_check_agents(c);
    lg__sched_tick(c);
}

static void s_begin_stop(lg_ctrl_t *c)
{
    if (c->stopping)
        return;
    c->stopping = 1;
    s_stop_started = lg_mono_ms();
}

static void s_on_signal(uv_signal_t *s, int signum)
{
    lg_ctrl_t *c = s->data;
    lg_info("caught signal %d: stopping", signum);
    s_begin_stop(c);
}

static int s_bind(void *sock, const char *ep, char *bound, size_t len)
{
    if (zmq_bind(sock, ep) != 0) {
        int e = zmq_errno();
        lg_error("could not bind \"%s\": %s", ep, zmq_strerror(e));
        return -e;
    }
    size_t l = len;
    if (zmq_getsockopt(sock, ZMQ_LAST_ENDPOINT, bound, &l) != 0)
        lg_strlcpy(bound, ep, len);
    return 0;
}

static int s_write_ready(const char *path, const char *agents_ep, const char *ctl_ep)
{
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = lg_create_new_file(tmp, 0644); /* anew, then renamed: no link followed */
    if (!f)
        return -errno;
    fprintf(f, "agents=%s\nctl=%s\n", agents_ep, ctl_ep);
    if (fclose(f) != 0 || rename(tmp, path) != 0)
        return -errno;
    return 0;
}

/* CURVE on both endpoints with the ZAP handler checking each peer's key, or, when explicitly
 * asked for, plaintext on loopback or ipc only. */
static int s_secure(lg_ctrl_t *c)
{
    const lg_controller_config_t *cfg = c->cfg;
    char err[1024];
    if (cfg->plaintext) {
        const char *bad = !lg_auth_endpoint_local(cfg->agent_bind) ? cfg->agent_bind
                          : !lg_auth_endpoint_local(cfg->ctl_bind) ? cfg->ctl_bind
                                                                    : NULL;
        if (bad) {
            lg_error("--plaintext: \"%s\" is not a loopback or ipc endpoint; without CURVE "
                     "anyone who reaches it could run destructive I/O (give --key, "
                     "--agent-keys and --control-keys instead)", bad);
            return LG_EDENIED;
        }
        lg_warn("plaintext: no authentication or encryption (loopback/ipc only)");
        return 0;
    }
    if (!cfg->key_file || !cfg->agent_keys || !cfg->ctl_keys) {
        lg_error("CURVE needs --key (this controller's key pair), --agent-keys and "
                 "--control-keys (allow-lists of public keys); make keys with lgctl keygen");
        return LG_EDENIED;
    }
    int rc = lg_auth_load_keypair(cfg->key_file, &c->key, err, sizeof err);
    if (!rc)
        rc = lg_auth_allowlist_load(cfg->agent_keys, &c->agent_keys, err, sizeof err);
    if (!rc)
        rc = lg_auth_allowlist_load(cfg->ctl_keys, &c->ctl_keys, err, sizeof err);
    if (rc) {
        lg_error("%s", err);
        return rc;
    }
    if (c->agent_keys.n == 0 || c->ctl_keys.n == 0)
        lg_warn("an allow-list is empty: no %s can connect",
                c->agent_keys.n == 0 ? "agent" : "lgctl");
    lg_zap_domain_t dom[] = {{"agents", &c->agent_keys, cfg->agent_keys},
                             {"control", &c->ctl_keys, cfg->ctl_keys}};
    rc = lg_zap_start(c->zctx, dom, 2, &c->zap);
    if (!rc)
        rc = lg_auth_server(c->agents_sock, &c->key, "agents");
    if (!rc)
        rc = lg_auth_server(c->ctl_sock, &c->key, "control");
    if (rc) {
        lg_error("could not set up CURVE: %s", lg_strerror(rc));
        return rc;
    }
    lg_info("CURVE: public key %s; %zu agent and %zu control keys allowed", c->key.pub,
            c->agent_keys.n, c->ctl_keys.n);
    return 0;
}

static void s_unsecure(lg_ctrl_t *c)
{
    lg_zap_stop(&c->zap);
    lg_auth_allowlist_free(&c->agent_keys);
    lg_auth_allowlist_free(&c->ctl_keys);
    memset(&c->key, 0, sizeof c->key);
}

static void s_close_walk(uv_handle_t *h, void *arg)
{
    (void)arg;
    if (!uv_is_closing(h))
        uv_close(h, NULL);
}

int lg_controller_main(const lg_controller_config_t *cfg)
{
    lg_ctrl_t c;
    memset(&c, 0, sizeof c);
    c.cfg = cfg;
    c.loop = uv_default_loop();
    c.io = &lg__sched_io;
    char err[512];
    /* A socket per agent: up to LG_MAX_AGENTS of them, beyond the usual 1024 descriptors. */
    struct rlimit nof;
    if (getrlimit(RLIMIT_NOFILE, &nof) == 0 && nof.rlim_cur < LG_MAX_AGENTS + 256) {
        nof.rlim_cur = nof.rlim_max < LG_MAX_AGENTS + 256 ? nof.rlim_max : LG_MAX_AGENTS + 256;
        if (setrlimit(RLIMIT_NOFILE, &nof) != 0 || nof.rlim_cur < LG_MAX_AGENTS + 256)
            lg_warn("open files limited to %llu: fewer than %d agents can connect",
                    (unsigned long long)nof.rlim_cur, LG_MAX_AGENTS);
    }
    lg_db_set_interrupt(&s_db_interrupt);
    c.db = lg_db_connect(cfg->conninfo, err, sizeof err);
    if (!c.db) {
        lg_error("could not connect to the database: %s", err);
        return LG_EDB;
    }
    /* The store first: taking up a run queues state changes. */
    c.store = lg_store_new(c.loop, cfg->conninfo);
    /* Take up the run a stopped controller left running: its samples stay, agents resend the
     * rest. */
    lg_takeup_t up = {0};
    int rc = c.store ? lg__sched_takeup_read(c.db, &up, err, sizeof err) : -ENOMEM;
    if (rc == LG_EDB) {
        lg_error("could not read the schedule: %s", err);
        lg_log_hint("Run \"lgctl db migrate\" if the schema is missing.");
    } else if (rc) {
        lg_error("could not read the schedule: %s", lg_strerror(rc));
    }
    if (rc == 0)
        rc = lg__sched_take_up(&c, &up);
    lg__sched_takeup_free(&up);
    /* That was the only database work on this thread: from here on the loop never calls libpq
     * (the store and the sample writer have connections of their own, on other threads). */
    PQfinish(c.db);
    c.db = NULL;
    if (rc) {
        lg_store_destroy(&c.store);
        uv_run(c.loop, UV_RUN_DEFAULT);
        return rc;
    }
    c.zctx = zmq_ctx_new();
    /* More than one I/O thread: a burst of CURVE handshakes (agents reconnecting together) is
     * shared between them instead of queueing every established agent's Ping behind it. */
    if (c.zctx && zmq_ctx_set(c.zctx, ZMQ_IO_THREADS, (int)(cfg->io_threads ? cfg->io_threads : 2)))
        lg_warn("could not set %u ZeroMQ I/O threads: %s", cfg->io_threads, zmq_strerror(zmq_errno()));
    c.agents_sock = zmq_socket(c.zctx, ZMQ_ROUTER);
    c.ctl_sock = zmq_socket(c.zctx, ZMQ_ROUTER);
    char agents_ep[256], ctl_ep[256];
    int mandatory = 1;
    rc = lg_wire_sock_setup(c.agents_sock);
    if (rc == 0)
        rc = lg_wire_sock_setup(c.ctl_sock);
    int rcvhwm = AGENTS_RCVHWM;
    if (rc == 0) {
        zmq_setsockopt(c.agents_sock, ZMQ_ROUTER_MANDATORY, &mandatory, sizeof mandatory);
        zmq_setsockopt(c.agents_sock, ZMQ_RCVHWM, &rcvhwm, sizeof rcvhwm);
    }
    if (rc == 0)
        rc = s_secure(&c);
    if (rc == 0)
        rc = s_bind(c.agents_sock, cfg->agent_bind, agents_ep, sizeof agents_ep);
    if (rc == 0)
        rc = s_bind(c.ctl_sock, cfg->ctl_bind, ctl_ep, sizeof ctl_ep);
    if (rc == 0)
        rc = lg_zsock_new(c.loop, c.agents_sock, 1, s_on_agent_msg, &c, &c.zs_agents);
    if (rc == 0)
        rc = lg_zsock_new(c.loop, c.ctl_sock, 1, s_on_ctl_msg, &c, &c.zs_ctl);
    if (rc == 0) {
        c.writer = lg_writer_new(c.loop, cfg->conninfo, s_on_writer_ack, &c);
        if (!c.writer || !c.store)
            rc = -ENOMEM;
        else
            lg_writer_on_done(c.writer, s_on_writer_done);
    }
    if (rc == 0 && cfg->spool_dir) {
        lg_spill_t *spill = NULL;
        char serr[1024];
        rc = lg_spill_open(cfg->spool_dir, cfg->spool_max ? cfg->spool_max : LG_SPOOL_MAX_DEFAULT,
                           &spill, serr, sizeof serr);
        if (rc)
            lg_error("%s", serr);
        else
            lg_writer_set_spool(c.writer, spill);
    }
    if (rc == 0 && cfg->ready_file && (rc = s_write_ready(cfg->ready_file, agents_ep, ctl_ep)))
        lg_error("could not write \"%s\": %s", cfg->ready_file, lg_strerror(rc));
    if (rc) {
        lg_zsock_close(&c.zs_agents);
        lg_zsock_close(&c.zs_ctl);
        if (c.writer)
            lg_writer_destroy(&c.writer);
        lg_store_destroy(&c.store);
        uv_run(c.loop, UV_RUN_DEFAULT);
        zmq_close(c.agents_sock);
        zmq_close(c.ctl_sock);
        s_unsecure(&c);
        zmq_ctx_term(c.zctx);
        PQfinish(c.db);
        return rc;
    }
    uv_timer_init(c.loop, &c.tick);
    c.tick.data = &c;
    uv_timer_start(&c.tick, s_on_tick, TICK_MS, TICK_MS);
    uv_signal_init(c.loop, &c.sigint);
    uv_signal_init(c.loop, &c.sigterm);
    c.sigint.data = c.sigterm.data = &c;
    uv_signal_start(&c.sigint, s_on_signal, SIGINT);
    uv_signal_start(&c.sigterm, s_on_signal, SIGTERM);
    lg_info("listening: agents at %s, control at %s", agents_ep, ctl_ep);

    uv_run(c.loop, UV_RUN_DEFAULT);
    uv_walk(c.loop, s_close_walk, NULL);
    uv_run(c.loop, UV_RUN_DEFAULT);
    if (uv_loop_close(c.loop))
        lg_warn("libuv loop did not close cleanly");
    lg_info("the event loop was busy for at most %llu ms at a time (a tick that late)",
            (unsigned long long)s_late_max);
    lg__sched_cleanup(&c);
    free(c.known);
    free(c.agents);
    zmq_close(c.agents_sock);
    zmq_close(c.ctl_sock);
    if (c.zap)
        lg_info("CURVE: %llu peers refused, %llu accepted",
                (unsigned long long)lg_zap_refused(c.zap),
                (unsigned long long)lg_zap_accepted(c.zap));
    s_unsecure(&c);
    zmq_ctx_term(c.zctx);
    PQfinish(c.db);
    lg_info("stopped");
    return 0;
}
