/* svg.c: charts drawn by lg itself as standalone SVG, 800 px wide: grouped horizontal bars in
 * the style of published reviews, vertical bars, and lines for sweeps, scatter and time series
 * (optionally on a log scale). Text is sized so a chart stays readable at its natural width. */
#include "chart.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define W 800.0
#define FONT "font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\""
#define CHAR_W 6.6 /* mean advance of 11 px sans text, for layout */

static void s_esc(FILE *o, const char *s)
{
    for (; s && *s; s++) {
        switch (*s) {
        case '<': fputs("&lt;", o); break;
        case '>': fputs("&gt;", o); break;
        case '&': fputs("&amp;", o); break;
        case '"': fputs("&quot;", o); break;
        default: fputc(*s, o);
        }
    }
}

/* Distinct values of column c in order of first appearance. Returns the count; *out owned. */
static int s_distinct(const lg_table_t *t, int c, const char ***out)
{
    const char **v = calloc((size_t)t->nrows + 1, sizeof *v);
    int n = 0;
    if (!v) {
        *out = NULL;
        return 0;
    }
    if (c < 0) {
        v[0] = "";
        *out = v;
        return 1;
    }
    for (int r = 0; r < t->nrows; r++) {
        const char *x = lg_table_get(t, r, c);
        if (!x)
            x = "(null)";
        int seen = 0;
        for (int i = 0; i < n && !seen; i++)
            seen = !strcmp(v[i], x);
        if (!seen)
            v[n++] = x;
    }
    *out = v;
    return n;
}

static int s_index(const char **v, int n, const char *x)
{
    if (!x)
        x = "(null)";
    for (int i = 0; i < n; i++)
        if (!strcmp(v[i], x))
            return i;
    return -1;
}

typedef struct {
    double lo, hi;
    bool log;
} s_scale_t;

static double s_nice(double x)
{
    double e = pow(10, floor(log10(x)));
    double f = x / e;
    return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 2.5 ? 2.5 : f <= 5 ? 5 : 10) * e;
}

/* Linear: 0 .. a nice top above max. Log: whole decades around [min, max]. */
static s_scale_t s_make_scale(double mn, double mx, bool logscale)
{
    s_scale_t s = {0, 1, logscale};
    if (logscale) {
        if (!(mn > 0))
            mn = mx > 0 ? mx / 10 : 1;
        if (!(mx > 0))
            mx = 1;
        s.lo = pow(10, floor(log10(mn)));
        s.hi = pow(10, ceil(log10(mx)));
        if (s.hi <= s.lo)
            s.hi = s.lo * 10;
        return s;
    }
    s.lo = mn < 0 ? -s_nice(-mn) : 0;
    s.hi = mx > 0 ? mx : 1;
    double step = s_nice((s.hi - s.lo) / 5);
    s.hi = ceil(s.hi / step) * step;
    return s;
}

static double s_pos(const s_scale_t *s, double v)
{
    if (s->log) {
        if (!(v > 0))
            v = s->lo;
        return (log10(v) - log10(s->lo)) / (log10(s->hi) - log10(s->lo));
    }
    return (v - s->lo) / (s->hi - s->lo);
}

/* Tick values; returns the count (at most 12). */
static int s_ticks(const s_scale_t *s, double *t)
{
    int n = 0;
    if (s->log) {
        for (double v = s->lo; v <= s->hi * 1.0001 && n < 12; v *= 10)
            t[n++] = v;
        return n;
    }
    double step = s_nice((s->hi - s->lo) / 5);
    for (double v = s->lo; v <= s->hi + step * 1e-6 && n < 12; v += step)
        t[n++] = fabs(v) < step * 1e-9 ? 0 : v;
    return n;
}

static void s_text(FILE *o, double x, double y, const char *anchor, const char *attrs,
                   const char *text)
{
    fprintf(o, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\" %s>", x, y, anchor,
            attrs ? attrs : "");
    s_esc(o, text);
    fputs("</text>\n", o);
}

