/* test_child: lg_child (sys/lg_child.c) on real child processes and a real libuv loop: exit
 * status and the stderr tail, stdout as it comes, stdout and stderr merged in order, the
 * environment and folder, the deadline (SIGTERM; SIGKILL for a program that ignores it; a
 * grandchild in the group ended with it), kills, destroy and forget, refusals, and a loop that
 * closes with every handle freed (ASan). */
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

#include "lg_child.h"
#include "lg_esc.h"
#include "lg_util.h"

typedef struct {
    int calls;
    lg_child_exit_t e;
    char tail[8192];
    char out[65536];
    size_t outlen;
    uint64_t t0, ms;
    lg_child_t *child;
} res_t;

/* A PID the child printed (trailing white space cut): a strict parse, which fails the test on
 * anything else. */
static long s_pid(const char *text)
{
    char buf[32];
    lg_strlcpy(buf, text, sizeof buf);
    size_t n = strlen(buf);
    while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r' || buf[n - 1] == ' '))
        buf[--n] = '\0';
    uint64_t v = 0;
    assert_int_equal(lg_parse_u64(buf, 1, 4194304, &v), 0);
    return (long)v;
}

static void s_out(void *arg, const char *data, size_t len)
{
    res_t *r = arg;
    assert_true(r->outlen + len < sizeof r->out);
    memcpy(r->out + r->outlen, data, len);
    r->outlen += len;
    r->out[r->outlen] = 0;
}

static void s_exit(void *arg, const lg_child_exit_t *e)
{
    res_t *r = arg;
    r->calls++;
    r->e = *e;
    assert_int_equal(e->tail[e->tail_len], 0);
    assert_true(e->tail_len < sizeof r->tail);
    memcpy(r->tail, e->tail, e->tail_len + 1);
    r->e.tail = r->tail;
    r->ms = lg_mono_ms() - r->t0;
    r->child = NULL; /* freed after this returns */
}

static lg_child_opts_t s_opts(char **argv, res_t *r)
{
    lg_child_opts_t o;
    memset(&o, 0, sizeof o);
    o.argv = argv;
    o.group = 1;
    o.out = LG_CHILD_PIPE;
    o.on_out = s_out;
    o.on_exit = s_exit;
    o.arg = r;
    r->t0 = lg_mono_ms();
    return o;
}

/* Run o on a loop of its own to the end; the loop must then close (every handle freed). */
static void s_run(const lg_child_opts_t *o, res_t *r)
{
    uv_loop_t loop;
    assert_int_equal(uv_loop_init(&loop), 0);
    assert_int_equal(lg_child_start(&loop, o, &r->child), 0);
    assert_true(lg_child_pid(r->child) > 0);
    assert_int_equal(uv_run(&loop, UV_RUN_DEFAULT), 0);
    assert_int_equal(uv_loop_close(&loop), 0);
    assert_int_equal(r->calls, 1);
}

/* Is process pid gone (or a zombie nobody has reaped yet) within a second? */
static int s_gone(long pid)
{
    for (int i = 0; i < 100; i++) {
        if (kill((pid_t)pid, 0) != 0 && errno == ESRCH)
            return 1;
        char path[64], *st = NULL;
        size_t len;
        snprintf(path, sizeof path, "/proc/%ld/stat", pid);
        if (lg_read_file(path, 4096, &st, &len) != 0)
            return 1;
        const char *p = strrchr(st, ')');
        int z = p && p[1] == ' ' && (p[2] == 'Z' || p[2] == 'X');
        free(st);
        if (z)
            return 1;
        usleep(10000);
    }
    return 0;
}

