/* test_compare.c: the CSV reader of "lgctl import results": units normalised to the metric's
 * own, quoting and line endings as spreadsheets write them, and every bad row reported with the
 * line it starts on (a quoted field may span lines); and lgctl's tables, whose cells are escaped
 * and, in CSV, guarded against spreadsheet formulas. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import_results.h"
#include "lg_error.h"
#include "render.h"
#include "report_int.h"

static json_t *s_parse_ok(const char *csv, size_t want_rows)
{
    char *rows = NULL, err[4096] = "";
    size_t n = 0;
    int rc = lg_results_csv_parse("t.csv", csv, strlen(csv), &rows, &n, err, sizeof err);
    if (rc)
        fail_msg("parse failed: %s", err);
    assert_int_equal(n, want_rows);
    json_t *j = json_loads(rows, 0, NULL);
    free(rows);
    assert_non_null(j);
    return j;
}

static double s_value(json_t *rows, size_t i)
{
    return json_real_value(json_object_get(json_array_get(rows, i), "value"));
}

static void test_units(void **state)
{
    (void)state;
    json_t *r = s_parse_ok("\xef\xbb\xbfprofile,direction,metric,value,unit,build\r\n"
                           "4k,read,iops,1.5,kIOPS,a\r\n"
                           "4k,read,mbps,2,GB/s,a\r\n"
                           "4k,read,mbps,1,MiB/s,a\r\n"
                           "4k,read,mbps,500,KB/s,a\r\n"
                           "4k,read,lat_avg_ms,250,us,a\r\n"
                           "4k,read,p99_ms,2000000,ns,a\r\n"
                           "4k,read,lat_max_ms,0.5,s,a\r\n",
                           7);
    const double want[] = {1500, 2000, 1.048576, 0.5, 0.25, 2, 500};
    for (size_t i = 0; i < 7; i++)
        assert_true(s_value(r, i) > want[i] * (1 - 1e-12) && s_value(r, i) < want[i] * (1 + 1e-12));
    json_decref(r);
}

static void test_quotes_labels_and_run_fields(void **state)
{
    (void)state;
    json_t *r = s_parse_ok("Profile,Direction,Metric,Value,Unit,Protocol,Threads,QD,pool,nic\n"
                           "\"4k, random\",write,iops,100,IOPS,smb,16,8,\"raid\"\"z\"\"1\",\n"
                           "\n"
                           "8k,mixed,iops,7,iops,,,,mirror,10g\n",
                           2);
    json_t *a = json_array_get(r, 0), *b = json_array_get(r, 1);
    assert_string_equal(json_string_value(json_object_get(a, "profile")), "4k, random");
    assert_string_equal(json_string_value(json_object_get(json_object_get(a, "labels"), "pool")),
                        "raid\"z\"1");
    assert_null(json_object_get(json_object_get(a, "labels"), "nic")); /* empty: no label */
    assert_int_equal(json_integer_value(json_object_get(a, "threads")), 16);
    assert_int_equal(json_integer_value(json_object_get(a, "qd")), 8);
    assert_string_equal(json_string_value(json_object_get(a, "protocol")), "smb");
    assert_true(json_is_null(json_object_get(b, "protocol")));
    assert_true(json_is_null(json_object_get(b, "threads")));
    assert_int_equal(json_integer_value(json_object_get(b, "line")), 4);
    json_decref(r);
}

static void test_bad_rows_name_their_lines(void **state)
{
    (void)state;
    const char *csv = "profile,direction,metric,value,unit,note\n"
                      "4k,read,iops,1,IOPS,\"two\nlines\"\n" /* lines 2-3: good */
                      "4k,read,iops,-1,IOPS,x\n"             /* line 4 */
                      "4k,read,lat_avg_ms,1,MB/s,x\n"        /* line 5 */
                      "4k,read,iops,1,IOPS,x\n"              /* line 6: good */
                      "4k,read,iops,1,IOPS\n";               /* line 7 */
    char *rows = NULL, err[4096] = "";
    size_t n = 0;
    assert_int_equal(lg_results_csv_parse("t.csv", csv, strlen(csv), &rows, &n, err, sizeof err),
                     LG_EPARSE);
    assert_null(rows);
    assert_non_null(strstr(err, "t.csv:4: value \"-1\""));
    assert_non_null(strstr(err, "t.csv:5: unit \"MB/s\" does not fit metric \"lat_avg_ms\""));
    assert_non_null(strstr(err, "t.csv:7: 5 fields, the header has 6"));
    assert_null(strstr(err, "t.csv:2:"));
    assert_null(strstr(err, "t.csv:6:"));
}

static void test_header_errors(void **state)
{
    (void)state;
    char *rows = NULL, err[4096] = "";
    size_t n = 0;
    const char *a = "profile,direction,metric,value\n4k,read,iops,1\n";
    assert_int_equal(lg_results_csv_parse("t.csv", a, strlen(a), &rows, &n, err, sizeof err),
                     LG_EPARSE);
    assert_non_null(strstr(err, "t.csv:1: the header has no \"unit\" column"));
    const char *b = "profile,direction,metric,value,unit,build,build\n";
    assert_int_equal(lg_results_csv_parse("t.csv", b, strlen(b), &rows, &n, err, sizeof err),
                     LG_EPARSE);
    assert_non_null(strstr(err, "column \"build\" appears twice"));
    assert_int_equal(lg_results_csv_parse("t.csv", "", 0, &rows, &n, err, sizeof err), LG_EPARSE);
    assert_non_null(strstr(err, "empty"));
}

