/* test_esc: text from outside made what PostgreSQL's text takes (core/lg_esc.c, lg_utf8_*):
 * valid UTF-8 kept byte for byte, each ill-formed part and NUL replaced by U+FFFD and counted,
 * cuts on character boundaries only; checked case by case at Unicode's table 3-7 edges and
 * against a reference decoder over every 1- and 2-byte input and many random longer ones. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "lg_esc.h"

#define R "\xef\xbf\xbd" /* U+FFFD */

/* Clean in (len bytes) into a buffer of outmax; check the text, the count and the cut. */
static void s_check(const char *in, size_t len, size_t outmax, const char *want, size_t replaced,
                    int cut)
{
    char out[1024];
    size_t rep = 99;
    int c = 99;
    assert_true(outmax <= sizeof out);
    size_t n = lg_utf8_clean(in, len, out, outmax, &rep, &c);
    assert_string_equal(out, want);
    assert_int_equal(n, strlen(want));
    assert_int_equal(rep, replaced);
    assert_int_equal(c, cut);
    assert_true(lg_utf8_valid(out, n));
}

#define CHECK(in, want, rep) s_check(in, sizeof in - 1, 1024, want, rep, 0)

static void t_valid_kept(void **st)
{
    (void)st;
    CHECK("", "", 0);
    CHECK("plain ascii\t\n", "plain ascii\t\n", 0);
    CHECK("\xc3\xa9t\xc3\xa9", "\xc3\xa9t\xc3\xa9", 0); /* été */
    CHECK("\xe2\x82\xac 5", "\xe2\x82\xac 5", 0);       /* € */
    CHECK("\xf0\x9f\x98\x80!", "\xf0\x9f\x98\x80!", 0); /* U+1F600 */
    /* the edges of table 3-7 that are characters */
    CHECK("\x7f", "\x7f", 0);                                         /* U+007F */
    CHECK("\xc2\x80", "\xc2\x80", 0);                                 /* U+0080 */
    CHECK("\xdf\xbf", "\xdf\xbf", 0);                                 /* U+07FF */
    CHECK("\xe0\xa0\x80", "\xe0\xa0\x80", 0);                         /* U+0800 */
    CHECK("\xed\x9f\xbf", "\xed\x9f\xbf", 0);                         /* U+D7FF */
    CHECK("\xee\x80\x80", "\xee\x80\x80", 0);                         /* U+E000 */
    CHECK("\xef\xbf\xbe\xef\xbf\xbf", "\xef\xbf\xbe\xef\xbf\xbf", 0); /* U+FFFE, U+FFFF */
    CHECK("\xf0\x90\x80\x80", "\xf0\x90\x80\x80", 0);                 /* U+10000 */
    CHECK("\xf4\x8f\xbf\xbf", "\xf4\x8f\xbf\xbf", 0);                 /* U+10FFFF */
    CHECK(R, R, 0);
}

static void t_invalid_replaced(void **st)
{
    (void)st;
    CHECK("a\xff"
          "b",
          "a" R "b", 1);
    CHECK("\xfe\xff", R R, 2);
    CHECK("\x80", R, 1); /* a stray continuation */
    CHECK("\xbf\xbf", R R, 2);
    CHECK("a\0b", "a" R "b", 1);  /* NUL: text cannot hold one */
    CHECK("\xc3", R, 1);          /* a lead at the end */
    CHECK("\xc3x", R "x", 1);     /* ... or before ASCII */
    CHECK("\xe2\x82x", R "x", 2); /* a maximal part: one U+FFFD */
    CHECK("\xe2\x82", R, 2);
    CHECK("\xf0\x9f\x98", R, 3);
    CHECK("\xf0\x9f\x98\xc3\xa9", R "\xc3\xa9", 3); /* then a character */
    CHECK("\xc0\xaf", R R, 2);                      /* overlong '/' */
    CHECK("\xc1\xbf", R R, 2);
    CHECK("\xe0\x80\xaf", R R R, 3); /* overlong, 3 bytes */
    CHECK("\xe0\x9f\xbf", R R R, 3);
    CHECK("\xf0\x8f\xbf\xbf", R R R R, 4); /* overlong, 4 bytes */
    CHECK("\xed\xa0\x80", R R R, 3);       /* a surrogate (U+D800) */
    CHECK("\xed\xbf\xbf", R R R, 3);       /* U+DFFF */
    CHECK("\xf4\x90\x80\x80", R R R R, 4); /* U+110000 */
    CHECK("\xf5\x80\x80\x80", R R R R, 4);
    CHECK("\xf8\x88\x80\x80\x80", R R R R R, 5); /* 5-byte forms are gone */
    CHECK("\xc3\xa9\xff\xc3\xa9", "\xc3\xa9" R "\xc3\xa9", 1);
}

