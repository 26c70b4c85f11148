/* test_apprun.c: application workloads run for real: a private PostgreSQL with pgbench and a
 * private MariaDB with sysbench, prepared, released, read and torn down by lg_apprun in a libuv
 * loop; the totals checked against the tools' own output, the servers gone, no TCP listener,
 * the folders removed (or kept), and a data folder outside the allow-list refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <uv.h>

#include "agent.h"
#include "appprog.h"
#include "apprec.h"
#include "apprun.h"
#include "fiorun.h"
#include "lg_error.h"
#include "lg_util.h"

#define MAX_SAMPLES 64

typedef struct {
    uv_loop_t loop;
    lg_apprun_t *run;
    int prepared, started, done;
    uint64_t prepare_ms;
    int server_pid;
    char data_dir[1100];
    int new_listeners; /* TCP sockets the server listened on while it ran */
    int64_t t_us;
    uint64_t seq[MAX_SAMPLES];
    int64_t t_ms[MAX_SAMPLES];
    uint64_t iv[MAX_SAMPLES];
    double tps[MAX_SAMPLES];
    size_t n;
    uint64_t stop_after; /* lg_apprun_stop after this many samples (0: never) */
    int destroy_held;    /* lg_apprun_destroy once prepared, as an agent shutting down does */
    lg_app_total_t tot;
    int has_tot;
    char *output;
    int64_t exit_status;
    uint64_t res_samples, res_prepare_ms;
    int err;
    char error[4096];
    char stop_note[256];
    uint64_t run_id;
    char rec_dir[128]; /* the run's record is kept here (the agent's work folder) */
    int rec_checked;   /* while prepared, the record named the folders and the server */
} ctx_t;

static char s_dir[64];

/* TCP sockets in LISTEN state that pid holds (its descriptors' socket inodes looked up in
 * /proc/net/tcp and tcp6), independently of lg_apprun's own check; -1 when unreadable. */
static int s_listeners(int pid)
{
    char dir[64], link[400], tgt[64];
    unsigned long ino[512];
    size_t ni = 0;
    snprintf(dir, sizeof dir, "/proc/%d/fd", pid);
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    struct dirent *e;
    while ((e = readdir(d)) != NULL && ni < 512) {
        snprintf(link, sizeof link, "%s/%s", dir, e->d_name);
        ssize_t n = readlink(link, tgt, sizeof tgt - 1);
        if (n > 0) {
            tgt[n] = 0;
            if (sscanf(tgt, "socket:[%lu]", &ino[ni]) == 1)
                ni++;
        }
    }
    closedir(d);
    const char *files[] = {"/proc/net/tcp", "/proc/net/tcp6"};
    int n = 0;
    for (size_t i = 0; i < 2; i++) {
        FILE *f = fopen(files[i], "r");
        char l[512];
        unsigned st;
        unsigned long in;
        while (f && fgets(l, sizeof l, f))
            if (sscanf(l, " %*s %*s %*s %x %*s %*s %*s %*s %*s %lu", &st, &in) == 2 && st == 0x0A)
                for (size_t k = 0; k < ni; k++)
                    n += ino[k] == in;
        if (f)
            fclose(f);
    }
    return n;
}

/* While the run is prepared, its record names its data folder, its server's PID and the steps
 * that ran before (initdb, readiness checks, createdb, the load): what a killed agent's
 * successor would need. */
static void s_check_record(ctx_t *c)
{
    char path[256], name[64], *text = NULL, err[256];
    size_t len = 0;
    lg_apprec_name(c->run_id, name, sizeof name);
    snprintf(path, sizeof path, "%s/%s", c->rec_dir, name);
    assert_int_equal(lg_read_file(path, LG_APPREC_MAX_BYTES, &text, &len), 0);
    lg_apprec_t rec;
    int rc = lg_apprec_parse(text, len, &rec, err, sizeof err);
    if (rc)
        fprintf(stderr, "record: %s\n%s", err, text);
    assert_int_equal(rc, 0);
    free(text);
    assert_int_equal(rec.run_id, c->run_id);
    assert_string_equal(rec.data, c->data_dir);
    assert_int_equal(rec.sock_ino != 0 && rec.data_ino != 0, 1);
    struct stat st;
    assert_int_equal(stat(c->data_dir, &st), 0);
    assert_int_equal((uint64_t)st.st_ino, rec.data_ino);
    assert_int_equal(rec.uid, (unsigned)st.st_uid);
    size_t servers = 0, clients = 0;
    for (size_t i = 0; i < rec.nprocs; i++) {
        if (rec.procs[i].server)
            assert_int_equal(rec.procs[i].pid, c->server_pid);
        servers += rec.procs[i].server != 0;
        clients += rec.procs[i].server == 0;
    }
    assert_int_equal(servers, 1);
    assert_true(clients >= 3);
    c->rec_checked = 1;
}

