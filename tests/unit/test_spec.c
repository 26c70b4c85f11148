/* test_spec.c: unit tests for core/lg_spec.c — exact parse results and run plan, defaults, and
 * for each class of spec error the line, key and message an operator would see.
 * Run from the source root (examples/quick.yaml is read relative to LG_SOURCE_DIR). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lg_error.h"
#include "lg_spec.h"
#include "lg_util.h"

#ifndef LG_SOURCE_DIR
#define LG_SOURCE_DIR "."
#endif

/* Lines 1-3 of most error cases; the line under test is then line 4 or later. */
#define BASE "name: t\ntarget: /tmp/x\nprofiles: [4k-rand]\n"

static lg_spec_t *parse_ok(const char *text)
{
    lg_spec_t *spec = NULL;
    lg_spec_diag_t d;
    int rc = lg_spec_parse_text(text, strlen(text), "t.yaml", &spec, &d);
    if (rc != 0) {
        char buf[1024];
        lg_spec_diag_format(&d, buf, sizeof buf);
        print_error("unexpected error %d: %s\n", rc, buf);
    }
    assert_int_equal(rc, 0);
    assert_non_null(spec);
    return spec;
}

static void test_full_spec(void **state)
{
    (void)state;
    const char *text = "# a comment\n"
                       "name: quick\n"
                       "sut:\n"
                       "  labels:\n"
                       "    build: local\n"
                       "    media: ssd\n"
                       "    compression: lz4\n"
                       "target: /tmp/lg-quick/data.bin\n"
                       "size: 256M\n"
                       "profiles: [4k-rand, {name: 8k-7030, sweep: none}, 128k-seq]\n"
                       "precondition: none\n"
                       "threads: 2\n"
                       "qd: 4\n"
                       "ramp: 1s\n"
                       "runtime: 2m\n"
                       "direct: false\n";
    lg_spec_t *s = parse_ok(text);
    assert_string_equal(s->path, "t.yaml");
    assert_string_equal(s->text, text);
    assert_string_equal(s->name, "quick");
    assert_int_equal(s->configs[0].nlabels, 3);
    assert_string_equal(s->configs[0].labels[0].key, "build");
    assert_string_equal(s->configs[0].labels[0].value, "local");
    assert_string_equal(s->configs[0].labels[1].key, "media");
    assert_string_equal(s->configs[0].labels[1].value, "ssd");
    assert_string_equal(s->configs[0].labels[2].key, "compression");
    assert_string_equal(s->configs[0].labels[2].value, "lz4");
    assert_int_equal(s->configs[0].targets[0].kind, LG_TARGET_FILE);
    assert_string_equal(s->configs[0].targets[0].path, "/tmp/lg-quick/data.bin");
    assert_true(s->size == 256ull * 1024 * 1024);
    assert_int_equal(s->nprofiles, 3);
    assert_string_equal(s->profiles[0].name, "4k-rand");
    assert_int_equal(s->profiles[0].bs, 4096);
    assert_true(s->profiles[0].random);
    assert_int_equal(s->profiles[0].read_pct, -1);
    assert_string_equal(s->profiles[1].name, "8k-7030");
    assert_int_equal(s->profiles[1].read_pct, 70);
    assert_string_equal(s->profiles[2].name, "128k-seq");
    assert_int_equal(s->profiles[2].bs, 131072);
    assert_false(s->profiles[2].random);
    assert_int_equal(s->threads, 2);
    assert_int_equal(s->qd, 4);
    assert_int_equal(s->ramp_s, 1);
    assert_int_equal(s->runtime_s, 120);
    assert_false(s->direct);

    lg_run_plan_t *runs = NULL;
    size_t n = 0;
    assert_int_equal(lg_spec_plan(s, &runs, &n), 0);
    assert_int_equal(n, 5);
    static const struct {
        const char *profile, *rw, *dir;
        uint32_t bs;
        int pct;
    } want[] = {
        {"4k-rand", "randread", "read", 4096, 100}, {"4k-rand", "randwrite", "write", 4096, 0},
        {"8k-7030", "randrw", "mixed", 8192, 70},   {"128k-seq", "read", "read", 131072, 100},
        {"128k-seq", "write", "write", 131072, 0},
    };
    for (size_t i = 0; i < n; i++) {
        assert_string_equal(runs[i].profile, want[i].profile);
        assert_string_equal(runs[i].rw, want[i].rw);
        assert_string_equal(runs[i].direction, want[i].dir);
        assert_int_equal(runs[i].bs, want[i].bs);
        assert_int_equal(runs[i].read_pct, want[i].pct);
        assert_int_equal(runs[i].threads, 2);
        assert_int_equal(runs[i].qd, 4);
        assert_int_equal(runs[i].ramp_s, 1);
        assert_int_equal(runs[i].runtime_s, 120);
    }
    free(runs);
    lg_spec_destroy(&s);
    assert_null(s);
    lg_spec_destroy(&s); /* a second destroy is a no-op */
}

static void test_defaults(void **state)
{
    (void)state;
    lg_spec_t *s = parse_ok("name: d\ntarget: file:/x/y\nprofiles:\n  - 8k-seq\n");
    assert_string_equal(s->name, "d");
    assert_int_equal(s->configs[0].nlabels, 0);
    assert_null(s->configs[0].labels);
    assert_int_equal(s->configs[0].targets[0].kind, LG_TARGET_FILE);
    assert_string_equal(s->configs[0].targets[0].path, "/x/y");
    assert_true(s->size == 1024ull * 1024 * 1024);
    assert_int_equal(s->threads, 16);
    assert_int_equal(s->qd, 16);
    assert_int_equal(s->ramp_s, 0);
    assert_int_equal(s->runtime_s, 60);
    assert_true(s->direct);
    assert_int_equal(s->nprofiles, 1);
    assert_int_equal(s->profiles[0].bs, 8192);
    lg_spec_destroy(&s);
}

static void test_targets(void **state)
{
    (void)state;
    const char *nulls[] = {"name: n\ntarget: null\nprofiles: [4k-rand]\n",
                           "name: n\ntarget: \"null:\"\nprofiles: [4k-rand]\n"};
    for (size_t i = 0; i < sizeof nulls / sizeof nulls[0]; i++) {
        lg_spec_t *s = parse_ok(nulls[i]);
        assert_int_equal(s->configs[0].targets[0].kind, LG_TARGET_NULL);
        assert_string_equal(s->configs[0].targets[0].path, "");
        lg_spec_destroy(&s);
    }
}