/* lgctl's tables (compare, report, plan, rank) print names and labels from the database, which
 * an import or an older campaign may have filled with control characters or formulas: escaped
 * in every format, and in CSV a text cell a spreadsheet would run is guarded while a negative
 * figure stays a number. */
static char *s_table(lg_format_t fmt)
{
    lg_tbl_t t = {.ncols = 3, .last_left = 1};
    lg_tbl_add(&t, 0, "%s", "config");
    lg_tbl_add(&t, 0, "%s", "change");
    lg_tbl_add(&t, 0, "%s", "note");
    lg_tbl_add(&t, 0, "%s", "=cmd|' /C calc'!A0");
    lg_tbl_add(&t, 0, "%s", "-12.5%");
    lg_tbl_add(&t, 0, "%s", "\x1b[2J\x1b[1;1HFAKE: all runs passed");
    lg_tbl_add(&t, 0, "%s", "-5");
    lg_tbl_add(&t, 0, "%s", "-");
    lg_tbl_add(&t, 0, "%s", "@x\nforged");
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    assert_non_null(f);
    lg_tbl_print(&t, fmt, 0, 1, f);
    fclose(f);
    lg_tbl_clear(&t);
    return out;
}

static void test_table_output_escaped(void **state)
{
    (void)state;
    char *csv = s_table(LG_FMT_CSV);
    assert_string_equal(csv,
                        "config,change,note\n"
                        "\"'=cmd|' /C calc'!A0\",-12.5%,\\x1b[2J\\x1b[1;1HFAKE: all runs passed\n"
                        "\"'-5\",-,\"'@x\\x0aforged\"\n");
    free(csv);
    static const lg_format_t text[] = {LG_FMT_TABLE, LG_FMT_MARKDOWN};
    for (size_t k = 0; k < 2; k++) {
        lg_format_t fmt = text[k];
        char *txt = s_table(fmt);
        /* Markdown also writes [ behind a backslash (no link) */
        assert_non_null(strstr(txt, fmt == LG_FMT_MARKDOWN ? "\\x1b\\[2J\\x1b\\[1;1HFAKE"
                                                           : "\\x1b[2J\\x1b[1;1HFAKE"));
        assert_non_null(strstr(txt, "@x\\x0aforged"));
        int lines = 0;
        for (const char *c = txt; *c; c++) {
            lines += *c == '\n';
            if ((unsigned char)*c < 0x20 && *c != '\n')
                fail_msg("format %d: control byte 0x%02x in:\n%s", fmt, *c, txt);
        }
        assert_int_equal(lines, fmt == LG_FMT_MARKDOWN ? 4 : 3);
        free(txt);
    }
}

/* Markdown is rendered on web pages: a label that is HTML stays text in its cell, and a pipe
 * stays in its cell. */
static void test_table_markdown_html(void **state)
{
    (void)state;
    lg_tbl_t t = {.ncols = 2, .last_left = 1};
    lg_tbl_add(&t, 0, "%s", "config");
    lg_tbl_add(&t, 0, "%s", "note");
    lg_tbl_add(&t, 0, "%s", "<img src=x onerror=alert(1)>");
    lg_tbl_add(&t, 0, "%s", "a|b & `c`");
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    assert_non_null(f);
    lg_tbl_print(&t, LG_FMT_MARKDOWN, 0, 1, f);
    fclose(f);
    lg_tbl_clear(&t);
    assert_string_equal(out, "| config | note |\n"
                             "|---|---|\n"
                             "| &lt;img src=x onerror=alert(1)&gt; | a\\|b &amp; &#96;c&#96; |\n");
    free(out);
}

/* lgctl's queries (lgctl/queries/NAME.sql, compiled in): each reads, has SQL, and a section's
 * header holds only the directives db/'s renderer knows, its head as many columns as a plain
 * section shows; the runs' query has its part "apps". */
static void test_queries_compiled_in(void **state)
{
    (void)state;
    int n = 0;
    for (const lg_query_src_t *src = lg_lgctl_queries; src->name; src++, n++) {
        lg_query_t q;
        char err[512];
        if (lg_query_load(lg_lgctl_queries, src->name, &q, err, sizeof err) != 0)
            fail_msg("%s", err);
        if (lg_render_check(&q, err, sizeof err) != 0)
            fail_msg("%s", err);
        lg_query_clear(&q);
    }
    assert_true(n >= 10);
    lg_query_t q;
    char err[512];
    assert_int_equal(lg_query_load(lg_lgctl_queries, "report_runs", &q, err, sizeof err), 0);
    const char *const apps[] = {"apps", NULL};
    char *with = lg_query_sql(&q, apps), *without = lg_query_sql(&q, NULL);
    assert_non_null(strstr(with, "AS app_tps"));
    assert_null(strstr(without, "AS app_tps"));
    free(with);
    free(without);
    lg_query_clear(&q);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_units),
        cmocka_unit_test(test_queries_compiled_in),
        cmocka_unit_test(test_quotes_labels_and_run_fields),
        cmocka_unit_test(test_bad_rows_name_their_lines),
        cmocka_unit_test(test_header_errors),
        cmocka_unit_test(test_table_output_escaped),
        cmocka_unit_test(test_table_markdown_html),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
