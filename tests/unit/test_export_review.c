/* test_export_review.c: what lg-export draws for a review a reviewer can publish, without a
 * database: the directives caveat, label, window and group; the caveat lines of a chart's rows
 * (JSON arrays of lg.caveat_json or lines, each once); a failed point drawn as missing (a bar's
 * "no figure", an x on a line's axis, the line broken there); caveats under a chart, escaped; a
 * point's label; a time series broken where a second has no sample; the shaded window. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "chart.h"
#include "site.h"

static int s_parse(const char *text, lg_chart_spec_t *spec, char *err, size_t errlen)
{
    /* a folder of our own (mkdtemp: 0700, a new name), the file made new in it, no link followed */
    char dir[] = "/tmp/lg_test_export_review.XXXXXX", path[80];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/q.sql", dir);
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    int rc = lg_chart_parse(path, spec, err, errlen);
    unlink(path);
    rmdir(dir);
    return rc;
}

static char *s_svg(const lg_chart_spec_t *s, const lg_table_t *t)
{
    char *svg = NULL, err[256] = "";
    size_t len = 0;
    if (lg_chart_check(s, t, err, sizeof err) != 0)
        fail_msg("check: %s", err);
    FILE *f = open_memstream(&svg, &len);
    assert_non_null(f);
    lg_palette_t p = {0};
    lg_svg_write(f, s, t, &p);
    fclose(f);
    lg_palette_clear(&p);
    assert_non_null(strstr(svg, "</svg>\n"));
    return svg;
}

static int s_count(const char *s, const char *what)
{
    int n = 0;
    for (const char *c = s; (c = strstr(c, what)); c++)
        n++;
    return n;
}

static void test_directives(void **state)
{
    (void)state;
    lg_chart_spec_t s;
    char err[512] = "";
    int rc = s_parse("-- chart: timeseries\n-- x: t\n-- y: iops\n-- window: lo  hi\n"
                     "-- group: profile config\n-- caveat: why\n-- label: load\nSELECT 1;\n",
                     &s, err, sizeof err);
    if (rc)
        fail_msg("parse failed: %s", err);
    assert_string_equal(s.win_lo, "lo");
    assert_string_equal(s.win_hi, "hi");
    assert_string_equal(s.group[0], "profile");
    assert_string_equal(s.group[1], "config");
    assert_string_equal(s.caveat, "why");
    assert_string_equal(s.label, "load");
    lg_chart_spec_clear(&s);
    assert_int_equal(
        s_parse("-- x: a\n-- y: b\n-- group: profile\nSELECT 1;\n", &s, err, sizeof err), 0);
    assert_string_equal(s.group[0], "profile");
    assert_string_equal(s.group[1], "");
    lg_chart_spec_clear(&s);
    assert_int_not_equal(
        s_parse("-- x: a\n-- y: b\n-- group: a b c\nSELECT 1;\n", &s, err, sizeof err), 0);
    assert_non_null(strstr(err, ":3: group takes one or two columns"));
    lg_chart_spec_clear(&s);
    assert_int_not_equal(
        s_parse("-- x: a\n-- y: b\n-- window: a\nSELECT 1;\n", &s, err, sizeof err), 0);
    assert_non_null(strstr(err, ":3: window takes two columns"));
    lg_chart_spec_clear(&s);
    /* The columns must be there; a window's hold numbers. */
    char *cols[] = {"t", "iops", "lo", "hi", "why"};
    char *cells[] = {"1", "5", "0", "x", NULL};
    lg_db_kind_t numeric[] = {LG_DB_REAL, LG_DB_REAL, LG_DB_REAL, LG_DB_TEXT, LG_DB_TEXT};
    lg_table_t t = {5, 1, cols, cells, numeric};
    lg_chart_spec_t c = {.kind = LG_CHART_TIMESERIES, .x = "t", .y = "iops", .caveat = "because"};
    assert_int_not_equal(lg_chart_check(&c, &t, err, sizeof err), 0);
    assert_non_null(strstr(err, "directive caveat names column \"because\""));
    lg_chart_spec_t w = {
        .kind = LG_CHART_TIMESERIES, .x = "t", .y = "iops", .win_lo = "lo", .win_hi = "hi"};
    assert_int_not_equal(lg_chart_check(&w, &t, err, sizeof err), 0);
    assert_non_null(strstr(err, "column \"hi\" (window) holds \"x\""));
}

/* A row's caveat cell: a JSON array (lg.caveat_json) or lines; each line once, in order. */
static void test_caveat_lines(void **state)
{
    (void)state;
    char *cols[] = {"a", "why"};
    char *cells[] = {"1", "[\"run 2 failed\", \"run 3: load host \\\"h\\\" saturated\"]",
                     "2", "run 3: load host \"h\" saturated\nrun 4: steady state not reached",
                     "3", NULL,
                     "4", "[not json",
                     "5", "[\"run 2 failed\"]"};
    lg_db_kind_t numeric[] = {LG_DB_REAL, LG_DB_TEXT};
    lg_table_t t = {2, 5, cols, cells, numeric};
    lg_chart_spec_t s = {.caveat = "why"};
    char buf[4096];
    assert_int_equal(lg_site_caveats(&s, &t, buf, sizeof buf), 4);
    assert_string_equal(buf, "run 2 failed\nrun 3: load host \"h\" saturated\n"
                             "run 4: steady state not reached\n[not json\n");
    lg_chart_spec_t none = {0};
    assert_int_equal(lg_site_caveats(&none, &t, buf, sizeof buf), 0);
    assert_string_equal(buf, "");
}

/* A bar whose row has no figure reads "no figure"; the caveats go under the chart, escaped, and
 * make it taller. */
