/* svg_bars.c: grouped bars, horizontal (the style of published reviews: a category per SUT
 * config, a bar per series) or vertical; a bar with a confidence interval (the ci directive: a
 * figure with repeats) carries it as an error bar. Category names wrap, never cut. */
#include "lg_esc.h"
#include "svg_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define W LG_SVG_W
#define S_LH 13.0 /* line height of wrapped 11 px names */

typedef struct {
    int idx;
    double key;
} s_ord_t;

/* The bars of one chart: values and intervals per category and series, the drawing order, the
 * category names wrapped, the value scale. */
typedef struct {
    const lg_chart_spec_t *s;
    int nc, ns;
    const char **cats, **ser;
    double *val, *lo, *hi; /* [category * ns + series]; NAN: no bar, no interval */
    s_ord_t *ord;          /* categories in drawing order */
    bool *had;             /* [category * ns + series]: a row is there (NULL value: no figure) */
    lg__svg_wrap_t *names; /* per category, wrapped to the room the layout gives */
    lg__svg_scale_t scale;
    bool has_series;
} s_bars_t;

static int s_cmp_asc(const void *a, const void *b)
{
    const s_ord_t *x = a, *y = b;
    return (x->key > y->key) - (x->key < y->key);
}

static int s_cmp_desc(const void *a, const void *b)
{
    return s_cmp_asc(b, a);
}

static void s_clear(s_bars_t *b)
{
    for (int i = 0; b->names && i < b->nc; i++)
        lg__svg_wrap_clear(&b->names[i]);
    free(b->names);
    free(b->cats);
    free(b->ser);
    free(b->val);
    free(b->lo);
    free(b->hi);
    free(b->ord);
    free(b->had);
    memset(b, 0, sizeof *b);
}

/* The value scale over every bar and every interval's ends (an interval below the axis's start,
 * e.g. under zero, is cut at the axis: its end has no cap). */
static void s_make_scale(s_bars_t *b)
{
    double mn = INFINITY, mx = -INFINITY;
    for (int i = 0; i < b->nc * b->ns; i++) {
        if (!isfinite(b->val[i]))
            continue;
        mn = fmin(mn, b->val[i]);
        mx = fmax(mx, b->val[i]);
        if (isfinite(b->hi[i]))
            mx = fmax(mx, b->hi[i]);
    }
    /* a percentage (NAS CPU busy) reads against its whole 0-100 (more when a value is above) */
    if (!b->s->log && !strcmp(b->s->unit, "%"))
        mx = isfinite(mx) ? fmax(mx, 100) : 100;
    b->scale = lg__svg_scale(isfinite(mn) ? mn : 0, isfinite(mx) ? mx : 1, b->s->log);
}