static void on_prepared(void *arg, uint64_t prepare_ms)
{
    ctx_t *c = arg;
    c->prepared = 1;
    c->prepare_ms = prepare_ms;
    c->server_pid = lg_apprun_server_pid(c->run);
    lg_strlcpy(c->data_dir, lg_apprun_data_dir(c->run), sizeof c->data_dir);
    c->new_listeners = s_listeners(c->server_pid);
    s_check_record(c);
    if (c->destroy_held) {
        lg_apprun_destroy(&c->run);
        return;
    }
    assert_int_equal(lg_apprun_release(c->run, lg_now_us() + 100000), 0);
    assert_int_not_equal(lg_apprun_release(c->run, lg_now_us() + 100000), 0); /* only once */
}

static void on_started(void *arg, int64_t t_us, int err)
{
    ctx_t *c = arg;
    assert_int_equal(err, 0);
    c->started = 1;
    c->t_us = t_us;
}

static void on_sample(void *arg, uint64_t seq, int64_t t_ms, uint64_t interval_ms,
                      const lg_app_sample_t *s)
{
    ctx_t *c = arg;
    if (c->n < MAX_SAMPLES) {
        c->seq[c->n] = seq;
        c->t_ms[c->n] = t_ms;
        c->iv[c->n] = interval_ms;
        c->tps[c->n] = s->tps;
        c->n++;
    }
    if (c->stop_after && seq == c->stop_after)
        lg_apprun_stop(c->run);
}

static void on_done(void *arg, const lg_apprun_result_t *res)
{
    ctx_t *c = arg;
    c->done = 1;
    if (res->tot) {
        c->tot = *res->tot;
        c->has_tot = 1;
    }
    c->output = strndup(res->output, res->output_len);
    c->exit_status = res->exit_status;
    c->res_samples = res->samples;
    c->res_prepare_ms = res->prepare_ms;
    c->err = res->err;
    if (res->error)
        lg_strlcpy(c->error, res->error, sizeof c->error);
    if (res->stop_note)
        lg_strlcpy(c->stop_note, res->stop_note, sizeof c->stop_note);
    lg_apprun_destroy(&c->run);
}

static const lg_apprun_cbs_t s_cbs = {on_prepared, on_started, on_sample, on_done};

static lg_agent_config_t s_cfg(void)
{
    lg_agent_config_t cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.name = "test";
    cfg.allow[0] = s_dir;
    cfg.nallow = 1;
    cfg.app_user = geteuid() == 0 ? "nobody" : NULL;
    return cfg;
}

/* Run one workload to its end in a loop of its own; returns 0 when prepare accepted it. */
static void s_run(ctx_t *c, Lg__RunSpec *spec)
{
    lg_agent_config_t cfg = s_cfg();
    char err[1024];
    assert_int_equal(uv_loop_init(&c->loop), 0);
    snprintf(c->rec_dir, sizeof c->rec_dir, "%s/work", s_dir);
    if (mkdir(c->rec_dir, 0700) != 0)
        assert_int_equal(errno, EEXIST);
    c->run_id = spec->run_id;
    int rc = lg_apprun_prepare(&c->loop, &cfg, spec, cfg.name, c->rec_dir, &s_cbs, c, &c->run, err,
                               sizeof err);
    if (rc)
        fprintf(stderr, "prepare: %s\n", err);
    assert_int_equal(rc, 0);
    uv_run(&c->loop, UV_RUN_DEFAULT);
    assert_true(c->done || c->destroy_held);
    assert_null(c->run);
    assert_int_equal(uv_loop_close(&c->loop), 0); /* every handle closed */
    /* Everything stopped and removed: the record went with it. */
    char path[256], name[64];
    struct stat st;
    lg_apprec_name(c->run_id, name, sizeof name);
    snprintf(path, sizeof path, "%s/%s", c->rec_dir, name);
    assert_int_equal(stat(path, &st), -1);
    assert_true(c->rec_checked || !c->prepared);
    if (c->err)
        fprintf(stderr, "run: %s\n", c->error);
}