static void test_status_tail_out(void **state)
{
    (void)state;
    res_t *r = calloc(1, sizeof *r);
    char *argv[] = {"sh", "-c", "echo partial; echo 'no such dataset' >&2; exit 3", NULL};
    lg_child_opts_t o = s_opts(argv, r); /* "sh": found in PATH */
    s_run(&o, r);
    assert_int_equal(r->e.exited, 1);
    assert_int_equal(r->e.status, 3);
    assert_int_equal(r->e.term_signal, 0);
    assert_int_equal(r->e.timed_out, 0);
    assert_string_equal(r->out, "partial\n");
    assert_string_equal(r->tail, "no such dataset");
    assert_int_equal(r->e.tail_len, strlen("no such dataset"));
    free(r);
}

/* The tail is the last tail_cap - 1 bytes, newlines, returns and blanks at its end cut. */
static void test_tail_cap(void **state)
{
    (void)state;
    res_t *r = calloc(1, sizeof *r);
    char *argv[] = {"/bin/sh", "-c",
                    "i=0; while [ $i -lt 300 ]; do i=$((i+1)); echo \"line $i\" >&2; done; "
                    "printf 'the end \\r\\n\\n' >&2",
                    NULL};
    lg_child_opts_t o = s_opts(argv, r);
    o.tail_cap = 100;
    s_run(&o, r);
    assert_int_equal(r->e.status, 0);
    assert_true(r->e.tail_len <= 99 && r->e.tail_len > 80);
    const char *end = "line 299\nline 300\nthe end";
    assert_string_equal(r->tail + r->e.tail_len - strlen(end), end);
    assert_null(strstr(r->tail, "line 1\n"));
    free(r);
}

/* A tail cut in the middle of a character starts after it: what is left of it is no text. In
 * pieces (one printf each) and at once, the cut falls inside a 2- and a 4-byte character. */
static void test_tail_utf8(void **state)
{
    (void)state;
    const char *scripts[] = {
        "i=0; while [ $i -lt 40 ]; do i=$((i+1)); printf '\\303\\251' >&2; done",
        "printf 'x' >&2; i=0; while [ $i -lt 40 ]; do i=$((i+1)); printf '\\303\\251' >&2; done",
        "printf 'xy\\360\\237\\230\\200\\360\\237\\230\\200\\360\\237\\230\\200' >&2",
    };
    for (size_t k = 0; k < sizeof scripts / sizeof scripts[0]; k++) {
        res_t *r = calloc(1, sizeof *r);
        char *argv[] = {"/bin/sh", "-c", (char *)scripts[k], NULL};
        lg_child_opts_t o = s_opts(argv, r);
        o.tail_cap = k == 2 ? 10 : 50; /* 49 bytes of 80 (or 81); 9 of 14 */
        s_run(&o, r);
        assert_int_equal(r->e.status, 0);
        assert_true(r->e.tail_len >= (k == 2 ? 8u : 47u));
        assert_true(lg_utf8_valid(r->tail, r->e.tail_len));
        free(r);
    }
}

/* stdout and stderr in one pipe, in the order written: the tail holds both, on_out gets both. */
static void test_merge(void **state)
{
    (void)state;
    res_t *r = calloc(1, sizeof *r);
    char *argv[] = {"/bin/sh", "-c", "echo one; echo two >&2; echo three", NULL};
    lg_child_opts_t o = s_opts(argv, r);
    o.out = LG_CHILD_MERGE;
    s_run(&o, r);
    assert_string_equal(r->out, "one\ntwo\nthree\n");
    assert_string_equal(r->tail, "one\ntwo\nthree");
    free(r);
}

/* The whole environment given, the folder given, stdin /dev/null, stdout to /dev/null. */
static void test_env_cwd_null(void **state)
{
    (void)state;
    res_t *r = calloc(1, sizeof *r);
    char *argv[] = {"/bin/sh", "-c",
                    "echo \"[$LG_X][${HOME-unset}]\" >&2; pwd >&2; read x && echo got >&2; "
                    "echo hidden",
                    NULL};
    char *env[] = {"LG_X=1", "PATH=/usr/bin:/bin", NULL};
    lg_child_opts_t o = s_opts(argv, r);
    o.env = env;
    o.cwd = "/tmp";
    o.out = LG_CHILD_NULL;
    s_run(&o, r);
    assert_int_equal(r->e.status, 0);
    assert_string_equal(r->tail, "[1][unset]\n/tmp");
    assert_int_equal(r->outlen, 0);
    free(r);
}

