/* test_export.c: lg-export's pieces that need no database: the directive header of a query file,
 * the :campaign placeholder, number formatting for labels and timestamps of time series, the SVG
 * of a time series over seconds (the application TPS chart), names wrapped instead of cut, error
 * bars of confidence intervals, the time series with a second axis (a run's IOPS beside its NAS
 * CPU and disk busy); and the escapers of core/lg_esc.c that keep labels from driving a terminal,
 * a spreadsheet or an XML parser. */
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
#include "lg_esc.h"
#include "lg_log.h"
#include "site.h"
#include "svg_common.h"

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
    lg_chart_spec_clear(&s);

    const char *kinds[] = {"hbar", "bar", "line", "scatter", "timeseries"};
    for (int k = 0; k < 5; k++) {
        char text[128];
        snprintf(text, sizeof text, "-- chart: %s\n-- x: a\n-- y: b\n-- sort: asc\nSELECT 1;\n",
                 kinds[k]);
        assert_int_equal(s_parse(text, &s, err, sizeof err), 0);
        assert_int_equal(s.kind, k);
        assert_int_equal(s.sort, LG_SORT_ASC);
        assert_string_equal(lg_chart_kind_name(s.kind), kinds[k]);
        lg_chart_spec_clear(&s);
    }
    /* Defaults: hbar, the file name as the title, no sort, higher is better. */
    assert_int_equal(s_parse("-- x: a\n-- y: b\n-- sort: none\nSELECT 1;\n", &s, err, sizeof err),
                     0);
    assert_int_equal(s.kind, LG_CHART_HBAR);
    assert_int_equal(s.sort, LG_SORT_NONE);
    assert_false(s.lower_is_better);
    assert_false(s.log);
    assert_non_null(strstr(s_path, s.title));
    lg_chart_spec_clear(&s);
}

static void s_expect_error(const char *text, const char *want)
{
    lg_chart_spec_t s;
    char err[512] = "", full[600];
    assert_int_not_equal(s_parse(text, &s, err, sizeof err), 0);
    snprintf(full, sizeof full, "%s:%s", s_path, want);
    if (strncmp(err, full, strlen(full)) != 0)
        fail_msg("got \"%s\", want it to start with \"%s\"", err, full);
    lg_chart_spec_clear(&s);
}

static void test_errors_name_the_line(void **state)
{
    (void)state;
    s_expect_error("-- chart: hbar\n-- title: Bad\n-- colour: red\n-- x: a\n-- y: b\nSELECT 1;\n",
                   "3: unknown directive \"colour\"");
    s_expect_error("-- x: a\n-- y: b\n-- stacked\nSELECT 1;\n", "3: unknown directive \"stacked\"");
    s_expect_error("-- x: a\n\n-- chart: pie\n-- y: b\nSELECT 1;\n",
                   "3: unknown chart kind \"pie\"");
    s_expect_error("-- x: a\n-- y: b\n-- sort: up\nSELECT 1;\n",
                   "3: sort must be asc, desc or none");
    s_expect_error("-- x: a\nSELECT 1;\n", "1: the directives x and y are required");
    s_expect_error("-- y: b\nSELECT 1;\n", "1: the directives x and y are required");
    s_expect_error("-- x: a\n-- y: b\n\n", "3: no SQL after the directives");
    char text[512];
    snprintf(text, sizeof text, "-- x: a\n-- y: b\n-- unit: %0100d\nSELECT 1;\n", 0);
    s_expect_error(text, "3: value of \"unit\" is too long");
    /* A flag with a value is not the flag. */
    s_expect_error("-- x: a\n-- y: b\n-- log: yes\nSELECT 1;\n", "3: unknown directive \"log\"");
    /* Error bars take two columns and go on bars; a second axis goes on a time series. */
    s_expect_error("-- x: a\n-- y: b\n-- ci: lo\nSELECT 1;\n", "3: ci takes two columns");
    s_expect_error("-- x: a\n-- y: b\n-- ci: lo hi more\nSELECT 1;\n", "3: ci takes two columns");
    s_expect_error("-- chart: line\n-- x: a\n-- y: b\n-- ci: lo hi\nSELECT 1;\n",
                   "4: ci (error bars) is for bar and hbar charts, not line");
    s_expect_error("-- chart: bar\n-- x: a\n-- y2: c\n-- y: b\nSELECT 1;\n",
                   "3: y2 (a second value axis) is for timeseries charts, not bar");
}

