/* lg_wire.c: Envelope framing over ZeroMQ and statistics conversion.
 * A frame from the network is untrusted: every failure path logs, counts and drops. */
#include "lg_wire.h"

#include <stdlib.h>
#include <string.h>
#include <zmq.h>

#include "lg_error.h"
#include "lg_log.h"

static uint64_t s_malformed;

uint64_t lg_wire_malformed(void)
{
    return s_malformed;
}
void lg__wire_count_malformed(void)
{
    s_malformed++;
}

int lg_wire_pack(Lg__Envelope *env, uint8_t **buf, size_t *len)
{
    env->version = LG_WIRE_VERSION;
    size_t n = lg__envelope__get_packed_size(env);
    if (n > LG_WIRE_MAX_MSG)
        return LG_ETOOBIG;
    uint8_t *b = malloc(n ? n : 1);
    if (!b)
        return -ENOMEM;
    *len = lg__envelope__pack(env, b);
    *buf = b;
    return 0;
}

Lg__Envelope *lg_wire_unpack(const uint8_t *buf, size_t len, char *err, size_t errlen)
{
    if (len > LG_WIRE_MAX_MSG) {
        snprintf(err, errlen, "frame of %zu bytes exceeds the %d byte limit", len, LG_WIRE_MAX_MSG);
        return NULL;
    }
    Lg__Envelope *env = lg__envelope__unpack(NULL, len, buf);
    if (!env) {
        snprintf(err, errlen, "not a valid Envelope (%zu bytes)", len);
        return NULL;
    }
    if (env->version != LG_WIRE_VERSION) {
        snprintf(err, errlen, "wire version %u, expected %d", env->version, LG_WIRE_VERSION);
        lg__envelope__free_unpacked(env, NULL);
        return NULL;
    }
    if (env->body_case == LG__ENVELOPE__BODY__NOT_SET) {
        snprintf(err, errlen, "Envelope without a body (unknown message type?)");
        lg__envelope__free_unpacked(env, NULL);
        return NULL;
    }
    return env;
}

void lg_wire_envelope_destroy(Lg__Envelope **self_p)
{
    if (self_p && *self_p) {
        lg__envelope__free_unpacked(*self_p, NULL);
        *self_p = NULL;
    }
}

int lg_wire_sock_setup(void *zsock)
{
    int64_t maxmsg = LG_WIRE_MAX_MSG;
    int linger = 0, hwm = 100000;
    if (zmq_setsockopt(zsock, ZMQ_MAXMSGSIZE, &maxmsg, sizeof maxmsg) ||
        zmq_setsockopt(zsock, ZMQ_LINGER, &linger, sizeof linger) ||
        zmq_setsockopt(zsock, ZMQ_SNDHWM, &hwm, sizeof hwm) ||
        zmq_setsockopt(zsock, ZMQ_RCVHWM, &hwm, sizeof hwm))
        return -zmq_errno();
    return 0;
}

int lg_wire_sock_keepalive(void *zsock, int connecting)
{
    int ivl = LG_WIRE_PING_MS, timeout = LG_WIRE_PING_TIMEOUT_MS;
    int conn = LG_WIRE_CONNECT_MS, recon = LG_WIRE_RECONNECT_MAX_MS;
    if (zmq_setsockopt(zsock, ZMQ_HEARTBEAT_IVL, &ivl, sizeof ivl) ||
        zmq_setsockopt(zsock, ZMQ_HEARTBEAT_TIMEOUT, &timeout, sizeof timeout) ||
        zmq_setsockopt(zsock, ZMQ_HEARTBEAT_TTL, &timeout, sizeof timeout))
        return -zmq_errno();
    if (connecting && (zmq_setsockopt(zsock, ZMQ_CONNECT_TIMEOUT, &conn, sizeof conn) ||
                       zmq_setsockopt(zsock, ZMQ_RECONNECT_IVL_MAX, &recon, sizeof recon)))
        return -zmq_errno();
    return 0;
}

int lg_wire_send_raw(void *zsock, const void *id, size_t idlen, const uint8_t *buf, size_t len)
{
    if (id && zmq_send(zsock, id, idlen, ZMQ_SNDMORE | ZMQ_DONTWAIT) < 0)
        return -zmq_errno();
    if (zmq_send(zsock, buf, len, ZMQ_DONTWAIT) < 0)
        return -zmq_errno();
    return 0;
}

int lg_wire_send(void *zsock, const void *id, size_t idlen, Lg__Envelope *env)
{
    uint8_t *buf;
    size_t len;
    int rc = lg_wire_pack(env, &buf, &len);
    if (rc)
        return rc;
    rc = lg_wire_send_raw(zsock, id, idlen, buf, len);
    free(buf);
    return rc;
}

/* Discard the remaining frames of a multipart message. */
static void s_skip_rest(void *zsock)
{
    int more = 0;
    size_t sz = sizeof more;
    while (zmq_getsockopt(zsock, ZMQ_RCVMORE, &more, &sz) == 0 && more) {
        zmq_msg_t m;
        zmq_msg_init(&m);
        zmq_msg_recv(&m, zsock, ZMQ_DONTWAIT);
        zmq_msg_close(&m);
    }
}

static int s_has_more(void *zsock)
{
    int more = 0;
    size_t sz = sizeof more;
    zmq_getsockopt(zsock, ZMQ_RCVMORE, &more, &sz);
    return more;
}

