/* svg_common.c: what every chart of lg-export shares, 800 px wide: text measure and wrapping,
 * scales and ticks, the header with its legend, labels, the root element, and the numeric x axis
 * of scatter and time series with its x values. The renderers (svg_bars.c, svg_lines.c,
 * svg_dual.c) call these; nothing here calls a renderer. */
#include "svg_common.h"
#include "lg_esc.h"
#include "lg_util.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define W LG_SVG_W
#define FONT LG_SVG_FONT

/* Advance width in em of the character whose (lead) byte is c, in DejaVu Sans, the widest of the
 * fonts we name, by classes of glyphs: layout that reserves this much room holds in any of them.
 * 0 for a UTF-8 continuation byte. */
static double s_char_em(unsigned char c)
{
    if ((c & 0xC0) == 0x80)
        return 0;
    if (c >= 0x80)
        return 0.65;
    if (isdigit(c))
        return 0.637;
    if (strchr(" ,.:;'|!", c))
        return 0.318;
    if (strchr("ijlI", c))
        return 0.295;
    if (strchr("frt()-/[]", c))
        return 0.412;
    if (strchr("mwMW%", c))
        return 0.975;
    return isupper(c) ? 0.72 : 0.62;
}

double lg__svg_text_w(const char *s, double size)
{
    double em = 0;
    for (const unsigned char *c = (const unsigned char *)s; c && *c; c++)
        em += s_char_em(*c);
    return em * size;
}

/* Bytes of the UTF-8 character at s (1 for a stray continuation byte: it is a character to the
 * escaper, which replaces it). */
static size_t s_char_len(const char *s)
{
    size_t n = 1;
    if (((unsigned char)s[0] & 0xC0) == 0xC0)
        while (n < 4 && ((unsigned char)s[n] & 0xC0) == 0x80)
            n++;
    return n;
}

/* Where the line that starts at s ends when no wider than max_em: *end (its last byte + 1) and
 * *next (where the next line starts). Breaks at the last space (dropped) or after the last
 * - / , ; _ that fits; a word wider than the line is broken between characters. */
static void s_wrap_line(const char *s, double max_em, const char **end, const char **next)
{
    double em = 0;
    const char *brk = NULL, *brk_next = NULL, *p = s;
    while (*p) {
        size_t k = s_char_len(p);
        double cw = s_char_em((unsigned char)*p);
        if (em + cw > max_em && p > s) {
            if (*p == ' ') { /* the space that overflows is where this line ends */
                brk = p;
                brk_next = p + 1;
            }
            break;
        }
        em += cw;
        if (*p == ' ' && p > s) {
            brk = p;
            brk_next = p + 1;
        } else if (strchr("-/,;_", *p) && p[1] && p[1] != ' ') {
            brk = p + 1;
            brk_next = p + 1;
        }
        p += k;
    }
    if (!*p || !brk) {
        *end = *next = p; /* all of it, or a word cut between characters */
        return;
    }
    *end = brk;
    *next = brk_next;
}

int lg__svg_wrap(lg__svg_wrap_t *w, const char *s, double size, double max_px)
{
    size_t n = strlen(s), lines = 0;
    w->buf = malloc(2 * n + 2); /* each line's bytes and a NUL, at most one line per byte */
    w->line = malloc((n + 1) * sizeof *w->line);
    if (!w->buf || !w->line) {
        free(w->buf);
        free(w->line);
        w->buf = NULL;
        w->line = w->one;
        w->one[0] = s;
        w->n = 1;
        return -1;
    }
    double max_em = max_px / size;
    char *o = w->buf;
    const char *p = s;
    do {
        const char *end, *next;
        s_wrap_line(p, max_em, &end, &next);
        w->line[lines++] = o;
        memcpy(o, p, (size_t)(end - p));
        o += end - p;
        *o++ = '\0';
        p = next;
        while (lines > 0 && *p == ' ')
            p++; /* a broken line's next one starts at its word */
    } while (*p);
    w->n = (int)lines;
    return 0;
}