/* The directives of issue 31's charts: ci, y2 with its title and unit, each. */
static void test_new_directives(void **state)
{
    (void)state;
    lg_chart_spec_t s;
    char err[512] = "";
    int rc = s_parse("-- chart: bar\n-- x: a\n-- y: b\n-- ci:  lo   hi \nSELECT 1;\n", &s, err,
                     sizeof err);
    if (rc)
        fail_msg("parse failed: %s", err);
    assert_string_equal(s.ci_lo, "lo");
    assert_string_equal(s.ci_hi, "hi");
    lg_chart_spec_clear(&s);
    rc = s_parse("-- chart: timeseries\n-- x: t\n-- y: iops\n-- y2: busy\n-- y2-title: Busy\n"
                 "-- y2-unit: %\n-- each: run_id\n-- title: Run {run}\nSELECT 1;\n",
                 &s, err, sizeof err);
    if (rc)
        fail_msg("parse failed: %s", err);
    assert_string_equal(s.y2, "busy");
    assert_string_equal(s.y2title, "Busy");
    assert_string_equal(s.y2unit, "%");
    assert_string_equal(s.each, "run_id");
    assert_string_equal(s.title, "Run {run}");
    lg_chart_spec_clear(&s);

    /* The columns they name must be there, and hold numbers. */
    char *cols[] = {"a", "b", "lo", "hi"};
    char *cells[] = {"x", "1", "0.5", "1.5", "y", "2", NULL, NULL};
    lg_db_kind_t numeric[] = {LG_DB_TEXT, LG_DB_REAL, LG_DB_REAL, LG_DB_REAL};
    lg_table_t t = {4, 2, cols, cells, numeric};
    lg_chart_spec_t c = {.kind = LG_CHART_BAR, .x = "a", .y = "b", .ci_lo = "lo", .ci_hi = "hi"};
    assert_int_equal(lg_chart_check(&c, &t, err, sizeof err), 0);
    snprintf(c.ci_hi, sizeof c.ci_hi, "high");
    assert_int_not_equal(lg_chart_check(&c, &t, err, sizeof err), 0);
    assert_non_null(strstr(err, "directive ci names column \"high\""));
    snprintf(c.ci_hi, sizeof c.ci_hi, "a");
    assert_int_not_equal(lg_chart_check(&c, &t, err, sizeof err), 0);
    assert_non_null(strstr(err, "column \"a\" (ci) holds \"x\" in row 1, not a number"));
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
    s_bind("SELECT :campaigns, :campaign_id, :campaign;",
           "SELECT :campaigns, :campaign_id, ($1::text);", true);
    s_bind("SELECT $1 = :campaign", "SELECT $1 = ($1::text)", true);
    s_bind("", "", false);
    s_bind("SELECT 'unterminated :campaign", "SELECT 'unterminated :campaign", false);

    /* Through the parser: the directive header's ':' never counts. */
    lg_chart_spec_t s;
    char err[256];
    assert_int_equal(
        s_parse("-- x: a\n-- y: b\nSELECT 1 WHERE campaign = :campaign;\n", &s, err, sizeof err),
        0);
    assert_true(s.uses_campaign);
    assert_non_null(strstr(s.sql, "campaign = ($1::text);"));
    lg_chart_spec_clear(&s);
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
    const char *bad[] = {"",
                         "12.5",
                         "2026-13-01 00:00:00",
                         "2026-11-30",
                         "2026-11-30 13:49:15+",
                         "2026-11-30 13:49:15 junk",
                         "infinity",
                         "2026-11-30 13:4"};
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
    lg_db_kind_t numeric[] = {LG_DB_TEXT, LG_DB_REAL};
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
    lg_db_kind_t numeric[] = {LG_DB_TEXT, LG_DB_REAL, LG_DB_REAL};
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
    lg_palette_clear(&p);
}

/* The chart as a standalone SVG document; the caller frees it. */
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

/* s without its spaces, into out. */
static void s_nospace(const char *s, char *out, size_t len)
{
    size_t o = 0;
    for (; *s && o + 1 < len; s++)
        if (*s != ' ')
            out[o++] = *s;
    out[o] = '\0';
}

/* Wrapping keeps every character, in order (only the spaces a line ends at go), puts no line
 * over the width unless it is one character, and never splits a UTF-8 character. */
static void s_check_wrap(const char *s, double max_px, int want_lines)
{
    lg__svg_wrap_t w;
    assert_int_equal(lg__svg_wrap(&w, s, 11, max_px), 0);
    if (want_lines > 0 && w.n != want_lines)
        fail_msg("\"%s\" at %.0f px: %d lines, want %d", s, max_px, w.n, want_lines);
    char joined[4096] = "", a[4096], b[4096];
    for (int i = 0; i < w.n; i++) {
        const char *l = w.line[i];
        if (lg__svg_text_w(l, 11) > max_px && strlen(l) > 4 && (l[0] & 0xC0) != 0xC0)
            fail_msg("line \"%s\" of \"%s\" is %.1f px, over %.0f", l, s, lg__svg_text_w(l, 11),
                     max_px);
        if (((unsigned char)l[0] & 0xC0) == 0x80)
            fail_msg("line %d of \"%s\" starts inside a UTF-8 character", i, s);
        strncat(joined, l, sizeof joined - strlen(joined) - 1);
    }
    s_nospace(s, a, sizeof a);
    s_nospace(joined, b, sizeof b);
    assert_string_equal(a, b);
    lg__svg_wrap_clear(&w);
}

static void test_wrap(void **state)
{
    (void)state;
    s_check_wrap("a ssd lz4, dedup off", 260, 1);
    s_check_wrap("", 100, 1);
    s_check_wrap("a ssd raidz2-wide-stripe-of-twelve zstd, dedup on", 248, 2);
    s_check_wrap("a ssd raidz2-wide-stripe-of-twelve zstd, dedup on", 60, -1);
    /* One word far wider than a line: cut between characters, nothing lost. */
    char word[301];
    memset(word, 'x', 300);
    word[300] = '\0';
    s_check_wrap(word, 100, -1);
    /* Multi-byte characters stay whole. */
    s_check_wrap("\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
                 "\xc3\xa9\xc3\xa9 \xe2\x80\xa6\xe2\x80\xa6\xe2\x80\xa6",
                 30, -1);
    /* Break after a dash or slash inside a word when there is no space. */
    lg__svg_wrap_t w;
    lg__svg_wrap(&w, "pool/dataset-with-a-long-name", 11, 80);
    assert_true(w.n >= 2);
    char last = w.line[0][strlen(w.line[0]) - 1];
    assert_true(last == '-' || last == '/');
    lg__svg_wrap_clear(&w);
}

