/* test_sched: the scheduler (controller/sched*.c) as a state machine, without sockets or a
 * database. Events go in through its entry points (tick, agent messages, store completions,
 * lgctl's campaign changes, take-up after a restart); what it does comes out through a fake
 * lg_sched_io_t that records messages to agents, store jobs and state changes (with their SQL),
 * and answers as a store, agents and a clock would, when and how each test says. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ctrl.h"
#include "lg_error.h"
#include "lg_esc.h"
#include "lg_log.h"
#include "lg_wire.h"
#include "sched_jobs.h"
#include "store.h"

/* ---- the fake world ---- */

typedef struct {
    int (*work)(PGconn *, void *, char *, size_t);
    void (*done)(void *, void *, int, const char *);
    void *job;
} fjob_t;

typedef struct {
    lg_tx_t *t;
    void (*done)(void *, void *, int, const char *);
    void *arg;
    int ended; /* committed or refused */
} ftx_t;

typedef struct {
    size_t conn;
    int body;
    uint64_t run_id;
    uint32_t rate_iops; /* a Prepare's, per thread */
} fmsg_t;

static struct {
    fjob_t jobs[64];
    size_t njobs;
    ftx_t txs[64];
    size_t ntxs;
    fmsg_t msgs[256];
    size_t nmsgs;
    uint64_t now, away;
    int hooks;
    void (*hook_done)(void *, int64_t, int, int, const char *);
    void *hook_arg;
    const char *phase, *round_s; /* the next run row's, when set */
    const char *search_id, *probe, *rate_total, *curve_base_of;
    const char *retries, *attempt; /* the next run row's, when set */
} W;

static int f_send(lg_ctrl_t *c, size_t conn, Lg__Envelope *env)
{
    (void)c;
    fmsg_t *m = &W.msgs[W.nmsgs++];
    m->conn = conn;
    m->body = env->body_case;
    switch (env->body_case) {
    case LG__ENVELOPE__BODY_PREPARE:
        m->run_id = env->prepare->spec->run_id;
        m->rate_iops = env->prepare->spec->rate_iops;
        break;
    case LG__ENVELOPE__BODY_START:
        m->run_id = env->start->run_id;
        break;
    case LG__ENVELOPE__BODY_STOP:
        m->run_id = env->stop->run_id;
        break;
    case LG__ENVELOPE__BODY_ACK_MSG:
        m->run_id = env->ack_msg->run_id;
        break;
    default:
        break;
    }
    return 0;
}

static int f_submit(lg_ctrl_t *c, int (*work)(PGconn *, void *, char *, size_t),
                    void (*done)(void *, void *, int, const char *), void *job)
{
    (void)c;
    W.jobs[W.njobs++] = (fjob_t){work, done, job};
    return 0;
}

static int f_tx(lg_ctrl_t *c, lg_tx_t *t, void (*done)(void *, void *, int, const char *),
                void *arg)
{
    (void)c;
    W.txs[W.ntxs++] = (ftx_t){t, done, arg, 0};
    return 0;
}

static uint64_t f_away(lg_ctrl_t *c)
{
    return (void)c, W.away;
}
static size_t f_store_pending(lg_ctrl_t *c)
{
    size_t n = W.njobs;
    for (size_t i = 0; i < W.ntxs; i++)
        n += !W.txs[i].ended;
    return (void)c, n;
}
static size_t f_writer_pending(lg_ctrl_t *c)
{
    return (void)c, 0;
}
static int f_writer_failing(lg_ctrl_t *c)
{
    return (void)c, 0;
}
static uint64_t f_now(lg_ctrl_t *c)
{
    return (void)c, W.now;
}
static int f_hook(lg_ctrl_t *c, char *const *env,
                  void (*done)(void *, int64_t, int, int, const char *), void *arg)
{
    (void)c, (void)env;
    W.hooks++;
    W.hook_done = done;
    W.hook_arg = arg;
    return 0;
}

static const lg_sched_io_t fake_io = {f_send,
                                      f_submit,
                                      f_tx,
                                      f_away,
                                      f_store_pending,
                                      f_writer_pending,
                                      f_writer_failing,
                                      f_now,
                                      f_hook,
                                      NULL,
                                      NULL,
                                      NULL,
                                      NULL};

static lg_controller_config_t cfg = {.agent_timeout_ms = 3000, .heartbeat_ms = 1000};

static lg_ctrl_t *s_ctrl(size_t nagents)
{
    memset(&W, 0, sizeof W);
    W.now = 1000000;
    lg_ctrl_t *c = calloc(1, sizeof *c);
    c->io = &fake_io;
    c->cfg = &cfg;
    c->agents = calloc(nagents, sizeof *c->agents);
    c->nagents = nagents;
    for (size_t i = 0; i < nagents; i++) {
        lg_agent_conn_t *a = &c->agents[i];
        snprintf(a->name, sizeof a->name, "agent%zu", i + 1);
        a->agent_id = 100 + i;
        a->state = LG__AGENT_STATE__AGENT_IDLE;
        a->last_seen_ms = W.now;
    }
    return c;
}

static void s_ctrl_destroy(lg_ctrl_t **self_p)
{
    lg_ctrl_t *c = self_p ? *self_p : NULL;
    if (!c)
        return;
    *self_p = NULL;
    /* as the store does when it goes: what is queued ends with LG_ESTATE */
    c->stopping = 1;
    while (W.njobs) {
        fjob_t j = W.jobs[--W.njobs];
        j.done(c, j.job, LG_ESTATE, "stopping");
    }
    for (size_t i = 0; i < W.ntxs; i++)
        lg_tx_destroy(&W.txs[i].t);
    lg__sched_cleanup(c);
    free(c->known);
    free(c->agents);
    free(c);
}

