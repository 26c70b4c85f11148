/* test_hook: lg_hook_exec and lg_hook_run (controller/hook.c) on real programs and a real libuv
 * loop: exit status, stdout up to its cap, the stderr tail, the environment, stdin, refusals,
 * the deadline (SIGTERM, then SIGKILL 5 s later for a program that ignores SIGTERM, and nothing
 * of a stopped program left behind), and a loop that closes with every handle freed (ASan). */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "hook.h"
#include "lg_util.h"

typedef struct {
    int calls;
    int64_t status;
    int sig;
    int timed_out;
    int truncated;
    char out[200000];
    size_t outlen;
    char tail[4096];
    uint64_t t0, ms; /* start, and how long until done */
} res_t;

static void s_done(void *arg, int64_t status, int term_signal, int timed_out, const char *out,
                   size_t outlen, int truncated, const char *err_tail)
{
    res_t *r = arg;
    r->calls++;
    r->status = status;
    r->sig = term_signal;
    r->timed_out = timed_out;
    r->truncated = truncated;
    assert_true(outlen < sizeof r->out);
    assert_int_equal(out[outlen], 0);
    memcpy(r->out, out, outlen + 1);
    r->outlen = outlen;
    snprintf(r->tail, sizeof r->tail, "%s", err_tail);
    r->ms = lg_mono_ms() - r->t0;
}

/* Run argv on a loop of its own to the end; the loop must then close (every handle freed). */
static res_t *s_run(char *const *argv, char *const *env, uint32_t timeout_ms, size_t out_max)
{
    res_t *r = calloc(1, sizeof *r);
    assert_non_null(r);
    uv_loop_t loop;
    assert_int_equal(uv_loop_init(&loop), 0);
    r->t0 = lg_mono_ms();
    assert_int_equal(lg_hook_exec(&loop, argv, env, timeout_ms, out_max, s_done, r), 0);
    assert_int_equal(uv_run(&loop, UV_RUN_DEFAULT), 0);
    assert_int_equal(uv_loop_close(&loop), 0);
    assert_int_equal(r->calls, 1);
    return r;
}

/* Is process pid gone (or a zombie nobody has reaped yet)? */
static int s_gone_now(long pid)
{
    if (kill((pid_t)pid, 0) != 0)
        return errno == ESRCH;
    char path[64], *st = NULL;
    size_t len;
    snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    if (lg_read_file(path, 4096, &st, &len) != 0)
        return 1;
    const char *p = strrchr(st, ')');
    int z = p && p[1] == ' ' && (p[2] == 'Z' || p[2] == 'X');
    free(st);
    return z;
}

/* Is pid gone within a second? A process killed ends a moment after its pipes close. */
static int s_gone(long pid)
{
    for (int i = 0; i < 100; i++) {
        if (s_gone_now(pid))
            return 1;
        usleep(10000);
    }
    return 0;
}

static void test_echo(void **state)
{
    (void)state;
    char *argv[] = {"/bin/echo", "hello", "world", NULL};
    res_t *r = s_run(argv, NULL, 10000, 4096);
    assert_int_equal(r->status, 0);
    assert_int_equal(r->sig, 0);
    assert_int_equal(r->timed_out, 0);
    assert_int_equal(r->truncated, 0);
    assert_int_equal(r->outlen, 12);
    assert_string_equal(r->out, "hello world\n");
    assert_string_equal(r->tail, "");
    /* no shell: a metacharacter is an argument like any other */
    char *argv2[] = {"/bin/echo", "$HOME;", "`id`", NULL};
    free(r);
    r = s_run(argv2, NULL, 10000, 4096);
    assert_string_equal(r->out, "$HOME; `id`\n");
    free(r);
}

static void test_status_stderr_stdin(void **state)
{
    (void)state;
    char *argv[] = {"/bin/sh", "-c", "echo partial; echo 'no such dataset' >&2; exit 3", NULL};
    res_t *r = s_run(argv, NULL, 10000, 4096);
    assert_int_equal(r->status, 3);
    assert_int_equal(r->sig, 0);
    assert_string_equal(r->out, "partial\n");
    assert_string_equal(r->tail, "no such dataset");
    free(r);
    /* stdin is /dev/null: cat ends at once */
    char *argv2[] = {"/bin/sh", "-c", "cat; echo end", NULL};
    r = s_run(argv2, NULL, 10000, 4096);
    assert_string_equal(r->out, "end\n");
    assert_true(r->ms < 5000);
    free(r);
    /* a long stderr: its end is kept */
    char *argv3[] = {"/bin/sh", "-c",
                     "i=0; while [ $i -lt 1000 ]; do echo \"line $i\" >&2; i=$((i+1)); done", NULL};
    r = s_run(argv3, NULL, 10000, 0);
    assert_int_equal(r->status, 0);
    assert_true(strlen(r->tail) < 2048 && strlen(r->tail) > 500);
    const char *end = "line 998\nline 999";
    assert_string_equal(r->tail + strlen(r->tail) - strlen(end), end);
    assert_null(strstr(r->tail, "line 1\n"));
    assert_int_equal(r->outlen, 0); /* out_max 0: stdout not read */
    free(r);
    /* killed by a signal, not by lg */
    char *argv4[] = {"/bin/sh", "-c", "kill -USR1 $$", NULL};
    r = s_run(argv4, NULL, 10000, 64);
    assert_int_equal(r->sig, SIGUSR1);
    assert_int_equal(r->timed_out, 0);
    free(r);
}