/* The text of every <text> of an SVG, its <tspan>s joined, without spaces: what a reader sees. */
static void s_svg_texts(const char *svg, char *out, size_t len)
{
    char all[16384] = "";
    size_t o = 0;
    for (const char *p = svg; *p && o + 1 < sizeof all; p++) {
        if (*p == '<') { /* skip the markup, and the text of <title> (a tooltip, not drawn) */
            if (!strncmp(p, "<title>", 7)) {
                const char *e = strstr(p, "</title>");
                p = e ? e + 7 : p + strlen(p) - 1;
                continue;
            }
            while (*p && *p != '>')
                p++;
            continue;
        }
        all[o++] = *p;
    }
    all[o] = '\0';
    s_nospace(all, out, len);
}

/* A SUT config's long name is shown whole, wrapped onto lines, in horizontal bars (its category),
 * vertical bars (under its slot) and a legend; never cut with an ellipsis. */
static void test_svg_long_names_wrap(void **state)
{
    (void)state;
    const char *name = "a ssd raidz2-wide-stripe-of-twelve zstd, dedup on, recordsize 1M, "
                       "atime off, sync disabled, special vdev mirror";
    char *cols[] = {"config", "series", "iops"};
    char *cells[] = {(char *)name, "read",  "100",  (char *)name, "write",
                     "120",        "short", "read", "90"};
    lg_db_kind_t numeric[] = {LG_DB_TEXT, LG_DB_TEXT, LG_DB_REAL};
    lg_table_t t = {3, 3, cols, cells, numeric};
    char want[512], got[16384];
    s_nospace(name, want, sizeof want);
    for (int kind = LG_CHART_HBAR; kind <= LG_CHART_BAR; kind++) {
        lg_chart_spec_t s = {.kind = (lg_chart_kind_t)kind,
                             .title = "IOPS",
                             .x = "config",
                             .y = "iops",
                             .series = "series",
                             .unit = "IOPS"};
        char *svg = s_svg(&s, &t);
        assert_null(strstr(svg, "\xe2\x80\xa6")); /* no ellipsis */
        assert_non_null(strstr(svg, "<tspan"));
        s_svg_texts(svg, got, sizeof got);
        if (!strstr(got, want))
            fail_msg("chart %d does not show \"%s\" whole: %s", kind, name, got);
        free(svg);
    }
    /* As a legend entry (series of a line chart): wider than the chart, so wrapped too. */
    char *lcells[] = {(char *)name, "2T2Q", "100", (char *)name, "4T4Q", "150"};
    lg_db_kind_t lnum[] = {LG_DB_TEXT, LG_DB_TEXT, LG_DB_REAL};
    char *lcols[] = {"config", "load", "iops"};
    lg_table_t lt = {3, 2, lcols, lcells, lnum};
    char longer[600];
    snprintf(longer, sizeof longer, "%s %s", name, name); /* about 1000 px at 11 px */
    lcells[0] = lcells[3] = longer;
    lg_chart_spec_t ls = {.kind = LG_CHART_LINE,
                          .title = "sweep",
                          .x = "load",
                          .y = "iops",
                          .series = "config",
                          .unit = "IOPS"};
    char *svg = s_svg(&ls, &lt);
    s_svg_texts(svg, got, sizeof got);
    s_nospace(longer, want, sizeof want);
    if (!strstr(got, want))
        fail_msg("the legend does not show the long name whole: %s", got);
    free(svg);
}

/* Numbers of the first element of svg (at or after from) that starts with tag, after attr=". */
static double s_attr(const char *svg, const char *tag, const char *attr)
{
    const char *e = strstr(svg, tag);
    assert_non_null(e);
    char key[32];
    snprintf(key, sizeof key, " %s=\"", attr);
    const char *a = strstr(e, key);
    assert_non_null(a);
    return strtod(a + strlen(key), NULL);
}

/* Error bars: drawn where a row has both bounds, at the bounds' places on the value axis, with a
 * cap at each end unless cut at the axis's start (an interval reaching below zero); the tooltip
 * says the interval. */
/* A percentage's axis runs to 100 (issue 42: NAS CPU busy of 20-30% drawn on a 0-30 axis looked
 * saturated); a count prints as a whole number. */
