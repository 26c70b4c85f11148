/* flood: a synthetic agent for the ingest benchmark. It registers like lg-agent, takes the run the
 * controller prepares, and sends N samples (each one read direction with a 300-bin histogram) as
 * fast as the socket takes them, then reports how fast they were acknowledged (= committed).
 * With --rows it writes the same samples as lg.sample COPY rows instead (the psql baseline).
 * usage: flood --controller EP [--name NAME] [--samples N] [--seed S] [--timeout S]
 *        flood --rows FILE --run-id R --agent-id A [--samples N] [--seed S] */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zmq.h>

#include "lg_auth.h"
#include "lg_error.h"
#include "lg_log.h"
#include "lg_stats.h"
#include "lg_util.h"
#include "lg_wire.h"

#define NBINS 300
/* Sample seq has the histogram of draw (seq - 1) % POOL + 1: the flood makes each draw once, so
 * that making samples costs it little next to what the controller does with them (real agents run
 * on other machines). */
#define POOL 1024
#define T0_MS 1700000000000LL /* t_ms of sample 0: fixed, so both modes make the same rows */
#define HEARTBEAT_MS 1000
#define RESULT_RESEND_MS 10000

typedef struct {
    const char *controller;
    const char *name;
    const char *rows;
    uint64_t samples;
    uint64_t seed;
    uint64_t timeout_s;
    uint64_t run_id;
    uint64_t agent_id;
    uint64_t resend; /* K: after samples 1..N-K are acked, send N-2K+1..N (K already stored) */
    int bad;         /* first send samples the controller must refuse */
} opts_t;

typedef struct {
    void *sock;
    uint64_t msg_seq;
    uint64_t agent_id;
    uint64_t run_id;
    int started;
    int stopped;
    uint64_t acked;
    int result_acked;
    int state; /* Lg__AgentState for heartbeats */
    uint64_t last_hb_ms;
    uint64_t last_hello_ms;
    lg_dirstats_t total; /* the run's totals, for the RunResult */
} flood_t;

/* ---- the synthetic samples ---- */