/* Fit text into max_px by cutting it with an ellipsis; writes into buf. */
static const char *s_fit(const char *s, double max_px, char *buf, size_t len)
{
    size_t max = (size_t)(max_px / CHAR_W);
    if (strlen(s) <= max || max < 4)
        return s;
    snprintf(buf, len, "%.*s…", (int)(max - 1), s);
    return buf;
}

/* Rows the legend wraps into at this width (the same walk as s_header). */
static int s_legend_rows(const char **series, int ns)
{
    double x = 16;
    int rows = 1;
    for (int i = 0; i < ns; i++) {
        double w = 18 + (double)strlen(series[i]) * CHAR_W + 16;
        if (x + w > W - 16 && x > 16) {
            x = 16;
            rows++;
        }
        x += w;
    }
    return rows;
}

/* Height above the plot: title, subtitle, legend rows (the y s_header returns, plus 8). */
static double s_header_h(const char **series, int ns, bool has_series)
{
    return 48 + (has_series ? 22 + 18.0 * (s_legend_rows(series, ns) - 1) : 0) + 16 + 8;
}

/* Header: title, subtitle and the legend; returns the y where the plot starts. */
static double s_header(FILE *o, const lg_chart_spec_t *s, const char **series, int ns,
                       lg_palette_t *p, bool has_series)
{
    fputs("<text x=\"16\" y=\"28\" font-size=\"18\" font-weight=\"bold\" fill=\"#222\">", o);
    s_esc(o, s->title);
    fputs("</text>\n", o);
    double y = 28;
    char sub[700];
    snprintf(sub, sizeof sub, "%s%s%s%s", s->subtitle, s->subtitle[0] ? " · " : "",
             s->lower_is_better ? "lower is better" : "higher is better",
             s->log ? " · log scale" : "");
    y += 20;
    fputs("<text x=\"16\" y=\"48\" font-size=\"12\" fill=\"#555\">", o);
    s_esc(o, sub);
    fputs("</text>\n", o);
    if (has_series) {
        double x = 16;
        y += 22;
        for (int i = 0; i < ns; i++) {
            double w = 18 + (double)strlen(series[i]) * CHAR_W + 16;
            if (x + w > W - 16 && x > 16) {
                x = 16;
                y += 18;
            }
            fprintf(o, "<rect x=\"%.1f\" y=\"%.1f\" width=\"12\" height=\"12\" fill=\"%s\"/>\n", x,
                    y - 10, lg_palette_color(p, series[i]));
            s_text(o, x + 16, y, "start", "font-size=\"11\" fill=\"#333\"", series[i]);
            x += w;
        }
    }
    return y + 16;
}

static double s_value(const lg_table_t *t, int r, int c)
{
    const char *v = lg_table_get(t, r, c);
    return v ? strtod(v, NULL) : NAN;
}

static void s_label(char *buf, size_t len, double v, const char *unit)
{
    char n[64];
    lg_fmt_num(v, n, sizeof n);
    snprintf(buf, len, "%s%s%s", n, unit[0] ? " " : "", unit);
}

typedef struct {
    int idx;
    double key;
} s_ord_t;

static int s_cmp_asc(const void *a, const void *b)
{
    const s_ord_t *x = a, *y = b;
    return (x->key > y->key) - (x->key < y->key);
}

static int s_cmp_desc(const void *a, const void *b) { return s_cmp_asc(b, a); }

