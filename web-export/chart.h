/* chart.h: one chart of lg-export: the directives read from the comment header of a query file,
 * the query's rows, and the palette that gives a series the same colour in every chart. */
#ifndef LG_EXPORT_CHART_H
#define LG_EXPORT_CHART_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "query.h"  /* the file a chart comes from: its directives and SQL */
#include "render.h" /* lg_table_t: a query's rows as typed text */

/* CURVE: numeric x, points joined in query order (a load-latency curve) */
typedef enum {
    LG_CHART_HBAR,
    LG_CHART_BAR,
    LG_CHART_LINE,
    LG_CHART_SCATTER,
    LG_CHART_TIMESERIES,
    LG_CHART_CURVE
} lg_chart_kind_t;
typedef enum { LG_SORT_NONE, LG_SORT_ASC, LG_SORT_DESC } lg_sort_t;

typedef struct {
    char name[256]; /* file name without .sql: the stem of every output file */
    lg_chart_kind_t kind;
    char title[512];
    char subtitle[1024]; /* filled from the rows, a run's whole config name fits */
    char x[64], y[64], series[64];
    char xtitle[128], ytitle[128]; /* axis titles in words; "" = the column's name */
    char unit[32];
    char limit[64];      /* a column of y values drawn as dashed lines across (a latency limit) */
    char mark[64];       /* a boolean column: its true rows' points are ringed and labelled */
    char mark_label[64]; /* the label of a marked point ("knee") */
    /* The 95% confidence interval of each bar's value (bar, hbar): columns of its low and high
     * bound, drawn as an error bar where both are there (a figure with repeats). */
    char ci_lo[64], ci_hi[64];
    /* A second value column against an axis at the right (timeseries): a series whose rows have
     * values there is drawn against it, dashed; NULL in a series' own column breaks its line. */
    char y2[64];
    char y2title[128];
    char y2unit[32]; /* "%": the axis spans 0-100 (more when a value is above) */
    /* One chart per distinct value of this column (e.g. a run): files NAME-VALUE.*, and {col}
     * in the title and subtitle from that chart's rows. */
    char each[64];
    /* A text column of what a reader must know about a row's figure (a saturated load host, a
     * failed point, a steady state not reached): its lines are drawn under the chart, once each,
     * and listed at the top of index.html. */
    char caveat[64];
    /* A column whose value labels each point of a line or curve ("4T8Q"). */
    char label[64];
    /* Two columns of x values (timeseries): the span between them is shaded, e.g. a run's
     * measured window. */
    char win_lo[64], win_hi[64];
    /* One or two columns the charts of an each query are grouped under in index.html (e.g.
     * profile and config). */
    char group[2][64];
    /* Filled by lg-export from the rows (lg_site_caveats): the distinct caveat lines, each
     * ending in '\n', drawn under the chart. */
    char caveats[4096];
    lg_sort_t sort;
    bool lower_is_better;
    bool log;
    char *sql; /* the query with :campaign made $1::text; owned, lg_chart_spec_clear */
    bool uses_campaign;
} lg_chart_spec_t;

/* Series name -> colour index, in order of first use over the whole export. */
typedef struct {
    char *names[64];
    int n;
} lg_palette_t;

/* Parse a query file: directives "-- key: value" (or "-- flag") at its top, then SQL. Returns 0,
 * or -1 with "FILE:LINE: message" in err. spec->sql is owned by spec. */
int lg_chart_parse(const char *path, lg_chart_spec_t *spec, char *err, size_t errlen);
/* Frees what spec holds (its sql; not spec itself) and zeroes it. */
void lg_chart_spec_clear(lg_chart_spec_t *spec);
const char *lg_chart_kind_name(lg_chart_kind_t k);

/* The colour for a series name (#rrggbb), registering it on first use. */
const char *lg_palette_color(lg_palette_t *p, const char *series);
/* Frees the names (not p itself) and zeroes p: empty, ready for use again. */
void lg_palette_clear(lg_palette_t *p);

/* "12,345", "1,234.5", "12.35", "0.123", "0.0012": thousands separators, precision by
 * magnitude (two significant digits below 0.01, "%.2g" below 1e-6), "n/a" when not finite. */
void lg_fmt_num(double v, char *buf, size_t len);
/* A numeric cell as the database wrote it: a whole number (a count, an integer column: no '.' or
 * exponent) with thousands separators and no decimals ("runs 1", not "1.00"); else lg_fmt_num. */
void lg_fmt_cell(const char *text, char *buf, size_t len);
/* The line under a title: "SUBTITLE · lower is better · log scale" (no better-phrase with a
 * second axis). */
void lg_chart_subline(const lg_chart_spec_t *s, char *buf, size_t len);
/* A PostgreSQL timestamp or timestamptz as text ("2026-11-30 13:49:15.25+01", ISO 8601 'T' and
 * 'Z' too) to seconds since the epoch; no offset means UTC. 0, or -1 when s is not one. */
int lg_chart_parse_time(const char *s, double *epoch);

/* Check that the columns the directives name exist and y holds numbers; -1 with err. */
int lg_chart_check(const lg_chart_spec_t *s, const lg_table_t *t, char *err, size_t errlen);
/* Text for XML and HTML: < > & and " as entities, what XML 1.0 forbids (control characters,
 * malformed UTF-8) as U+FFFD (lg_xml_write). */
void lg_xml_esc(FILE *o, const char *s);
/* Write the chart as a standalone SVG document (800 px wide) that carries its drawn title. */
void lg_svg_write(FILE *out, const lg_chart_spec_t *s, const lg_table_t *t, lg_palette_t *p);
/* The same chart as an <svg> element for an HTML page that shows the title and subtitle itself:
 * no drawn title or subtitle (the <title> stays for assistive technology); element ids start
 * with id, which must be unique in the page and hold no spaces. */
void lg_svg_write_inline(FILE *out, const lg_chart_spec_t *s, const lg_table_t *t, lg_palette_t *p,
                         const char *id);

#endif
