/* test_fiogate.c: the start gate between lg-agent and its engines' jobs (engines/fiogate.h): the
 * gate's text read back as written and anything else refused; ready and failed files counted and
 * removed; a job that passes the gate wakes at the instant, answering its tick meanwhile, and one
 * whose run is called off, or whose fio ends, does not wait. */
/* cmocka.h needs these before it */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fiogate.h"

static char s_dir[64];
static char s_gate[128];

static int64_t s_now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static void test_parse(void **state)
{
    (void)state;
    int64_t at = 0;
    assert_int_equal(lg_fiogate_parse("1796594869208000\n", 17, &at), 0);
    assert_int_equal(at, 1796594869208000LL);
    assert_int_equal(lg_fiogate_parse("off\n", 4, &at), 1);
    const char *bad[] = {"", "\n", "12a\n", "-5\n", "0\n", "12345678901234567890\n", "of\n"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(lg_fiogate_parse(bad[i], strlen(bad[i]), &at), -EBADMSG);
}

static void test_files(void **state)
{
    (void)state;
    char err[256], why[256], path[256];
    int64_t at = 0;
    assert_int_equal(lg_fiogate_ready(s_gate), 0);
    assert_int_equal(lg_fiogate_failed(s_gate, why, sizeof why), 0);
    for (int i = 1; i <= 3; i++) {
        snprintf(path, sizeof path, "%s.ready.%d", s_gate, i);
        int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
        assert_true(fd >= 0);
        close(fd);
    }
    assert_int_equal(lg_fiogate_ready(s_gate), 3);
    lg_fiogate_fail(s_gate, 7, "file:lgsmb.c:1, func=connect to, error=denied");
    assert_int_equal(lg_fiogate_failed(s_gate, why, sizeof why), 1);
    assert_string_equal(why, "file:lgsmb.c:1, func=connect to, error=denied");
    /* The gate opens whole, over a stale temporary file; "off" as well. */
    snprintf(path, sizeof path, "%s.tmp", s_gate);
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
    assert_true(fd >= 0);
    close(fd);
    assert_int_equal(lg_fiogate_open(s_gate, 1234567, err, sizeof err), 0);
    char text[64] = "";
    FILE *f = fopen(s_gate, "r");
    assert_non_null(f);
    assert_non_null(fgets(text, sizeof text, f));
    fclose(f);
    assert_int_equal(lg_fiogate_parse(text, strlen(text), &at), 0);
    assert_int_equal(at, 1234567);
    assert_int_equal(lg_fiogate_open(s_gate, 0, err, sizeof err), 0);
    assert_int_equal(access(path, F_OK), -1);
    /* the ramp's mark: the earliest a job wrote; gone with the rest */
    assert_int_equal(lg_fiogate_marked(s_gate), 0);
    lg_fiogate_mark(s_gate, 2, 5000000);
    lg_fiogate_mark(s_gate, 1, 4000000);
    assert_int_equal(lg_fiogate_marked(s_gate), 4000000);
    lg_fiogate_remove(s_gate);
    assert_int_equal(lg_fiogate_marked(s_gate), 0);
    assert_int_equal(lg_fiogate_ready(s_gate), 0);
    assert_int_equal(lg_fiogate_failed(s_gate, why, sizeof why), 0);
    assert_int_equal(access(s_gate, F_OK), -1);
}

typedef struct {
    int64_t at;   /* the instant the opener writes (0: "off") */
    int delay_ms; /* after the job is ready */
} opener_t;

static void *s_opener(void *arg)
{
    opener_t *o = arg;
    while (lg_fiogate_ready(s_gate) < 1)
        usleep(1000);
    usleep((useconds_t)o->delay_ms * 1000);
    char err[256];
    lg_fiogate_open(s_gate, o->at, err, sizeof err);
    return NULL;
}

static int s_ticks;
static int s_tick(void *arg)
{
    s_ticks++;
    return arg != NULL && s_ticks >= *(int *)arg;
}

static void test_pass(void **state)
{
    (void)state;
    char err[256];
    int64_t at = 0;
    /* The instant 300 ms after the job is ready, written 100 ms after it. */
    opener_t o = {0, 100};
    pthread_t th;
    int64_t t0 = s_now_us();
    o.at = t0 + 400000;
    s_ticks = 0;
    assert_int_equal(pthread_create(&th, NULL, s_opener, &o), 0);
    int rc = lg_fiogate_pass(s_gate, 1, s_tick, NULL, &at, err, sizeof err);
    int64_t woke = s_now_us();
    pthread_join(th, NULL);
    assert_int_equal(rc, 0);
    assert_int_equal(at, o.at);
    assert_true(woke >= o.at);
    if (woke - o.at > 20000) /* a loaded host may be late; say so, do not fail */
        print_message("woke %lld us after the instant\n", (long long)(woke - o.at));
    assert_true(s_ticks >= 10); /* answered about every 10 ms while waiting */
    lg_fiogate_remove(s_gate);

    /* Called off. */
    o.at = 0;
    o.delay_ms = 20;
    assert_int_equal(pthread_create(&th, NULL, s_opener, &o), 0);
    rc = lg_fiogate_pass(s_gate, 2, s_tick, NULL, &at, err, sizeof err);
    pthread_join(th, NULL);
    assert_int_equal(rc, -ECANCELED);
    assert_non_null(strstr(err, "called off"));
    lg_fiogate_remove(s_gate);

    /* fio ends its jobs (the tick says so) before any instant comes. */
    int stop_after = 3;
    s_ticks = 0;
    rc = lg_fiogate_pass(s_gate, 3, s_tick, &stop_after, &at, err, sizeof err);
    assert_int_equal(rc, -ECANCELED);
    assert_non_null(strstr(err, "fio ended"));
    /* A job number used twice is refused: the ready file is made anew only. */
    rc = lg_fiogate_pass(s_gate, 3, s_tick, &stop_after, &at, err, sizeof err);
    assert_int_equal(rc, -EEXIST);
    lg_fiogate_remove(s_gate);
}

static int s_setup(void **state)
{
    (void)state;
    snprintf(s_dir, sizeof s_dir, "/tmp/test_fiogate.XXXXXX");
    if (!mkdtemp(s_dir))
        return -1;
    snprintf(s_gate, sizeof s_gate, "%s/gate", s_dir);
    return 0;
}

static int s_teardown(void **state)
{
    (void)state;
    lg_fiogate_remove(s_gate);
    return rmdir(s_dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse),
        cmocka_unit_test(test_files),
        cmocka_unit_test(test_pass),
    };
    return cmocka_run_group_tests(tests, s_setup, s_teardown);
}