/* Grouped bars: categories (x) each with one bar per series. Horizontal unless vertical. */
static void s_bars(FILE *o, const lg_chart_spec_t *s, const lg_table_t *t, lg_palette_t *p,
                   bool vertical)
{
    int xc = lg_table_col(t, s->x), yc = lg_table_col(t, s->y);
    int sc = s->series[0] ? lg_table_col(t, s->series) : -1;
    const char **cats, **ser;
    int nc = s_distinct(t, xc, &cats), ns = s_distinct(t, sc, &ser);
    double *val = malloc(sizeof(double) * (size_t)(nc > 0 ? nc : 1) * (size_t)(ns > 0 ? ns : 1));
    s_ord_t *ord = calloc((size_t)nc + 1, sizeof *ord);
    if (!cats || !ser || !val || !ord)
        goto out;
    for (int i = 0; i < nc * ns; i++)
        val[i] = NAN;
    double mn = INFINITY, mx = -INFINITY;
    for (int r = 0; r < t->nrows; r++) {
        int ci = s_index(cats, nc, lg_table_get(t, r, xc));
        int si = sc < 0 ? 0 : s_index(ser, ns, lg_table_get(t, r, sc));
        double v = s_value(t, r, yc);
        val[ci * ns + si] = v;
        if (isfinite(v)) {
            mn = fmin(mn, v);
            mx = fmax(mx, v);
        }
    }
    for (int i = 0; i < nc; i++) {
        ord[i].idx = i;
        ord[i].key = -INFINITY;
        for (int j = 0; j < ns; j++)
            if (isfinite(val[i * ns + j]))
                ord[i].key = fmax(ord[i].key, val[i * ns + j]);
    }
    if (s->sort == LG_SORT_ASC)
        qsort(ord, (size_t)nc, sizeof *ord, s_cmp_asc);
    else if (s->sort == LG_SORT_DESC)
        qsort(ord, (size_t)nc, sizeof *ord, s_cmp_desc);
    s_scale_t sc_ = s_make_scale(isfinite(mn) ? mn : 0, isfinite(mx) ? mx : 1, s->log);
    double ticks[12];
    int nt = s_ticks(&sc_, ticks);
    char buf[256], fit[256];

    if (!vertical) {
        double labw = 40;
        for (int i = 0; i < nc; i++)
            labw = fmax(labw, (double)strlen(cats[i]) * CHAR_W + 12);
        labw = fmin(labw, 260);
        double valw = 12 * CHAR_W + (double)strlen(s->unit) * CHAR_W; /* room for the end labels */
        double x0 = 16 + labw, pw = W - x0 - valw - 16;
        double bh = 16, bgap = 2, ggap = 14;
        double gh = ns * (bh + bgap) - bgap;
        double ph = nc * (gh + ggap);
        double hdr = s_header_h(ser, ns, sc >= 0);
        double H = hdr + ph + 50;
        fprintf(o, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
                   "viewBox=\"0 0 %.0f %.0f\" role=\"img\" aria-labelledby=\"t d\" " FONT ">\n",
                W, H, W, H);
        fputs("<title id=\"t\">", o);
        s_esc(o, s->title);
        fputs("</title>\n<desc id=\"d\">", o);
        snprintf(buf, sizeof buf, "Horizontal bar chart of %s%s%s by %s%s%s.", s->y,
                 s->unit[0] ? " in " : "", s->unit, s->x, sc >= 0 ? " and " : "",
                 sc >= 0 ? s->series : "");
        s_esc(o, buf);
        fputs(" ", o);
        s_esc(o, s->subtitle);
        fputs("</desc>\n<rect width=\"100%\" height=\"100%\" fill=\"#fff\"/>\n", o);
        double y0 = s_header(o, s, ser, ns, p, sc >= 0) + 8;
        for (int i = 0; i < nt; i++) {
            double x = x0 + s_pos(&sc_, ticks[i]) * pw;
            fprintf(o, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#e3e3e3\"/>\n",
                    x, y0 - 4, x, y0 + ph);
            lg_fmt_num(ticks[i], buf, sizeof buf);
            s_text(o, x, y0 + ph + 14, "middle", "font-size=\"10\" fill=\"#666\"", buf);
        }
        snprintf(buf, sizeof buf, "%s%s%s%s", s->y, s->unit[0] ? " (" : "", s->unit,
                 s->unit[0] ? ")" : "");
        s_text(o, x0 + pw / 2, y0 + ph + 32, "middle", "font-size=\"11\" fill=\"#444\"", buf);
        for (int k = 0; k < nc; k++) {
            int i = ord[k].idx;
            double gy = y0 + k * (gh + ggap);
            s_text(o, x0 - 8, gy + gh / 2 + 4, "end", "font-size=\"11\" fill=\"#222\"",
                   s_fit(cats[i], labw - 12, fit, sizeof fit));
            for (int j = 0; j < ns; j++) {
                double v = val[i * ns + j];
                double by = gy + j * (bh + bgap);
                if (!isfinite(v))
                    continue;
                double w = fmax(s_pos(&sc_, v) * pw, 1);
                fprintf(o, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\">"
                           "<title>", x0, by, w, bh, lg_palette_color(p, ser[j]));
                s_label(buf, sizeof buf, v, s->unit);
                snprintf(fit, sizeof fit, "%s%s%s: %s", cats[i], sc >= 0 ? ", " : "",
                         sc >= 0 ? ser[j] : "", buf);
                s_esc(o, fit);
                fputs("</title></rect>\n", o);
                s_text(o, x0 + w + 4, by + bh - 4, "start", "font-size=\"11\" fill=\"#222\"", buf);
            }
        }
        fprintf(o, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#888\"/>\n", x0,
                y0 - 4, x0, y0 + ph);
    } else {
        double x0 = 80, pw = W - x0 - 20, ph = 300;
        double hdr = s_header_h(ser, ns, sc >= 0);
        double slot = pw / (nc > 0 ? nc : 1);
        double bw = fmin(40, (slot - 12) / (ns > 0 ? ns : 1));
        double H = hdr + ph + 70;
        fprintf(o, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
                   "viewBox=\"0 0 %.0f %.0f\" role=\"img\" aria-labelledby=\"t d\" " FONT ">\n",
                W, H, W, H);
        fputs("<title id=\"t\">", o);
        s_esc(o, s->title);
        fputs("</title>\n<desc id=\"d\">", o);
        snprintf(buf, sizeof buf, "Bar chart of %s%s%s by %s.", s->y, s->unit[0] ? " in " : "",
                 s->unit, s->x);
        s_esc(o, buf);
        fputs("</desc>\n<rect width=\"100%\" height=\"100%\" fill=\"#fff\"/>\n", o);
        double y0 = s_header(o, s, ser, ns, p, sc >= 0) + 8;
        for (int i = 0; i < nt; i++) {
            double y = y0 + ph - s_pos(&sc_, ticks[i]) * ph;
            fprintf(o, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#e3e3e3\"/>\n",
                    x0, y, x0 + pw, y);
            lg_fmt_num(ticks[i], buf, sizeof buf);
            s_text(o, x0 - 6, y + 4, "end", "font-size=\"10\" fill=\"#666\"", buf);
        }
        for (int k = 0; k < nc; k++) {
            int i = ord[k].idx;
            double gx = x0 + k * slot + (slot - bw * ns) / 2;
            s_text(o, x0 + k * slot + slot / 2, y0 + ph + 16, "middle",
                   "font-size=\"11\" fill=\"#222\"", s_fit(cats[i], slot - 4, fit, sizeof fit));
            for (int j = 0; j < ns; j++) {
                double v = val[i * ns + j];
                if (!isfinite(v))
                    continue;
                double h = fmax(s_pos(&sc_, v) * ph, 1);
                fprintf(o, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\">"
                           "<title>", gx + j * bw, y0 + ph - h, bw - 1, h,
                        lg_palette_color(p, ser[j]));
                s_label(buf, sizeof buf, v, s->unit);
                s_esc(o, buf);
                fputs("</title></rect>\n", o);
                if (bw >= 28) { /* a value label only where it fits over its bar */
                    lg_fmt_num(v, buf, sizeof buf);
                    s_text(o, gx + j * bw + (bw - 1) / 2, y0 + ph - h - 4, "middle",
                           "font-size=\"10\" fill=\"#222\"", buf);
                }
            }
        }
        snprintf(buf, sizeof buf, "%s%s%s%s", s->y, s->unit[0] ? " (" : "", s->unit,
                 s->unit[0] ? ")" : "");
        fprintf(o, "<text transform=\"translate(16,%.1f) rotate(-90)\" text-anchor=\"middle\" "
                   "font-size=\"11\" fill=\"#444\">", y0 + ph / 2);
        s_esc(o, buf);
        fputs("</text>\n", o);
    }
    fputs("</svg>\n", o);
out:
    free(cats);
    free(ser);
    free(val);
    free(ord);
}

