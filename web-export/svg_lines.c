/* svg_lines.c: lines of y over x per series: categorical x for sweeps (load points in query
 * order), numeric x for scatter, time series and curves, optionally on a log scale; limits as
 * dashed lines and marked points ringed. */
#include "lg_esc.h"
#include "svg_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define W LG_SVG_W

/* One row's point: its series (-1: not drawn), value and position. */
typedef struct {
    int series;  /* -1: not drawn */
    int missing; /* the series of a row without a value (a failed point, a gap), else -1 */
    double v, x, y;
} s_point_t;

/* A chart of lines: the table's columns, its categories or x values, the scales and the plot. */
typedef struct {
    const lg_chart_spec_t *s;
    const lg_table_t *t;
    int xc, yc, sc, lc, mc; /* x, y, series, limit, mark (-1: none) */
    int labc;               /* a label per point (-1: none) */
    bool numx;              /* x numeric (scatter, time series, curve), else categories */
    const char **cats, **ser;
    int nc, ns;
    double *xv; /* numx: x of each row */
    bool clock; /* x was timestamps */
    lg__svg_scale_t xs, ys;
    double x0, pw, ph, y0; /* the plot's left, width, height and top */
    s_point_t *pt;         /* per row */
} s_lines_t;

static void s_clear(s_lines_t *d)
{
    free(d->pt);
    free(d->xv);
    free(d->cats);
    free(d->ser);
    memset(d, 0, sizeof *d);
}

/* Reads the table: columns, categories, series, x of each row. -1 when out of memory. */
static int s_load(s_lines_t *d, const lg_chart_spec_t *s, const lg_table_t *t)
{
    d->s = s;
    d->t = t;
    d->xc = lg_table_col(t, s->x);
    d->yc = lg_table_col(t, s->y);
    d->sc = s->series[0] ? lg_table_col(t, s->series) : -1;
    d->numx = s->kind != LG_CHART_LINE;
    d->nc = lg__svg_distinct(t, d->xc, &d->cats);
    d->ns = lg__svg_distinct(t, d->sc, &d->ser);
    d->xv = d->numx ? lg__svg_xvalues(s, t, d->xc, &d->clock) : NULL;
    if (!d->cats || !d->ser || (d->numx && !d->xv))
        return -1;
    d->lc = s->limit[0] ? lg_table_col(t, s->limit) : -1;
    d->mc = s->mark[0] ? lg_table_col(t, s->mark) : -1;
    d->labc = s->label[0] ? lg_table_col(t, s->label) : -1;
    return 0;
}

/* The scales: y over the values and the limits (from 0 but for a line chart, or decades on a log
 * scale), x over the rows' x (a curve's load from 0). */
static void s_scales(s_lines_t *d)
{
    const lg_chart_spec_t *s = d->s;
    const lg_table_t *t = d->t;
    double ymn = INFINITY, ymx = -INFINITY, xmn = INFINITY, xmx = -INFINITY;
    for (int r = 0; r < t->nrows && d->lc >= 0; r++) { /* the limit is on the axis too */
        double v = lg__svg_value(t, r, d->lc);
        if (isfinite(v) && (!s->log || v > 0)) {
            ymn = fmin(ymn, v);
            ymx = fmax(ymx, v);
        }
    }
    for (int r = 0; r < t->nrows; r++) {
        double v = lg__svg_value(t, r, d->yc);
        if (isfinite(v) && (!s->log || v > 0)) {
            ymn = fmin(ymn, v);
            ymx = fmax(ymx, v);
        }
        if (d->numx) {
            double x = d->xv[r];
            if (isfinite(x)) {
                xmn = fmin(xmn, x);
                xmx = fmax(xmx, x);
            }
        }
    }
    if (!s->log && !strcmp(s->unit, "%")) /* a percentage: its whole 0-100 */
        ymx = isfinite(ymx) ? fmax(ymx, 100) : 100;
    d->ys = lg__svg_scale(isfinite(ymn) ? ymn : 0, isfinite(ymx) ? ymx : 1, s->log);
    if (!s->log && isfinite(ymn) && ymn > 0 && s->kind != LG_CHART_LINE)
        d->ys.lo = 0;
    if (s->kind == LG_CHART_CURVE && isfinite(xmn) && xmn > 0)
        xmn = 0; /* a load axis starts at no load */
    d->xs =
        (lg__svg_scale_t){isfinite(xmn) ? xmn : 0,
                          isfinite(xmx) && xmx > xmn ? xmx : (isfinite(xmn) ? xmn + 1 : 1), false};
}

/* The axes: the value axis's grid and ticks, the x labels (categories evenly spaced, skipping some
 * so none overlap; numbers or times), the lines and titles. */