static void test_custom_profiles(void **state)
{
    (void)state;
    lg_spec_t *s = parse_ok("name: c\n"
                            "target: /x\n"
                            "profiles:\n"
                            "  - {name: big-seq, bs: 64k, pattern: sequential, read: 100}\n"
                            "  - name: w512\n"
                            "    bs: 512\n"
                            "    pattern: random\n"
                            "    read: 0\n"
                            "  - {name: mix, bs: 16KiB, pattern: random, read: 30}\n"
                            "  - {name: both, bs: 1M, pattern: sequential, read: split}\n"
                            "  - {name: dflt, bs: 8k, pattern: random}\n"
                            "  - {name: 8k-7030, sweep: none}\n"
                            "precondition: none\n");
    assert_int_equal(s->nprofiles, 6);
    assert_string_equal(s->profiles[0].name, "big-seq");
    assert_int_equal(s->profiles[0].bs, 65536);
    assert_false(s->profiles[0].random);
    assert_int_equal(s->profiles[0].read_pct, 100);
    assert_int_equal(s->profiles[1].bs, 512);
    assert_int_equal(s->profiles[2].bs, 16384);
    assert_int_equal(s->profiles[3].bs, 1048576);
    assert_int_equal(s->profiles[3].read_pct, -1);
    assert_int_equal(s->profiles[4].read_pct, -1);

    lg_run_plan_t *runs = NULL;
    size_t n = 0;
    assert_int_equal(lg_spec_plan(s, &runs, &n), 0);
    static const char *const want[][3] = {
        {"big-seq", "read", "read"},    {"w512", "randwrite", "write"},
        {"mix", "randrw", "mixed"},     {"both", "read", "read"},
        {"both", "write", "write"},     {"dflt", "randread", "read"},
        {"dflt", "randwrite", "write"}, {"8k-7030", "randrw", "mixed"},
    };
    assert_int_equal(n, sizeof want / sizeof want[0]);
    for (size_t i = 0; i < n; i++) {
        assert_string_equal(runs[i].profile, want[i][0]);
        assert_string_equal(runs[i].rw, want[i][1]);
        assert_string_equal(runs[i].direction, want[i][2]);
    }
    assert_int_equal(runs[2].read_pct, 30);
    free(runs);
    lg_spec_destroy(&s);
}

typedef struct {
    const char *what;
    const char *text;
    int line;        /* expected 1-based line */
    const char *key; /* expected key path */
    const char *msg; /* substring of the message */
} err_case_t;