/* lg_child_env: what add gives first and always; base's other names once each, less those drop
 * names whole or by a prefix ending in '*'. */
static void test_child_env(void **state)
{
    (void)state;
    char *base[] = {"PATH=/bin",      "LG_DATABASE_URL=postgresql://u:pw@h/lg",
                    "LG_LABEL_OLD=x", "PGPASSWORD=pw",
                    "LG_CONFIG=9",    "PAGER=less",
                    "PATH=/second",   "LGX=kept",
                    "HOME",           NULL};
    char *add[] = {"LG_CONFIG=2", "LG_LABEL_MEDIA=ssd", NULL};
    const char *drop[] = {"LG_*", "PG*", "HOME", NULL};
    char **env = lg_child_env(base, add, drop);
    assert_non_null(env);
    const char *want[] = {"LG_CONFIG=2", "LG_LABEL_MEDIA=ssd", "PATH=/bin",
                          "PAGER=less",  "LGX=kept",           NULL};
    for (size_t i = 0; want[i]; i++) {
        assert_non_null(env[i]);
        assert_string_equal(env[i], want[i]);
    }
    assert_null(env[5]);
    free(env);
    /* no drop: base's names that add does not give all go in; no base, no add: empty */
    char *url[] = {"LG_DATABASE_URL=host=/x", NULL};
    env = lg_child_env(base, url, NULL);
    assert_non_null(env);
    assert_string_equal(env[0], "LG_DATABASE_URL=host=/x");
    assert_string_equal(env[1], "PATH=/bin");
    assert_string_equal(env[2], "LG_LABEL_OLD=x");
    size_t n = 0;
    while (env[n])
        n++;
    assert_int_equal(n, 8); /* the second PATH and the URL given by base are left out */
    free(env);
    env = lg_child_env(NULL, NULL, drop);
    assert_non_null(env);
    assert_null(env[0]);
    free(env);
}

/* A deadline: SIGTERM to the group; a sleep ends on it. */
static void test_deadline_term(void **state)
{
    (void)state;
    res_t *r = calloc(1, sizeof *r);
    char *argv[] = {"/bin/sleep", "30", NULL};
    lg_child_opts_t o = s_opts(argv, r);
    o.timeout_ms = 200;
    o.kill_after_ms = 5000;
    s_run(&o, r);
    assert_int_equal(r->e.timed_out, 1);
    assert_int_equal(r->e.exited, 1);
    assert_int_equal(r->e.term_signal, SIGTERM);
    assert_true(r->ms >= 190 && r->ms < 3000);
    free(r);
}

/* A program that ignores SIGTERM gets SIGKILL kill_after_ms later; its grandchild, in its group
 * and ignoring SIGTERM too, is gone with it. */
static void test_ignores_term_grandchild(void **state)
{
    (void)state;
    res_t *r = calloc(1, sizeof *r);
    char *argv[] = {"/bin/sh", "-c",
                    "trap '' TERM; sh -c 'trap \"\" TERM; exec sleep 60' & echo $! >&2; "
                    "while :; do sleep 0.05; done",
                    NULL};
    lg_child_opts_t o = s_opts(argv, r);
    o.timeout_ms = 300;
    o.kill_after_ms = 500;
    s_run(&o, r);
    assert_int_equal(r->e.timed_out, 1);
    assert_int_equal(r->e.term_signal, SIGKILL);
    assert_true(r->ms >= 750 && r->ms < 5000);
    long grandchild = s_pid(r->tail);
    assert_true(grandchild > 0);
    assert_true(s_gone(grandchild));
    free(r);
}

