/* svg.c: charts drawn by lg itself as standalone SVG, 800 px wide: the pieces every chart shares
 * (text measure, scales, ticks, the header and legend, the root element) and the entry points.
 * The charts themselves: svg_bars.c (grouped bars in the style of published reviews) and
 * svg_lines.c (sweeps, scatter, time series, curves). */
#include "lg_esc.h"
#include "lg_util.h"
#include "svg_int.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define W LG_SVG_W
#define FONT LG_SVG_FONT

/* Advance width of text at size px in DejaVu Sans, the widest of the fonts we name, by classes
 * of glyphs: layout that reserves this much room holds in any of them. */
double lg__svg_text_w(const char *s, double size)
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
const char *lg__svg_on(const char *fill)
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
int lg__svg_distinct(const lg_table_t *t, int c, const char ***out)
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

int lg__svg_index(const char **v, int n, const char *x)
{
    if (!x)
        x = "(null)";
    for (int i = 0; i < n; i++)
        if (!strcmp(v[i], x))
            return i;
    return -1;
}

double lg__svg_nice(double x)
{
    double e = pow(10, floor(log10(x)));
    double f = x / e;
    return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 2.5 ? 2.5 : f <= 5 ? 5 : 10) * e;
}

/* Linear: 0 .. a nice top above max. Log: whole decades around [min, max]. */
lg__svg_scale_t lg__svg_scale(double mn, double mx, bool logscale)
{
    lg__svg_scale_t s = {0, 1, logscale};
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
    s.lo = mn < 0 ? -lg__svg_nice(-mn) : 0;
    s.hi = mx > 0 ? mx : 1;
    double step = lg__svg_nice((s.hi - s.lo) / 5);
    s.hi = ceil(s.hi / step) * step;
    return s;
}

double lg__svg_pos(const lg__svg_scale_t *s, double v)
{
    if (s->log) {
        if (!(v > 0))
            v = s->lo;
        return (log10(v) - log10(s->lo)) / (log10(s->hi) - log10(s->lo));
    }
    return (v - s->lo) / (s->hi - s->lo);
}

/* Tick values; returns the count (at most 12). */
int lg__svg_ticks(const lg__svg_scale_t *s, double *t)
{
    int n = 0;
    if (s->log) {
        for (double v = s->lo; v <= s->hi * 1.0001 && n < 12; v *= 10)
            t[n++] = v;
        return n;
    }
    double step = lg__svg_nice((s->hi - s->lo) / 5);
    for (double v = s->lo; v <= s->hi + step * 1e-6 && n < 12; v += step)
        t[n++] = fabs(v) < step * 1e-9 ? 0 : v;
    return n;
}

void lg__svg_text(FILE *o, double x, double y, const char *anchor, const char *attrs,
                   const char *text)
{
    fprintf(o, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\" %s>", x, y, anchor,
            attrs ? attrs : "");
    lg_xml_esc(o, text);
    fputs("</text>\n", o);
}

/* Fit 11 px text into max_px by cutting it with an ellipsis (at a character boundary); writes
 * into buf. */
const char *lg__svg_fit(const char *s, double max_px, char *buf, size_t len)
{
    if (lg__svg_text_w(s, 11) <= max_px)
        return s;
    size_t n = strlen(s);
    if (n + 4 > len)
        n = len - 4;
    for (;;) {
        while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80)
            n--;
        snprintf(buf, len, "%.*s…", (int)n, s);
        if (n == 0 || lg__svg_text_w(buf, 11) <= max_px)
            return buf;
        n--;
    }
}

/* Rows the legend wraps into at this width (the same walk as lg__svg_header). */
static int s_legend_rows(const char **series, int ns)
{
    double x = 16;
    int rows = 1;
    for (int i = 0; i < ns; i++) {
        double w = 18 + lg__svg_text_w(series[i], 11) + 16;
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
void lg__svg_step_text(double v, double step, char *buf, size_t len)
{
    int dec = 0;
    if (step > 0 && step < 1)
        dec = (int)ceil(-log10(step) - 1e-9);
    if (dec > 6)
        dec = 6;
    lg_fmt_thousands(buf, len, v, dec);
}

void lg__svg_tick_text(const double *t, int n, int i, char *buf, size_t len)
{
    int lin = n >= 3 && fabs((t[2] - t[1]) - (t[1] - t[0])) < 1e-9 * fabs(t[1] - t[0]);
    lg__svg_step_text(t[i], lin ? fabs(t[1] - t[0]) : fabs(t[i]), buf, len);
}

/* y of the last header line drawn before the legend: 48 under a drawn title and subtitle. */
static double s_top(const lg__svg_opts_t *op) { return op->standalone ? 48 : 0; }

/* Height above the plot: title, subtitle, legend rows (the y lg__svg_header returns, plus 8). */
double lg__svg_header_h(const lg__svg_opts_t *op, const char **series, int ns, bool has_series)
{
    return s_top(op) + (has_series ? 22 + 18.0 * (s_legend_rows(series, ns) - 1) : 0) + 16 + 8;
}

/* Header: title and subtitle (standalone only) and the legend; returns the y where the plot
 * starts. */
double lg__svg_header(FILE *o, const lg__svg_opts_t *op, const lg_chart_spec_t *s,
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
            double w = 18 + lg__svg_text_w(series[i], 11) + 16;
            if (x + w > W - 16 && x > 16) {
                x = 16;
                y += 18;
            }
            fprintf(o, "<rect x=\"%.1f\" y=\"%.1f\" width=\"12\" height=\"12\" fill=\"%s\"/>\n", x,
                    y - 10, lg_palette_color(p, series[i]));
            lg__svg_text(o, x + 16, y, "start", "font-size=\"11\" fill=\"#333\"", series[i]);
            x += w;
        }
    }
    return y + 16;
}

double lg__svg_value(const lg_table_t *t, int r, int c)
{
    const char *v = lg_table_get(t, r, c);
    return v ? strtod(v, NULL) : NAN;
}

void lg__svg_label(char *buf, size_t len, double v, const char *unit)
{
    char n[64];
    lg_fmt_num(v, n, sizeof n);
    snprintf(buf, len, "%s%s%s", n, unit[0] ? " " : "", unit);
}

/* The root element with its accessible name and description, and a white background. */
void lg__svg_root(FILE *o, const lg__svg_opts_t *op, const lg_chart_spec_t *s, double H,
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

static void s_write(FILE *out, const lg__svg_opts_t *op, const lg_chart_spec_t *s, const lg_table_t *t,
                    lg_palette_t *p)
{
    if (s->kind == LG_CHART_HBAR || s->kind == LG_CHART_BAR)
        lg__svg_bars(out, op, s, t, p, s->kind == LG_CHART_BAR);
    else
        lg__svg_lines(out, op, s, t, p);
}

void lg_svg_write(FILE *out, const lg_chart_spec_t *s, const lg_table_t *t, lg_palette_t *p)
{
    lg__svg_opts_t op = {true, "c"};
    fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", out);
    s_write(out, &op, s, t, p);
}

void lg_svg_write_inline(FILE *out, const lg_chart_spec_t *s, const lg_table_t *t,
                         lg_palette_t *p, const char *id)
{
    lg__svg_opts_t op = {false, id};
    s_write(out, &op, s, t, p);
}