/* Lines (and points) of y over x per series: x is categorical for "line" (load points in query
 * order) and numeric for scatter and time series. */
static void s_lines(FILE *o, const lg_chart_spec_t *s, const lg_table_t *t, lg_palette_t *p)
{
    int xc = lg_table_col(t, s->x), yc = lg_table_col(t, s->y);
    int sc = s->series[0] ? lg_table_col(t, s->series) : -1;
    bool numx = s->kind != LG_CHART_LINE;
    const char **cats, **ser;
    int nc = s_distinct(t, xc, &cats), ns = s_distinct(t, sc, &ser);
    char buf[256], fit[256];
    if (!cats || !ser)
        goto out;
    double ymn = INFINITY, ymx = -INFINITY, xmn = INFINITY, xmx = -INFINITY;
    for (int r = 0; r < t->nrows; r++) {
        double v = s_value(t, r, yc);
        if (isfinite(v) && (!s->log || v > 0)) {
            ymn = fmin(ymn, v);
            ymx = fmax(ymx, v);
        }
        if (numx) {
            double x = s_value(t, r, xc);
            if (isfinite(x)) {
                xmn = fmin(xmn, x);
                xmx = fmax(xmx, x);
            }
        }
    }
    s_scale_t ys = s_make_scale(isfinite(ymn) ? ymn : 0, isfinite(ymx) ? ymx : 1, s->log);
    if (!s->log && isfinite(ymn) && ymn > 0 && s->kind != LG_CHART_LINE)
        ys.lo = 0;
    s_scale_t xs = {isfinite(xmn) ? xmn : 0, isfinite(xmx) && xmx > xmn ? xmx : (isfinite(xmn) ? xmn + 1 : 1), false};
    double x0 = 80, pw = W - x0 - 24, ph = 320;
    double hdr = s_header_h(ser, ns, sc >= 0);
    double H = hdr + ph + 60;
    fprintf(o, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
               "viewBox=\"0 0 %.0f %.0f\" role=\"img\" aria-labelledby=\"t d\" " FONT ">\n",
            W, H, W, H);
    fputs("<title id=\"t\">", o);
    s_esc(o, s->title);
    fputs("</title>\n<desc id=\"d\">", o);
    snprintf(buf, sizeof buf, "%s chart of %s%s%s over %s%s%s.",
             s->kind == LG_CHART_SCATTER ? "Scatter" : s->kind == LG_CHART_TIMESERIES ? "Time-series line" : "Line",
             s->y, s->unit[0] ? " in " : "", s->unit, s->x, sc >= 0 ? " per " : "",
             sc >= 0 ? s->series : "");
    s_esc(o, buf);
    fputs(" ", o);
    s_esc(o, s->subtitle);
    fputs("</desc>\n<rect width=\"100%\" height=\"100%\" fill=\"#fff\"/>\n", o);
    double y0 = s_header(o, s, ser, ns, p, sc >= 0) + 8;
    double ticks[12];
    int nt = s_ticks(&ys, ticks);
    for (int i = 0; i < nt; i++) {
        double y = y0 + ph - s_pos(&ys, ticks[i]) * ph;
        fprintf(o, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#e3e3e3\"/>\n", x0,
                y, x0 + pw, y);
        lg_fmt_num(ticks[i], buf, sizeof buf);
        s_text(o, x0 - 6, y + 4, "end", "font-size=\"10\" fill=\"#666\"", buf);
    }
    /* x labels: categorical ones evenly spaced, skipping some so none overlap. */
    if (!numx) {
        double slot = pw / (nc > 1 ? nc - 1 : 1);
        size_t maxl = 1;
        for (int i = 0; i < nc; i++)
            maxl = strlen(cats[i]) > maxl ? strlen(cats[i]) : maxl;
        int every = (int)ceil(((double)maxl * CHAR_W + 8) / slot);
        every = every < 1 ? 1 : every;
        for (int i = 0; i < nc; i += every)
            s_text(o, nc > 1 ? x0 + i * slot : x0 + pw / 2, y0 + ph + 16, "middle",
                   "font-size=\"11\" fill=\"#222\"", cats[i]);
    } else {
        s_scale_t tx = s_make_scale(xs.lo, xs.hi, false);
        double step = s_nice((xs.hi - xs.lo) / 6);
        for (double v = ceil(xs.lo / step) * step; v <= xs.hi + step * 1e-6; v += step) {
            double x = x0 + (v - xs.lo) / (xs.hi - xs.lo) * pw;
            lg_fmt_num(v, buf, sizeof buf);
            s_text(o, x, y0 + ph + 16, "middle", "font-size=\"10\" fill=\"#666\"", buf);
        }
        (void)tx;
    }
    fprintf(o, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#888\"/>\n", x0,
            y0 + ph, x0 + pw, y0 + ph);
    s_text(o, x0 + pw / 2, y0 + ph + 36, "middle", "font-size=\"11\" fill=\"#444\"", s->x);
    snprintf(buf, sizeof buf, "%s%s%s%s", s->y, s->unit[0] ? " (" : "", s->unit,
             s->unit[0] ? ")" : "");
    fprintf(o, "<text transform=\"translate(16,%.1f) rotate(-90)\" text-anchor=\"middle\" "
               "font-size=\"11\" fill=\"#444\">", y0 + ph / 2);
    s_esc(o, buf);
    fputs("</text>\n", o);
    for (int j = 0; j < ns; j++) {
        const char *col = lg_palette_color(p, ser[j]);
        if (s->kind != LG_CHART_SCATTER) {
            fprintf(o, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"", col);
            for (int r = 0; r < t->nrows; r++) {
                if (sc >= 0 && s_index(ser, ns, lg_table_get(t, r, sc)) != j)
                    continue;
                double v = s_value(t, r, yc);
                if (!isfinite(v) || (s->log && v <= 0))
                    continue;
                double x = numx ? x0 + (s_value(t, r, xc) - xs.lo) / (xs.hi - xs.lo) * pw
                                : x0 + (nc > 1 ? s_index(cats, nc, lg_table_get(t, r, xc)) * pw / (nc - 1) : pw / 2);
                fprintf(o, "%.1f,%.1f ", x, y0 + ph - s_pos(&ys, v) * ph);
            }
            fputs("\"/>\n", o);
        }
        if (s->kind == LG_CHART_TIMESERIES && t->nrows > 60)
            continue; /* dense series: the line alone reads better than a dot per sample */
        for (int r = 0; r < t->nrows; r++) {
            if (sc >= 0 && s_index(ser, ns, lg_table_get(t, r, sc)) != j)
                continue;
            double v = s_value(t, r, yc);
            if (!isfinite(v) || (s->log && v <= 0))
                continue;
            double x = numx ? x0 + (s_value(t, r, xc) - xs.lo) / (xs.hi - xs.lo) * pw
                            : x0 + (nc > 1 ? s_index(cats, nc, lg_table_get(t, r, xc)) * pw / (nc - 1) : pw / 2);
            fprintf(o, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" fill=\"%s\"><title>", x,
                    y0 + ph - s_pos(&ys, v) * ph, col);
            s_label(buf, sizeof buf, v, s->unit);
            const char *xv = lg_table_get(t, r, xc);
            snprintf(fit, sizeof fit, "%s%s%s = %s: %s", sc >= 0 ? ser[j] : "", sc >= 0 ? ", " : "",
                     s->x, xv ? xv : "", buf);
            s_esc(o, fit);
            fputs("</title></circle>\n", o);
        }
    }
    fputs("</svg>\n", o);
out:
    free(cats);
    free(ser);
}

void lg_svg_write(FILE *out, const lg_chart_spec_t *s, const lg_table_t *t, lg_palette_t *p)
{
    fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", out);
    if (s->kind == LG_CHART_HBAR || s->kind == LG_CHART_BAR)
        s_bars(out, s, t, p, s->kind == LG_CHART_BAR);
    else
        s_lines(out, s, t, p);
}
