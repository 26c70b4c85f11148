/* lg_lane.c: a thread of one's own for a libuv loop's blocking work. See lg_lane.h. */
#include "lg_lane.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct job {
    struct job *next;
    uv_work_t *req;
    uv_work_cb work;
    uv_after_work_cb after;
} job_t;

typedef struct {
    job_t *head, *tail;
} list_t;

struct lg_lane {
    uv_loop_t *loop;
    uv_async_t async; /* the thread's "done" to the loop */
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    list_t todo; /* under mu */
    list_t done; /* under mu */
    int stop;    /* under mu */
    size_t out;  /* queued and not yet handed back (the loop's) */
    int closing; /* the loop's */
    char name[16];
};

static void s_push(list_t *l, job_t *j)
{
    j->next = NULL;
    if (l->tail)
        l->tail->next = j;
    else
        l->head = j;
    l->tail = j;
}

static job_t *s_take_all(list_t *l)
{
    job_t *j = l->head;
    l->head = l->tail = NULL;
    return j;
}

static void *s_main(void *arg)
{
    lg_lane_t *l = arg;
    sigset_t all;
    sigfillset(&all); /* signals are the loop thread's (uv_signal_t) */
    pthread_sigmask(SIG_BLOCK, &all, NULL);
    pthread_setname_np(pthread_self(), l->name);
    pthread_mutex_lock(&l->mu);
    for (;;) {
        while (!l->stop && !l->todo.head)
            pthread_cond_wait(&l->cv, &l->mu);
        if (l->stop)
            break;
        job_t *j = l->todo.head;
        l->todo.head = j->next;
        if (!l->todo.head)
            l->todo.tail = NULL;
        pthread_mutex_unlock(&l->mu);
        j->work(j->req);
        pthread_mutex_lock(&l->mu);
        s_push(&l->done, j);
        uv_async_send(&l->async);
    }
    pthread_mutex_unlock(&l->mu);
    return NULL;
}

/* Hand jobs back to the loop: AFTER(req, status) each, in order. */
static void s_hand_back(lg_lane_t *l, job_t *j, int status)
{
    while (j) {
        job_t *next = j->next;
        l->out--;
        j->after(j->req, status);
        free(j);
        j = next;
    }
    if (!l->out && !l->closing)
        uv_unref((uv_handle_t *)&l->async);
}

static void s_on_done(uv_async_t *h)
{
    lg_lane_t *l = h->data;
    pthread_mutex_lock(&l->mu);
    job_t *j = s_take_all(&l->done);
    pthread_mutex_unlock(&l->mu);
    s_hand_back(l, j, 0);
}

static void s_on_close(uv_handle_t *h)
{
    lg_lane_t *l = h->data;
    pthread_cond_destroy(&l->cv);
    pthread_mutex_destroy(&l->mu);
    free(l);
}

lg_lane_t *lg_lane_new(uv_loop_t *loop, const char *name)
{
    lg_lane_t *l = calloc(1, sizeof *l);
    if (!l)
        return NULL;
    l->loop = loop;
    snprintf(l->name, sizeof l->name, "%s", name ? name : "lg-lane");
    if (pthread_mutex_init(&l->mu, NULL)) {
        free(l);
        errno = EAGAIN;
        return NULL;
    }
    pthread_cond_init(&l->cv, NULL);
    int rc = uv_async_init(loop, &l->async, s_on_done);
    if (rc == 0) {
        l->async.data = l;
        rc = pthread_create(&l->thread, NULL, s_main, l);
        if (rc) {
            /* the handle is the loop's until it is closed: l goes with it (s_on_close) */
            l->closing = 1;
            uv_close((uv_handle_t *)&l->async, s_on_close);
            errno = rc;
            return NULL;
        }
        uv_unref((uv_handle_t *)&l->async); /* idle: the loop need not wait for it */
        return l;
    }
    pthread_cond_destroy(&l->cv);
    pthread_mutex_destroy(&l->mu);
    free(l);
    errno = -rc;
    return NULL;
}

int lg_lane_queue(lg_lane_t *l, uv_work_t *req, uv_work_cb work, uv_after_work_cb after)
{
    if (!l || !req || !work || !after || l->closing)
        return UV_EINVAL;
    job_t *j = calloc(1, sizeof *j);
    if (!j)
        return UV_ENOMEM;
    j->req = req;
    j->work = work;
    j->after = after;
    if (!l->out++)
        uv_ref((uv_handle_t *)&l->async); /* a job on its way keeps the loop alive */
    pthread_mutex_lock(&l->mu);
    s_push(&l->todo, j);
    pthread_cond_signal(&l->cv);
    pthread_mutex_unlock(&l->mu);
    return 0;
}

size_t lg_lane_pending(const lg_lane_t *l)
{
    return l ? l->out : 0;
}

void lg_lane_destroy(lg_lane_t **self_p)
{
    lg_lane_t *l = self_p ? *self_p : NULL;
    if (!l)
        return;
    *self_p = NULL;
    if (l->closing)
        return;
    l->closing = 1;
    pthread_mutex_lock(&l->mu);
    l->stop = 1;
    job_t *cancelled = s_take_all(&l->todo);
    pthread_cond_signal(&l->cv);
    pthread_mutex_unlock(&l->mu);
    pthread_join(l->thread, NULL); /* the running job's end: its deadline bounds it */
    job_t *done = s_take_all(&l->done);
    s_hand_back(l, done, 0);
    s_hand_back(l, cancelled, UV_ECANCELED);
    uv_close((uv_handle_t *)&l->async, s_on_close);
}