static void test_percent_axis_and_counts(void **state)
{
    (void)state;
    char *cols[] = {"config", "cpu"};
    char *cells[] = {"a", "20.5", "b", "30"};
    lg_db_kind_t numeric[] = {LG_DB_TEXT, LG_DB_REAL};
    lg_table_t t = {2, 2, cols, cells, numeric};
    lg_chart_spec_t s = {
        .kind = LG_CHART_HBAR, .title = "NAS CPU", .x = "config", .y = "cpu", .unit = "%"};
    char *svg = s_svg(&s, &t);
    assert_non_null(strstr(svg, ">100<"));
    free(svg);
    s.unit[0] = 0; /* another unit: the axis ends near the data */
    svg = s_svg(&s, &t);
    assert_null(strstr(svg, ">100<"));
    free(svg);
    char buf[64];
    lg_fmt_cell("1", buf, sizeof buf);
    assert_string_equal(buf, "1");
    lg_fmt_cell("1234567", buf, sizeof buf);
    assert_string_equal(buf, "1,234,567");
    lg_fmt_cell("1.0000000000000000", buf, sizeof buf);
    assert_string_equal(buf, "1.00");
    lg_fmt_cell("1e-09", buf, sizeof buf);
    assert_string_equal(buf, "1e-09"); /* lg_fmt_num's two significant digits */
}

static void test_svg_error_bars(void **state)
{
    (void)state;
    char *cols[] = {"config", "iops", "lo", "hi"};
    char *cells[] = {"a", "100", "90", "110", "b", "80", NULL, NULL, "c", "50", "-20", "120"};
    lg_db_kind_t numeric[] = {LG_DB_TEXT, LG_DB_REAL, LG_DB_REAL, LG_DB_REAL};
    lg_table_t t = {4, 3, cols, cells, numeric};
    lg_chart_spec_t s = {.kind = LG_CHART_HBAR,
                         .title = "IOPS",
                         .x = "config",
                         .y = "iops",
                         .unit = "IOPS",
                         .ci_lo = "lo",
                         .ci_hi = "hi"};
    char *svg = s_svg(&s, &t);
    int paths = 0;
    for (const char *c = svg; (c = strstr(c, "class=\"ci\"")); c++)
        paths++;
    assert_int_equal(paths, 2); /* b has no interval */
    /* a's bar: x0, width w for 100; its whisker from x0 + 0.9 w to x0 + 1.1 w, capped twice. */
    const char *ra = strstr(svg, "<rect x=\""); /* the background has no x */
    double x0 = s_attr(ra, "<rect", "x"), w = s_attr(ra, "<rect", "width");
    const char *pa = strstr(svg, "class=\"ci\"");
    const char *d = strstr(pa, "d=\"M");
    assert_non_null(d);
    double xlo = strtod(d + 4, NULL);
    const char *h = strchr(d, 'H');
    double xhi = strtod(h + 1, NULL);
    if (fabs(xlo - (x0 + 0.9 * w)) > 0.2 || fabs(xhi - (x0 + 1.1 * w)) > 0.2)
        fail_msg("whisker %.1f..%.1f, want %.1f..%.1f", xlo, xhi, x0 + 0.9 * w, x0 + 1.1 * w);
    const char *end = strchr(d, '/');
    int caps = 0;
    for (const char *c = d; c < end; c++)
        caps += *c == 'V';
    assert_int_equal(caps, 2);
    assert_non_null(strstr(svg, "a: 100 IOPS, 95% CI 90.0 to 110 IOPS"));
    /* c's interval reaches below zero: drawn from the axis, without a cap there. */
    const char *pc = strstr(pa + 1, "class=\"ci\"");
    assert_non_null(pc);
    d = strstr(pc, "d=\"M");
    assert_true(fabs(strtod(d + 4, NULL) - x0) < 0.05);
    end = strchr(d, '/');
    caps = 0;
    for (const char *c = d; c < end; c++)
        caps += *c == 'V';
    assert_int_equal(caps, 1);
    /* The axis reaches the highest interval's end (120, past the bars' 100): ticks to 125. */
    assert_non_null(strstr(svg, ">125</text>"));
    free(svg);

    /* Vertical bars: the whisker runs up and down through the bar's middle. */
    s.kind = LG_CHART_BAR;
    svg = s_svg(&s, &t);
    paths = 0;
    for (const char *c = svg; (c = strstr(c, "class=\"ci\"")); c++)
        paths++;
    assert_int_equal(paths, 2);
    d = strstr(strstr(svg, "class=\"ci\""), "d=\"M");
    char *e;
    strtod(d + 4, &e);
    double ylo = strtod(e, &e);
    assert_int_equal(*e, 'V');
    double yhi = strtod(e + 1, NULL);
    assert_true(ylo > yhi); /* the low bound is lower on the page */
    free(svg);
}

/* Tick labels carry the decimals their step needs: 0.25 two, 2.5 one, 50 none. */
static void test_tick_decimals(void **state)
{
    (void)state;
    const struct {
        double v, step;
        const char *want;
    } cases[] = {{0.75, 0.25, "0.75"}, {0.5, 0.25, "0.50"},    {7.5, 2.5, "7.5"},
                 {5, 2.5, "5.0"},      {150, 50, "150"},       {2500, 250, "2,500"},
                 {0.3, 0.1, "0.3"},    {0.001, 0.001, "0.001"}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char buf[64];
        lg__svg_step_text(cases[i].v, cases[i].step, buf, sizeof buf);
        if (strcmp(buf, cases[i].want) != 0)
            fail_msg("%g at step %g: \"%s\", want \"%s\"", cases[i].v, cases[i].step, buf,
                     cases[i].want);
    }
}

