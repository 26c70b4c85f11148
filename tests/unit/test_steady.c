/* test_steady.c: the steady-state rule on windows with known range and slope. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <math.h>

#include "lg_steady.h"

static void test_flat(void **state)
{
    (void)state;
    double r[] = {500, 9000, 1000, 1000, 1000, 1000, 1000};
    lg_steady_t s;
    lg_steady_judge(r, 7, &s); /* only the last five count */
    assert_true(s.reached);
    assert_int_equal(s.n, 5);
    assert_true(s.mean == 1000 && s.range == 0 && s.slope == 0);
    lg_steady_judge(r, 4, &s); /* 500 9000 1000 1000: too few rounds and too wide */
    assert_false(s.reached);
}

static void test_range(void **state)
{
    (void)state;
    /* mean 1000, range 200: exactly 20% holds; 201 does not. Symmetric so the slope is 0. */
    double ok[] = {1000, 900, 1100, 900, 1100};
    double no[] = {1000, 899.5, 1100.5, 899.5, 1100.5};
    lg_steady_t s;
    lg_steady_judge(ok, 5, &s);
    assert_true(s.range_ok);
    assert_true(s.reached);
    lg_steady_judge(no, 5, &s);
    assert_false(s.range_ok);
    assert_false(s.reached);
}

static void test_slope(void **state)
{
    (void)state;
    /* A steady climb of 30 per round around 1000: range 120 (12%) passes, but the line moves by
     * 4 x 30 = 120 > 10% of the mean, so it is not steady. 20 per round (80, 8%) is. */
    double climb[] = {940, 970, 1000, 1030, 1060};
    double gentle[] = {960, 980, 1000, 1020, 1040};
    lg_steady_t s;
    lg_steady_judge(climb, 5, &s);
    assert_true(fabs(s.slope - 30) < 1e-9);
    assert_true(fabs(s.excursion - 120) < 1e-9);
    assert_true(s.range_ok);
    assert_false(s.slope_ok);
    assert_false(s.reached);
    lg_steady_judge(gentle, 5, &s);
    assert_true(s.slope_ok && s.range_ok && s.reached);
}

static void test_idle(void **state)
{
    (void)state;
    double zero[] = {0, 0, 0, 0, 0};
    lg_steady_t s;
    lg_steady_judge(zero, 5, &s); /* no I/O at all is not a steady state */
    assert_false(s.reached);
    lg_steady_judge(zero, 0, &s);
    assert_int_equal(s.n, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_flat),
        cmocka_unit_test(test_range),
        cmocka_unit_test(test_slope),
        cmocka_unit_test(test_idle),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
