/* gen_wire_seeds.c: writes the seed corpus of fuzz_wire (tests/fuzz/corpus/wire/): one packed
 * Envelope per body type the handlers read, plus a few malformed frames. Run it by hand after a
 * change to lg.proto: gen_wire_seeds DIR. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lg_stats.h"
#include "lg_wire.h"

static const char *s_out;

static int s_save(const char *name, const uint8_t *buf, size_t len)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", s_out, name);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(buf, 1, len, f) != len || fclose(f) != 0) {
        fprintf(stderr, "could not write \"%s\"\n", path);
        return 1;
    }
    return 0;
}

static int s_env(const char *name, Lg__Envelope *env)
{
    uint8_t *buf;
    size_t len;
    if (lg_wire_pack(env, &buf, &len) != 0)
        return 1;
    int rc = s_save(name, buf, len);
    free(buf);
    return rc;
}

static lg_dirstats_t *s_stats(void)
{
    lg_dirstats_t *s = calloc(1, sizeof *s);
    if (!s)
        exit(1);
    lg_dirstats_init(s);
    s->ios = 1000;
    s->bytes = 4096000;
    s->runtime_ms = 1000;
    s->has_hist = true;
    s->hist.bins[lg_hist_idx(80000)] = 600;
    s->hist.bins[lg_hist_idx(250000)] = 399;
    s->hist.bins[lg_hist_idx(9000000)] = 1;
    return s;
}

int main(int argc, char **argv)
{
    int rc = 0;
    if (argc != 2) {
        fprintf(stderr, "usage: gen_wire_seeds DIR\n");
        return 2;
    }
    s_out = argv[1];

    lg_dirstats_t *st = s_stats();
    Lg__DirStats *dr = lg_wire_dirstats_new(st, LG_DIR_READ);
    Lg__DirStats *dw = lg_wire_dirstats_new(st, LG_DIR_WRITE);
    Lg__DirStats *dirs[2] = {dr, dw};

    Lg__Sample sample = LG__SAMPLE__INIT;
    sample.run_id = 7;
    sample.seq = 3;
    sample.t_ms = 1764511200000;
    sample.interval_ms = 1000;
    sample.n_dirs = 2;
    sample.dirs = dirs;
    Lg__Envelope e1 = LG__ENVELOPE__INIT;
    e1.seq = 1;
    e1.body_case = LG__ENVELOPE__BODY_SAMPLE;
    e1.sample = &sample;
    rc |= s_env("sample.bin", &e1);

    /* an application run's report and totals: no directions, Sample.app / RunResult.app */
    Lg__AppStats as = LG__APP_STATS__INIT;
    as.tps = 1738.2;
    as.qps = 34764.0;
    as.read_qps = 24334.8;
    as.write_qps = 6952.8;
    as.other_qps = 3476.4;
    as.lat_avg_ms = NAN;
    as.lat_stddev_ms = NAN;
    as.lat_pct_ms = 18.4;
    as.pct = 95;
    as.threads = 16;
    Lg__Sample asmp = LG__SAMPLE__INIT;
    asmp.run_id = 8;
    asmp.seq = 1;
    asmp.t_ms = 1764511200000;
    asmp.interval_ms = 1000;
    asmp.app = &as;
    Lg__Envelope ea = LG__ENVELOPE__INIT;
    ea.body_case = LG__ENVELOPE__BODY_SAMPLE;
    ea.sample = &asmp;
    rc |= s_env("sample_app.bin", &ea);
    Lg__AppTotals at = LG__APP_TOTALS__INIT;
    at.kind = LG__APP_KIND__APP_PGBENCH;
    at.transactions = 17679;
    at.tps = 3539.04;
    at.qps = NAN;
    at.lat_avg_ms = 1.127;
    at.lat_stddev_ms = 0.4;
    at.threads = 4;
    at.scale = 2;
    at.prepare_ms = 1922;
    at.output = "number of transactions actually processed: 17679\ntps = 3539.041054 (without "
                "initial connection time)\n";
    Lg__RunResult ares = LG__RUN_RESULT__INIT;
    ares.run_id = 8;
    ares.samples = 5;
    ares.fio_json = "";
    ares.app = &at;
    Lg__Envelope eb = LG__ENVELOPE__INIT;
    eb.body_case = LG__ENVELOPE__BODY_RUN_RESULT;
    eb.run_result = &ares;
    rc |= s_env("run_result_app.bin", &eb);

    Lg__RunResult res = LG__RUN_RESULT__INIT;
    res.run_id = 7;
    res.n_dirs = 1;
    res.dirs = dirs;
    res.fio_json =
        "{\"fio version\":\"fio-3.33\",\"jobs\":[{\"jobname\":\"lg\",\"read\":"
        "{\"io_bytes\":4096,\"total_ios\":1,\"runtime\":1,\"iops\":1.0,\"bw_bytes\":4096,"
        "\"clat_ns\":{\"N\":1,\"min\":100,\"max\":100,\"mean\":100.0,\"stddev\":0.0}}}]}";
    res.fio_exit = 0;
    res.samples = 3;
    res.njobs = 1;
    Lg__Envelope e2 = LG__ENVELOPE__INIT;
    e2.body_case = LG__ENVELOPE__BODY_RUN_RESULT;
    e2.run_result = &res;
    rc |= s_env("run_result.bin", &e2);

    Lg__BsSplit b1 = LG__BS_SPLIT__INIT, b2 = LG__BS_SPLIT__INIT;
    b1.bs = 4096;
    b1.pct = 70;
    b2.bs = 65536;
    b2.pct = 30;
    Lg__BsSplit *bss[2] = {&b1, &b2};
    Lg__RunSpec spec = LG__RUN_SPEC__INIT;
    spec.run_id = 7;
    spec.target_kind = LG__TARGET_KIND__TARGET_FILE;
    spec.target = "/srv/lg/testfile";
    spec.size = 1 << 30;
    spec.rw = "randrw";
    spec.bs = 4096;
    spec.read_pct = 70;
    spec.threads = 4;
    spec.qd = 32;
    spec.ramp_s = 2;
    spec.runtime_s = 30;
    spec.direct = 1;
    spec.compress_ratio = 2.0;
    spec.dedup_ratio = 1.5;
    spec.dedup_unit = 4096;
    Lg__Prepare prep = LG__PREPARE__INIT;
    prep.spec = &spec;
    Lg__Envelope e3 = LG__ENVELOPE__INIT;
    e3.body_case = LG__ENVELOPE__BODY_PREPARE;
    e3.prepare = &prep;
    rc |= s_env("prepare.bin", &e3);
    spec.n_bssplit = 2;
    spec.bssplit = bss;
    spec.target_kind = LG__TARGET_KIND__TARGET_SMB;
    spec.target = "smb://nas/share/lg/file";
    spec.rw = "read";
    rc |= s_env("prepare_smb_bssplit.bin", &e3);
    spec.target_kind = LG__TARGET_KIND__TARGET_FILE;
    spec.target = "/srv/lg/../etc/passwd";
    rc |= s_env("prepare_dotdot.bin", &e3);

    Lg__CtlRequest req = LG__CTL_REQUEST__INIT;
    req.op = LG__CTL_REQUEST__OP__OP_SUBMIT;
    req.spec_path = "quick.yaml";
    req.spec_text = "name: quick\nsut:\n  labels:\n    build: local\n    media: file\n"
                    "target: /tmp/lg-quick/data.bin\nsize: 256M\nprofiles: [4k-rand, 128k-seq]\n"
                    "threads: 2\nqd: 4\nramp: 1s\nruntime: 5s\ndirect: true\n"
                    "precondition: none\n";
    Lg__Envelope e4 = LG__ENVELOPE__INIT;
    e4.body_case = LG__ENVELOPE__BODY_CTL_REQUEST;
    e4.ctl_request = &req;
    rc |= s_env("ctl_submit.bin", &e4);

    const char *labels[2] = {"rack=a", "disk=nvme"};
    Lg__Hello hello = LG__HELLO__INIT;
    hello.name = "a1";
    hello.lg_version = "0.1";
    hello.n_labels = 2;
    hello.labels = (char **)labels;
    Lg__Envelope e5 = LG__ENVELOPE__INIT;
    e5.body_case = LG__ENVELOPE__BODY_HELLO;
    e5.hello = &hello;
    rc |= s_env("hello.bin", &e5);

    Lg__Ack ack = LG__ACK__INIT;
    ack.run_id = 7;
    ack.seq = 3;
    ack.result = 1;
    Lg__Envelope e6 = LG__ENVELOPE__INIT;
    e6.body_case = LG__ENVELOPE__BODY_ACK_MSG;
    e6.ack_msg = &ack;
    rc |= s_env("ack.bin", &e6);

    /* Malformed: a bucket index out of range, a direction out of range, truncated frames,
     * a wrong version and no body. */
    /* count 1, gap 7 + 2000: bucket 2007, past the last (LG_HIST_NR is 1856) */
    static uint8_t bad_bucket[] = {0x01, 0x0f, 0xd0, 0x0f};
    ProtobufCBinaryData keep = dr->hist_packed;
    dr->hist_packed.data = bad_bucket;
    dr->hist_packed.len = sizeof bad_bucket;
    rc |= s_env("sample_bad_bucket.bin", &e1);
    dr->hist_packed = keep;
    dr->dir = (Lg__Direction)9;
    rc |= s_env("sample_bad_dir.bin", &e1);
    uint8_t *buf;
    size_t len;
    if (lg_wire_pack(&e2, &buf, &len) == 0) {
        rc |= s_save("run_result_truncated.bin", buf, len / 2);
        free(buf);
    }
    static const uint8_t v2[] = {0x08, 0x02, 0xa2, 0x01, 0x02, 0x08, 0x01}; /* version 2, Ack */
    static const uint8_t nobody[] = {0x08, 0x01, 0x10, 0x05};
    static const uint8_t garbage[] = {0xff, 0xff, 0xff, 0xff, 0x0f, 0x12, 0x80};
    rc |= s_save("version2.bin", v2, sizeof v2);
    rc |= s_save("nobody.bin", nobody, sizeof nobody);
    rc |= s_save("garbage.bin", garbage, sizeof garbage);

    lg_wire_dirstats_destroy(&dr);
    lg_wire_dirstats_destroy(&dw);
    free(st);
    return rc;
}
