/* store.c: see store.h. One job on the pool at a time keeps the order of state changes and needs
 * one connection only; the queue is a singly linked FIFO. */
#include "store.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db.h"
#include "lg_error.h"
#include "lg_log.h"

typedef struct job {
    struct job *next;
    lg_store_work_fn work;
    lg_store_done_fn done;
    void *arg;
    void *data;
} job_t;

struct lg_store {
    uv_loop_t *loop;
    char *conninfo;
    PGconn *db;          /* used on the pool thread only */
    uv_work_t req;
    job_t *head, *tail;  /* queued */
    job_t *running;
    size_t n;
    int rc;
    char err[1024];
    int destroyed;
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
    return s;
}

static void s_free(lg_store_t *s)
{
    if (s->db)
        PQfinish(s->db);
    free(s->conninfo);
    free(s);
}

static void s_work(uv_work_t *req)
{
    lg_store_t *s = req->data;
    job_t *j = s->running;
    s->err[0] = 0;
    if (s->db && PQstatus(s->db) != CONNECTION_OK) {
        PQreset(s->db);
        if (PQstatus(s->db) != CONNECTION_OK) {
            PQfinish(s->db);
            s->db = NULL;
        }
    }
    if (!s->db) {
        s->db = lg_db_connect(s->conninfo, s->err, sizeof s->err);
        if (!s->db) {
            s->rc = LG_EDB;
            return;
        }
    }
    s->rc = j->work(s->db, j->data, s->err, sizeof s->err);
    /* A connection that died while idle (the server restarted) says so only when used: then
     * the job's transaction never happened, so it runs once more on a new connection. */
    if (s->rc && PQstatus(s->db) == CONNECTION_BAD) {
        PQreset(s->db);
        if (PQstatus(s->db) == CONNECTION_OK) {
            s->err[0] = 0;
            s->rc = j->work(s->db, j->data, s->err, sizeof s->err);
        }
    }
}

static void s_next(lg_store_t *s);

static void s_after(uv_work_t *req, int status)
{
    lg_store_t *s = req->data;
    job_t *j = s->running;
    s->running = NULL;
    s->n--;
    int rc = status ? LG_ESTATE : s->rc;
    j->done(j->arg, j->data, rc, rc ? (s->err[0] ? s->err : lg_strerror(rc)) : "");
    free(j);
    if (s->destroyed) {
        if (!s->running)
            s_free(s);
        return;
    }
    s_next(s);
}

static void s_next(lg_store_t *s)
{
    if (s->running || !s->head)
        return;
    job_t *j = s->head;
    s->head = j->next;
    if (!s->head)
        s->tail = NULL;
    s->running = j;
    int rc = uv_queue_work(s->loop, &s->req, s_work, s_after);
    if (rc) {
        s->running = NULL;
        s->n--;
        char why[128];
        snprintf(why, sizeof why, "could not queue database work: %s", uv_strerror(rc));
        j->done(j->arg, j->data, LG_ESTATE, why);
        free(j);
    }
}

int lg_store_submit(lg_store_t *s, lg_store_work_fn work, lg_store_done_fn done, void *arg,
                    void *job)
{
    job_t *j = calloc(1, sizeof *j);
    if (!j)
        return -ENOMEM;
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

size_t lg_store_pending(const lg_store_t *s) { return s->n; }
int lg_store_busy(const lg_store_t *s) { return s->running != NULL; }

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
    if (!s->running)
        s_free(s);
}
