/* test_reduction: the reader of a reduction: probe's output on real btrfs-compsize 1.5 captures
 * (tests/unit/data/reduction/, made on a zstd-compressed btrfs on a loop device), on zfs get
 * -Hp output written by hand in its exact format (no ZFS here: see the folder's README), on the
 * plain logical_bytes=N physical_bytes=N form, and on what must be refused, with its message. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "lg_error.h"
#include "lg_reduction.h"
#include "lg_util.h"

static char *s_read(const char *name, size_t *len)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/reduction/%s", LG_TEST_DATA_DIR, name);
    char *buf = NULL;
    assert_int_equal(lg_read_file(path, 1u << 20, &buf, len), 0);
    return buf;
}

/* The file's figures. */
static void s_file_ok(const char *name, uint64_t logical, uint64_t physical)
{
    size_t len;
    char *t = s_read(name, &len), err[512] = "";
    uint64_t l = 0, p = 0;
    int rc = lg_reduction_parse(t, len, &l, &p, err, sizeof err);
    if (rc)
        fail_msg("%s: %s", name, err);
    assert_int_equal(l, logical);
    assert_int_equal(p, physical);
    free(t);
}

/* A refusal whose message holds each of the NULL-terminated strings that follow; *logical and
 * *physical untouched. */
static void s_refused_n(const char *text, size_t len, ...)
{
    char err[1024] = "";
    uint64_t l = 111, p = 222;
    int rc = lg_reduction_parse(text, len, &l, &p, err, sizeof err);
    if (rc != LG_EPARSE)
        fail_msg("accepted (%d, %llu / %llu): \"%.*s\"", rc, (unsigned long long)l,
                 (unsigned long long)p, (int)len, text);
    assert_int_equal(l, 111);
    assert_int_equal(p, 222);
    va_list ap;
    va_start(ap, len);
    for (const char *want; (want = va_arg(ap, const char *));)
        if (!strstr(err, want))
            fail_msg("the message \"%s\" lacks \"%s\"", err, want);
    va_end(ap);
    /* never a raw control character (a log line of its own, a terminal's escape) */
    for (const char *e = err; *e; e++)
        if ((unsigned char)*e < 0x20 || *e == 0x7f)
            fail_msg("a control character in \"%s\"", err);
}
#define s_refused(text, ...) s_refused_n(text, strlen(text), __VA_ARGS__, (const char *)NULL)

static void s_file_refused(const char *name, const char *want1, const char *want2)
{
    size_t len;
    char *t = s_read(name, &len);
    s_refused_n(t, len, want1, want2, (const char *)NULL);
    free(t);
}

static void s_ok(const char *text, uint64_t logical, uint64_t physical)
{
    char err[512] = "";
    uint64_t l = 0, p = 0;
    int rc = lg_reduction_parse(text, strlen(text), &l, &p, err, sizeof err);
    if (rc)
        fail_msg("\"%s\": %s", text, err);
    assert_int_equal(l, logical);
    assert_int_equal(p, physical);
}

/* ---- compsize -b ---- */

static void test_compsize_real(void **state)
{
    (void)state;
    /* text (zstd 4%), random (none) and zeros (zstd) and an inline file */
    s_file_ok("compsize_b_mixed.txt", 28020745, 9359369);
    /* with a reflink copy (Referenced 35069961 > Uncompressed) and a fallocated file: the
     * TOTAL row's Uncompressed and Disk Usage still */
    s_file_ok("compsize_b_reflink_prealloc.txt", 32215049, 13553673);
    s_file_ok("compsize_b_zeros.txt", 16777216, 524288); /* no "none" row */
    s_file_ok("compsize_b_inline.txt", 9, 9);            /* no regular extent at all */
    s_file_ok("compsize_b_two_paths.txt", 11243520, 8835072);
}

