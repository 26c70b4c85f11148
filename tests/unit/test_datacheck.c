/* test_datacheck.c: unit tests of lg_datacheck on files of known content: duplicates, zero
 * records (holes), random records (stored whole), half-zero records whose expected stored size
 * is computed here by calling zstd and lz4 directly, ZFS's 1/8 rule and sector rounding. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <lz4.h>
#include <zstd.h>
#ifdef _WIN32
#include <windows.h>
#endif

#include "lg_datacheck.h"
#include "lg_error.h"
#include "lg_util.h"

typedef struct {
    char dir[256];
    char path[300];
} s_fixture_t;

static int s_setup(void **state)
{
    s_fixture_t *fx = calloc(1, sizeof(*fx));
    assert_non_null(fx);
#ifdef _WIN32 /* under wine or on Windows: no mkdtemp, a folder of our own in %TEMP% */
    const char *tmp = getenv("TEMP");
    snprintf(fx->dir, sizeof(fx->dir), "%s\\lg-test-datacheck-%d-%d", tmp ? tmp : ".",
             (int)getpid(), rand());
    assert_int_equal(lg_mkdirs(fx->dir, 0700), 0);
    snprintf(fx->path, sizeof(fx->path), "%s\\data", fx->dir);
#else
    snprintf(fx->dir, sizeof(fx->dir), "/tmp/lg-test-datacheck.XXXXXX");
    assert_non_null(mkdtemp(fx->dir));
    snprintf(fx->path, sizeof(fx->path), "%s/data", fx->dir);
#endif
    *state = fx;
    return 0;
}

static int s_teardown(void **state)
{
    s_fixture_t *fx = *state;
    unlink(fx->path);
    rmdir(fx->dir);
    free(fx);
    return 0;
}

/* splitmix64: a deterministic stream that no compressor can shrink. */
static void s_random(uint8_t *p, size_t n, uint64_t seed)
{
    uint64_t x = seed * 0x9e3779b97f4a7c15ull + 1;
    for (size_t i = 0; i < n; i += 8) {
        uint64_t z = (x += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        z ^= z >> 31;
        memcpy(p + i, &z, n - i < 8 ? n - i : 8);
    }
}

/* A record whose first pct percent is random (from seed) and the rest zero. */
static void s_record(uint8_t *p, size_t unit, unsigned pct, uint64_t seed)
{
    size_t r = unit * pct / 100;
    memset(p, 0, unit);
    s_random(p, r, seed);
}

static void s_write(const char *path, const uint8_t *buf, size_t n)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(buf, 1, n, f), n);
    assert_int_equal(fclose(f), 0);
}

/* What ZFS stores for rec, computed without lg_datacheck: zstd level 1 without checksum and
 * content size (ZFS drops the 4-byte magic and adds an 8-byte header), lz4 plus a 4-byte header;
 * kept only when it fits unit - unit/8, then rounded up to sector. */
static uint64_t s_keep(uint64_t c, size_t unit, uint32_t sector)
{
    if (c > unit - unit / 8)
        return unit;
    if (sector) {
        c = (c + sector - 1) / sector * sector;
        if (c >= unit)
            return unit;
    }
    return c;
}

static uint64_t s_expect_zstd(const uint8_t *rec, size_t unit, uint32_t sector)
{
    size_t cap = ZSTD_compressBound(unit);
    void *dst = malloc(cap);
    ZSTD_CCtx *cc = ZSTD_createCCtx();
    assert_non_null(dst);
    assert_non_null(cc);
    ZSTD_CCtx_setParameter(cc, ZSTD_c_compressionLevel, 1);
    ZSTD_CCtx_setParameter(cc, ZSTD_c_checksumFlag, 0);
    ZSTD_CCtx_setParameter(cc, ZSTD_c_contentSizeFlag, 0);
    size_t n = ZSTD_compress2(cc, dst, cap, rec, unit);
    assert_false(ZSTD_isError(n));
    ZSTD_freeCCtx(cc);
    free(dst);
    return s_keep(n - 4 + 8, unit, sector);
}

static uint64_t s_expect_lz4(const uint8_t *rec, size_t unit, uint32_t sector)
{
    int cap = LZ4_compressBound((int)unit);
    char *dst = malloc((size_t)cap);
    assert_non_null(dst);
    int n = LZ4_compress_default((const char *)rec, dst, (int)unit, cap);
    assert_true(n > 0);
    free(dst);
    return s_keep((uint64_t)n + 4, unit, sector);
}