/* The oldest pending store job that work runs, taken off the list (NULL if none). */
static fjob_t s_take_job(int (*work)(PGconn *, void *, char *, size_t))
{
    for (size_t i = 0; i < W.njobs; i++)
        if (W.jobs[i].work == work) {
            fjob_t j = W.jobs[i];
            memmove(&W.jobs[i], &W.jobs[i + 1], (W.njobs - i - 1) * sizeof *W.jobs);
            W.njobs--;
            return j;
        }
    return (fjob_t){0};
}

static int s_has_job(int (*work)(PGconn *, void *, char *, size_t))
{
    for (size_t i = 0; i < W.njobs; i++)
        if (W.jobs[i].work == work)
            return 1;
    return 0;
}

/* Does state change k hold a statement containing needle (with a parameter equal to param, if
 * given)? */
static int s_tx_has(size_t k, const char *needle, const char *param)
{
    const lg_tx_t *t = W.txs[k].t;
    for (size_t i = 0; i < lg_tx_count(t); i++) {
        int n = 0;
        const char *const *p = NULL;
        const char *sql = lg_tx_sql_at(t, i, &n, &p);
        if (!sql || !strstr(sql, needle))
            continue;
        if (!param)
            return 1;
        for (int j = 0; j < n; j++)
            if (p[j] && !strcmp(p[j], param))
                return 1;
    }
    return 0;
}

/* The index of the newest state change named like what (lg_tx_what), or -1. */
static long s_tx_find(const char *what)
{
    for (size_t i = W.ntxs; i-- > 0;)
        if (strstr(lg_tx_what(W.txs[i].t), what))
            return (long)i;
    return -1;
}

/* Does a statement of state change k have a parameter holding needle? */
static int s_tx_param_has(size_t k, const char *needle)
{
    const lg_tx_t *t = W.txs[k].t;
    for (size_t i = 0; i < lg_tx_count(t); i++) {
        int n = 0;
        const char *const *p = NULL;
        if (!lg_tx_sql_at(t, i, &n, &p))
            continue;
        for (int j = 0; j < n; j++)
            if (p[j] && strstr(p[j], needle))
                return 1;
    }
    return 0;
}

/* Commit state change k (rc 0) or refuse it. */
static void s_tx_end(lg_ctrl_t *c, size_t k, int rc)
{
    (void)c;
    W.txs[k].ended = 1;
    if (W.txs[k].done)
        W.txs[k].done(W.txs[k].arg, NULL, rc, rc ? "refused" : "");
}

static size_t s_msgs(int body, uint64_t run_id)
{
    size_t n = 0;
    for (size_t i = 0; i < W.nmsgs; i++)
        n += W.msgs[i].body == body && W.msgs[i].run_id == run_id;
    return n;
}

/* The next-run read answered with the run row (run_id, campaign 3, 5 s runtime). */
static lg_row_t *s_run_row(uint64_t run_id)
{
    lg_row_t *r = lg_row_new();
    char id[24];
    snprintf(id, sizeof id, "%llu", (unsigned long long)run_id);
    lg_row_set(r, "run_id", id);
    lg_row_set(r, "campaign_id", "3");
    lg_row_set(r, "target_kind", "null");
    lg_row_set(r, "target", "null");
    lg_row_set(r, "size_bytes", "1073741824");
    lg_row_set(r, "rw", "randread");
    lg_row_set(r, "bs", "4096");
    lg_row_set(r, "read_pct", "100");
    lg_row_set(r, "threads", "1");
    lg_row_set(r, "qd", "1");
    lg_row_set(r, "ramp_s", "0");
    lg_row_set(r, "runtime_s", "5");
    lg_row_set(r, "direct", "t");
    lg_row_set(r, "profile", "4k-rand");
    lg_row_set(r, "direction", "read");
    lg_row_set(r, "phase", W.phase ? W.phase : "measure");
    lg_row_set(r, "ordinal", "1");
    lg_row_set(r, "gate", "f");
    lg_row_set(r, "config_ordinal", "1");
    lg_row_set(r, "agents", NULL);
    lg_row_set(r, "share", "auto");
    lg_row_set(r, "bssplit", "");
    lg_row_set(r, "compress_ratio", "1");
    lg_row_set(r, "dedup_ratio", "1");
    lg_row_set(r, "dedup_unit", "4096");
    lg_row_set(r, "round_s", W.round_s ? W.round_s : "0");
    lg_row_set(r, "search_id", W.search_id);
    lg_row_set(r, "probe", W.probe);
    lg_row_set(r, "rate_total", W.rate_total ? W.rate_total : "0");
    lg_row_set(r, "curve_base_of", W.curve_base_of ? W.curve_base_of : "f");
    lg_row_set(r, "retries", W.retries ? W.retries : "0");
    lg_row_set(r, "attempt", W.attempt ? W.attempt : "1");
    return r;
}

/* Tick while idle: the store is asked what runs next; answer kind (and the run for NX_RUN). */
static int s_resumed; /* the next NX_GATE answered is a pause gate lgctl resume let go */

static void s_answer_next(lg_ctrl_t *c, next_kind_t kind, uint64_t run_id, const char *between)
{
    lg__sched_tick(c);
    fjob_t j = s_take_job(lg__sched_next_work);
    assert_non_null(j.job);
    next_job_t *n = j.job;
    n->kind = kind;
    n->cid = 3;
    snprintf(n->name, sizeof n->name, "camp");
    if (kind == NX_RUN)
        n->run = s_run_row(run_id);
    if (kind == NX_GATE) {
        snprintf(n->between, sizeof n->between, "%s", between);
        n->ordinal = 2;
        snprintf(n->cfgord, sizeof n->cfgord, "2");
        snprintf(n->labels, sizeof n->labels, "{\"media\": \"ssd\"}");
        n->resumed = s_resumed;
        s_resumed = 0;
    }
    if (kind == NX_ENDED)
        snprintf(n->state, sizeof n->state, "done");
    j.done(c, n, 0, "");
}

