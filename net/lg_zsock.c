/* lg_zsock.c: edge-triggered ZeroMQ sockets driven by a uv_poll_t. A wake-up reads at most
 * LG_ZSOCK_BUDGET messages and continues from a uv_idle_t, so that a flood on one socket leaves
 * room for timers and finished work (the sample writer's batches) between its slices. */
#include "lg_zsock.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zmq.h>

#include "lg_error.h"
#include "lg_log.h"
#include "lg_wire.h"

#define LG_ZSOCK_BUDGET 256
/* A ROUTER peer that sent this many malformed messages is dropped: everything else it sends is
 * discarded unread, so it times out like a lost peer. At most GARBAGE_PEERS are tracked. */
#define GARBAGE_LIMIT 64
#define GARBAGE_PEERS 1024

typedef struct {
    uint8_t id[LG_ID_MAX];
    size_t idlen;
    uint32_t count;
} garbage_t;

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
    int held; /* lg_zsock_hold: sends do not drain */
    int polling;
    int open_handles;
    garbage_t *garbage; /* peers that sent malformed messages (ROUTER only) */
    size_t ngarbage;
    uint64_t dropped;
    lg_wire_peer_t peer; /* of the message being handled */
};

int lg_zsock_pending(lg_zsock_t *s)
{
    int events = 0;
    size_t sz = sizeof events;
    return !s->closing && zmq_getsockopt(s->zsock, ZMQ_EVENTS, &events, &sz) == 0 &&
           (events & ZMQ_POLLIN);
}

static void s_on_idle(uv_idle_t *h);

static garbage_t *s_garbage_find(lg_zsock_t *s, const uint8_t *id, size_t idlen)
{
    for (size_t i = 0; i < s->ngarbage; i++)
        if (s->garbage[i].idlen == idlen && memcmp(s->garbage[i].id, id, idlen) == 0)
            return &s->garbage[i];
    return NULL;
}

/* Count a malformed message from a peer; drop the peer at the limit. */
static void s_garbage(lg_zsock_t *s, const uint8_t *id, size_t idlen)
{
    garbage_t *g = s_garbage_find(s, id, idlen);
    if (!g && s->ngarbage < GARBAGE_PEERS) {
        garbage_t *ng = realloc(s->garbage, (s->ngarbage + 1) * sizeof *ng);
        if (!ng)
            return;
        s->garbage = ng;
        g = &ng[s->ngarbage++];
        memcpy(g->id, id, idlen);
        g->idlen = idlen;
        g->count = 0;
    }
    if (g && ++g->count == GARBAGE_LIMIT) {
        s->dropped++;
        char name[2 * LG_ID_MAX + 1];
        size_t n = 0;
        for (size_t i = 0; i < idlen && n + 2 < sizeof name; i++)
            n += (size_t)snprintf(name + n, sizeof name - n,
                                  id[i] >= 0x21 && id[i] < 0x7f ? "%c" : "?", id[i]);
        lg_warn("dropped peer \"%s\": %u malformed messages; what it sends from now on is "
                "discarded",
                name, GARBAGE_LIMIT);
    }
}

static int s_is_dropped(lg_zsock_t *s, const uint8_t *id, size_t idlen)
{
    if (s->ngarbage == 0)
        return 0;
    garbage_t *g = s_garbage_find(s, id, idlen);
    return g && g->count >= GARBAGE_LIMIT;
}

uint64_t lg_zsock_dropped_peers(const lg_zsock_t *s)
{
    return s->dropped;
}

void lg_zsock_garbage(lg_zsock_t *s, const uint8_t *id, size_t idlen)
{
    if (s->router && idlen && idlen <= LG_ID_MAX)
        s_garbage(s, id, idlen);
}

/* Read up to the budget; 1 if messages are still pending. */
static int s_drain_once(lg_zsock_t *s)
{
    for (int n = 0;; n++) {
        int events = 0;
        size_t sz = sizeof events;
        if (s->closing || s->paused || zmq_getsockopt(s->zsock, ZMQ_EVENTS, &events, &sz) != 0)
            return 0;
        if (!(events & ZMQ_POLLIN))
            return 0;
        if (n == LG_ZSOCK_BUDGET)
            return 1;
        uint8_t id[LG_ID_MAX];
        size_t idlen = 0;
        Lg__Envelope *env = NULL;
        int rc = lg_wire_recv(s->zsock, s->router, id, &idlen, &s->peer, &env);
        if (rc == -EAGAIN)
            return 0;
        if (rc == LG_EPROTO && s->router && idlen)
            s_garbage(s, id, idlen);
        if (rc == 0 && s->router && s_is_dropped(s, id, idlen))
            lg_wire_envelope_destroy(&env);
        else if (rc == 0)
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
    zmq_fd_t fd; /* a SOCKET on Windows, where libuv polls sockets, not descriptors */
    size_t sz = sizeof fd;
    if (zmq_getsockopt(zsock, ZMQ_FD, &fd, &sz) != 0) {
        int e = -zmq_errno();
        free(s);
        return e;
    }
#ifdef _WIN32
    int rc = uv_poll_init_socket(loop, &s->poll, fd);
#else
    int rc = uv_poll_init(loop, &s->poll, fd);
#endif
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

int lg_zsock_paused(const lg_zsock_t *s)
{
    return s->paused;
}

int lg_zsock_send(lg_zsock_t *s, const uint8_t *id, size_t idlen, Lg__Envelope *env)
{
    int rc = lg_wire_send(s->zsock, id, idlen, env);
    if (!s->held)
        lg_zsock_drain(s);
    return rc;
}

int lg_zsock_send_raw(lg_zsock_t *s, const uint8_t *id, size_t idlen, const uint8_t *buf,
                      size_t len)
{
    int rc = lg_wire_send_raw(s->zsock, id, idlen, buf, len);
    if (!s->held)
        lg_zsock_drain(s);
    return rc;
}

void lg_zsock_hold(lg_zsock_t *s)
{
    s->held++;
}

void lg_zsock_release(lg_zsock_t *s)
{
    if (s->held > 0 && --s->held == 0)
        lg_zsock_drain(s);
}

void *lg_zsock_socket(lg_zsock_t *s)
{
    return s->zsock;
}

const lg_wire_peer_t *lg_zsock_peer(const lg_zsock_t *s)
{
    return &s->peer;
}

static void s_on_close(uv_handle_t *h)
{
    lg_zsock_t *s = h->data;
    if (--s->open_handles == 0) {
        free(s->garbage);
        free(s);
    }
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