/* A program that exits leaving a child holding its stderr: done drain_ms after its exit, and
 * that child left alone. Without drain_ms, the pipes' end is waited for. */
static void test_drain(void **state)
{
    (void)state;
    res_t *r = calloc(1, sizeof *r);
    char *argv[] = {"/bin/sh", "-c", "sleep 1.5 & echo $! >&2; exit 0", NULL};
    lg_child_opts_t o = s_opts(argv, r);
    o.drain_ms = 200;
    s_run(&o, r);
    assert_int_equal(r->e.status, 0);
    assert_true(r->ms < 1200);
    long left = s_pid(r->tail);
    assert_true(left > 0 && kill((pid_t)left, 0) == 0);
    memset(r, 0, sizeof *r);
    o = s_opts(argv, r);
    s_run(&o, r);
    assert_true(r->ms >= 1400);
    free(r);
}

/* lg_child_kill reaches the whole group; lg_child_kill_one the program alone. */
static void s_kill_timer(uv_timer_t *t)
{
    res_t *r = t->data;
    if (r->child)
        lg_child_kill(r->child, SIGTERM);
    uv_close((uv_handle_t *)t, NULL);
}

static void test_kill_group(void **state)
{
    (void)state;
    res_t *r = calloc(1, sizeof *r);
    char *argv[] = {"/bin/sh", "-c", "sleep 60 & echo $! >&2; wait", NULL};
    lg_child_opts_t o = s_opts(argv, r);
    uv_loop_t loop;
    uv_timer_t t;
    assert_int_equal(uv_loop_init(&loop), 0);
    assert_int_equal(lg_child_start(&loop, &o, &r->child), 0);
    uv_timer_init(&loop, &t);
    t.data = r;
    uv_timer_start(&t, s_kill_timer, 300, 0);
    assert_int_equal(uv_run(&loop, UV_RUN_DEFAULT), 0);
    assert_int_equal(uv_loop_close(&loop), 0);
    assert_int_equal(r->calls, 1);
    assert_int_equal(r->e.term_signal, SIGTERM);
    assert_int_equal(r->e.timed_out, 0);
    assert_true(s_gone(s_pid(r->tail)));
    free(r);
}

static void s_kill_one_timer(uv_timer_t *t)
{
    res_t *r = t->data;
    lg_child_kill_one(r->child, SIGTERM);
    uv_close((uv_handle_t *)t, NULL);
}

static void test_kill_one(void **state)
{
    (void)state;
    res_t *r = calloc(1, sizeof *r);
    /* the grandchild keeps the pipe until it ends: a drain bounds the wait */
    char *argv[] = {"/bin/sh", "-c", "sleep 3 & echo $! >&2; wait", NULL};
    lg_child_opts_t o = s_opts(argv, r);
    o.drain_ms = 100;
    uv_loop_t loop;
    uv_timer_t t;
    assert_int_equal(uv_loop_init(&loop), 0);
    assert_int_equal(lg_child_start(&loop, &o, &r->child), 0);
    uv_timer_init(&loop, &t);
    t.data = r;
    uv_timer_start(&t, s_kill_one_timer, 300, 0);
    assert_int_equal(uv_run(&loop, UV_RUN_DEFAULT), 0);
    assert_int_equal(uv_loop_close(&loop), 0);
    assert_int_equal(r->e.term_signal, SIGTERM);
    long left = s_pid(r->tail);
    assert_true(left > 0 && kill((pid_t)left, 0) == 0); /* not in the signal */
    kill((pid_t)left, SIGKILL);
    free(r);
}

/* Destroyed while it runs: killed with its group and reaped, no callback, the loop closes. */
static void s_destroy_on_out(void *arg, const char *data, size_t len)
{
    res_t *r = arg;
    s_out(arg, data, len);
    lg_child_destroy(&r->child, SIGKILL);
}