/* Reads the table into b; -1 when out of memory (b is then freed by the caller all the same). */
static int s_load(s_bars_t *b, const lg_chart_spec_t *s, const lg_table_t *t)
{
    int xc = lg_table_col(t, s->x), yc = lg_table_col(t, s->y);
    int sc = s->series[0] ? lg_table_col(t, s->series) : -1;
    int lc = s->ci_lo[0] ? lg_table_col(t, s->ci_lo) : -1;
    int hc = s->ci_hi[0] ? lg_table_col(t, s->ci_hi) : -1;
    b->s = s;
    b->has_series = sc >= 0;
    b->nc = lg__svg_distinct(t, xc, &b->cats);
    b->ns = lg__svg_distinct(t, sc, &b->ser);
    size_t cells = (size_t)(b->nc > 0 ? b->nc : 1) * (size_t)(b->ns > 0 ? b->ns : 1);
    b->val = malloc(cells * sizeof *b->val);
    b->lo = malloc(cells * sizeof *b->lo);
    b->hi = malloc(cells * sizeof *b->hi);
    b->ord = calloc((size_t)b->nc + 1, sizeof *b->ord);
    b->names = calloc((size_t)b->nc + 1, sizeof *b->names);
    b->had = calloc(cells, sizeof *b->had);
    if (!b->cats || !b->ser || !b->val || !b->lo || !b->hi || !b->ord || !b->names || !b->had)
        return -1;
    for (size_t i = 0; i < cells; i++)
        b->val[i] = b->lo[i] = b->hi[i] = NAN;
    for (int r = 0; r < t->nrows; r++) {
        int ci = lg__svg_index(b->cats, b->nc, lg_table_get(t, r, xc));
        int si = sc < 0 ? 0 : lg__svg_index(b->ser, b->ns, lg_table_get(t, r, sc));
        int k = ci * b->ns + si;
        b->val[k] = lg__svg_value(t, r, yc);
        b->had[k] = true;
        double lo = lc >= 0 ? lg__svg_value(t, r, lc) : NAN;
        double hi = hc >= 0 ? lg__svg_value(t, r, hc) : NAN;
        if (isfinite(lo) && isfinite(hi) && lo <= hi) { /* both ends, or no error bar */
            b->lo[k] = lo;
            b->hi[k] = hi;
        }
    }
    for (int i = 0; i < b->nc; i++) {
        b->ord[i].idx = i;
        b->ord[i].key = -INFINITY;
        for (int j = 0; j < b->ns; j++)
            if (isfinite(b->val[i * b->ns + j]))
                b->ord[i].key = fmax(b->ord[i].key, b->val[i * b->ns + j]);
    }
    if (s->sort == LG_SORT_ASC)
        qsort(b->ord, (size_t)b->nc, sizeof *b->ord, s_cmp_asc);
    else if (s->sort == LG_SORT_DESC)
        qsort(b->ord, (size_t)b->nc, sizeof *b->ord, s_cmp_desc);
    s_make_scale(b);
    return 0;
}

/* A bar's tooltip: "config, series: 1,234 IOPS, 95% CI 1,100 to 1,370 IOPS". */
static void s_bar_title(FILE *o, const s_bars_t *b, int i, int j)
{
    char buf[128];
    fputs("<title>", o);
    lg_xml_esc(o, b->cats[i]);
    if (b->has_series) {
        fputs(", ", o);
        lg_xml_esc(o, b->ser[j]);
    }
    lg__svg_label(buf, sizeof buf, b->val[i * b->ns + j], b->s->unit);
    fputs(": ", o);
    lg_xml_esc(o, buf);
    if (isfinite(b->lo[i * b->ns + j])) {
        char lo[64];
        lg_fmt_num(b->lo[i * b->ns + j], lo, sizeof lo);
        lg__svg_label(buf, sizeof buf, b->hi[i * b->ns + j], b->s->unit);
        fputs(", 95% CI ", o);
        lg_xml_esc(o, lo);
        fputs(" to ", o);
        lg_xml_esc(o, buf);
    }
    fputs("</title>", o);
}

/* Bar k's interval as positions on the value axis (0..1, cut to it); false without one.
 * *cap_lo / *cap_hi: that end lies on the axis (a cut end gets no cap). */
static bool s_interval(const s_bars_t *b, int k, double *plo, double *phi, bool *cap_lo,
                       bool *cap_hi)
{
    if (!isfinite(b->lo[k]))
        return false;
    double a = lg__svg_pos(&b->scale, b->lo[k]), z = lg__svg_pos(&b->scale, b->hi[k]);
    *cap_lo = a >= 0 && !(b->scale.log && b->lo[k] <= 0);
    *cap_hi = z <= 1;
    *plo = fmin(fmax(a, 0), 1);
    *phi = fmin(fmax(z, 0), 1);
    return true;
}

/* An error bar from a to z along the value axis at c across it (horizontal: x from a to z at
 * y = c), capped at the ends that are its own. */
static void s_whisker(FILE *o, bool vertical, double a, double z, double c, bool cap_a, bool cap_z)
{
    fputs("<path class=\"ci\" fill=\"none\" stroke=\"#222\" stroke-width=\"1.2\" d=\"", o);
    if (vertical)
        fprintf(o, "M%.1f %.1fV%.1f", c, a, z);
    else
        fprintf(o, "M%.1f %.1fH%.1f", a, c, z);
    const double ends[2] = {a, z};
    const bool caps[2] = {cap_a, cap_z};
    for (int e = 0; e < 2; e++) {
        if (!caps[e])
            continue;
        if (vertical)
            fprintf(o, "M%.1f %.1fH%.1f", c - 4, ends[e], c + 4);
        else
            fprintf(o, "M%.1f %.1fV%.1f", ends[e], c - 4, c + 4);
    }
    fputs("\"/>\n", o);
}