/* y of the first <circle> whose tooltip ends with ": TEXT</title>". */
static double s_circle_y(const char *svg, const char *text)
{
    char want[128];
    snprintf(want, sizeof want, ": %s</title>", text);
    const char *hit = strstr(svg, want);
    if (!hit)
        fail_msg("no point \"%s\"", text);
    const char *c = hit;
    while (c > svg && strncmp(c, "<circle", 7) != 0)
        c--;
    return s_attr(c, "<circle", "cy");
}

static int s_count(const char *s, const char *what)
{
    int n = 0;
    for (const char *c = s; (c = strstr(c, what)); c++)
        n++;
    return n;
}

/* A run's IOPS (left axis) beside its NAS's CPU and disk busy (right axis, 0-100%): the right
 * series dashed, each axis its own scale, a NULL value a gap in its line (a missed scrape, an
 * interval not every agent reported), x from 0. */
static void test_svg_dual_axis(void **state)
{
    (void)state;
    char *cols[] = {"what", "elapsed_s", "iops", "busy_pct"};
    char *cells[] = {"IOPS",         "1",   "1000", NULL,  "IOPS",         "2",   "2000", NULL,
                     "IOPS",         "3",   NULL,   NULL,  "IOPS",         "4",   "4000", NULL,
                     "NAS CPU busy", "0.5", NULL,   "25",  "NAS CPU busy", "1.5", NULL,   "50",
                     "NAS CPU busy", "2.5", NULL,   NULL,  "NAS CPU busy", "3.5", NULL,   "75",
                     "NAS CPU busy", "4.5", NULL,   "100", "disk busy",    "1",   NULL,   "10",
                     "disk busy",    "2",   NULL,   "20",  "disk busy",    "3",   NULL,   "30"};
    lg_db_kind_t numeric[] = {LG_DB_TEXT, LG_DB_REAL, LG_DB_REAL, LG_DB_REAL};
    lg_table_t t = {4, 12, cols, cells, numeric};
    lg_chart_spec_t s = {.kind = LG_CHART_TIMESERIES,
                         .title = "Run 7",
                         .x = "elapsed_s",
                         .y = "iops",
                         .ytitle = "IOPS",
                         .unit = "IOPS",
                         .y2 = "busy_pct",
                         .y2title = "Busy",
                         .y2unit = "%",
                         .series = "what",
                         .xtitle = "Seconds since the run's start"};
    char *svg = s_svg(&s, &t);
    /* IOPS: 1-2, then 4 alone (a dot); CPU: 25-50, then 75-100; disk: one line. */
    assert_int_equal(s_count(svg, "<polyline"), 5);
    assert_int_equal(s_count(svg, "stroke-dasharray=\"6 3\""), 3);
    assert_int_equal(s_count(svg, "r=\"2.5\""), 1);
    /* Where a value is missing (IOPS at 3, CPU at 2.5): a mark on the time axis each. */
    assert_int_equal(s_count(svg, "class=\"missing\""), 2);
    assert_non_null(strstr(svg, "<title>NAS CPU busy: no value at elapsed_s = 2.5</title>"));
    /* The right axis: 0-100 % with its title; the left one to 4,000 IOPS. */
    assert_non_null(strstr(svg, "text-anchor=\"start\" font-size=\"10\" fill=\"#666\">100</text>"));
    assert_non_null(strstr(svg, ">Busy (%)</text>"));
    assert_non_null(strstr(svg, ">4,000</text>"));
    assert_non_null(strstr(svg, ">0</text>")); /* x from 0 */
    /* Independent scales: 100 % and 4,000 IOPS at the top, 50 % halfway, 25 % and 75 % evenly. */
    double y100 = s_circle_y(svg, "100 %"), y4000 = s_circle_y(svg, "4,000 IOPS");
    double y25 = s_circle_y(svg, "25.0 %"), y50 = s_circle_y(svg, "50.0 %"),
           y75 = s_circle_y(svg, "75.0 %"), y2000 = s_circle_y(svg, "2,000 IOPS");
    assert_true(fabs(y100 - y4000) < 0.05);
    assert_true(fabs((y25 - y50) - (y50 - y75)) < 0.15);
    assert_true(fabs(y2000 - y50) < 0.05); /* 2,000 of 4,000 and 50 of 100: the same height */
    assert_true(y25 > y50 && y50 > y100);
    assert_non_null(strstr(svg, "NAS CPU busy, elapsed_s = 1.5: 50.0 %"));
    /* The legend: a dashed line for the right axis's series, a square for IOPS. */
    assert_int_equal(s_count(svg, "stroke-dasharray=\"4 2\""), 2);
    /* No better-phrase under the title: each axis has its own. */
    assert_null(strstr(svg, "is better"));
    free(svg);
}

/* each: one chart per value of a column, in order of first appearance, named NAME-VALUE (made
 * unique), titled from its own rows, written as .svg, .csv (its rows only) and .json. */
