/* lg_zsock.h: a ZeroMQ socket inside a libuv loop.
 * ZMQ_FD signals only on edges, so every wake-up drains the socket until ZMQ_EVENTS says it is
 * empty, once right after the poll starts, and again after each send made outside the callback. */
#ifndef LG_ZSOCK_H
#define LG_ZSOCK_H

#include <stddef.h>
#include <stdint.h>
#include <uv.h>

#include "lg.pb-c.h"
#include "lg_wire.h"

typedef struct lg_zsock lg_zsock_t;

/* Called for each well-formed message. For a ROUTER, id/idlen is the peer identity. Takes
 * ownership of env: the callback must lg_wire_envelope_destroy() it. */
typedef void (*lg_zsock_msg_cb)(void *arg, const uint8_t *id, size_t idlen, Lg__Envelope *env);

/* Wrap the ZeroMQ socket zsock (not owned: the caller closes it after lg_zsock_close's callback
 * ran, i.e. after uv_run returns). Caller owns *out. Returns 0 or a negative error. */
int lg_zsock_new(uv_loop_t *loop, void *zsock, int router, lg_zsock_msg_cb cb, void *arg,
                 lg_zsock_t **out);
/* Send and then drain. Returns as lg_wire_send. */
int lg_zsock_send(lg_zsock_t *s, const uint8_t *id, size_t idlen, Lg__Envelope *env);
/* Send a packed Envelope and then drain. */
int lg_zsock_send_raw(lg_zsock_t *s, const uint8_t *id, size_t idlen, const uint8_t *buf,
                      size_t len);
/* Receive everything pending. Safe to call from inside the message callback (it does not
 * recurse: the running drain goes around once more). */
void lg_zsock_drain(lg_zsock_t *s);
/* A burst of sends (a batch of Welcomes, say) from outside the message callback: between hold
 * and release the sends do not drain; release drains once. Otherwise each send reads up to a
 * slice of what arrived, and a burst holds the loop, its timers too, for as many slices. Pairs
 * nest. */
void lg_zsock_hold(lg_zsock_t *s);
void lg_zsock_release(lg_zsock_t *s);
void *lg_zsock_socket(lg_zsock_t *s);
/* 1 when messages are waiting to be read (ZMQ_EVENTS): the reader is behind. */
int lg_zsock_pending(lg_zsock_t *s);
/* Who sent the message being handled (valid inside the message callback): its ZAP User-Id and
 * address. */
const lg_wire_peer_t *lg_zsock_peer(const lg_zsock_t *s);
/* Stop (paused != 0) or resume reading: backpressure while the reader cannot keep up. Messages
 * wait in ZeroMQ's queue (bounded by ZMQ_RCVHWM) meanwhile. */
void lg_zsock_pause(lg_zsock_t *s, int paused);
int lg_zsock_paused(const lg_zsock_t *s);
/* ROUTER peers dropped for sending malformed messages (see lg_zsock.c). */
uint64_t lg_zsock_dropped_peers(const lg_zsock_t *s);
/* Count a well-formed but invalid message (a handler's verdict) against the peer id. */
void lg_zsock_garbage(lg_zsock_t *s, const uint8_t *id, size_t idlen);
/* Stop polling and free the wrapper once libuv closed its handle. Sets *self_p to NULL. */
void lg_zsock_close(lg_zsock_t **self_p);

#endif
