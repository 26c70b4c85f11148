/* test_cpu.c: the load host's own CPU (lg_cpu.h): /proc/stat restricted to a set of CPUs,
 * /proc/PID/stat lines, a process tree's CPU, the busy and fio percentages between two readings;
 * then the agent's real readings (lg_plat_cpu_snap) of a CPU this test keeps busy and of a
 * process tree whose grandchild does the work. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lg_cpu.h"
#include "lg_error.h"
#include "platform.h"

#ifdef _WIN32
#include <windows.h>
#else
#include <sched.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#endif

/* As Linux 6.1 prints it (guest and guest_nice last), with a cpu10 to tell from cpu1. */
static const char s_stat[] = "cpu  1107 0 500 8003 100 0 50 0 0 0\n"
                             "cpu0 400 0 200 3000 50 0 20 0 0 0\n"
                             "cpu1 600 0 300 5000 50 0 30 0 0 0\n"
                             "cpu2 100 10 50 800 5 1 2 3 40 4\n"
                             "cpu10 7 0 0 3 0 0 0 0 0 0\n"
                             "intr 123456 0 9 0\n"
                             "ctxt 99887766\n"
                             "btime 1700000000\n"
                             "processes 4242\n";

static void test_stat_by_set(void **state)
{
    (void)state;
    lg_cpu_times_t t;
    lg_cpu_set_t set;
    lg_cpu_set_clear(&set);
    lg_cpu_set_add(&set, 1);
    assert_int_equal(lg_cpu_stat_parse(s_stat, strlen(s_stat), &set, &t), 0);
    assert_int_equal(t.ncpus, 1); /* cpu1 only: not cpu10, not the "cpu" line of all */
    assert_int_equal(t.total, 600 + 300 + 5000 + 50 + 30);
    assert_int_equal(t.idle, 5000);
    assert_int_equal(t.iowait, 50);
    lg_cpu_set_add(&set, 10);
    lg_cpu_set_add(&set, 7); /* offline or absent: not counted */
    assert_int_equal(lg_cpu_stat_parse(s_stat, strlen(s_stat), &set, &t), 0);
    assert_int_equal(t.ncpus, 2);
    assert_int_equal(t.total, 5980 + 10);
    assert_int_equal(lg_cpu_set_count(&set), 3);
    /* guest and guest_nice are in user and nice already */
    lg_cpu_set_clear(&set);
    lg_cpu_set_add(&set, 2);
    assert_int_equal(lg_cpu_stat_parse(s_stat, strlen(s_stat), &set, &t), 0);
    assert_int_equal(t.total, 100 + 10 + 50 + 800 + 5 + 1 + 2 + 3);
    /* no set: every CPU line */
    assert_int_equal(lg_cpu_stat_parse(s_stat, strlen(s_stat), NULL, &t), 0);
    assert_int_equal(t.ncpus, 4);
    assert_int_equal(t.idle, 3000 + 5000 + 800 + 3);
    /* a set none of whose CPUs has a line */
    lg_cpu_set_clear(&set);
    lg_cpu_set_add(&set, 3);
    assert_int_equal(lg_cpu_stat_parse(s_stat, strlen(s_stat), &set, &t), LG_EPARSE);
    lg_cpu_set_add(&set, LG_CPU_SET_MAX); /* beyond the set: ignored */
    assert_int_equal(lg_cpu_set_count(&set), 1);
}