static const err_case_t s_errors[] = {
    {"bad yaml", "name: t\ntarget: /x\nprofiles: [4k-rand\nqd: 4\n", 4, "",
     "invalid YAML: did not find expected ',' or ']' while parsing a flow sequence started on "
     "line 3"},
    {"bad yaml indent", "name: t\n target: /x\n", 2, "", "invalid YAML"},
    {"empty", "", 1, "", "the spec is empty"},
    {"comment only", "# nothing\n", 1, "", "the spec is empty"},
    {"top sequence", "- name\n- t\n", 1, "", "must be a mapping"},
    {"top scalar", "hello\n", 1, "", "got a scalar"},
    {"unknown key", BASE "colour: red\n", 4, "colour",
     "unknown key; allowed: name, sut, target, protocol, configs, size, profiles, threads, qd, "
     "ramp, runtime, repeats, retries, direct, precondition, data, between_configs"},
    {"duplicate key", BASE "qd: 4\nqd: 8\n", 5, "qd", "duplicate key (first given on line 4)"},
    {"missing target", "name: t\nprofiles: [4k-rand]\nqd: 2\n", 1, "target",
     "missing required key"},
    {"missing name", "\n\ntarget: /x\nprofiles: [4k-rand]\n", 3, "name", "missing required key"},
    {"missing profiles", "name: t\ntarget: /x\n", 1, "profiles", "missing required key"},
    {"sequence for scalar", BASE "threads:\n  - 1\n  - 2\n", 5, "threads",
     "must be a scalar, got a sequence"},
    {"mapping for name", "name: {a: b}\ntarget: /x\nprofiles: [4k-rand]\n", 1, "name",
     "must be a scalar, got a mapping"},
    {"unknown profile", "name: t\ntarget: /x\nprofiles: [4k-rand, 4k-random]\n", 3, "profiles[1]",
     "unknown profile \"4k-random\"; known: 4k-rand, 8k-7030, 8k-seq, 128k-seq"},
    {"unknown profile block", "name: t\ntarget: /x\nprofiles:\n  - 8k-seq\n  - 4k\n", 5,
     "profiles[1]", "unknown profile \"4k\""},
    {"profile listed twice", "name: t\ntarget: /x\nprofiles: [8k-seq, 8k-seq]\n", 3, "profiles[1]",
     "already listed as profiles[0]"},
    {"profiles empty", "name: t\ntarget: /x\nprofiles: []\n", 3, "profiles", "at least one"},
    {"profiles scalar", "name: t\ntarget: /x\nprofiles: 4k-rand\n", 3, "profiles",
     "must be a sequence"},
    {"negative qd", BASE "qd: -4\n", 4, "qd", "must be an integer from 1 to 1024, got \"-4\""},
    {"zero qd", BASE "qd: 0\n", 4, "qd", "got \"0\""},
    {"qd too big", BASE "qd: 4097\n", 4, "qd", "got \"4097\""},
    {"qd plus", BASE "qd: +4\n", 4, "qd", "got \"+4\""},
    {"qd garbage", BASE "qd: 4x\n", 4, "qd", "got \"4x\""},
    {"qd space", BASE "qd: \" 4\"\n", 4, "qd", "got \" 4\""},
    {"qd hex", BASE "qd: 0x10\n", 4, "qd", "got \"0x10\""},
    {"qd overflow", BASE "qd: 99999999999999999999999\n", 4, "qd", "integer from 1 to 1024"},
    {"qd empty", BASE "qd:\n", 4, "qd", "got \"\""},
    {"threads too big", BASE "threads: 257\n", 4, "threads", "from 1 to 256, got \"257\""},
    {"threads zero", BASE "\nthreads: 0\n", 5, "threads", "from 1 to 256"},
    {"runtime zero", BASE "runtime: 0s\n", 4, "runtime", "at least 1s"},
    {"runtime bad unit", BASE "runtime: 5x\n", 4, "runtime", "got \"5x\""},
    {"ramp negative", BASE "ramp: -1s\n", 4, "ramp", "got \"-1s\""},
    {"ramp float", BASE "ramp: 1.5s\n", 4, "ramp", "duration"},
    {"size too small", BASE "size: 512k\n", 4, "size", "at least 1M"},
    /* the whole message, to its last words (a 512-byte buffer once cut it mid-word), with the
     * dedup_unit that would work for 4 KiB writes */
    {"dedup unit larger than the writes", BASE "data: {dedup_ratio: 2}\n", 4, "data",
     "set data.dedup_unit to 4K or less if the pool's recordsize or volblocksize is that small, "
     "use a block size that is a multiple of 128K, or leave dedup_ratio out"},
    {"size bad unit", BASE "size: 1Q\n", 4, "size",
     "is not a size: \"1Q\"; give a number and a unit K, M, G"},
    {"size negative", BASE "size: -1G\n", 4, "size", "is not a size: \"-1G\""},
    {"size smaller than bs",
     "name: t\ntarget: /x\nprofiles: [{name: h, bs: 16M, pattern: random}]"
     "\nsize: 8M\n",
     4, "size", "smaller than the 16777216-byte blocks"},
    {"relative target", "name: t\ntarget: data.bin\nprofiles: [4k-rand]\n", 2, "target",
     "must be an absolute path"},
    {"relative file target", "name: t\ntarget: file:data.bin\nprofiles: [4k-rand]\n", 2, "target",
     "got \"file:data.bin\""},
    {"url target", "name: t\ntarget: http://nas/x\nprofiles: [4k-rand]\n", 2, "target",
     "absolute path"},
    {"newline in target", "name: t\ntarget: \"/x\\nrw=trim\"\nprofiles: [4k-rand]\n", 2, "target",
     "control characters"},
    {"bad name", "name: a b\ntarget: /x\nprofiles: [4k-rand]\n", 1, "name", "1 to 63 characters"},
    {"long name",
     "name: "
     "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
     "\ntarget: /x\nprofiles: [4k-rand]\n",
     1, "name", "1 to 63 characters"},
    {"nul in name", "name: \"a\\0b\"\ntarget: /x\nprofiles: [4k-rand]\n", 1, "name", "NUL"},
    {"bool", BASE "direct: yes\n", 4, "direct", "must be true or false, got \"yes\""},
    {"sut unknown", BASE "sut:\n  label:\n    a: b\n", 5, "sut.label", "allowed under \"sut\""},
    {"sut scalar", BASE "sut: x\n", 4, "sut", "must be a mapping"},
    {"labels sequence", BASE "sut:\n  labels: [a, b]\n", 5, "sut.labels", "must be a mapping"},
    {"label dup", BASE "sut:\n  labels:\n    a: 1\n    a: 2\n", 7, "sut.labels.a", "duplicate"},
    {"label bad key", BASE "sut:\n  labels:\n    ok: 1\n    \"x y\": 2\n", 7, "sut.labels.x y",
     "label names"},
    {"label nested", BASE "sut:\n  labels:\n    a:\n      b: c\n", 7, "sut.labels.a",
     "must be a scalar, got a mapping"},
    {"complex key", BASE "? [a]\n: b\n", 4, "", "keys must be scalars"},
    {"custom collides",
     "name: t\ntarget: /x\nprofiles:\n  - {name: 4k-rand, bs: 4k, pattern: "
     "random}\n",
     4, "profiles[0].bs", "is a standard profile"},
    {"custom bs odd",
     "name: t\ntarget: /x\nprofiles:\n  - name: c\n    bs: 1000\n"
     "    pattern: random\n",
     5, "profiles[0].bs", "multiple of 512"},
    {"custom bs big", "name: t\ntarget: /x\nprofiles:\n  - {name: c, bs: 32M, pattern: random}\n",
     4, "profiles[0].bs", "got \"32M\""},
    {"custom bs small", "name: t\ntarget: /x\nprofiles:\n  - {name: c, bs: 0, pattern: random}\n",
     4, "profiles[0].bs", "from 512 to 16M"},
    {"custom no bs",
     "name: t\ntarget: /x\nprofiles:\n  - 4k-rand\n  - name: c\n"
     "    pattern: random\n",
     5, "profiles[1].bs", "missing required key"},
    {"custom read",
     "name: t\ntarget: /x\nprofiles:\n  - {name: c, bs: 4k, pattern: random, "
     "read: 101}\n",
     4, "profiles[0].read", "0 to 100 or \"split\""},
    {"custom pattern", "name: t\ntarget: /x\nprofiles:\n  - {name: c, bs: 4k, pattern: rand}\n", 4,
     "profiles[0].pattern", "\"random\" or \"sequential\""},
    {"custom unknown key",
     "name: t\ntarget: /x\nprofiles:\n  - {name: c, bs: 4k, pattern: random,"
     " rw: read}\n",
     4, "profiles[0].rw", "allowed in a profile"},
    {"deep nesting", "name: t\nx: [[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]\n", 2, "",
     "nested more than 16 levels deep"},
    {"two documents", BASE "---\nname: u\n", 5, "", "single YAML document"},
    /* The alias resolves to the anchored node, so the error points at "&s". */
    {"alias cycle", "name: t\ntarget: /x\nprofiles: [4k-rand]\nsut: &s\n  labels: *s\n", 4,
     "sut.labels.labels", "must be a scalar, got a mapping"},
    {"agents scalar", BASE "agents: a1\n", 4, "agents", "must be a list of agent names"},
    {"agents empty", BASE "agents: []\n", 4, "agents", "1 to 256 agents"},
    {"agents bad name", BASE "agents: [\"a b\"]\n", 4, "agents[0]", "agent names are"},
    {"agents twice", BASE "agents: [a1, b, a1]\n", 4, "agents[2]",
     "agent \"a1\" is already listed as agents[0]"},
    {"agents name and labels", BASE "agents: [{name: a, labels: {rack: a}}]\n", 4, "agents[0]",
     "either name or labels"},
    {"agents neither", BASE "agents: [{threads: 2}]\n", 4, "agents[0]", "either name or labels"},
    {"agents label key", BASE "agents: [{labels: {Rack: a}}]\n", 4, "agents[0].labels.Rack",
     "agent label names"},
    {"agents threads", BASE "agents: [{name: a, threads: 257}]\n", 4, "agents[0].threads",
     "from 1 to 256, got \"257\""},
    {"agents unknown key", BASE "agents: [{name: a, iodepth: 2}]\n", 4, "agents[0].iodepth",
     "allowed in an agents entry"},
    {"share unknown", BASE "share: split\n", 4, "share", "must be files"},
    {"share range on a file", BASE "share: range\n", 4, "share",
     "share: range needs a block device or LUN"},
    {"share files on a device",
     "name: t\nconfigs:\n  - targets:\n      - {target: block:/dev/sdx,"
     " share: files}\nprofiles: [4k-rand]\n",
     4, "configs[0].targets[0]", "share: files needs a file target"},
    {"target agents scalar",
     "name: t\nconfigs:\n  - targets:\n      - {target: /x, agents: a}\n"
     "profiles: [4k-rand]\n",
     4, "configs[0].targets[0].agents", "must be a list"},
    {"smb password", "name: t\ntarget: smb://u:pw@nas/share/f\nprofiles: [4k-rand]\n", 2, "target",
     "credentials never go in a spec: give the agent --smb-credentials FILE"},
    {"iscsi user", "name: t\ntarget: iscsi://u@nas/iqn.x/1\nprofiles: [4k-rand]\n", 2, "target",
     "--iscsi-chap FILE"},
    {"smb no share", "name: t\ntarget: smb://nas/f\nprofiles: [4k-rand]\n", 2, "target",
     "must name a share and a file"},
    {"smb no host", "name: t\ntarget: smb:///share/f\nprofiles: [4k-rand]\n", 2, "target",
     "has no host"},
    {"smb bad port", "name: t\ntarget: smb://nas:99999/share/f\nprofiles: [4k-rand]\n", 2, "target",
     "bad port"},
    {"iscsi no lun", "name: t\ntarget: iscsi://nas/iqn.x\nprofiles: [4k-rand]\n", 2, "target",
     "must name a target and a LUN"},
    {"iscsi bad lun", "name: t\ntarget: iscsi://nas/iqn.x/a\nprofiles: [4k-rand]\n", 2, "target",
     "the LUN must be a number"},
    {"dir relative", "name: t\ntarget: dir:x\nprofiles: [4k-rand]\n", 2, "target",
     "dir: needs an absolute path"},
    {"share range on smb", "name: t\ntarget: smb://nas/s/f\nprofiles: [4k-rand]\nshare: range\n", 4,
     "share", "share: range needs a block device or LUN"},
    /* a spec names no program, no secret, no file (docs/security.md) */
    {"reduction argv",
     "name: t\nconfigs:\n  - labels: {a: b}\n    target: /x\n    reduction: [/usr/bin/ssh, -o, "
     "\"ProxyCommand=sh\", nas]\nprofiles: [4k-rand]\n",
     5, "configs[0].reduction", "a spec names no program"},
    {"reduction option value",
     "name: t\nconfigs:\n  - labels: {a: b}\n    target: /x\n    reduction: {probe: zfs, ds: "
     "-oX}\nprofiles: [4k-rand]\n",
     5, "configs[0].reduction.ds", "must be a plain name or path"},
    {"reduction no probe",
     "name: t\nconfigs:\n  - labels: {a: b}\n    target: /x\n    reduction: {ds: tank}\n"
     "profiles: [4k-rand]\n",
     5, "configs[0].reduction", "names no probe"},
    {"token_file",
     BASE "telemetry: [{name: n, url: \"http://nas:9100/metrics\", token_file: /t}]\n", 4,
     "telemetry[0].token_file", "a spec names no file the controller reads"},
    {"ca_file", BASE "telemetry: [{name: n, url: \"http://nas:9100/metrics\", ca_file: /c}]\n", 4,
     "telemetry[0].ca_file", "a spec names no file the controller reads"},
};

