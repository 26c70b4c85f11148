/* test_search.c: the latency-bounded search's stepping (core/lg_search.c), driven to its end
 * against response curves: latency that grows with load (the knee found, adjacent loads), one
 * that dips and jumps (non-monotone: the bracket still holds a passing and a failing probe), a
 * limit never reached, a limit passed at the first load, the step limit, a failed probe, and the
 * rate search (unpaced first, then doubling and bisecting the offered IOPS); and confirmation: a
 * probe over the limit tried again at its load before the search acts on it (a one-trial stall
 * does not end or narrow the search; a load over in every trial does). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <math.h>

#include "lg_search.h"

typedef double (*resp_fn)(uint32_t load, double *iops);

/* Runs the search to its end against f; returns the final step, the probes in p and *n. */
static lg_search_step_t s_drive(const lg_search_t *s, resp_fn f, lg_probe_t *p, size_t *n)
{
    lg_search_step_t st;
    *n = 0;
    for (;;) {
        lg_search_next(s, p, *n, &st);
        if (st.state != LG_SEARCH_PROBE)
            return st;
        assert_true(*n < 64);
        p[*n].load = st.next_load;
        p[*n].trial = st.next_trial;
        p[*n].ok = true;
        p[*n].value_ms = f(st.next_load, &p[*n].iops);
        (*n)++;
    }
}

/* Latency 0.5 ms per outstanding I/O, IOPS = qd / latency: the limit of 5 ms is crossed between
 * qd 10 (5.0, not over) and 11 (5.5). */
static double s_linear(uint32_t qd, double *iops)
{
    *iops = qd / (0.5e-3 * qd);
    return 0.5 * qd;
}

static lg_search_t s_qd(double limit, uint32_t min, uint32_t max, uint32_t steps)
{
    lg_search_t s = {.on = true,
                     .metric = LG_SMETRIC_P99,
                     .limit_ms = limit,
                     .vary = LG_VARY_QD,
                     .min = min,
                     .max = max,
                     .steps = steps,
                     .resolution_pct = 5,
                     .threads = 4};
    return s;
}

static void test_monotone(void **state)
{
    (void)state;
    lg_search_t s = s_qd(5, 1, 256, 20);
    lg_probe_t p[64];
    size_t n;
    lg_search_step_t st = s_drive(&s, s_linear, p, &n);
    assert_int_equal(st.state, LG_SEARCH_KNEE);
    assert_int_equal(p[st.good].load, 10);
    assert_int_equal(p[st.bad].load, 11);
    /* doubling 1 2 4 8 16, then bisecting 12 10 11 */
    uint32_t want[] = {1, 2, 4, 8, 16, 12, 10, 11};
    assert_int_equal(n, sizeof want / sizeof *want);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(p[i].load, want[i]);
}

/* Bumpy: over the limit at 6 and at 20+, under it at 7..19 (a cache that helps at medium
 * depth). Doubling stops at 8 (under), 16 (under), 32 (over); bisection between 16 and 32. The
 * bracket it reports holds: its good load passed, its bad load failed, and they are adjacent. */
static double s_bumpy(uint32_t qd, double *iops)
{
    *iops = 1000.0 * qd;
    return qd == 6 || qd >= 20 ? 9.0 : 1.0;
}

static void test_non_monotone(void **state)
{
    (void)state;
    lg_search_t s = s_qd(5, 1, 256, 20);
    lg_probe_t p[64];
    size_t n;
    lg_search_step_t st = s_drive(&s, s_bumpy, p, &n);
    assert_int_equal(st.state, LG_SEARCH_KNEE);
    assert_true(p[st.good].value_ms <= 5 && p[st.bad].value_ms > 5);
    assert_int_equal(p[st.bad].load - p[st.good].load, 1);
    assert_int_equal(p[st.good].load, 19);
    /* A probe over the limit below a passing one (a dip seen late) never becomes the "bad" end
     * above a good one: the bracket is the lowest failure and the best pass below it. */
    lg_probe_t q[] = {{1, true, 1, 1, 1},
                      {2, true, 1, 2, 1},
                      {4, true, 9, 4, 1},
                      {3, true, 9, 3, 1},
                      {8, true, 1, 8, 1}};
    lg_search_next(&s, q, 5, &st);
    assert_int_equal(q[st.bad].load, 3);
    assert_int_equal(q[st.good].load, 2);
    assert_int_equal(st.state, LG_SEARCH_KNEE);
}

static double s_flat(uint32_t qd, double *iops)
{
    *iops = 100.0 * qd;
    return 0.2;
}

static void test_never_reached(void **state)
{
    (void)state;
    lg_search_t s = s_qd(5, 1, 24, 20);
    lg_probe_t p[64];
    size_t n;
    lg_search_step_t st = s_drive(&s, s_flat, p, &n);
    assert_int_equal(st.state, LG_SEARCH_NOT_REACHED);
    assert_int_equal(st.bad, -1);
    assert_int_equal(p[st.good].load, 24); /* 1 2 4 8 16, then the bound itself */
    assert_int_equal(n, 6);
}

