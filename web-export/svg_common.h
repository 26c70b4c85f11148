/* svg_common.h: what the SVG renderers of lg-export share (svg_common.c): text measure, scales
 * and ticks, the header with its legend, labels, the root element, a numeric x axis. Not for use
 * outside web-export/. */
#ifndef LG_EXPORT_SVG_COMMON_H
#define LG_EXPORT_SVG_COMMON_H

#include "chart.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define LG_SVG_W 800.0
#define LG_SVG_FONT "font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\""

/* How a chart is written: standalone (an .svg file that carries its drawn title) or inside the
 * HTML page, which shows the title and subtitle as text and needs ids unique in the page. */
typedef struct {
    bool standalone;
    const char *id;
} lg__svg_opts_t;

typedef struct {
    double lo, hi;
    bool log;
} lg__svg_scale_t;

/* Advance width of text at size px in DejaVu Sans, the widest of the fonts we name. */
double lg__svg_text_w(const char *s, double size);
/* Text on a bar of this fill: white on dark colours, near-black on light ones. */
const char *lg__svg_on(const char *fill);
/* Distinct values of column c (c < 0: one, "") in order of first appearance; the strings are the
 * table's. Returns the count; *out is owned by the caller (free), NULL when out of memory. */
int lg__svg_distinct(const lg_table_t *t, int c, const char ***out);
/* Index of x (NULL: "(null)") in v, -1 when absent. */
int lg__svg_index(const char **v, int n, const char *x);
double lg__svg_nice(double x);
/* Linear: 0 .. a nice top above max. Log: whole decades around [min, max]. */
lg__svg_scale_t lg__svg_scale(double mn, double mx, bool logscale);
/* v's position on the scale, 0 at lo and 1 at hi. */
double lg__svg_pos(const lg__svg_scale_t *s, double v);
/* Tick values into t (room for 12); returns the count. */
int lg__svg_ticks(const lg__svg_scale_t *s, double *t);
/* A <text> element holding text escaped for XML. */
void lg__svg_text(FILE *o, double x, double y, const char *anchor, const char *attrs,
                  const char *text);
/* Text broken into lines (lg__svg_wrap): line[0 .. n-1], owned by the struct. */
typedef struct {
    char *buf;
    const char **line;
    int n;
    const char *one[1]; /* out of memory: the text as its one line */
} lg__svg_wrap_t;
/* Break s into lines no wider than max_px at size px: at spaces and after - / , ; _, and a word
 * wider than a line between characters; nothing is left out. Free what w holds with
 * lg__svg_wrap_clear (also after -1, out of memory, when w holds s as its one line). */
int lg__svg_wrap(lg__svg_wrap_t *w, const char *s, double size, double max_px);
void lg__svg_wrap_clear(lg__svg_wrap_t *w);
/* The lines as one <text> (a <tspan> per line, lh px apart), the first with its baseline at y. */
void lg__svg_text_lines(FILE *o, double x, double y, double lh, const char *anchor,
                        const char *attrs, const lg__svg_wrap_t *w);
/* A tick label with the decimals the step between ticks needs. */
void lg__svg_step_text(double v, double step, char *buf, size_t len);
/* Tick i of the n in t, formatted alike for the whole axis. */
void lg__svg_tick_text(const double *t, int n, int i, char *buf, size_t len);
/* Height above the plot: title, subtitle, legend rows (the y lg__svg_header returns, plus 8).
 * dashed: NULL, or per series whether it is drawn dashed (a right axis's). */
double lg__svg_header_h(const lg__svg_opts_t *op, const lg_chart_spec_t *s, const char **series,
                        const bool *dashed, int ns, bool has_series);
/* Header: title and subtitle (standalone only; wrapped when long) and the legend; returns the y
 * where the plot starts. */
double lg__svg_header(FILE *o, const lg__svg_opts_t *op, const lg_chart_spec_t *s,
                      const char **series, const bool *dashed, int ns, lg_palette_t *p,
                      bool has_series);
/* An axis's title: "IOPS", "Average latency (ms)": title (col when empty) and the unit unless
 * the title is the unit. */
void lg__svg_axis_title(char *buf, size_t len, const char *title, const char *col,
                        const char *unit);
/* Row r's number in column c, NAN for NULL. */
double lg__svg_value(const lg_table_t *t, int r, int c);
/* "12,345 IOPS": a value with its unit. */
void lg__svg_label(char *buf, size_t len, double v, const char *unit);
/* The root element with its accessible name and description, and a white background. */
void lg__svg_root(FILE *o, const lg__svg_opts_t *op, const lg_chart_spec_t *s, double H,
                  const char *desc);

/* The chart's caveat lines (s->caveats), each "Caveat: ..." wrapped to the width, from y down;
 * returns the height they take (0 without any). o NULL: only the height. */
double lg__svg_caveats(FILE *o, const lg_chart_spec_t *s, double y);

/* x of each row for scatter and time series: the number, or for a time series of
 * timestamps the seconds since the earliest one (NAN where missing); *clock when x was
 * timestamps. Caller frees; NULL when out of memory. */
double *lg__svg_xvalues(const lg_chart_spec_t *s, const lg_table_t *t, int xc, bool *clock);
/* A numeric x axis under a plot from x0, pw wide, at y = yb: ticks (seconds, or m:ss and h:mm:ss
 * for timestamps), the line and its title. */
void lg__svg_num_xaxis(FILE *o, const lg_chart_spec_t *s, const lg__svg_scale_t *xs, bool clock,
                       double x0, double pw, double yb);

#endif
