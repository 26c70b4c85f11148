/* test_wire.c: every Envelope body packs and unpacks to the same message; malformed frames are
 * rejected (and counted) instead of crashing; DirStats keep exact figures and histograms. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <zmq.h>

#include "lg_error.h"
#include "lg_wire.h"

static Lg__Envelope *s_roundtrip(Lg__Envelope *env)
{
    uint8_t *buf;
    size_t len;
    assert_int_equal(lg_wire_pack(env, &buf, &len), 0);
    char err[160];
    Lg__Envelope *out = lg_wire_unpack(buf, len, err, sizeof err);
    free(buf);
    assert_non_null(out);
    assert_int_equal(out->version, LG_WIRE_VERSION);
    assert_int_equal(out->body_case, env->body_case);
    assert_int_equal(out->seq, env->seq);
    return out;
}

static void test_hello(void **state)
{
    (void)state;
    Lg__Hello h = LG__HELLO__INIT;
    char *eng[] = {"libaio", "null"};
    char *allow[] = {"/mnt/nas"};
    h.name = "host-a";
    h.lg_version = "0.1.0";
    h.os = "Linux 6.1";
    h.cpu_model = "Xeon";
    h.cpu_count = 16;
    h.mem_bytes = 1ull << 36;
    h.fio_version = "fio-3.33";
    h.n_engines = 2;
    h.engines = eng;
    h.n_allowed_targets = 1;
    h.allowed_targets = allow;
    Lg__Envelope env = LG__ENVELOPE__INIT;
    env.seq = 42;
    env.body_case = LG__ENVELOPE__BODY_HELLO;
    env.hello = &h;
    Lg__Envelope *o = s_roundtrip(&env);
    assert_string_equal(o->hello->name, "host-a");
    assert_string_equal(o->hello->cpu_model, "Xeon");
    assert_int_equal(o->hello->cpu_count, 16);
    assert_true(o->hello->mem_bytes == 1ull << 36);
    assert_int_equal(o->hello->n_engines, 2);
    assert_string_equal(o->hello->engines[1], "null");
    assert_string_equal(o->hello->allowed_targets[0], "/mnt/nas");
    lg_wire_envelope_destroy(&o);
}

static void test_small_bodies(void **state)
{
    (void)state;
    Lg__Welcome w = LG__WELCOME__INIT;
    w.agent_id = 7;
    w.heartbeat_ms = 1000;
    Lg__Heartbeat hb = LG__HEARTBEAT__INIT;
    hb.state = LG__AGENT_STATE__AGENT_RUNNING;
    hb.run_id = 9;
    hb.unacked = 3;
    hb.clock_offset_us = -1234;
    hb.rtt_us = 87;
    Lg__Prepared pd = LG__PREPARED__INIT;
    pd.run_id = 11;
    Lg__Start st = LG__START__INIT;
    st.run_id = 12;
    st.start_at_us = 1796030599586000;
    Lg__Stop sp = LG__STOP__INIT;
    sp.run_id = 13;
    Lg__RunError re = LG__RUN_ERROR__INIT;
    re.run_id = 14;
    re.code = LG_EDENIED;
    re.message = "target outside allow-list";
    Lg__Ack ack = LG__ACK__INIT;
    ack.run_id = 15;
    ack.seq = 99;
    ack.result = 1;
    Lg__CtlRequest q = LG__CTL_REQUEST__INIT;
    q.op = LG__CTL_REQUEST__OP__OP_SUBMIT;
    q.spec_text = "name: x\n";
    q.spec_path = "/a.yaml";
    Lg__CtlReply r = LG__CTL_REPLY__INIT;
    r.code = LG_ESPEC;
    r.message = "bad";
    r.state = "running";
    r.runs_total = 5;
    r.runs_done = 2;

    Lg__Envelope env = LG__ENVELOPE__INIT;
    Lg__Envelope *o;
    env.body_case = LG__ENVELOPE__BODY_WELCOME;
    env.welcome = &w;
    o = s_roundtrip(&env);
    assert_int_equal(o->welcome->agent_id, 7);
    assert_int_equal(o->welcome->heartbeat_ms, 1000);
    lg_wire_envelope_destroy(&o);
    env.body_case = LG__ENVELOPE__BODY_HEARTBEAT;
    env.heartbeat = &hb;
    o = s_roundtrip(&env);
    assert_int_equal(o->heartbeat->state, LG__AGENT_STATE__AGENT_RUNNING);
    assert_int_equal(o->heartbeat->unacked, 3);
    assert_true(o->heartbeat->clock_offset_us == -1234 && o->heartbeat->rtt_us == 87);
    lg_wire_envelope_destroy(&o);
    env.body_case = LG__ENVELOPE__BODY_PREPARED;
    env.prepared = &pd;
    o = s_roundtrip(&env);
    assert_int_equal(o->prepared->run_id, 11);
    lg_wire_envelope_destroy(&o);
    env.body_case = LG__ENVELOPE__BODY_START;
    env.start = &st;
    o = s_roundtrip(&env);
    assert_true(o->start->start_at_us == 1796030599586000);
    lg_wire_envelope_destroy(&o);
    env.body_case = LG__ENVELOPE__BODY_STOP;
    env.stop = &sp;
    o = s_roundtrip(&env);
    assert_int_equal(o->stop->run_id, 13);
    lg_wire_envelope_destroy(&o);
    env.body_case = LG__ENVELOPE__BODY_RUN_ERROR;
    env.run_error = &re;
    o = s_roundtrip(&env);
    assert_int_equal(o->run_error->code, LG_EDENIED);
    assert_string_equal(o->run_error->message, "target outside allow-list");
    lg_wire_envelope_destroy(&o);
    env.body_case = LG__ENVELOPE__BODY_ACK_MSG;
    env.ack_msg = &ack;
    o = s_roundtrip(&env);
    assert_int_equal(o->ack_msg->seq, 99);
    assert_true(o->ack_msg->result);
    lg_wire_envelope_destroy(&o);
    Lg__Ping pi = LG__PING__INIT;
    pi.t0_us = 1796030599586123;
    Lg__Pong po = LG__PONG__INIT;
    po.t0_us = 1796030599586123;
    po.t1_us = -5;
    env.body_case = LG__ENVELOPE__BODY_PING;
    env.ping = &pi;
    o = s_roundtrip(&env);
    assert_true(o->ping->t0_us == 1796030599586123);
    lg_wire_envelope_destroy(&o);
    env.body_case = LG__ENVELOPE__BODY_PONG;
    env.pong = &po;
    o = s_roundtrip(&env);
    assert_true(o->pong->t0_us == 1796030599586123 && o->pong->t1_us == -5);
    lg_wire_envelope_destroy(&o);
    env.body_case = LG__ENVELOPE__BODY_CTL_REQUEST;
    env.ctl_request = &q;
    o = s_roundtrip(&env);
    assert_string_equal(o->ctl_request->spec_text, "name: x\n");
    lg_wire_envelope_destroy(&o);
    env.body_case = LG__ENVELOPE__BODY_CTL_REPLY;
    env.ctl_reply = &r;
    o = s_roundtrip(&env);
    assert_int_equal(o->ctl_reply->code, LG_ESPEC);
    assert_int_equal(o->ctl_reply->runs_total, 5);
    lg_wire_envelope_destroy(&o);
}

/* lgctl plan --check: the controller's Check (a run spec), the agent's CheckResult, and the
 * CtlReply's items. */