static void test_destroy(void **state)
{
    (void)state;
    res_t *r = calloc(1, sizeof *r);
    char *argv[] = {"/bin/sh", "-c", "sleep 60 & echo $!; wait", NULL};
    lg_child_opts_t o = s_opts(argv, r);
    o.on_out = s_destroy_on_out;
    uv_loop_t loop;
    assert_int_equal(uv_loop_init(&loop), 0);
    assert_int_equal(lg_child_start(&loop, &o, &r->child), 0);
    assert_int_equal(uv_run(&loop, UV_RUN_DEFAULT), 0);
    assert_int_equal(uv_loop_close(&loop), 0);
    assert_int_equal(r->calls, 0);
    assert_null(r->child);
    assert_true(s_gone(s_pid(r->out)));
    free(r);
}

/* Forgotten: its group signalled, its handles closed at once, no callback. */
static void test_forget(void **state)
{
    (void)state;
    res_t *r = calloc(1, sizeof *r);
    char *argv[] = {"/bin/sleep", "60", NULL};
    lg_child_opts_t o = s_opts(argv, r);
    o.timeout_ms = 60000;
    uv_loop_t loop;
    assert_int_equal(uv_loop_init(&loop), 0);
    assert_int_equal(lg_child_start(&loop, &o, &r->child), 0);
    int pid = lg_child_pid(r->child);
    lg_child_forget(&r->child, SIGTERM);
    assert_null(r->child);
    uint64_t t0 = lg_mono_ms();
    assert_int_equal(uv_run(&loop, UV_RUN_DEFAULT), 0);
    assert_true(lg_mono_ms() - t0 < 1000);
    assert_int_equal(uv_loop_close(&loop), 0);
    assert_int_equal(r->calls, 0);
    assert_true(s_gone(pid));
    free(r);
}

/* An extra fd for the child (fd 3 here), and refusals: no callback, the loop still closes. */
static void test_extra_and_refusals(void **state)
{
    (void)state;
    res_t *r = calloc(1, sizeof *r);
    char *argv[] = {"/bin/sh", "-c", "echo via-fd3 >&3", NULL};
    lg_child_opts_t o = s_opts(argv, r);
    uv_stdio_container_t extra;
    extra.flags = UV_INHERIT_FD;
    extra.data.fd = 2; /* our stderr, as fd 3 of the child: it must exist there */
    o.extra = &extra;
    o.nextra = 1;
    s_run(&o, r);
    assert_int_equal(r->e.status, 0);

    uv_loop_t loop;
    lg_child_t *c = NULL;
    assert_int_equal(uv_loop_init(&loop), 0);
    char *missing[] = {"/nonexistent/lg-child-test", NULL};
    o = s_opts(missing, r);
    assert_int_equal(lg_child_start(&loop, &o, &c), UV_ENOENT);
    char *none[] = {NULL};
    o = s_opts(none, r);
    assert_int_equal(lg_child_start(&loop, &o, &c), UV_EINVAL);
    o = s_opts(argv, r);
    o.on_exit = NULL;
    assert_int_equal(lg_child_start(&loop, &o, &c), UV_EINVAL);
    assert_null(c);
    assert_int_equal(uv_run(&loop, UV_RUN_DEFAULT), 0);
    assert_int_equal(uv_loop_close(&loop), 0);
    assert_int_equal(r->calls, 1);
    free(r);
}

/* lg_child_run: to the end on a loop of its own, output into a buffer (cut at its size), the
 * deadline, and a program that cannot be started. */