static void t_cut_on_boundary(void **st)
{
    (void)st;
    char e100[201], want[201];
    for (int i = 0; i < 100; i++)
        memcpy(e100 + 2 * i, "\xc3\xa9", 2);
    e100[200] = 0;
    /* 183 bytes of room (the telemetry key part): 91 characters, never half of the 92nd */
    memcpy(want, e100, 182);
    want[182] = 0;
    s_check(e100, 200, 184, want, 0, 1);
    s_check(e100, 200, 183, want, 0, 1);
    s_check(e100, 200, 201, e100, 0, 0); /* it just fits */
    s_check(e100, 200, 200, e100 + 2, 0, 1);
    s_check("ab\xf0\x9f\x98\x80", 6, 6, "ab", 0, 1); /* a 4-byte character that does not fit */
    s_check("ab\xf0\x9f\x98\x80", 6, 7, "ab\xf0\x9f\x98\x80", 0, 0);
    s_check("ab\xff", 3, 5, "ab", 0, 1); /* nor its U+FFFD */
    s_check("ab\xff", 3, 6, "ab" R, 1, 0);
    s_check("abc", 3, 1, "", 0, 1);
    /* inlen bounds the input: no NUL needed, none read past */
    char nonul[4] = {'a', '\xc3', '\xa9', 'z'};
    s_check(nonul, 3, 64, "a\xc3\xa9", 0, 0);
    s_check(nonul, 2, 64, "a" R, 1, 0); /* the character ends outside what was given */
    /* no room at all: nothing written, and said to be cut */
    char none[1] = {'x'};
    size_t rep;
    int cut;
    assert_int_equal(lg_utf8_clean("ab", 2, none, 0, &rep, &cut), 0);
    assert_int_equal(none[0], 'x');
    assert_int_equal(cut, 1);
    /* NULL counters are allowed; NULL input is empty */
    char out[8];
    assert_int_equal(lg_utf8_clean("a\xff", 2, out, sizeof out, NULL, NULL), 4);
    assert_int_equal(lg_utf8_clean(NULL, 5, out, sizeof out, &rep, &cut), 0);
    assert_string_equal(out, "");
    assert_int_equal(cut, 0);
}

static void t_dup(void **st)
{
    (void)st;
    size_t rep;
    int cut;
    char *s = lg_utf8_clean_dup("\xff\xff\xff\xff", 4, 0, &rep, &cut);
    assert_non_null(s);
    assert_string_equal(s, R R R R); /* room for every byte tripled */
    assert_int_equal(rep, 4);
    assert_int_equal(cut, 0);
    free(s);
    s = lg_utf8_clean_dup("\xc3\xa9\xc3\xa9\xc3\xa9", 6, 5, &rep, &cut);
    assert_string_equal(s, "\xc3\xa9\xc3\xa9");
    assert_int_equal(cut, 1);
    free(s);
    s = lg_utf8_clean_dup("", 0, 0, &rep, &cut);
    assert_string_equal(s, "");
    free(s);
}

static void t_cut(void **st)
{
    (void)st;
    char s[64];
    snprintf(s, sizeof s, "%s", "a\xc3\xa9");
    assert_int_equal(lg_utf8_cut(s, 2), 1);
    assert_string_equal(s, "a");
    snprintf(s, sizeof s, "%s", "a\xc3\xa9");
    assert_int_equal(lg_utf8_cut(s, 3), 3);
    snprintf(s, sizeof s, "%s", "abc");
    assert_int_equal(lg_utf8_cut(s, 10), 3);
    /* what snprintf leaves: an incomplete character at the end */
    snprintf(s, sizeof s, "%s", "ab\xe2\x82");
    assert_int_equal(lg_utf8_cut(s, sizeof s), 2);
    snprintf(s, sizeof s, "%s", "ab\xf0\x9f\x98\x80");
    assert_int_equal(lg_utf8_cut(s, 5), 2);
    snprintf(s, sizeof s, "%s", "ab\xf0\x9f\x98\x80");
    assert_int_equal(lg_utf8_cut(s, 6), 6);
    snprintf(s, sizeof s, "%s", "\xc3\xa9");
    assert_int_equal(lg_utf8_cut(s, 1), 0);
    assert_int_equal(lg_utf8_cut(s, 0), 0);
    /* a snprintf into a short buffer, then cut: valid */
    char b[8];
    snprintf(b, sizeof b, "%s", "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9");
    assert_int_equal(lg_utf8_cut(b, sizeof b), 6);
    assert_true(lg_utf8_valid(b, strlen(b)));
}

static void t_tail_skip(void **st)
{
    (void)st;
    assert_int_equal(lg_utf8_tail_skip("\xa9x", 2), 1);
    assert_int_equal(lg_utf8_tail_skip("\x9f\x98\x80!", 4), 3);
    assert_int_equal(lg_utf8_tail_skip("\x80\x80\x80\x80", 4), 3); /* at most a character's */
    assert_int_equal(lg_utf8_tail_skip("\xc3\xa9", 2), 0);
    assert_int_equal(lg_utf8_tail_skip("\xa9", 0), 0);
}