static void s_axes(FILE *o, const s_lines_t *d)
{
    const lg_chart_spec_t *s = d->s;
    double x0 = d->x0, pw = d->pw, ph = d->ph, y0 = d->y0;
    char buf[256];
    double ticks[12];
    int nt = lg__svg_ticks(&d->ys, ticks);
    for (int i = 0; i < nt; i++) {
        double y = y0 + ph - lg__svg_pos(&d->ys, ticks[i]) * ph;
        fprintf(o, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#e3e3e3\"/>\n",
                x0, y, x0 + pw, y);
        lg__svg_tick_text(ticks, nt, i, buf, sizeof buf);
        lg__svg_text(o, x0 - 6, y + 4, "end", "font-size=\"10\" fill=\"#666\"", buf);
    }
    if (d->numx) {
        lg__svg_num_xaxis(o, s, &d->xs, d->clock, x0, pw, y0 + ph);
    } else {
        int nc = d->nc;
        double slot = pw / (nc > 1 ? nc - 1 : 1), maxw = 1;
        for (int i = 0; i < nc; i++)
            maxw = fmax(maxw, lg__svg_text_w(d->cats[i], 11));
        int every = (int)ceil((maxw + 8) / slot);
        every = every < 1 ? 1 : every;
        for (int i = 0; i < nc; i += every)
            lg__svg_text(o, nc > 1 ? x0 + i * slot : x0 + pw / 2, y0 + ph + 16, "middle",
                         "font-size=\"11\" fill=\"#222\"", d->cats[i]);
        fprintf(o, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#888\"/>\n", x0,
                y0 + ph, x0 + pw, y0 + ph);
        lg__svg_text(o, x0 + pw / 2, y0 + ph + 36, "middle", "font-size=\"11\" fill=\"#444\"",
                     s->xtitle[0] ? s->xtitle : s->x);
    }
    lg__svg_axis_title(buf, sizeof buf, s->ytitle, s->y, s->unit);
    fprintf(o,
            "<text transform=\"translate(16,%.1f) rotate(-90)\" text-anchor=\"middle\" "
            "font-size=\"11\" fill=\"#444\">",
            y0 + ph / 2);
    lg_xml_esc(o, buf);
    fputs("</text>\n", o);
}

/* Each row's point, once. -1 when out of memory. */
static int s_points(s_lines_t *d)
{
    const lg_chart_spec_t *s = d->s;
    const lg_table_t *t = d->t;
    double x0 = d->x0, pw = d->pw;
    int nc = d->nc;
    d->pt = malloc(((size_t)t->nrows + 1) * sizeof *d->pt);
    if (!d->pt)
        return -1;
    for (int r = 0; r < t->nrows; r++) {
        s_point_t *pt = &d->pt[r];
        double v = lg__svg_value(t, r, d->yc);
        int j = d->sc >= 0 ? lg__svg_index(d->ser, d->ns, lg_table_get(t, r, d->sc)) : 0;
        pt->series = pt->missing = -1;
        if (!isfinite(v) && !(d->numx && !isfinite(d->xv[r])))
            pt->missing = j;
        if (!isfinite(v) || (s->log && v <= 0) || (d->numx && !isfinite(d->xv[r])))
            continue;
        pt->series = j;
        pt->v = v;
        pt->x = d->numx ? x0 + (d->xv[r] - d->xs.lo) / (d->xs.hi - d->xs.lo) * pw
                        : x0 + (nc > 1 ? lg__svg_index(d->cats, nc, lg_table_get(t, r, d->xc)) *
                                             pw / (nc - 1)
                                       : pw / 2);
        pt->y = d->y0 + d->ph - lg__svg_pos(&d->ys, v) * d->ph;
    }
    return 0;
}

/* Each distinct limit: a dashed line across, labelled at its right end. */
static void s_limits(FILE *o, const s_lines_t *d)
{
    const lg_chart_spec_t *s = d->s;
    const lg_table_t *t = d->t;
    char buf[256], fit[256];
    for (int r = 0; r < t->nrows && d->lc >= 0; r++) {
        double v = lg__svg_value(t, r, d->lc);
        int seen = 0;
        for (int q = 0; q < r && !seen; q++)
            seen = lg__svg_value(t, q, d->lc) == v;
        if (seen || !isfinite(v) || (s->log && v <= 0))
            continue;
        double y = d->y0 + d->ph - lg__svg_pos(&d->ys, v) * d->ph;
        fprintf(o,
                "<line class=\"limit\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
                "stroke=\"#c0392b\" stroke-width=\"1.5\" stroke-dasharray=\"6 4\"/>\n",
                d->x0, y, d->x0 + d->pw, y);
        lg__svg_label(fit, sizeof fit, v, s->unit);
        snprintf(buf, sizeof buf, "limit %s", fit);
        lg__svg_text(o, d->x0 + d->pw - 4, y - 5, "end", "font-size=\"11\" fill=\"#c0392b\"", buf);
    }
}

