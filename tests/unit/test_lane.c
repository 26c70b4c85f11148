/* test_lane: lg_lane (sys/lg_lane.c) on a real libuv loop and real threads: jobs run in order on
 * one thread of the lane's own (not the loop's, not libuv's pool), each handed back once with
 * status 0; the loop stays alive while a job is on its way and not when the lane is idle; a lane
 * keeps working while every thread of libuv's shared pool is held (what the controller's writer
 * and store need: a stuck COPY must not starve them); destroy waits for the job running, cancels
 * the queued ones (UV_ECANCELED) and may be called from a job's own after-callback; refusals; and
 * a loop that closes with everything freed (ASan). */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "lg_lane.h"
#include "lg_util.h"

#define NJOBS 200

typedef struct {
    uv_work_t req[NJOBS];
    int ran[NJOBS];   /* the order the lane ran them, by index (lane thread) */
    int nran;         /* lane thread; read on the loop after the after-callback */
    int after[NJOBS]; /* status + 1 of each after-callback (loop thread) */
    int nafter;
    int order_ok;
    pthread_t lane_thread;
    int same_thread;
    pthread_t loop_thread;
    int started;                 /* a work has begun (atomic) */
    int sleep_ms;                /* each work sleeps this long */
    lg_lane_t *destroy_in_after; /* destroyed from the first after-callback */
} state_t;

static state_t *s_st;

static void s_work(uv_work_t *req)
{
    state_t *st = s_st;
    int i = (int)(intptr_t)req->data;
    __atomic_store_n(&st->started, 1, __ATOMIC_SEQ_CST);
    if (st->sleep_ms)
        usleep((useconds_t)st->sleep_ms * 1000);
    if (st->nran == 0)
        st->lane_thread = pthread_self();
    else if (!pthread_equal(st->lane_thread, pthread_self()))
        st->same_thread = 0;
    st->ran[st->nran++] = i;
}

static void s_after(uv_work_t *req, int status)
{
    state_t *st = s_st;
    int i = (int)(intptr_t)req->data;
    assert_true(pthread_equal(st->loop_thread, pthread_self()));
    assert_int_equal(st->after[i], 0); /* once */
    st->after[i] = status + 1000;
    if (status == 0 && st->nafter != i)
        st->order_ok = 0;
    st->nafter++;
    if (st->destroy_in_after)
        lg_lane_destroy(&st->destroy_in_after);
}

static state_t *s_new(void)
{
    state_t *st = calloc(1, sizeof *st);
    assert_non_null(st);
    st->order_ok = st->same_thread = 1;
    st->loop_thread = pthread_self();
    for (int i = 0; i < NJOBS; i++)
        st->req[i].data = (void *)(intptr_t)i;
    s_st = st;
    return st;
}

static void s_close_loop(uv_loop_t *loop)
{
    uv_run(loop, UV_RUN_DEFAULT); /* close callbacks */
    assert_int_equal(uv_loop_close(loop), 0);
}

/* In order, on one thread that is neither the loop's, each handed back once with 0; the loop
 * runs until the last is handed back and then ends by itself (the idle lane holds it not). */
static void test_order(void **state)
{
    (void)state;
    uv_loop_t loop;
    uv_loop_init(&loop);
    state_t *st = s_new();
    lg_lane_t *l = lg_lane_new(&loop, "test-lane");
    assert_non_null(l);
    assert_int_equal(uv_run(&loop, UV_RUN_NOWAIT), 0); /* idle: nothing keeps the loop */
    for (int i = 0; i < NJOBS; i++)
        assert_int_equal(lg_lane_queue(l, &st->req[i], s_work, s_after), 0);
    assert_int_equal(lg_lane_pending(l), NJOBS);
    assert_int_equal(uv_run(&loop, UV_RUN_DEFAULT), 0); /* returns once all are handed back */
    assert_int_equal(st->nafter, NJOBS);
    assert_int_equal(lg_lane_pending(l), 0);
    for (int i = 0; i < NJOBS; i++) {
        assert_int_equal(st->ran[i], i);
        assert_int_equal(st->after[i], 1000);
    }
    assert_true(st->order_ok);
    assert_true(st->same_thread);
    assert_false(pthread_equal(st->lane_thread, st->loop_thread));
    /* and again after an idle spell: the lane's thread waits, it does not end */
    st->nran = st->nafter = 0;
    memset(st->after, 0, sizeof st->after);
    for (int i = 0; i < 3; i++)
        assert_int_equal(lg_lane_queue(l, &st->req[i], s_work, s_after), 0);
    assert_int_equal(uv_run(&loop, UV_RUN_DEFAULT), 0);
    assert_int_equal(st->nafter, 3);
    lg_lane_destroy(&l);
    assert_null(l);
    lg_lane_destroy(&l); /* no-op on NULL */
    s_close_loop(&loop);
    free(st);
}

/* libuv's shared pool, every thread held: a lane's job still runs and is handed back. */
static pthread_mutex_t s_hold_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t s_hold_cv = PTHREAD_COND_INITIALIZER;
static int s_hold = 1, s_held;