void lg__svg_wrap_clear(lg__svg_wrap_t *w)
{
    free(w->buf);
    if (w->line != w->one)
        free(w->line);
    memset(w, 0, sizeof *w);
}

void lg__svg_text_lines(FILE *o, double x, double y, double lh, const char *anchor,
                        const char *attrs, const lg__svg_wrap_t *w)
{
    if (w->n == 1) {
        lg__svg_text(o, x, y, anchor, attrs, w->line[0]);
        return;
    }
    fprintf(o, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\" %s>", x, y, anchor,
            attrs ? attrs : "");
    for (int i = 0; i < w->n; i++) {
        fprintf(o, "<tspan x=\"%.1f\" dy=\"%.1f\">", x, i ? lh : 0.0);
        lg_xml_esc(o, w->line[i]);
        fputs("</tspan>", o);
    }
    fputs("</text>\n", o);
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
void lg_xml_esc(FILE *o, const char *s)
{
    lg_xml_write(o, s);
}

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

/* An axis's tick labels share one format: as many decimals as the step between ticks needs
 * (0, 50, 100, 150, not 0, 50.0, 100, 150), thousands separated; a log axis (steps that grow)
 * gives each tick the decimals of its own magnitude (0.1, 1, 10, 100). */
void lg__svg_step_text(double v, double step, char *buf, size_t len)
{
    /* The fewest decimals that write the step exactly: 0.25 needs two, 2.5 one (a step of
     * 2.5 x 10^k written with fewer showed 0, 3, 5, 8). */
    int dec = 0;
    double m = fabs(step);
    while (dec < 6 && m > 0 && fabs(m - round(m)) > 1e-6 * fmax(m, 1)) {
        m *= 10;
        dec++;
    }
    lg_fmt_thousands(buf, len, v, dec);
}

void lg__svg_tick_text(const double *t, int n, int i, char *buf, size_t len)
{
    int lin = n >= 3 && fabs((t[2] - t[1]) - (t[1] - t[0])) < 1e-9 * fabs(t[1] - t[0]);
    lg__svg_step_text(t[i], lin ? fabs(t[1] - t[0]) : fabs(t[i]), buf, len);
}

/* Bold 18 px title text is about this much wider than regular text of the same size. */
#define S_BOLD 1.1

/* Lays out the title and subtitle (standalone only): returns the baseline of the last line,
 * writing the lines when o is not NULL. A long title or subtitle wraps (names are never cut). */
static double s_titles(FILE *o, const lg__svg_opts_t *op, const lg_chart_spec_t *s)
{
    if (!op->standalone)
        return 0;
    char sub[1200];
    lg__svg_wrap_t tw, sw;
    lg_chart_subline(s, sub, sizeof sub);
    lg__svg_wrap(&tw, s->title, 18 * S_BOLD, W - 32);
    lg__svg_wrap(&sw, sub, 12, W - 32);
    double ty = 28, sy = ty + 22.0 * (tw.n - 1) + 20;
    if (o) {
        lg__svg_text_lines(o, 16, ty, 22, "start",
                           "font-size=\"18\" font-weight=\"bold\" "
                           "fill=\"#222\"",
                           &tw);
        lg__svg_text_lines(o, 16, sy, 15, "start", "font-size=\"12\" fill=\"#555\"", &sw);
    }
    double last = sy + 15.0 * (sw.n - 1);
    lg__svg_wrap_clear(&tw);
    lg__svg_wrap_clear(&sw);
    return last;
}

/* Lays out the legend under y (the baseline above it): a swatch and a name per series, in rows
 * across the width; a name too long for a row wraps onto rows of its own. Dashed series (those
 * of a right axis) get a dashed line as their swatch. Writes it when o is not NULL; returns the
 * baseline of its last row. */
static double s_legend(FILE *o, double y, const char **series, const bool *dashed, int ns,
                       lg_palette_t *p)
{
    double x = 16, maxw = W - 32 - 34;
    y += 22;
    for (int i = 0; i < ns; i++) {
        lg__svg_wrap_t w;
        lg__svg_wrap(&w, series[i], 11, maxw);
        double tw = 0;
        for (int k = 0; k < w.n; k++)
            tw = fmax(tw, lg__svg_text_w(w.line[k], 11));
        double iw = 18 + tw + 16;
        if ((x + iw > W - 16 || w.n > 1) && x > 16) {
            x = 16;
            y += 18;
        }
        if (o) {
            const char *col = lg_palette_color(p, series[i]);
            if (dashed && dashed[i])
                fprintf(o,
                        "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
                        "stroke-width=\"2\" stroke-dasharray=\"4 2\"/>\n",
                        x, y - 4, x + 12, y - 4, col);
            else
                fprintf(o, "<rect x=\"%.1f\" y=\"%.1f\" width=\"12\" height=\"12\" fill=\"%s\"/>\n",
                        x, y - 10, col);
            lg__svg_text_lines(o, x + 16, y, 18, "start", "font-size=\"11\" fill=\"#333\"", &w);
        }
        y += 18.0 * (w.n - 1);
        x = w.n > 1 ? W : x + iw; /* after a wrapped name the next one starts a row */
        lg__svg_wrap_clear(&w);
    }
    return y;
}

double lg__svg_header_h(const lg__svg_opts_t *op, const lg_chart_spec_t *s, const char **series,
                        const bool *dashed, int ns, bool has_series)
{
    double y = s_titles(NULL, op, s);
    if (has_series)
        y = s_legend(NULL, y, series, dashed, ns, NULL);
    return y + 16 + 8;
}

double lg__svg_header(FILE *o, const lg__svg_opts_t *op, const lg_chart_spec_t *s,
                      const char **series, const bool *dashed, int ns, lg_palette_t *p,
                      bool has_series)
{
    double y = s_titles(o, op, s);
    if (has_series)
        y = s_legend(o, y, series, dashed, ns, p);
    return y + 16;
}

void lg__svg_axis_title(char *buf, size_t len, const char *title, const char *col, const char *unit)
{
    bool same = !strcmp(title, unit);
    snprintf(buf, len, "%s%s%s%s", title[0] ? title : col, unit[0] && !same ? " (" : "",
             same ? "" : unit, unit[0] && !same ? ")" : "");
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
    fprintf(o,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
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

/* ---- a numeric x axis (scatter, time series, curves) ---- */

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
    fprintf(o, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#888\"/>\n", x0, yb,
            x0 + pw, yb);
    if (clock)
        snprintf(buf, sizeof buf, "time since the first sample (%s)",
                 !(xs->hi - xs->lo > 120) ? "s"
                 : xs->hi >= 3600         ? "h:mm:ss"
                                          : "m:ss");
    else
        snprintf(buf, sizeof buf, "%s", s->xtitle[0] ? s->xtitle : s->x);
    lg__svg_text(o, x0 + pw / 2, yb + 36, "middle", "font-size=\"11\" fill=\"#444\"", buf);
}

/* ---- caveats under a chart ---- */

double lg__svg_caveats(FILE *o, const lg_chart_spec_t *s, double y)
{
    double h = 0;
    for (const char *p = s->caveats; *p;) {
        size_t l = strcspn(p, "\n");
        char line[1100];
        snprintf(line, sizeof line, "Caveat: %.*s", (int)(l < 1000 ? l : 1000), p);
        lg__svg_wrap_t w;
        lg__svg_wrap(&w, line, 11, W - 32);
        if (o) {
            fputs("<g class=\"caveat\">", o);
            lg__svg_text_lines(o, 16, y + h + 12, 14, "start", "font-size=\"11\" fill=\"#8a4b00\"",
                               &w);
            fputs("</g>\n", o);
        }
        h += 14 * w.n + 4;
        lg__svg_wrap_clear(&w);
        p += l + (p[l] == '\n');
    }
    return h > 0 ? h + 8 : 0;
}
