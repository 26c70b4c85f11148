/* store.c: see store.h. One job at a time on the store's own thread (sys/lg_lane.h) keeps the order
 * of state changes and needs one connection only; the queue is a singly linked FIFO. */
#include "store.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db.h"
#include "lg_error.h"
#include "lg_lane.h"
#include "lg_log.h"
#include "lg_util.h"

typedef struct job {
    struct job *next;
    lg_store_work_fn work;
    lg_store_done_fn done;
    void *arg;
    void *data;
    int retry; /* a state change: again, after a pause, while the database is unreachable */
} job_t;

#define RETRY_FIRST_MS 500
#define RETRY_MAX_MS 5000

struct lg_store {
    uv_loop_t *loop;
    char *conninfo;
    PGconn *db; /* used on the lane's thread only */
    uv_work_t req;
    lg_lane_t *lane;    /* its thread of its own (sys/lg_lane.h) */
    job_t *head, *tail; /* queued */
    job_t *running;
    size_t n;
    int rc;
    int unreachable; /* the last job found no connection (set on the lane's thread) */
    int held;        /* lg_store_hold: no job starts any more (the controller is stopping) */
    uint64_t running_since_ms; /* when the running job started */
    char err[2048];
    uv_timer_t retry; /* the pause before a state change is tried again */
    int waiting;      /* the retry timer runs: nothing starts meanwhile */
    uint64_t pause_ms;
    uint64_t away_since_ms;
    int destroyed, closed;
};

lg_store_t *lg_store_new(uv_loop_t *loop, const char *conninfo)
{
    lg_store_t *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->loop = loop;
    s->conninfo = strdup(conninfo ? conninfo : "");
    if (!s->conninfo) {
        free(s);
        return NULL;
    }
    s->req.data = s;
    s->lane = lg_lane_new(loop, "lg-store");
    if (!s->lane) {
        free(s->conninfo);
        free(s);
        return NULL;
    }
    uv_timer_init(loop, &s->retry);
    s->retry.data = s;
    return s;
}

static void s_store_destroy(lg_store_t **self_p)
{
    lg_store_t *s = self_p ? *self_p : NULL;
    if (!s)
        return;
    *self_p = NULL;
    lg_lane_destroy(&s->lane); /* idle: nothing runs once the store is closed */
    lg_db_close(&s->db);
    free(s->conninfo);
    free(s);
}

static void s_work(uv_work_t *req)
{
    lg_store_t *s = req->data;
    job_t *j = s->running;
    s->err[0] = 0;
    s->unreachable = 0;
    if (s->db && !lg_db_connected(s->db)) { /* made anew: bounded, interruptible */
        lg_db_close(&s->db);
    }
    if (!s->db) {
        s->db = lg_db_connect(s->conninfo, s->err, sizeof s->err);
        if (!s->db) {
            s->rc = LG_EDB;
            s->unreachable = 1;
            return;
        }
    }
    s->rc = j->work(s->db, j->data, s->err, sizeof s->err);
    /* A connection that died while idle (the server restarted) says so only when used: then
     * the job's transaction never happened, so it runs once more on a new connection. */
    if (s->rc && s->rc != LG_ETIMEOUT && !lg_db_connected(s->db)) {
        char err[sizeof s->err];
        PGconn *db = lg_db_connect(s->conninfo, err, sizeof err);
        if (db) {
            lg_db_close(&s->db);
            s->db = db;
            s->err[0] = 0;
            s->rc = j->work(s->db, j->data, s->err, sizeof s->err);
        }
    }
    /* a statement that timed out: the database is taken for away (its connection was shut) */
    if (s->rc && (s->rc == LG_ETIMEOUT || !lg_db_connected(s->db)))
        s->unreachable = 1;
}

static void s_next(lg_store_t *s);

static void s_on_retry(uv_timer_t *t)
{
    lg_store_t *s = t->data;
    s->waiting = 0;
    s_next(s);
}

