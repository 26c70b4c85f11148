/* test_stats.c: unit tests of lg_stats (fio's histogram math, merge, delta).
 * Expected histogram values are computed by hand from fio 3.33 stat.c's formulas; the fio
 * fixtures are exercised in test_fio.c. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "lg_error.h"
#include "lg_stats.h"

static lg_dirstats_t *s_new_stats(void)
{
    lg_dirstats_t *s = malloc(sizeof(*s));

    assert_non_null(s);
    lg_dirstats_init(s);
    return s;
}

/* Every bucket's representative value maps back to the bucket, and the buckets tile the range:
 * the first value of bucket i is one past the last value of bucket i - 1. */
static void test_hist_round_trip(void **state)
{
    (void)state;
    for (unsigned i = 0; i < LG_HIST_NR; i++)
        assert_int_equal(lg_hist_idx(lg_hist_val(i)), i);
    for (unsigned i = 1; i < LG_HIST_NR; i++) {
        uint64_t lo; /* first value of bucket i */

        if (i < 2 * LG_HIST_VAL) {
            lo = i;
        } else {
            unsigned eb = (i >> LG_HIST_BITS) - 1;

            lo = (1ULL << (eb + LG_HIST_BITS)) + (uint64_t)(i % LG_HIST_VAL) * (1ULL << eb);
        }
        assert_int_equal(lg_hist_idx(lo), i);
        assert_int_equal(lg_hist_idx(lo - 1), i - 1);
        assert_true(lg_hist_val(i) >= lo);
        assert_true(lg_hist_val(i) > lg_hist_val(i - 1));
    }
}

/* Values worked out by hand from plat_idx_to_val: base + (k + 0.5) * 2^error_bits. */
static void test_hist_known_values(void **state)
{
    (void)state;
    assert_int_equal(lg_hist_val(0), 0);
    assert_int_equal(lg_hist_val(63), 63);
    assert_int_equal(lg_hist_val(127), 127);
    assert_int_equal(lg_hist_val(128), 129);                /* 128 + 0.5 * 2 */
    assert_int_equal(lg_hist_val(129), 131);                /* 128 + 1.5 * 2 */
    assert_int_equal(lg_hist_val(191), 255);                /* 128 + 63.5 * 2 */
    assert_int_equal(lg_hist_val(192), 258);                /* 256 + 0.5 * 4 */
    assert_int_equal(lg_hist_val(193), 262);                /* 256 + 1.5 * 4, seen in fio output */
    assert_int_equal(lg_hist_val(256), 516);                /* 512 + 0.5 * 8 */
    assert_int_equal(lg_hist_val(1855), 17112760320ULL);    /* 2^33 + 63.5 * 2^27 */
    assert_int_equal(lg_hist_val(5000), lg_hist_val(1855)); /* clamped, fio would assert */

    assert_int_equal(lg_hist_idx(0), 0);
    assert_int_equal(lg_hist_idx(127), 127);
    assert_int_equal(lg_hist_idx(128), 128);
    assert_int_equal(lg_hist_idx(129), 128);
    assert_int_equal(lg_hist_idx(130), 129);
    /* msb 19: error_bits 13, 14 groups before, (1000000 >> 13) & 63 = 58 */
    assert_int_equal(lg_hist_idx(1000000), 954);
    assert_int_equal(lg_hist_idx(1ULL << 34), LG_HIST_NR - 1);
    assert_int_equal(lg_hist_idx(UINT64_MAX), LG_HIST_NR - 1);
}

static void test_pct_list(void **state)
{
    static const double want[LG_NPCT] = {1,  5,  10, 20, 30,   40,   50,    60,   70,
                                         80, 90, 95, 99, 99.5, 99.9, 99.95, 99.99};
    (void)state;
    for (unsigned i = 0; i < LG_NPCT; i++)
        assert_true(lg_pct_list[i] == want[i]);
}