/* Start run run_id on every agent: read, start committed, every agent prepared. */
static void s_start(lg_ctrl_t *c, uint64_t run_id)
{
    s_answer_next(c, NX_RUN, run_id, NULL);
    long k = s_tx_find("start run");
    assert_true(k >= 0);
    s_tx_end(c, (size_t)k, 0);
    for (size_t i = 0; i < c->nagents; i++) {
        Lg__Prepared p = LG__PREPARED__INIT;
        p.run_id = run_id;
        lg__sched_on_prepared(c, i, &p);
    }
    assert_int_equal(c->cur.phase, PH_RUNNING);
}

/* Agent conn delivers its RunResult (ios I/Os, samples samples); the store stores it. */
static void s_result(lg_ctrl_t *c, size_t conn, uint64_t run_id, uint64_t ios, uint64_t samples)
{
    lg_dirstats_t *st = calloc(1, sizeof *st);
    lg_dirstats_init(st);
    st->ios = ios;
    st->bytes = ios * 4096;
    st->runtime_ms = 5000;
    st->lat_n = ios;
    st->lat_min = 100;
    st->lat_max = 900;
    st->lat_sum = 500.0 * (double)ios;
    st->lat_sumsq = 250000.0 * (double)ios;
    Lg__DirStats *d = lg_wire_dirstats_new(st, LG_DIR_READ);
    Lg__RunResult res = LG__RUN_RESULT__INIT;
    res.run_id = run_id;
    res.n_dirs = 1;
    res.dirs = &d;
    res.fio_json = "{}";
    res.samples = samples;
    lg__sched_on_result(c, conn, &res);
    lg_wire_dirstats_destroy(&d);
    free(st);
    fjob_t j = s_take_job(lg__sched_result_work);
    assert_non_null(j.job);
    j.done(c, j.job, 0, "");
}

/* The count of stored samples the run waits for: every agent has n. */
static void s_answer_count(lg_ctrl_t *c, uint64_t n)
{
    fjob_t j = s_take_job(lg__sched_count_work);
    assert_non_null(j.job);
    count_job_t *cj = j.job;
    cj->n = c->cur.nra;
    for (size_t i = 0; i < c->cur.nra; i++) {
        cj->agent_id[i] = c->cur.ra[i].agent_id;
        cj->stored[i] = n;
    }
    j.done(c, cj, 0, "");
}

/* ---- transitions ---- */

/* idle -> preparing -> running -> every result -> every sample stored -> done, one transaction
 * at each step, agents told only what is committed. */
static void test_run_done(void **state)
{
    (void)state;
    lg_ctrl_t *c = s_ctrl(2);
    s_answer_next(c, NX_RUN, 7, NULL);
    assert_int_equal(c->cur.phase, PH_PREPARING);
    long k = s_tx_find("start run 7");
    assert_true(k >= 0);
    assert_true(s_tx_has((size_t)k, "UPDATE lg.campaign SET state = 'running'", "3"));
    assert_true(s_tx_has((size_t)k, "UPDATE lg.run SET state = 'running'", "7"));
    assert_true(s_tx_has((size_t)k, "INSERT INTO lg.run_agent", "7"));
    /* not a word to the agents before the start is committed */
    assert_int_equal(s_msgs(LG__ENVELOPE__BODY_PREPARE, 7), 0);
    s_tx_end(c, (size_t)k, 0);
    assert_int_equal(s_msgs(LG__ENVELOPE__BODY_PREPARE, 7), 2);
    Lg__Prepared p = LG__PREPARED__INIT;
    p.run_id = 7;
    lg__sched_on_prepared(c, 0, &p);
    assert_int_equal(s_msgs(LG__ENVELOPE__BODY_START, 7), 0); /* waits for both */
    lg__sched_on_prepared(c, 1, &p);
    assert_int_equal(s_msgs(LG__ENVELOPE__BODY_START, 7), 2);
    assert_int_equal(c->cur.phase, PH_RUNNING);
    assert_true(s_tx_find("mark the run's agents running") >= 0);

    s_result(c, 0, 7, 1000, 5);
    assert_int_equal(s_msgs(LG__ENVELOPE__BODY_ACK_MSG, 7), 1); /* acked once committed */
    assert_int_equal(c->cur.phase, PH_RUNNING);
    s_result(c, 1, 7, 3000, 5);
    /* every result is in: the run ends once every sample is stored, not before */
    assert_true(c->cur.finish_when_stored);
    assert_int_equal(s_tx_find("finish run"), -1);
    s_answer_count(c, 5);
    k = s_tx_find("finish run 7");
    assert_true(k >= 0);
    assert_true(s_tx_has((size_t)k, "UPDATE lg.run SET state = $2", "done"));
    assert_int_equal(lg_tx_count(W.txs[k].t), 1 + 1);     /* the merged read row, the run */
    assert_null(lg_tx_sql_at(W.txs[k].t, 0, NULL, NULL)); /* the merged row is a step */
    assert_int_equal(c->cur.phase, PH_IDLE);
    /* and the campaign: the store ends it when no run is left */
    s_answer_next(c, NX_ENDED, 0, NULL);
    assert_int_equal(c->cur.phase, PH_IDLE);
    s_ctrl_destroy(&c);
}

/* A result the database refuses (an outage) is said once, however often the agent sends it
 * again; once one is stored a summary line counts the tries (issue 43 part 6). */
