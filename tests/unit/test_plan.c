/* test_plan.c: campaign specs with several SUT configs and protocols, sweeps, repeats,
 * preconditioning, data patterns and gates: what they parse to, the run matrix they expand to,
 * and the errors (file, line, key) for what is wrong. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lg_app.h"
#include "lg_error.h"
#include "lg_spec.h"

static lg_spec_t *s_ok(const char *text)
{
    lg_spec_t *s = NULL;
    lg_spec_diag_t d;
    if (lg_spec_parse_text(text, strlen(text), "p.yaml", &s, &d) != 0) {
        char buf[1024];
        lg_spec_diag_format(&d, buf, sizeof buf);
        fail_msg("unexpected error: %s", buf);
    }
    return s;
}

static void s_err(const char *text, int line, const char *key, const char *msg)
{
    lg_spec_t *s = NULL;
    lg_spec_diag_t d;
    int rc = lg_spec_parse_text(text, strlen(text), "p.yaml", &s, &d);
    if (rc != LG_ESPEC || d.line != line || strcmp(d.key, key) != 0 || !strstr(d.message, msg))
        fail_msg("rc %d line %d key \"%s\" msg \"%s\"; want line %d key \"%s\" msg ~\"%s\"", rc,
                 d.line, d.key, d.message, line, key, msg);
    assert_null(s);
}

static const char *const s_review =
    "name: review\n"
    "configs:\n"
    "  - labels: {build: a, compression: lz4}\n"
    "    targets:\n"
    "      - {protocol: smb, target: /mnt/smb/lg.bin}\n"
    "      - {protocol: iscsi, target: /mnt/iscsi/lg.bin}\n"
    "  - labels: {build: a, compression: zstd}\n"
    "    target: \"null\"\n"
    "profiles:\n"
    "  - 4k-rand\n"
    "  - 8k-7030\n"
    "  - {name: mixed-bs, bssplit: \"4k/50:64k/50\", pattern: random, read: 100,\n"
    "     sweep: {threads: [1, 2], qd: [4, 8]}, rate_iops: 500}\n"
    "repeats: 2\n"
    "precondition: {mode: steady-state, round: 10s, max: 5m}\n"
    "data: {compress_ratio: 2.0, dedup_ratio: 1.5, dedup_unit: 4k}\n"
    "between_configs: hook\n";

static void test_review(void **state)
{
    (void)state;
    lg_spec_t *s = s_ok(s_review);
    assert_int_equal(s->nconfigs, 2);
    assert_int_equal(s->configs[0].ntargets, 2);
    assert_string_equal(s->configs[0].targets[1].protocol, "iscsi");
    assert_string_equal(s->configs[0].targets[1].path, "/mnt/iscsi/lg.bin");
    assert_string_equal(s->configs[0].labels[1].value, "lz4");
    assert_int_equal(s->configs[1].targets[0].kind, LG_TARGET_NULL);
    assert_string_equal(s->configs[1].targets[0].protocol, "null");
    assert_true(s->profiles[1].sweep);
    const lg_profile_t *m = &s->profiles[2];
    assert_int_equal(m->nbssplit, 2);
    assert_int_equal(m->bssplit[1].bs, 65536);
    assert_int_equal(m->bssplit[1].pct, 50);
    assert_int_equal(m->bs, 65536);
    assert_int_equal(m->nloads, 4);
    assert_int_equal(m->loads[3].threads, 2);
    assert_int_equal(m->loads[3].qd, 8);
    assert_int_equal(m->rate_iops, 500);
    assert_int_equal(s->repeats, 2);
    assert_int_equal(s->precondition, LG_PRECOND_STEADY);
    assert_int_equal(s->round_s, 10);
    assert_int_equal(s->precond_max_s, 300);
    assert_true(s->compress_ratio == 2.0 && s->dedup_ratio == 1.5);
    assert_int_equal(s->dedup_unit, 4096);
    assert_int_equal(s->between, LG_BETWEEN_HOOK);

    lg_run_plan_t *r = NULL;
    size_t n = 0;
    assert_int_equal(lg_spec_plan(s, &r, &n), 0);
    /* Per target: 4k-rand 2 x (1 + 1 x 2), 8k-7030 1 + 16 x 2, mixed-bs 1 + 4 x 2 = 48; x 3. */
    assert_int_equal(n, 3 * (2 * 3 + 33 + 9));
    /* First run: preconditioning of 4k-rand read at 16T16Q on smb of config 1. */
    assert_int_equal(r[0].phase, LG_PHASE_STEADY);
    assert_int_equal(r[0].threads, 16);
    assert_int_equal(r[0].qd, 16);
    assert_int_equal(r[0].runtime_s, 300);
    assert_int_equal(r[0].round_s, 10);
    assert_true(r[0].gate); /* a hook prepares config 1 too (issue 42) */
    assert_int_equal(r[1].phase, LG_PHASE_MEASURE);
    assert_int_equal(r[1].repeat, 1);
    assert_int_equal(r[2].repeat, 2);
    assert_int_equal(r[3].phase, LG_PHASE_STEADY);
    assert_string_equal(r[3].rw, "randwrite");
    /* Each config starts behind the hook's gate, the first too: runs 0 and 96 carry it. */
    size_t gates = 0;
    for (size_t i = 0; i < n; i++)
        if (r[i].gate) {
            assert_int_equal(i, gates ? 96 : 0);
            assert_int_equal(r[i].config, gates);
            gates++;
        }
    assert_int_equal(gates, 2);
    assert_int_equal(r[48].target, 1); /* iscsi of config 1 */
    /* 4 preconditioning runs per target (4k-rand r/w, 8k-7030, mixed-bs) at their 5 min max. */
    assert_true(lg_plan_seconds(r, n) == (uint64_t)3 * 4 * 300 + (uint64_t)(n - 12) * 60);
    free(r);
    lg_spec_destroy(&s);
}

