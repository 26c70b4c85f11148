/* svg.c: charts drawn by lg itself as standalone SVG, 800 px wide: grouped horizontal bars in
 * the style of published reviews, vertical bars, and lines for sweeps, scatter and time series
 * (optionally on a log scale). Text is sized so a chart stays readable at its natural width. */
#include "chart.h"
#include "lg_esc.h"
#include "lg_util.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define W 800.0
#define FONT "font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\""

/* How a chart is written: standalone (an .svg file that carries its drawn title) or inside the
 * HTML page, which shows the title and subtitle as text and needs ids unique in the page. */
typedef struct {
    bool standalone;
    const char *id;
} s_opts_t;

/* Advance width of text at size px in DejaVu Sans, the widest of the fonts we name, by classes
 * of glyphs: layout that reserves this much room holds in any of them. */
static double s_text_w(const char *s, double size)
{
    double em = 0;
    for (const unsigned char *c = (const unsigned char *)s; c && *c; c++) {
        if ((*c & 0xC0) == 0x80)
            continue; /* UTF-8 continuation byte */
        if (*c >= 0x80)
            em += 0.65;
        else if (isdigit(*c))
            em += 0.637;
        else if (strchr(" ,.:;'|!", *c))
            em += 0.318;
        else if (strchr("ijlI", *c))
            em += 0.295;
        else if (strchr("frt()-/[]", *c))
            em += 0.412;
        else if (strchr("mwMW%", *c))
            em += 0.975;
        else if (isupper(*c))
            em += 0.72;
        else
            em += 0.62;
    }
    return em * size;
}

/* Text on a bar of this fill: white on dark colours, near-black on light ones. */
static const char *s_on(const char *fill)
{
    unsigned r = 0, g = 0, b = 0;
    if (sscanf(fill, "#%2x%2x%2x", &r, &g, &b) != 3)
        return "#fff";
    double l = (0.299 * r + 0.587 * g + 0.114 * b) / 255;
    return l > 0.6 ? "#222" : "#fff";
}

/* Labels and names come from the database, where an import or an older campaign may have left
 * bytes XML 1.0 forbids (one makes the whole document ill-formed): lg_xml_write replaces them. */
void lg_xml_esc(FILE *o, const char *s) { lg_xml_write(o, s); }

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
    lg_xml_esc(o, text);
    fputs("</text>\n", o);
}

/* Fit 11 px text into max_px by cutting it with an ellipsis (at a character boundary); writes
 * into buf. */
static const char *s_fit(const char *s, double max_px, char *buf, size_t len)
{
    if (s_text_w(s, 11) <= max_px)
        return s;
    size_t n = strlen(s);
    if (n + 4 > len)
        n = len - 4;
    for (;;) {
        while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80)
            n--;
        snprintf(buf, len, "%.*s…", (int)n, s);
        if (n == 0 || s_text_w(buf, 11) <= max_px)
            return buf;
        n--;
    }
}

/* Rows the legend wraps into at this width (the same walk as s_header). */
static int s_legend_rows(const char **series, int ns)
{
    double x = 16;
    int rows = 1;
    for (int i = 0; i < ns; i++) {
        double w = 18 + s_text_w(series[i], 11) + 16;
        if (x + w > W - 16 && x > 16) {
            x = 16;
            rows++;
        }
        x += w;
    }
    return rows;
}


/* An axis's tick labels share one format: as many decimals as the step between ticks needs
 * (0, 50, 100, 150, not 0, 50.0, 100, 150), thousands separated; a log axis (steps that grow)
 * gives each tick the decimals of its own magnitude (0.1, 1, 10, 100). */
static void s_step_text(double v, double step, char *buf, size_t len)
{
    int dec = 0;
    if (step > 0 && step < 1)
        dec = (int)ceil(-log10(step) - 1e-9);
    if (dec > 6)
        dec = 6;
    lg_fmt_thousands(buf, len, v, dec);
}