/* 64 random records, each content twice (32 distinct), in shuffled order. */
static void test_duplicates(void **state)
{
    s_fixture_t *fx = *state;
    const size_t unit = 128 * 1024, n = 64;
    uint8_t *buf = malloc(unit * n);
    assert_non_null(buf);
    for (size_t i = 0; i < n; i++)
        s_random(buf + i * unit, unit, (i * 7) % 32);
    s_write(fx->path, buf, unit * n);

    lg_datacheck_t r;
    char err[256];
    assert_int_equal(lg_datacheck_file(fx->path, (uint32_t)unit, 0, &r, err, sizeof(err)), 0);
    assert_int_equal(r.records, 64);
    assert_int_equal(r.unique, 32);
    assert_int_equal(r.zero, 0);
    assert_int_equal(r.bytes, 64 * unit);
    assert_int_equal(r.zstd_bytes, 64 * unit); /* random data is stored whole */
    assert_int_equal(r.lz4_bytes, 64 * unit);
    assert_true(r.dedup_ratio == 2.0);
    assert_true(r.zstd_ratio == 1.0);
    assert_true(r.lz4_ratio == 1.0);
    free(buf);
}

/* Records half random, half zero: stored sizes exactly as zstd and lz4 give them (plus ZFS's
 * headers), and about half a record each. */
static void test_half_zero(void **state)
{
    s_fixture_t *fx = *state;
    const size_t unit = 128 * 1024, n = 16;
    uint8_t *buf = malloc(unit * n);
    assert_non_null(buf);
    uint64_t ez = 0, el = 0;
    for (size_t i = 0; i < n; i++) {
        s_record(buf + i * unit, unit, 50, 100 + i);
        ez += s_expect_zstd(buf + i * unit, unit, 0);
        el += s_expect_lz4(buf + i * unit, unit, 0);
    }
    s_write(fx->path, buf, unit * n);

    lg_datacheck_t r;
    char err[256];
    assert_int_equal(lg_datacheck_file(fx->path, (uint32_t)unit, 0, &r, err, sizeof(err)), 0);
    assert_int_equal(r.records, n);
    assert_int_equal(r.unique, n);
    assert_int_equal(r.zstd_bytes, ez);
    assert_int_equal(r.lz4_bytes, el);
    assert_true(r.zstd_bytes > n * unit / 2 && r.zstd_bytes < n * unit / 2 + n * 1024);
    assert_true(r.lz4_bytes > n * unit / 2 && r.lz4_bytes < n * unit / 2 + n * 1024);
    assert_true(r.zstd_ratio > 1.97 && r.zstd_ratio < 2.0);
    assert_true(r.lz4_ratio > 1.97 && r.lz4_ratio < 2.0);
    free(buf);
}

static void test_all_random(void **state)
{
    s_fixture_t *fx = *state;
    const size_t unit = 4096, n = 256;
    uint8_t *buf = malloc(unit * n);
    assert_non_null(buf);
    s_random(buf, unit * n, 42);
    s_write(fx->path, buf, unit * n);

    lg_datacheck_t r;
    char err[256];
    assert_int_equal(lg_datacheck_file(fx->path, (uint32_t)unit, 0, &r, err, sizeof(err)), 0);
    assert_int_equal(r.records, n);
    assert_int_equal(r.unique, n);
    assert_int_equal(r.zstd_bytes, n * unit);
    assert_int_equal(r.lz4_bytes, n * unit);
    assert_true(r.dedup_ratio == 1.0 && r.zstd_ratio == 1.0 && r.lz4_ratio == 1.0);
    free(buf);
}

/* All-zero records are holes (stored 0) and one content for dedup. */
static void test_all_zero(void **state)
{
    s_fixture_t *fx = *state;
    const size_t unit = 4096, n = 100;
    uint8_t *buf = calloc(n, unit);
    assert_non_null(buf);
    s_write(fx->path, buf, unit * n);

    lg_datacheck_t r;
    char err[256];
    assert_int_equal(lg_datacheck_file(fx->path, (uint32_t)unit, 0, &r, err, sizeof(err)), 0);
    assert_int_equal(r.records, n);
    assert_int_equal(r.unique, 1);
    assert_int_equal(r.zero, n);
    assert_int_equal(r.zstd_bytes, 0);
    assert_int_equal(r.lz4_bytes, 0);
    assert_true(r.dedup_ratio == 100.0);
    assert_true(r.zstd_ratio == 0.0 && r.lz4_ratio == 0.0); /* unbounded */
    free(buf);
}

/* Half the records zero, half random and distinct: 2:1 by holes; dedup counts zeros once. */
static void test_zero_and_random(void **state)
{
    s_fixture_t *fx = *state;
    const size_t unit = 8192, n = 20;
    uint8_t *buf = calloc(n, unit);
    assert_non_null(buf);
    for (size_t i = 0; i < n; i += 2)
        s_random(buf + i * unit, unit, 7 + i);
    s_write(fx->path, buf, unit * n);

    lg_datacheck_t r;
    char err[256];
    assert_int_equal(lg_datacheck_file(fx->path, (uint32_t)unit, 0, &r, err, sizeof(err)), 0);
    assert_int_equal(r.records, 20);
    assert_int_equal(r.zero, 10);
    assert_int_equal(r.unique, 11);
    assert_int_equal(r.zstd_bytes, 10 * unit);
    assert_true(r.zstd_ratio == 2.0 && r.lz4_ratio == 2.0);
    free(buf);
}