static int s_rm_cb(const char *p, const struct stat *st, int flag, struct FTW *f)
{
    (void)st;
    (void)flag;
    (void)f;
    return remove(p);
}

static void s_after(ctx_t *c, int kept)
{
    assert_true(c->server_pid > 0);
    errno = 0;
    assert_int_equal(kill(c->server_pid, 0), -1); /* the server is gone */
    assert_int_equal(errno, ESRCH);
    assert_int_equal(c->new_listeners, 0);
    struct stat st;
    if (kept) {
        assert_int_equal(stat(c->data_dir, &st), 0);
        assert_true(S_ISDIR(st.st_mode));
        nftw(c->data_dir, s_rm_cb, 16, FTW_DEPTH | FTW_PHYS);
    } else {
        assert_int_equal(stat(c->data_dir, &st), -1);
        assert_int_equal(errno, ENOENT);
    }
    free(c->output);
}

static void s_check_samples(const ctx_t *c)
{
    assert_true(c->prepared && c->started);
    assert_true(c->prepare_ms > 0);
    assert_int_equal(c->res_prepare_ms, c->prepare_ms);
    assert_true(c->n >= 3 && c->n <= 5);
    assert_int_equal(c->res_samples, c->n);
    for (size_t i = 0; i < c->n; i++) {
        assert_int_equal(c->seq[i], i + 1);
        assert_true(c->tps[i] > 0);
        assert_true(c->iv[i] >= 700 && c->iv[i] <= 1300);
        assert_true(c->t_ms[i] > c->t_us / 1000);
        if (i)
            assert_true(c->t_ms[i] - c->t_ms[i - 1] >= 700 && c->t_ms[i] - c->t_ms[i - 1] <= 1300);
    }
}

/* A number that follows key in text, read independently of lg_app. */
static double s_after_key(const char *text, const char *key)
{
    const char *p = strstr(text, key);
    assert_non_null(p);
    p += strlen(key);
    while (*p == ' ')
        p++;
    char *end;
    double v = strtod(p, &end);
    assert_true(end != p);
    return v;
}

static Lg__AppSpec s_app;
static Lg__RunSpec s_spec(Lg__AppKind kind, uint64_t run_id, uint32_t runtime, int keep,
                          char *target, size_t tlen)
{
    Lg__AppSpec a = LG__APP_SPEC__INIT;
    a.kind = kind;
    a.scale = 1;
    a.tables = 1;
    a.table_size = 2000;
    a.keep = keep;
    s_app = a;
    snprintf(target, tlen, "%s/lg-data.bin", s_dir);
    Lg__RunSpec s = LG__RUN_SPEC__INIT;
    s.run_id = run_id;
    s.target = target;
    s.threads = 2;
    s.runtime_s = runtime;
    s.app = &s_app;
    return s;
}

static int s_have_pg(void)
{
    char b[1024];
    return lg_appprog_pg_bindir(NULL, b, sizeof b) == 0;
}

static int s_in_path(const char *name)
{
    const char *dirs[] = {"/usr/sbin", "/usr/bin", "/usr/local/bin", "/usr/local/sbin"};
    char p[256];
    for (size_t i = 0; i < 4; i++) {
        snprintf(p, sizeof p, "%s/%s", dirs[i], name);
        if (access(p, X_OK) == 0)
            return 1;
    }
    return 0;
}