static double s_slow(uint32_t qd, double *iops)
{
    *iops = 10.0 * qd;
    return 50.0 + qd;
}

static void test_first_over(void **state)
{
    (void)state;
    lg_search_t s = s_qd(5, 2, 256, 20);
    lg_probe_t p[64];
    size_t n;
    lg_search_step_t st = s_drive(&s, s_slow, p, &n);
    assert_int_equal(st.state, LG_SEARCH_FIRST_OVER);
    assert_int_equal(n, 1);
    assert_int_equal(p[0].load, 2);
    assert_int_equal(st.good, -1);
    assert_int_equal(st.bad, 0);
}

static void test_steps_and_failure(void **state)
{
    (void)state;
    lg_search_t s = s_qd(5, 1, 256, 6);
    lg_probe_t p[64];
    size_t n;
    lg_search_step_t st = s_drive(&s, s_linear, p, &n);
    assert_int_equal(st.state, LG_SEARCH_STEPS);
    assert_int_equal(n, 6);
    assert_int_equal(p[st.good].load, 8); /* 1 2 4 8 16 12: between 8 and 12 so far */
    assert_int_equal(p[st.bad].load, 12);
    p[2].ok = false;
    lg_search_next(&s, p, 3, &st);
    assert_int_equal(st.state, LG_SEARCH_FAILED);
}

/* A rate search: the target gives at most 20000 IOPS; latency 1 ms below 15000 offered, then
 * it climbs (queueing) to 12 ms unpaced. Limit 5 ms is crossed at 16000 offered. */
static double s_rate(uint32_t rate, double *iops)
{
    if (rate == 0 || rate >= 20000) {
        *iops = 20000;
        return 12;
    }
    *iops = rate;
    return rate < 15000 ? 1 : 1 + (rate - 15000) / 250.0;
}

static void test_rate(void **state)
{
    (void)state;
    lg_search_t s = {.on = true,
                     .metric = LG_SMETRIC_P99,
                     .limit_ms = 5,
                     .vary = LG_VARY_RATE,
                     .min = 1000,
                     .steps = 20,
                     .resolution_pct = 2,
                     .threads = 4,
                     .qd = 8};
    lg_probe_t p[64];
    size_t n;
    lg_search_step_t st = s_drive(&s, s_rate, p, &n);
    assert_int_equal(st.state, LG_SEARCH_KNEE);
    assert_int_equal(p[0].load, 0);     /* unpaced first */
    assert_int_equal(p[1].load, 1000);  /* then doubling from min */
    assert_int_equal(p[5].load, 16000); /* 1000 2000 4000 8000 16000 (over: 5 ms at 16000 is */
    assert_true(p[5].value_ms <= 5);    /* exactly the limit, not over) */
    uint32_t good = p[st.good].load, bad = p[st.bad].load == 0 ? 20000 : p[st.bad].load;
    assert_true(good >= 16000 && good < bad && bad <= 20000);
    assert_true((bad - good) * 100 <= 2 * bad);
    assert_true(s_rate(good, &(double){0}) <= 5 && s_rate(bad, &(double){0}) > 5);
    /* from 0 (no min): plain bisection below the unpaced rate */
    s.min = 0;
    st = s_drive(&s, s_rate, p, &n);
    assert_int_equal(st.state, LG_SEARCH_KNEE);
    assert_int_equal(p[1].load, 10000);
    /* unpaced and still under the limit: never reached */
    s.limit_ms = 20;
    st = s_drive(&s, s_rate, p, &n);
    assert_int_equal(st.state, LG_SEARCH_NOT_REACHED);
    assert_int_equal(n, 1);
}

/* A stall of one trial: the first probe at s_stall_load measures 50 ms, whatever its load. */
static uint32_t s_stall_load;
static int s_stall_left;

static double s_linear_stall(uint32_t qd, double *iops)
{
    double v = s_linear(qd, iops);
    if (qd == s_stall_load && s_stall_left) {
        s_stall_left = 0;
        *iops /= 20;
        return 50;
    }
    return v;
}

static lg_search_step_t s_drive_stall(lg_search_t *s, uint32_t load, uint32_t confirm,
                                      lg_probe_t *p, size_t *n)
{
    s->confirm = confirm;
    s_stall_load = load;
    s_stall_left = 1;
    return s_drive(s, s_linear_stall, p, n);
}