static void test_compsize_refused(void **state)
{
    (void)state;
    /* compsize without -b: human sizes, no bytes */
    s_file_refused("compsize_human.txt",
                   "sizes are not in bytes (Disk Usage \"8.9M\"): run compsize -b",
                   "the output began with \"Processed 4 files, 151 regular extents");
    s_file_refused("compsize_human_small.txt", "run compsize -b", "\"9B\"");
    const char *hdr = "Processed 1 file, 1 regular extents (1 refs), 0 inline.\n"
                      "Type       Perc     Disk Usage   Uncompressed Referenced  \n";
    char t[1024];
    snprintf(t, sizeof t, "%s", hdr);
    s_refused(t, "no TOTAL row", "expected the output of \"compsize -b PATH\"");
    snprintf(t, sizeof t, "%sTOTAL      100%%     0            4096         4096\n", hdr);
    s_refused(t, "TOTAL's Disk Usage is 0");
    snprintf(t, sizeof t, "%sTOTAL      100%%     4096         4096\n", hdr);
    s_refused(t, "the TOTAL row has no Referenced");
    snprintf(t, sizeof t, "%sTOTAL      100%%     4096         4096   4096  7\n", hdr);
    s_refused(t, "more than 5 columns");
    snprintf(t, sizeof t, "%sTOTAL      100%%     -4096        4096   4096\n", hdr);
    s_refused(t, "Disk Usage \"-4096\" is negative");
    snprintf(t, sizeof t, "%sTOTAL 100%% 4096 18446744073709551616 1\n", hdr);
    s_refused(t, "Uncompressed \"18446744073709551616\" is too large");
    snprintf(t, sizeof t, "%sTOTAL 100%% 4096 8192 8192\nTOTAL 100%% 4096 8192 8192\n", hdr);
    s_refused(t, "a second TOTAL row");
    s_refused("Processed 1 file, 1 regular extents (1 refs), 0 inline.\nTOTAL 100% 1 1 1\n",
              "no \"Type Perc Disk Usage Uncompressed Referenced\" header");
    /* a row before the header is not the table's */
    s_refused("TOTAL 100% 1 1 1\nType Perc Disk Usage Uncompressed Referenced\n", "no TOTAL row");
    /* the largest figure there is */
    snprintf(t, sizeof t, "%sTOTAL 100%% 9223372036854775807 9223372036854775807 1\n", hdr);
    s_ok(t, INT64_MAX, INT64_MAX);
    snprintf(t, sizeof t, "%sTOTAL 100%% 9223372036854775808 1 1\n", hdr);
    s_refused(t, "Disk Usage \"9223372036854775808\" is too large (more than 2^63 - 1)");
}

/* ---- zfs get -Hp ---- */

static void test_zfs(void **state)
{
    (void)state;
    s_file_ok("zfs_logicalused_used.txt", 68719476736ull, 36169986048ull);
    s_file_ok("zfs_logicalreferenced.txt", 68718428160ull, 36168937472ull);
    s_file_ok("zfs_with_compressratio.txt", 68719476736ull, 36169986048ull);
    /* OpenZFS allows spaces in names: that is why -H's tabs matter; either order */
    s_file_ok("zfs_space_in_name.txt", 68719476736ull, 36169986048ull);
    s_ok("tank\tused\t4096\t-\ntank\tlogicalused\t0\t-\n", 0, 4096);       /* empty: ratio 0 */
    s_ok("tank/lg\tlogicalused\t100\t-\r\ntank/lg\tused\t50\t-", 100, 50); /* CRLF, no \n */
}

static void test_zfs_refused(void **state)
{
    (void)state;
    s_file_refused("zfs_no_H.txt", "line 1: a header line: run zfs get with -H",
                   "began with \"NAME     PROPERTY");
    s_file_refused("zfs_no_p.txt",
                   "line 1: logicalused \"64G\" is not in bytes: run zfs get with -p",
                   "expected the output of \"zfs get -Hp logicalused,used DATASET\"");
    s_refused("a\tlogicalused\t10\t-\nb\tused\t5\t-\n",
              "line 2: a second dataset \"b\" after \"a\": name one dataset");
    s_refused("a\tlogicalused\t10\t-\na\tused\t5\t-\na\tlogicalreferenced\t10\t-\n"
              "a\treferenced\t5\t-\n",
              "both logicalused,used and logicalreferenced,referenced");
    s_refused("a\tlogicalused\t10\t-\n", "no used line");
    s_refused("a\tused\t10\t-\n", "no logicalused line");
    s_refused("a\treferenced\t10\t-\n", "no logicalreferenced line");
    s_refused("a\tlogicalused\t10\t-\na\treferenced\t5\t-\n", "no used line");
    s_refused("a\tlogicalused\t-\t-\na\tused\t5\t-\n",
              "line 1: logicalused of \"a\" is \"-\" (not available)");
    s_refused("a\tlogicalused\t10\t-\na\tused\t0\t-\n", "used is 0");
    s_refused("a\tlogicalused\t10\t-\na\tused\t-3\t-\n", "line 2: used \"-3\" is negative");
    s_refused("a\tlogicalused\t99999999999999999999\t-\na\tused\t3\t-\n",
              "logicalused \"99999999999999999999\" is too large");
    s_refused("a\tlogicalused\t10\t-\na\tlogicalused\t10\t-\n",
              "line 2: logicalused is given twice");
    s_refused("a\tlogicalused\t10\na\tused\t5\t-\n", "line 1: not NAME<TAB>PROPERTY<TAB>VALUE");
    s_refused("a\tlogicalused\t10\t-\textra\n", "line 1: not NAME<TAB>PROPERTY");
    s_refused("a\tlogicalused\t1e3\t-\na\tused\t5\t-\n", "is not a whole number of bytes");
}

/* ---- logical_bytes=N physical_bytes=N ---- */