static void s_after(uv_work_t *req, int status)
{
    lg_store_t *s = req->data;
    job_t *j = s->running;
    s->running = NULL;
    if (status == 0 && s->unreachable && !s->away_since_ms) {
        /* away since the job that found it so began: it has not answered since (a connect or a
         * statement that gave up took its timeout before saying so) */
        s->away_since_ms = s->running_since_ms ? s->running_since_ms : lg_mono_ms();
        lg_warn("the database is unreachable: %s", s->err);
    } else if (status == 0 && !s->unreachable && s->away_since_ms) {
        lg_info("the database is back after %.1f s",
                (double)(lg_mono_ms() - s->away_since_ms) / 1000.0);
        s->away_since_ms = 0;
        s->pause_ms = 0;
    }
    if (status == 0 && s->unreachable && j->retry && !s->destroyed) {
        /* Not done, and nothing after it either: state changes land in order. */
        j->next = s->head;
        s->head = j;
        if (!s->tail)
            s->tail = j;
        s->pause_ms = s->pause_ms ? s->pause_ms * 2 : RETRY_FIRST_MS;
        if (s->pause_ms > RETRY_MAX_MS)
            s->pause_ms = RETRY_MAX_MS;
        s->waiting = 1;
        uv_timer_start(&s->retry, s_on_retry, s->pause_ms, 0);
        /* Reads and other jobs that can be asked again do not wait behind it: they fail now
         * ("unreachable"), so that lgctl hears why at once and agents resend later. */
        job_t *fail = NULL, **fail_tail = &fail, **pp = &j->next;
        s->tail = j;
        while (*pp) {
            job_t *x = *pp;
            if (x->retry) {
                s->tail = x;
                pp = &x->next;
                continue;
            }
            *pp = x->next;
            s->n--;
            x->next = NULL;
            *fail_tail = x;
            fail_tail = &x->next;
        }
        char why[1100];
        snprintf(why, sizeof why, "the database is unreachable: %s", s->err);
        while (fail) { /* the queue is whole again: their callbacks may queue more */
            job_t *x = fail;
            fail = x->next;
            x->done(x->arg, x->data, LG_EDB, why);
            free(x);
        }
        return;
    }
    s->n--;
    int rc = status ? LG_ESTATE : s->rc;
    j->done(j->arg, j->data, rc, rc ? (s->err[0] ? s->err : lg_strerror(rc)) : "");
    free(j);
    if (s->destroyed) {
        if (s->closed)
            s_store_destroy(&s);
        return;
    }
    s_next(s);
}

void lg_store_hold(lg_store_t *s)
{
    if (s)
        s->held = 1;
}

static void s_next(lg_store_t *s)
{
    if (s->held)
        return;
    if (s->running || !s->head || s->waiting || s->destroyed)
        return;
    job_t *j = s->head;
    s->head = j->next;
    if (!s->head)
        s->tail = NULL;
    s->running = j;
    s->running_since_ms = lg_mono_ms();
    int rc = lg_lane_queue(s->lane, &s->req, s_work, s_after);
    if (rc) {
        s->running = NULL;
        s->n--;
        char why[128];
        snprintf(why, sizeof why, "could not queue database work: %s", uv_strerror(rc));
        j->done(j->arg, j->data, LG_ESTATE, why);
        free(j);
    }
}

static int s_submit(lg_store_t *s, lg_store_work_fn work, lg_store_done_fn done, void *arg,
                    void *job, int retry)
{
    job_t *j = calloc(1, sizeof *j);
    if (!j)
        return -ENOMEM;
    j->retry = retry;
    j->work = work;
    j->done = done;
    j->arg = arg;
    j->data = job;
    if (s->tail)
        s->tail->next = j;
    else
        s->head = j;
    s->tail = j;
    s->n++;
    s_next(s);
    return 0;
}

int lg_store_submit(lg_store_t *s, lg_store_work_fn work, lg_store_done_fn done, void *arg,
                    void *job)
{
    return s_submit(s, work, done, arg, job, 0);
}

uint64_t lg_store_away_since(const lg_store_t *s)
{
    return s->away_since_ms;
}

/* ---- state changes: one transaction each ---- */

typedef struct step {
    struct step *next;
    char *sql; /* or fn */
    int n;
    char **params;
    lg_store_work_fn fn;
    void *data;
    void (*free_fn)(void *);
} step_t;

struct lg_tx {
    char what[160];
    step_t *head, *tail;
    int oom;
    lg_store_done_fn done;
    void *arg;
};

lg_tx_t *lg_tx_new(const char *what)
{
    lg_tx_t *t = calloc(1, sizeof *t);
    if (t)
        snprintf(t->what, sizeof t->what, "%s", what);
    return t;
}

static void s_step_add(lg_tx_t *t, step_t *st)
{
    if (t->tail)
        t->tail->next = st;
    else
        t->head = st;
    t->tail = st;
}