static void test_result_refused_said_once(void **state)
{
    (void)state;
    lg_ctrl_t *c = s_ctrl(1);
    s_answer_next(c, NX_RUN, 8, NULL);
    s_tx_end(c, (size_t)s_tx_find("start run 8"), 0);
    Lg__Prepared p = LG__PREPARED__INIT;
    p.run_id = 8;
    lg__sched_on_prepared(c, 0, &p);
    assert_int_equal(c->cur.phase, PH_RUNNING);
    char *text = NULL;
    size_t len = 0;
    FILE *log = open_memstream(&text, &len);
    assert_non_null(log);
    lg_log_set_file(log);
    lg_dirstats_t st;
    lg_dirstats_init(&st);
    st.ios = st.lat_n = 10;
    st.bytes = 40960;
    st.runtime_ms = 1000;
    Lg__DirStats *d = lg_wire_dirstats_new(&st, LG_DIR_READ);
    Lg__RunResult res = LG__RUN_RESULT__INIT;
    res.run_id = 8;
    res.n_dirs = 1;
    res.dirs = &d;
    res.fio_json = "{}";
    res.samples = 1;
    for (int i = 0; i < 4; i++) { /* the agent's resends, every few seconds */
        lg__sched_on_result(c, 0, &res);
        fjob_t j = s_take_job(lg__sched_result_work);
        assert_non_null(j.job);
        W.now += 5000;
        j.done(c, j.job, i < 3 ? LG_EDB : 0, i < 3 ? "server closed the connection" : "");
    }
    lg_wire_dirstats_destroy(&d);
    lg_log_set_file(NULL);
    fclose(log);
    int said = 0;
    for (const char *q = text; (q = strstr(q, "could not store a result of run 8")); q++)
        said++;
    assert_int_equal(said, 1);
    assert_non_null(strstr(text, "server closed the connection"));
    assert_non_null(strstr(text, "results are stored again (run 8's now): 3 tries"));
    assert_non_null(strstr(text, "over 15.0 s"));
    free(text);
    assert_int_equal(s_msgs(LG__ENVELOPE__BODY_ACK_MSG, 8), 1); /* acked once, when stored */
    s_ctrl_destroy(&c);
}

/* A start the database refuses fails the run; its agents never hear of it. */
static void test_start_refused(void **state)
{
    (void)state;
    lg_ctrl_t *c = s_ctrl(1);
    s_answer_next(c, NX_RUN, 8, NULL);
    s_tx_end(c, (size_t)s_tx_find("start run 8"), LG_EDB);
    assert_int_equal(s_msgs(LG__ENVELOPE__BODY_PREPARE, 8), 0);
    long k = s_tx_find("finish run 8");
    assert_true(k >= 0);
    assert_true(s_tx_has((size_t)k, "UPDATE lg.run SET state = $2", "failed"));
    assert_int_equal(c->cur.phase, PH_IDLE);
    s_ctrl_destroy(&c);
}

/* Agents still busy (none idle): the run waits, and is read again later. */
static void test_waits_for_agents(void **state)
{
    (void)state;
    lg_ctrl_t *c = s_ctrl(1);
    c->agents[0].state = LG__AGENT_STATE__AGENT_RUNNING;
    s_answer_next(c, NX_RUN, 9, NULL);
    assert_int_equal(c->cur.phase, PH_IDLE);
    /* the one statement: the campaign's message says why, for lgctl status */
    assert_int_equal(W.ntxs, 1);
    assert_true(s_tx_param_has((size_t)s_tx_find("say why the campaign waits"),
                               "run 9 is waiting: no agent is idle"));
    lg__sched_tick(c); /* too soon to ask again */
    assert_false(s_has_job(lg__sched_next_work));
    W.now += 300;
    lg__sched_tick(c);
    assert_true(s_has_job(lg__sched_next_work));
    s_ctrl_destroy(&c);
}

/* An agent the run would take is back after it was lost but still busy with that run: the next
 * run waits for it (the other agent idle meanwhile) and starts on both once it is idle; one that
 * stays busy is waited for 10 s, and then the run goes on without it. */
static void test_waits_for_busy_agent(void **state)
{
    (void)state;
    lg_ctrl_t *c = s_ctrl(2);
    c->agents[1].state = LG__AGENT_STATE__AGENT_RUNNING;
    c->agents[1].run_id = 10;
    s_answer_next(c, NX_RUN, 12, NULL);
    assert_int_equal(c->cur.phase, PH_IDLE);
    assert_int_equal(W.ntxs, 1); /* the campaign's message: why it waits */
    assert_non_null(strstr(c->cur.waiting_why, "agent \"agent2\" is still busy with run 10"));
    assert_true(s_tx_param_has((size_t)s_tx_find("say why the campaign waits"),
                               "agent \"agent2\" is still busy with run 10"));
    W.now += 300;
    s_answer_next(c, NX_RUN, 12, NULL);
    assert_int_equal(c->cur.phase, PH_IDLE);
    c->agents[1].state = LG__AGENT_STATE__AGENT_IDLE; /* its RunResult of run 10 arrived */
    W.now += 300;
    s_answer_next(c, NX_RUN, 12, NULL);
    assert_int_equal(c->cur.phase, PH_PREPARING);
    assert_int_equal(c->cur.nra, 2);
    s_tx_end(c, (size_t)s_tx_find("start run 12"), 0);
    assert_int_equal(s_msgs(LG__ENVELOPE__BODY_PREPARE, 12), 2);
    s_ctrl_destroy(&c);

    c = s_ctrl(2);
    c->agents[1].state = LG__AGENT_STATE__AGENT_RUNNING;
    c->agents[1].run_id = 10;
    uint64_t t0 = W.now;
    while (W.now - t0 < 10000) {
        s_answer_next(c, NX_RUN, 13, NULL);
        assert_int_equal(c->cur.phase, PH_IDLE);
        W.now += 300;
    }
    s_answer_next(c, NX_RUN, 13, NULL);
    assert_int_equal(c->cur.phase, PH_PREPARING);
    assert_int_equal(c->cur.nra, 1);
    assert_int_equal(c->cur.ra[0].agent_id, 100);
    s_tx_end(c, (size_t)s_tx_find("start run 13"), 0);
    assert_int_equal(s_msgs(LG__ENVELOPE__BODY_PREPARE, 13), 1);
    s_ctrl_destroy(&c);
}

