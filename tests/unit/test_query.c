/* test_query.c: db/query.c, a query file as lg-export's charts and lgctl's report are written:
 * its directive header (values, flags, prose, line numbers), its SQL (the header's lines kept
 * blank, :campaign bound, trailing white space gone), its parts kept or dropped, its mistakes
 * named with their line, and the query files compiled into a program. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "query.h"

static void test_header(void **state)
{
    (void)state;
    lg_query_t q;
    char err[256] = "";
    const char *text = "-- chart: hbar\n"
                       "-- ----\n"
                       "--\n"
                       "-- what this shows, in words\n"
                       "\n"
                       "  -- lower-is-better\n"
                       "-- title:  IOPS: 4K   \n"
                       "SELECT 1 AS x,   \n"
                       "  :campaign AS c -- :campaign\n";
    assert_int_equal(lg_query_parse("/q/01_iops.sql", text, &q, err, sizeof err), 0);
    assert_string_equal(q.name, "01_iops");
    assert_int_equal(q.ndirs, 3);
    assert_string_equal(q.dirs[0].key, "chart");
    assert_string_equal(q.dirs[0].value, "hbar");
    assert_int_equal(q.dirs[0].line, 1);
    assert_null(q.dirs[1].value); /* a flag */
    assert_int_equal(q.dirs[1].line, 6);
    assert_string_equal(lg_query_get(&q, "title"), "IOPS: 4K"); /* the first colon splits */
    assert_string_equal(lg_query_get(&q, "lower-is-better"), "");
    assert_null(lg_query_get(&q, "what this shows, in words"));
    assert_int_equal(q.lines, 9);
    /* the header's 7 lines blank, the SQL's trailing spaces gone, :campaign bound outside
     * comments */
    assert_string_equal(q.sql, "\n\n\n\n\n\n\nSELECT 1 AS x,\n  ($1::text) AS c -- :campaign\n");
    assert_true(q.uses_campaign);
    assert_false(lg_query_blank(&q));
    lg_query_clear(&q);
    assert_null(q.sql);
    lg_query_clear(&q); /* cleared: nothing */
    assert_int_equal(lg_query_parse("x.sql", "-- a: b\n\n", &q, err, sizeof err), 0);
    assert_true(lg_query_blank(&q)); /* its reader says what it lacks */
    lg_query_clear(&q);
}

static void test_parts(void **state)
{
    (void)state;
    lg_query_t q;
    char err[256] = "";
    const char *text = "-- title: runs\n"
                       "SELECT a\n"
                       "--+ apps\n"
                       "  , app\n"
                       "--+\n"
                       "FROM t\n"
                       "--+ more\n"
                       "JOIN u\n"
                       "--+\n";
    assert_int_equal(lg_query_parse("runs.sql", text, &q, err, sizeof err), 0);
    char *none = lg_query_sql(&q, NULL);
    assert_string_equal(none, "\nSELECT a\n\n\n\nFROM t\n\n\n\n");
    const char *const apps[] = {"apps", NULL};
    char *some = lg_query_sql(&q, apps);
    assert_string_equal(some, "\nSELECT a\n\n  , app\n\nFROM t\n\n\n\n");
    const char *const both[] = {"more", "apps", NULL};
    char *all = lg_query_sql(&q, both);
    assert_string_equal(all, "\nSELECT a\n\n  , app\n\nFROM t\n\nJOIN u\n\n");
    free(none);
    free(some);
    free(all);
    lg_query_clear(&q);
    /* a part not ended, one inside another, an end of none: named with their lines */
    const struct {
        const char *text, *want;
    } bad[] = {
        {"SELECT 1\n--+ a\nx\n", "p.sql:2: the part is not ended (a line \"--+\")"},
        {"SELECT 1\n--+ a\n--+ b\n--+\n", "p.sql:3: a part inside the part of line 2"},
        {"SELECT 1\n--+\n", "p.sql:2: \"--+\" ends no part"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(lg_query_parse("p.sql", bad[i].text, &q, err, sizeof err), -1);
        assert_string_equal(err, bad[i].want);
        assert_null(q.sql);
    }
}

static void test_compiled_in(void **state)
{
    (void)state;
    static const lg_query_src_t set[] = {{"one", "-- title: one\nSELECT 1\n"},
                                         {"blank", "-- title: none\n"},
                                         {"broken", "SELECT 1\n--+ a\n"},
                                         {NULL, NULL}};
    lg_query_t q;
    char err[256];
    assert_int_equal(lg_query_load(set, "one", &q, err, sizeof err), 0);
    assert_string_equal(lg_query_get(&q, "title"), "one");
    lg_query_clear(&q);
    assert_int_equal(lg_query_load(set, "blank", &q, err, sizeof err), -1);
    assert_string_equal(err, "the query blank compiled into this program is broken: blank.sql: "
                             "no SQL after the directives");
    assert_int_equal(lg_query_load(set, "broken", &q, err, sizeof err), -1);
    assert_non_null(strstr(err, "broken.sql:2: the part is not ended"));
    assert_int_equal(lg_query_load(set, "nope", &q, err, sizeof err), -1);
    assert_string_equal(err, "no query nope is compiled into this program");
    assert_int_equal(lg_query_read("/nonexistent/q.sql", &q, err, sizeof err), -1);
    assert_non_null(strstr(err, "/nonexistent/q.sql: could not open: "));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_header),
        cmocka_unit_test(test_parts),
        cmocka_unit_test(test_compiled_in),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