/* Limits the database or submit would hit are the parser's: plan and submit accept the same. */
static void test_limits(void **state)
{
    (void)state;
    lg_spec_t *s = NULL;
    lg_spec_diag_t d;
    const char *big = "name: t\ntarget: /x\nprofiles: [4k-rand]\nsize: 10000000000000000000\n";
    assert_int_equal(lg_spec_parse_text(big, strlen(big), "b.yaml", &s, &d), LG_ESPEC);
    assert_int_equal(d.line, 4);
    assert_string_equal(d.key, "size");
    assert_non_null(strstr(d.message, "at most 8E"));
    /* 20 profiles x 64 load points (8 x 8) x 100 repeats: 128,000 measured runs */
    char text[8192];
    size_t n =
        (size_t)snprintf(text, sizeof text, "name: t\ntarget: /x\nrepeats: 100\nprofiles:\n");
    for (int i = 0; i < 20; i++)
        n +=
            (size_t)snprintf(text + n, sizeof text - n,
                             "  - {name: p%d, bs: 4k, pattern: random, read: 100, sweep: {threads: "
                             "[1, 2, 3, 4, 5, 6, 7, 8], qd: [1, 2, 3, 4, 5, 6, 7, 8]}}\n",
                             i);
    assert_int_equal(lg_spec_parse_text(text, strlen(text), "r.yaml", &s, &d), LG_ESPEC);
    assert_int_equal(d.line, 4);
    assert_string_equal(d.key, "profiles");
    /* (and a preconditioning run per profile) */
    assert_non_null(strstr(d.message, "the campaign has 128020 runs"));
    assert_non_null(strstr(d.message, "the limit is 100000"));
    /* labels whose names and values together exceed what the database indexes */
    n = (size_t)snprintf(text, sizeof text,
                         "name: t\ntarget: /x\nprofiles: [4k-rand]\nsut:\n  labels:\n");
    char value[201];
    memset(value, 'v', 200);
    value[200] = 0;
    for (int i = 0; i < 12; i++)
        n += (size_t)snprintf(text + n, sizeof text - n, "    k%d: %s\n", i, value);
    assert_int_equal(lg_spec_parse_text(text, strlen(text), "l.yaml", &s, &d), LG_ESPEC);
    assert_non_null(strstr(d.message, "the labels of a config take at most 2000 bytes"));
    assert_int_equal(d.line, 6 + 9); /* the tenth label passes 2000 bytes */
}

static void test_errors(void **state)
{
    (void)state;
    int failed = 0;
    for (size_t i = 0; i < sizeof s_errors / sizeof s_errors[0]; i++) {
        const err_case_t *c = &s_errors[i];
        lg_spec_t dummy;
        lg_spec_t *spec = &dummy; /* must be cleared on error */
        lg_spec_diag_t d;
        int rc = lg_spec_parse_text(c->text, strlen(c->text), "bad.yaml", &spec, &d);
        char buf[1024];
        lg_spec_diag_format(&d, buf, sizeof buf);
        if (rc != LG_ESPEC || spec != NULL || d.line != c->line || strcmp(d.key, c->key) != 0 ||
            !strstr(d.message, c->msg) || strcmp(d.file, "bad.yaml") != 0 || d.column < 1) {
            print_error("case \"%s\": rc=%d line=%d (want %d) key=\"%s\" (want \"%s\")\n  %s\n",
                        c->what, rc, d.line, c->line, d.key, c->key, buf);
            failed++;
            if (rc == 0)
                lg_spec_destroy(&spec);
        }
    }
    assert_int_equal(failed, 0);
}

