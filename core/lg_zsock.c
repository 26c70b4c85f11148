/* lg_zsock.c: edge-triggered ZeroMQ sockets driven by a uv_poll_t. */
#include "lg_zsock.h"

#include <stdlib.h>
#include <zmq.h>

#include "lg_error.h"
#include "lg_log.h"
#include "lg_wire.h"

struct lg_zsock {
    uv_poll_t poll; /* first: the close callback casts back */
    void *zsock;
    int router;
    lg_zsock_msg_cb cb;
    void *arg;
    int draining;
    int again;
    int closing;
};

static void s_drain_once(lg_zsock_t *s)
{
    for (;;) {
        int events = 0;
        size_t sz = sizeof events;
        if (s->closing || zmq_getsockopt(s->zsock, ZMQ_EVENTS, &events, &sz) != 0)
            return;
        if (!(events & ZMQ_POLLIN))
            return;
        uint8_t id[LG_ID_MAX];
        size_t idlen = 0;
        Lg__Envelope *env = NULL;
        int rc = lg_wire_recv(s->zsock, s->router, id, &idlen, &env);
        if (rc == -EAGAIN)
            return;
        if (rc == 0)
            s->cb(s->arg, s->router ? id : NULL, idlen, env);
        else if (rc != LG_EPROTO)
            return;
    }
}

void lg_zsock_drain(lg_zsock_t *s)
{
    if (s->draining) {
        s->again = 1;
        return;
    }
    s->draining = 1;
    do {
        s->again = 0;
        s_drain_once(s);
    } while (s->again && !s->closing);
    s->draining = 0;
}

static void s_on_poll(uv_poll_t *h, int status, int events)
{
    (void)status;
    (void)events;
    lg_zsock_drain((lg_zsock_t *)h);
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
    if (rc == 0)
        rc = uv_poll_start(&s->poll, UV_READABLE, s_on_poll);
    if (rc) {
        free(s);
        return rc;
    }
    *out = s;
    lg_zsock_drain(s);
    return 0;
}

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

static void s_on_close(uv_handle_t *h) { free(h); }

void lg_zsock_close(lg_zsock_t **self_p)
{
    lg_zsock_t *s = *self_p;
    if (!s)
        return;
    *self_p = NULL;
    s->closing = 1;
    uv_poll_stop(&s->poll);
    uv_close((uv_handle_t *)&s->poll, s_on_close);
}