/* Series j's marked points (the knee): a ring and a label, the mark's words and the value, or
 * with "{column}" that row's value. */
static void s_marks(FILE *o, const s_lines_t *d, int j, const char *col)
{
    const lg_chart_spec_t *s = d->s;
    const lg_table_t *t = d->t;
    char buf[256], fit[256];
    for (int r = 0; r < t->nrows && d->mc >= 0; r++) {
        const s_point_t *pt = &d->pt[r];
        const char *m = lg_table_get(t, r, d->mc);
        if (pt->series != j || !m || (m[0] != 't' && strcmp(m, "1") != 0))
            continue;
        fprintf(o,
                "<circle class=\"mark\" cx=\"%.1f\" cy=\"%.1f\" r=\"8\" fill=\"none\" "
                "stroke=\"%s\" stroke-width=\"2\"/>\n",
                pt->x, pt->y, col);
        lg__svg_label(fit, sizeof fit, pt->v, s->unit);
        size_t ml = strlen(s->mark_label);
        int lcol = -1;
        if (ml > 2 && s->mark_label[0] == '{' && s->mark_label[ml - 1] == '}') {
            char cname[64];
            snprintf(cname, sizeof cname, "%.*s", (int)(ml - 2), s->mark_label + 1);
            lcol = lg_table_col(t, cname); /* "{column}": the label is that row's value */
        }
        const char *text = buf;
        if (lcol >= 0)
            text = lg_table_get(t, r, lcol) ? lg_table_get(t, r, lcol) : "";
        else
            snprintf(buf, sizeof buf, "%s %s", s->mark_label[0] ? s->mark_label : s->mark, fit);
        lg__svg_text(o, pt->x, pt->y - 12, "middle", "font-size=\"11\" fill=\"#222\"", text);
    }
}

/* The median step of x between series j's points (a time series' sample interval), NAN when
 * it has fewer than two. */
