/* test_skew.c: why lg merges histograms instead of averaging percentiles. Two load hosts see the
 * same NAS; one hits a slow path on 5% of its I/Os. The p99 of all I/Os is the slow path's
 * latency; the average of the hosts' p99s is a number no I/O had. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <stdlib.h>

#include "lg_stats.h"

static void s_fill(lg_dirstats_t *s, uint64_t fast, uint64_t slow)
{
    lg_dirstats_init(s);
    s->has_hist = true;
    s->hist.bins[lg_hist_idx(100000)] = fast;   /* 100 us */
    s->hist.bins[lg_hist_idx(50000000)] = slow; /* 50 ms */
    s->ios = s->lat_n = fast + slow;
    s->lat_min = 100000;
    s->lat_max = slow ? 50000000 : 100000;
    s->lat_mean = (fast * 1e5 + slow * 5e7) / (double)(fast + slow);
    s->lat_stddev = 0;
    lg_dirstats_derive_sums(s);
}

static void test_skewed_p99(void **state)
{
    (void)state;
    lg_dirstats_t *a = malloc(sizeof *a), *b = malloc(sizeof *b), *m = malloc(sizeof *m);
    s_fill(a, 10000, 0);  /* host A: all fast */
    s_fill(b, 9500, 500); /* host B: 5% slow */
    const lg_dirstats_t *list[2] = {a, b};
    lg_dirstats_merge(m, list, 2);
    uint64_t pa = lg_hist_percentile(&a->hist, 99), pb = lg_hist_percentile(&b->hist, 99);
    uint64_t pm = lg_hist_percentile(&m->hist, 99);
    double averaged = (pa + pb) / 2.0;
    /* 500 of 20000 I/Os (2.5%) are slow: the 99th percentile of all I/Os is the slow bucket. */
    assert_int_equal(pm, lg_hist_val(lg_hist_idx(50000000)));
    assert_int_equal(pa, lg_hist_val(lg_hist_idx(100000)));
    assert_int_equal(pb, pm);
    /* Averaging says ~25 ms: half the real p99, and no I/O had that latency. */
    assert_true(averaged < 0.6 * (double)pm);
    assert_int_equal(m->hist.bins[lg_hist_idx((uint64_t)averaged)], 0);
    /* And the other way round: p90 of all I/Os is fast, the averaged p90 is too. Both agree
     * only where the hosts agree. */
    assert_int_equal(lg_hist_percentile(&m->hist, 90), pa);
    free(a);
    free(b);
    free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_skewed_p99),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
