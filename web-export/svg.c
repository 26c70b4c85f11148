/* svg.c: charts drawn by lg itself as standalone SVG or inside the HTML page: the entry points,
 * which hand each chart kind to its renderer: svg_bars.c (grouped bars in the style of published
 * reviews), svg_lines.c (sweeps, scatter, time series, curves) and svg_dual.c (a time series with
 * a second value axis). What they share is in svg_common.c. */
#include "svg_int.h"

static void s_write(FILE *out, const lg__svg_opts_t *op, const lg_chart_spec_t *s,
                    const lg_table_t *t, lg_palette_t *p)
{
    if (s->kind == LG_CHART_HBAR || s->kind == LG_CHART_BAR)
        lg__svg_bars(out, op, s, t, p, s->kind == LG_CHART_BAR);
    else if (s->kind == LG_CHART_TIMESERIES && s->y2[0])
        lg__svg_dual(out, op, s, t, p);
    else
        lg__svg_lines(out, op, s, t, p);
}

void lg_svg_write(FILE *out, const lg_chart_spec_t *s, const lg_table_t *t, lg_palette_t *p)
{
    lg__svg_opts_t op = {true, "c"};
    fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", out);
    s_write(out, &op, s, t, p);
}

void lg_svg_write_inline(FILE *out, const lg_chart_spec_t *s, const lg_table_t *t, lg_palette_t *p,
                         const char *id)
{
    lg__svg_opts_t op = {false, id};
    s_write(out, &op, s, t, p);
}