/* Label values may be up to 255 characters; 256 is refused at the value's line. */
static void test_label_length(void **state)
{
    (void)state;
    char text[512], value[257];
    lg_spec_t *s = NULL;
    lg_spec_diag_t d;
    memset(value, 'v', 255);
    value[255] = '\0';
    snprintf(text, sizeof text, BASE "sut:\n  labels:\n    a: %s\n", value);
    assert_int_equal(lg_spec_parse_text(text, strlen(text), "l.yaml", &s, &d), 0);
    assert_int_equal(strlen(s->configs[0].labels[0].value), 255);
    lg_spec_destroy(&s);
    snprintf(text, sizeof text, BASE "sut:\n  labels:\n    a: %sv\n", value);
    assert_int_equal(lg_spec_parse_text(text, strlen(text), "l.yaml", &s, &d), LG_ESPEC);
    assert_int_equal(d.line, 6);
    assert_string_equal(d.key, "sut.labels.a");
    assert_string_equal(d.message, "label values are at most 255 characters, got 256");
}

static void test_diag_format(void **state)
{
    (void)state;
    char buf[1024];
    lg_spec_diag_t d;
    lg_spec_t *spec = NULL;
    const char *text = BASE "qd: -4\n";
    assert_int_equal(lg_spec_parse_text(text, strlen(text), "c.yaml", &spec, &d), LG_ESPEC);
    lg_spec_diag_format(&d, buf, sizeof buf);
    assert_string_equal(buf,
                        "c.yaml:4:5: key \"qd\": must be an integer from 1 to 1024, got \"-4\"");

    text = "name: t\ntarget: /x\nprofiles: [4k-rand, 4k-random]\n";
    assert_int_equal(lg_spec_parse_text(text, strlen(text), "c.yaml", &spec, &d), LG_ESPEC);
    lg_spec_diag_format(&d, buf, sizeof buf);
    assert_string_equal(buf, "c.yaml:3:21: key \"profiles[1]\": unknown profile \"4k-random\"; "
                             "known: 4k-rand, 8k-7030, 8k-seq, 128k-seq");

    text = "- a\n";
    assert_int_equal(lg_spec_parse_text(text, strlen(text), "c.yaml", &spec, &d), LG_ESPEC);
    lg_spec_diag_format(&d, buf, sizeof buf);
    assert_int_equal(strncmp(buf, "c.yaml:1:1: the spec must be a mapping", 38), 0);

    memset(&d, 0, sizeof d);
    snprintf(d.file, sizeof d.file, "f");
    snprintf(d.message, sizeof d.message, "m");
    lg_spec_diag_format(&d, buf, sizeof buf);
    assert_string_equal(buf, "f: m");
    lg_spec_diag_format(&d, buf, 3); /* truncates, stays terminated */
    assert_string_equal(buf, "f:");

    /* Hostile text in a message is escaped, not echoed raw. */
    text = BASE "qd: \"4\\x1b[2J\"\n";
    assert_int_equal(lg_spec_parse_text(text, strlen(text), "c.yaml", &spec, &d), LG_ESPEC);
    assert_null(strchr(d.message, '\x1b'));
    assert_non_null(strstr(d.message, "4\\x1b[2J"));
}

static void test_text_not_terminated(void **state)
{
    (void)state;
    /* The parser must honour len: the bytes after it are garbage. */
    const char buf[] = "name: t\ntarget: /x\nprofiles: [4k-rand]\nqd: 0\n";
    size_t len = strlen(buf) - strlen("qd: 0\n");
    lg_spec_t *s = NULL;
    lg_spec_diag_t d;
    assert_int_equal(lg_spec_parse_text(buf, len, "t.yaml", &s, &d), 0);
    assert_int_equal(s->qd, 16);
    assert_int_equal(strlen(s->text), len);
    lg_spec_destroy(&s);

    /* Over the 1 MiB cap. */
    size_t big = 1024 * 1024 + 1;
    char *t = malloc(big);
    assert_non_null(t);
    memset(t, '#', big);
    assert_int_equal(lg_spec_parse_text(t, big, "big.yaml", &s, &d), LG_ESPEC);
    assert_null(s);
    assert_non_null(strstr(d.message, "too large"));
    free(t);
}

static void test_durations(void **state)
{
    (void)state;
    static const struct {
        const char *s;
        uint32_t v;
    } ok[] = {{"0", 0},
              {"0s", 0},
              {"90", 90},
              {"5s", 5},
              {"2m", 120},
              {"1h", 3600},
              {"007s", 7},
              {"4294967295", 4294967295u},
              {"71582788m", 4294967280u},
              {"1193046h", 4294965600u}};
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        uint32_t v = 12345;
        if (lg_parse_duration(ok[i].s, &v) != 0 || v != ok[i].v)
            fail_msg("duration \"%s\": got %u", ok[i].s, v);
    }
    static const char *const bad[] = {
        "",      "s",    "-1",         "+1",        " 1",       "1 ",
        "1s ",   "1.5s", "1ms",        "1d",        "1S",       "1M",
        "1ss",   "0x10", "4294967296", "71582789m", "1193047h", "99999999999999999999999",
        "1h30m", "1\n",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        uint32_t v = 777;
        if (lg_parse_duration(bad[i], &v) != LG_EPARSE || v != 777)
            fail_msg("duration \"%s\" should be rejected", bad[i]);
    }
    uint32_t v;
    assert_int_equal(lg_parse_duration(NULL, &v), LG_EPARSE);
}