static void test_percentile(void **state)
{
    lg_hist_t *h = calloc(1, sizeof(*h));

    (void)state;
    assert_non_null(h);
    assert_int_equal(lg_hist_total(h), 0);
    assert_int_equal(lg_hist_percentile(h, 50), 0);

    h->bins[10] = 50;
    h->bins[200] = 50;
    assert_int_equal(lg_hist_total(h), 100);
    assert_int_equal(lg_hist_percentile(h, 1), 10);
    assert_int_equal(lg_hist_percentile(h, 50), 10); /* cumulative 50 reaches 50 */
    assert_int_equal(lg_hist_percentile(h, 50.5), lg_hist_val(200));
    assert_int_equal(lg_hist_percentile(h, 100), lg_hist_val(200));
    assert_int_equal(lg_hist_percentile(h, 101), lg_hist_val(200));

#if defined(__x86_64__) || defined(__i386__)
    /* fio 3.33 as built (-ffast-math, x87) compares with p * (total * 0.01L). With 25 samples
     * that makes the 60th percentile threshold exactly 15, where the source's literal
     * (long double)p / 100.0 * total is 15.0000000000000000009 and needs a 16th sample. */
    memset(h, 0, sizeof(*h));
    h->bins[10] = 15;
    h->bins[20] = 10;
    assert_int_equal(lg_hist_percentile(h, 60), 10);
    /* ... and with 2000 samples the 99.95th is 1999.00000000000006, where plain double
     * arithmetic gives exactly 1999 and would stop one sample early. */
    memset(h, 0, sizeof(*h));
    h->bins[10] = 1999;
    h->bins[20] = 1;
    assert_int_equal(lg_hist_percentile(h, 99.95), 20);
#endif
    free(h);
}

static void s_set_lat(lg_dirstats_t *s, uint64_t n, double mean, double sd, uint64_t mn,
                      uint64_t mx)
{
    s->lat_n = n;
    s->lat_mean = mean;
    s->lat_stddev = sd;
    s->lat_min = mn;
    s->lat_max = mx;
    lg_dirstats_derive_sums(s);
}

static void test_derive_sums(void **state)
{
    lg_dirstats_t *s = s_new_stats();

    (void)state;
    /* samples 1, 2, 3: mean 2, sample stddev 1, sum 6, sum of squares 14 */
    s_set_lat(s, 3, 2.0, 1.0, 1, 3);
    assert_true(s->lat_sum == 6.0);
    assert_true(s->lat_sumsq == 14.0);
    s_set_lat(s, 0, 0, 0, 0, 0);
    assert_true(s->lat_sum == 0 && s->lat_sumsq == 0);
    s_set_lat(s, 1, 5.0, 0, 5, 5);
    assert_true(s->lat_sum == 5.0 && s->lat_sumsq == 25.0);
    free(s);
}

