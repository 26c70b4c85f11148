/* svg_int.h: the SVG renderers of lg-export, one file per family (svg_bars.c, svg_lines.c,
 * svg_dual.c), which svg.c's entry points hand each chart to; what they share is svg_common.h.
 * Not for use outside web-export/. */
#ifndef LG_EXPORT_SVG_INT_H
#define LG_EXPORT_SVG_INT_H

#include "svg_common.h"

/* Grouped bars (svg_bars.c): categories (x) each with one bar per series; horizontal unless
 * vertical. */
void lg__svg_bars(FILE *o, const lg__svg_opts_t *op, const lg_chart_spec_t *s, const lg_table_t *t,
                  lg_palette_t *p, bool vertical);
/* Lines (and points) of y over x per series (svg_lines.c): line, scatter, timeseries, curve. */
void lg__svg_lines(FILE *o, const lg__svg_opts_t *op, const lg_chart_spec_t *s, const lg_table_t *t,
                   lg_palette_t *p);
/* A time series with a second value axis at the right (svg_dual.c): timeseries with y2. */
void lg__svg_dual(FILE *o, const lg__svg_opts_t *op, const lg_chart_spec_t *s, const lg_table_t *t,
                  lg_palette_t *p);

#endif