static void test_each_parts(void **state)
{
    (void)state;
    char dir[] = "/tmp/lg_test_each_XXXXXX";
    assert_non_null(mkdtemp(dir));
    lg_site_chart_t c;
    memset(&c, 0, sizeof c);
    c.spec = (lg_chart_spec_t){.kind = LG_CHART_HBAR,
                               .name = "12_run",
                               .title = "Run {run_id}",
                               .subtitle = "{label}",
                               .x = "config",
                               .y = "iops",
                               .each = "run_id"};
    char *cols[] = {"run_id", "label", "config", "iops"};
    char *cells[] = {"57",  "a, 1", "a", "1", "9",   "b", "b", "2", "57", "a, 1", "c", "3",
                     "x/y", "p",    "d", "4", "x:y", "q", "e", "5", NULL, "n",    "f", "6"};
    lg_db_kind_t numeric[] = {LG_DB_REAL, LG_DB_TEXT, LG_DB_TEXT, LG_DB_REAL};
    lg_table_t src = {4, 6, cols, cells, numeric};
    /* the site frees what it owns: give it a copy */
    lg_table_t *t = &c.table;
    t->ncols = 4;
    t->nrows = 6;
    t->cols = calloc(4, sizeof *t->cols);
    t->kind = calloc(4, sizeof *t->kind);
    t->cells = calloc(24, sizeof *t->cells);
    for (int i = 0; i < 4; i++) {
        t->cols[i] = strdup(cols[i]);
        t->kind[i] = numeric[i];
    }
    for (int i = 0; i < 24; i++)
        t->cells[i] = src.cells[i] ? strdup(src.cells[i]) : NULL;
    assert_int_equal(lg_site_split(&c), 0);
    assert_int_equal(c.nparts, 5);
    const char *names[] = {"12_run-57", "12_run-9", "12_run-x-y", "12_run-x-y-2", "12_run-null"};
    const char *titles[] = {"Run 57", "Run 9", "Run x/y", "Run x:y", "Run "}; /* NULL: none */
    const int rows[] = {2, 1, 1, 1, 1};
    lg_palette_t pal = {0};
    for (int k = 0; k < 5; k++) {
        assert_string_equal(c.parts[k].spec.name, names[k]);
        assert_string_equal(c.parts[k].spec.title, titles[k]);
        assert_int_equal(c.parts[k].table.nrows, rows[k]);
        assert_int_equal(lg_site_write(dir, &c.parts[k], &pal), 0);
    }
    /* part 57's files: its two rows in the CSV, its value in the JSON, its subtitle drawn */
    char path[128], buf[4096];
    snprintf(path, sizeof path, "%s/12_run-57.csv", dir);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    assert_string_equal(buf, "run_id,label,config,iops\n57,\"a, 1\",a,1\n57,\"a, 1\",c,3\n");
    snprintf(path, sizeof path, "%s/12_run-57.json", dir);
    f = fopen(path, "r");
    assert_non_null(f);
    n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    assert_non_null(strstr(buf, "\"each_value\": \"57\""));
    assert_non_null(strstr(buf, "\"title\": \"Run 57\""));
    snprintf(path, sizeof path, "%s/12_run-57.svg", dir);
    f = fopen(path, "r");
    assert_non_null(f);
    n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    assert_non_null(strstr(buf, ">a, 1 · higher is better</text>"));
    assert_int_equal(lg_site_write_index(dir, &c, 1, NULL, NULL, &pal), 0);
    snprintf(path, sizeof path, "%s/index.html", dir);
    f = fopen(path, "r");
    assert_non_null(f);
    char *page = calloc(1, 1 << 20);
    n = fread(page, 1, (1 << 20) - 1, f);
    fclose(f);
    for (int k = 0; k < 5; k++) {
        char want[64];
        snprintf(want, sizeof want, "<section id=\"%s\">", names[k]);
        assert_non_null(strstr(page, want));
    }
    free(page);
    lg_palette_clear(&pal);
    lg_site_chart_clear(&c);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
}

/* ---- the escapers lg-export and lgctl share (core/lg_esc.c) and the logger's one line ---- */

/* What fn wrote to a memory stream, as a string the caller frees. */
static char *s_written(void (*fn)(FILE *, const char *, int), const char *v, int kind)
{
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    assert_non_null(f);
    fn(f, v, kind);
    fclose(f);
    return out;
}

static void s_csv(FILE *f, const char *v, int kind)
{
    lg_csv_write(f, v, (lg_csv_kind_t)kind);
}
static void s_xml(FILE *f, const char *v, int kind)
{
    (void)kind;
    lg_xml_esc(f, v);
}

static void test_escape_control_characters(void **state)
{
    (void)state;
    char buf[256];
    assert_string_equal(lg_esc_ctrl("\x1b[2J\x1b[1;1HFAKE: all runs passed", buf, sizeof buf),
                        "\\x1b[2J\\x1b[1;1HFAKE: all runs passed");
    assert_string_equal(lg_esc_ctrl("a\nb\tc\x7f-\xc2\x9b-\r", buf, sizeof buf),
                        "a\\x0ab\\x09c\\x7f-\\u009b-\\x0d");
    assert_string_equal(lg_esc_ctrl("\x01\x08", buf, sizeof buf), "\\x01\\x08");
    /* printable text, UTF-8 included, is left as it is */
    assert_string_equal(lg_esc_ctrl("caf\xc3\xa9 \xc2\xb5s \xc2\xb1 \\x1b", buf, sizeof buf),
                        "caf\xc3\xa9 \xc2\xb5s \xc2\xb1 \\x1b");
    assert_false(lg_has_ctrl("caf\xc3\xa9 \xc2\xb5s"));
    assert_true(lg_has_ctrl("x\xc2\x85"));
    /* cut to fit: never inside an escape or a character */
    assert_string_equal(lg_esc_ctrl("\x1b\x1b", buf, 6), "\\x1b");
    assert_string_equal(lg_esc_ctrl("a\xc3\xa9", buf, 3), "a");
    char *d = lg_esc_ctrl_dup("\xc2\x9b\xc2\x9b\xc2\x9b\x1b");
    assert_string_equal(d, "\\u009b\\u009b\\u009b\\x1b");
    free(d);
}