static uint64_t s_rand(uint64_t *st)
{
    /* splitmix64: deterministic for a seed, and cheap next to what the controller does. */
    uint64_t z = (*st += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Sample seq of the flood: NBINS distinct buckets drawn over all LG_HIST_NR, counts 1..1000, and
 * figures (ios, bytes, lat_*) consistent with that histogram. */
static void s_make_stats(uint64_t seed, uint64_t seq, lg_dirstats_t *st)
{
    static unsigned idx[LG_HIST_NR];
    uint64_t r = seed * 0x100000001B3ull ^ ((seq - 1) % POOL + 1);
    lg_dirstats_init(st);
    for (unsigned i = 0; i < LG_HIST_NR; i++)
        idx[i] = i;
    for (unsigned i = 0; i < NBINS; i++) {
        unsigned j = i + (unsigned)(s_rand(&r) % (LG_HIST_NR - i));
        unsigned t = idx[i];
        idx[i] = idx[j];
        idx[j] = t;
        st->hist.bins[idx[i]] = 1 + s_rand(&r) % 1000;
    }
    st->has_hist = true;
    uint64_t n = 0;
    double sum = 0, sumsq = 0;
    int lo = -1, hi = -1;
    for (unsigned i = 0; i < LG_HIST_NR; i++) {
        uint64_t c = st->hist.bins[i];
        if (!c)
            continue;
        double v = (double)lg_hist_val(i);
        n += c;
        sum += (double)c * v;
        sumsq += (double)c * v * v;
        if (lo < 0)
            lo = (int)i;
        hi = (int)i;
    }
    st->ios = n;
    st->bytes = n * 4096;
    st->runtime_ms = 1000;
    st->iops = (double)n;
    st->bw_bytes = (double)st->bytes;
    st->lat_n = n;
    st->lat_min = lg_hist_val((unsigned)lo);
    st->lat_max = lg_hist_val((unsigned)hi);
    st->lat_sum = sum;
    st->lat_sumsq = sumsq;
    st->lat_mean = sum / (double)n;
    double var = (sumsq - (double)n * st->lat_mean * st->lat_mean) / (double)(n - 1);
    st->lat_stddev = var > 0 ? sqrt(var) : 0;
}

static void s_add_total(lg_dirstats_t *t, const lg_dirstats_t *s)
{
    if (t->lat_n == 0 || s->lat_min < t->lat_min)
        t->lat_min = s->lat_min;
    if (s->lat_max > t->lat_max)
        t->lat_max = s->lat_max;
    t->ios += s->ios;
    t->bytes += s->bytes;
    t->runtime_ms += s->runtime_ms;
    t->lat_n += s->lat_n;
    t->lat_sum += s->lat_sum;
    t->lat_sumsq += s->lat_sumsq;
    t->has_hist = true;
    for (unsigned i = 0; i < LG_HIST_NR; i++)
        t->hist.bins[i] += s->hist.bins[i];
}

/* The pool of draws: each one's figures and its wire form, made once. */
typedef struct {
    lg_dirstats_t *stats; /* POOL */
    Lg__DirStats **wire;  /* POOL */
} pool_t;

static int s_pool_make(pool_t *p, uint64_t seed)
{
    p->stats = malloc(POOL * sizeof *p->stats);
    p->wire = calloc(POOL, sizeof *p->wire);
    if (!p->stats || !p->wire)
        return -ENOMEM;
    for (unsigned i = 0; i < POOL; i++) {
        s_make_stats(seed, i + 1, &p->stats[i]);
        if (!(p->wire[i] = lg_wire_dirstats_new(&p->stats[i], LG_DIR_READ)))
            return -ENOMEM;
    }
    return 0;
}

static void s_pool_clear(pool_t *p)
{
    for (unsigned i = 0; p->wire && i < POOL; i++)
        lg_wire_dirstats_destroy(&p->wire[i]);
    free(p->wire);
    free(p->stats);
    memset(p, 0, sizeof *p);
}

/* Pack sample seq of run_id into a new buffer (caller owns *buf); adds it to *total if given. */
static int s_pack_sample(const pool_t *p, uint64_t run_id, uint64_t seq, uint64_t msg_seq,
                         lg_dirstats_t *total, uint8_t **buf, size_t *len)
{
    unsigned k = (unsigned)((seq - 1) % POOL);
    if (total)
        s_add_total(total, &p->stats[k]);
    Lg__DirStats *d = p->wire[k];
    Lg__Sample smp = LG__SAMPLE__INIT;
    smp.run_id = run_id;
    smp.seq = seq;
    smp.t_ms = T0_MS + (int64_t)seq * 1000;
    smp.interval_ms = 1000;
    smp.n_dirs = 1;
    smp.dirs = &d;
    Lg__Envelope env = LG__ENVELOPE__INIT;
    env.seq = msg_seq;
    env.body_case = LG__ENVELOPE__BODY_SAMPLE;
    env.sample = &smp;
    return lg_wire_pack(&env, buf, len);
}

/* ---- --rows: the same samples as COPY text rows of lg.sample ---- */

/* The row controller/writer.c makes of it: the sample goes through the wire form and back, the
 * head is printed with the same format, the histogram in the same compact form (lg_hist_pack). */
static int s_write_row(FILE *f, uint64_t run_id, uint64_t agent_id, uint64_t seq,
                       const lg_dirstats_t *in, lg_dirstats_t *st)
{
    Lg__DirStats *d = lg_wire_dirstats_new(in, LG_DIR_READ);
    lg_dir_t dir;
    if (!d)
        return -ENOMEM;
    int rc = lg_wire_dirstats_get(d, st, &dir);
    lg_wire_dirstats_destroy(&d);
    if (rc)
        return rc;
    fprintf(f, "%llu\t%llu\t%llu\t%s\t%lld\t%llu\t%llu\t%llu\t%llu\t%.17g\t%.17g\t%llu\t%llu\t",
            (unsigned long long)run_id, (unsigned long long)agent_id, (unsigned long long)seq,
            lg_dir_name(dir), (long long)(T0_MS + (int64_t)seq * 1000), 1000ull,
            (unsigned long long)st->ios, (unsigned long long)st->bytes,
            (unsigned long long)st->lat_n, st->lat_sum, st->lat_sumsq,
            (unsigned long long)st->lat_min, (unsigned long long)st->lat_max);
    /* then the load host's CPU (026_host_cpu): NULL, as flood's samples carry none (an older
     * agent's) */
    if (!st->has_hist) {
        fputs("\\N\t\\N\t\\N\t\\N\n", f);
        return 0;
    }
    static uint8_t packed[LG_HIST_PACK_MAX];
    static char hex[3 + 2 * LG_HIST_PACK_MAX + 1];
    lg_hex_bytea(packed, lg_hist_pack(&st->hist, packed), hex);
    fputs(hex, f);
    fputs("\t\\N\t\\N\t\\N\n", f);
    return 0;
}

static int s_rows(const opts_t *o)
{
    FILE *f = fopen(o->rows, "w");
    if (!f) {
        fprintf(stderr, "flood: could not open \"%s\": %s\n", o->rows, strerror(errno));
        return 1;
    }
    static char iobuf[1 << 20];
    setvbuf(f, iobuf, _IOFBF, sizeof iobuf);
    lg_dirstats_t *a = malloc(2 * sizeof *a);
    int rc = a ? 0 : -ENOMEM;
    for (uint64_t seq = 1; rc == 0 && seq <= o->samples; seq++) {
        s_make_stats(o->seed, seq, &a[0]);
        rc = s_write_row(f, o->run_id, o->agent_id, seq, &a[0], &a[1]);
    }
    free(a);
    if (fclose(f) != 0 && rc == 0)
        rc = -errno;
    if (rc) {
        fprintf(stderr, "flood: could not write \"%s\": %s\n", o->rows, lg_strerror(rc));
        return 1;
    }
    return 0;
}

/* ---- talking to the controller ---- */

/* Send one small message, waiting up to 1 s for room. */
static int s_send(flood_t *f, Lg__Envelope *env)
{
    env->seq = ++f->msg_seq;
    for (int i = 0; i < 100; i++) {
        int rc = lg_wire_send(f->sock, NULL, 0, env);
        if (rc != -EAGAIN)
            return rc;
        zmq_pollitem_t it = {f->sock, 0, ZMQ_POLLOUT, 0};
        zmq_poll(&it, 1, 10);
    }
    return -EAGAIN;
}

static void s_send_hello(flood_t *f, const char *name)
{
    Lg__Hello h = LG__HELLO__INIT;
    char *engines[] = {"null"};
    h.name = (char *)name;
    h.lg_version = LG_VERSION;
    h.os = "flood";
    h.cpu_model = "synthetic";
    h.cpu_count = 1;
    h.fio_version = "fio-flood";
    h.n_engines = 1;
    h.engines = engines;
    Lg__Envelope env = LG__ENVELOPE__INIT;
    env.body_case = LG__ENVELOPE__BODY_HELLO;
    env.hello = &h;
    f->last_hello_ms = lg_mono_ms();
    s_send(f, &env);
}

static void s_heartbeat(flood_t *f, const char *name, uint64_t now)
{
    if (now - f->last_hb_ms < HEARTBEAT_MS)
        return;
    f->last_hb_ms = now;
    if (f->agent_id == 0) {
        s_send_hello(f, name);
        return;
    }
    Lg__Heartbeat hb = LG__HEARTBEAT__INIT;
    hb.state = (Lg__AgentState)f->state;
    hb.run_id = f->run_id;
    Lg__Envelope env = LG__ENVELOPE__INIT;
    env.body_case = LG__ENVELOPE__BODY_HEARTBEAT;
    env.heartbeat = &hb;
    s_send(f, &env);
}

static void s_on_msg(flood_t *f, const char *name, Lg__Envelope *env)
{
    switch (env->body_case) {
    case LG__ENVELOPE__BODY_WELCOME:
        if (env->welcome->agent_id == 0) {
            if (lg_mono_ms() - f->last_hello_ms > 500)
                s_send_hello(f, name);
        } else if (f->agent_id != env->welcome->agent_id) {
            f->agent_id = env->welcome->agent_id;
            fprintf(stderr, "flood: registered as agent %llu\n", (unsigned long long)f->agent_id);
        }
        break;
    case LG__ENVELOPE__BODY_PREPARE: {
        if (f->run_id && f->run_id != env->prepare->spec->run_id) {
            fprintf(stderr, "flood: ignoring Prepare of run %llu (busy with run %llu)\n",
                    (unsigned long long)env->prepare->spec->run_id, (unsigned long long)f->run_id);
            break;
        }
        f->run_id = env->prepare->spec->run_id;
        f->state = LG__AGENT_STATE__AGENT_READY;
        Lg__Prepared p = LG__PREPARED__INIT;
        p.run_id = f->run_id;
        Lg__Envelope out = LG__ENVELOPE__INIT;
        out.body_case = LG__ENVELOPE__BODY_PREPARED;
        out.prepared = &p;
        s_send(f, &out);
        fprintf(stderr, "flood: prepared run %llu\n", (unsigned long long)f->run_id);
        break;
    }
    case LG__ENVELOPE__BODY_START:
        if (env->start->run_id == f->run_id && !f->started) {
            f->started = 1;
            f->state = LG__AGENT_STATE__AGENT_RUNNING;
        }
        break;
    case LG__ENVELOPE__BODY_STOP:
        if (env->stop->run_id == f->run_id && !f->stopped) {
            f->stopped = 1;
            fprintf(stderr, "flood: the controller stopped run %llu\n",
                    (unsigned long long)f->run_id);
        }
        break;
    case LG__ENVELOPE__BODY_ACK_MSG:
        if (env->ack_msg->run_id != f->run_id)
            break;
        if (env->ack_msg->result)
            f->result_acked = 1;
        else if (env->ack_msg->seq > f->acked)
            f->acked = env->ack_msg->seq;
        break;
    default:
        break;
    }
}

/* Receive everything pending. */
static void s_recv_all(flood_t *f, const char *name)
{
    for (;;) {
        Lg__Envelope *env = NULL;
        int rc = lg_wire_recv(f->sock, 0, NULL, NULL, NULL, &env);
        if (rc == -EAGAIN)
            return;
        if (rc == 0) {
            s_on_msg(f, name, env);
            lg_wire_envelope_destroy(&env);
        } else if (rc != LG_EPROTO) {
            return;
        }
    }
}

static void s_poll(flood_t *f, short events, long ms)
{
    zmq_pollitem_t it = {f->sock, 0, events, 0};
    zmq_poll(&it, 1, ms);
}

static int s_send_result(flood_t *f, uint64_t samples)
{
    Lg__DirStats *d = lg_wire_dirstats_new(&f->total, LG_DIR_READ);
    if (!d)
        return -ENOMEM;
    Lg__RunResult res = LG__RUN_RESULT__INIT;
    res.run_id = f->run_id;
    res.n_dirs = 1;
    res.dirs = &d;
    res.fio_json = "{\"jobs\":[]}";
    res.samples = samples;
    res.njobs = 1;
    Lg__Envelope env = LG__ENVELOPE__INIT;
    env.body_case = LG__ENVELOPE__BODY_RUN_RESULT;
    env.run_result = &res;
    int rc = s_send(f, &env);
    lg_wire_dirstats_destroy(&d);
    return rc;
}

/* Two samples the controller must refuse (and not store): a seq beyond lg.sample's integer
 * column, and seq 1 with its histogram in a form lg_hist_pack never makes (a varint with a
 * needless continuation byte). The real seq 1 follows later and must be stored. */
static int s_send_bad(flood_t *f, const pool_t *p)
{
    uint8_t *buf;
    size_t len;
    int rc = s_pack_sample(p, f->run_id, 1ull << 31, ++f->msg_seq, NULL, &buf, &len);
    if (rc == 0) {
        rc = lg_wire_send_raw(f->sock, NULL, 0, buf, len);
        free(buf);
    }
    static uint8_t loose[] = {1, 0x88, 0x00};
    Lg__DirStats d = *p->wire[0];
    d.hist_packed.data = loose;
    d.hist_packed.len = sizeof loose;
    Lg__DirStats *dp = &d;
    Lg__Sample smp = LG__SAMPLE__INIT;
    smp.run_id = f->run_id;
    smp.seq = 1;
    smp.t_ms = T0_MS + 1000;
    smp.interval_ms = 1000;
    smp.n_dirs = 1;
    smp.dirs = &dp;
    Lg__Envelope env = LG__ENVELOPE__INIT;
    env.body_case = LG__ENVELOPE__BODY_SAMPLE;
    env.sample = &smp;
    if (rc == 0)
        rc = s_send(f, &env);
    if (rc == 0)
        fprintf(stderr, "flood: sent 2 samples the controller must drop\n");
    return rc;
}

static int s_flood(const opts_t *o)
{
    flood_t f;
    memset(&f, 0, sizeof f);
    f.state = LG__AGENT_STATE__AGENT_IDLE;
    void *ctx = zmq_ctx_new();
    f.sock = zmq_socket(ctx, ZMQ_DEALER);
    int rc = lg_wire_sock_setup(f.sock);
    if (rc == 0 && zmq_setsockopt(f.sock, ZMQ_ROUTING_ID, o->name, strlen(o->name)) != 0)
        rc = -zmq_errno();
    char why[1024];
    const char *key = getenv("LG_AGENT_KEY"), *ckey = getenv("LG_CONTROLLER_KEY");
    if (rc == 0 && (rc = lg_auth_client_setup(ctx, f.sock, o->controller, key, ckey, !key || !ckey,
                                              NULL, why, sizeof why)) != 0)
        fprintf(stderr, "flood: %s\n", why);
    if (rc == 0 && zmq_connect(f.sock, o->controller) != 0)
        rc = -zmq_errno();
    pool_t pool = {0};
    if (rc == 0)
        rc = s_pool_make(&pool, o->seed);
    if (rc) {
        fprintf(stderr, "flood: could not connect to \"%s\": %s\n", o->controller, lg_strerror(rc));
        goto out;
    }
    lg_dirstats_init(&f.total);
    uint64_t deadline = lg_mono_ms() + o->timeout_s * 1000;
    s_send_hello(&f, o->name);
    f.last_hb_ms = lg_mono_ms();
    /* Registration, then the run: Prepare and Start come when the campaign is submitted. */
    while (!f.started && lg_mono_ms() < deadline) {
        s_poll(&f, ZMQ_POLLIN, 200);
        s_recv_all(&f, o->name);
        s_heartbeat(&f, o->name, lg_mono_ms());
    }
    if (!f.started) {
        fprintf(stderr, "flood: no run started within %llu s\n", (unsigned long long)o->timeout_s);
        rc = LG_ETIMEOUT;
        goto out;
    }
    fprintf(stderr, "flood: run %llu started: sending %llu samples\n", (unsigned long long)f.run_id,
            (unsigned long long)o->samples);
    if (o->bad && (rc = s_send_bad(&f, &pool)) != 0)
        goto out;
    uint64_t t0 = lg_mono_ms(), t_sent = 0, next = 1;
    uint8_t *buf = NULL;
    size_t len = 0;
    int resent = !o->resend || 2 * o->resend > o->samples;
    while (f.acked < o->samples && !f.stopped) {
        uint64_t now = lg_mono_ms();
        if (now >= deadline)
            break;
        if (!resent && next == o->samples - o->resend + 1) {
            if (f.acked < o->samples - o->resend) { /* wait until they are stored */
                s_poll(&f, ZMQ_POLLIN, 100);
                s_recv_all(&f, o->name);
                s_heartbeat(&f, o->name, lg_mono_ms());
                continue;
            }
            resent = 2;
            next = o->samples - 2 * o->resend + 1;
            fprintf(stderr, "flood: sending samples %llu..%llu again\n", (unsigned long long)next,
                    (unsigned long long)(o->samples - o->resend));
        }
        if (next <= o->samples) {
            if (!buf && (rc = s_pack_sample(&pool, f.run_id, next, ++f.msg_seq,
                                            resent == 2 && next <= o->samples - o->resend
                                                ? NULL /* counted once already */
                                                : &f.total,
                                            &buf, &len)) != 0)
                break;
            rc = lg_wire_send_raw(f.sock, NULL, 0, buf, len);
            if (rc == 0) {
                free(buf);
                buf = NULL;
                if (next++ == o->samples)
                    t_sent = lg_mono_ms();
                if (next % 64 == 0) {
                    s_recv_all(&f, o->name);
                    s_heartbeat(&f, o->name, now);
                }
                continue;
            }
            if (rc != -EAGAIN) {
                fprintf(stderr, "flood: could not send: %s\n", lg_strerror(rc));
                break;
            }
            rc = 0;
            s_poll(&f, ZMQ_POLLIN | ZMQ_POLLOUT, 100);
        } else {
            s_poll(&f, ZMQ_POLLIN, 100);
        }
        s_recv_all(&f, o->name);
        s_heartbeat(&f, o->name, lg_mono_ms());
    }
    free(buf);
    uint64_t t1 = lg_mono_ms();
    if (rc == 0 && f.acked < o->samples) {
        fprintf(stderr, "flood: %s after %llu of %llu samples acked (%llu sent)\n",
                f.stopped ? "stopped by the controller" : "timed out", (unsigned long long)f.acked,
                (unsigned long long)o->samples, (unsigned long long)(next - 1));
        rc = LG_ETIMEOUT;
    }
    if (rc)
        goto out;
    double s = (double)(t1 - t0) / 1000.0;
    fprintf(stderr, "flood: all %llu samples handed to ZeroMQ after %.3f s\n",
            (unsigned long long)o->samples, (double)(t_sent - t0) / 1000.0);
    printf("flood: %llu samples acked in %.3f s: %.0f samples/s\n", (unsigned long long)o->samples,
           s, s > 0 ? (double)o->samples / s : 0.0);
    fflush(stdout);
    /* End the run: the RunResult, resent until the controller acknowledges it. */
    uint64_t last = 0;
    deadline = lg_mono_ms() + 120000;
    while (!f.result_acked && lg_mono_ms() < deadline) {
        uint64_t now = lg_mono_ms();
        if (now - last >= RESULT_RESEND_MS) {
            last = now;
            if ((rc = s_send_result(&f, o->samples)) != 0 && rc != -EAGAIN)
                break;
        }
        s_poll(&f, ZMQ_POLLIN, 200);
        s_recv_all(&f, o->name);
        s_heartbeat(&f, o->name, lg_mono_ms());
    }
    if (!f.result_acked) {
        fprintf(stderr, "flood: the RunResult was not acknowledged\n");
        rc = rc ? rc : LG_ETIMEOUT;
    } else {
        rc = 0;
    }
out:
    s_pool_clear(&pool);
    zmq_close(f.sock);
    zmq_ctx_term(ctx);
    return rc ? 1 : 0;
}

/* ---- command line ---- */

static void s_usage(FILE *f)
{
    fputs("usage: flood --controller EP [--name NAME] [--samples N] [--seed S] [--timeout S]\n"
          "                    [--resend K] [--bad 0|1]\n"
          "       flood --rows FILE --run-id R --agent-id A [--samples N] [--seed S]\n"
          "  --controller EP   the controller's agent endpoint\n"
          "  --name NAME       agent name and ZeroMQ routing id (default flood)\n"
          "  --samples N       samples to send (default 200000)\n"
          "  --seed S          seed of the histogram counts (default 1)\n"
          "  --timeout S       give up after S seconds (default 600)\n"
          "  --resend K        once 1..N-K are acknowledged, send N-2K+1..N: K samples again\n"
          "                    in a batch with K new ones (the writer's duplicate path)\n"
          "  --bad             first send two samples the controller must drop: seq 2^31 and\n"
          "                    a histogram in a non-canonical packed form\n"
          "  --rows FILE       write the samples as COPY rows of lg.sample instead\n",
          f);
}

static int s_num(const char *opt, const char *v, uint64_t min, uint64_t max, uint64_t *out)
{
    if (lg_parse_u64(v, min, max, out) != 0) {
        fprintf(stderr, "flood: %s: \"%s\" is not an integer from %llu to %llu\n", opt, v,
                (unsigned long long)min, (unsigned long long)max);
        return -1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    lg_log_init("flood");
    opts_t o = {.name = "flood", .samples = 200000, .seed = 1, .timeout_s = 600};
    uint64_t u;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            s_usage(stdout);
            return 0;
        }
        const char *v = i + 1 < argc ? argv[++i] : NULL;
        if (!v) {
            fprintf(stderr, "flood: option \"%s\" needs a value\n", a);
            return 2;
        }
        int bad = 0;
        if (!strcmp(a, "--controller"))
            o.controller = v;
        else if (!strcmp(a, "--name"))
            o.name = v;
        else if (!strcmp(a, "--rows"))
            o.rows = v;
        else if (!strcmp(a, "--samples"))
            bad = s_num(a, v, 1, INT32_MAX, &o.samples);
        else if (!strcmp(a, "--seed"))
            bad = s_num(a, v, 0, UINT64_MAX, &o.seed);
        else if (!strcmp(a, "--timeout"))
            bad = s_num(a, v, 1, 86400, &o.timeout_s);
        else if (!strcmp(a, "--resend"))
            bad = s_num(a, v, 1, INT32_MAX, &o.resend);
        else if (!strcmp(a, "--bad"))
            bad = s_num(a, v, 0, 1, &u), o.bad = (int)u;
        else if (!strcmp(a, "--run-id"))
            bad = s_num(a, v, 1, INT64_MAX, &o.run_id);
        else if (!strcmp(a, "--agent-id"))
            bad = s_num(a, v, 1, INT64_MAX, &o.agent_id);
        else {
            fprintf(stderr, "flood: unknown option \"%s\"\n", a);
            s_usage(stderr);
            return 2;
        }
        if (bad)
            return 2;
    }
    if (o.rows) {
        if (!o.run_id || !o.agent_id) {
            fprintf(stderr, "flood: --rows needs --run-id and --agent-id\n");
            return 2;
        }
        return s_rows(&o);
    }
    if (!o.controller || !o.name[0] || strlen(o.name) > 63) {
        fprintf(stderr, "flood: give --controller EP and a --name of 1 to 63 characters\n");
        s_usage(stderr);
        return 2;
    }
    return s_flood(&o);
}