/* Text of the value axis: "IOPS", "Average latency (ms)". */
static void s_value_title(const lg_chart_spec_t *s, char *buf, size_t len)
{
    lg__svg_axis_title(buf, len, s->ytitle, s->y, s->unit);
}

/* One horizontal bar of category i (group top gy), series j, with its error bar and value. */
static void s_hbar(FILE *o, const s_bars_t *b, lg_palette_t *p, int i, int j, double x0, double pw,
                   double by)
{
    const double bh = 16;
    int k = i * b->ns + j;
    double v = b->val[k], plo, phi;
    bool cap_lo, cap_hi;
    if (!isfinite(v) && b->had[k]) { /* a row without a figure: a failed or missing point */
        fprintf(o,
                "<text class=\"missing\" x=\"%.1f\" y=\"%.1f\" font-size=\"11\" "
                "fill=\"#a33\">no figure (failed or missing)</text>\n",
                x0 + 4, by + bh - 4);
        return;
    }
    if (!isfinite(v))
        return;
    double w = fmax(lg__svg_pos(&b->scale, v) * pw, 1), end = w;
    const char *fill = lg_palette_color(p, b->ser[j]);
    fprintf(o, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\">", x0, by, w,
            bh, fill);
    s_bar_title(o, b, i, j);
    fputs("</rect>\n", o);
    bool ci = s_interval(b, k, &plo, &phi, &cap_lo, &cap_hi);
    if (ci) {
        s_whisker(o, false, x0 + plo * pw, x0 + phi * pw, by + bh / 2, cap_lo, cap_hi);
        end = fmax(w, phi * pw);
    }
    char buf[128];
    lg__svg_label(buf, sizeof buf, v, b->s->unit);
    double lw = lg__svg_text_w(buf, 11), inner = ci ? fmin(w, plo * pw) : w;
    if (x0 + end + 4 + lw <= W - 4 || lw + 8 > inner) {
        lg__svg_text(o, x0 + end + 4, by + bh - 4, "start", "font-size=\"11\" fill=\"#222\"", buf);
    } else { /* inside its bar, left of the error bar */
        char attrs[64];
        snprintf(attrs, sizeof attrs, "font-size=\"11\" fill=\"%s\"", lg__svg_on(fill));
        lg__svg_text(o, x0 + inner - 4, by + bh - 4, "end", attrs, buf);
    }
}

/* Horizontal bars: a group per category, its name at the left (wrapped onto lines when long;
 * the group is as tall as its name), a bar per series. */