static void test_pgbench(void **state)
{
    (void)state;
    if (!s_have_pg()) {
        fprintf(stderr, "skipped: no /usr/lib/postgresql/*/bin/initdb\n");
        skip();
    }
    ctx_t *c = calloc(1, sizeof *c);
    char target[256];
    Lg__RunSpec spec = s_spec(LG__APP_KIND__APP_PGBENCH, 901, 4, 0, target, sizeof target);
    s_run(c, &spec);
    assert_int_equal(c->err, 0);
    assert_true(c->has_tot);
    s_check_samples(c);
    assert_int_equal(c->exit_status, 0);
    assert_int_equal(c->tot.kind, LG_APP_PGBENCH);
    assert_int_equal(c->tot.clients, 2);
    assert_int_equal(c->tot.scale, 1);
    /* what pgbench itself printed */
    assert_int_equal(
        c->tot.transactions,
        (uint64_t)s_after_key(c->output, "number of transactions actually processed:"));
    double tps = s_after_key(c->output, "tps =");
    assert_true(tps > 0 && fabs(c->tot.tps - tps) < 1e-6 * tps + 1e-6);
    assert_non_null(strstr(c->output, "progress: 1.0 s")); /* stderr in the output too */
    s_after(c, 0);
    free(c);
}

static void test_sysbench(void **state)
{
    (void)state;
    if (!s_in_path("sysbench") || !s_in_path("mariadbd") || !s_in_path("mariadb-install-db")) {
        fprintf(stderr, "skipped: sysbench, mariadbd or mariadb-install-db is not installed\n");
        skip();
    }
    ctx_t *c = calloc(1, sizeof *c);
    char target[256];
    Lg__RunSpec spec = s_spec(LG__APP_KIND__APP_SYSBENCH_OLTP, 902, 4, 0, target, sizeof target);
    s_run(c, &spec);
    assert_int_equal(c->err, 0);
    assert_true(c->has_tot);
    s_check_samples(c);
    assert_int_equal(c->tot.threads, 2);
    assert_int_equal(c->tot.transactions, (uint64_t)s_after_key(c->output, "transactions:"));
    const char *p = strstr(c->output, "transactions:");
    double tps = s_after_key(p, "(");
    assert_true(fabs(c->tot.tps - tps) < 0.01);
    assert_int_equal(c->tot.queries, (uint64_t)s_after_key(c->output, "queries:"));
    s_after(c, 0);
    free(c);
}

/* Stopped after two reports of a 30 s run, with keep: pgbench ends on SIGALRM (its own -T timer)
 * and prints its summary over the ~2 s it ran, which is the run's result (no error), with a
 * note saying how it ended; the samples kept, the server stopped and its data folder left. */
static void test_stop_keep(void **state)
{
    (void)state;
    if (!s_have_pg()) {
        fprintf(stderr, "skipped: no /usr/lib/postgresql/*/bin/initdb\n");
        skip();
    }
    ctx_t *c = calloc(1, sizeof *c);
    c->stop_after = 2;
    char target[256];
    Lg__RunSpec spec = s_spec(LG__APP_KIND__APP_PGBENCH, 903, 30, 1, target, sizeof target);
    s_run(c, &spec);
    assert_true(c->n >= 2);
    assert_true(c->res_samples >= 2);
    if (!c->has_tot)
        fail_msg("stopped pgbench printed no summary: %s", c->error);
    assert_int_equal(c->err, 0);
    assert_int_equal(c->exit_status, 0);
    assert_non_null(strstr(c->stop_note, "pgbench ended on SIGALRM"));
    /* its summary covers the seconds it ran, not the 30 asked for: the transactions are about
     * those of its reports (each is one second's), with the part second after the last */
    double reported = 0;
    for (size_t i = 0; i < c->n; i++)
        reported += c->tps[i] * (double)c->iv[i] / 1000.0;
    fprintf(stderr, "stopped after %zu reports: %llu transactions, %.1f tps; reports %.0f; %s\n",
            c->n, (unsigned long long)c->tot.transactions, c->tot.tps, reported, c->stop_note);
    assert_true(c->tot.transactions >= reported * 0.95);
    assert_true(c->tot.transactions <= reported * 0.95 + c->tot.tps * 1.5);
    s_after(c, 1);
    free(c);
}

/* Given up once prepared (the agent shutting down): no callback, and once the loop has run on,
 * the server is gone and its folders removed. */