/* An agent lost mid-run: the run goes on without it and ends "partial", saying who. */
static void test_agent_lost(void **state)
{
    (void)state;
    lg_ctrl_t *c = s_ctrl(2);
    s_start(c, 10);
    c->agents[1].lost = 1;
    lg__sched_tick(c);
    long lk = s_tx_find("record a lost agent");
    assert_true(lk >= 0);
    assert_true(s_tx_has((size_t)lk, "SET state = 'lost'", "101")); /* agent2 */
    s_result(c, 0, 10, 1000, 5);
    s_answer_count(c, 5);
    long k = s_tx_find("finish run 10");
    assert_true(k >= 0);
    assert_true(s_tx_has((size_t)k, "UPDATE lg.run SET state = $2", "partial"));
    s_ctrl_destroy(&c);
}

/* An agent that restarts (a new connection with its key replaces the old one) is a loss at once,
 * not after the timeout. */
static void test_agent_replaced(void **state)
{
    (void)state;
    lg_ctrl_t *c = s_ctrl(2);
    s_start(c, 11);
    lg__sched_on_replaced(c, 1);
    s_result(c, 0, 11, 1000, 5);
    s_answer_count(c, 5);
    long k = s_tx_find("finish run 11");
    assert_true(k >= 0);
    assert_true(s_tx_has((size_t)k, "UPDATE lg.run SET state = $2", "partial"));
    s_ctrl_destroy(&c);
}

/* lgctl abort during a run: Stop to every agent; what they measured is kept; "aborted". */
static void test_abort(void **state)
{
    (void)state;
    lg_ctrl_t *c = s_ctrl(2);
    s_start(c, 12);
    lg__sched_campaign_changed(c, LG__CTL_REQUEST__OP__OP_ABORT, 3);
    assert_int_equal(s_msgs(LG__ENVELOPE__BODY_STOP, 12), 2);
    assert_int_equal(c->cur.phase, PH_STOPPING);
    s_result(c, 0, 12, 500, 2);
    s_result(c, 1, 12, 500, 2);
    s_answer_count(c, 2);
    long k = s_tx_find("finish run 12");
    assert_true(k >= 0);
    assert_true(s_tx_has((size_t)k, "UPDATE lg.run SET state = $2", "aborted"));
    s_ctrl_destroy(&c);
}

/* An agent's error holds fio's stderr, which may hold anything: what is stored is valid UTF-8
 * (bytes that were not replaced by U+FFFD, and the row says so), and the run's error, cut to its
 * room, is cut on a character boundary. */
static void test_agent_error_utf8(void **state)
{
    (void)state;
    lg_ctrl_t *c = s_ctrl(2);
    s_start(c, 9);
    char msg[2048] = "fio: bad\xff "; /* then 600 "é": the run's error ends inside one */
    size_t o = strlen(msg);
    for (int i = 0; i < 600; i++)
        o += (size_t)snprintf(msg + o, sizeof msg - o, "\xc3\xa9");
    Lg__RunError e = LG__RUN_ERROR__INIT;
    e.run_id = 9;
    e.code = LG_EFIO;
    e.message = msg;
    lg__sched_on_error(c, 0, &e);
    long k = s_tx_find("record an agent's error");
    assert_true(k >= 0);
    assert_true(s_tx_param_has((size_t)k, "fio: bad\xef\xbf\xbd \xc3\xa9\xc3\xa9"));
    assert_true(
        s_tx_param_has((size_t)k, "\xc3\xa9 (as stored: 1 invalid byte replaced by U+FFFD)"));
    const lg_tx_t *t = W.txs[k].t;
    for (size_t i = 0; i < lg_tx_count(t); i++) {
        int n = 0;
        const char *const *p = NULL;
        if (lg_tx_sql_at(t, i, &n, &p))
            for (int j = 0; j < n; j++)
                assert_true(!p[j] || lg_utf8_valid(p[j], strlen(p[j])));
    }
    /* 16 bytes of 'agent "agent1": ', 12 of the start, then 995 of "é" would be half of one */
    assert_true(lg_utf8_valid(c->cur.error, strlen(c->cur.error)));
    assert_int_equal(strlen(c->cur.error), 1022);
    s_ctrl_destroy(&c);
}

/* How many steps of C (not statements) state change k holds: a retry is one (attempt.c). */
static size_t s_tx_steps(size_t k)
{
    size_t n = 0;
    for (size_t i = 0; i < lg_tx_count(W.txs[k].t); i++) {
        int np = 0;
        const char *const *p = NULL;
        n += lg_tx_sql_at(W.txs[k].t, i, &np, &p) == NULL;
    }
    return n;
}

/* A run whose agent could not log in to its target (LG_ECONNECT), with a retry left: the
 * transaction that fails it makes a new attempt (a step), and the schedule is read again only
 * after the pause. Another error (fio's), or no retry left (attempt 2 of 1 + 1), does not. */
static void test_retry_transient(void **state)
{
    (void)state;
    static const struct {
        int code;
        const char *attempt;
        size_t steps;
    } cases[] = {{LG_ECONNECT, "1", 1}, {LG_EFIO, "1", 0}, {LG_ECONNECT, "2", 0}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        lg_ctrl_t *c = s_ctrl(1); /* the fake world anew */
        W.retries = "1";
        W.attempt = cases[i].attempt;
        s_start(c, 30);
        Lg__RunError e = LG__RUN_ERROR__INIT;
        e.run_id = 30;
        e.code = cases[i].code;
        e.message = "logging in to \"smb://nas/share/f\" failed at Prepare, before the start";
        lg__sched_on_error(c, 0, &e);
        long k = s_tx_find("finish run 30");
        assert_true(k >= 0);
        assert_true(s_tx_has((size_t)k, "UPDATE lg.run SET state = $2", "failed"));
        assert_int_equal(s_tx_steps((size_t)k), cases[i].steps);
        assert_int_equal(c->cur.next_read_ms >= W.now + 5000, cases[i].steps == 1);
        s_ctrl_destroy(&c);
    }
}