static double s_median_step(const s_lines_t *d, int j)
{
    double *st = malloc(((size_t)d->t->nrows + 1) * sizeof *st), last = NAN, med = NAN;
    int n = 0;
    for (int r = 0; st && r < d->t->nrows; r++) {
        if (d->pt[r].series != j)
            continue;
        if (isfinite(last) && d->xv[r] > last)
            st[n++] = d->xv[r] - last;
        last = d->xv[r];
    }
    for (int a = 1; a < n; a++) /* insertion sort: a run has a few hundred samples */
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

/* Series j's line in pieces: a row without a value breaks it, and in a time series so does a
 * step in x over 1.8 times its usual one (a second no sample came for): never a line across a
 * gap. */
static void s_line(FILE *o, const s_lines_t *d, int j, const char *col)
{
    double med = d->s->kind == LG_CHART_TIMESERIES ? s_median_step(d, j) : NAN, last = NAN;
    bool open = false;
    for (int r = 0; r < d->t->nrows; r++) {
        const s_point_t *pt = &d->pt[r];
        bool jump = open && isfinite(med) && d->xv[r] - last > 1.8 * med;
        if (open && (pt->missing == j || (pt->series == j && jump))) {
            fputs("\"/>\n", o);
            open = false;
        }
        if (pt->series != j)
            continue;
        if (!open)
            fprintf(o, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"", col);
        open = true;
        fprintf(o, "%.1f,%.1f ", pt->x, pt->y);
        last = d->numx ? d->xv[r] : NAN;
    }
    if (open)
        fputs("\"/>\n", o);
}

/* Rows without a value (a failed or missing point): an x in its series' colour on the x axis
 * with a tooltip, so that a missing point reads as missing, not as a line that ended. */
static void s_missing(FILE *o, const s_lines_t *d, lg_palette_t *p)
{
    for (int r = 0; r < d->t->nrows; r++) {
        int j = d->pt[r].missing;
        if (j < 0 || d->s->kind == LG_CHART_TIMESERIES)
            continue;
        const char *xt = lg_table_get(d->t, r, d->xc);
        double px =
            d->numx ? d->x0 + (d->xv[r] - d->xs.lo) / (d->xs.hi - d->xs.lo) * d->pw
                    : d->x0 + (d->nc > 1 ? lg__svg_index(d->cats, d->nc, xt) * d->pw / (d->nc - 1)
                                         : d->pw / 2);
        double yb = d->y0 + d->ph;
        fprintf(o,
                "<path class=\"missing\" fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" "
                "d=\"M%.1f %.1fL%.1f %.1fM%.1f %.1fL%.1f %.1f\"><title>",
                lg_palette_color(p, d->ser[j]), px - 4, yb - 10, px + 4, yb - 2, px - 4, yb - 2,
                px + 4, yb - 10);
        if (d->sc >= 0) {
            lg_xml_esc(o, d->ser[j]);
            fputs(": ", o);
        }
        fputs("no figure at ", o);
        lg_xml_esc(o, d->s->x);
        fputs(" = ", o);
        lg_xml_esc(o, xt ? xt : "");
        fputs(" (failed or missing)</title></path>\n", o);
    }
}

/* Each point's label (the label directive: its load, "4T8Q") beside it. */
static void s_labels(FILE *o, const s_lines_t *d, int j)
{
    for (int r = 0; d->labc >= 0 && r < d->t->nrows; r++) {
        const char *l = lg_table_get(d->t, r, d->labc);
        if (d->pt[r].series != j || !l)
            continue;
        /* right of its point, or left of it where it would run past the plot */
        bool left = d->pt[r].x + 6 + lg__svg_text_w(l, 10) > d->x0 + d->pw + 20;
        fputs("<g class=\"label\">", o);
        lg__svg_text(o, d->pt[r].x + (left ? -6 : 6), d->pt[r].y - 6, left ? "end" : "start",
                     "font-size=\"10\" fill=\"#333\"", l);
        fputs("</g>\n", o);
    }
}

/* Series j: its line (not for a scatter), a dot per point with its figures as a tooltip (not for
 * a dense time series), its marked points. */
static void s_series(FILE *o, const s_lines_t *d, int j, const char *col)
{
    const lg_chart_spec_t *s = d->s;
    const lg_table_t *t = d->t;
    char buf[256];
    if (s->kind != LG_CHART_SCATTER)
        s_line(o, d, j, col);
    if (s->kind == LG_CHART_TIMESERIES && t->nrows > 60)
        return; /* dense series: the line alone reads better than a dot per sample */
    for (int r = 0; r < t->nrows; r++) {
        const s_point_t *pt = &d->pt[r];
        if (pt->series != j)
            continue;
        fprintf(o, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" fill=\"%s\"><title>", pt->x, pt->y,
                col);
        lg__svg_label(buf, sizeof buf, pt->v, s->unit);
        const char *xtext = lg_table_get(t, r, d->xc);
        if (d->sc >= 0) { /* written piece by piece: a long name is never cut */
            lg_xml_esc(o, d->ser[j]);
            fputs(", ", o);
        }
        lg_xml_esc(o, s->x);
        fputs(" = ", o);
        lg_xml_esc(o, xtext ? xtext : "");
        fputs(": ", o);
        lg_xml_esc(o, buf);
        fputs("</title></circle>\n", o);
    }
    s_marks(o, d, j, col);
    s_labels(o, d, j);
}

/* Lines (and points) of y over x per series: x is categorical for "line" (load points in query
 * order) and numeric for scatter and time series. */
void lg__svg_lines(FILE *o, const lg__svg_opts_t *op, const lg_chart_spec_t *s, const lg_table_t *t,
                   lg_palette_t *p)
{
    s_lines_t d;
    memset(&d, 0, sizeof d);
    char buf[256];
    if (s_load(&d, s, t) != 0)
        goto out;
    s_scales(&d);
    d.x0 = 80;
    d.pw = W - d.x0 - 24;
    d.ph = 320;
    double hdr = lg__svg_header_h(op, s, d.ser, NULL, d.ns, d.sc >= 0);
    double cav = lg__svg_caveats(NULL, s, 0);
    double H = hdr + d.ph + 60 + cav;
    snprintf(buf, sizeof buf, "%s chart of %s%s%s over %s%s%s.",
             s->kind == LG_CHART_SCATTER      ? "Scatter"
             : s->kind == LG_CHART_TIMESERIES ? "Time-series line"
             : s->kind == LG_CHART_CURVE      ? "Curve"
                                              : "Line",
             s->ytitle[0] ? s->ytitle : s->y, s->unit[0] ? " in " : "", s->unit,
             s->xtitle[0] ? s->xtitle : s->x, d.sc >= 0 ? " per " : "", d.sc >= 0 ? s->series : "");
    lg__svg_root(o, op, s, H, buf);
    d.y0 = lg__svg_header(o, op, s, d.ser, NULL, d.ns, p, d.sc >= 0) + 8;
    s_axes(o, &d);
    if (s_points(&d) != 0)
        goto out;
    s_limits(o, &d);
    for (int j = 0; j < d.ns; j++)
        s_series(o, &d, j, lg_palette_color(p, d.ser[j]));
    s_missing(o, &d, p);
    lg__svg_caveats(o, s, H - cav);
    fputs("</svg>\n", o);
out:
    s_clear(&d);
}