static void test_confirm_stall(void **state)
{
    (void)state;
    lg_search_t s = s_qd(5, 1, 256, 20);
    lg_probe_t p[64];
    size_t n;
    /* The first probe stalls: without confirmation the search ends there ("first-over") */
    lg_search_step_t st = s_drive_stall(&s, 1, 0, p, &n);
    assert_int_equal(st.state, LG_SEARCH_FIRST_OVER);
    assert_int_equal(n, 1);
    /* with it, qd 1 is tried again, passes, and the search goes on to the knee at 10/11 */
    st = s_drive_stall(&s, 1, 1, p, &n);
    assert_int_equal(st.state, LG_SEARCH_KNEE);
    assert_int_equal(p[0].load, 1);
    assert_true(p[0].value_ms == 50);
    assert_int_equal(p[1].load, 1);
    assert_int_equal(p[1].trial, 2);
    assert_true(p[1].value_ms == 0.5);
    assert_false(lg_search_counts(p, n, 0)); /* the repeat counts, not the stalled trial */
    assert_true(lg_search_counts(p, n, 1));
    assert_int_equal(p[st.good].load, 10);
    assert_int_equal(p[st.bad].load, 11);
    /* every load over the limit was tried twice, and was over both times; none under it was */
    uint32_t want[] = {1, 1, 2, 4, 8, 16, 16, 12, 12, 10, 11, 11};
    assert_int_equal(n, sizeof want / sizeof *want);
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(p[i].load, want[i]);
        assert_int_equal(p[i].trial, i > 0 && want[i - 1] == want[i] ? 2 : 1);
    }
    assert_int_equal(p[st.bad].trial, 2); /* the confirming trial is the one it acts on */
    /* A stall mid-way (qd 8) puts the knee below the real one without confirmation (7/8) */
    st = s_drive_stall(&s, 8, 0, p, &n);
    assert_int_equal(st.state, LG_SEARCH_KNEE);
    assert_int_equal(p[st.good].load, 7);
    assert_int_equal(p[st.bad].load, 8);
    st = s_drive_stall(&s, 8, 1, p, &n);
    assert_int_equal(st.state, LG_SEARCH_KNEE);
    assert_int_equal(p[st.good].load, 10);
    assert_int_equal(p[st.bad].load, 11);
}

static void test_confirm_over(void **state)
{
    (void)state;
    lg_search_t s = s_qd(5, 2, 256, 20);
    lg_probe_t p[64];
    size_t n;
    /* over the limit in every trial: first-over after 1 + confirm trials at min */
    for (uint32_t c = 1; c <= LG_SEARCH_CONFIRM_MAX; c++) {
        s.confirm = c;
        lg_search_step_t st = s_drive(&s, s_slow, p, &n);
        assert_int_equal(st.state, LG_SEARCH_FIRST_OVER);
        assert_int_equal(n, 1 + c);
        assert_int_equal(st.bad, (int)c);
        assert_int_equal(p[c].load, 2);
        assert_int_equal(p[c].trial, 1 + c);
    }
    /* steps counts loads, not repeats: 1 2 4 8 16 16 12 12, out of steps after 6 loads */
    s = s_qd(5, 1, 256, 6);
    s.confirm = 1;
    lg_search_step_t st = s_drive(&s, s_linear, p, &n);
    assert_int_equal(st.state, LG_SEARCH_STEPS);
    assert_int_equal(n, 8);
    assert_int_equal(p[st.good].load, 8);
    assert_int_equal(p[st.bad].load, 12);
    assert_int_equal(lg_search_probes_max(&s), 12);
    /* a repeat that failed fails the search */
    p[6].ok = false;
    lg_search_next(&s, p, 7, &st);
    assert_int_equal(st.state, LG_SEARCH_FAILED);
    /* a rate search whose unpaced probe stalled once: tried again, under the limit, not reached */
    lg_search_t r = {.on = true,
                     .metric = LG_SMETRIC_P99,
                     .limit_ms = 20,
                     .vary = LG_VARY_RATE,
                     .min = 1000,
                     .steps = 20,
                     .resolution_pct = 2,
                     .confirm = 1};
    lg_probe_t q[2] = {{0, true, 60, 3000, 1}};
    lg_search_next(&r, q, 1, &st);
    assert_int_equal(st.state, LG_SEARCH_PROBE);
    assert_int_equal(st.next_load, 0);
    assert_int_equal(st.next_trial, 2);
    q[1] = (lg_probe_t){0, true, 12, 20000, 2};
    lg_search_next(&r, q, 2, &st);
    assert_int_equal(st.state, LG_SEARCH_NOT_REACHED);
    assert_int_equal(st.good, 1);
}

static void test_names(void **state)
{
    (void)state;
    assert_int_equal(lg_smetric_parse("p99_ms"), LG_SMETRIC_P99);
    assert_int_equal(lg_smetric_parse("mean_ms"), LG_SMETRIC_MEAN);
    assert_int_equal(lg_smetric_parse("p98_ms"), -1);
    assert_string_equal(lg_smetric_name(LG_SMETRIC_P999), "p99_9_ms");
    assert_int_equal(lg_vary_parse("rate"), LG_VARY_RATE);
    assert_int_equal(lg_vary_parse("iops"), -1);
    assert_true(fabs(lg_smetric_pct(LG_SMETRIC_P999) - 99.9) < 1e-9);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_monotone),
        cmocka_unit_test(test_non_monotone),
        cmocka_unit_test(test_never_reached),
        cmocka_unit_test(test_first_over),
        cmocka_unit_test(test_steps_and_failure),
        cmocka_unit_test(test_rate),
        cmocka_unit_test(test_confirm_stall),
        cmocka_unit_test(test_confirm_over),
        cmocka_unit_test(test_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