static void test_csv_formula_guard(void **state)
{
    (void)state;
    static const struct {
        const char *in;
        int kind;
        const char *out;
    } cases[] = {
        {"=cmd|' /C calc'!A0", LG_CSV_TEXT, "\"'=cmd|' /C calc'!A0\""},
        {"=HYPERLINK(\"http://x\")", LG_CSV_TEXT, "\"'=HYPERLINK(\"\"http://x\"\")\""},
        {"+1+cmd", LG_CSV_TEXT, "\"'+1+cmd\""},
        {"-2+3", LG_CSV_TEXT, "\"'-2+3\""},
        {"@SUM(A1:A9)", LG_CSV_TEXT, "\"'@SUM(A1:A9)\""},
        {"\x1b[2J", LG_CSV_TEXT, "\\x1b[2J"},
        {"\tx", LG_CSV_TEXT, "\\x09x"}, /* escaped, it no longer starts with a tab */
        {"a\nb", LG_CSV_TEXT, "a\\x0ab"},
        {"a,b", LG_CSV_TEXT, "\"a,b\""},
        {"-", LG_CSV_TEXT, "-"},
        {"plain", LG_CSV_TEXT, "plain"},
        /* figures lg formatted: numbers stay numbers */
        {"-12.5", LG_CSV_FIGURE, "-12.5"},
        {"+3.1%", LG_CSV_FIGURE, "+3.1%"},
        {"-1,234.5", LG_CSV_FIGURE, "\"-1,234.5\""},
        {"-1.5e-05", LG_CSV_FIGURE, "-1.5e-05"},
        {"-", LG_CSV_FIGURE, "-"},
        {"-cmd", LG_CSV_FIGURE, "\"'-cmd\""},
        {"=1+1", LG_CSV_FIGURE, "\"'=1+1\""},
        {"-Infinity", LG_CSV_NUMBER, "-Infinity"},
        {"-3", LG_CSV_NUMBER, "-3"},
    };
    int failed = 0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *got = s_written(s_csv, cases[i].in, cases[i].kind);
        if (strcmp(got, cases[i].out) != 0) {
            print_error("csv %zu: got [%s], want [%s]\n", i, got, cases[i].out);
            failed++;
        }
        free(got);
    }
    char *got = s_written(s_csv, NULL, LG_CSV_TEXT);
    assert_string_equal(got, "");
    free(got);
    assert_int_equal(failed, 0);
}

static void test_xml_escape(void **state)
{
    (void)state;
    static const struct {
        const char *in, *out;
    } cases[] = {
        {"a\x01\x08-", "a\xef\xbf\xbd\xef\xbf\xbd-"},
        {"<&>\"", "&lt;&amp;&gt;&quot;"},
        {"\x1b[2J", "\xef\xbf\xbd[2J"},
        {"t\tn\nr\r", "t\tn\nr\r"},
        {"\x7f\xc2\x9b", "\xef\xbf\xbd\xef\xbf\xbd"},
        {"\xc2\xb5s \xe2\x80\xa6 \xf0\x9f\x93\x88", "\xc2\xb5s \xe2\x80\xa6 \xf0\x9f\x93\x88"},
        {"\xff", "\xef\xbf\xbd"},
        {"cut\xc3", "cut\xef\xbf\xbd"},
        {"\xc0\xaf", "\xef\xbf\xbd\xef\xbf\xbd"},                 /* overlong '/' */
        {"\xed\xa0\x80", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"}, /* a surrogate */
        {"\xef\xbf\xbe", "\xef\xbf\xbd"},                         /* U+FFFE */
    };
    int failed = 0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *got = s_written(s_xml, cases[i].in, 0);
        if (strcmp(got, cases[i].out) != 0) {
            print_error("xml %zu: got [%s], want [%s]\n", i, got, cases[i].out);
            failed++;
        }
        free(got);
    }
    assert_int_equal(failed, 0);
}

static void s_md(FILE *f, const char *v, int kind)
{
    (void)kind;
    lg_md_write(f, v);
}

/* Markdown is rendered on web pages: a label is text there, never a tag, an entity, a code span
 * or a cell boundary of its own. */