/* The controller's variables reach the program, but none of its LG_* and PG* ones (its database
 * URL, a password): those lg gives it (env) do, and win over the controller's of the same name. */
static void test_env(void **state)
{
    (void)state;
    setenv("TEST_HOOK_MINE", "controller", 1);
    setenv("LG_TEST_HOOK_BOTH", "controller", 1);
    setenv("LG_DATABASE_URL", "postgresql://lg:s3cret@db/lg", 1);
    setenv("LG_LABEL_STALE", "controller", 1);
    setenv("PGPASSWORD", "s3cret", 1);
    setenv("PGHOST", "db", 1);
    char *env[] = {"LG_TEST_HOOK_BOTH=given", "LG_LABEL_MEDIA=ssd zstd", NULL};
    char *argv[] = {"/bin/sh", "-c",
                    "printf '%s|%s|%s|' \"$TEST_HOOK_MINE\" \"$LG_TEST_HOOK_BOTH\" "
                    "\"$LG_LABEL_MEDIA\"; env | grep -E '^(LG|PG)' | sort | tr '\\n' ' '",
                    NULL};
    res_t *r = s_run(argv, env, 10000, 4096);
    assert_string_equal(r->out, "controller|given|ssd zstd|LG_LABEL_MEDIA=ssd zstd "
                                "LG_TEST_HOOK_BOTH=given ");
    free(r);
    const char *set[] = {"TEST_HOOK_MINE", "LG_TEST_HOOK_BOTH", "LG_DATABASE_URL",
                         "LG_LABEL_STALE", "PGPASSWORD",        "PGHOST"};
    for (size_t i = 0; i < sizeof set / sizeof set[0]; i++)
        unsetenv(set[i]);
}

static void test_truncated(void **state)
{
    (void)state;
    /* 100000 bytes against a cap of 1000: the first 1000 kept, the rest read and dropped (the
     * program is not blocked on a full pipe: it ends with status 0) */
    char *argv[] = {"/bin/sh", "-c", "head -c 100000 /dev/zero | tr '\\000' x", NULL};
    res_t *r = s_run(argv, NULL, 10000, 1000);
    assert_int_equal(r->status, 0);
    assert_int_equal(r->timed_out, 0);
    assert_int_equal(r->truncated, 1);
    assert_int_equal(r->outlen, 1000);
    assert_int_equal(strspn(r->out, "x"), 1000);
    free(r);
    /* exactly the cap is not truncated; binary output keeps its NULs */
    char *argv2[] = {"/bin/sh", "-c", "head -c 1000 /dev/zero", NULL};
    r = s_run(argv2, NULL, 10000, 1000);
    assert_int_equal(r->truncated, 0);
    assert_int_equal(r->outlen, 1000);
    assert_int_equal(r->out[999], 0);
    free(r);
}

static void test_refused(void **state)
{
    (void)state;
    uv_loop_t loop;
    res_t r;
    memset(&r, 0, sizeof r);
    assert_int_equal(uv_loop_init(&loop), 0);
    char *rel[] = {"echo", "x", NULL};
    assert_int_equal(lg_hook_exec(&loop, rel, NULL, 1000, 64, s_done, &r), UV_EINVAL);
    char *dot[] = {"./echo", NULL};
    assert_int_equal(lg_hook_exec(&loop, dot, NULL, 1000, 64, s_done, &r), UV_EINVAL);
    char *empty[] = {NULL};
    assert_int_equal(lg_hook_exec(&loop, empty, NULL, 1000, 64, s_done, &r), UV_EINVAL);
    char *ok[] = {"/bin/echo", NULL};
    assert_int_equal(lg_hook_exec(&loop, ok, NULL, 0, 64, s_done, &r), UV_EINVAL); /* no deadline */
    assert_int_equal(lg_hook_exec(&loop, ok, NULL, 1000, 64, NULL, &r), UV_EINVAL);
    char *missing[] = {"/nonexistent/lg-probe", NULL};
    assert_int_equal(lg_hook_exec(&loop, missing, NULL, 1000, 64, s_done, &r), UV_ENOENT);
    char *notexec[] = {"/etc/passwd", NULL};
    int rc = lg_hook_exec(&loop, notexec, NULL, 1000, 64, s_done, &r);
    assert_int_equal(rc, UV_EACCES);
    assert_int_equal(uv_run(&loop, UV_RUN_DEFAULT), 0); /* the handles it made are closed */
    assert_int_equal(uv_loop_close(&loop), 0);
    assert_int_equal(r.calls, 0); /* a function that fails never calls back */
}