static void test_bars_missing_and_caveats(void **state)
{
    (void)state;
    char *cols[] = {"config", "iops"};
    char *cells[] = {"a", "100", "b", NULL};
    lg_db_kind_t numeric[] = {LG_DB_TEXT, LG_DB_REAL};
    lg_table_t t = {2, 2, cols, cells, numeric};
    lg_chart_spec_t s = {
        .kind = LG_CHART_HBAR, .title = "T", .x = "config", .y = "iops", .unit = "IOPS"};
    char *plain = s_svg(&s, &t);
    assert_int_equal(s_count(plain, "class=\"missing\""), 1);
    assert_non_null(strstr(plain, ">no figure (failed or missing)</text>"));
    assert_int_equal(s_count(plain, "class=\"caveat\""), 0);
    snprintf(s.caveats, sizeof s.caveats, "run 2 (b) failed: <oops> & \"x\"\nsecond\n");
    char *svg = s_svg(&s, &t);
    assert_int_equal(s_count(svg, "<g class=\"caveat\">"), 2);
    assert_non_null(strstr(svg, "Caveat: run 2 (b) failed: &lt;oops&gt; &amp; &quot;x&quot;"));
    assert_null(strstr(svg, "<oops>"));
    int h0 = (int)strtol(strstr(plain, "height=\"") + 8, NULL, 10),
        h1 = (int)strtol(strstr(svg, "height=\"") + 8, NULL, 10);
    assert_true(h1 >= h0 + 2 * 14);
    free(plain);
    free(svg);
}

/* A line through load points: a point without a figure breaks the line and is an x on the axis;
 * a curve's points carry their labels. */
static void test_lines_missing_and_labels(void **state)
{
    (void)state;
    char *cols[] = {"cfg", "load", "iops"};
    char *cells[] = {"c", "1T1Q", "10", "c", "1T2Q", NULL, "c", "2T2Q", "30", "c", "4T4Q", "40"};
    lg_db_kind_t numeric[] = {LG_DB_TEXT, LG_DB_TEXT, LG_DB_REAL};
    lg_table_t t = {3, 4, cols, cells, numeric};
    lg_chart_spec_t s = {.kind = LG_CHART_LINE, .x = "load", .y = "iops", .series = "cfg"};
    char *svg = s_svg(&s, &t);
    assert_int_equal(s_count(svg, "<polyline"), 2);
    assert_int_equal(s_count(svg, "class=\"missing\""), 1);
    assert_non_null(strstr(svg, "<title>c: no figure at load = 1T2Q (failed or missing)</title>"));
    free(svg);
    char *ccols[] = {"cfg", "iops", "lat", "load"};
    char *ccells[] = {"c", "100", "0.1", "1T1Q", "c", "200", "0.2", "2T2Q"};
    lg_db_kind_t cnum[] = {LG_DB_TEXT, LG_DB_REAL, LG_DB_REAL, LG_DB_TEXT};
    lg_table_t ct = {4, 2, ccols, ccells, cnum};
    lg_chart_spec_t cs = {
        .kind = LG_CHART_CURVE, .x = "iops", .y = "lat", .series = "cfg", .label = "load"};
    svg = s_svg(&cs, &ct);
    assert_int_equal(s_count(svg, "<g class=\"label\">"), 2);
    assert_non_null(strstr(svg, ">1T1Q</text>"));
    assert_non_null(strstr(svg, ">2T2Q</text>"));
    assert_int_equal(s_count(svg, "<polyline"), 1);
    free(svg);
}

/* A time series at 1 s steps missing its 4th second: two lines, not one across the gap; with a
 * second axis the same, and the window shaded with its bounds. */
static void test_series_gap_and_window(void **state)
{
    (void)state;
    char *cols[] = {"s", "t", "iops", "busy", "lo", "hi"};
    char *cells[] = {"IOPS", "1", "10", NULL, "0.5", "5.5", "IOPS", "2", "11", NULL, "0.5", "5.5",
                     "IOPS", "3", "12", NULL, "0.5", "5.5", "IOPS", "5", "14", NULL, "0.5", "5.5",
                     "IOPS", "6", "15", NULL, "0.5", "5.5", "CPU",  "1", NULL, "50", "0.5", "5.5"};
    lg_db_kind_t numeric[] = {LG_DB_TEXT, LG_DB_REAL, LG_DB_REAL,
                              LG_DB_REAL, LG_DB_REAL, LG_DB_REAL};
    lg_table_t t = {6, 6, cols, cells, numeric};
    lg_chart_spec_t s = {.kind = LG_CHART_TIMESERIES, .x = "t", .y = "iops", .series = "s"};
    char *svg = s_svg(&s, &t);
    assert_int_equal(s_count(svg, "<polyline"), 2);
    free(svg);
    lg_chart_spec_t d = {.kind = LG_CHART_TIMESERIES,
                         .x = "t",
                         .y = "iops",
                         .series = "s",
                         .y2 = "busy",
                         .y2unit = "%",
                         .win_lo = "lo",
                         .win_hi = "hi"};
    svg = s_svg(&d, &t);
    assert_int_equal(s_count(svg, "<polyline fill=\"none\" stroke=\"#0072B2\""), 2);
    assert_int_equal(s_count(svg, "<rect class=\"window\""), 1);
    assert_non_null(strstr(svg, "data-start=\"0.5\" data-end=\"5.5\""));
    assert_non_null(strstr(svg, "<title>measured window 0.500 to 5.50 s</title>"));
    free(svg);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_directives),
        cmocka_unit_test(test_caveat_lines),
        cmocka_unit_test(test_bars_missing_and_caveats),
        cmocka_unit_test(test_lines_missing_and_labels),
        cmocka_unit_test(test_series_gap_and_window),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