static void test_merge(void **state)
{
    lg_dirstats_t *a = s_new_stats(), *b = s_new_stats(), *c = s_new_stats();
    lg_dirstats_t *out = s_new_stats();
    const lg_dirstats_t *list[3] = {a, b, c};

    (void)state;
    /* a = {1, 2, 3}, b = {10, 20}, c has no latency samples */
    a->ios = 3, a->bytes = 300, a->runtime_ms = 1000, a->iops = 3, a->bw_bytes = 300;
    s_set_lat(a, 3, 2.0, 1.0, 1, 3);
    a->has_hist = true;
    a->hist.bins[1] = a->hist.bins[2] = a->hist.bins[3] = 1;
    b->ios = 2, b->bytes = 200, b->runtime_ms = 1500, b->iops = 1.5, b->bw_bytes = 150;
    s_set_lat(b, 2, 15.0, sqrt(50.0), 10, 20);
    b->has_hist = true;
    b->hist.bins[10] = b->hist.bins[20] = 1;
    c->runtime_ms = 500;

    lg_dirstats_merge(out, list, 3);
    assert_int_equal(out->ios, 5);
    assert_int_equal(out->bytes, 500);
    assert_int_equal(out->runtime_ms, 1500);
    assert_true(out->iops == 4.5 && out->bw_bytes == 450);
    assert_int_equal(out->lat_n, 5);
    assert_int_equal(out->lat_min, 1); /* c's 0 is not a sample */
    assert_int_equal(out->lat_max, 20);
    /* {1,2,3,10,20}: mean 7.2, sample variance (514 - 5 * 51.84) / 4 = 63.7 */
    assert_true(fabs(out->lat_mean - 7.2) < 1e-12);
    assert_true(fabs(out->lat_stddev - sqrt(63.7)) < 1e-12);
    assert_true(out->has_hist);
    assert_int_equal(lg_hist_total(&out->hist), 5);
    assert_int_equal(lg_hist_percentile(&out->hist, 50), 3);

    /* A job with samples but no bins makes the merged histogram unusable. */
    c->lat_n = 1, c->lat_min = 7, c->lat_max = 7, c->lat_mean = 7;
    lg_dirstats_derive_sums(c);
    lg_dirstats_merge(out, list, 3);
    assert_false(out->has_hist);
    assert_int_equal(lg_hist_total(&out->hist), 0);
    assert_int_equal(out->lat_n, 6);

    /* Out may be an input. */
    memcpy(out, a, sizeof(*out));
    list[0] = out;
    lg_dirstats_merge(out, list, 2);
    assert_int_equal(out->lat_n, 5);
    assert_int_equal(out->ios, 5);

    /* n == 1: an exact copy, fio's own mean and stddev untouched. */
    a->lat_mean = 2.0000001;
    lg_dirstats_merge(out, (const lg_dirstats_t *const[]){a}, 1);
    assert_memory_equal(out, a, sizeof(*a));

    /* One sample in total: stddev 0; nothing at all: zeros. */
    lg_dirstats_init(b);
    lg_dirstats_init(c);
    s_set_lat(b, 1, 9, 0, 9, 9);
    lg_dirstats_merge(out, (const lg_dirstats_t *const[]){b, c}, 2);
    assert_true(out->lat_mean == 9 && out->lat_stddev == 0);
    assert_int_equal(out->lat_min, 9);
    lg_dirstats_merge(out, (const lg_dirstats_t *const[]){c, c}, 2);
    assert_int_equal(out->lat_n, 0);
    assert_int_equal(out->lat_min, 0);
    assert_false(out->has_hist);
    assert_true(out->lat_mean == 0 && out->lat_stddev == 0);

    /* Identical samples: rounding may make the variance slightly negative; it is clamped. */
    s_set_lat(b, 3, 0.1, 0, 0, 0);
    s_set_lat(c, 7, 0.1, 0, 0, 0);
    lg_dirstats_merge(out, (const lg_dirstats_t *const[]){b, c}, 2);
    assert_true(out->lat_stddev >= 0 && out->lat_stddev < 1e-6);
    free(a), free(b), free(c), free(out);
}

