/* lg_wire.h: the wire codec. Packs and unpacks lg.proto Envelopes into ZeroMQ frames, converts
 * statistics to and from their wire form, and counts malformed input instead of asserting on it. */
#ifndef LG_WIRE_H
#define LG_WIRE_H

#include <stddef.h>
#include <stdint.h>

#include "lg.pb-c.h"
#include "lg_stats.h"

#define LG_WIRE_VERSION 1
/* Every socket is bounded by ZMQ_MAXMSGSIZE: a final fio JSON of 256 jobs with histograms fits. */
#define LG_WIRE_MAX_MSG (32 * 1024 * 1024)
#define LG_ID_MAX 256

/* Pack env (setting env->version) into a new buffer. Caller owns *buf (free()). */
int lg_wire_pack(Lg__Envelope *env, uint8_t **buf, size_t *len);
/* Unpack one frame. Returns NULL on malformed input (bad protobuf, wrong version, no body) and
 * writes why into err; the caller logs it and drops the frame. Caller owns the result
 * (lg_wire_envelope_destroy). */
Lg__Envelope *lg_wire_unpack(const uint8_t *buf, size_t len, char *err, size_t errlen);
/* Free an unpacked Envelope *self_p and set *self_p to NULL; NULL or *NULL: nothing. */
void lg_wire_envelope_destroy(Lg__Envelope **self_p);
/* Number of malformed frames seen by this process. */
uint64_t lg_wire_malformed(void);
void lg__wire_count_malformed(void);

/* Set ZMQ_MAXMSGSIZE, linger and high-water marks on a new socket. Returns 0 or -errno. */
int lg_wire_sock_setup(void *zsock);
/* ZMTP heartbeats on an agent's socket: a connection silent for LG_WIRE_PING_TIMEOUT_MS (a
 * partition: TCP would go on retransmitting into it with a backoff that grows to minutes) is
 * dropped and, on the connecting side, made anew, each attempt given up after LG_WIRE_CONNECT_MS
 * and tried again within LG_WIRE_RECONNECT_MAX_MS. The pings carry that timeout as their TTL, so
 * the controller drops the connection of an agent silent that long too, without pings of its
 * own (controller.c says why). Returns 0 or -errno. */
#define LG_WIRE_PING_MS 2000
#define LG_WIRE_PING_TIMEOUT_MS 10000
#define LG_WIRE_CONNECT_MS 3000
#define LG_WIRE_RECONNECT_MAX_MS 2000
int lg_wire_sock_keepalive(void *zsock, int connecting);
/* Send env on a ZeroMQ socket without blocking; with a non-NULL id it is prefixed as the ROUTER
 * identity frame. Returns 0 or -errno (-EAGAIN when the peer's queue is full, -EHOSTUNREACH for
 * an unknown ROUTER peer). */
int lg_wire_send(void *zsock, const void *id, size_t idlen, Lg__Envelope *env);
/* Send an already packed Envelope (see lg_wire_pack). Returns as lg_wire_send. */
int lg_wire_send_raw(void *zsock, const void *id, size_t idlen, const uint8_t *buf, size_t len);
/* Who sent a message, as libzmq knows it: the User-Id the ZAP handler gave the connection
 * ("" without ZAP, e.g. plaintext) and the peer's address. */
typedef struct {
    char user[128];
    char addr[64];
} lg_wire_peer_t;

/* Receive one message without blocking. For a ROUTER (router != 0) the identity is copied into
 * id (LG_ID_MAX bytes) and *idlen set; peer (may be NULL) receives the sender's User-Id and
 * address. Returns 0 with *env set (caller owns it), -EAGAIN when nothing is pending, LG_EPROTO
 * for a malformed message (logged, counted and dropped), or -errno. */
int lg_wire_recv(void *zsock, int router, uint8_t *id, size_t *idlen, lg_wire_peer_t *peer,
                 Lg__Envelope **env);

/* Wire form of one direction's statistics. Caller owns the result (lg_wire_dirstats_destroy).
 * NULL on allocation failure. */
Lg__DirStats *lg_wire_dirstats_new(const lg_dirstats_t *s, lg_dir_t dir);
/* Free *self_p and set it to NULL; NULL or *NULL: nothing. */
void lg_wire_dirstats_destroy(Lg__DirStats **self_p);
/* Read a DirStats from the wire into *out. Returns 0 or LG_EPROTO (bucket index out of range,
 * unknown direction). */
int lg_wire_dirstats_get(const Lg__DirStats *m, lg_dirstats_t *out, lg_dir_t *dir);

/* Name of a direction: "read", "write", "trim". */
const char *lg_dir_name(lg_dir_t d);

#endif
