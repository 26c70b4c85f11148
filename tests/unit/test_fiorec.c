/* test_fiorec.c: the record of a running fio (fiorec.h): its text read back as written, malformed
 * forms refused, the file made anew only; and the clean-up after a killed agent on a stand-in
 * process group whose leader died (as fio does with its agent) while a member running the job
 * file lives on (as fio's job processes do): the member killed, the record removed; a group that
 * does not run the recorded job file left alone. */
/* cmocka.h needs these before it */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fiorec.h"
#include "lg_error.h"
#include "lg_proc.h"
#include "lg_util.h"

static char s_dir[64];

static void test_roundtrip(void **state)
{
    (void)state;
    lg_fiorec_t r, back;
    memset(&r, 0, sizeof r);
    r.run_id = 42;
    r.pgid = 1234;
    r.start = 987654;
    lg_strlcpy(r.boot, "0123abcd-0123-4567-89ab-0123456789ab", sizeof r.boot);
    lg_strlcpy(r.job, "/run/lg-agent/h1/run-42/job.fio", sizeof r.job);
    char text[LG_FIOREC_MAX_BYTES], err[256];
    int n = lg_fiorec_format(&r, text, sizeof text);
    assert_true(n > 0);
    assert_int_equal(lg_fiorec_parse(text, (size_t)n, &back, err, sizeof err), 0);
    assert_true(back.run_id == 42 && back.pgid == 1234 && back.start == 987654);
    assert_string_equal(back.boot, r.boot);
    assert_string_equal(back.job, r.job);
    /* a last line cut short by a crash: the job it lacks makes it incomplete */
    assert_int_equal(lg_fiorec_parse(text, (size_t)n - 2, &back, err, sizeof err), LG_EPARSE);
    const char *bad[] = {
        "lg-app-record 1\nrun 1\n",
        "lg-fio-record 1\nrun 1\npgid 1\nstart 5\nboot 0123abcd-0123-4567-89ab-0123456789ab\n"
        "job /a\n",
        "lg-fio-record 1\nrun 1\npgid 9\nstart 5\nboot 0123abcd-0123-4567-89ab-0123456789ab\n"
        "job a\n",
        "lg-fio-record 1\nrun x\npgid 9\nstart 5\nboot 0123abcd-0123-4567-89ab-0123456789ab\n"
        "job /a\n",
        "lg-fio-record 1\nrun 1\npgid 9\nstart 5\nboot 0123\njob /a\n",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        assert_int_equal(lg_fiorec_parse(bad[i], strlen(bad[i]), &back, err, sizeof err),
                         LG_EPARSE);
    r.pgid = 1;
    assert_int_equal(lg_fiorec_format(&r, text, sizeof text), LG_EPARSE);
}

static void s_sleep_ms(unsigned ms)
{
    struct timespec ts = {(time_t)(ms / 1000), (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* A session and process group of its own: "sh -c SCRIPT fio JOB" (JOB on its command line, as
 * fio's), through the one helper that starts programs (setsid(1) makes the session: the child
 * is no group leader, so it does not fork again and the PID is the shell's). */
static pid_t s_group(const char *script, const char *job)
{
    char *argv[] = {"setsid", "/bin/sh", "-c", (char *)script, "fio", (char *)job, NULL};
    /* not holding the test's output open: ctest waits for its end */
    pid_t pid = lg_proc_spawn(argv, NULL, "/dev/null");
    for (int i = 0; pid > 0 && i < 500 && getsid(pid) != pid; i++)
        s_sleep_ms(10); /* until setsid(1) has made the session and exec'd the shell */
    return pid;
}

static void test_clean(void **state)
{
    (void)state;
    char job[128], rec[160], err[512];
    snprintf(job, sizeof job, "%s/run-7/job.fio", s_dir);
    /* the leader runs two members with the job file on their command line (a command after the
     * sleep, so that the shell forks it rather than exec), one in a session of its own as fio's
     * job processes are, and waits. A fork not yet exec'd is a copy that counts too: wait for
     * the three. */
    pid_t lead = s_group("/bin/sh -c 'sleep 60; true' fio \"$1\" & "
                         "setsid /bin/sh -c 'sleep 60; true' fio \"$1\" & wait",
                         job);
    assert_true(lead > 0);
    lg_fiorec_t r, r8;
    assert_int_equal(lg_fiorec_create(s_dir, 7, (int)lead, job, &r, err, sizeof err), 0);
    assert_int_equal(lg_fiorec_create(s_dir, 7, (int)lead, job, &r, err, sizeof err), -EEXIST);
    snprintf(rec, sizeof rec, "%s/fio-7.rec", s_dir);
    struct stat st;
    assert_int_equal(stat(rec, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0600);
    assert_int_equal(r.pgid, (int)lead);
    assert_int_equal(r.start, lg_apprec_starttime((int)lead, NULL));
    assert_string_equal(r.job, job);
    /* until the shells' forks have exec'd their sleeps (before, a fork is a fourth copy) */
    for (int i = 0; i < 500 && lg_fiorec_alive(&r) != 3; i++)
        s_sleep_ms(20);
    assert_int_equal(lg_fiorec_alive(&r), 3);
    /* the leader dies as fio does with its agent; its members live on */
    kill(lead, SIGKILL);
    assert_int_equal(waitpid(lead, NULL, 0), lead);
    assert_int_equal(lg_fiorec_alive(&r), 2);
    assert_int_equal(lg_fiorec_clean(s_dir, 5000), 0);
    assert_int_equal(lg_fiorec_alive(&r), 0);
    assert_int_equal(stat(rec, &st), -1);
    assert_int_equal(lg_fiorec_remove(s_dir, 7), 0); /* gone already: fine */
    kill(-lead, SIGKILL); /* the plain member's sleep, not on the job file: not fio's */

    /* a group that does not run the recorded job file is not ours: left alone */
    pid_t other = s_group("sleep 60; true", "/elsewhere/job.fio");
    assert_true(other > 0);
    s_sleep_ms(50);
    assert_int_equal(lg_fiorec_create(s_dir, 8, (int)other, job, &r8, err, sizeof err), 0);
    assert_int_equal(lg_fiorec_clean(s_dir, 1000), 0);
    assert_int_equal(kill(other, 0), 0);
    snprintf(rec, sizeof rec, "%s/fio-8.rec", s_dir);
    assert_int_equal(stat(rec, &st), -1);
    kill(-other, SIGKILL);
    waitpid(other, NULL, 0);
    /* a process that is gone: nothing to record */
    assert_int_equal(lg_fiorec_create(s_dir, 9, (int)other, job, &r8, err, sizeof err), -ESRCH);
}

static int s_setup(void **state)
{
    (void)state;
    snprintf(s_dir, sizeof s_dir, "/tmp/lg-fiorec.XXXXXX");
    return mkdtemp(s_dir) ? 0 : -1;
}

static int s_teardown(void **state)
{
    (void)state;
    char rec[128];
    for (int i = 7; i <= 9; i++) {
        snprintf(rec, sizeof rec, "%s/fio-%d.rec", s_dir, i);
        unlink(rec);
    }
    return rmdir(s_dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_roundtrip),
        cmocka_unit_test(test_clean),
    };
    return cmocka_run_group_tests(tests, s_setup, s_teardown);
}