static void s_hold_work(uv_work_t *req)
{
    (void)req;
    pthread_mutex_lock(&s_hold_mu);
    s_held++;
    pthread_cond_broadcast(&s_hold_cv);
    while (s_hold)
        pthread_cond_wait(&s_hold_cv, &s_hold_mu);
    pthread_mutex_unlock(&s_hold_mu);
}

static void s_hold_after(uv_work_t *req, int status)
{
    (void)req;
    assert_int_equal(status, 0);
}

static void s_lane_done_stop(uv_work_t *req, int status)
{
    s_after(req, status);
    /* the lane's job came back while the pool was held: now let the pool go */
    pthread_mutex_lock(&s_hold_mu);
    s_hold = 0;
    pthread_cond_broadcast(&s_hold_cv);
    pthread_mutex_unlock(&s_hold_mu);
}

static void test_pool_held(void **state)
{
    (void)state;
    uv_loop_t loop;
    uv_loop_init(&loop);
    state_t *st = s_new();
    enum { POOL = 4 }; /* libuv's default UV_THREADPOOL_SIZE; the test's environment sets none */
    uv_work_t hold[POOL];
    for (int i = 0; i < POOL; i++)
        assert_int_equal(uv_queue_work(&loop, &hold[i], s_hold_work, s_hold_after), 0);
    pthread_mutex_lock(&s_hold_mu);
    while (s_held < POOL)
        pthread_cond_wait(&s_hold_cv, &s_hold_mu); /* every pool thread is now held */
    pthread_mutex_unlock(&s_hold_mu);
    lg_lane_t *l = lg_lane_new(&loop, "test-lane");
    assert_non_null(l);
    assert_int_equal(lg_lane_queue(l, &st->req[0], s_work, s_lane_done_stop), 0);
    assert_int_equal(uv_run(&loop, UV_RUN_DEFAULT), 0);
    assert_int_equal(st->after[0], 1000);
    assert_int_equal(s_hold, 0); /* released by the lane's after-callback, not by a timeout */
    lg_lane_destroy(&l);
    s_close_loop(&loop);
    free(st);
}

/* destroy with one job running and more queued: the running one ends and comes back with 0,
 * the queued ones with UV_ECANCELED, all before destroy returns; queueing after is refused. */
static void test_destroy_cancels(void **state)
{
    (void)state;
    uv_loop_t loop;
    uv_loop_init(&loop);
    state_t *st = s_new();
    st->sleep_ms = 200;
    lg_lane_t *l = lg_lane_new(&loop, "test-lane");
    assert_non_null(l);
    for (int i = 0; i < 4; i++)
        assert_int_equal(lg_lane_queue(l, &st->req[i], s_work, s_after), 0);
    while (!__atomic_load_n(&st->started, __ATOMIC_SEQ_CST))
        usleep(1000); /* the first is running (200 ms), the rest wait */
    lg_lane_destroy(&l);
    assert_int_equal(st->nran, 1);
    assert_int_equal(st->nafter, 4);
    assert_int_equal(st->after[0], 1000);
    for (int i = 1; i < 4; i++)
        assert_int_equal(st->after[i], 1000 + UV_ECANCELED);
    s_close_loop(&loop);
    free(st);
}

/* destroyed from its own after-callback, with more done and queued behind it */
static void test_destroy_in_after(void **state)
{
    (void)state;
    uv_loop_t loop;
    uv_loop_init(&loop);
    state_t *st = s_new();
    lg_lane_t *l = lg_lane_new(&loop, "test-lane");
    assert_non_null(l);
    st->destroy_in_after = l;
    for (int i = 0; i < 50; i++)
        assert_int_equal(lg_lane_queue(l, &st->req[i], s_work, s_after), 0);
    assert_int_equal(uv_run(&loop, UV_RUN_DEFAULT), 0);
    assert_null(st->destroy_in_after);
    assert_int_equal(st->nafter, 50); /* each handed back once: run (0) or cancelled */
    int ok = 0, cancelled = 0;
    for (int i = 0; i < 50; i++) {
        if (st->after[i] == 1000)
            ok++;
        else if (st->after[i] == 1000 + UV_ECANCELED)
            cancelled++;
    }
    assert_int_equal(ok, st->nran);
    assert_int_equal(ok + cancelled, 50);
    s_close_loop(&loop);
    free(st);
}

static void test_refusals(void **state)
{
    (void)state;
    uv_loop_t loop;
    uv_loop_init(&loop);
    state_t *st = s_new();
    lg_lane_t *l = lg_lane_new(&loop, NULL);
    assert_non_null(l);
    assert_int_equal(lg_lane_queue(NULL, &st->req[0], s_work, s_after), UV_EINVAL);
    assert_int_equal(lg_lane_queue(l, NULL, s_work, s_after), UV_EINVAL);
    assert_int_equal(lg_lane_queue(l, &st->req[0], NULL, s_after), UV_EINVAL);
    assert_int_equal(lg_lane_queue(l, &st->req[0], s_work, NULL), UV_EINVAL);
    assert_int_equal(lg_lane_pending(NULL), 0);
    lg_lane_destroy(&l);
    s_close_loop(&loop);
    assert_int_equal(st->nafter, 0);
    free(st);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_order),           cmocka_unit_test(test_pool_held),
        cmocka_unit_test(test_destroy_cancels), cmocka_unit_test(test_destroy_in_after),
        cmocka_unit_test(test_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
