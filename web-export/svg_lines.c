/* svg_lines.c: lines of y over x per series: categorical x for sweeps (load points in query
 * order), numeric x for scatter, time series and curves, optionally on a log scale; limits as
 * dashed lines and marked points ringed. */
#include "lg_esc.h"
#include "svg_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define W LG_SVG_W

/* A tick step of whole clock units (s, min, h) for about six ticks over span seconds. */
static double s_clock_step(double span)
{
    static const double steps[] = {1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600};
    for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++)
        if (steps[i] >= span / 6)
            return steps[i];
    return lg__svg_nice(span / 6 / 3600) * 3600;
}

static void s_clock(double v, bool hours, char *buf, size_t len)
{
    long t = lround(v);
    if (hours)
        snprintf(buf, len, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
    else
        snprintf(buf, len, "%ld:%02ld", t / 60, t % 60);
}

/* x of each row for scatter and time series: the number, or for a time series of timestamps
 * the seconds since the earliest one (NAN where missing). Sets *clock when x was timestamps. */
double *lg__svg_xvalues(const lg_chart_spec_t *s, const lg_table_t *t, int xc, bool *clock)
{
    double *xv = calloc((size_t)t->nrows + 1, sizeof *xv);
    double first = INFINITY;
    *clock = false;
    if (!xv)
        return NULL;
    for (int r = 0; r < t->nrows; r++) {
        const char *v = lg_table_get(t, r, xc);
        char *end;
        xv[r] = NAN;
        if (!v)
            continue;
        double d = strtod(v, &end);
        if (*end == '\0' && end != v)
            xv[r] = d;
        else if (s->kind == LG_CHART_TIMESERIES && lg_chart_parse_time(v, &d) == 0) {
            xv[r] = d;
            *clock = true;
            first = fmin(first, d);
        }
    }
    if (*clock) /* numbers mixed with timestamps would sit at 1970: leave them out */
        for (int r = 0; r < t->nrows; r++) {
            const char *v = lg_table_get(t, r, xc);
            double d;
            xv[r] = v && lg_chart_parse_time(v, &d) == 0 ? d - first : NAN;
        }
    return xv;
}

void lg__svg_num_xaxis(FILE *o, const lg_chart_spec_t *s, const lg__svg_scale_t *xs, bool clock,
                       double x0, double pw, double yb)
{
    char buf[256];
    /* Timestamps: seconds from the first sample up to two minutes, then m:ss or h:mm:ss. */
    double span = xs->hi - xs->lo;
    bool mmss = clock && span > 120, hours = clock && xs->hi >= 3600;
    double step = mmss ? s_clock_step(span) : lg__svg_nice(span / 6);
    for (double v = ceil(xs->lo / step) * step; v <= xs->hi + step * 1e-6; v += step) {
        double x = x0 + (v - xs->lo) / span * pw;
        if (mmss)
            s_clock(v, hours, buf, sizeof buf);
        else /* the decimals the step needs, as on the value axis: 2, 4, 6 seconds */
            lg__svg_step_text(fabs(v) < step * 1e-9 ? 0 : v, step, buf, sizeof buf);
        lg__svg_text(o, x, yb + 16, "middle", "font-size=\"10\" fill=\"#666\"", buf);
    }
    fprintf(o, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#888\"/>\n", x0,
            yb, x0 + pw, yb);
    if (clock)
        snprintf(buf, sizeof buf, "time since the first sample (%s)",
                 !(xs->hi - xs->lo > 120) ? "s" : xs->hi >= 3600 ? "h:mm:ss" : "m:ss");
    else
        snprintf(buf, sizeof buf, "%s", s->xtitle[0] ? s->xtitle : s->x);
    lg__svg_text(o, x0 + pw / 2, yb + 36, "middle", "font-size=\"11\" fill=\"#444\"", buf);
}

/* Lines (and points) of y over x per series: x is categorical for "line" (load points in query
 * order) and numeric for scatter and time series. */
void lg__svg_lines(FILE *o, const lg__svg_opts_t *op, const lg_chart_spec_t *s, const lg_table_t *t,
                    lg_palette_t *p)
{
    int xc = lg_table_col(t, s->x), yc = lg_table_col(t, s->y);
    int sc = s->series[0] ? lg_table_col(t, s->series) : -1;
    bool numx = s->kind != LG_CHART_LINE;
    const char **cats, **ser;
    int nc = lg__svg_distinct(t, xc, &cats), ns = lg__svg_distinct(t, sc, &ser);
    char buf[256], fit[256];
    bool clock = false;
    double *xv = numx ? lg__svg_xvalues(s, t, xc, &clock) : NULL;
    struct {
        int series;
        double v, x, y;
    } *pt = NULL;
    if (!cats || !ser || (numx && !xv))
        goto out;
    double ymn = INFINITY, ymx = -INFINITY, xmn = INFINITY, xmx = -INFINITY;
    int lc = s->limit[0] ? lg_table_col(t, s->limit) : -1;
    int mc = s->mark[0] ? lg_table_col(t, s->mark) : -1;
    for (int r = 0; r < t->nrows && lc >= 0; r++) { /* the limit is on the axis too */
        double v = lg__svg_value(t, r, lc);
        if (isfinite(v) && (!s->log || v > 0)) {
            ymn = fmin(ymn, v);
            ymx = fmax(ymx, v);
        }
    }
    for (int r = 0; r < t->nrows; r++) {
        double v = lg__svg_value(t, r, yc);
        if (isfinite(v) && (!s->log || v > 0)) {
            ymn = fmin(ymn, v);
            ymx = fmax(ymx, v);
        }
        if (numx) {
            double x = xv[r];
            if (isfinite(x)) {
                xmn = fmin(xmn, x);
                xmx = fmax(xmx, x);
            }
        }
    }
    lg__svg_scale_t ys = lg__svg_scale(isfinite(ymn) ? ymn : 0, isfinite(ymx) ? ymx : 1, s->log);
    if (!s->log && isfinite(ymn) && ymn > 0 && s->kind != LG_CHART_LINE)
        ys.lo = 0;
    if (s->kind == LG_CHART_CURVE && isfinite(xmn) && xmn > 0)
        xmn = 0; /* a load axis starts at no load */
    lg__svg_scale_t xs = {isfinite(xmn) ? xmn : 0, isfinite(xmx) && xmx > xmn ? xmx : (isfinite(xmn) ? xmn + 1 : 1), false};
    double x0 = 80, pw = W - x0 - 24, ph = 320;
    double hdr = lg__svg_header_h(op, s, ser, NULL, ns, sc >= 0);
    double H = hdr + ph + 60;
    snprintf(buf, sizeof buf, "%s chart of %s%s%s over %s%s%s.",
             s->kind == LG_CHART_SCATTER      ? "Scatter"
             : s->kind == LG_CHART_TIMESERIES ? "Time-series line"
             : s->kind == LG_CHART_CURVE      ? "Curve"
                                              : "Line",
             s->ytitle[0] ? s->ytitle : s->y, s->unit[0] ? " in " : "", s->unit,
             s->xtitle[0] ? s->xtitle : s->x, sc >= 0 ? " per " : "", sc >= 0 ? s->series : "");
    lg__svg_root(o, op, s, H, buf);
    double y0 = lg__svg_header(o, op, s, ser, NULL, ns, p, sc >= 0) + 8;
    double ticks[12];
    int nt = lg__svg_ticks(&ys, ticks);
    for (int i = 0; i < nt; i++) {
        double y = y0 + ph - lg__svg_pos(&ys, ticks[i]) * ph;
        fprintf(o, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#e3e3e3\"/>\n", x0,
                y, x0 + pw, y);
        lg__svg_tick_text(ticks, nt, i, buf, sizeof buf);
        lg__svg_text(o, x0 - 6, y + 4, "end", "font-size=\"10\" fill=\"#666\"", buf);
    }
    /* x labels: categorical ones evenly spaced, skipping some so none overlap. */
    if (!numx) {
        double slot = pw / (nc > 1 ? nc - 1 : 1), maxw = 1;
        for (int i = 0; i < nc; i++)
            maxw = fmax(maxw, lg__svg_text_w(cats[i], 11));
        int every = (int)ceil((maxw + 8) / slot);
        every = every < 1 ? 1 : every;
        for (int i = 0; i < nc; i += every)
            lg__svg_text(o, nc > 1 ? x0 + i * slot : x0 + pw / 2, y0 + ph + 16, "middle",
                   "font-size=\"11\" fill=\"#222\"", cats[i]);
    } else {
        lg__svg_num_xaxis(o, s, &xs, clock, x0, pw, y0 + ph);
    }
    if (!numx) {
        fprintf(o, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#888\"/>\n",
                x0, y0 + ph, x0 + pw, y0 + ph);
        lg__svg_text(o, x0 + pw / 2, y0 + ph + 36, "middle", "font-size=\"11\" fill=\"#444\"",
                     s->xtitle[0] ? s->xtitle : s->x);
    }
    lg__svg_axis_title(buf, sizeof buf, s->ytitle, s->y, s->unit);
    fprintf(o, "<text transform=\"translate(16,%.1f) rotate(-90)\" text-anchor=\"middle\" "
               "font-size=\"11\" fill=\"#444\">", y0 + ph / 2);
    lg_xml_esc(o, buf);
    fputs("</text>\n", o);
    /* Each row's point, once: its series (-1: not drawn), value and position. */
    pt = malloc(((size_t)t->nrows + 1) * sizeof *pt);
    if (!pt)
        goto out;
    for (int r = 0; r < t->nrows; r++) {
        double v = lg__svg_value(t, r, yc);
        pt[r].series = -1;
        if (!isfinite(v) || (s->log && v <= 0) || (numx && !isfinite(xv[r])))
            continue;
        pt[r].series = sc >= 0 ? lg__svg_index(ser, ns, lg_table_get(t, r, sc)) : 0;
        pt[r].v = v;
        pt[r].x = numx ? x0 + (xv[r] - xs.lo) / (xs.hi - xs.lo) * pw
                       : x0 + (nc > 1 ? lg__svg_index(cats, nc, lg_table_get(t, r, xc)) * pw / (nc - 1) : pw / 2);
        pt[r].y = y0 + ph - lg__svg_pos(&ys, v) * ph;
    }
    /* Each distinct limit: a dashed line across, labelled at its right end. */
    for (int r = 0; r < t->nrows && lc >= 0; r++) {
        double v = lg__svg_value(t, r, lc);
        int seen = 0;
        for (int q = 0; q < r && !seen; q++)
            seen = lg__svg_value(t, q, lc) == v;
        if (seen || !isfinite(v) || (s->log && v <= 0))
            continue;
        double y = y0 + ph - lg__svg_pos(&ys, v) * ph;
        fprintf(o, "<line class=\"limit\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
                   "stroke=\"#c0392b\" stroke-width=\"1.5\" stroke-dasharray=\"6 4\"/>\n",
                x0, y, x0 + pw, y);
        lg__svg_label(fit, sizeof fit, v, s->unit);
        snprintf(buf, sizeof buf, "limit %s", fit);
        lg__svg_text(o, x0 + pw - 4, y - 5, "end", "font-size=\"11\" fill=\"#c0392b\"", buf);
    }
    for (int j = 0; j < ns; j++) {
        const char *col = lg_palette_color(p, ser[j]);
        if (s->kind != LG_CHART_SCATTER) {
            fprintf(o, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"", col);
            for (int r = 0; r < t->nrows; r++)
                if (pt[r].series == j)
                    fprintf(o, "%.1f,%.1f ", pt[r].x, pt[r].y);
            fputs("\"/>\n", o);
        }
        if (s->kind == LG_CHART_TIMESERIES && t->nrows > 60)
            continue; /* dense series: the line alone reads better than a dot per sample */
        for (int r = 0; r < t->nrows; r++) {
            if (pt[r].series != j)
                continue;
            fprintf(o, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" fill=\"%s\"><title>", pt[r].x,
                    pt[r].y, col);
            lg__svg_label(buf, sizeof buf, pt[r].v, s->unit);
            const char *xtext = lg_table_get(t, r, xc);
            if (sc >= 0) { /* written piece by piece: a long name is never cut */
                lg_xml_esc(o, ser[j]);
                fputs(", ", o);
            }
            lg_xml_esc(o, s->x);
            fputs(" = ", o);
            lg_xml_esc(o, xtext ? xtext : "");
            fputs(": ", o);
            lg_xml_esc(o, buf);
            fputs("</title></circle>\n", o);
        }
        /* Marked points (the knee): a ring and a label. */
        for (int r = 0; r < t->nrows && mc >= 0; r++) {
            const char *m = lg_table_get(t, r, mc);
            if (pt[r].series != j || !m || (m[0] != 't' && strcmp(m, "1") != 0))
                continue;
            fprintf(o, "<circle class=\"mark\" cx=\"%.1f\" cy=\"%.1f\" r=\"8\" fill=\"none\" "
                       "stroke=\"%s\" stroke-width=\"2\"/>\n",
                    pt[r].x, pt[r].y, col);
            lg__svg_label(fit, sizeof fit, pt[r].v, s->unit);
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
            lg__svg_text(o, pt[r].x, pt[r].y - 12, "middle", "font-size=\"11\" fill=\"#222\"", text);
        }
    }
    fputs("</svg>\n", o);
out:
    free(pt);
    free(xv);
    free(cats);
    free(ser);
}