static void s_hbars(FILE *o, const lg__svg_opts_t *op, s_bars_t *b, lg_palette_t *p)
{
    const lg_chart_spec_t *s = b->s;
    const double bh = 16, bgap = 2, ggap = 14;
    char buf[512];
    double labw = 40;
    for (int i = 0; i < b->nc; i++)
        labw = fmax(labw, lg__svg_text_w(b->cats[i], 11) + 12);
    labw = fmin(labw, 260);
    /* Room right of the longest bar (or error bar) for the longest value label; a label that
     * still does not fit after its bar goes inside it. */
    double valw = 0;
    for (int i = 0; i < b->nc * b->ns; i++)
        if (isfinite(b->val[i])) {
            lg__svg_label(buf, sizeof buf, b->val[i], s->unit);
            valw = fmax(valw, lg__svg_text_w(buf, 11) + 8);
        }
    valw = fmin(valw, 160);
    double x0 = 16 + labw, pw = W - x0 - valw - 12;
    double bars_h = b->ns * (bh + bgap) - bgap, ph = 0;
    for (int i = 0; i < b->nc; i++) {
        lg__svg_wrap(&b->names[i], b->cats[i], 11, labw - 12);
        ph += fmax(bars_h, S_LH * b->names[i].n) + ggap;
    }
    double cav = lg__svg_caveats(NULL, s, 0);
    double H = lg__svg_header_h(op, s, b->ser, NULL, b->ns, b->has_series) + ph + 50 + cav;
    snprintf(buf, sizeof buf, "Horizontal bar chart of %s%s%s by %s%s%s%s.",
             s->ytitle[0] ? s->ytitle : s->y, s->unit[0] ? " in " : "", s->unit,
             s->xtitle[0] ? s->xtitle : s->x, b->has_series ? " and " : "",
             b->has_series ? s->series : "",
             s->ci_lo[0] ? ", with 95% confidence intervals where there are repeats" : "");
    lg__svg_root(o, op, s, H, buf);
    double y0 = lg__svg_header(o, op, s, b->ser, NULL, b->ns, p, b->has_series) + 8;
    double ticks[12];
    int nt = lg__svg_ticks(&b->scale, ticks);
    for (int i = 0; i < nt; i++) {
        double x = x0 + lg__svg_pos(&b->scale, ticks[i]) * pw;
        fprintf(o, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#e3e3e3\"/>\n",
                x, y0 - 4, x, y0 + ph);
        lg__svg_tick_text(ticks, nt, i, buf, sizeof buf);
        lg__svg_text(o, x, y0 + ph + 14, "middle", "font-size=\"10\" fill=\"#666\"", buf);
    }
    s_value_title(s, buf, sizeof buf);
    lg__svg_text(o, x0 + pw / 2, y0 + ph + 32, "middle", "font-size=\"11\" fill=\"#444\"", buf);
    double gy = y0;
    for (int k = 0; k < b->nc; k++) {
        int i = b->ord[k].idx;
        const lg__svg_wrap_t *nm = &b->names[i];
        double gh = fmax(bars_h, S_LH * nm->n);
        lg__svg_text_lines(o, x0 - 8, gy + gh / 2 + 4 - S_LH * (nm->n - 1) / 2, S_LH, "end",
                           "font-size=\"11\" fill=\"#222\"", nm);
        for (int j = 0; j < b->ns; j++)
            s_hbar(o, b, p, i, j, x0, pw, gy + (gh - bars_h) / 2 + j * (bh + bgap));
        gy += gh + ggap;
    }
    fprintf(o, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#888\"/>\n", x0,
            y0 - 4, x0, y0 + ph);
    lg__svg_caveats(o, s, H - cav);
}

/* One vertical bar (left edge bx, width bw) of category i, series j, with its error bar; its
 * value over it when that fits the bar's width; else turned upright, inside a tall bar (without
 * an error bar there) or above a short one; on bars too thin for upright 10 px text it is left
 * to the bar's tooltip and the data table. */
static void s_vbar(FILE *o, const s_bars_t *b, lg_palette_t *p, int i, int j, double bx, double bw,
                   double y0, double ph)
{
    int k = i * b->ns + j;
    double v = b->val[k], plo, phi;
    bool cap_lo, cap_hi;
    if (!isfinite(v) && b->had[k]) /* a row without a figure: a failed or missing point */
        fprintf(o,
                "<text class=\"missing\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" "
                "font-size=\"12\" fill=\"#a33\">\xc3\x97<title>no figure (failed or "
                "missing)</title></text>\n",
                bx + (bw - 1) / 2, y0 + ph - 4);
    if (!isfinite(v))
        return;
    double h = fmax(lg__svg_pos(&b->scale, v) * ph, 1), cx = bx + (bw - 1) / 2;
    const char *fill = lg_palette_color(p, b->ser[j]);
    fprintf(o, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\">", bx,
            y0 + ph - h, bw - 1, h, fill);
    s_bar_title(o, b, i, j);
    fputs("</rect>\n", o);
    double top = y0 + ph - h;
    bool ci = s_interval(b, k, &plo, &phi, &cap_lo, &cap_hi);
    if (ci) {
        s_whisker(o, true, y0 + ph - plo * ph, y0 + ph - phi * ph, cx, cap_lo, cap_hi);
        top = fmin(top, y0 + ph - phi * ph);
    }
    char buf[64];
    lg_fmt_num(v, buf, sizeof buf);
    double lw = lg__svg_text_w(buf, 10), room = top - y0;
    if (lw <= bw - 3) {
        lg__svg_text(o, cx, top - 4, "middle", "font-size=\"10\" fill=\"#222\"", buf);
    } else if (bw - 1 >= 12 && ((!ci && h >= lw + 8) || room >= lw + 6)) {
        bool in = !ci && h >= lw + 8;
        fprintf(o,
                "<text transform=\"translate(%.1f,%.1f) rotate(-90)\" text-anchor=\"%s\" "
                "font-size=\"10\" fill=\"%s\">",
                cx + 3.5, in ? top + 4 : top - 4, in ? "end" : "start",
                in ? lg__svg_on(fill) : "#222");
        lg_xml_esc(o, buf);
        fputs("</text>\n", o);
    }
}