static void test_stat_malformed(void **state)
{
    (void)state;
    lg_cpu_times_t t;
    static const char *const bad[] = {
        "cpu0 1 2 3\n",                        /* fewer than user nice system idle */
        "cpu0 1 2 x 4 5\n",                    /* not a number */
        "cpu0 1 2 3 99999999999999999999 5\n", /* beyond 64 bits */
        "cpu99999 1 2 3 4\n",                  /* a CPU number beyond the set */
        "cpu1x 1 2 3 4\n",
        "",
        "intr 1 2 3\n",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(lg_cpu_stat_parse(bad[i], strlen(bad[i]), NULL, &t), LG_EPARSE);
    /* not NUL-terminated: the length is the end */
    char cut[] = "cpu0 1 2 3 4 5 6 7 8 9 10";
    assert_int_equal(lg_cpu_stat_parse(cut, 14, NULL, &t), 0); /* "cpu0 1 2 3 4 5" */
    assert_int_equal(t.total, 15);
    assert_int_equal(t.iowait, 5);
}

static void test_busy_pct(void **state)
{
    (void)state;
    lg_cpu_times_t a = {10000, 6000, 100, 2}, b = {11000, 6600, 200, 2};
    /* 1000 ticks, of which 600 idle and 100 waiting for I/O: 30% busy */
    assert_true(fabs(lg_cpu_busy_pct(&a, &b) - 30.0) < 1e-9);
    lg_cpu_times_t c = b;
    c.ncpus = 3; /* a CPU came online: not the same CPUs */
    assert_true(isnan(lg_cpu_busy_pct(&a, &c)));
    assert_true(isnan(lg_cpu_busy_pct(&b, &a))); /* back in time */
    assert_true(isnan(lg_cpu_busy_pct(&a, &a))); /* no time passed */
    lg_cpu_times_t d = {11000, 7000, 200, 2};    /* more idle than time */
    assert_true(isnan(lg_cpu_busy_pct(&a, &d)));
}

static void test_proc_parse(void **state)
{
    (void)state;
    lg_cpu_proc_t p;
    /* comm holds spaces and parentheses: the last ')' ends it */
    const char *line = "1234 (fio (x) y) S 1 1234 1234 0 -1 4194560 100 0 0 0 250 35 7 3 20 0 1 0 "
                       "5000 100000 200 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0\n";
    assert_int_equal(lg_cpu_proc_parse(line, strlen(line), &p), 0);
    assert_int_equal(p.pid, 1234);
    assert_int_equal(p.ppid, 1);
    assert_int_equal(p.ticks, 250 + 35 + 7 + 3);
    static const char *const bad[] = {
        "",
        "1234 fio S 1 2 3 4 5 6 7 8 9 10 11 12 13 14", /* no parentheses */
        "1234 (fio) S 1 2 3",                          /* cut short */
        "(fio) S 1 2 3 4 5 6 7 8 9 10 11 12 13 14",    /* no pid */
        "1234 (fio) S x 2 3 4 5 6 7 8 9 10 11 12 13 14",
        "0 (fio) S 1 2 3 4 5 6 7 8 9 10 11 12 13 14",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(lg_cpu_proc_parse(bad[i], strlen(bad[i]), &p), LG_EPARSE);
}

static void test_tree(void **state)
{
    (void)state;
    /* 5 is 21's child: pids wrapped, so a child can have a lower pid than its parent */
    const lg_cpu_proc_t procs[] = {{1, 0, 1000}, {5, 21, 7},  {10, 1, 100}, {20, 10, 20},
                                   {21, 20, 3},  {30, 1, 50}, {40, 30, 9},  {50, 50, 1}};
    size_t n = sizeof procs / sizeof procs[0];
    int found = -1;
    assert_int_equal(lg_cpu_tree_ticks(procs, n, 10, &found), 100 + 20 + 3 + 7);
    assert_int_equal(found, 1);
    assert_int_equal(lg_cpu_tree_ticks(procs, n, 30, &found), 50 + 9);
    assert_int_equal(lg_cpu_tree_ticks(procs, n, 21, &found), 3 + 7);
    assert_int_equal(lg_cpu_tree_ticks(procs, n, 99, &found), 0);
    assert_int_equal(found, 0);
    assert_int_equal(lg_cpu_tree_ticks(procs, n, 1, &found), 1000 + 7 + 100 + 20 + 3 + 50 + 9);
    assert_int_equal(lg_cpu_tree_ticks(procs, 0, 1, &found), 0);
    assert_int_equal(found, 0);
}

static void test_use(void **state)
{
    (void)state;
    lg_cpu_snap_t a = {{10000, 6000, 100, 2}, 1, 500, 100, 1, 1000000};
    lg_cpu_snap_t b = {{10200, 6040, 110, 2}, 1, 650, 100, 1, 2000000};
    lg_cpu_use_t u;
    lg_cpu_use(&a, &b, &u);
    assert_int_equal(u.cpus, 2);
    assert_true(fabs(u.busy_pct - 75.0) < 1e-9); /* 200 ticks, 40 idle, 10 iowait */
    /* 150 ticks at 100 Hz = 1.5 s of CPU in 1 s on 2 CPUs */
    assert_true(fabs(u.fio_pct - 75.0) < 1e-9);
    lg_cpu_snap_t c = b;
    c.fio_ok = 0; /* fio gone: its share unknown, the host's still known */
    lg_cpu_use(&a, &c, &u);
    assert_true(isnan(u.fio_pct));
    assert_true(fabs(u.busy_pct - 75.0) < 1e-9);
    c = b;
    c.host_ok = 0; /* nothing measured */
    lg_cpu_use(&a, &c, &u);
    assert_int_equal(u.cpus, 0);
    assert_true(isnan(u.busy_pct) && isnan(u.fio_pct));
}

/* ---- real readings ---- */

static double s_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void s_spin(double seconds)
{
    volatile unsigned long x = 0;
    for (double end = s_now() + seconds; s_now() < end;)
        for (int i = 0; i < 100000; i++)
            x++;
}

#ifndef _WIN32
/* Pinned to one CPU and keeping it busy, the test reads that CPU (one CPU counted, at least 90%
 * busy: others' work only adds) and its own process as "fio" (a share of it: on a shared machine
 * other processes on that CPU take theirs; a reading that missed the process would be 0). */
static void test_real_pinned(void **state)
{
    (void)state;
    cpu_set_t old, one;
    assert_int_equal(sched_getaffinity(0, sizeof old, &old), 0);
    int cpu = sched_getcpu();
    assert_true(cpu >= 0);
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    assert_int_equal(sched_setaffinity(0, sizeof one, &one), 0);
    lg_cpu_snap_t a, b;
    lg_cpu_use_t u;
    lg_plat_cpu_snap(getpid(), &a);
    s_spin(0.4);
    lg_plat_cpu_snap(getpid(), &b);
    lg_cpu_use(&a, &b, &u);
    sched_setaffinity(0, sizeof old, &old);
    print_message("pinned to CPU %d: %u CPU, %.1f%% busy, this process %.1f%%\n", cpu, u.cpus,
                  u.busy_pct, u.fio_pct);
    assert_int_equal(u.cpus, 1);
    assert_true(u.busy_pct >= 90.0 && u.busy_pct <= 100.0);
    assert_true(u.fio_pct >= 10.0 && u.fio_pct <= 105.0);
    /* unpinned: the CPUs of the whole mask */
    lg_plat_cpu_snap(0, &a);
    assert_int_equal(a.host.ncpus, (unsigned)CPU_COUNT(&old));
    assert_int_equal(a.fio_ok, 0);
}

/* A child that only waits and a grandchild that works, as fio forks its job processes: the
 * tree's CPU is the grandchild's, and after the grandchild ended (reaped: its time now in the
 * child's cutime) the total does not drop. */
static void test_real_tree(void **state)
{
    (void)state;
    int up[2], down[2]; /* child to test: the grandchild was reaped; test to child: go */
    assert_int_equal(pipe(up), 0);
    assert_int_equal(pipe(down), 0);
    pid_t child = fork();
    assert_true(child >= 0);
    if (child == 0) {
        alarm(10); /* bounded whatever happens to the test */
        close(up[0]);
        close(down[1]);
        pid_t gc = fork();
        if (gc == 0) {
            s_spin(0.6);
            _exit(0);
        }
        int st;
        waitpid(gc, &st, 0);
        (void)!write(up[1], "x", 1);
        char c;
        (void)!read(down[0], &c, 1); /* until the test has read the tree again */
        _exit(0);
    }
    close(up[1]);
    close(down[0]);
    lg_cpu_snap_t a, b, c;
    lg_cpu_use_t u;
    s_spin(0.05); /* let the grandchild start */
    lg_plat_cpu_snap(child, &a);
    struct timespec ts = {0, 300 * 1000000L};
    nanosleep(&ts, NULL);
    lg_plat_cpu_snap(child, &b);
    lg_cpu_use(&a, &b, &u);
    char x;
    /* at most 10 s: the child's alarm ends it, and its end of the pipe with it */
    assert_int_equal(read(up[0], &x, 1), 1);
    lg_plat_cpu_snap(child, &c);
    close(down[1]);
    int st;
    waitpid(child, &st, 0);
    close(up[0]);
    print_message("tree of %d: %.1f%% of %u CPUs; ticks %llu, %llu, %llu after the reaping\n",
                  (int)child, u.fio_pct, u.cpus, (unsigned long long)a.fio,
                  (unsigned long long)b.fio, (unsigned long long)c.fio);
    assert_true(a.fio_ok && b.fio_ok && c.fio_ok);
    /* one CPU's worth at most, of u.cpus; others' work on a shared machine may take most of it,
     * but a tree read without its grandchild would be 0 */
    assert_true(u.fio_pct * u.cpus >= 10.0 && u.fio_pct * u.cpus <= 105.0);
    assert_true(c.fio >= b.fio);
}
#else
/* Windows: GetSystemTimes, and this process as "fio" while it works. */
static void test_real_windows(void **state)
{
    (void)state;
    lg_cpu_snap_t a, b;
    lg_cpu_use_t u;
    lg_plat_cpu_snap((int64_t)GetCurrentProcessId(), &a);
    s_spin(0.4);
    lg_plat_cpu_snap((int64_t)GetCurrentProcessId(), &b);
    lg_cpu_use(&a, &b, &u);
    print_message("%u CPUs, %.1f%% busy, this process %.1f%% (ticks %llu to %llu, found %d %d)\n",
                  u.cpus, u.busy_pct, u.fio_pct, (unsigned long long)a.fio,
                  (unsigned long long)b.fio, a.fio_ok, b.fio_ok);
    assert_true(a.fio_ok && b.fio_ok && b.fio > a.fio);
    assert_true(u.cpus >= 1);
    assert_true(u.busy_pct > 0.0 && u.busy_pct <= 100.0);
    assert_true(u.fio_pct * u.cpus >= 10.0 && u.fio_pct * u.cpus <= 105.0);
}

static char s_self[MAX_PATH];

/* Another process that works while this one sleeps, as fio.exe below the hold stage: its CPU is
 * read, not this process's (which wine's GetProcessTimes gives for any process). */
static void test_real_windows_child(void **state)
{
    (void)state;
    char cmd[MAX_PATH + 16];
    snprintf(cmd, sizeof cmd, "\"%s\" spin", s_self);
    STARTUPINFOA si;
    PROCESS_INFORMATION pi;
    memset(&si, 0, sizeof si);
    si.cb = sizeof si;
    assert_true(CreateProcessA(NULL, cmd, NULL, NULL, FALSE, 0, NULL, NULL, &si, &pi));
    Sleep(100);
    lg_cpu_snap_t a, b;
    lg_cpu_use_t u;
    lg_plat_cpu_snap((int64_t)pi.dwProcessId, &a);
    Sleep(400);
    lg_plat_cpu_snap((int64_t)pi.dwProcessId, &b);
    lg_cpu_use(&a, &b, &u);
    /* the child spins 1 s at most: bounded */
    WaitForSingleObject(pi.hProcess, 10000);
    CloseHandle(pi.hProcess);
    CloseHandle(pi.hThread);
    print_message("child %lu: %.1f%% of %u CPUs\n", (unsigned long)pi.dwProcessId, u.fio_pct,
                  u.cpus);
    assert_true(a.fio_ok && b.fio_ok);
    assert_true(u.fio_pct * u.cpus >= 10.0 && u.fio_pct * u.cpus <= 105.0);
}
#endif

int main(int argc, char **argv)
{
#ifdef _WIN32
    if (argc > 1 && strcmp(argv[1], "spin") == 0) { /* test_real_windows_child's child */
        s_spin(1.0);
        return 0;
    }
    GetModuleFileNameA(NULL, s_self, sizeof s_self);
#else
    (void)argc;
    (void)argv;
#endif
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stat_by_set), cmocka_unit_test(test_stat_malformed),
        cmocka_unit_test(test_busy_pct),    cmocka_unit_test(test_proc_parse),
        cmocka_unit_test(test_tree),        cmocka_unit_test(test_use),
#ifndef _WIN32
        cmocka_unit_test(test_real_pinned), cmocka_unit_test(test_real_tree),
#else
        cmocka_unit_test(test_real_windows), cmocka_unit_test(test_real_windows_child),
#endif
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