static void test_check(void **state)
{
    (void)state;
    Lg__RunSpec rs = LG__RUN_SPEC__INIT;
    rs.target_kind = LG__TARGET_KIND__TARGET_ISCSI;
    rs.target = (char *)"iscsi://127.0.0.1:3260/iqn.2026-11.test:lun0/7";
    rs.size = 1ull << 30;
    Lg__Check ck = LG__CHECK__INIT;
    ck.check_id = 42;
    ck.spec = &rs;
    Lg__Envelope env = LG__ENVELOPE__INIT;
    env.body_case = LG__ENVELOPE__BODY_CHECK;
    env.check = &ck;
    Lg__Envelope *o = s_roundtrip(&env);
    assert_int_equal(o->check->check_id, 42);
    assert_string_equal(o->check->spec->target, rs.target);
    assert_true(o->check->spec->size == 1ull << 30);
    lg_wire_envelope_destroy(&o);
    Lg__CheckResult cr = LG__CHECK_RESULT__INIT;
    cr.check_id = 42;
    cr.code = -ENOSPC;
    cr.message = (char *)"LUN 7 holds 1024 bytes, less than size: 1073741824";
    cr.size = 1024;
    env.body_case = LG__ENVELOPE__BODY_CHECK_RESULT;
    env.check_result = &cr;
    o = s_roundtrip(&env);
    assert_int_equal(o->check_result->code, -ENOSPC);
    assert_true(o->check_result->size == 1024);
    assert_string_equal(o->check_result->message, cr.message);
    lg_wire_envelope_destroy(&o);
    Lg__CheckItem it = LG__CHECK_ITEM__INIT, *itp[1] = {&it};
    it.agent = (char *)"h1";
    it.target = rs.target;
    it.code = -ENOENT;
    it.message = (char *)"LUN 7 is not there";
    Lg__CtlReply r = LG__CTL_REPLY__INIT;
    r.n_checks = 1;
    r.checks = itp;
    env.body_case = LG__ENVELOPE__BODY_CTL_REPLY;
    env.ctl_reply = &r;
    o = s_roundtrip(&env);
    assert_int_equal(o->ctl_reply->n_checks, 1);
    assert_string_equal(o->ctl_reply->checks[0]->agent, "h1");
    assert_int_equal(o->ctl_reply->checks[0]->code, -ENOENT);
    lg_wire_envelope_destroy(&o);
}