/* Pause: the store pauses the campaign itself (NX_PAUSED); nothing starts. A gate with
 * between_configs pause: the campaign waits, saying how to go on; with hook: the hook runs. */
static void test_pause_and_gates(void **state)
{
    (void)state;
    lg_ctrl_t *c = s_ctrl(1);
    s_answer_next(c, NX_PAUSED, 0, NULL);
    assert_int_equal(c->cur.phase, PH_IDLE);
    assert_int_equal(W.ntxs, 0);
    /* lgctl resume (committed by the store): the schedule is read again at once, and the
     * campaign's next run starts */
    W.now += 1000;
    lg__sched_campaign_changed(c, LG__CTL_REQUEST__OP__OP_RESUME, 3);
    fjob_t j = s_take_job(lg__sched_next_work);
    assert_non_null(j.job);
    next_job_t *n = j.job;
    n->kind = NX_RUN;
    n->cid = 3;
    n->run = s_run_row(21);
    j.done(c, n, 0, "");
    assert_int_equal(c->cur.phase, PH_PREPARING);
    assert_int_equal(c->cur.run_id, 21);
    s_tx_end(c, (size_t)s_tx_find("start run 21"), 0);
    lg__sched_campaign_changed(c, LG__CTL_REQUEST__OP__OP_ABORT, 3); /* before it ran */
    assert_int_equal(c->cur.phase, PH_IDLE);
    long k0 = s_tx_find("finish run 21");
    assert_true(k0 >= 0);
    assert_true(s_tx_has((size_t)k0, "UPDATE lg.run SET state = $2", "aborted"));
    W.now += 1000;
    s_answer_next(c, NX_GATE, 0, "pause");
    long k = s_tx_find("update the campaign");
    assert_true(k >= 0);
    assert_true(s_tx_has((size_t)k, "UPDATE lg.campaign SET state = $2", "paused"));
    assert_int_equal(c->cur.phase, PH_IDLE);
    lg_controller_config_t hc = cfg;
    /* resumed (034_gate_resumed): without --readback the gate is passed and the schedule read
     * again at once; with one, the check must run first (here it cannot: the campaign stops) */
    W.now += 1000;
    s_resumed = 1;
    s_answer_next(c, NX_GATE, 0, "pause");
    k = s_tx_find("pass the gate");
    assert_true(k >= 0);
    assert_true(s_tx_has((size_t)k, "SET gate_passed = $2", "2"));
    assert_true(s_has_job(lg__sched_next_work));
    fjob_t again = s_take_job(lg__sched_next_work);
    next_job_t *na = again.job;
    na->kind = NX_NOTHING;
    again.done(c, na, 0, "");
    hc.readback = "zfs get -H compression tank";
    c->cfg = &hc;
    W.now += 1000;
    s_resumed = 1;
    s_answer_next(c, NX_GATE, 0, "pause");
    k = s_tx_find("stop campaign 3 after its check failed");
    assert_true(k >= 0);
    assert_true(s_tx_param_has((size_t)k, "could not run the readback check"));
    assert_true(s_tx_param_has((size_t)k, "before config 2 {\"media\": \"ssd\"} (resumed)"));
    hc.readback = NULL;
    hc.hook = "/bin/true";
    W.now += 1000;
    s_answer_next(c, NX_GATE, 0, "hook");
    assert_int_equal(W.hooks, 1);
    assert_int_equal(c->cur.phase, PH_HOOK);
    W.hook_done(W.hook_arg, 0, 0, 0, ""); /* it succeeded: the gate is passed */
    assert_int_equal(c->cur.phase, PH_IDLE);
    k = s_tx_find("pass the gate");
    assert_true(k >= 0);
    assert_true(s_tx_has((size_t)k, "SET gate_passed = $2", "2"));
    /* a hook stopped at its deadline fails the campaign, saying so, even if it then exited 0 */
    hc.hook_timeout_s = 42;
    W.now += 1000;
    s_answer_next(c, NX_GATE, 0, "hook");
    assert_int_equal(W.hooks, 2);
    assert_int_equal(c->cur.phase, PH_HOOK);
    assert_true(s_tx_find("stop campaign 3 after its hook failed") < 0);
    W.hook_done(W.hook_arg, 0, 0, 1, "waiting for the pool");
    assert_int_equal(c->cur.phase, PH_IDLE);
    k = s_tx_find("stop campaign 3 after its hook failed");
    assert_true(k >= 0);
    assert_true(s_tx_has((size_t)k, "UPDATE lg.campaign SET state = $2", "failed"));
    assert_true(s_tx_param_has((size_t)k, "the hook \"/bin/true\" timed out after 42 s"));
    assert_true(s_tx_param_has((size_t)k, "campaign stopped: waiting for the pool"));
    assert_true(s_tx_has((size_t)k, "UPDATE lg.run SET state = 'aborted'", "3"));
    /* its stderr as text takes it: a byte that is not UTF-8 replaced, and the message says so */
    W.now += 1000;
    s_answer_next(c, NX_GATE, 0, "hook");
    assert_int_equal(W.hooks, 3);
    W.hook_done(W.hook_arg, 256, 0, 0, "zfs: pool \xff\xfe is busy");
    k = s_tx_find("stop campaign 3 after its hook failed");
    assert_true(s_tx_param_has((size_t)k, "campaign stopped: zfs: pool \xef\xbf\xbd\xef\xbf\xbd is "
                                          "busy (as stored: 2 invalid bytes replaced by U+FFFD)"));
    /* a hook the stopping controller cancelled records nothing: a restart runs the gate again */
    W.now += 1000;
    s_answer_next(c, NX_GATE, 0, "hook");
    assert_int_equal(W.hooks, 4);
    size_t ntxs = W.ntxs;
    W.hook_done(W.hook_arg, UV_ECANCELED, 0, 0, "");
    assert_int_equal(W.ntxs, ntxs);
    assert_int_equal(c->cur.phase, PH_IDLE);
    c->cfg = &cfg;
    s_ctrl_destroy(&c);
}