/* Vertical bars: a slot per category along x, its name under it (wrapped to the slot's width;
 * the space under the plot grows with the longest), a bar per series. */
static void s_vbars(FILE *o, const lg__svg_opts_t *op, s_bars_t *b, lg_palette_t *p)
{
    const lg_chart_spec_t *s = b->s;
    double x0 = 80, pw = W - x0 - 20, ph = 300;
    double slot = pw / (b->nc > 0 ? b->nc : 1);
    double bw = fmin(40, (slot - 12) / (b->ns > 0 ? b->ns : 1));
    int lines = 1;
    for (int i = 0; i < b->nc; i++) {
        lg__svg_wrap(&b->names[i], b->cats[i], 11, fmax(slot - 4, 24));
        lines = b->names[i].n > lines ? b->names[i].n : lines;
    }
    double cav = lg__svg_caveats(NULL, s, 0);
    double H = lg__svg_header_h(op, s, b->ser, NULL, b->ns, b->has_series) + ph + 70 +
               S_LH * (lines - 1) + cav;
    char buf[512];
    snprintf(buf, sizeof buf, "Bar chart of %s%s%s by %s%s.", s->ytitle[0] ? s->ytitle : s->y,
             s->unit[0] ? " in " : "", s->unit, s->xtitle[0] ? s->xtitle : s->x,
             s->ci_lo[0] ? ", with 95% confidence intervals where there are repeats" : "");
    lg__svg_root(o, op, s, H, buf);
    double y0 = lg__svg_header(o, op, s, b->ser, NULL, b->ns, p, b->has_series) + 8;
    double ticks[12];
    int nt = lg__svg_ticks(&b->scale, ticks);
    for (int i = 0; i < nt; i++) {
        double y = y0 + ph - lg__svg_pos(&b->scale, ticks[i]) * ph;
        fprintf(o, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#e3e3e3\"/>\n",
                x0, y, x0 + pw, y);
        lg__svg_tick_text(ticks, nt, i, buf, sizeof buf);
        lg__svg_text(o, x0 - 6, y + 4, "end", "font-size=\"10\" fill=\"#666\"", buf);
    }
    for (int k = 0; k < b->nc; k++) {
        int i = b->ord[k].idx;
        double gx = x0 + k * slot + (slot - bw * b->ns) / 2;
        lg__svg_text_lines(o, x0 + k * slot + slot / 2, y0 + ph + 16, S_LH, "middle",
                           "font-size=\"11\" fill=\"#222\"", &b->names[i]);
        for (int j = 0; j < b->ns; j++)
            s_vbar(o, b, p, i, j, gx + j * bw, bw, y0, ph);
    }
    s_value_title(s, buf, sizeof buf);
    fprintf(o,
            "<text transform=\"translate(16,%.1f) rotate(-90)\" text-anchor=\"middle\" "
            "font-size=\"11\" fill=\"#444\">",
            y0 + ph / 2);
    lg_xml_esc(o, buf);
    fputs("</text>\n", o);
    lg__svg_caveats(o, s, H - cav);
}

void lg__svg_bars(FILE *o, const lg__svg_opts_t *op, const lg_chart_spec_t *s, const lg_table_t *t,
                  lg_palette_t *p, bool vertical)
{
    s_bars_t b;
    memset(&b, 0, sizeof b);
    if (s_load(&b, s, t) == 0) {
        if (vertical)
            s_vbars(o, op, &b, p);
        else
            s_hbars(o, op, &b, p);
        fputs("</svg>\n", o);
    }
    s_clear(&b);
}