static void test_prepare(void **state)
{
    (void)state;
    Lg__RunSpec s = LG__RUN_SPEC__INIT;
    s.run_id = 5;
    s.target_kind = LG__TARGET_KIND__TARGET_FILE;
    s.target = "/mnt/nas/lg.bin";
    s.size = 1ull << 30;
    s.rw = "randrw";
    s.bs = 8192;
    s.read_pct = 70;
    s.threads = 16;
    s.qd = 16;
    s.ramp_s = 10;
    s.runtime_s = 60;
    s.direct = 1;
    Lg__Prepare p = LG__PREPARE__INIT;
    p.spec = &s;
    Lg__Envelope env = LG__ENVELOPE__INIT;
    env.body_case = LG__ENVELOPE__BODY_PREPARE;
    env.prepare = &p;
    Lg__Envelope *o = s_roundtrip(&env);
    const Lg__RunSpec *r = o->prepare->spec;
    assert_string_equal(r->target, "/mnt/nas/lg.bin");
    assert_string_equal(r->rw, "randrw");
    assert_int_equal(r->bs, 8192);
    assert_int_equal(r->read_pct, 70);
    assert_int_equal(r->threads, 16);
    assert_int_equal(r->qd, 16);
    assert_true(r->size == 1ull << 30);
    assert_true(r->direct);
    lg_wire_envelope_destroy(&o);
}

static void s_fill(lg_dirstats_t *s)
{
    lg_dirstats_init(s);
    s->ios = 123456789;
    s->bytes = 123456789ull * 4096;
    s->runtime_ms = 5001;
    s->iops = 24686.215157;
    s->bw_bytes = 101114737.0;
    s->lat_n = 123456780;
    s->lat_min = 151;
    s->lat_max = 3120456;
    s->lat_mean = 161.234567890123;
    s->lat_stddev = 12.000000001;
    lg_dirstats_derive_sums(s);
    s->has_hist = true;
    s->hist.bins[0] = 1;
    s->hist.bins[100] = 1000;
    s->hist.bins[LG_HIST_NR - 1] = 3;
}

