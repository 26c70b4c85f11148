/* lg_zsock.c: edge-triggered ZeroMQ sockets driven by a uv_poll_t. A wake-up reads at most
 * LG_ZSOCK_BUDGET messages and continues from a uv_idle_t, so that a flood on one socket leaves
 * room for timers and finished work (the sample writer's batches) between its slices. */
#include "lg_zsock.h"

#include <stdlib.h>
#include <zmq.h>

#include "lg_error.h"
#include "lg_log.h"
#include "lg_wire.h"

#define LG_ZSOCK_BUDGET 256

struct lg_zsock {
    uv_poll_t poll;
    uv_idle_t idle;
    void *zsock;
    int router;
    lg_zsock_msg_cb cb;
    void *arg;
    int draining;
    int again;
    int closing;
    int paused;
    int polling;
    int open_handles;
};

static void s_on_idle(uv_idle_t *h);

/* Read up to the budget; 1 if messages are still pending. */
static int s_drain_once(lg_zsock_t *s)
{
    for (int n = 0;; n++) {
        int events = 0;
        size_t sz = sizeof events;
        if (s->closing || s->paused ||
            zmq_getsockopt(s->zsock, ZMQ_EVENTS, &events, &sz) != 0)
            return 0;
        if (!(events & ZMQ_POLLIN))
            return 0;
        if (n == LG_ZSOCK_BUDGET)
            return 1;
        uint8_t id[LG_ID_MAX];
        size_t idlen = 0;
        Lg__Envelope *env = NULL;
        int rc = lg_wire_recv(s->zsock, s->router, id, &idlen, &env);
        if (rc == -EAGAIN)
            return 0;
        if (rc == 0)
            s->cb(s->arg, s->router ? id : NULL, idlen, env);
        else if (rc != LG_EPROTO)
            return 0;
    }
}

void lg_zsock_drain(lg_zsock_t *s)
{
    if (s->draining) {
        s->again = 1;
        return;
    }
    s->draining = 1;
    int more = 0;
    do {
        s->again = 0;
        more = s_drain_once(s);
    } while (s->again && !more && !s->closing && !s->paused);
    s->draining = 0;
    /* The readiness edge was consumed by ZMQ_EVENTS: what is left must be fetched without
     * waiting for another one. */
    if (more && !s->closing && !s->paused)
        uv_idle_start(&s->idle, s_on_idle);
}

static void s_on_idle(uv_idle_t *h)
{
    lg_zsock_t *s = h->data;
    uv_idle_stop(&s->idle);
    lg_zsock_drain(s);
}

static void s_on_poll(uv_poll_t *h, int status, int events)
{
    (void)status;
    (void)events;
    lg_zsock_drain(h->data);
}

int lg_zsock_new(uv_loop_t *loop, void *zsock, int router, lg_zsock_msg_cb cb, void *arg,
                 lg_zsock_t **out)
{
    lg_zsock_t *s = calloc(1, sizeof *s);
    if (!s)
        return -ENOMEM;
    s->zsock = zsock;
    s->router = router;
    s->cb = cb;
    s->arg = arg;
    int fd;
    size_t sz = sizeof fd;
    if (zmq_getsockopt(zsock, ZMQ_FD, &fd, &sz) != 0) {
        int e = -zmq_errno();
        free(s);
        return e;
    }
    int rc = uv_poll_init(loop, &s->poll, fd);
    if (rc) {
        free(s);
        return rc;
    }
    uv_idle_init(loop, &s->idle);
    s->poll.data = s->idle.data = s;
    s->open_handles = 2;
    rc = uv_poll_start(&s->poll, UV_READABLE, s_on_poll);
    if (rc) {
        lg_zsock_close(&s);
        return rc;
    }
    s->polling = 1;
    *out = s;
    lg_zsock_drain(s);
    return 0;
}

void lg_zsock_pause(lg_zsock_t *s, int paused)
{
    if (s->closing || s->paused == !!paused)
        return;
    s->paused = !!paused;
    if (s->paused) {
        /* Not reading ZMQ_EVENTS leaves ZMQ_FD readable: stop polling, or the loop spins. */
        uv_poll_stop(&s->poll);
        uv_idle_stop(&s->idle);
        s->polling = 0;
        return;
    }
    if (uv_poll_start(&s->poll, UV_READABLE, s_on_poll) == 0)
        s->polling = 1;
    lg_zsock_drain(s);
}

int lg_zsock_paused(const lg_zsock_t *s) { return s->paused; }

int lg_zsock_send(lg_zsock_t *s, const uint8_t *id, size_t idlen, Lg__Envelope *env)
{
    int rc = lg_wire_send(s->zsock, id, idlen, env);
    lg_zsock_drain(s);
    return rc;
}

int lg_zsock_send_raw(lg_zsock_t *s, const uint8_t *id, size_t idlen, const uint8_t *buf,
                      size_t len)
{
    int rc = lg_wire_send_raw(s->zsock, id, idlen, buf, len);
    lg_zsock_drain(s);
    return rc;
}

void *lg_zsock_socket(lg_zsock_t *s) { return s->zsock; }

static void s_on_close(uv_handle_t *h)
{
    lg_zsock_t *s = h->data;
    if (--s->open_handles == 0)
        free(s);
}

void lg_zsock_close(lg_zsock_t **self_p)
{
    lg_zsock_t *s = *self_p;
    if (!s)
        return;
    *self_p = NULL;
    s->closing = 1;
    uv_poll_stop(&s->poll);
    uv_idle_stop(&s->idle);
    uv_close((uv_handle_t *)&s->poll, s_on_close);
    uv_close((uv_handle_t *)&s->idle, s_on_close);
}