static void test_run_sync(void **state)
{
    (void)state;
    char *argv[] = {"/bin/sh", "-c", "echo out; echo err >&2; exit 4", NULL};
    lg_child_opts_t o;
    memset(&o, 0, sizeof o);
    o.argv = argv;
    o.out = LG_CHILD_MERGE;
    char out[64];
    lg_child_status_t st;
    assert_int_equal(lg_child_run(&o, out, sizeof out, &st), 0);
    assert_int_equal(st.exited, 1);
    assert_int_equal(st.status, 4);
    assert_int_equal(st.truncated, 0);
    assert_string_equal(out, "out\nerr\n");
    o.out = LG_CHILD_PIPE; /* stdout only */
    assert_int_equal(lg_child_run(&o, out, sizeof out, &st), 0);
    assert_string_equal(out, "out\n");
    char small[4];
    assert_int_equal(lg_child_run(&o, small, sizeof small, &st), 0);
    assert_string_equal(small, "out");
    assert_int_equal(st.truncated, 1);

    char *slow[] = {"sleep", "30", NULL};
    o.argv = slow;
    o.timeout_ms = 200;
    uint64_t t0 = lg_mono_ms();
    assert_int_equal(lg_child_run(&o, NULL, 0, &st), 0);
    assert_true(lg_mono_ms() - t0 < 3000);
    assert_int_equal(st.timed_out, 1);
    assert_int_equal(st.term_signal, SIGTERM);

    char *missing[] = {"lg-no-such-program-anywhere", NULL};
    o.argv = missing;
    assert_int_equal(lg_child_run(&o, out, sizeof out, &st), UV_ENOENT);
    assert_string_equal(out, "");
}

/* out_pipe_bytes: stdout is a pipe of that size (16 MiB as root; an ordinary user gets the
 * system's pipe-max-size, 1 MiB by default, as does root without CAP_SYS_RESOURCE), read as any
 * other; without it, libuv's socket pair,
 * which is no pipe. F_GETPIPE_SZ (1032) from inside the child, which is what it writes to. */
static void test_out_pipe_bytes(void **state)
{
    (void)state;
    res_t *r = calloc(1, sizeof *r);
    char *argv[] = {"python3", "-c",
                    "import fcntl, sys\n"
                    "try:\n print(fcntl.fcntl(1, 1032))\n"
                    "except OSError:\n print('not a pipe')\n",
                    NULL};
    lg_child_opts_t o = s_opts(argv, r);
    o.out_pipe_bytes = 16u << 20;
    s_run(&o, r);
    assert_int_equal(r->e.exited, 1);
    assert_int_equal(r->e.status, 0);
    uint64_t size = 0;
    char num[32];
    lg_strlcpy(num, r->out, sizeof num);
    num[strcspn(num, "\n")] = 0;
    assert_int_equal(lg_parse_u64(num, 1, 1u << 30, &size), 0);
    /* 16 MiB with CAP_SYS_RESOURCE (root's, unless a container took it); else the most an
     * ordinary user may have */
    char *max_text = NULL;
    size_t max_len = 0;
    uint64_t max = 0;
    assert_int_equal(lg_read_file("/proc/sys/fs/pipe-max-size", 64, &max_text, &max_len), 0);
    max_text[strcspn(max_text, "\n")] = 0;
    assert_int_equal(lg_parse_u64(max_text, 4096, 1u << 31, &max), 0);
    free(max_text);
    assert_true(size >= (max < (16u << 20) ? max : (16u << 20)));
    assert_true(size <= (16u << 20));
    memset(r, 0, sizeof *r);
    o = s_opts(argv, r);
    s_run(&o, r);
    assert_string_equal(r->out, "not a pipe\n");
    free(r);
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_status_tail_out), cmocka_unit_test(test_tail_cap),
        cmocka_unit_test(test_merge),           cmocka_unit_test(test_env_cwd_null),
        cmocka_unit_test(test_deadline_term),   cmocka_unit_test(test_ignores_term_grandchild),
        cmocka_unit_test(test_drain),           cmocka_unit_test(test_kill_group),
        cmocka_unit_test(test_kill_one),        cmocka_unit_test(test_destroy),
        cmocka_unit_test(test_forget),          cmocka_unit_test(test_extra_and_refusals),
        cmocka_unit_test(test_run_sync),        cmocka_unit_test(test_child_env),
        cmocka_unit_test(test_tail_utf8),       cmocka_unit_test(test_out_pipe_bytes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