static void test_destroy_held(void **state)
{
    (void)state;
    if (!s_have_pg()) {
        fprintf(stderr, "skipped: no /usr/lib/postgresql/*/bin/initdb\n");
        skip();
    }
    ctx_t *c = calloc(1, sizeof *c);
    c->destroy_held = 1;
    char target[256];
    Lg__RunSpec spec = s_spec(LG__APP_KIND__APP_PGBENCH, 905, 4, 0, target, sizeof target);
    s_run(c, &spec);
    assert_true(c->prepared && !c->started && !c->done);
    s_after(c, 0);
    free(c);
}

static void test_refused(void **state)
{
    (void)state;
    if (!s_have_pg()) {
        fprintf(stderr, "skipped: no /usr/lib/postgresql/*/bin/initdb\n");
        skip();
    }
    lg_agent_config_t cfg = s_cfg();
    uv_loop_t loop;
    assert_int_equal(uv_loop_init(&loop), 0);
    lg_apprun_t *run = NULL;
    char err[1024], target[256], link[256], made[300];
    struct stat st;
    /* a folder outside the allow-list */
    Lg__RunSpec spec = s_spec(LG__APP_KIND__APP_PGBENCH, 904, 4, 0, target, sizeof target);
    spec.target = "/var/tmp/lg-data.bin";
    int rc =
        lg_apprun_prepare(&loop, &cfg, &spec, "test", NULL, &s_cbs, NULL, &run, err, sizeof err);
    assert_int_equal(rc, LG_EDENIED);
    assert_null(run);
    assert_non_null(strstr(err, "outside this agent's allowed targets"));
    assert_int_equal(stat("/var/tmp/lg-pgbench-904-test", &st), -1);
    /* inside by name, outside through a link */
    snprintf(link, sizeof link, "%s/out", s_dir);
    assert_int_equal(symlink("/var/tmp", link), 0);
    snprintf(target, sizeof target, "%s/out/lg-data.bin", s_dir);
    spec.target = target;
    rc = lg_apprun_prepare(&loop, &cfg, &spec, "test", NULL, &s_cbs, NULL, &run, err, sizeof err);
    assert_int_equal(rc, LG_EDENIED);
    assert_non_null(strstr(err, "\"/var/tmp/lg-pgbench-904-test\", outside"));
    assert_int_equal(stat("/var/tmp/lg-pgbench-904-test", &st), -1);
    unlink(link);
    /* a folder that is there already is never taken over */
    snprintf(target, sizeof target, "%s/lg-data.bin", s_dir);
    snprintf(made, sizeof made, "%s/lg-pgbench-904-test", s_dir);
    assert_int_equal(mkdir(made, 0755), 0);
    rc = lg_apprun_prepare(&loop, &cfg, &spec, "test", NULL, &s_cbs, NULL, &run, err, sizeof err);
    assert_int_equal(rc, -EEXIST);
    assert_int_equal(stat(made, &st), 0);
    rmdir(made);
    /* root without --app-user */
    if (geteuid() == 0) {
        cfg.app_user = NULL;
        rc = lg_apprun_prepare(&loop, &cfg, &spec, "test", NULL, &s_cbs, NULL, &run, err,
                               sizeof err);
        assert_int_equal(rc, LG_EDENIED);
        assert_non_null(strstr(err, "--app-user"));
    }
    assert_int_equal(uv_loop_close(&loop), 0);
}

static int s_setup(void **state)
{
    (void)state;
    lg_strlcpy(s_dir, "/tmp/lg-test-apprun-XXXXXX", sizeof s_dir);
    if (!mkdtemp(s_dir))
        return -1;
    return chmod(s_dir, 0755); /* the app user (nobody) must reach its data folder */
}

static int s_teardown(void **state)
{
    (void)state;
    return nftw(s_dir, s_rm_cb, 16, FTW_DEPTH | FTW_PHYS);
}

int main(int argc, char **argv)
{
    /* The held tool runs as "/proc/self/exe --exec-at-fd 3 -- argv...": this binary. */
    if (argc > 4 && strcmp(argv[1], "--exec-at-fd") == 0)
        return lg_fiorun_hold_main(3, argv + 4);
    signal(SIGPIPE, SIG_IGN);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_refused),      cmocka_unit_test(test_pgbench),
        cmocka_unit_test(test_sysbench),     cmocka_unit_test(test_stop_keep),
        cmocka_unit_test(test_destroy_held),
    };
    return cmocka_run_group_tests(tests, s_setup, s_teardown);
}