/* The deadline: SIGTERM to the group (the shell and its sleep), at once. */
static void test_timeout_term(void **state)
{
    (void)state;
    char *argv[] = {"/bin/sh", "-c", "echo started; sleep 30", NULL};
    res_t *r = s_run(argv, NULL, 300, 4096);
    assert_int_equal(r->timed_out, 1);
    assert_int_equal(r->sig, SIGTERM);
    assert_string_equal(r->out, "started\n");
    assert_true(r->ms >= 300);
    assert_true(r->ms < 300 + LG_HOOK_KILL_AFTER_MS); /* no SIGKILL was needed */
    free(r);
}

/* A program that ignores SIGTERM gets SIGKILL 5 s later, and so does its child. */
static void test_timeout_kill(void **state)
{
    (void)state;
    char *argv[] = {"/bin/sh", "-c", "trap '' TERM; sleep 30 & echo $!; wait; wait; wait", NULL};
    res_t *r = s_run(argv, NULL, 300, 4096);
    assert_int_equal(r->timed_out, 1);
    assert_int_equal(r->sig, SIGKILL);
    assert_true(r->ms >= 300 + LG_HOOK_KILL_AFTER_MS);
    assert_true(r->ms < 300 + LG_HOOK_KILL_AFTER_MS + 1500);
    long child = strtol(r->out, NULL, 10);
    assert_true(child > 1);
    assert_true(s_gone(child));
    free(r);
}

/* The shell goes at SIGTERM but leaves a child that ignores it holding stdout: lg still sends
 * SIGKILL to the group at 5 s, and ends there. */
static void test_timeout_leftover(void **state)
{
    (void)state;
    char *argv[] = {"/bin/sh", "-c", "sh -c 'trap \"\" TERM; sleep 30' & echo $!; wait", NULL};
    res_t *r = s_run(argv, NULL, 300, 4096);
    assert_int_equal(r->timed_out, 1);
    assert_int_equal(r->sig, SIGTERM); /* the leader's own end */
    assert_true(r->ms >= 300 + LG_HOOK_KILL_AFTER_MS);
    assert_true(r->ms < 300 + LG_HOOK_KILL_AFTER_MS + 1500);
    long child = strtol(r->out, NULL, 10);
    assert_true(child > 1);
    assert_true(s_gone(child));
    free(r);
}

/* A program that ends but leaves a child holding its pipes: lg stops reading a second later,
 * well before the deadline, and reports its exit. */
static void test_exit_leaves_child(void **state)
{
    (void)state;
    char *argv[] = {"/bin/sh", "-c", "sleep 30 & echo $!", NULL};
    res_t *r = s_run(argv, NULL, 20000, 4096);
    assert_int_equal(r->status, 0);
    assert_int_equal(r->timed_out, 0);
    assert_true(r->ms < 5000);
    long child = strtol(r->out, NULL, 10);
    assert_true(child > 1);
    kill((pid_t)child, SIGKILL); /* not the test's to leave behind */
    free(r);
}

/* ---- the between-configs hook ---- */

typedef struct {
    int calls;
    int64_t status;
    int sig, timed_out;
    char tail[4096];
} hres_t;

static void s_hook_done(void *arg, int64_t status, int term_signal, int timed_out,
                        const char *err_tail)
{
    hres_t *h = arg;
    h->calls++;
    h->status = status;
    h->sig = term_signal;
    h->timed_out = timed_out;
    snprintf(h->tail, sizeof h->tail, "%s", err_tail);
}

static void s_hook(const char *cmd, uint32_t timeout_ms, hres_t *h)
{
    uv_loop_t loop;
    memset(h, 0, sizeof *h);
    assert_int_equal(uv_loop_init(&loop), 0);
    char *env[] = {"LG_CONFIG=2", NULL};
    assert_int_equal(lg_hook_run(&loop, cmd, env, timeout_ms, s_hook_done, h), 0);
    assert_int_equal(uv_run(&loop, UV_RUN_DEFAULT), 0);
    assert_int_equal(uv_loop_close(&loop), 0);
    assert_int_equal(h->calls, 1);
}