static void s_tick_text(const double *t, int n, int i, char *buf, size_t len)
{
    int lin = n >= 3 && fabs((t[2] - t[1]) - (t[1] - t[0])) < 1e-9 * fabs(t[1] - t[0]);
    s_step_text(t[i], lin ? fabs(t[1] - t[0]) : fabs(t[i]), buf, len);
}

/* y of the last header line drawn before the legend: 48 under a drawn title and subtitle. */
static double s_top(const s_opts_t *op) { return op->standalone ? 48 : 0; }

/* Height above the plot: title, subtitle, legend rows (the y s_header returns, plus 8). */
static double s_header_h(const s_opts_t *op, const char **series, int ns, bool has_series)
{
    return s_top(op) + (has_series ? 22 + 18.0 * (s_legend_rows(series, ns) - 1) : 0) + 16 + 8;
}

/* Header: title and subtitle (standalone only) and the legend; returns the y where the plot
 * starts. */
static double s_header(FILE *o, const s_opts_t *op, const lg_chart_spec_t *s,
                       const char **series, int ns, lg_palette_t *p, bool has_series)
{
    double y = s_top(op);
    if (op->standalone) {
        char sub[800];
        fputs("<text x=\"16\" y=\"28\" font-size=\"18\" font-weight=\"bold\" fill=\"#222\">", o);
        lg_xml_esc(o, s->title);
        fputs("</text>\n", o);
        lg_chart_subline(s, sub, sizeof sub);
        fputs("<text x=\"16\" y=\"48\" font-size=\"12\" fill=\"#555\">", o);
        lg_xml_esc(o, sub);
        fputs("</text>\n", o);
    }
    if (has_series) {
        double x = 16;
        y += 22;
        for (int i = 0; i < ns; i++) {
            double w = 18 + s_text_w(series[i], 11) + 16;
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

/* The root element with its accessible name and description, and a white background. */
static void s_root(FILE *o, const s_opts_t *op, const lg_chart_spec_t *s, double H,
                   const char *desc)
{
    fprintf(o, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
               "viewBox=\"0 0 %.0f %.0f\" role=\"img\" aria-labelledby=\"%s-t %s-d\" " FONT ">\n",
            W, H, W, H, op->id, op->id);
    fprintf(o, "<title id=\"%s-t\">", op->id);
    lg_xml_esc(o, s->title);
    fprintf(o, "</title>\n<desc id=\"%s-d\">", op->id);
    lg_xml_esc(o, desc);
    if (s->subtitle[0]) {
        fputs(" ", o);
        lg_xml_esc(o, s->subtitle);
    }
    fputs("</desc>\n<rect width=\"100%\" height=\"100%\" fill=\"#fff\"/>\n", o);
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
static void s_bars(FILE *o, const s_opts_t *op, const lg_chart_spec_t *s, const lg_table_t *t,
                   lg_palette_t *p, bool vertical)
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
            labw = fmax(labw, s_text_w(cats[i], 11) + 12);
        labw = fmin(labw, 260);
        /* Room right of the longest bar for the longest value label; a label that still does not
         * fit after its bar goes inside it. */
        double valw = 0;
        for (int i = 0; i < nc * ns; i++)
            if (isfinite(val[i])) {
                s_label(buf, sizeof buf, val[i], s->unit);
                valw = fmax(valw, s_text_w(buf, 11) + 8);
            }
        valw = fmin(valw, 160);
        double x0 = 16 + labw, pw = W - x0 - valw - 12;
        double bh = 16, bgap = 2, ggap = 14;
        double gh = ns * (bh + bgap) - bgap;
        double ph = nc * (gh + ggap);
        double hdr = s_header_h(op, ser, ns, sc >= 0);
        double H = hdr + ph + 50;
        snprintf(buf, sizeof buf, "Horizontal bar chart of %s%s%s by %s%s%s.",
                 s->ytitle[0] ? s->ytitle : s->y, s->unit[0] ? " in " : "", s->unit,
                 s->xtitle[0] ? s->xtitle : s->x, sc >= 0 ? " and " : "",
                 sc >= 0 ? s->series : "");
        s_root(o, op, s, H, buf);
        double y0 = s_header(o, op, s, ser, ns, p, sc >= 0) + 8;
        for (int i = 0; i < nt; i++) {
            double x = x0 + s_pos(&sc_, ticks[i]) * pw;
            fprintf(o, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#e3e3e3\"/>\n",
                    x, y0 - 4, x, y0 + ph);
            s_tick_text(ticks, nt, i, buf, sizeof buf);
            s_text(o, x, y0 + ph + 14, "middle", "font-size=\"10\" fill=\"#666\"", buf);
        }
        snprintf(buf, sizeof buf, "%s%s%s%s", s->ytitle[0] ? s->ytitle : s->y,
                 s->unit[0] && strcmp(s->ytitle, s->unit) ? " (" : "",
                 strcmp(s->ytitle, s->unit) ? s->unit : "",
                 s->unit[0] && strcmp(s->ytitle, s->unit) ? ")" : "");
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
                const char *fill = lg_palette_color(p, ser[j]);
                fprintf(o, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\">"
                           "<title>", x0, by, w, bh, fill);
                s_label(buf, sizeof buf, v, s->unit);
                snprintf(fit, sizeof fit, "%s%s%s: %s", cats[i], sc >= 0 ? ", " : "",
                         sc >= 0 ? ser[j] : "", buf);
                lg_xml_esc(o, fit);
                fputs("</title></rect>\n", o);
                double lw = s_text_w(buf, 11);
                if (x0 + w + 4 + lw <= W - 4 || lw + 8 > w) {
                    s_text(o, x0 + w + 4, by + bh - 4, "start", "font-size=\"11\" fill=\"#222\"", buf);
                } else {
                    char attrs[64];
                    snprintf(attrs, sizeof attrs, "font-size=\"11\" fill=\"%s\"", s_on(fill));
                    s_text(o, x0 + w - 4, by + bh - 4, "end", attrs, buf);
                }
            }
        }
        fprintf(o, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#888\"/>\n", x0,
                y0 - 4, x0, y0 + ph);
    } else {
        double x0 = 80, pw = W - x0 - 20, ph = 300;
        double hdr = s_header_h(op, ser, ns, sc >= 0);
        double slot = pw / (nc > 0 ? nc : 1);
        double bw = fmin(40, (slot - 12) / (ns > 0 ? ns : 1));
        double H = hdr + ph + 70;
        snprintf(buf, sizeof buf, "Bar chart of %s%s%s by %s.", s->ytitle[0] ? s->ytitle : s->y,
                 s->unit[0] ? " in " : "", s->unit, s->xtitle[0] ? s->xtitle : s->x);
        s_root(o, op, s, H, buf);
        double y0 = s_header(o, op, s, ser, ns, p, sc >= 0) + 8;
        for (int i = 0; i < nt; i++) {
            double y = y0 + ph - s_pos(&sc_, ticks[i]) * ph;
            fprintf(o, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#e3e3e3\"/>\n",
                    x0, y, x0 + pw, y);
            s_tick_text(ticks, nt, i, buf, sizeof buf);
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
                const char *fill = lg_palette_color(p, ser[j]);
                fprintf(o, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\">"
                           "<title>", gx + j * bw, y0 + ph - h, bw - 1, h, fill);
                s_label(buf, sizeof buf, v, s->unit);
                lg_xml_esc(o, buf);
                fputs("</title></rect>\n", o);
                /* The value over its bar when it fits the bar's width; else turned upright, inside
                 * a tall bar or above a short one; on bars too thin for upright 10 px text it is
                 * left to the bar's tooltip and the data table. */
                lg_fmt_num(v, buf, sizeof buf);
                double lw = s_text_w(buf, 10), cx = gx + j * bw + (bw - 1) / 2, top = y0 + ph - h;
                if (lw <= bw - 3) {
                    s_text(o, cx, top - 4, "middle", "font-size=\"10\" fill=\"#222\"", buf);
                } else if (bw - 1 >= 12 && (h >= lw + 8 || ph - h >= lw + 6)) {
                    bool in = h >= lw + 8;
                    fprintf(o, "<text transform=\"translate(%.1f,%.1f) rotate(-90)\" "
                               "text-anchor=\"%s\" font-size=\"10\" fill=\"%s\">",
                            cx + 3.5, in ? top + 4 : top - 4, in ? "end" : "start",
                            in ? s_on(fill) : "#222");
                    lg_xml_esc(o, buf);
                    fputs("</text>\n", o);
                }
            }
        }
        snprintf(buf, sizeof buf, "%s%s%s%s", s->ytitle[0] ? s->ytitle : s->y,
                 s->unit[0] && strcmp(s->ytitle, s->unit) ? " (" : "",
                 strcmp(s->ytitle, s->unit) ? s->unit : "",
                 s->unit[0] && strcmp(s->ytitle, s->unit) ? ")" : "");
        fprintf(o, "<text transform=\"translate(16,%.1f) rotate(-90)\" text-anchor=\"middle\" "
                   "font-size=\"11\" fill=\"#444\">", y0 + ph / 2);
        lg_xml_esc(o, buf);
        fputs("</text>\n", o);
    }
    fputs("</svg>\n", o);