static void test_sizes(void **state)
{
    (void)state;
    static const struct {
        const char *s;
        uint64_t v;
    } ok[] = {
        {"0", 0},
        {"4096", 4096},
        {"4096B", 4096},
        {"4k", 4096},
        {"4K", 4096},
        {"4KB", 4096},
        {"4KiB", 4096},
        {"256M", 256ull << 20},
        {"256MiB", 256ull << 20},
        {"1G", 1ull << 30},
        {"1g", 1ull << 30},
        {"1T", 1ull << 40},
        {"16777215T", 16777215ull << 40},
        {"16 GB", 16ull << 30},
        {"16GB", 16ull << 30},
        {"16G", 16ull << 30},
        {"16GiB", 16ull << 30},
        {"16 GiB", 16ull << 30},
        {"1 k", 1024},
        {"2P", 2ull << 50},
        {"7E", 7ull << 60},
        {"18446744073709551615", UINT64_MAX},
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        uint64_t v = 12345;
        if (lg_parse_size(ok[i].s, &v) != 0 || v != ok[i].v)
            fail_msg("size \"%s\": got %llu", ok[i].s, (unsigned long long)v);
    }
    static const char *const bad[] = {
        "",     "k",    "-1",   "+1",   " 1",  "1 ",   "1.5G",  "1Q",        "16E",
        "1  G", "1kk",  "1b",   "1kib", "1iB", "0x10", "1GiBs", "16777216T", "18446744073709551616",
        "1k\n", "1 kk", "1\tG",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        uint64_t v = 777;
        if (lg_parse_size(bad[i], &v) != LG_EPARSE || v != 777)
            fail_msg("size \"%s\" should be rejected", bad[i]);
    }
}

static void test_profile_find(void **state)
{
    (void)state;
    const lg_profile_t *p = lg_profile_find("8k-7030");
    assert_non_null(p);
    assert_int_equal(p->bs, 8192);
    assert_true(p->random);
    assert_int_equal(p->read_pct, 70);
    p = lg_profile_find("8k-seq");
    assert_non_null(p);
    assert_false(p->random);
    assert_int_equal(p->read_pct, -1);
    assert_null(lg_profile_find("4k-random"));
    assert_null(lg_profile_find(NULL));
}

static void test_files(void **state)
{
    (void)state;
    lg_spec_t dummy;
    lg_spec_t *s = &dummy; /* must be cleared on error */
    lg_spec_diag_t d;
    char want[512];

    assert_int_equal(lg_spec_parse_file("/nonexistent/lg/spec.yaml", &s, &d), -ENOENT);
    assert_null(s);
    assert_string_equal(d.file, "/nonexistent/lg/spec.yaml");
    assert_int_equal(d.line, 0);
    snprintf(want, sizeof want, "could not open \"/nonexistent/lg/spec.yaml\": %s",
             strerror(ENOENT));
    assert_string_equal(d.message, want);

    assert_int_equal(lg_spec_parse_file("/", &s, &d), -EISDIR);
    assert_non_null(strstr(d.message, strerror(EISDIR)));

    char path[] = "/tmp/lg_test_spec_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    const char *text = BASE "qd: 8\n";
    assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
    assert_int_equal(lg_spec_parse_file(path, &s, &d), 0);
    assert_string_equal(s->path, path);
    assert_string_equal(s->text, text);
    assert_int_equal(s->qd, 8);
    lg_spec_destroy(&s);

    /* A file error still names the file given. */
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("name: t\ntarget: rel\nprofiles: [4k-rand]\n", f);
    fclose(f);
    assert_int_equal(lg_spec_parse_file(path, &s, &d), LG_ESPEC);
    assert_string_equal(d.file, path);
    assert_int_equal(d.line, 2);

    /* Over the cap: refused before parsing. */
    f = fopen(path, "w");
    assert_non_null(f);
    for (int i = 0; i < 1024 * 1024 / 8 + 1; i++)
        fputs("# pad \n\n", f);
    fclose(f);
    assert_int_equal(lg_spec_parse_file(path, &s, &d), LG_ESPEC);
    assert_null(s);
    assert_non_null(strstr(d.message, "too large"));
    unlink(path);
}

static void test_example(void **state)
{
    (void)state;
    lg_spec_t *s = NULL;
    lg_spec_diag_t d;
    int rc = lg_spec_parse_file(LG_SOURCE_DIR "/examples/quick.yaml", &s, &d);
    if (rc) {
        char buf[1024];
        lg_spec_diag_format(&d, buf, sizeof buf);
        fail_msg("%s", buf);
    }
    assert_string_equal(s->name, "quick");
    assert_int_equal(s->configs[0].nlabels, 3);
    assert_string_equal(s->configs[0].labels[1].key, "media");
    assert_string_equal(s->configs[0].labels[1].value, "file");
    assert_string_equal(s->configs[0].targets[0].path, "/tmp/lg-quick.bin");
    assert_true(s->size == 256ull << 20);
    assert_int_equal(s->nprofiles, 2);
    assert_int_equal(s->threads, 2);
    assert_int_equal(s->qd, 4);
    assert_int_equal(s->ramp_s, 1);
    assert_int_equal(s->runtime_s, 5);
    assert_true(s->direct);
    lg_run_plan_t *runs;
    size_t n;
    assert_int_equal(lg_spec_plan(s, &runs, &n), 0);
    assert_int_equal(n, 4);
    free(runs);
    lg_spec_destroy(&s);
}

static void test_bad_args(void **state)
{
    (void)state;
    lg_run_plan_t *runs;
    size_t n;
    lg_spec_t *s = NULL;
    assert_int_equal(lg_spec_plan(NULL, &runs, &n), -EINVAL);
    assert_int_equal(lg_spec_parse_text(NULL, 5, "x", &s, NULL), LG_ESPEC);
    assert_int_equal(lg_spec_parse_text("a", 1, NULL, NULL, NULL), LG_ESPEC);
    /* NULL diag is allowed. */
    assert_int_equal(lg_spec_parse_text("x: [", 4, NULL, &s, NULL), LG_ESPEC);
    assert_null(s);
}