static void test_markdown_escape(void **state)
{
    (void)state;
    static const struct {
        const char *in, *out;
    } cases[] = {
        {"<img src=x onerror=alert(1)>", "&lt;img src=x onerror=alert(1)&gt;"},
        {"<script>alert(1)</script>", "&lt;script&gt;alert(1)&lt;/script&gt;"},
        {"a&amp;b", "a&amp;amp;b"},
        {"`rm -rf /`", "&#96;rm -rf /&#96;"},
        {"=cmd|' /C calc'!A0", "=cmd\\|' /C calc'!A0"},
        /* a backslash that would escape what follows (our escape, a pipe, a quote) is doubled */
        {"a\\|b", "a\\\\\\|b"},
        {"a\\<b", "a\\\\&lt;b"},
        {"end\\", "end\\\\"},
        {"\\x1b stays", "\\x1b stays"},
        {"\x1b[2J\xc2\x9b", "\\x1b\\[2J\\u009b"},
        /* no link or image of its own */
        {"[x](javascript:alert(1))", "\\[x\\](javascript:alert(1))"},
        {"![p](http://evil/t.png)", "!\\[p\\](http://evil/t.png)"},
        {"caf\xc3\xa9 \xc2\xb5s", "caf\xc3\xa9 \xc2\xb5s"},
    };
    int failed = 0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *got = s_written(s_md, cases[i].in, 0);
        char buf[256];
        if (strcmp(got, cases[i].out) != 0 ||
            strcmp(lg_md_esc(cases[i].in, buf, sizeof buf), cases[i].out) != 0) {
            print_error("markdown %zu: got [%s] and [%s], want [%s]\n", i, got, buf, cases[i].out);
            failed++;
        }
        free(got);
    }
    assert_int_equal(failed, 0);
    /* cut to fit: never inside an entity or a character */
    char buf[16];
    assert_string_equal(lg_md_esc("ab<c", buf, 6), "ab");
    assert_string_equal(lg_md_esc("a\xc3\xa9", buf, 3), "a");
    /* lg_esc_text: Markdown or the terminal's escaping */
    assert_string_equal(lg_esc_text("<b>\x1b", 1, buf, sizeof buf), "&lt;b&gt;\\x1b");
    assert_string_equal(lg_esc_text("<b>\x1b", 0, buf, sizeof buf), "<b>\\x1b");
}

/* A chart of labels holding control characters stays well-formed XML: none of its bytes is a
 * control character XML 1.0 forbids. */
static void test_svg_hostile_labels(void **state)
{
    (void)state;
    char *cols[] = {"config", "iops"};
    char *cells[] = {"\x01\x08", "100", "\x1b[2J\x1b[1;1HFAKE", "200", "a\nb\xc2\x9b", "300"};
    lg_db_kind_t numeric[] = {LG_DB_TEXT, LG_DB_REAL};
    lg_table_t t = {2, 3, cols, cells, numeric};
    for (int kind = LG_CHART_HBAR; kind <= LG_CHART_BAR; kind++) {
        lg_chart_spec_t s = {.kind = (lg_chart_kind_t)kind,
                             .title = "t\x0c",
                             .x = "config",
                             .y = "iops",
                             .unit = "IOPS"};
        char err[256] = "";
        assert_int_equal(lg_chart_check(&s, &t, err, sizeof err), 0);
        char *svg = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&svg, &len);
        lg_palette_t p = {0};
        lg_svg_write(f, &s, &t, &p);
        fclose(f);
        for (size_t i = 0; i < len; i++) {
            unsigned char c = (unsigned char)svg[i];
            if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7f ||
                (c == 0xc2 && i + 1 < len && (unsigned char)svg[i + 1] >= 0x80 &&
                 (unsigned char)svg[i + 1] <= 0x9f))
                fail_msg("chart %d: byte 0x%02x at %zu", kind, c, i);
        }
        assert_non_null(strstr(svg, "\xef\xbf\xbd[2J"));
        free(svg);
        lg_palette_clear(&p);
    }
}

/* A message is one log line whatever its arguments hold: a label's newline cannot start a line
 * that looks like the controller's own; text meant to span lines goes line by line. */
static void test_log_one_line(void **state)
{
    (void)state;
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    assert_non_null(f);
    lg_log_init("lg-test");
    lg_log_set_file(f);
    lg_info("config \"%s\" done",
            "x\n2026-01-01T00:00:00.000Z lg-controller: info: all passed\x1b[2J");
    lg_log_detail_text("first\r\nsecond\x1b\n");
    lg_log_set_file(NULL);
    fclose(f);
    assert_string_equal(out,
                        "lg-test: info: config \"x\\x0a2026-01-01T00:00:00.000Z lg-controller: "
                        "info: all passed\\x1b[2J\" done\n"
                        "lg-test: detail: first\n"
                        "lg-test: detail: second\\x1b\n");
    free(out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_directive),
        cmocka_unit_test(test_errors_name_the_line),
        cmocka_unit_test(test_campaign_placeholder),
        cmocka_unit_test(test_number_format),
        cmocka_unit_test(test_percent_axis_and_counts),
        cmocka_unit_test(test_timestamps),
        cmocka_unit_test(test_check_x),
        cmocka_unit_test(test_svg_seconds_series),
        cmocka_unit_test(test_new_directives),
        cmocka_unit_test(test_wrap),
        cmocka_unit_test(test_svg_long_names_wrap),
        cmocka_unit_test(test_svg_error_bars),
        cmocka_unit_test(test_tick_decimals),
        cmocka_unit_test(test_svg_dual_axis),
        cmocka_unit_test(test_each_parts),
        cmocka_unit_test(test_escape_control_characters),
        cmocka_unit_test(test_csv_formula_guard),
        cmocka_unit_test(test_xml_escape),
        cmocka_unit_test(test_markdown_escape),
        cmocka_unit_test(test_svg_hostile_labels),
        cmocka_unit_test(test_log_one_line),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
