/* test_export.c: lg-export's pieces that need no database: the directive header of a query file,
 * the :campaign placeholder, number formatting for labels and timestamps of time series, and the
 * SVG of a time series over seconds (the application TPS chart). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "chart.h"

static char s_path[64];

/* Parse text written to a temporary NAME.sql; returns lg_chart_parse's result. */
static int s_parse(const char *text, lg_chart_spec_t *spec, char *err, size_t errlen)
{
    snprintf(s_path, sizeof s_path, "/tmp/lg_test_export_%d.sql", (int)getpid());
    FILE *f = fopen(s_path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    int rc = lg_chart_parse(s_path, spec, err, errlen);
    unlink(s_path);
    return rc;
}

static void test_every_directive(void **state)
{
    (void)state;
    lg_chart_spec_t s;
    char err[512] = "";
    int rc = s_parse("-- chart: timeseries\n"
                     "-- title: 4K random read IOPS\n"
                     "-- subtitle: dedup off vs on\n"
                     "-- x: config\n"
                     "-- y: iops\n"
                     "-- series: protocol\n"
                     "-- unit: IOPS\n"
                     "-- sort: desc\n"
                     "-- lower-is-better\n"
                     "-- log\n"
                     "-- # a comment\n"
                     "-- ----------\n"
                     "--\n"
                     "-- Prose between directives is a comment too.\n"
                     "\n"
                     "SELECT 1 AS config, 2 AS iops;\n",
                     &s, err, sizeof err);
    if (rc)
        fail_msg("parse failed: %s", err);
    assert_int_equal(s.kind, LG_CHART_TIMESERIES);
    assert_string_equal(s.title, "4K random read IOPS");
    assert_string_equal(s.subtitle, "dedup off vs on");
    assert_string_equal(s.x, "config");
    assert_string_equal(s.y, "iops");
    assert_string_equal(s.series, "protocol");
    assert_string_equal(s.unit, "IOPS");
    assert_int_equal(s.sort, LG_SORT_DESC);
    assert_true(s.lower_is_better);
    assert_true(s.log);
    assert_false(s.uses_campaign);
    assert_non_null(strstr(s.sql, "SELECT 1 AS config"));
    /* The header is kept as empty lines so the server's positions are lines of the file. */
    int lines = 0;
    for (const char *c = s.sql; *c && c < strstr(s.sql, "SELECT"); c++)
        lines += *c == '\n';
    assert_int_equal(lines, 15);
    lg_chart_spec_free(&s);

    const char *kinds[] = {"hbar", "bar", "line", "scatter", "timeseries"};
    for (int k = 0; k < 5; k++) {
        char text[128];
        snprintf(text, sizeof text, "-- chart: %s\n-- x: a\n-- y: b\n-- sort: asc\nSELECT 1;\n", kinds[k]);
        assert_int_equal(s_parse(text, &s, err, sizeof err), 0);
        assert_int_equal(s.kind, k);
        assert_int_equal(s.sort, LG_SORT_ASC);
        assert_string_equal(lg_chart_kind_name(s.kind), kinds[k]);
        lg_chart_spec_free(&s);
    }
    /* Defaults: hbar, the file name as the title, no sort, higher is better. */
    assert_int_equal(s_parse("-- x: a\n-- y: b\n-- sort: none\nSELECT 1;\n", &s, err, sizeof err), 0);
    assert_int_equal(s.kind, LG_CHART_HBAR);
    assert_int_equal(s.sort, LG_SORT_NONE);
    assert_false(s.lower_is_better);
    assert_false(s.log);
    assert_non_null(strstr(s_path, s.title));
    lg_chart_spec_free(&s);
}

static void s_expect_error(const char *text, const char *want)
{
    lg_chart_spec_t s;
    char err[512] = "", full[600];
    assert_int_not_equal(s_parse(text, &s, err, sizeof err), 0);
    snprintf(full, sizeof full, "%s:%s", s_path, want);
    if (strncmp(err, full, strlen(full)) != 0)
        fail_msg("got \"%s\", want it to start with \"%s\"", err, full);
    lg_chart_spec_free(&s);
}

static void test_errors_name_the_line(void **state)
{
    (void)state;
    s_expect_error("-- chart: hbar\n-- title: Bad\n-- colour: red\n-- x: a\n-- y: b\nSELECT 1;\n",
                   "3: unknown directive \"colour\"");
    s_expect_error("-- x: a\n-- y: b\n-- stacked\nSELECT 1;\n", "3: unknown directive \"stacked\"");
    s_expect_error("-- x: a\n\n-- chart: pie\n-- y: b\nSELECT 1;\n", "3: unknown chart kind \"pie\"");
    s_expect_error("-- x: a\n-- y: b\n-- sort: up\nSELECT 1;\n", "3: sort must be asc, desc or none");
    s_expect_error("-- x: a\nSELECT 1;\n", "1: the directives x and y are required");
    s_expect_error("-- y: b\nSELECT 1;\n", "1: the directives x and y are required");
    s_expect_error("-- x: a\n-- y: b\n\n", "3: no SQL after the directives");
    char text[512];
    snprintf(text, sizeof text, "-- x: a\n-- y: b\n-- unit: %0100d\nSELECT 1;\n", 0);
    s_expect_error(text, "3: value of \"unit\" is too long");
    /* A flag with a value is not the flag. */
    s_expect_error("-- x: a\n-- y: b\n-- log: yes\nSELECT 1;\n", "3: unknown directive \"log\"");
}

static void s_bind(const char *sql, const char *want, bool want_used)
{
    bool used = !want_used;
    char *got = lg__bind_campaign(sql, &used);
    assert_non_null(got);
    if (strcmp(got, want) != 0)
        fail_msg("bind of \"%s\": got \"%s\", want \"%s\"", sql, got, want);
    assert_int_equal(used, want_used);
    free(got);
}

static void test_campaign_placeholder(void **state)
{
    (void)state;
    s_bind("WHERE (:campaign IS NULL OR campaign = :campaign)",
           "WHERE (($1::text) IS NULL OR campaign = ($1::text))", true);
    s_bind("SELECT ':campaign', \":campaign\"", "SELECT ':campaign', \":campaign\"", false);
    s_bind("SELECT 'it''s :campaign' AS a", "SELECT 'it''s :campaign' AS a", false);
    s_bind("SELECT E'\\' :campaign' AS a", "SELECT E'\\' :campaign' AS a", false);
    s_bind("SELECT 1 -- :campaign\n, :campaign", "SELECT 1 -- :campaign\n, ($1::text)", true);
    s_bind("SELECT /* :campaign /* nested */ :campaign */ 1",
           "SELECT /* :campaign /* nested */ :campaign */ 1", false);
    s_bind("SELECT x::campaign, y ::campaign", "SELECT x::campaign, y ::campaign", false);
    s_bind("SELECT $$ :campaign $$, $q$ :campaign $q$", "SELECT $$ :campaign $$, $q$ :campaign $q$",
           false);
    s_bind("SELECT :campaigns, :campaign_id, :campaign;", "SELECT :campaigns, :campaign_id, ($1::text);",
           true);
    s_bind("SELECT $1 = :campaign", "SELECT $1 = ($1::text)", true);
    s_bind("", "", false);
    s_bind("SELECT 'unterminated :campaign", "SELECT 'unterminated :campaign", false);

    /* Through the parser: the directive header's ':' never counts. */
    lg_chart_spec_t s;
    char err[256];
    assert_int_equal(s_parse("-- x: a\n-- y: b\nSELECT 1 WHERE campaign = :campaign;\n", &s, err,
                             sizeof err), 0);
    assert_true(s.uses_campaign);
    assert_non_null(strstr(s.sql, "campaign = ($1::text);"));
    lg_chart_spec_free(&s);
}

static void s_num(double v, const char *want)
{
    char buf[64];
    lg_fmt_num(v, buf, sizeof buf);
    if (strcmp(buf, want) != 0)
        fail_msg("lg_fmt_num(%g): got \"%s\", want \"%s\"", v, buf, want);
}

static void test_number_format(void **state)
{
    (void)state;
    s_num(0, "0");
    s_num(-0.0, "0");
    s_num(1234567, "1,234,567");
    s_num(12345.4, "12,345");
    s_num(999.6, "1,000");
    s_num(100, "100");
    s_num(99.96, "100");
    s_num(12.34, "12.3");
    s_num(9.996, "10.0");
    s_num(1.234, "1.23");
    s_num(0.1234, "0.123");
    s_num(0.0123, "0.012");
    s_num(0.001234, "0.0012");
    s_num(0.00001234, "0.000012");
    s_num(1.5e-9, "1.5e-09");
    s_num(-1234.5, "-1,234");
    s_num(-0.5, "-0.500");
    s_num(-0.00001234, "-0.000012");
    s_num(1e15, "1,000,000,000,000,000");
    s_num(NAN, "n/a");
    s_num(INFINITY, "n/a");
    char small[4];
    lg_fmt_num(1234567, small, sizeof small); /* truncated, never overrun */
    assert_int_equal(strlen(small), 3);
}

static void s_time(const char *text, double want)
{
    double got = -1;
    if (lg_chart_parse_time(text, &got) != 0)
        fail_msg("\"%s\" not read as a timestamp", text);
    if (fabs(got - want) > 1e-6)
        fail_msg("\"%s\": got %.6f, want %.6f", text, got, want);
}

static void test_timestamps(void **state)
{
    (void)state;
    s_time("1970-01-01 00:00:00+00", 0);
    s_time("2026-11-30 13:49:15+00", 1796046555);
    s_time("2026-11-30 13:49:15.25+00", 1796046555.25);
    s_time("2026-11-30 14:49:15.25+01", 1796046555.25);
    s_time("2026-11-30 19:19:15+05:30", 1796046555);
    s_time("2026-11-30 13:49:15-00:00:30", 1796046585);
    s_time("2026-11-30T13:49:15Z", 1796046555);
    s_time("2026-11-30 13:49:15", 1796046555);
    s_time("2024-02-29 00:00:00+00", 1709164800);
    s_time("2000-03-01 00:00+00", 951868800);
    double e;
    const char *bad[] = {"", "12.5", "2026-13-01 00:00:00", "2026-11-30", "2026-11-30 13:49:15+",
                         "2026-11-30 13:49:15 junk", "infinity", "2026-11-30 13:4"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        if (lg_chart_parse_time(bad[i], &e) == 0)
            fail_msg("\"%s\" read as a timestamp", bad[i]);
}

/* The x column of a time series holds numbers or timestamps; anything else names its row. */
static void test_check_x(void **state)
{
    (void)state;
    char *cols[] = {"t", "v"};
    char *cells[] = {"2026-11-30 13:49:15+00", "1", "2026-11-30 13:49:16+00", "2", "soon", "3"};
    bool numeric[] = {false, true};
    lg_table_t t = {2, 3, cols, cells, numeric};
    lg_chart_spec_t s = {.kind = LG_CHART_TIMESERIES, .x = "t", .y = "v"};
    char err[256] = "";
    assert_int_not_equal(lg_chart_check(&s, &t, err, sizeof err), 0);
    assert_non_null(strstr(err, "\"soon\" in row 3, not a number or a timestamp"));
    t.nrows = 2;
    assert_int_equal(lg_chart_check(&s, &t, err, sizeof err), 0);
    s.kind = LG_CHART_SCATTER;
    assert_int_not_equal(lg_chart_check(&s, &t, err, sizeof err), 0);
    s.kind = LG_CHART_LINE; /* categorical x: anything goes */
    assert_int_equal(lg_chart_check(&s, &t, err, sizeof err), 0);
}

/* A time series of TPS over a run's seconds (queries/10_app_tps_series.sql): a line per config,
 * a dot per second, x ticks in the step's decimals (2, 4, ... not 2.00). */
static void test_svg_seconds_series(void **state)
{
    (void)state;
    char *cols[] = {"config", "second", "tps"};
    char *cells[2 * 10 * 3];
    char num[2 * 10 * 2][16];
    for (int c = 0; c < 2; c++)
        for (int k = 1; k <= 10; k++) {
            int r = c * 10 + k - 1;
            snprintf(num[2 * r], sizeof num[0], "%d", k);
            snprintf(num[2 * r + 1], sizeof num[0], "%d", (c ? 1000 : 2000) + 10 * k);
            cells[3 * r] = c ? "b ssd" : "a ssd";
            cells[3 * r + 1] = num[2 * r];
            cells[3 * r + 2] = num[2 * r + 1];
        }
    bool numeric[] = {false, true, true};
    lg_table_t t = {3, 20, cols, cells, numeric};
    lg_chart_spec_t s = {.kind = LG_CHART_TIMESERIES,
                         .title = "TPS",
                         .x = "second",
                         .y = "tps",
                         .series = "config",
                         .unit = "tx/s",
                         .xtitle = "Seconds into the run"};
    char err[256] = "";
    assert_int_equal(lg_chart_check(&s, &t, err, sizeof err), 0);
    char *svg = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&svg, &len);
    assert_non_null(f);
    lg_palette_t p = {0};
    lg_svg_write(f, &s, &t, &p);
    fclose(f);
    int lines = 0, dots = 0;
    for (const char *c = svg; (c = strstr(c, "<polyline")); c++)
        lines++;
    for (const char *c = svg; (c = strstr(c, "<circle")); c++)
        dots++;
    assert_int_equal(lines, 2);
    assert_int_equal(dots, 20);
    assert_non_null(strstr(svg, "a ssd, second = 10: 2,100"));
    assert_non_null(strstr(svg, ">Seconds into the run</text>"));
    assert_non_null(strstr(svg, "fill=\"#666\">4</text>"));
    assert_null(strstr(svg, ">4.00</text>"));
    free(svg);
    lg_palette_free(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_directive),
        cmocka_unit_test(test_errors_name_the_line),
        cmocka_unit_test(test_campaign_placeholder),
        cmocka_unit_test(test_number_format),
        cmocka_unit_test(test_timestamps),
        cmocka_unit_test(test_check_x),
        cmocka_unit_test(test_svg_seconds_series),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