static void test_kv(void **state)
{
    (void)state;
    s_file_ok("kv.txt", 68719476736ull, 36169986048ull);
    s_ok("physical_bytes=7\nlogical_bytes=13", 13, 7);
    s_ok("dataset=tank/lg\tlogical_bytes=13  physical_bytes=7 ratio=1.857\r\n", 13, 7);
    s_ok("logical_bytes=0 physical_bytes=1", 0, 1);
    s_ok("logical_bytes=9223372036854775807 physical_bytes=9223372036854775807", INT64_MAX,
         INT64_MAX);
    /* len is what counts, not a NUL: the text is cut before "77" becomes "7" */
    const char *t = "logical_bytes=5 physical_bytes=77";
    uint64_t l = 0, p = 0;
    char err[256];
    assert_int_equal(lg_reduction_parse(t, strlen(t) - 1, &l, &p, err, sizeof err), 0);
    assert_int_equal(p, 7);
}

static void test_kv_refused(void **state)
{
    (void)state;
    s_refused("logical_bytes=5", "no physical_bytes",
              "expected \"logical_bytes=N physical_bytes=N\"");
    s_refused("physical_bytes=5", "no logical_bytes");
    s_refused("logical_bytes=5 physical_bytes=0", "physical_bytes is 0");
    s_refused("logical_bytes=5 physical_bytes=", "physical_bytes \"\" is empty");
    s_refused("logical_bytes=-5 physical_bytes=3", "logical_bytes \"-5\" is negative");
    s_refused("logical_bytes=5 physical_bytes=18446744073709551616",
              "physical_bytes \"18446744073709551616\" is too large");
    s_refused("logical_bytes=9223372036854775808 physical_bytes=1",
              "logical_bytes \"9223372036854775808\" is too large (more than 2^63 - 1)");
    s_refused("logical_bytes=5 physical_bytes=3 logical_bytes=6", "logical_bytes is given twice");
    s_refused("logical_bytes=5 physical_bytes=3 ok", "\"ok\" is not KEY=VALUE");
    s_refused("logical_bytes=5.5 physical_bytes=3", "\"5.5\" is not a whole number of bytes");
    s_refused("logical_bytes=1e+19 physical_bytes=3", "\"1e+19\" is not a whole number");
    s_refused("logical_bytes=+5 physical_bytes=3", "\"+5\" is not a whole number");
    s_refused("logical_bytes=0x10 physical_bytes=3", "\"0x10\" is not a whole number");
    s_refused("logical_bytes=5 =3 physical_bytes=3", "\"=3\" is not KEY=VALUE");
}

/* ---- anything else, and the message ---- */

static void test_other_refused(void **state)
{
    (void)state;
    s_refused("", "the probe printed nothing");
    s_refused(" \n\t\r\n", "the probe printed nothing");
    s_refused("cannot open 'tank/x': dataset does not exist\n", "not one of the forms lg reads",
              "expected \"logical_bytes=N physical_bytes=N\", the output of \"zfs get -Hp",
              "\"compsize -b PATH\"",
              "the output began with \"cannot open 'tank/x': dataset does not exist\\x0a\"");
    char err[512];
    uint64_t l = 1, p = 2;
    assert_int_equal(lg_reduction_parse(NULL, 0, &l, &p, err, sizeof err), LG_EPARSE);
    assert_int_equal(lg_reduction_parse(NULL, 0, &l, &p, NULL, 0), LG_EPARSE);
    assert_int_equal(lg_reduction_parse("x", 1, &l, &p, NULL, 0), LG_EPARSE);
}

static void test_message_escaped(void **state)
{
    (void)state;
    /* a terminal escape, a NUL, a byte that is not UTF-8, a C1 control, and UTF-8 kept */
    static const char t[] = "\x1b[31mred\x00\xff\xc2\x9b ok \xc3\xa9t\xc3\xa9";
    s_refused_n(t, sizeof t - 1,
                "began with \"\\x1b[31mred\\x00\\xff\\u009b ok \xc3\xa9t\xc3\xa9\"",
                (const char *)NULL);
    /* a long output is cut, marked, and never inside a character */
    char longt[400];
    memset(longt, 'a', sizeof longt);
    memcpy(longt + 59, "\xc3\xa9", 2); /* the 60-byte cut would fall inside it */
    char err[1024];
    uint64_t l, p;
    assert_int_equal(lg_reduction_parse(longt, sizeof longt, &l, &p, err, sizeof err), LG_EPARSE);
    const char *b = strstr(err, "began with \"");
    assert_non_null(b);
    b += strlen("began with \"");
    assert_int_equal(strspn(b, "a"), 59);
    assert_string_equal(b + 59, "...\"");
    /* a short buffer gets a cut, terminated message */
    char small[24];
    memset(small, 'x', sizeof small);
    assert_int_equal(lg_reduction_parse("nonsense", 8, &l, &p, small, sizeof small), LG_EPARSE);
    assert_true(memchr(small, 0, sizeof small) != NULL);
    assert_int_equal(strncmp(small, "not one of the forms", 20), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_compsize_real),
        cmocka_unit_test(test_compsize_refused),
        cmocka_unit_test(test_zfs),
        cmocka_unit_test(test_zfs_refused),
        cmocka_unit_test(test_kv),
        cmocka_unit_test(test_kv_refused),
        cmocka_unit_test(test_other_refused),
        cmocka_unit_test(test_message_escaped),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
