/* test_iowin.c: a load host's measured window from fio's reports (lg_iowin.h): each job's start
 * is its earliest report stamp less its runtime, its end that start plus its largest runtime;
 * the host's window spans its jobs'. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <string.h>

#include "lg_iowin.h"

/* A report at t of jobs whose read runtimes (ms) are rt[] (0: not started). */
static void s_report(lg_fio_report_t *r, lg_fio_job_t *jobs, size_t n, int64_t t,
                     const uint64_t *rt)
{
    memset(r, 0, sizeof *r);
    memset(jobs, 0, n * sizeof *jobs);
    r->timestamp_ms = t;
    r->njobs = n;
    r->jobs = jobs;
    for (size_t i = 0; i < n; i++) {
        jobs[i].dir[LG_DIR_READ].runtime_ms = rt[i];
        jobs[i].dir[LG_DIR_READ].lat_n = rt[i] ? 1 : 0;
    }
}

static void test_two_jobs(void **state)
{
    (void)state;
    lg_iowin_t w = {0};
    lg_fio_job_t jobs[2];
    lg_fio_report_t r;
    int64_t s, e;
    assert_int_equal(lg_iowin_get(&w, &s, &e), -1);
    /* job 1 still logging in at the first report: no runtime, no start */
    s_report(&r, jobs, 2, 10000, (uint64_t[]){1000, 0});
    assert_int_equal(lg_iowin_note(&w, &r), 0);
    assert_int_equal(lg_iowin_get(&w, &s, &e), 0);
    assert_true(s == 9000 && e == 10000);
    /* a later report stamped late (the status thread was slow): 9003 - no earlier start */
    s_report(&r, jobs, 2, 11003, (uint64_t[]){2000, 500});
    assert_int_equal(lg_iowin_note(&w, &r), 0);
    /* the final report, long after both ended (logoffs): runtimes frozen at the jobs' ends */
    s_report(&r, jobs, 2, 30000, (uint64_t[]){5000, 5100});
    assert_int_equal(lg_iowin_note(&w, &r), 0);
    assert_int_equal(lg_iowin_get(&w, &s, &e), 0);
    assert_int_equal(s, 9000);         /* job 0's start */
    assert_int_equal(e, 10503 + 5100); /* job 1 began at 11003 - 500, ran 5100 ms */
    assert_int_equal(lg_iowin_runtime_ms(&w), 5100);
    lg_iowin_clear(&w);
    assert_int_equal(lg_iowin_get(&w, &s, &e), -1);
}

static void test_write_only(void **state)
{
    (void)state;
    lg_iowin_t w = {0};
    lg_fio_job_t job;
    lg_fio_report_t r;
    s_report(&r, &job, 1, 5000, (uint64_t[]){0});
    job.dir[LG_DIR_WRITE].runtime_ms = 1500; /* the largest direction's runtime counts */
    job.dir[LG_DIR_WRITE].ios = 100;         /* in its ramp: I/Os but no latencies yet */
    assert_int_equal(lg_iowin_note(&w, &r), 0);
    int64_t s, e;
    assert_int_equal(lg_iowin_get(&w, &s, &e), -1);
    job.dir[LG_DIR_WRITE].lat_n = 100;
    assert_int_equal(lg_iowin_note(&w, &r), 0);
    assert_int_equal(lg_iowin_get(&w, &s, &e), 0);
    assert_true(s == 3500 && e == 5000);
    lg_iowin_clear(&w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_two_jobs),
        cmocka_unit_test(test_write_only),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