static void t_note(void **st)
{
    (void)st;
    char b[128];
    assert_string_equal(lg_utf8_note(b, sizeof b, 0, 0, 10), "");
    assert_string_equal(lg_utf8_note(b, sizeof b, 1, 0, 10), "1 invalid byte replaced by U+FFFD");
    assert_string_equal(lg_utf8_note(b, sizeof b, 3, 0, 10), "3 invalid bytes replaced by U+FFFD");
    assert_string_equal(lg_utf8_note(b, sizeof b, 0, 1, 183),
                        "cut on a character boundary at 183 bytes");
    assert_string_equal(lg_utf8_note(b, sizeof b, 2, 1, 183),
                        "2 invalid bytes replaced by U+FFFD and cut on a character boundary at "
                        "183 bytes");
}

/* ---- against a reference ---- */

/* Is u (n bytes) well-formed UTF-8 without NUL, decoded the long way? */
static int s_ref_valid(const unsigned char *u, size_t n)
{
    for (size_t i = 0; i < n;) {
        unsigned c = u[i];
        size_t len = c < 0x80             ? 1
                     : (c & 0xe0) == 0xc0 ? 2
                     : (c & 0xf0) == 0xe0 ? 3
                     : (c & 0xf8) == 0xf0 ? 4
                                          : 0;
        if (!len || c == 0 || i + len > n)
            return 0;
        unsigned long cp = len == 1 ? c : c & (0xffu >> (len + 1));
        for (size_t k = 1; k < len; k++) {
            if ((u[i + k] & 0xc0) != 0x80)
                return 0;
            cp = cp << 6 | (u[i + k] & 0x3f);
        }
        static const unsigned long min[] = {0, 0, 0x80, 0x800, 0x10000};
        if (cp < min[len] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
            return 0;
        i += len;
    }
    return 1;
}

/* One input: the output is valid; a valid input comes out as it went in; cleaning again
 * changes nothing; a cut output is a prefix of the uncut one, on its boundaries. */
static void s_prop(const unsigned char *in, size_t len)
{
    char out[64], again[64], small[8];
    size_t rep, rep2;
    int cut, cut2;
    size_t n = lg_utf8_clean((const char *)in, len, out, sizeof out, &rep, &cut);
    assert_int_equal(cut, 0);
    assert_true(s_ref_valid((const unsigned char *)out, n));
    assert_int_equal(lg_utf8_valid((const char *)in, len), s_ref_valid(in, len));
    if (s_ref_valid(in, len)) {
        assert_int_equal(n, len);
        assert_memory_equal(out, in, len);
        assert_int_equal(rep, 0);
    } else {
        assert_true(rep > 0);
    }
    assert_int_equal(lg_utf8_clean(out, n, again, sizeof again, &rep2, &cut2), n);
    assert_string_equal(again, out);
    assert_int_equal(rep2, 0);
    size_t m = lg_utf8_clean((const char *)in, len, small, sizeof small, &rep2, &cut2);
    assert_true(m <= n && m < sizeof small && !memcmp(small, out, m));
    assert_int_equal(cut2, m < n);
    assert_true(s_ref_valid((const unsigned char *)small, m));
    if (m < n) /* it stopped where a character starts */
        assert_true(((unsigned char)out[m] & 0xc0) != 0x80);
}

static void t_reference(void **st)
{
    (void)st;
    unsigned char b[12];
    for (unsigned i = 0; i < 256; i++) {
        b[0] = (unsigned char)i;
        s_prop(b, 1);
        for (unsigned j = 0; j < 256; j++) {
            b[1] = (unsigned char)j;
            s_prop(b, 2);
        }
    }
    /* longer ones, biased to bytes that make UTF-8 (and break it) */
    static const unsigned char pick[] = {'a',  0x00, 0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf,
                                         0xc0, 0xc1, 0xc2, 0xdf, 0xe0, 0xe1, 0xec, 0xed, 0xee,
                                         0xef, 0xf0, 0xf1, 0xf3, 0xf4, 0xf5, 0xff};
    unsigned long x = 88172645463325252ul;
    for (int k = 0; k < 200000; k++) {
        size_t len = 3 + (size_t)(k % 10);
        for (size_t i = 0; i < len; i++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            b[i] = x & 1 ? pick[(x >> 1) % sizeof pick] : (unsigned char)(x >> 8);
        }
        s_prop(b, len);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(t_valid_kept),
        cmocka_unit_test(t_invalid_replaced),
        cmocka_unit_test(t_cut_on_boundary),
        cmocka_unit_test(t_dup),
        cmocka_unit_test(t_cut),
        cmocka_unit_test(t_tail_skip),
        cmocka_unit_test(t_note),
        cmocka_unit_test(t_reference),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