static void test_delta(void **state)
{
    lg_dirstats_t *prev = s_new_stats(), *cur = s_new_stats(), *d = s_new_stats();

    (void)state;
    /* prev = {1, 2, 3}; cur adds {10, 20} */
    prev->ios = 3, prev->bytes = 300, prev->runtime_ms = 1000, prev->iops = 3;
    s_set_lat(prev, 3, 2.0, 1.0, 1, 3);
    prev->has_hist = true;
    prev->hist.bins[1] = prev->hist.bins[2] = prev->hist.bins[3] = 1;
    cur->ios = 5, cur->bytes = 500, cur->runtime_ms = 2000, cur->iops = 2.5;
    s_set_lat(cur, 5, 7.2, sqrt(63.7), 1, 20);
    cur->has_hist = true;
    memcpy(&cur->hist, &prev->hist, sizeof(cur->hist));
    cur->hist.bins[10] = cur->hist.bins[20] = 1;

    lg_dirstats_delta(d, cur, prev);
    assert_int_equal(d->ios, 2);
    assert_int_equal(d->bytes, 200);
    assert_int_equal(d->runtime_ms, 1000);
    assert_int_equal(d->lat_n, 2);
    assert_true(d->iops == 0 && d->bw_bytes == 0);
    assert_true(fabs(d->lat_mean - 15.0) < 1e-9);
    assert_true(fabs(d->lat_stddev - sqrt(50.0)) < 1e-6);
    assert_true(d->has_hist);
    assert_int_equal(lg_hist_total(&d->hist), 2);
    assert_int_equal(d->lat_min, 10);
    assert_int_equal(d->lat_max, 20);

    /* Extremes are bucket values, not exact samples. */
    cur->hist.bins[20] = 0;
    cur->hist.bins[lg_hist_idx(1000)] = 1;
    lg_dirstats_delta(d, cur, prev);
    assert_int_equal(d->lat_max, lg_hist_val(lg_hist_idx(1000)));
    assert_int_not_equal(d->lat_max, 1000);

    /* Went backwards (fio reset after ramp_time): the delta is cur itself. */
    lg_dirstats_delta(d, prev, cur);
    assert_int_equal(d->ios, 3);
    assert_int_equal(d->lat_n, 3);
    assert_int_equal(d->lat_min, 1);
    assert_int_equal(d->lat_max, 3);
    assert_true(fabs(d->lat_mean - 2.0) < 1e-12);
    assert_true(fabs(d->lat_stddev - 1.0) < 1e-12);
    assert_memory_equal(&d->hist, &prev->hist, sizeof(d->hist));

    /* No histogram: no extremes. Nothing new: all zero. */
    cur->has_hist = false;
    lg_dirstats_delta(d, cur, prev);
    assert_false(d->has_hist);
    assert_int_equal(d->lat_min, 0);
    assert_int_equal(d->lat_max, 0);
    lg_dirstats_delta(d, prev, prev);
    assert_int_equal(d->lat_n, 0);
    assert_true(d->lat_mean == 0 && d->lat_stddev == 0);
    assert_int_equal(d->lat_min, 0);
    free(prev), free(cur), free(d);
}

static void test_error_names(void **state)
{
    (void)state;
    assert_string_equal(lg_err_name(LG_EPARSE), "LG_EPARSE");
    assert_string_equal(lg_err_name(LG_ECHILD), "LG_ECHILD");
    assert_string_equal(lg_strerror(LG_ETOOBIG), "too large");
    assert_string_equal(lg_err_name(-ENOENT), "ENOENT");
    assert_string_equal(lg_strerror(-ENOENT), strerror(ENOENT));
    assert_string_equal(lg_err_name(0), "OK");
    assert_non_null(lg_strerror(-999));
    assert_non_null(lg_err_name(-999));
    assert_string_equal(lg_strerror(-5000), "unknown error");
    assert_string_equal(lg_err_name(42), "UNKNOWN");
}

