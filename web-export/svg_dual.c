/* svg_dual.c: a time series with a second value axis at the right (the y2 directive): e.g. a
 * run's IOPS against the left axis and its NAS's CPU and busiest disk busy (%) against the right.
 * A series whose rows have y2 values is drawn against the right axis, dashed; a row whose value
 * is NULL (a missed scrape, a second not every agent reported) breaks its series' line: a gap,
 * never a line drawn across. */
#include "lg_esc.h"
#include "svg_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define W LG_SVG_W

/* The series of a dual chart: which axis each is on (0: no value at all, not drawn). */
typedef struct {
    const lg_chart_spec_t *s;
    const lg_table_t *t;
    int xc, yc, y2c, sc, ns;
    const char **ser;
    int *axis;          /* per series: 1 left, 2 right, 0 none */
    bool *dashed;       /* per series: axis == 2 (the legend's swatch) */
    const char **shown; /* the series drawn, for the legend */
    bool *shown_dashed;
    int nshown;
    double *xv; /* per row */
    bool clock;
    lg__svg_scale_t xs, ys, y2s;
} s_dual_t;

static void s_clear(s_dual_t *d)
{
    free(d->ser);
    free(d->axis);
    free(d->dashed);
    free(d->shown);
    free(d->shown_dashed);
    free(d->xv);
    memset(d, 0, sizeof *d);
}

/* Row r's value on its series' axis (NAN: none). */
static double s_val(const s_dual_t *d, int r, int axis)
{
    return lg__svg_value(d->t, r, axis == 2 ? d->y2c : d->yc);
}

static int s_series_of(const s_dual_t *d, int r)
{
    return d->sc >= 0 ? lg__svg_index(d->ser, d->ns, lg_table_get(d->t, r, d->sc)) : 0;
}

/* The scales: x over the rows, the left one over the left series' values (from 0, or decades on
 * a log scale), the right one over the right's (0-100 for "%", more when a value is above). */