static void test_sample_and_result(void **state)
{
    (void)state;
    lg_dirstats_t *in = malloc(sizeof *in), *out = malloc(sizeof *out);
    s_fill(in);
    Lg__DirStats *d = lg_wire_dirstats_new(in, LG_DIR_WRITE);
    assert_non_null(d);
    /* The histogram travels packed (lg_hist_pack's bytes), not as a message per bucket. */
    assert_int_equal(d->n_hist, 0);
    static uint8_t packed[LG_HIST_PACK_MAX];
    assert_int_equal(d->hist_packed.len, lg_hist_pack(&in->hist, packed));
    assert_memory_equal(d->hist_packed.data, packed, d->hist_packed.len);
    Lg__Sample smp = LG__SAMPLE__INIT;
    smp.run_id = 3;
    smp.seq = 17;
    smp.t_ms = 1796030599586;
    smp.interval_ms = 1000;
    smp.n_dirs = 1;
    smp.dirs = &d;
    smp.host_cpu_pct = 97.25; /* the load host's CPU (lg_cpu.h); NaN: not known */
    smp.fio_cpu_pct = NAN;
    smp.host_cpus = 8;
    Lg__Envelope env = LG__ENVELOPE__INIT;
    env.body_case = LG__ENVELOPE__BODY_SAMPLE;
    env.sample = &smp;
    Lg__Envelope *o = s_roundtrip(&env);
    assert_int_equal(o->sample->seq, 17);
    assert_true(o->sample->host_cpu_pct == 97.25);
    assert_true(isnan(o->sample->fio_cpu_pct));
    assert_int_equal(o->sample->host_cpus, 8);
    lg_dir_t dir;
    assert_int_equal(lg_wire_dirstats_get(o->sample->dirs[0], out, &dir), 0);
    assert_int_equal(dir, LG_DIR_WRITE);
    /* Bit-exact: the same struct comes out. */
    assert_memory_equal(in, out, sizeof *in);
    lg_wire_envelope_destroy(&o);

    Lg__RunResult rr = LG__RUN_RESULT__INIT;
    rr.run_id = 3;
    rr.n_dirs = 1;
    rr.dirs = &d;
    rr.fio_json = "{\n\"jobs\": []\n}";
    rr.njobs = 4;
    rr.samples = 17;
    env.body_case = LG__ENVELOPE__BODY_RUN_RESULT;
    env.run_result = &rr;
    o = s_roundtrip(&env);
    assert_string_equal(o->run_result->fio_json, "{\n\"jobs\": []\n}");
    assert_int_equal(o->run_result->njobs, 4);
    assert_int_equal(lg_wire_dirstats_get(o->run_result->dirs[0], out, &dir), 0);
    assert_memory_equal(in, out, sizeof *in);
    lg_wire_envelope_destroy(&o);

    /* An older agent's per-bucket form is still read, to the same figures. */
    Lg__HistBin hb[3] = {LG__HIST_BIN__INIT, LG__HIST_BIN__INIT, LG__HIST_BIN__INIT};
    Lg__HistBin *hp[3] = {&hb[0], &hb[1], &hb[2]};
    hb[0].idx = 0, hb[0].count = 1;
    hb[1].idx = 100, hb[1].count = 1000;
    hb[2].idx = LG_HIST_NR - 1, hb[2].count = 3;
    ProtobufCBinaryData keep = d->hist_packed;
    d->hist_packed.len = 0;
    d->hist_packed.data = NULL;
    d->n_hist = 3;
    d->hist = hp;
    assert_int_equal(lg_wire_dirstats_get(d, out, &dir), 0);
    assert_memory_equal(in, out, sizeof *in);
    /* A histogram index beyond fio's 1856 buckets is malformed, in either form. */
    hb[0].idx = LG_HIST_NR;
    assert_int_equal(lg_wire_dirstats_get(d, out, &dir), LG_EPROTO);
    d->n_hist = 0;
    d->hist = NULL;
    uint8_t far[] = {1, 0x0f, 0xb9, 0x0e}, loose[] = {1, 0x88, 0x00};
    d->hist_packed.data = far;
    d->hist_packed.len = sizeof far;
    assert_int_equal(lg_wire_dirstats_get(d, out, &dir), LG_EPROTO);
    d->hist_packed.data = loose; /* not canonical: refused, not silently re-encoded */
    d->hist_packed.len = sizeof loose;
    assert_int_equal(lg_wire_dirstats_get(d, out, &dir), LG_EPROTO);
    d->hist_packed = keep;
    lg_wire_dirstats_destroy(&d);
    free(in);
    free(out);
}