void lg_tx_sql(lg_tx_t *t, const char *sql, int n, const char *const *params)
{
    step_t *st = calloc(1, sizeof *st);
    if (!st || !(st->sql = strdup(sql)) ||
        (n && !(st->params = calloc((size_t)n, sizeof(char *))))) {
        if (st) {
            free(st->sql);
            free(st);
        }
        t->oom = 1;
        return;
    }
    st->n = n;
    s_step_add(t, st);
    for (int i = 0; i < n; i++)
        if (params[i] && !(st->params[i] = strdup(params[i])))
            t->oom = 1;
}

void lg_tx_step(lg_tx_t *t, lg_store_work_fn fn, void *data, void (*free_fn)(void *))
{
    step_t *st = calloc(1, sizeof *st);
    if (!st) {
        if (free_fn)
            free_fn(data);
        t->oom = 1;
        return;
    }
    st->fn = fn;
    st->data = data;
    st->free_fn = free_fn;
    s_step_add(t, st);
}

void lg_tx_destroy(lg_tx_t **self_p)
{
    lg_tx_t *t = self_p ? *self_p : NULL;
    if (!t)
        return;
    *self_p = NULL;
    step_t *st = t->head;
    while (st) {
        step_t *nx = st->next;
        for (int i = 0; i < st->n && st->params; i++)
            free(st->params[i]);
        free(st->params);
        free(st->sql);
        if (st->free_fn)
            st->free_fn(st->data);
        free(st);
        st = nx;
    }
    free(t);
}

const char *lg_tx_what(const lg_tx_t *t)
{
    return t->what;
}

size_t lg_tx_count(const lg_tx_t *t)
{
    size_t n = 0;
    for (const step_t *st = t->head; st; st = st->next)
        n++;
    return n;
}

const char *lg_tx_sql_at(const lg_tx_t *t, size_t i, int *nparams, const char *const **params)
{
    const step_t *st = t->head;
    while (st && i--)
        st = st->next;
    if (!st)
        return NULL;
    if (nparams)
        *nparams = st->n;
    if (params)
        *params = (const char *const *)st->params;
    return st->sql;
}

static int s_tx_work(PGconn *db, void *job, char *err, size_t errlen)
{
    lg_tx_t *t = job;
    int rc = lg_db_exec(db, "BEGIN", 0, NULL, NULL, err, errlen);
    for (step_t *st = t->head; rc == 0 && st; st = st->next)
        rc = st->fn ? st->fn(db, st->data, err, errlen)
                    : lg_db_exec(db, st->sql, st->n, (const char *const *)st->params, NULL, err,
                                 errlen);
    return lg_db_end(db, rc, err, errlen); /* COMMIT, or ROLLBACK keeping err */
}

static void s_tx_done(void *arg, void *job, int rc, const char *err)
{
    (void)arg;
    lg_tx_t *t = job;
    if (rc && rc != LG_ESTATE)
        lg_error("could not %s: %s", t->what, err);
    if (t->done)
        t->done(t->arg, NULL, rc, err);
    lg_tx_destroy(&t);
}

int lg_store_tx(lg_store_t *s, lg_tx_t *t, lg_store_done_fn done, void *arg)
{
    if (!t)
        return -ENOMEM;
    if (t->oom) {
        lg_error("could not %s: out of memory", t->what);
        lg_tx_destroy(&t);
        return -ENOMEM;
    }
    t->done = done;
    t->arg = arg;
    int rc = s_submit(s, s_tx_work, s_tx_done, NULL, t, 1);
    if (rc) {
        lg_error("could not %s: out of memory", t->what);
        lg_tx_destroy(&t);
    }
    return rc;
}

size_t lg_store_pending(const lg_store_t *s)
{
    return s->n;
}
int lg_store_busy(const lg_store_t *s)
{
    return s->running != NULL;
}
uint64_t lg_store_stalled_ms(const lg_store_t *s)
{
    return s && s->running ? lg_mono_ms() - s->running_since_ms : 0;
}

static void s_on_close(uv_handle_t *h)
{
    lg_store_t *s = h->data;
    s->closed = 1;
    if (!s->running)
        s_store_destroy(&s);
}

void lg_store_destroy(lg_store_t **self_p)
{
    lg_store_t *s = *self_p;
    if (!s)
        return;
    *self_p = NULL;
    s->destroyed = 1;
    while (s->head) {
        job_t *j = s->head;
        s->head = j->next;
        s->n--;
        j->done(j->arg, j->data, LG_ESTATE, "the controller is stopping");
        free(j);
    }
    s->tail = NULL;
    uv_timer_stop(&s->retry);
    uv_close((uv_handle_t *)&s->retry, s_on_close);
}