out:
    free(cats);
    free(ser);
    free(val);
    free(ord);
}

/* A tick step of whole clock units (s, min, h) for about six ticks over span seconds. */
static double s_clock_step(double span)
{
    static const double steps[] = {1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600};
    for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++)
        if (steps[i] >= span / 6)
            return steps[i];
    return s_nice(span / 6 / 3600) * 3600;
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
static double *s_xvalues(const lg_chart_spec_t *s, const lg_table_t *t, int xc, bool *clock)
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

/* Lines (and points) of y over x per series: x is categorical for "line" (load points in query
 * order) and numeric for scatter and time series. */
static void s_lines(FILE *o, const s_opts_t *op, const lg_chart_spec_t *s, const lg_table_t *t,
                    lg_palette_t *p)
{
    int xc = lg_table_col(t, s->x), yc = lg_table_col(t, s->y);
    int sc = s->series[0] ? lg_table_col(t, s->series) : -1;
    bool numx = s->kind != LG_CHART_LINE;
    const char **cats, **ser;
    int nc = s_distinct(t, xc, &cats), ns = s_distinct(t, sc, &ser);
    char buf[256], fit[256];
    bool clock = false;
    double *xv = numx ? s_xvalues(s, t, xc, &clock) : NULL;
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
        double v = s_value(t, r, lc);
        if (isfinite(v) && (!s->log || v > 0)) {
            ymn = fmin(ymn, v);
            ymx = fmax(ymx, v);
        }
    }
    for (int r = 0; r < t->nrows; r++) {
        double v = s_value(t, r, yc);
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
    s_scale_t ys = s_make_scale(isfinite(ymn) ? ymn : 0, isfinite(ymx) ? ymx : 1, s->log);
    if (!s->log && isfinite(ymn) && ymn > 0 && s->kind != LG_CHART_LINE)
        ys.lo = 0;
    if (s->kind == LG_CHART_CURVE && isfinite(xmn) && xmn > 0)
        xmn = 0; /* a load axis starts at no load */
    s_scale_t xs = {isfinite(xmn) ? xmn : 0, isfinite(xmx) && xmx > xmn ? xmx : (isfinite(xmn) ? xmn + 1 : 1), false};
    double x0 = 80, pw = W - x0 - 24, ph = 320;
    double hdr = s_header_h(op, ser, ns, sc >= 0);
    double H = hdr + ph + 60;
    snprintf(buf, sizeof buf, "%s chart of %s%s%s over %s%s%s.",
             s->kind == LG_CHART_SCATTER      ? "Scatter"
             : s->kind == LG_CHART_TIMESERIES ? "Time-series line"
             : s->kind == LG_CHART_CURVE      ? "Curve"
                                              : "Line",
             s->ytitle[0] ? s->ytitle : s->y, s->unit[0] ? " in " : "", s->unit,
             s->xtitle[0] ? s->xtitle : s->x, sc >= 0 ? " per " : "", sc >= 0 ? s->series : "");
    s_root(o, op, s, H, buf);
    double y0 = s_header(o, op, s, ser, ns, p, sc >= 0) + 8;
    double ticks[12];
    int nt = s_ticks(&ys, ticks);
    for (int i = 0; i < nt; i++) {
        double y = y0 + ph - s_pos(&ys, ticks[i]) * ph;
        fprintf(o, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#e3e3e3\"/>\n", x0,
                y, x0 + pw, y);
        s_tick_text(ticks, nt, i, buf, sizeof buf);
        s_text(o, x0 - 6, y + 4, "end", "font-size=\"10\" fill=\"#666\"", buf);
    }
    /* x labels: categorical ones evenly spaced, skipping some so none overlap. */
    if (!numx) {
        double slot = pw / (nc > 1 ? nc - 1 : 1), maxw = 1;
        for (int i = 0; i < nc; i++)
            maxw = fmax(maxw, s_text_w(cats[i], 11));
        int every = (int)ceil((maxw + 8) / slot);
        every = every < 1 ? 1 : every;
        for (int i = 0; i < nc; i += every)
            s_text(o, nc > 1 ? x0 + i * slot : x0 + pw / 2, y0 + ph + 16, "middle",
                   "font-size=\"11\" fill=\"#222\"", cats[i]);
    } else {
        /* Timestamps: seconds from the first sample up to two minutes, then m:ss or h:mm:ss. */
        double span = xs.hi - xs.lo;
        bool mmss = clock && span > 120, hours = clock && xs.hi >= 3600;
        double step = mmss ? s_clock_step(span) : s_nice(span / 6);
        for (double v = ceil(xs.lo / step) * step; v <= xs.hi + step * 1e-6; v += step) {
            double x = x0 + (v - xs.lo) / span * pw;
            if (mmss)
                s_clock(v, hours, buf, sizeof buf);
            else /* the decimals the step needs, as on the value axis: 2, 4, 6 seconds */
                s_step_text(fabs(v) < step * 1e-9 ? 0 : v, step, buf, sizeof buf);
            s_text(o, x, y0 + ph + 16, "middle", "font-size=\"10\" fill=\"#666\"", buf);
        }
    }
    fprintf(o, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#888\"/>\n", x0,
            y0 + ph, x0 + pw, y0 + ph);
    if (clock)
        snprintf(buf, sizeof buf, "time since the first sample (%s)",
                 !(xs.hi - xs.lo > 120) ? "s" : xs.hi >= 3600 ? "h:mm:ss" : "m:ss");
    else
        snprintf(buf, sizeof buf, "%s", s->xtitle[0] ? s->xtitle : s->x);
    s_text(o, x0 + pw / 2, y0 + ph + 36, "middle", "font-size=\"11\" fill=\"#444\"", buf);
    snprintf(buf, sizeof buf, "%s%s%s%s", s->ytitle[0] ? s->ytitle : s->y,
                 s->unit[0] && strcmp(s->ytitle, s->unit) ? " (" : "",
                 strcmp(s->ytitle, s->unit) ? s->unit : "",
             s->unit[0] && strcmp(s->ytitle, s->unit) ? ")" : "");
    fprintf(o, "<text transform=\"translate(16,%.1f) rotate(-90)\" text-anchor=\"middle\" "
               "font-size=\"11\" fill=\"#444\">", y0 + ph / 2);
    lg_xml_esc(o, buf);
    fputs("</text>\n", o);
    /* Each row's point, once: its series (-1: not drawn), value and position. */
    pt = malloc(((size_t)t->nrows + 1) * sizeof *pt);
    if (!pt)
        goto out;
    for (int r = 0; r < t->nrows; r++) {
        double v = s_value(t, r, yc);
        pt[r].series = -1;
        if (!isfinite(v) || (s->log && v <= 0) || (numx && !isfinite(xv[r])))
            continue;
        pt[r].series = sc >= 0 ? s_index(ser, ns, lg_table_get(t, r, sc)) : 0;
        pt[r].v = v;
        pt[r].x = numx ? x0 + (xv[r] - xs.lo) / (xs.hi - xs.lo) * pw
                       : x0 + (nc > 1 ? s_index(cats, nc, lg_table_get(t, r, xc)) * pw / (nc - 1) : pw / 2);
        pt[r].y = y0 + ph - s_pos(&ys, v) * ph;
    }
    /* Each distinct limit: a dashed line across, labelled at its right end. */
    for (int r = 0; r < t->nrows && lc >= 0; r++) {
        double v = s_value(t, r, lc);
        int seen = 0;
        for (int q = 0; q < r && !seen; q++)
            seen = s_value(t, q, lc) == v;
        if (seen || !isfinite(v) || (s->log && v <= 0))
            continue;
        double y = y0 + ph - s_pos(&ys, v) * ph;
        fprintf(o, "<line class=\"limit\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
                   "stroke=\"#c0392b\" stroke-width=\"1.5\" stroke-dasharray=\"6 4\"/>\n",
                x0, y, x0 + pw, y);
        s_label(fit, sizeof fit, v, s->unit);
        snprintf(buf, sizeof buf, "limit %s", fit);
        s_text(o, x0 + pw - 4, y - 5, "end", "font-size=\"11\" fill=\"#c0392b\"", buf);
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
            s_label(buf, sizeof buf, pt[r].v, s->unit);
            const char *xtext = lg_table_get(t, r, xc);
            snprintf(fit, sizeof fit, "%s%s%s = %s: %s", sc >= 0 ? ser[j] : "", sc >= 0 ? ", " : "",
                     s->x, xtext ? xtext : "", buf);
            lg_xml_esc(o, fit);
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
            s_label(fit, sizeof fit, pt[r].v, s->unit);
            size_t ml = strlen(s->mark_label);
            int lcol = -1;
            if (ml > 2 && s->mark_label[0] == '{' && s->mark_label[ml - 1] == '}') {
                char cname[64];
                snprintf(cname, sizeof cname, "%.*s", (int)(ml - 2), s->mark_label + 1);
                lcol = lg_table_col(t, cname); /* "{column}": the label is that row's value */
            }
            if (lcol >= 0)
                snprintf(buf, sizeof buf, "%s", lg_table_get(t, r, lcol) ? lg_table_get(t, r, lcol) : "");
            else
                snprintf(buf, sizeof buf, "%s %s", s->mark_label[0] ? s->mark_label : s->mark, fit);
            s_text(o, pt[r].x, pt[r].y - 12, "middle", "font-size=\"11\" fill=\"#222\"", buf);
        }
    }
    fputs("</svg>\n", o);
out:
    free(pt);
    free(xv);
    free(cats);
    free(ser);
}

static void s_write(FILE *out, const s_opts_t *op, const lg_chart_spec_t *s, const lg_table_t *t,
                    lg_palette_t *p)
{
    if (s->kind == LG_CHART_HBAR || s->kind == LG_CHART_BAR)
        s_bars(out, op, s, t, p, s->kind == LG_CHART_BAR);
    else
        s_lines(out, op, s, t, p);
}

void lg_svg_write(FILE *out, const lg_chart_spec_t *s, const lg_table_t *t, lg_palette_t *p)
{
    s_opts_t op = {true, "c"};
    fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", out);
    s_write(out, &op, s, t, p);
}

void lg_svg_write_inline(FILE *out, const lg_chart_spec_t *s, const lg_table_t *t,
                         lg_palette_t *p, const char *id)
{
    s_opts_t op = {false, id};
    s_write(out, &op, s, t, p);
}
