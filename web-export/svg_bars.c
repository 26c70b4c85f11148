/* svg_bars.c: grouped bars, horizontal (the style of published reviews: a category per SUT
 * config, a bar per series) or vertical. */
#include "lg_esc.h"
#include "svg_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define W LG_SVG_W

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
void lg__svg_bars(FILE *o, const lg__svg_opts_t *op, const lg_chart_spec_t *s, const lg_table_t *t,
                   lg_palette_t *p, bool vertical)
{
    int xc = lg_table_col(t, s->x), yc = lg_table_col(t, s->y);
    int sc = s->series[0] ? lg_table_col(t, s->series) : -1;
    const char **cats, **ser;
    int nc = lg__svg_distinct(t, xc, &cats), ns = lg__svg_distinct(t, sc, &ser);
    double *val = malloc(sizeof(double) * (size_t)(nc > 0 ? nc : 1) * (size_t)(ns > 0 ? ns : 1));
    s_ord_t *ord = calloc((size_t)nc + 1, sizeof *ord);
    if (!cats || !ser || !val || !ord)
        goto out;
    for (int i = 0; i < nc * ns; i++)
        val[i] = NAN;
    double mn = INFINITY, mx = -INFINITY;
    for (int r = 0; r < t->nrows; r++) {
        int ci = lg__svg_index(cats, nc, lg_table_get(t, r, xc));
        int si = sc < 0 ? 0 : lg__svg_index(ser, ns, lg_table_get(t, r, sc));
        double v = lg__svg_value(t, r, yc);
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
    lg__svg_scale_t sc_ = lg__svg_scale(isfinite(mn) ? mn : 0, isfinite(mx) ? mx : 1, s->log);
    double ticks[12];
    int nt = lg__svg_ticks(&sc_, ticks);
    char buf[256], fit[256];

    if (!vertical) {
        double labw = 40;
        for (int i = 0; i < nc; i++)
            labw = fmax(labw, lg__svg_text_w(cats[i], 11) + 12);
        labw = fmin(labw, 260);
        /* Room right of the longest bar for the longest value label; a label that still does not
         * fit after its bar goes inside it. */
        double valw = 0;
        for (int i = 0; i < nc * ns; i++)
            if (isfinite(val[i])) {
                lg__svg_label(buf, sizeof buf, val[i], s->unit);
                valw = fmax(valw, lg__svg_text_w(buf, 11) + 8);
            }
        valw = fmin(valw, 160);
        double x0 = 16 + labw, pw = W - x0 - valw - 12;
        double bh = 16, bgap = 2, ggap = 14;
        double gh = ns * (bh + bgap) - bgap;
        double ph = nc * (gh + ggap);
        double hdr = lg__svg_header_h(op, ser, ns, sc >= 0);
        double H = hdr + ph + 50;
        snprintf(buf, sizeof buf, "Horizontal bar chart of %s%s%s by %s%s%s.",
                 s->ytitle[0] ? s->ytitle : s->y, s->unit[0] ? " in " : "", s->unit,
                 s->xtitle[0] ? s->xtitle : s->x, sc >= 0 ? " and " : "",
                 sc >= 0 ? s->series : "");
        lg__svg_root(o, op, s, H, buf);
        double y0 = lg__svg_header(o, op, s, ser, ns, p, sc >= 0) + 8;
        for (int i = 0; i < nt; i++) {
            double x = x0 + lg__svg_pos(&sc_, ticks[i]) * pw;
            fprintf(o, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#e3e3e3\"/>\n",
                    x, y0 - 4, x, y0 + ph);
            lg__svg_tick_text(ticks, nt, i, buf, sizeof buf);
            lg__svg_text(o, x, y0 + ph + 14, "middle", "font-size=\"10\" fill=\"#666\"", buf);
        }
        snprintf(buf, sizeof buf, "%s%s%s%s", s->ytitle[0] ? s->ytitle : s->y,
                 s->unit[0] && strcmp(s->ytitle, s->unit) ? " (" : "",
                 strcmp(s->ytitle, s->unit) ? s->unit : "",
                 s->unit[0] && strcmp(s->ytitle, s->unit) ? ")" : "");
        lg__svg_text(o, x0 + pw / 2, y0 + ph + 32, "middle", "font-size=\"11\" fill=\"#444\"", buf);
        for (int k = 0; k < nc; k++) {
            int i = ord[k].idx;
            double gy = y0 + k * (gh + ggap);
            lg__svg_text(o, x0 - 8, gy + gh / 2 + 4, "end", "font-size=\"11\" fill=\"#222\"",
                   lg__svg_fit(cats[i], labw - 12, fit, sizeof fit));
            for (int j = 0; j < ns; j++) {
                double v = val[i * ns + j];
                double by = gy + j * (bh + bgap);
                if (!isfinite(v))
                    continue;
                double w = fmax(lg__svg_pos(&sc_, v) * pw, 1);
                const char *fill = lg_palette_color(p, ser[j]);
                fprintf(o, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\">"
                           "<title>", x0, by, w, bh, fill);
                lg__svg_label(buf, sizeof buf, v, s->unit);
                snprintf(fit, sizeof fit, "%s%s%s: %s", cats[i], sc >= 0 ? ", " : "",
                         sc >= 0 ? ser[j] : "", buf);
                lg_xml_esc(o, fit);
                fputs("</title></rect>\n", o);
                double lw = lg__svg_text_w(buf, 11);
                if (x0 + w + 4 + lw <= W - 4 || lw + 8 > w) {
                    lg__svg_text(o, x0 + w + 4, by + bh - 4, "start", "font-size=\"11\" fill=\"#222\"", buf);
                } else {
                    char attrs[64];
                    snprintf(attrs, sizeof attrs, "font-size=\"11\" fill=\"%s\"", lg__svg_on(fill));
                    lg__svg_text(o, x0 + w - 4, by + bh - 4, "end", attrs, buf);
                }
            }
        }
        fprintf(o, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#888\"/>\n", x0,
                y0 - 4, x0, y0 + ph);
    } else {
        double x0 = 80, pw = W - x0 - 20, ph = 300;
        double hdr = lg__svg_header_h(op, ser, ns, sc >= 0);
        double slot = pw / (nc > 0 ? nc : 1);
        double bw = fmin(40, (slot - 12) / (ns > 0 ? ns : 1));
        double H = hdr + ph + 70;
        snprintf(buf, sizeof buf, "Bar chart of %s%s%s by %s.", s->ytitle[0] ? s->ytitle : s->y,
                 s->unit[0] ? " in " : "", s->unit, s->xtitle[0] ? s->xtitle : s->x);
        lg__svg_root(o, op, s, H, buf);
        double y0 = lg__svg_header(o, op, s, ser, ns, p, sc >= 0) + 8;
        for (int i = 0; i < nt; i++) {
            double y = y0 + ph - lg__svg_pos(&sc_, ticks[i]) * ph;
            fprintf(o, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#e3e3e3\"/>\n",
                    x0, y, x0 + pw, y);
            lg__svg_tick_text(ticks, nt, i, buf, sizeof buf);
            lg__svg_text(o, x0 - 6, y + 4, "end", "font-size=\"10\" fill=\"#666\"", buf);
        }
        for (int k = 0; k < nc; k++) {
            int i = ord[k].idx;
            double gx = x0 + k * slot + (slot - bw * ns) / 2;
            lg__svg_text(o, x0 + k * slot + slot / 2, y0 + ph + 16, "middle",
                   "font-size=\"11\" fill=\"#222\"", lg__svg_fit(cats[i], slot - 4, fit, sizeof fit));
            for (int j = 0; j < ns; j++) {
                double v = val[i * ns + j];
                if (!isfinite(v))
                    continue;
                double h = fmax(lg__svg_pos(&sc_, v) * ph, 1);
                const char *fill = lg_palette_color(p, ser[j]);
                fprintf(o, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\">"
                           "<title>", gx + j * bw, y0 + ph - h, bw - 1, h, fill);
                lg__svg_label(buf, sizeof buf, v, s->unit);
                lg_xml_esc(o, buf);
                fputs("</title></rect>\n", o);
                /* The value over its bar when it fits the bar's width; else turned upright, inside
                 * a tall bar or above a short one; on bars too thin for upright 10 px text it is
                 * left to the bar's tooltip and the data table. */
                lg_fmt_num(v, buf, sizeof buf);
                double lw = lg__svg_text_w(buf, 10), cx = gx + j * bw + (bw - 1) / 2, top = y0 + ph - h;
                if (lw <= bw - 3) {
                    lg__svg_text(o, cx, top - 4, "middle", "font-size=\"10\" fill=\"#222\"", buf);
                } else if (bw - 1 >= 12 && (h >= lw + 8 || ph - h >= lw + 6)) {
                    bool in = h >= lw + 8;
                    fprintf(o, "<text transform=\"translate(%.1f,%.1f) rotate(-90)\" "
                               "text-anchor=\"%s\" font-size=\"10\" fill=\"%s\">",
                            cx + 3.5, in ? top + 4 : top - 4, in ? "end" : "start",
                            in ? lg__svg_on(fill) : "#222");
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