static void test_fill_and_defaults(void **state)
{
    (void)state;
    lg_spec_t *s = s_ok("name: f\ntarget: /x/y\nprofiles: [128k-seq]\nprecondition: fill\n");
    lg_run_plan_t *r = NULL;
    size_t n = 0;
    assert_int_equal(lg_spec_plan(s, &r, &n), 0);
    assert_int_equal(n, 3);
    assert_int_equal(r[0].phase, LG_PHASE_FILL);
    assert_string_equal(r[0].rw, "write");
    assert_int_equal(r[0].bs, 131072);
    assert_string_equal(r[1].rw, "read");
    assert_int_equal(r[1].threads, 16); /* the default load is 16T16Q */
    assert_int_equal(r[1].qd, 16);
    free(r);
    lg_spec_destroy(&s);
    /* The default is steady-state preconditioning with 60 s rounds and 30 min at most. */
    s = s_ok("name: d\ntarget: /x/y\nprofiles: [4k-rand]\n");
    assert_int_equal(s->precondition, LG_PRECOND_STEADY);
    assert_int_equal(s->round_s, 60);
    assert_int_equal(s->precond_max_s, 1800);
    assert_int_equal(s->between, LG_BETWEEN_PAUSE);
    lg_spec_destroy(&s);
}

static void test_loads(void **state)
{
    (void)state;
    lg_load_t l;
    assert_int_equal(lg_parse_load("16T16Q", &l), 0);
    assert_int_equal(l.threads, 16);
    assert_int_equal(l.qd, 16);
    assert_int_equal(lg_parse_load("2t8q", &l), 0);
    assert_int_equal(l.qd, 8);
    const char *bad[] = {"",       "16T",     "T16Q",    "0T1Q",  "1T0Q",
                         "257T1Q", "1T4097Q", "16T16Qx", "-1T1Q", "16 T16Q"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(lg_parse_load(bad[i], &l), LG_EPARSE);
}

static void test_errors(void **state)
{
    (void)state;
    s_err("name: x\nconfigs:\n  - labels: {a: b}\nprofiles: [4k-rand]\n", 3, "configs[0].target",
          "missing required key");
    s_err("name: x\nconfigs:\n  - target: /a\ntarget: /b\nprofiles: [4k-rand]\n", 4, "target",
          "with configs");
    s_err("name: x\nconfigs:\n  - targets:\n      - {protocol: smb, target: /a}\n"
          "      - {protocol: smb, target: /b}\nprofiles: [4k-rand]\n",
          5, "configs[0].targets[1]", "already given");
    s_err("name: x\nconfigs:\n  - targets: [{protocol: SMB!, target: /a}]\nprofiles: [4k-rand]\n",
          3, "configs[0].targets[0].protocol", "protocol name");
    s_err("name: x\ntarget: /a\nprofiles:\n  - {name: 8k-7030, sweep: [16T16Q, 2X2Q]}\n", 4,
          "profiles[0].sweep", "load points are");
    s_err("name: x\ntarget: /a\nprofiles:\n  - {name: 8k-7030, sweep: {threads: [2]}}\n", 4,
          "profiles[0].sweep", "needs both");
    s_err("name: x\ntarget: /a\nprofiles:\n  - {name: 8k-7030, bs: 4k}\n", 4, "profiles[0].bs",
          "is a standard profile");
    s_err("name: x\ntarget: /a\nprofiles:\n  - {name: c, bssplit: \"4k/50:8k/40\", "
          "pattern: random}\n",
          4, "profiles[0].bssplit", "add up to 90");
    s_err("name: x\ntarget: /a\nprofiles: [4k-rand]\nprecondition: warm\n", 4, "precondition",
          "steady-state, fill or none");
    s_err("name: x\ntarget: /a\nprofiles: [4k-rand]\nprecondition: {round: 1m, max: 4m}\n", 4,
          "precondition", "5 rounds");
    s_err("name: x\ntarget: /a\nprofiles: [4k-rand]\ndata: {compress_ratio: 0.5}\n", 4,
          "data.compress_ratio", "ratio from 1 to 20");
    s_err("name: x\ntarget: /a\nprofiles: [4k-rand]\ndata: {dedup_unit: 3k}\n", 4,
          "data.dedup_unit", "power of two");
    s_err("name: x\ntarget: /a\nprofiles: [4k-rand]\nbetween_configs: wait\n", 4, "between_configs",
          "pause");
    s_err("name: x\ntarget: /a\nprofiles: [4k-rand]\nrepeats: 0\n", 4, "repeats", "from 1 to 100");
}

/* A search plans every probe it may take (phase search; only the first one's load is known), a
 * curve plans its paced points after it, and @IOPS load points are paced; the worst case is in
 * lg_plan_seconds. */
static void test_search_plan(void **state)
{
    (void)state;
    lg_spec_t *s = s_ok(
        "name: x\ntarget: /a\nthreads: 4\nqd: 8\nruntime: 10s\nramp: 2s\n"
        "precondition: none\nprofiles:\n"
        "  - {name: r, bs: 4k, pattern: random, read: 100,\n"
        "     search: {metric: p95_ms, limit: 0.5ms, vary: qd, max: 64, steps: 7, confirm: 0},\n"
        "     curve: [10, 90]}\n"
        "  - {name: w, bs: 4k, pattern: random, read: 0, sweep: [2T2Q@5k, 2T2Q]}\n"
        "  - {name: t, bs: 8k, pattern: random, read: 70,\n"
        "     search: {limit: 3, vary: rate, threads: 2, qd: 4, runtime: 5s, steps: 5}}\n");
    const lg_search_t *se = &s->profiles[0].search;
    assert_true(se->on);
    assert_int_equal(se->metric, LG_SMETRIC_P95);
    assert_true(se->limit_ms == 0.5);
    assert_int_equal(se->min, 1);
    assert_int_equal(se->max, 64);
    assert_int_equal(s->profiles[2].search.min, 0);
    assert_int_equal(s->profiles[2].search.steps, 5);
    assert_int_equal(se->confirm, 0);
    assert_int_equal(s->profiles[2].search.confirm, 1); /* the default: one repeat */
    lg_run_plan_t *runs = NULL;
    size_t n = 0;
    assert_int_equal(lg_spec_plan(s, &runs, &n), 0);
    /* r: 7 probes + 2 curve points; w: 2 points; t: 5 loads, each maybe tried twice */
    assert_int_equal(n, 7 + 2 + 2 + 10);
    for (size_t i = 0; i < 7; i++) {
        assert_int_equal(runs[i].phase, LG_PHASE_SEARCH);
        assert_int_equal(runs[i].search, 1);
        assert_int_equal(runs[i].probe, i + 1);
        assert_int_equal(runs[i].threads, 4);
        assert_int_equal(runs[i].qd, 1); /* min; the others are set as the search goes */
    }
    assert_int_equal(runs[7].phase, LG_PHASE_MEASURE);
    assert_int_equal(runs[7].curve_pct, 10);
    assert_int_equal(runs[7].curve_base, -1);
    assert_int_equal(runs[7].search, 1);
    assert_int_equal(runs[8].curve_pct, 90);
    assert_int_equal(runs[9].rate, 5000);
    assert_int_equal(runs[10].rate, 0);
    assert_int_equal(runs[11].search, 2);
    assert_int_equal(runs[11].rate, 0); /* a rate search starts unpaced */
    assert_int_equal(runs[11].threads, 2);
    assert_int_equal(runs[11].qd, 4);
    assert_int_equal(runs[11].runtime_s, 5); /* its probes' own runtime */
    assert_int_equal(runs[0].runtime_s, 10);
    assert_int_equal(runs[20].probe, 10);
    assert_int_equal(lg_plan_seconds(runs, n), (uint64_t)11 * 12 + 10 * (2 + 5));
    free(runs);
    lg_spec_destroy(&s);
    /* a curve without a search is of the first load point's run */
    s = s_ok("name: x\ntarget: /a\nprecondition: none\nrepeats: 2\nprofiles:\n"
             "  - {name: r, bs: 4k, pattern: random, read: 100, sweep: [1T8Q], curve: [50]}\n");
    assert_int_equal(lg_spec_plan(s, &runs, &n), 0);
    assert_int_equal(n, 4);
    assert_int_equal(runs[2].curve_pct, 50);
    assert_int_equal(runs[2].curve_base, 0);
    assert_int_equal(runs[3].repeat, 2);
    free(runs);
    lg_spec_destroy(&s);
    lg_load_t l;
    assert_int_equal(lg_parse_load("16T16Q@20k", &l), 0);
    assert_int_equal(l.rate, 20000);
    assert_int_equal(lg_parse_load("1T1Q@7", &l), 0);
    assert_int_equal(l.rate, 7);
    const char *bad[] = {"16T16Q@", "16T16Q@0", "16T16Q@x", "16T16Q@5kk", "16T16Q 5"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(lg_parse_load(bad[i], &l), LG_EPARSE);
    const char *h = "name: x\ntarget: /a\nprofiles:\n  - {name: r, bs: 4k, pattern: random, ";
    char buf[512];
    snprintf(buf, sizeof buf, "%s search: {vary: qd}}\n", h);
    s_err(buf, 4, "profiles[0].search.limit", "needs a limit");
    snprintf(buf, sizeof buf, "%s search: {limit: 5, vary: iops}}\n", h);
    s_err(buf, 4, "profiles[0].search.vary", "qd, threads, rate");
    snprintf(buf, sizeof buf, "%s search: {limit: 5, metric: p98_ms}}\n", h);
    s_err(buf, 4, "profiles[0].search.metric", "p99_ms");
    snprintf(buf, sizeof buf, "%s search: {limit: -1}}\n", h);
    s_err(buf, 4, "profiles[0].search.limit", "latency above 0");
    snprintf(buf, sizeof buf, "%s search: {limit: 5, min: 8, max: 4}}\n", h);
    s_err(buf, 4, "profiles[0].search", "min <= max");
    snprintf(buf, sizeof buf, "%s search: {limit: 5, runtime: 0s}}\n", h);
    s_err(buf, 4, "profiles[0].search.runtime", "at least 1s");
    snprintf(buf, sizeof buf, "%s search: {limit: 5, step: 4}}\n", h);
    s_err(buf, 4, "profiles[0].search.step", "allowed in a search");
    snprintf(buf, sizeof buf, "%s search: {limit: 5, confirm: 4}}\n", h);
    s_err(buf, 4, "profiles[0].search.confirm", "from 0 to 3");
    snprintf(buf, sizeof buf, "%s curve: [0, 50]}\n", h);
    s_err(buf, 4, "profiles[0].curve", "from 1 to 100");
    snprintf(buf, sizeof buf, "%s rate_iops: 100, curve: [50]}\n", h);
    s_err(buf, 4, "profiles[0]", "rate_iops (a cap per thread)");
}

/* An application profile: one run per config and repeat (no preconditioning, no fill of its
 * own), its clients as threads, direction txn, its own runtime; its keys are checked per tool
 * and it needs dir: targets. */
static void test_app_plan(void **state)
{
    (void)state;
    lg_spec_t *s = s_ok("name: x\nruntime: 10s\nthreads: 8\nrepeats: 2\nprecondition: fill\n"
                        "configs:\n  - {labels: {c: lz4}, target: dir:/nas/a/}\n"
                        "  - {labels: {c: zstd}, target: dir:/nas/b}\n"
                        "profiles:\n"
                        "  - {name: tpcb, app: pgbench, scale: 3, clients: 4, keep: true}\n"
                        "  - {name: oltp, app: sysbench-oltp, tables: 16, table_size: 1M,\n"
                        "     runtime: 1h}\n");
    assert_int_equal(s->profiles[0].app.kind, LG_APP_PGBENCH);
    assert_int_equal(s->profiles[0].app.scale, 3);
    assert_true(s->profiles[0].app.keep);
    assert_int_equal(s->profiles[1].app.kind, LG_APP_SYSBENCH_OLTP);
    assert_int_equal(s->profiles[1].app.tables, 16);
    assert_int_equal(s->profiles[1].app.table_size, 1000000);
    assert_true(s->configs[0].targets[0].dir);
    assert_string_equal(s->configs[0].targets[0].path, "/nas/a/lg-data.bin");
    lg_run_plan_t *runs = NULL;
    size_t n = 0;
    assert_int_equal(lg_spec_plan(s, &runs, &n), 0);
    assert_int_equal(n, 2 * 2 * 2); /* configs x profiles x repeats; no fill for applications */
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(runs[i].phase, LG_PHASE_MEASURE);
        assert_string_equal(runs[i].direction, "txn");
        assert_int_equal(runs[i].qd, 1);
        assert_int_equal(runs[i].ramp_s, 0);
    }
    assert_string_equal(runs[0].rw, "pgbench");
    assert_int_equal(runs[0].threads, 4);
    assert_int_equal(runs[0].runtime_s, 10);
    assert_int_equal(runs[1].repeat, 2);
    assert_string_equal(runs[2].rw, "sysbench-oltp");
    assert_int_equal(runs[2].threads, 8); /* the campaign's */
    assert_int_equal(runs[2].runtime_s, 3600);
    assert_true(runs[4].gate);
    free(runs);
    lg_spec_destroy(&s);
    s_err("name: x\ntarget: /nas/f\nprofiles:\n  - {name: t, app: pgbench}\n", 4, "profiles[0].app",
          "must be given as dir:");
    s_err("name: x\ntarget: dir:/nas\nprofiles:\n  - {name: t, app: mysql}\n", 4, "profiles[0].app",
          "pgbench or sysbench-oltp");
    s_err("name: x\ntarget: dir:/nas\nprofiles:\n  - {name: t, app: pgbench, tables: 2}\n", 4,
          "profiles[0].tables", "allowed with app: pgbench");
    s_err("name: x\ntarget: dir:/nas\nprofiles:\n  - {name: t, app: sysbench-oltp, "
          "table_size: 2G}\n",
          4, "profiles[0].table_size", "row count");
    s_err("name: x\ntarget: dir:/nas\nprofiles:\n  - {name: t, app: pgbench, clients: 2, "
          "jobs: 4}\n",
          4, "profiles[0]", "cannot exceed clients");
    s_err("name: x\ntarget: dir:/nas\nprofiles:\n  - {name: 4k-rand, app: pgbench}\n", 4,
          "profiles[0].name", "standard fio profile");
}

/* Block devices and iSCSI LUNs read before anything writes them are warned about, once each;
 * a fill first, a write first, a file or an smb:// target (laid out by lg) are not. */
typedef struct {
    unsigned n;
    char last[1024];
} warns_t;

static void s_warn(void *arg, const char *msg)
{
    warns_t *w = arg;
    w->n++;
    snprintf(w->last, sizeof w->last, "%s", msg);
}

static unsigned s_unwritten(const char *text, warns_t *w)
{
    lg_spec_t *s = s_ok(text);
    lg_run_plan_t *runs = NULL;
    size_t n = 0;
    assert_int_equal(lg_spec_plan(s, &runs, &n), 0);
    memset(w, 0, sizeof *w);
    size_t got = lg_plan_unwritten_reads(s, runs, n, s_warn, w);
    assert_int_equal(got, w->n);
    free(runs);
    lg_spec_destroy(&s);
    return w->n;
}

static void test_unwritten_reads(void **state)
{
    (void)state;
    warns_t w;
    /* two configs on one iSCSI LUN and a block device: 4k-rand reads first on each of the
     * three (config, target) pairs that are devices */
    assert_int_equal(
        s_unwritten("name: u\n"
                    "configs:\n"
                    "  - labels: {c: a}\n"
                    "    targets:\n"
                    "      - {protocol: iscsi, target: \"iscsi://h/iqn.2001-01.x:t/0\"}\n"
                    "      - {protocol: smb, target: \"smb://h/s/f.bin\"}\n"
                    "  - labels: {c: b}\n"
                    "    target: \"block:/dev/sdz\"\n"
                    "profiles: [4k-rand]\n",
                    &w),
        2);
    assert_non_null(strstr(w.last, "block target \"/dev/sdz\" (config 2) is read first"));
    assert_non_null(strstr(w.last, "4k-rand read"));
    assert_non_null(strstr(w.last, "precondition: fill"));
    /* a fill first: nothing to say */
    assert_int_equal(s_unwritten("name: u\ntarget: \"block:/dev/sdz\"\nprofiles: [4k-rand]\n"
                                 "precondition: fill\n",
                                 &w),
                     0);
    /* a write first: nothing to say */
    assert_int_equal(
        s_unwritten("name: u\ntarget: \"block:/dev/sdz\"\n"
                    "profiles: [{name: w, bs: 4k, pattern: random, read: 0}, 4k-rand]\n",
                    &w),
        0);
    /* a file: lg lays it out */
    assert_int_equal(s_unwritten("name: u\ntarget: /mnt/x/f.bin\nprofiles: [4k-rand]\n", &w), 0);
}

/* A fill's length in lgctl watch: the slowest agent's time to write its size at its rate so far,
 * plus the ramp, at most the limit; the limit until every agent has a sample. */
static void test_fill_length(void **state)
{
    (void)state;
    uint64_t size[2] = {4000000000ULL, 4000000000ULL};
    uint64_t bytes[2] = {1000000000ULL, 500000000ULL}, ms[2] = {2000, 2000};
    /* agent 1 writes 1 GB in 2 s: 8 s for 4 GB; agent 2 half as fast: 16 s */
    assert_int_equal(lg_plan_fill_s(0, 1800, size, bytes, ms, 2), 16);
    assert_int_equal(lg_plan_fill_s(3, 1800, size, bytes, ms, 2), 19);
    assert_int_equal(lg_plan_fill_s(0, 10, size, bytes, ms, 2), 10); /* at most the limit */
    bytes[1] = 0;
    assert_int_equal(lg_plan_fill_s(0, 1800, size, bytes, ms, 2), 1800); /* not known yet */
    assert_int_equal(lg_plan_fill_s(0, 1800, size, bytes, ms, 1), 8);
    assert_int_equal(lg_plan_fill_s(0, 1800, size, bytes, ms, 0), 1800);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fill_length),
        cmocka_unit_test(test_review),
        cmocka_unit_test(test_fill_and_defaults),
        cmocka_unit_test(test_loads),
        cmocka_unit_test(test_search_plan),
        cmocka_unit_test(test_app_plan),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_unwritten_reads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
