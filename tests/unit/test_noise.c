/* test_noise.c: Student's t in C (lgctl plan's precision line) against published values and
 * scipy's, and the line itself for one and for several repeats. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <math.h>
#include <string.h>

#include "lg_noise.h"

static void s_near(double got, double want, double rel)
{
    if (!(fabs(got - want) <= rel * fabs(want)))
        fail_msg("got %.15g, want %.15g (relative %.3g)", got, want, fabs(got - want) / fabs(want));
}

static void test_quantile(void **state)
{
    (void)state;
    /* the usual table: t(0.975, df) */
    s_near(lg_t_quantile(0.975, 2), 4.302653, 1e-6);
    s_near(lg_t_quantile(0.975, 9), 2.262157, 1e-6);
    s_near(lg_t_quantile(0.975, 30), 2.042272, 1e-6);
    /* closed forms: df 1 is Cauchy, tan(pi (p - 1/2)); df 2 is (2p - 1) / sqrt(2p(1 - p)) */
    s_near(lg_t_quantile(0.975, 1), tan(M_PI * 0.475), 1e-11);
    s_near(lg_t_quantile(0.9, 2), 0.8 / sqrt(2 * 0.9 * 0.1), 1e-11);
    s_near(lg_t_quantile(0.025, 5), -2.570581836614740, 1e-9);
    /* a Welch df that is not whole, and a far tail (scipy.stats.t.ppf) */
    s_near(lg_t_quantile(0.975, 4.37), 2.686148100040886, 1e-9);
    s_near(lg_t_quantile(0.999999, 2), 707.1057205157683, 1e-9);
    assert_true(isnan(lg_t_quantile(0, 3)));
    assert_true(isnan(lg_t_quantile(0.5, 0)));
    assert_true(lg_t_quantile(0.5, 7) == 0);
}

static void test_cdf(void **state)
{
    (void)state;
    s_near(lg_t_cdf(0, 3), 0.5, 1e-15);
    /* scipy.stats.t.sf: small tails stay exact */
    s_near(1 - lg_t_cdf(2.0, 3), 0.13932596855884310 / 2, 1e-12);
    s_near(lg_t_cdf(-25, 30), 1.2091822381286975e-21 / 2, 1e-12);
    s_near(lg_t_cdf(-1.5, 7.3), 0.17556309280308602 / 2, 1e-12);
    for (double df = 1; df < 100; df *= 1.7)
        s_near(lg_t_cdf(lg_t_quantile(0.975, df), df), 0.975, 1e-13);
}

static void test_plan_text(void **state)
{
    (void)state;
    char buf[512];
    lg_noise_plan_text(3, 60, buf, sizeof buf);
    /* 4.303 / sqrt(3) = 2.48; t(0.975, 4) sqrt(2/3) = 2.776 * 0.8165 = 2.27 */
    assert_non_null(
        strstr(buf, "repeats 3: a mean's 95% CI is \u00b12.48 sd (t(0.975, 2) = 4.303"));
    assert_non_null(strstr(buf, "differences under about 2.27 sd (4.5% if runs vary by 2%)"));
    lg_noise_plan_text(1, 60, buf, sizeof buf);
    assert_non_null(strstr(buf, "10 batch means (6 s each)"));
    lg_noise_plan_text(1, 8, buf, sizeof buf);
    assert_non_null(strstr(buf, "no CI"));
    assert_int_equal(lg_noise_batches(9), 0);
    assert_int_equal(lg_noise_batches(10), 5);
    assert_int_equal(lg_noise_batches(15), 7);
    assert_int_equal(lg_noise_batches(600), 10);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_quantile),
        cmocka_unit_test(test_cdf),
        cmocka_unit_test(test_plan_text),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