static void test_hook(void **state)
{
    (void)state;
    hres_t h;
    s_hook("echo to-stdout; echo \"config $LG_CONFIG: pool busy\" >&2; exit 4", 10000, &h);
    assert_int_equal(h.status, 4);
    assert_int_equal(h.timed_out, 0);
    assert_string_equal(h.tail, "config 2: pool busy");
    s_hook("true", 10000, &h);
    assert_int_equal(h.status, 0);
    assert_int_equal(h.sig, 0);
    s_hook("echo waiting >&2; sleep 30", 300, &h);
    assert_int_equal(h.timed_out, 1);
    assert_int_equal(h.sig, SIGTERM);
    assert_string_equal(h.tail, "waiting");
}

/* A controller that stops: what still runs gets SIGTERM and is forgotten (its callback called at
 * once with UV_ECANCELED), every handle closes, and a program on another loop is left alone. */
static void test_cancel_all(void **state)
{
    (void)state;
    char dir[] = "/tmp/lg-test-hook.XXXXXX", cmd[256], cmd2[256], path[300], path2[300];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/pid", dir);
    snprintf(path2, sizeof path2, "%s/pid2", dir);
    snprintf(cmd, sizeof cmd, "echo $$ >%s.new; mv %s.new %s; exec sleep 30", path, path, path);
    snprintf(cmd2, sizeof cmd2, "echo $$ >%s.new; mv %s.new %s; exec sleep 30", path2, path2,
             path2);
    uv_loop_t loop, other;
    assert_int_equal(uv_loop_init(&loop), 0);
    assert_int_equal(uv_loop_init(&other), 0);
    res_t r, r2;
    hres_t h;
    memset(&r, 0, sizeof r);
    memset(&r2, 0, sizeof r2);
    memset(&h, 0, sizeof h);
    char *argv[] = {"/bin/sh", "-c", cmd, NULL};
    char *argv2[] = {"/bin/sh", "-c", cmd2, NULL};
    assert_int_equal(lg_hook_exec(&loop, argv, NULL, 60000, 64, s_done, &r), 0);
    assert_int_equal(lg_hook_run(&loop, "sleep 30", NULL, 60000, s_hook_done, &h), 0);
    assert_int_equal(lg_hook_exec(&other, argv2, NULL, 300, 64, s_done, &r2), 0);
    char *pid = NULL, *pid2 = NULL;
    size_t len;
    for (int i = 0; i < 500 && (lg_read_file(path, 64, &pid, &len) != 0 ||
                                lg_read_file(path2, 64, &pid2, &len) != 0);
         i++) {
        free(pid);
        pid = NULL;
        uv_run(&loop, UV_RUN_NOWAIT);
        usleep(10000);
    }
    assert_non_null(pid);
    assert_non_null(pid2);
    assert_int_equal(r.calls, 0);
    lg_hook_cancel_all(&loop);
    assert_int_equal(r.calls, 1);
    assert_int_equal(r.status, UV_ECANCELED);
    assert_int_equal(r.timed_out, 0);
    assert_int_equal(h.calls, 1);
    assert_int_equal(h.status, UV_ECANCELED);
    assert_int_equal(uv_run(&loop, UV_RUN_DEFAULT), 0);
    assert_int_equal(uv_loop_close(&loop), 0);
    assert_int_equal(r.calls, 1);
    assert_int_equal(h.calls, 1);
    assert_true(s_gone(strtol(pid, NULL, 10)));
    /* the other loop's program runs on, to its own deadline */
    assert_false(s_gone_now(strtol(pid2, NULL, 10)));
    assert_int_equal(uv_run(&other, UV_RUN_DEFAULT), 0);
    assert_int_equal(uv_loop_close(&other), 0);
    assert_int_equal(r2.calls, 1);
    assert_int_equal(r2.timed_out, 1);
    free(pid);
    free(pid2);
    unlink(path);
    unlink(path2);
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_echo),
        cmocka_unit_test(test_status_stderr_stdin),
        cmocka_unit_test(test_env),
        cmocka_unit_test(test_truncated),
        cmocka_unit_test(test_refused),
        cmocka_unit_test(test_timeout_term),
        cmocka_unit_test(test_timeout_kill),
        cmocka_unit_test(test_timeout_leftover),
        cmocka_unit_test(test_exit_leaves_child),
        cmocka_unit_test(test_hook),
        cmocka_unit_test(test_cancel_all),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