/* agents: and share:, at the top and per target; a target inherits what it does not set. */
static void test_agents(void **state)
{
    (void)state;
    lg_spec_t *s = parse_ok("name: t\nconfigs:\n  - targets:\n"
                            "      - {protocol: smb, target: /a}\n"
                            "      - {protocol: iscsi, target: block:/dev/sdx, agents: [h9]}\n"
                            "      - {protocol: nfs, target: /c, share: whole}\n"
                            "profiles: [4k-rand]\n"
                            "agents: [{name: h1, threads: 4, qd: 8}, {labels: {rack: a, site: x}},"
                            " h2]\nshare: auto\n");
    const lg_target_t *t = s->configs[0].targets;
    lg_agents_t a0 = lg_spec_agents(s, &t[0]);
    assert_int_equal(a0.nsel, 3);
    assert_string_equal(a0.sel[0].name, "h1");
    assert_int_equal(a0.sel[0].threads, 4);
    assert_int_equal(a0.sel[0].qd, 8);
    assert_null(a0.sel[1].name);
    assert_int_equal(a0.sel[1].nlabels, 2);
    assert_int_equal(a0.share, LG_SHARE_AUTO);
    char *j = lg_agents_json(&a0);
    assert_string_equal(j, "[{\"name\":\"h1\",\"threads\":4,\"qd\":8},"
                           "{\"labels\":{\"rack\":\"a\",\"site\":\"x\"}},{\"name\":\"h2\"}]");
    free(j);
    lg_agents_t a1 = lg_spec_agents(s, &t[1]);
    assert_int_equal(a1.nsel, 1);
    assert_string_equal(a1.sel[0].name, "h9");
    lg_agents_t a2 = lg_spec_agents(s, &t[2]);
    assert_int_equal(a2.nsel, 3); /* the campaign's agents, its own share */
    assert_int_equal(a2.share, LG_SHARE_WHOLE);
    lg_spec_destroy(&s);
    s = parse_ok(BASE);
    lg_agents_t none = lg_spec_agents(s, &s->configs[0].targets[0]);
    j = lg_agents_json(&none);
    assert_string_equal(j, "[]");
    free(j);
    assert_string_equal(lg_share_name(none.share), "auto");
    lg_spec_destroy(&s);
}

/* smb://, iscsi:// and dir: targets, and the protocol each implies. */
static void test_url_targets(void **state)
{
    (void)state;
    lg_spec_t *s = parse_ok("name: t\nconfigs:\n  - targets:\n"
                            "      - smb://lg@127.0.0.1:14445/share/dir/f.bin\n"
                            "      - iscsi://127.0.0.1:13260/iqn.2026-11.test.lg:lun0/1\n"
                            "      - dir:/mnt/nas/\n"
                            "profiles: [4k-rand]\n");
    const lg_target_t *t = s->configs[0].targets;
    assert_int_equal(t[0].kind, LG_TARGET_SMB);
    assert_string_equal(t[0].path, "smb://lg@127.0.0.1:14445/share/dir/f.bin");
    assert_string_equal(t[0].protocol, "smb");
    assert_int_equal(t[1].kind, LG_TARGET_ISCSI);
    assert_string_equal(t[1].path, "iscsi://127.0.0.1:13260/iqn.2026-11.test.lg:lun0/1");
    assert_string_equal(t[1].protocol, "iscsi");
    assert_int_equal(t[2].kind, LG_TARGET_FILE);
    assert_string_equal(t[2].path, "/mnt/nas/lg-data.bin");
    assert_string_equal(t[2].protocol, "local");
    lg_spec_destroy(&s);
}

/* Targets of Windows load hosts: drive, UNC and device paths (YAML single quotes keep the
 * backslashes). */
static void test_windows_targets(void **state)
{
    (void)state;
    struct {
        const char *target, *path;
        lg_target_kind_t kind;
    } ok[] = {
        {"'dir:C:\\lg\\'", "C:\\lg\\lg-data.bin", LG_TARGET_FILE},
        {"'\\\\nas\\bench\\f.bin'", "\\\\nas\\bench\\f.bin", LG_TARGET_FILE},
        {"'dir:\\\\nas\\bench'", "\\\\nas\\bench\\lg-data.bin", LG_TARGET_FILE},
        {"'block:\\\\.\\PhysicalDrive2'", "\\\\.\\PhysicalDrive2", LG_TARGET_BLOCK},
        {"'file:D:/lg/x.bin'", "D:/lg/x.bin", LG_TARGET_FILE},
    };
    lg_spec_t *s;
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        char text[256];
        snprintf(text, sizeof text, "name: t\ntarget: %s\nprofiles: [4k-rand]\n", ok[i].target);
        s = parse_ok(text);
        assert_int_equal(s->configs[0].targets[0].kind, ok[i].kind);
        assert_string_equal(s->configs[0].targets[0].path, ok[i].path);
        lg_spec_destroy(&s);
    }
    lg_spec_diag_t diag;
    memset(&diag, 0, sizeof diag);
    const char *bad[] = {"name: t\ntarget: 'C:lg'\nprofiles: [4k-rand]\n",
                         "name: t\ntarget: 'dir:\\\\'\nprofiles: [4k-rand]\n",
                         "name: t\ntarget: 'lg\\x'\nprofiles: [4k-rand]\n"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        s = NULL;
        assert_int_equal(lg_spec_parse_text(bad[i], strlen(bad[i]), "t.yaml", &s, &diag), LG_ESPEC);
        assert_null(s);
    }
}

/* Spec text that would reach a terminal, a log line, a spreadsheet or an SVG chart: control
 * characters are refused in every scalar, at their line, naming the key (issue 30). */