static void s_scales(s_dual_t *d)
{
    double xmn = INFINITY, xmx = -INFINITY, mn[3] = {INFINITY, INFINITY, INFINITY},
           mx[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (int r = 0; r < d->t->nrows; r++) {
        int j = s_series_of(d, r), a = j >= 0 ? d->axis[j] : 0;
        if (isfinite(d->xv[r])) {
            xmn = fmin(xmn, d->xv[r]);
            xmx = fmax(xmx, d->xv[r]);
        }
        double v = a ? s_val(d, r, a) : NAN;
        if (!isfinite(v) || (a == 1 && d->s->log && v <= 0))
            continue;
        mn[a] = fmin(mn[a], v);
        mx[a] = fmax(mx[a], v);
    }
    d->ys = lg__svg_scale(isfinite(mn[1]) ? mn[1] : 0, isfinite(mx[1]) ? mx[1] : 1, d->s->log);
    if (!d->s->log && isfinite(mn[1]) && mn[1] > 0)
        d->ys.lo = 0;
    bool pct = !strcmp(d->s->y2unit, "%");
    double top = isfinite(mx[2]) ? mx[2] : 1;
    d->y2s = lg__svg_scale(isfinite(mn[2]) ? fmin(mn[2], 0) : 0, pct ? fmax(top, 100) : top, false);
    d->xs.lo = isfinite(xmn) && xmn < 0 ? xmn : 0; /* seconds since a start: from 0 */
    d->xs.hi = isfinite(xmx) && xmx > xmn ? xmx : d->xs.lo + 1;
    d->xs.log = false;
}

/* Reads the table: the series, their axes, x of each row. -1 when out of memory. */
static int s_load(s_dual_t *d, const lg_chart_spec_t *s, const lg_table_t *t)
{
    d->s = s;
    d->t = t;
    d->xc = lg_table_col(t, s->x);
    d->yc = lg_table_col(t, s->y);
    d->y2c = lg_table_col(t, s->y2);
    d->sc = s->series[0] ? lg_table_col(t, s->series) : -1;
    d->ns = lg__svg_distinct(t, d->sc, &d->ser);
    d->axis = calloc((size_t)d->ns + 1, sizeof *d->axis);
    d->dashed = calloc((size_t)d->ns + 1, sizeof *d->dashed);
    d->shown = calloc((size_t)d->ns + 1, sizeof *d->shown);
    d->shown_dashed = calloc((size_t)d->ns + 1, sizeof *d->shown_dashed);
    d->xv = lg__svg_xvalues(s, t, d->xc, &d->clock);
    if (!d->ser || !d->axis || !d->dashed || !d->shown || !d->shown_dashed || !d->xv)
        return -1;
    for (int r = 0; r < t->nrows; r++) {
        int j = s_series_of(d, r);
        if (j < 0)
            continue;
        if (lg_table_get(t, r, d->y2c))
            d->axis[j] = 2; /* a value on the right axis puts the series there */
        else if (lg_table_get(t, r, d->yc) && d->axis[j] == 0)
            d->axis[j] = 1;
    }
    for (int j = 0; j < d->ns; j++) {
        d->dashed[j] = d->axis[j] == 2;
        if (d->axis[j]) {
            d->shown[d->nshown] = d->ser[j];
            d->shown_dashed[d->nshown++] = d->dashed[j];
        }
    }
    s_scales(d);
    return 0;
}

/* A value axis: grid lines (left only), tick labels on its side, its title turned upright. */
static void s_value_axis(FILE *o, const lg__svg_scale_t *sc, bool right, double x0, double pw,
                         double y0, double ph, const char *title)
{
    double ticks[12];
    char buf[64];
    int nt = lg__svg_ticks(sc, ticks);
    for (int i = 0; i < nt; i++) {
        double y = y0 + ph - lg__svg_pos(sc, ticks[i]) * ph;
        if (!right)
            fprintf(o,
                    "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#e3e3e3\"/>\n",
                    x0, y, x0 + pw, y);
        else
            fprintf(o, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#888\"/>\n",
                    x0 + pw, y, x0 + pw + 4, y);
        lg__svg_tick_text(ticks, nt, i, buf, sizeof buf);
        lg__svg_text(o, right ? x0 + pw + 7 : x0 - 6, y + 4, right ? "start" : "end",
                     "font-size=\"10\" fill=\"#666\"", buf);
    }
    if (right)
        fprintf(o, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#888\"/>\n",
                x0 + pw, y0, x0 + pw, y0 + ph);
    fprintf(o,
            "<text transform=\"translate(%.1f,%.1f) rotate(%d)\" text-anchor=\"middle\" "
            "font-size=\"11\" fill=\"#444\">",
            right ? W - 12 : 16.0, y0 + ph / 2, right ? 90 : -90);
    lg_xml_esc(o, title);
    fputs("</text>\n", o);
}

/* A point's tooltip: "series, x = 12.5: 45.2 %". */
static void s_point_title(FILE *o, const s_dual_t *d, int r, int j, double v)
{
    char buf[128];
    const char *xtext = lg_table_get(d->t, r, d->xc);
    lg__svg_label(buf, sizeof buf, v, d->axis[j] == 2 ? d->s->y2unit : d->s->unit);
    fputs("<title>", o);
    if (d->sc >= 0) {
        lg_xml_esc(o, d->ser[j]);
        fputs(", ", o);
    }
    lg_xml_esc(o, d->s->x);
    fputs(" = ", o);
    lg_xml_esc(o, xtext ? xtext : "");
    fputs(": ", o);
    lg_xml_esc(o, buf);
    fputs("</title>", o);
}

/* The median step of x between series j's values (its sample interval), NAN under two. */
static double s_median_step(const s_dual_t *d, int j)
{
    double *st = malloc(((size_t)d->t->nrows + 1) * sizeof *st), last = NAN, med = NAN;
    int n = 0;
    for (int r = 0; st && r < d->t->nrows; r++) {
        if (s_series_of(d, r) != j || !isfinite(s_val(d, r, d->axis[j])) || !isfinite(d->xv[r]))
            continue;
        if (isfinite(last) && d->xv[r] > last)
            st[n++] = d->xv[r] - last;
        last = d->xv[r];
    }
    for (int a = 1; a < n; a++)
        for (int b = a; b > 0 && st[b - 1] > st[b]; b--) {
            double tmp = st[b];
            st[b] = st[b - 1];
            st[b - 1] = tmp;
        }
    if (n > 0)
        med = st[n / 2];
    free(st);
    return med;
}

/* The window directive's span (a run's measured window), shaded under the lines and named. */
static void s_window(FILE *o, const s_dual_t *d, double x0, double pw, double y0, double ph)
{
    int lc = d->s->win_lo[0] ? lg_table_col(d->t, d->s->win_lo) : -1;
    int hc = d->s->win_hi[0] ? lg_table_col(d->t, d->s->win_hi) : -1;
    for (int r = 0; lc >= 0 && hc >= 0 && r < d->t->nrows; r++) {
        double lo = lg__svg_value(d->t, r, lc), hi = lg__svg_value(d->t, r, hc);
        if (!isfinite(lo) || !isfinite(hi) || hi <= lo)
            continue;
        double span = d->xs.hi - d->xs.lo;
        double a = x0 + fmax(0, fmin(1, (lo - d->xs.lo) / span)) * pw;
        double z = x0 + fmax(0, fmin(1, (hi - d->xs.lo) / span)) * pw;
        char txt[160], l1[64], l2[64];
        lg_fmt_num(lo, l1, sizeof l1);
        lg_fmt_num(hi, l2, sizeof l2);
        snprintf(txt, sizeof txt, "measured window %s to %s s", l1, l2);
        fprintf(o,
                "<rect class=\"window\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
                "fill=\"#2e8b57\" fill-opacity=\"0.10\" data-start=\"%.17g\" data-end=\"%.17g\">"
                "<title>",
                a, y0, z - a, ph, lo, hi);
        lg_xml_esc(o, txt);
        fputs("</title></rect>\n", o);
        lg__svg_text(o, a + 4, y0 + 12, "start", "font-size=\"10\" fill=\"#2e8b57\"",
                     "measured window");
        return;
    }
}

/* Series j: its line in segments between NULL values (a lone point between gaps is a dot), and
 * a dot with a tooltip per point when it has few. */
static void s_series(FILE *o, const s_dual_t *d, int j, const char *col, double x0, double pw,
                     double y0, double ph)
{
    const lg__svg_scale_t *vs = d->axis[j] == 2 ? &d->y2s : &d->ys;
    int npts = 0, seg = 0, seg_start = -1;
    double med = s_median_step(d, j), last = NAN;
    for (int r = 0; r < d->t->nrows; r++)
        npts += s_series_of(d, r) == j && isfinite(s_val(d, r, d->axis[j]));
    const char *dash = d->axis[j] == 2 ? " stroke-dasharray=\"6 3\"" : "";
    for (int r = 0; r <= d->t->nrows; r++) {
        bool mine = r < d->t->nrows && s_series_of(d, r) == j;
        if (r < d->t->nrows && !mine)
            continue;
        double v = mine ? s_val(d, r, d->axis[j]) : NAN;
        bool ok = mine && isfinite(v) && isfinite(d->xv[r]) && !(vs->log && v <= 0);
        double px = ok ? x0 + (d->xv[r] - d->xs.lo) / (d->xs.hi - d->xs.lo) * pw : 0;
        double py = ok ? y0 + ph - lg__svg_pos(vs, v) * ph : 0;
        if (ok && seg > 0 && isfinite(med) && d->xv[r] - last > 1.8 * med) {
            fputs("\"/>\n", o); /* a step over 1.8 sample intervals: a second without a sample */
            if (seg == 1)
                fprintf(o, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2.5\" fill=\"%s\"/>\n",
                        x0 + (d->xv[seg_start] - d->xs.lo) / (d->xs.hi - d->xs.lo) * pw,
                        y0 + ph - lg__svg_pos(vs, s_val(d, seg_start, d->axis[j])) * ph, col);
            seg = 0;
        }
        if (ok)
            last = d->xv[r];
        if (ok && seg == 0) {
            fprintf(o, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\"%s points=\"", col,
                    dash);
            seg_start = r;
        }
        if (ok) {
            fprintf(o, "%.1f,%.1f ", px, py);
            seg++;
            continue;
        }
        if (mine && isfinite(v) && !isfinite(d->xv[r]))
            continue;  /* no x for this row: left out, not a gap */
        if (seg > 0) { /* a NULL value or the end: the segment ends */
            fputs("\"/>\n", o);
            if (seg == 1) /* alone between gaps: a dot so it shows */
                fprintf(o, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2.5\" fill=\"%s\"/>\n",
                        x0 + (d->xv[seg_start] - d->xs.lo) / (d->xs.hi - d->xs.lo) * pw,
                        y0 + ph - lg__svg_pos(vs, s_val(d, seg_start, d->axis[j])) * ph, col);
        }
        seg = 0;
    }
    for (int r = 0; npts <= 60 && r < d->t->nrows; r++) {
        double v = s_val(d, r, d->axis[j]);
        if (s_series_of(d, r) != j || !isfinite(v) || !isfinite(d->xv[r]) || (vs->log && v <= 0))
            continue;
        fprintf(o, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\">",
                x0 + (d->xv[r] - d->xs.lo) / (d->xs.hi - d->xs.lo) * pw,
                y0 + ph - lg__svg_pos(vs, v) * ph, col);
        s_point_title(o, d, r, j, v);
        fputs("</circle>\n", o);
    }
}

/* A row without a value (a missed scrape): a small grey x on the time axis, once per instant,
 * so that where figures are missing reads as missing, not as a series that ended. */
static void s_missing(FILE *o, const s_dual_t *d, double x0, double pw, double yb)
{
    double *done = calloc((size_t)d->t->nrows + 1, sizeof *done);
    int nd = 0;
    if (!done)
        return;
    for (int r = 0; r < d->t->nrows; r++) {
        int j = s_series_of(d, r);
        if (j < 0 || !d->axis[j] || isfinite(s_val(d, r, d->axis[j])) || !isfinite(d->xv[r]))
            continue;
        double px = x0 + (d->xv[r] - d->xs.lo) / (d->xs.hi - d->xs.lo) * pw;
        int seen = 0;
        for (int i = 0; i < nd && !seen; i++)
            seen = fabs(done[i] - px) < 0.5;
        if (seen)
            continue;
        done[nd++] = px;
        const char *xtext = lg_table_get(d->t, r, d->xc);
        fprintf(o,
                "<path class=\"missing\" fill=\"none\" stroke=\"#888\" stroke-width=\"1.2\" "
                "d=\"M%.1f %.1fL%.1f %.1fM%.1f %.1fL%.1f %.1f\"><title>",
                px - 3, yb - 9, px + 3, yb - 3, px - 3, yb - 3, px + 3, yb - 9);
        if (d->sc >= 0) {
            lg_xml_esc(o, d->ser[j]);
            fputs(": ", o);
        }
        fputs("no value at ", o);
        lg_xml_esc(o, d->s->x);
        fputs(" = ", o);
        lg_xml_esc(o, xtext ? xtext : "");
        fputs("</title></path>\n", o);
    }
    free(done);
}

void lg__svg_dual(FILE *o, const lg__svg_opts_t *op, const lg_chart_spec_t *s, const lg_table_t *t,
                  lg_palette_t *p)
{
    s_dual_t d;
    memset(&d, 0, sizeof d);
    if (s_load(&d, s, t) != 0) {
        s_clear(&d);
        return;
    }
    double x0 = 80, pw = W - x0 - 72, ph = 320;
    double cav = lg__svg_caveats(NULL, s, 0);
    double H = lg__svg_header_h(op, s, d.shown, d.shown_dashed, d.nshown, true) + ph + 60 + cav;
    char buf[512], ytitle[160], y2title[160];
    lg__svg_axis_title(ytitle, sizeof ytitle, s->ytitle, s->y, s->unit);
    lg__svg_axis_title(y2title, sizeof y2title, s->y2title, s->y2, s->y2unit);
    snprintf(buf, sizeof buf,
             "Time-series line chart of %s (left axis, solid lines) and %s (right axis, dashed "
             "lines) over %s%s%s; a gap, marked x on the time axis, is a missing value.",
             ytitle, y2title, s->xtitle[0] ? s->xtitle : s->x, d.sc >= 0 ? " per " : "",
             d.sc >= 0 ? s->series : "");
    lg__svg_root(o, op, s, H, buf);
    double y0 = lg__svg_header(o, op, s, d.shown, d.shown_dashed, d.nshown, p, true) + 8;
    s_value_axis(o, &d.ys, false, x0, pw, y0, ph, ytitle);
    s_value_axis(o, &d.y2s, true, x0, pw, y0, ph, y2title);
    lg__svg_num_xaxis(o, s, &d.xs, d.clock, x0, pw, y0 + ph);
    s_window(o, &d, x0, pw, y0, ph);
    for (int j = 0; j < d.ns; j++)
        if (d.axis[j])
            s_series(o, &d, j, lg_palette_color(p, d.ser[j]), x0, pw, y0, ph);
    s_missing(o, &d, x0, pw, y0 + ph);
    lg__svg_caveats(o, s, H - cav);
    fputs("</svg>\n", o);
    s_clear(&d);
}