static void s_peer(zmq_msg_t *m, lg_wire_peer_t *peer)
{
    if (!peer)
        return;
    const char *u = zmq_msg_gets(m, "User-Id"), *a = zmq_msg_gets(m, "Peer-Address");
    snprintf(peer->user, sizeof peer->user, "%s", u ? u : "");
    snprintf(peer->addr, sizeof peer->addr, "%s", a ? a : "");
}

int lg_wire_recv(void *zsock, int router, uint8_t *id, size_t *idlen, lg_wire_peer_t *peer,
                 Lg__Envelope **env)
{
    zmq_msg_t m;
    *env = NULL;
    if (router) {
        zmq_msg_init(&m);
        if (zmq_msg_recv(&m, zsock, ZMQ_DONTWAIT) < 0) {
            int e = zmq_errno();
            zmq_msg_close(&m);
            return -e;
        }
        size_t n = zmq_msg_size(&m);
        if (n > LG_ID_MAX || !s_has_more(zsock)) {
            zmq_msg_close(&m);
            s_skip_rest(zsock);
            lg__wire_count_malformed();
            lg_warn("dropped a message without a valid identity frame");
            return LG_EPROTO;
        }
        memcpy(id, zmq_msg_data(&m), n);
        *idlen = n;
        zmq_msg_close(&m);
    }
    zmq_msg_init(&m);
    if (zmq_msg_recv(&m, zsock, ZMQ_DONTWAIT) < 0) {
        int e = zmq_errno();
        zmq_msg_close(&m);
        if (router) { /* identity without a body: drop it */
            lg__wire_count_malformed();
            return LG_EPROTO;
        }
        return -e;
    }
    s_peer(&m, peer);
    int extra = s_has_more(zsock);
    char err[160];
    Lg__Envelope *e = NULL;
    if (extra) {
        snprintf(err, sizeof err, "unexpected extra frames");
        s_skip_rest(zsock);
    } else {
        e = lg_wire_unpack(zmq_msg_data(&m), zmq_msg_size(&m), err, sizeof err);
    }
    zmq_msg_close(&m);
    if (!e) {
        lg__wire_count_malformed();
        lg_warn("dropped a malformed message: %s", err);
        return LG_EPROTO;
    }
    *env = e;
    return 0;
}

const char *lg_dir_name(lg_dir_t d)
{
    switch (d) {
    case LG_DIR_READ:
        return "read";
    case LG_DIR_WRITE:
        return "write";
    case LG_DIR_TRIM:
        return "trim";
    default:
        return "?";
    }
}

Lg__DirStats *lg_wire_dirstats_new(const lg_dirstats_t *s, lg_dir_t dir)
{
    Lg__DirStats *m = malloc(sizeof *m);
    if (!m)
        return NULL;
    lg__dir_stats__init(m);
    m->dir = (Lg__Direction)dir;
    m->ios = s->ios;
    m->bytes = s->bytes;
    m->runtime_ms = s->runtime_ms;
    m->iops = s->iops;
    m->bw_bytes = s->bw_bytes;
    m->lat_n = s->lat_n;
    m->lat_min = s->lat_min;
    m->lat_max = s->lat_max;
    m->lat_mean = s->lat_mean;
    m->lat_stddev = s->lat_stddev;
    m->lat_sum = s->lat_sum;
    m->lat_sumsq = s->lat_sumsq;
    m->has_hist = s->has_hist;
    if (!s->has_hist)
        return m;
    uint8_t packed[LG_HIST_PACK_MAX];
    size_t pl = lg_hist_pack(&s->hist, packed);
    if (pl <= 1)
        return m;
    /* The bytes live right after the message: one allocation, freed with it. */
    Lg__DirStats *g = realloc(m, sizeof *m + pl);
    if (!g) {
        free(m);
        return NULL;
    }
    m = g;
    memcpy(m + 1, packed, pl);
    m->hist_packed.data = (uint8_t *)(m + 1);
    m->hist_packed.len = pl;
    return m;
}

void lg_wire_dirstats_destroy(Lg__DirStats **self_p)
{
    if (self_p && *self_p) {
        free(*self_p);
        *self_p = NULL;
    }
}

int lg_wire_dirstats_get(const Lg__DirStats *m, lg_dirstats_t *out, lg_dir_t *dir)
{
    if ((unsigned)m->dir >= LG_DIR_NR)
        return LG_EPROTO;
    lg_dirstats_init(out);
    *dir = (lg_dir_t)m->dir;
    out->ios = m->ios;
    out->bytes = m->bytes;
    out->runtime_ms = m->runtime_ms;
    out->iops = m->iops;
    out->bw_bytes = m->bw_bytes;
    out->lat_n = m->lat_n;
    out->lat_min = m->lat_min;
    out->lat_max = m->lat_max;
    out->lat_mean = m->lat_mean;
    out->lat_stddev = m->lat_stddev;
    out->lat_sum = m->lat_sum;
    out->lat_sumsq = m->lat_sumsq;
    out->has_hist = m->has_hist;
    if (m->hist_packed.len &&
        lg_hist_unpack_strict(m->hist_packed.data, m->hist_packed.len, &out->hist) != 0)
        return LG_EPROTO;
    for (size_t i = 0; i < m->n_hist; i++) {
        if (m->hist[i]->idx >= LG_HIST_NR)
            return LG_EPROTO;
        out->hist.bins[m->hist[i]->idx] += m->hist[i]->count;
    }
    return 0;
}