/* The compact histogram the database keeps: round trip at the edges, refusals of bad input. */
static void test_hist_pack(void **state)
{
    (void)state;
    static lg_hist_t h, back;
    static uint8_t buf[LG_HIST_PACK_MAX];
    memset(&h, 0, sizeof h);
    assert_int_equal(lg_hist_pack(&h, buf), 1); /* empty: the version byte */
    assert_int_equal(lg_hist_unpack(buf, 1, &back), 0);
    assert_int_equal(lg_hist_total(&back), 0);
    h.bins[0] = 1;
    h.bins[1] = 127;
    h.bins[2] = 128;
    h.bins[300] = 1ull << 40; /* a gap over 127 and a long count */
    h.bins[LG_HIST_NR - 1] = 1ull << 60;
    size_t n = lg_hist_pack(&h, buf);
    /* version, then count << 3 | gap (and the rest of a gap of 7 or more): 1 at gap 0 (1 byte),
     * 127 and 128 (2 each), 2^40 after 297 (7 + 2), 2^60 after 1554 (10 + 2) */
    assert_int_equal(n, 1 + 1 + 2 + 2 + 9 + 12);
    assert_int_equal(lg_hist_unpack(buf, n, &back), 0);
    assert_memory_equal(&h, &back, sizeof h);
    char hex[3 + 2 * 8 + 1];
    lg_hex_bytea(buf, 8, hex);
    assert_string_equal(hex, "\\\\x0108f80780088780");
    /* a 300-bucket sample like a busy second: about 2 bytes a bucket (its jsonb took about 11) */
    memset(&h, 0, sizeof h);
    for (unsigned i = 0; i < 300; i++)
        h.bins[600 + i] = 1 + (i * 37) % 1000;
    n = lg_hist_pack(&h, buf);
    assert_int_equal(n, 602);
    /* a count beyond 2^61 is capped (no fio run counts that many I/Os in one bucket) */
    memset(&h, 0, sizeof h);
    h.bins[5] = UINT64_MAX;
    assert_int_equal(lg_hist_unpack(buf, lg_hist_pack(&h, buf), &back), 0);
    assert_int_equal(back.bins[5], (1ull << 61) - 1);
    /* bad input */
    /* far: count 1 after a gap of 7 + 1849 = bucket 1856 */
    uint8_t v2[] = {2, 8}, trunc[] = {1, 8, 0x80}, far[] = {1, 0x0f, 0xb9, 0x0e}, big[] = {1, 0x80};
    assert_int_equal(lg_hist_unpack(v2, sizeof v2, &back), LG_EPARSE);
    assert_int_equal(lg_hist_unpack(trunc, sizeof trunc, &back), LG_EPARSE);
    assert_int_equal(lg_hist_unpack(far, sizeof far, &back), LG_EPARSE); /* bucket 1856 */
    assert_int_equal(lg_hist_unpack(big, sizeof big, &back), LG_EPARSE);
    assert_int_equal(lg_hist_unpack(buf, 0, &back), LG_EPARSE);

    /* The canonical check (what the controller stores from the wire without expanding it):
     * everything lg_hist_pack makes passes ... */
    memset(&h, 0, sizeof h);
    h.bins[0] = 1;
    h.bins[6] = 2;
    h.bins[14] = 3; /* gap exactly 7 */
    h.bins[300] = 1ull << 40;
    h.bins[LG_HIST_NR - 1] = (1ull << 61) - 1;
    n = lg_hist_pack(&h, buf);
    assert_int_equal(lg_hist_packed_check(buf, n), 0);
    assert_int_equal(lg_hist_packed_check(buf, 1), 0); /* empty */
    /* ... and what unpack would accept but pack never makes does not: an empty bucket, a varint
     * with a needless continuation byte, bits past the 64th, plus everything unpack refuses */
    uint8_t zero[] = {1, 0x01}, loose[] = {1, 0x88, 0x00},
            wide[] = {1, 0x88, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x02};
    assert_int_equal(lg_hist_packed_check(zero, sizeof zero), LG_EPARSE);
    assert_int_equal(lg_hist_unpack(loose, sizeof loose, &back), 0);
    assert_int_equal(lg_hist_packed_check(loose, sizeof loose), LG_EPARSE);
    assert_int_equal(lg_hist_packed_check(wide, sizeof wide), LG_EPARSE);
    assert_int_equal(lg_hist_packed_check(v2, sizeof v2), LG_EPARSE);
    assert_int_equal(lg_hist_packed_check(trunc, sizeof trunc), LG_EPARSE);
    assert_int_equal(lg_hist_packed_check(far, sizeof far), LG_EPARSE);
    assert_int_equal(lg_hist_packed_check(buf, 0), LG_EPARSE);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hist_pack),
        cmocka_unit_test(test_hist_round_trip),
        cmocka_unit_test(test_hist_known_values),
        cmocka_unit_test(test_pct_list),
        cmocka_unit_test(test_percentile),
        cmocka_unit_test(test_derive_sums),
        cmocka_unit_test(test_merge),
        cmocka_unit_test(test_delta),
        cmocka_unit_test(test_error_names),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