/* The database away: no deadline runs, no run is failed for it; when it is back the deadline
 * moves by as long as it was away. */
static void test_deadline_pauses_while_away(void **state)
{
    (void)state;
    lg_ctrl_t *c = s_ctrl(1);
    s_start(c, 13);
    uint64_t deadline = c->cur.deadline_ms;
    W.away = W.now;
    lg__sched_tick(c); /* the tick sees it go (it runs every 100 ms) */
    W.now = deadline + 60000;
    c->agents[0].last_seen_ms = W.now;
    for (size_t i = 0; i < W.ntxs; i++) /* the store has done what it had */
        W.txs[i].ended = 1;
    lg__sched_tick(c);
    assert_int_equal(c->cur.phase, PH_RUNNING);
    assert_true(s_has_job(lg__sched_probe_work)); /* asks whether it is back */
    W.away = 0;
    lg__sched_tick(c);
    assert_int_equal(c->cur.phase, PH_RUNNING);
    assert_true(c->cur.deadline_ms > W.now);
    s_ctrl_destroy(&c);
}

/* A run whose samples are not all stored when every result is in waits for them (the agents
 * resend), then ends anyway after a while, saying what is missing. */
static void test_waits_for_samples(void **state)
{
    (void)state;
    lg_ctrl_t *c = s_ctrl(1);
    s_start(c, 14);
    s_result(c, 0, 14, 1000, 5);
    s_answer_count(c, 3);
    assert_int_equal(c->cur.phase, PH_RUNNING);
    W.now += 600;
    lg__sched_tick(c);
    s_answer_count(c, 5);
    long k = s_tx_find("finish run 14");
    assert_true(k >= 0);
    assert_true(s_tx_has((size_t)k, "UPDATE lg.run SET state = $2", "done"));
    /* and one whose samples never all come */
    s_start(c, 15);
    s_result(c, 0, 15, 1000, 5);
    s_answer_count(c, 4);
    W.now += 31000;
    lg__sched_tick(c);
    s_answer_count(c, 4);
    assert_true(s_tx_find("finish run 15") >= 0);
    assert_int_equal(c->cur.phase, PH_IDLE);
    s_ctrl_destroy(&c);
}

/* After a restart: a run left running is taken up with what the database holds; the agent that
 * had delivered keeps its figures, the other's result completes the merge. */
static void test_take_up(void **state)
{
    (void)state;
    lg_ctrl_t *c = s_ctrl(2);
    lg_takeup_t t = {0};
    t.run = s_run_row(16);
    lg_row_t *ag[2] = {lg_row_new(), lg_row_new()};
    lg_row_set(ag[0], "agent_id", "100");
    lg_row_set(ag[0], "state", "done");
    lg_row_set(ag[1], "agent_id", "101");
    lg_row_set(ag[1], "state", "running");
    lg_row_t *rs[1] = {lg_row_new()};
    lg_row_set(rs[0], "agent_id", "100");
    lg_row_set(rs[0], "direction", "read");
    lg_row_set(rs[0], "ios", "700");
    lg_row_set(rs[0], "lat_n", "700");
    lg_row_set(rs[0], "hist", NULL);
    t.agents = ag;
    t.nagents = 2;
    t.results = rs;
    t.nresults = 1;
    assert_int_equal(lg__sched_take_up(c, &t), 0);
    assert_int_equal(c->cur.phase, PH_RUNNING);
    assert_int_equal(c->cur.run_id, 16);
    assert_true(s_tx_find("reset stray runs") >= 0);
    lg__sched_on_agent(c, 1); /* it comes back */
    s_result(c, 1, 16, 300, 5);
    s_answer_count(c, 5);
    long k = s_tx_find("finish run 16");
    assert_true(k >= 0);
    assert_true(s_tx_has((size_t)k, "UPDATE lg.run SET state = $2", "done"));
    lg_row_destroy(&t.run);
    lg_row_destroy(&ag[0]);
    lg_row_destroy(&ag[1]);
    lg_row_destroy(&rs[0]);
    s_ctrl_destroy(&c);
}

/* A paced search probe on two agents: the offered rate is split over all their threads; its
 * end takes the search's next step in the same transaction (a step after the run's state), and
 * a curve's base sets its curve's rates there too. */