static void test_malformed(void **state)
{
    (void)state;
    char err[160];
    const uint8_t junk[] = {0xff, 0xff, 0xff, 0xff, 0x0f, 0x01, 0x02};
    assert_null(lg_wire_unpack(junk, sizeof junk, err, sizeof err));
    assert_non_null(strstr(err, "not a valid Envelope"));
    /* A valid protobuf without a body. */
    Lg__Envelope env = LG__ENVELOPE__INIT;
    uint8_t *buf;
    size_t len;
    assert_int_equal(lg_wire_pack(&env, &buf, &len), 0);
    assert_null(lg_wire_unpack(buf, len, err, sizeof err));
    assert_non_null(strstr(err, "without a body"));
    free(buf);
    /* A frame from a future wire version. */
    Lg__Stop sp = LG__STOP__INIT;
    env.body_case = LG__ENVELOPE__BODY_STOP;
    env.stop = &sp;
    assert_int_equal(lg_wire_pack(&env, &buf, &len), 0);
    Lg__Envelope *e = lg__envelope__unpack(NULL, len, buf);
    free(buf);
    e->version = 99;
    len = lg__envelope__get_packed_size(e);
    buf = malloc(len);
    lg__envelope__pack(e, buf);
    lg__envelope__free_unpacked(e, NULL);
    assert_null(lg_wire_unpack(buf, len, err, sizeof err));
    assert_non_null(strstr(err, "version 99"));
    free(buf);
    /* Every truncation of a real message is either rejected or parses; never a crash. */
    Lg__Hello h = LG__HELLO__INIT;
    h.name = "a-rather-long-agent-name";
    env.body_case = LG__ENVELOPE__BODY_HELLO;
    env.hello = &h;
    assert_int_equal(lg_wire_pack(&env, &buf, &len), 0);
    for (size_t n = 0; n < len; n++) {
        Lg__Envelope *x = lg_wire_unpack(buf, n, err, sizeof err);
        lg_wire_envelope_destroy(&x);
    }
    free(buf);
}

/* Over a real ZeroMQ pair: a garbage frame is dropped and counted, the next message arrives. */
static void test_socket_drop(void **state)
{
    (void)state;
    void *ctx = zmq_ctx_new();
    void *a = zmq_socket(ctx, ZMQ_PAIR), *b = zmq_socket(ctx, ZMQ_PAIR);
    assert_int_equal(lg_wire_sock_setup(a), 0);
    assert_int_equal(lg_wire_sock_setup(b), 0);
    assert_int_equal(zmq_bind(a, "inproc://t"), 0);
    assert_int_equal(zmq_connect(b, "inproc://t"), 0);
    uint64_t before = lg_wire_malformed();
    zmq_send(b, "garbage!", 8, 0);
    Lg__Stop sp = LG__STOP__INIT;
    sp.run_id = 77;
    Lg__Envelope env = LG__ENVELOPE__INIT;
    env.body_case = LG__ENVELOPE__BODY_STOP;
    env.stop = &sp;
    assert_int_equal(lg_wire_send(b, NULL, 0, &env), 0);
    zmq_pollitem_t it = {a, 0, ZMQ_POLLIN, 0};
    Lg__Envelope *got = NULL;
    int dropped = 0;
    for (int i = 0; i < 50 && !got; i++) {
        zmq_poll(&it, 1, 100);
        int rc = lg_wire_recv(a, 0, NULL, NULL, NULL, &got);
        if (rc == LG_EPROTO)
            dropped++;
    }
    assert_int_equal(dropped, 1);
    assert_true(lg_wire_malformed() == before + 1);
    assert_non_null(got);
    assert_int_equal(got->stop->run_id, 77);
    lg_wire_envelope_destroy(&got);
    zmq_close(a);
    zmq_close(b);
    zmq_ctx_term(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hello),       cmocka_unit_test(test_small_bodies),
        cmocka_unit_test(test_prepare),     cmocka_unit_test(test_sample_and_result),
        cmocka_unit_test(test_check),       cmocka_unit_test(test_malformed),
        cmocka_unit_test(test_socket_drop),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