/* ZFS keeps a compressed record only when that saves 1/8: 90% random is stored whole though
 * it compresses a little, 80% random is kept compressed. */
static void test_one_eighth_rule(void **state)
{
    s_fixture_t *fx = *state;
    const size_t unit = 128 * 1024;
    uint8_t *buf = malloc(unit * 2);
    assert_non_null(buf);
    s_record(buf, unit, 90, 1);
    s_record(buf + unit, unit, 80, 2);
    s_write(fx->path, buf, unit * 2);

    lg_datacheck_t r;
    char err[256];
    assert_int_equal(lg_datacheck_file(fx->path, (uint32_t)unit, 0, &r, err, sizeof(err)), 0);
    uint64_t z80 = s_expect_zstd(buf + unit, unit, 0);
    assert_true(z80 < unit - unit / 8);
    assert_int_equal(r.zstd_bytes, unit + z80);
    assert_int_equal(r.lz4_bytes, unit + s_expect_lz4(buf + unit, unit, 0));
    free(buf);
}

/* With sector rounding: a half-random 4 KiB record rounds up to 4 KiB (stored whole), a
 * half-random 128 KiB record rounds up to a multiple of 4 KiB. */
static void test_sector(void **state)
{
    s_fixture_t *fx = *state;
    uint8_t *buf = malloc(128 * 1024);
    assert_non_null(buf);
    lg_datacheck_t r;
    char err[256];

    s_record(buf, 4096, 50, 3);
    s_write(fx->path, buf, 4096);
    lg_datacheck_opts_t o = {.unit = 4096, .sector = 4096};
    assert_int_equal(lg_datacheck_file_opts(fx->path, &o, &r, err, sizeof(err)), 0);
    assert_int_equal(r.zstd_bytes, 4096);
    assert_int_equal(r.lz4_bytes, 4096);
    o.sector = 512;
    assert_int_equal(lg_datacheck_file_opts(fx->path, &o, &r, err, sizeof(err)), 0);
    assert_int_equal(r.zstd_bytes, s_expect_zstd(buf, 4096, 512));
    assert_int_equal(r.zstd_bytes % 512, 0);
    assert_true(r.zstd_bytes < 4096);

    s_record(buf, 128 * 1024, 50, 4);
    s_write(fx->path, buf, 128 * 1024);
    o = (lg_datacheck_opts_t){.unit = 128 * 1024, .sector = 4096};
    assert_int_equal(lg_datacheck_file_opts(fx->path, &o, &r, err, sizeof(err)), 0);
    assert_int_equal(r.zstd_bytes, s_expect_zstd(buf, 128 * 1024, 4096));
    assert_int_equal(r.zstd_bytes, 17 * 4096); /* 64 KiB + a few bytes, rounded up */
    assert_int_equal(r.lz4_bytes, 17 * 4096);
    free(buf);
}

/* A partial last record is skipped; limit reads whole records below it. */
static void test_partial_and_limit(void **state)
{
    s_fixture_t *fx = *state;
    const size_t unit = 4096;
    size_t n = 10 * unit + 1000;
    uint8_t *buf = malloc(n);
    assert_non_null(buf);
    s_random(buf, n, 9);
    s_write(fx->path, buf, n);

    lg_datacheck_t r;
    char err[256];
    assert_int_equal(lg_datacheck_file(fx->path, (uint32_t)unit, 0, &r, err, sizeof(err)), 0);
    assert_int_equal(r.records, 10);
    assert_int_equal(
        lg_datacheck_file(fx->path, (uint32_t)unit, 3 * unit + 100, &r, err, sizeof(err)), 0);
    assert_int_equal(r.records, 3);
    assert_int_equal(r.bytes, 3 * unit);
    free(buf);
}

/* Many distinct records make the digest set grow several times; duplicates still found. */
static void test_many_records(void **state)
{
    s_fixture_t *fx = *state;
    const size_t unit = 512, distinct = 5000, n = 3 * distinct;
    uint8_t *buf = malloc(unit * n);
    assert_non_null(buf);
    for (size_t i = 0; i < n; i++)
        s_random(buf + i * unit, unit, i % distinct);
    s_write(fx->path, buf, unit * n);

    lg_datacheck_t r;
    char err[256];
    assert_int_equal(lg_datacheck_file(fx->path, (uint32_t)unit, 0, &r, err, sizeof(err)), 0);
    assert_int_equal(r.records, n);
    assert_int_equal(r.unique, distinct);
    assert_true(r.dedup_ratio == 3.0);
    free(buf);
}