static void test_search_probe(void **state)
{
    (void)state;
    lg_ctrl_t *c = s_ctrl(2);
    W.phase = "search";
    W.search_id = "4";
    W.probe = "2";
    W.rate_total = "1001";
    s_answer_next(c, NX_RUN, 30, NULL);
    s_tx_end(c, (size_t)s_tx_find("start run 30"), 0);
    size_t prepares = 0;
    for (size_t i = 0; i < W.nmsgs; i++)
        if (W.msgs[i].body == LG__ENVELOPE__BODY_PREPARE && W.msgs[i].run_id == 30) {
            assert_int_equal(W.msgs[i].rate_iops, 501); /* 1001 over 2 threads, rounded */
            prepares++;
        }
    assert_int_equal(prepares, 2);
    Lg__Prepared p = LG__PREPARED__INIT;
    p.run_id = 30;
    lg__sched_on_prepared(c, 0, &p);
    lg__sched_on_prepared(c, 1, &p);
    s_result(c, 0, 30, 2500, 5);
    s_result(c, 1, 30, 2500, 5);
    s_answer_count(c, 5);
    long k = s_tx_find("finish run 30");
    assert_true(k >= 0);
    /* the merged row (a step), the run's state, the search's step */
    assert_int_equal(lg_tx_count(W.txs[k].t), 3);
    assert_null(lg_tx_sql_at(W.txs[k].t, 0, NULL, NULL));
    assert_true(s_tx_has((size_t)k, "UPDATE lg.run SET state = $2", "done"));
    assert_null(lg_tx_sql_at(W.txs[k].t, 2, NULL, NULL));
    s_ctrl_destroy(&c);

    /* an unpaced run that is a curve's base */
    c = s_ctrl(1);
    W.curve_base_of = "t";
    s_answer_next(c, NX_RUN, 31, NULL);
    s_tx_end(c, (size_t)s_tx_find("start run 31"), 0);
    for (size_t i = 0; i < W.nmsgs; i++)
        if (W.msgs[i].body == LG__ENVELOPE__BODY_PREPARE)
            assert_int_equal(W.msgs[i].rate_iops, 0);
    p.run_id = 31;
    lg__sched_on_prepared(c, 0, &p);
    s_result(c, 0, 31, 2500, 5);
    s_answer_count(c, 5);
    k = s_tx_find("finish run 31");
    assert_true(k >= 0);
    assert_true(s_tx_has((size_t)k, "UPDATE lg.run c SET rate_total", "31"));
    assert_true(s_tx_has((size_t)k, "UPDATE lg.run SET state = 'skipped'", "31"));
    s_ctrl_destroy(&c);
}

/* Preconditioning to steady state: rounds of the agents' summed samples; once the window is
 * steady every agent is stopped, and the run records that it was reached and after how many
 * rounds. */
static void test_steady_state(void **state)
{
    (void)state;
    lg_ctrl_t *c = s_ctrl(2);
    W.phase = "steady-state";
    W.round_s = "1";
    s_answer_next(c, NX_RUN, 18, NULL);
    s_tx_end(c, (size_t)s_tx_find("start run 18"), 0);
    Lg__Prepared p = LG__PREPARED__INIT;
    p.run_id = 18;
    lg__sched_on_prepared(c, 0, &p);
    lg__sched_on_prepared(c, 1, &p);
    uint64_t seq = 0;
    while (s_msgs(LG__ENVELOPE__BODY_STOP, 18) == 0 && seq < 60) {
        seq++;
        for (size_t a = 0; a < 2; a++) {
            Lg__DirStats d = LG__DIR_STATS__INIT;
            d.ios = 5000 + (seq % 2) * 10; /* flat within 0.2% */
            Lg__DirStats *dp = &d;
            Lg__Sample smp = LG__SAMPLE__INIT;
            smp.run_id = 18;
            smp.seq = seq;
            smp.interval_ms = 1000;
            smp.n_dirs = 1;
            smp.dirs = &dp;
            lg__sched_on_sample(c, a, &smp);
        }
    }
    assert_int_equal(s_msgs(LG__ENVELOPE__BODY_STOP, 18), 2);
    assert_true(c->cur.ss_reached);
    assert_true(seq >= 5 && seq < 60); /* not before a full window */
    s_result(c, 0, 18, 5000 * seq, seq);
    s_result(c, 1, 18, 5000 * seq, seq);
    s_answer_count(c, seq);
    long k = s_tx_find("finish run 18");
    assert_true(k >= 0);
    assert_true(s_tx_has((size_t)k, "ss_reached = $4", "t"));
    char rounds[16];
    snprintf(rounds, sizeof rounds, "%llu", (unsigned long long)seq);
    assert_true(s_tx_has((size_t)k, "ss_rounds = $5", rounds));
    s_ctrl_destroy(&c);
}

/* Late samples: of the current run's agents, yes; of a pair never seen, only once the store has
 * checked it (until then not acknowledged, so the agent resends). */
static void test_sample_ok(void **state)
{
    (void)state;
    lg_ctrl_t *c = s_ctrl(2);
    s_start(c, 17);
    assert_int_equal(lg__sched_sample_ok(c, 0, 17), 1);
    assert_int_equal(lg__sched_sample_ok(c, 0, 99), -1);
    fjob_t j = s_take_job(lg__sched_known_work);
    assert_non_null(j.job);
    assert_int_equal(lg__sched_sample_ok(c, 0, 99), -1); /* being checked: no second job */
    assert_false(s_has_job(lg__sched_known_work));
    j.done(c, j.job, 0, ""); /* found = 0: it took no part */
    assert_int_equal(lg__sched_sample_ok(c, 0, 99), 0);
    s_ctrl_destroy(&c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_run_done),
        cmocka_unit_test(test_result_refused_said_once),
        cmocka_unit_test(test_agent_error_utf8),
        cmocka_unit_test(test_retry_transient),
        cmocka_unit_test(test_start_refused),
        cmocka_unit_test(test_waits_for_agents),
        cmocka_unit_test(test_waits_for_busy_agent),
        cmocka_unit_test(test_agent_lost),
        cmocka_unit_test(test_agent_replaced),
        cmocka_unit_test(test_abort),
        cmocka_unit_test(test_pause_and_gates),
        cmocka_unit_test(test_deadline_pauses_while_away),
        cmocka_unit_test(test_waits_for_samples),
        cmocka_unit_test(test_take_up),
        cmocka_unit_test(test_steady_state),
        cmocka_unit_test(test_search_probe),
        cmocka_unit_test(test_sample_ok),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