static void test_control_characters(void **state)
{
    (void)state;
    static const struct {
        const char *what, *text, *key, *shown;
        int line;
    } bad[] = {
        {"screen-clearing label",
         BASE "sut:\n  labels:\n    build: \"\\e[2J\\e[1;1HFAKE: all runs passed\"\n",
         "sut.labels.build", "\\x1b[2J\\x1b[1;1HFAKE: all runs passed", 6},
        {"log-forging label",
         BASE "sut:\n  labels:\n    build: \"a\\nlg-controller: info: all passed\"\n",
         "sut.labels.build", "a\\x0alg-controller", 6},
        {"label of a block scalar", BASE "sut:\n  labels:\n    note: |\n      one\n      two\n",
         "sut.labels.note", "one\\x0atwo\\x0a", 6},
        {"tab", BASE "sut:\n  labels:\n    build: \"a\\tb\"\n", "sut.labels.build", "a\\x09b", 6},
        {"SVG-breaking label", BASE "sut:\n  labels:\n    build: \"\\x01\\x08\"\n",
         "sut.labels.build", "\\x01\\x08", 6},
        {"DEL", BASE "sut:\n  labels:\n    build: \"a\\x7f\"\n", "sut.labels.build", "a\\x7f", 6},
        {"C1 CSI", BASE "sut:\n  labels:\n    build: \"\\x9b2J\"\n", "sut.labels.build",
         "\\u009b2J", 6},
        {"label name", BASE "sut:\n  labels:\n    \"k\\e[2J\": v\n", "sut.labels", "k\\x1b[2J", 6},
        {"config label",
         "name: t\nprofiles: [4k-rand]\nconfigs:\n  - labels: {a: \"\\e]0;x\\a\"}\n"
         "    target: /x\n",
         "configs[0].labels.a", "\\x1b]0;x\\x07", 4},
        {"campaign name", "name: \"\\e[2J\"\ntarget: /x\nprofiles: [4k-rand]\n", "name", "\\x1b[2J",
         1},
        {"profile name",
         "name: t\ntarget: /x\nprofiles:\n  - {name: \"p\\r\", bs: 4k, pattern: random}\n",
         "profiles[0].name", "p\\x0d", 4},
        {"agent label", BASE "agents: [{labels: {rack: \"a\\e[0m\"}}]\n", "agents[0].labels.rack",
         "a\\x1b[0m", 4},
        {"agent name", BASE "agents: [\"h\\n1\"]\n", "agents[0]", "h\\x0a1", 4},
        {"target", "name: t\ntarget: \"/x\\e[2J\"\nprofiles: [4k-rand]\n", "target", "/x\\x1b[2J",
         2},
    };
    int failed = 0;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        lg_spec_t *spec = NULL;
        lg_spec_diag_t d;
        int rc = lg_spec_parse_text(bad[i].text, strlen(bad[i].text), "bad.yaml", &spec, &d);
        char buf[1024];
        lg_spec_diag_format(&d, buf, sizeof buf);
        if (rc != LG_ESPEC || spec || d.line != bad[i].line || strcmp(d.key, bad[i].key) != 0 ||
            !strstr(d.message, "must not contain control characters") ||
            !strstr(d.message, bad[i].shown) || d.column < 1) {
            print_error("case \"%s\": rc=%d line=%d (want %d) key=\"%s\" (want \"%s\")\n  %s\n",
                        bad[i].what, rc, d.line, bad[i].line, d.key, bad[i].key, buf);
            failed++;
            lg_spec_destroy(&spec);
        }
        /* the message itself is one printable line */
        for (const char *c = buf; *c; c++)
            if ((unsigned char)*c < 0x20 || *c == 0x7f ||
                ((unsigned char)c[0] == 0xc2 && (unsigned char)c[1] >= 0x80 &&
                 (unsigned char)c[1] <= 0x9f)) {
                print_error("case \"%s\": control byte 0x%02x in \"%s\"\n", bad[i].what,
                            (unsigned char)*c, buf);
                failed++;
                break;
            }
    }
    assert_int_equal(failed, 0);
    /* A label a spreadsheet would take as a formula is printable text: the spec keeps it and the
     * CSV writers guard it. Non-ASCII text is not a control character. */
    lg_spec_t *s = parse_ok(BASE "sut:\n  labels:\n    build: \"=HYPERLINK(\\\"x\\\")\"\n"
                                 "    media: \"caf\\u00e9 \\u00b5s\"\n");
    assert_string_equal(s->configs[0].labels[0].value, "=HYPERLINK(\"x\")");
    assert_string_equal(s->configs[0].labels[1].value, "caf\xc3\xa9 \xc2\xb5s");
    lg_spec_destroy(&s);
}

/* What every agent refuses in a target ('$', "." and ".." components) is refused at the spec's
 * line, before anything is submitted. */
static void test_refused_targets(void **state)
{
    (void)state;
    static const struct {
        const char *target, *key, *part;
        int line;
    } bad[] = {
        {"target: /data/../etc/passwd", "target", "a \"..\" component", 2},
        {"target: /data/..", "target", "a \"..\" component", 2},
        {"target: file:/data/./x", "target", "a \".\" component", 2},
        {"target: /data/$HOME/x", "target", "a '$'", 2},
        {"target: block:/dev/${DISK}", "target", "a '$'", 2},
        {"target: dir:/mnt/nas/../../etc", "target", "a \"..\" component", 2},
        {"target: smb://nas/share/../x.bin", "target", "a \"..\" component", 2},
        {"target: smb://nas/share/$x.bin", "target", "a '$'", 2},
        {"target: 'C:\\lg\\..\\x.bin'", "target", "a \"..\" component", 2},
        {"configs:\n  - targets:\n      - {protocol: smb, target: /mnt/a/f, mount: /mnt/../a}",
         "configs[0].targets[0].mount", "a \"..\" component", 4},
        {"configs:\n  - targets:\n      - {protocol: smb, target: /mnt/a/$f}",
         "configs[0].targets[0].target", "a '$'", 4},
    };
    int failed = 0;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char text[512];
        snprintf(text, sizeof text, "name: t\n%s\nprofiles: [4k-rand]\n", bad[i].target);
        lg_spec_t *spec = NULL;
        lg_spec_diag_t d;
        int rc = lg_spec_parse_text(text, strlen(text), "bad.yaml", &spec, &d);
        char buf[1024];
        lg_spec_diag_format(&d, buf, sizeof buf);
        if (rc != LG_ESPEC || d.line != bad[i].line || strcmp(d.key, bad[i].key) != 0 ||
            !strstr(d.message, bad[i].part) || !strstr(d.message, "lg-agent refuses")) {
            print_error("case \"%s\": rc=%d line=%d (want %d) key=\"%s\" (want \"%s\")\n  %s\n",
                        bad[i].target, rc, d.line, bad[i].line, d.key, bad[i].key, buf);
            failed++;
            lg_spec_destroy(&spec);
        }
    }
    assert_int_equal(failed, 0);
    /* dots inside names, and a Windows device path, are not components of their own */
    assert_null(lg_path_refused_part("/data/..x/a..b/.hidden/x."));
    assert_null(lg_path_refused_part("\\\\.\\PhysicalDrive2"));
    assert_null(lg_path_refused_part("iscsi://h/iqn.2026-11.test.lg:lun0/1"));
    assert_non_null(lg_path_refused_part("\\\\nas\\.\\x"));
    assert_non_null(lg_path_refused_part(".."));
    lg_spec_t *s = parse_ok("name: t\ntarget: /data/..x/y.\nprofiles: [4k-rand]\n");
    lg_spec_destroy(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_windows_targets),
        cmocka_unit_test(test_full_spec),
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_targets),
        cmocka_unit_test(test_custom_profiles),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_label_length),
        cmocka_unit_test(test_diag_format),
        cmocka_unit_test(test_text_not_terminated),
        cmocka_unit_test(test_durations),
        cmocka_unit_test(test_sizes),
        cmocka_unit_test(test_profile_find),
        cmocka_unit_test(test_files),
        cmocka_unit_test(test_example),
        cmocka_unit_test(test_bad_args),
        cmocka_unit_test(test_agents),
        cmocka_unit_test(test_url_targets),
        cmocka_unit_test(test_limits),
        cmocka_unit_test(test_control_characters),
        cmocka_unit_test(test_refused_targets),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