static void test_errors(void **state)
{
    s_fixture_t *fx = *state;
    lg_datacheck_t r;
    char err[256];
    const uint32_t bad[] = {0, 256, 1000, 4097, 32u << 20};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        assert_int_equal(lg_datacheck_file(fx->path, bad[i], 0, &r, err, sizeof(err)), LG_EPARSE);
        assert_non_null(strstr(err, "power of two"));
    }
    lg_datacheck_opts_t o = {.unit = 4096, .sector = 3000};
    assert_int_equal(lg_datacheck_file_opts(fx->path, &o, &r, err, sizeof(err)), LG_EPARSE);

    assert_int_equal(lg_datacheck_file("/nonexistent/lg/data", 4096, 0, &r, err, sizeof(err)),
                     -ENOENT);
    assert_non_null(strstr(err, "\"/nonexistent/lg/data\""));
    assert_int_equal(lg_datacheck_file(fx->dir, 4096, 0, &r, err, sizeof(err)), -EISDIR);

    /* An empty file: no records, ratios neutral or unbounded as documented. */
    s_write(fx->path, (const uint8_t *)"", 0);
    assert_int_equal(lg_datacheck_file(fx->path, 4096, 0, &r, err, sizeof(err)), 0);
    assert_int_equal(r.records, 0);
    assert_true(r.dedup_ratio == 1.0 && r.zstd_ratio == 0.0);
}

/* Bytes a text-mode read would change (CR LF pairs, a ^Z that ends text on Windows) are read as
 * they are; on Windows also while a handle like the agent's hold on its target is open. */
static void test_binary(void **state)
{
    s_fixture_t *fx = *state;
    const size_t unit = 4096, n = 8;
    uint8_t *buf = malloc(unit * n);
    assert_non_null(buf);
    for (size_t i = 0; i < unit * n; i++)
        buf[i] = "\r\n\x1a\n"[i % 4];
    s_write(fx->path, buf, unit * n);
#ifdef _WIN32
    HANDLE held = CreateFileA(fx->path, FILE_READ_ATTRIBUTES, FILE_SHARE_READ | FILE_SHARE_WRITE,
                              NULL, OPEN_EXISTING, FILE_FLAG_BACKUP_SEMANTICS, NULL);
    assert_true(held != INVALID_HANDLE_VALUE);
#endif

    lg_datacheck_t r;
    char err[256];
    int rc = lg_datacheck_file(fx->path, (uint32_t)unit, 0, &r, err, sizeof(err));
#ifdef _WIN32
    CloseHandle(held);
#endif
    assert_int_equal(rc, 0);
    assert_int_equal(r.records, n);
    assert_int_equal(r.unique, 1);
    assert_int_equal(r.zstd_bytes, n * s_expect_zstd(buf, unit, 0));
    assert_int_equal(r.lz4_bytes, n * s_expect_lz4(buf, unit, 0));
    free(buf);
}

/* The incremental form gives the same totals; destroy is NULL-safe and clears the pointer. */
static void test_scan_api(void **state)
{
    (void)state;
    lg_datacheck_scan_t *s = NULL;
    lg_datacheck_opts_t o = {.unit = 4096};
    assert_int_equal(lg_datacheck_scan_new(&o, &s), 0);
    uint8_t rec[4096];
    s_random(rec, sizeof(rec), 1);
    assert_int_equal(lg_datacheck_scan_add(s, rec), 0);
    assert_int_equal(lg_datacheck_scan_add(s, rec), 0);
    memset(rec, 0, sizeof(rec));
    assert_int_equal(lg_datacheck_scan_add(s, rec), 0);
    lg_datacheck_t r;
    lg_datacheck_scan_result(s, &r);
    assert_int_equal(r.records, 3);
    assert_int_equal(r.unique, 2);
    assert_int_equal(r.zero, 1);
    assert_int_equal(r.zstd_bytes, 2 * 4096);
    lg_datacheck_scan_destroy(&s);
    assert_null(s);
    lg_datacheck_scan_destroy(&s);
    lg_datacheck_scan_destroy(NULL);
    o.unit = 100;
    assert_int_equal(lg_datacheck_scan_new(&o, &s), LG_EPARSE);
    assert_null(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_duplicates, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown(test_half_zero, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown(test_all_random, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown(test_all_zero, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown(test_zero_and_random, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown(test_one_eighth_rule, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown(test_sector, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown(test_partial_and_limit, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown(test_many_records, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown(test_errors, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown(test_binary, s_setup, s_teardown),
        cmocka_unit_test(test_scan_api),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
