/* lg_noise.c: Student's t (CDF and quantile through the regularized incomplete beta function),
 * the same method as lg.t_cdf / lg.t_quantile in schema/017_compare_noise.sql, and the line
 * "lgctl plan" prints on what a spec's repeats buy. */
#include "lg_noise.h"

#include <math.h>
#include <stdio.h>

/* I_x(a, b) with y = 1 - x given separately, so neither end loses digits: the continued fraction
 * of I_x(a, b), which converges fast for x < (a + 1) / (a + b + 2) (otherwise 1 - I_y(b, a)),
 * evaluated front to back by the modified Lentz method. */
static double s_inc_beta(double x, double y, double a, double b)
{
    const double tiny = 1e-300;
    if (x <= 0)
        return 0;
    if (y <= 0)
        return 1;
    int flip = x >= (a + 1) / (a + b + 2);
    if (flip) {
        double t = x;
        x = y;
        y = t;
        t = a;
        a = b;
        b = t;
    }
    double front = exp(a * log(x) + b * log(y) + lgamma(a + b) - lgamma(a) - lgamma(b)) / a;
    double f = 1, c = 1, d = 0;
    for (int j = 1; j <= 1000; j++) {
        int m = j / 2;
        double aj = j % 2 ? -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))
                          : m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m));
        d = 1 + aj * d;
        if (fabs(d) < tiny)
            d = tiny;
        d = 1 / d;
        c = 1 + aj / c;
        if (fabs(c) < tiny)
            c = tiny;
        double delta = c * d;
        f *= delta;
        if (fabs(delta - 1) < 1e-15)
            break;
    }
    return flip ? 1 - front / f : front / f;
}

double lg_t_cdf(double t, double df)
{
    if (!(df > 0) || isnan(t))
        return NAN;
    if (t == 0)
        return 0.5;
    if (isinf(t))
        return t > 0 ? 1 : 0;
    /* P(|T| >= |t|) = I_{df / (df + t^2)}(df / 2, 1 / 2) */
    double tail = 0.5 * s_inc_beta(df / (df + t * t), t * t / (df + t * t), df / 2, 0.5);
    return t > 0 ? 1 - tail : tail;
}

/* Newton's method on the CDF, kept inside a bracket that bisection narrows whenever a step would
 * leave it. */
double lg_t_quantile(double p, double df)
{
    if (!(p > 0 && p < 1 && df > 0))
        return NAN;
    if (p == 0.5)
        return 0;
    if (p < 0.5)
        return -lg_t_quantile(1 - p, df);
    double lo = 0, hi = 1;
    while (lg_t_cdf(hi, df) < p) {
        lo = hi;
        hi *= 2;
    }
    /* ln of the density's constant: Gamma((df + 1) / 2) / (Gamma(df / 2) sqrt(df pi)) */
    double lnc = lgamma((df + 1) / 2) - lgamma(df / 2) - 0.5 * log(df * M_PI);
    double t = (lo + hi) / 2;
    for (int i = 0; i < 200; i++) {
        double f = lg_t_cdf(t, df) - p;
        if (f < 0)
            lo = t;
        else
            hi = t;
        double step = f / exp(lnc - (df + 1) / 2 * log1p(t * t / df));
        if (t - step <= lo || t - step >= hi)
            step = t - (lo + hi) / 2;
        t -= step;
        if (fabs(step) <= 1e-13 * (1 + fabs(t)) || hi - lo <= 1e-13 * (1 + fabs(t)))
            break;
    }
    return t;
}

uint32_t lg_noise_batches(uint32_t n_seconds)
{
    uint32_t k = n_seconds / 2 < 10 ? n_seconds / 2 : 10;
    return k >= 5 ? k : 0;
}

void lg_noise_plan_text(uint32_t repeats, uint32_t runtime_s, char *buf, size_t len)
{
    if (repeats >= 2) {
        /* A mean of r runs: +- t(0.975, r - 1) sd / sqrt(r). Two such means with the same sd:
         * Welch's df is 2 (r - 1), the difference's interval +- t(0.975, 2 (r - 1)) sd
         * sqrt(2 / r); a difference smaller than that includes zero: "~". */
        double r = repeats, t1 = lg_t_quantile(0.975, r - 1);
        double diff = lg_t_quantile(0.975, 2 * (r - 1)) * sqrt(2 / r);
        snprintf(buf, len,
                 "precision: repeats %u: a mean's 95%% CI is \u00b1%.2f sd (t(0.975, %u) = %.3f, "
                 "/ \u221a%u), sd the run-to-run standard deviation; differences under about "
                 "%.2f sd (%.1f%% if runs vary by 2%%) compare as ~",
                 repeats, t1 / sqrt(r), repeats - 1, t1, repeats, diff, 2 * diff);
        return;
    }
    uint32_t k = lg_noise_batches(runtime_s);
    if (k)
        snprintf(
            buf, len,
            "precision: repeats 1: a figure's 95%% CI comes from %u batch means (%u s each) of "
            "its run's per-second samples, for IOPS, MB/s and average latency only: noise "
            "within the run, not from run to run (repeats: 3 or more measure that)",
            k, runtime_s / k);
    else
        snprintf(buf, len,
                 "precision: repeats 1 of %u s: no CI (fewer than 5 batches of 2 s), so "
                 "differences are not tested against noise; repeats: 3 or more give one",
                 runtime_s);
}
