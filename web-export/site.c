/* site.c: lg-export's output: the drawn copy of each chart, the charts of an "each" query (one
 * per value of its column), and the files: NAME.svg, NAME.csv, NAME.json and index.html, each
 * created anew (lg_create_new_file) in the folder lg_owndir accepted. */
#include "site.h"
#include "lg_esc.h"
#include "lg_log.h"
#include "lg_owndir.h"

#include <ctype.h>
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* "{col}" in a title or subtitle becomes the column's distinct values ("16T16Q", "60 s"), so
 * that a chart says the load point and runtime its figures come from. */
static void s_fill(const lg_table_t *t, char *sub, size_t len)
{
    char out[1024];
    size_t o = 0;
    for (const char *p = sub; *p && o + 1 < sizeof out;) {
        const char *close = *p == '{' ? strchr(p, '}') : NULL;
        int col = -1;
        if (close && close - p - 1 < 64) {
            char name[64];
            memcpy(name, p + 1, (size_t)(close - p - 1));
            name[close - p - 1] = 0;
            col = lg_table_col(t, name);
        }
        if (col < 0) {
            out[o++] = *p++;
            continue;
        }
        int nvals = 0;
        for (int r = 0; r < t->nrows; r++) {
            const char *v = lg_table_get(t, r, col);
            int seen = !v;
            for (int q = 0; q < r && !seen; q++) {
                const char *w = lg_table_get(t, q, col);
                seen = w && !strcmp(w, v);
            }
            if (seen)
                continue;
            if (nvals++ == 4) {
                o += (size_t)snprintf(out + o, sizeof out - o, ", ...");
                break;
            }
            o += (size_t)snprintf(out + o, sizeof out - o, "%s%s", nvals > 1 ? ", " : "", v);
            if (o >= sizeof out)
                o = sizeof out - 1;
        }
        p = close + 1;
    }
    out[o < sizeof out ? o : sizeof out - 1] = 0;
    snprintf(sub, len, "%s", out);
}

/* A chart with error bars says what they are, when it has any (a figure with repeats). */
static void s_note_intervals(const lg_table_t *t, lg_chart_spec_t *s)
{
    int lc = s->ci_lo[0] ? lg_table_col(t, s->ci_lo) : -1;
    int hc = s->ci_hi[0] ? lg_table_col(t, s->ci_hi) : -1;
    for (int r = 0; lc >= 0 && hc >= 0 && r < t->nrows; r++)
        if (lg_table_get(t, r, lc) && lg_table_get(t, r, hc)) {
            size_t n = strlen(s->subtitle);
            snprintf(s->subtitle + n, sizeof s->subtitle - n,
                     "%serror bars: 95%% confidence "
                     "interval of the mean of repeats",
                     n ? "; " : "");
            return;
        }
}

/* Adds the lines of text (l bytes) to buf (o used) unless there or out of room (then *left++). */
static void s_add_lines(const char *p, size_t pl, char *buf, size_t len, size_t *o, int *n,
                        int *left)
{
    for (const char *end = p + pl; p < end;) {
        size_t l = strcspn(p, "\n");
        l = p + l > end ? (size_t)(end - p) : l;
        bool seen = l == 0;
        for (const char *q = buf; !seen && q < buf + *o;) {
            size_t ql = strcspn(q, "\n");
            seen = ql == l && !memcmp(q, p, l);
            q += ql + 1;
        }
        if (!seen && *o + l + 66 < len) {
            memcpy(buf + *o, p, l);
            *o += l;
            buf[(*o)++] = '\n';
            buf[*o] = '\0';
            (*n)++;
        } else if (!seen) {
            (*left)++;
        }
        p += l + (p + l < end && p[l] == '\n');
    }
}

int lg_site_caveats(const lg_chart_spec_t *s, const lg_table_t *t, char *buf, size_t len)
{
    int c = s->caveat[0] ? lg_table_col(t, s->caveat) : -1, n = 0, left = 0;
    size_t o = 0;
    if (len < 80)
        return 0;
    buf[0] = '\0';
    for (int r = 0; c >= 0 && r < t->nrows; r++) {
        const char *v = lg_table_get(t, r, c);
        json_t *a = v && v[0] == '[' ? json_loads(v, 0, NULL) : NULL;
        if (json_is_array(a)) {
            size_t i;
            json_t *e;
            json_array_foreach(a, i, e)
            {
                if (json_is_string(e))
                    s_add_lines(json_string_value(e), json_string_length(e), buf, len, &o, &n,
                                &left);
            }
        } else if (v) {
            s_add_lines(v, strlen(v), buf, len, &o, &n, &left);
        }
        json_decref(a);
    }
    if (left) {
        snprintf(buf + o, len - o, "and %d more (see the data)\n", left);
        n++;
    }
    return n;
}

/* The drawn copy of chart c: subtitle filled in; milliseconds below 1 shown in microseconds. */
static int s_drawn_copy(lg_site_chart_t *c)
{
    c->dspec = c->spec;
    c->dspec.sql = NULL; /* the original owns it */
    s_fill(&c->table, c->dspec.subtitle, sizeof c->dspec.subtitle);
    s_note_intervals(&c->table, &c->dspec);
    lg_site_caveats(&c->spec, &c->table, c->dspec.caveats, sizeof c->dspec.caveats);
    lg_table_t *d = &c->dtable, *t = &c->table;
    d->ncols = t->ncols;
    d->nrows = t->nrows;
    d->cols = calloc((size_t)t->ncols + 1, sizeof *d->cols);
    d->kind = calloc((size_t)t->ncols + 1, sizeof *d->kind);
    d->cells = calloc((size_t)t->ncols * (size_t)t->nrows + 1, sizeof *d->cells);
    c->drawn_copy = true;
    if (!d->cols || !d->kind || !d->cells)
        return -1;
    int yc = lg_table_col(t, c->spec.y);
    double max = 0;
    for (int r = 0; yc >= 0 && r < t->nrows; r++) {
        const char *v = lg_table_get(t, r, yc);
        if (v && strtod(v, NULL) > max)
            max = strtod(v, NULL);
    }
    int us =
        yc >= 0 && lg_table_numeric(t, yc) && !strcmp(c->spec.unit, "ms") && max > 0 && max < 1.0;
    if (us)
        snprintf(c->dspec.unit, sizeof c->dspec.unit, "\xc2\xb5s");
    for (int i = 0; i < t->ncols; i++) {
        d->cols[i] = strdup(t->cols[i]);
        d->kind[i] = t->kind[i];
    }
    /* The value column and the bounds of its intervals are drawn in the same unit. */
    int lc = c->spec.ci_lo[0] ? lg_table_col(t, c->spec.ci_lo) : -1;
    int hc = c->spec.ci_hi[0] ? lg_table_col(t, c->spec.ci_hi) : -1;
    for (int r = 0; r < t->nrows; r++)
        for (int i = 0; i < t->ncols; i++) {
            const char *v = lg_table_get(t, r, i);
            char buf[64];
            if (v && us && (i == yc || i == lc || i == hc)) {
                snprintf(buf, sizeof buf, "%.6g", strtod(v, NULL) * 1000.0);
                v = buf;
            }
            d->cells[(size_t)r * (size_t)t->ncols + (size_t)i] = v ? strdup(v) : NULL;
        }
    return 0;
}

static FILE *s_open(const char *dir, const char *name, const char *ext, char *err, size_t errlen)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s.%s", dir, name, ext);
    FILE *f = lg_create_new_file(path, 0644); /* anew: a link planted there is not followed */
    if (!f)
        snprintf(err, errlen, "could not write \"%s\": %s", path, strerror(errno));
    return f;
}

static int s_write_csv(const char *dir, lg_site_chart_t *c)
{
    FILE *f = s_open(dir, c->spec.name, "csv", c->err, sizeof c->err);
    if (!f)
        return -1;
    lg_table_csv(&c->table, f); /* a spreadsheet opens it: db/'s renderer guards it */
    if (fclose(f) != 0) {
        snprintf(c->err, sizeof c->err, "could not write \"%s/%s.csv\": %s", dir, c->spec.name,
                 strerror(errno));
        return -1;
    }
    return 0;
}

static int s_write_json(const char *dir, lg_site_chart_t *c)
{
    const lg_table_t *t = &c->table;
    json_t *doc = json_object(), *cols = json_array(), *rows = lg_table_json_rows(t);
    json_object_set_new(doc, "name", json_string(c->spec.name));
    json_object_set_new(doc, "title", json_string(c->spec.title));
    json_object_set_new(doc, "subtitle", json_string(c->spec.subtitle));
    json_object_set_new(doc, "chart", json_string(lg_chart_kind_name(c->spec.kind)));
    json_object_set_new(doc, "x", json_string(c->spec.x));
    json_object_set_new(doc, "y", json_string(c->spec.y));
    json_object_set_new(doc, "series",
                        c->spec.series[0] ? json_string(c->spec.series) : json_null());
    json_object_set_new(doc, "unit", json_string(c->spec.unit));
    json_object_set_new(doc, "lower_is_better", json_boolean(c->spec.lower_is_better));
    if (c->spec.ci_lo[0]) {
        json_object_set_new(doc, "ci_low", json_string(c->spec.ci_lo));
        json_object_set_new(doc, "ci_high", json_string(c->spec.ci_hi));
    }
    if (c->spec.y2[0]) {
        json_object_set_new(doc, "y2", json_string(c->spec.y2));
        json_object_set_new(doc, "y2_unit", json_string(c->spec.y2unit));
    }
    if (c->spec.each[0]) {
        json_object_set_new(doc, "each", json_string(c->spec.each));
        json_object_set_new(doc, "each_value",
                            c->each_value ? json_string(c->each_value) : json_null());
    }
    for (int i = 0; i < t->ncols; i++)
        json_array_append_new(cols, json_string(t->cols[i]));
    json_object_set_new(doc, "columns", cols);
    json_object_set_new(doc, "rows", rows);
    /* Created anew as the other files (json_dump_file would follow a link planted there). */
    FILE *f = s_open(dir, c->spec.name, "json", c->err, sizeof c->err);
    /* jansson writes C0 controls as \u00XX; ENSURE_ASCII does the same for C1 controls */
    int rc = f ? json_dumpf(doc, f,
                            JSON_INDENT(1) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17) |
                                JSON_ENSURE_ASCII)
               : -1;
    json_decref(doc);
    if (f && (fclose(f) != 0 || rc != 0)) {
        snprintf(c->err, sizeof c->err, "could not write \"%s/%s.json\"", dir, c->spec.name);
        rc = -1;
    }
    return rc;
}

/* The charts that have a section, in order: each query's own, or its parts. */
static int s_flatten(lg_site_chart_t *cs, int n, lg_site_chart_t ***out)
{
    int total = 0;
    for (int i = 0; i < n; i++)
        total += cs[i].parts ? cs[i].nparts : 1;
    lg_site_chart_t **v = calloc((size_t)total + 1, sizeof *v);
    if (!v)
        return -1;
    int k = 0;
    for (int i = 0; i < n; i++)
        if (cs[i].parts)
            for (int j = 0; j < cs[i].nparts; j++)
                v[k++] = &cs[i].parts[j];
        else if (!cs[i].empty)
            v[k++] = &cs[i];
    *out = v;
    return k;
}

static void s_index_head(FILE *o, const char *campaign)
{
    fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>lg "
          "results",
          o);
    if (campaign) {
        fputs(": ", o);
        lg_xml_esc(o, campaign);
    }
    fputs(
        "</title>\n<style>\n"
        "body{font-family:'DejaVu Sans',Helvetica,Arial,sans-serif;margin:24px "
        "auto;max-width:860px;color:#222}\n"
        "h1{font-size:24px} h2{font-size:18px;margin:36px 0 4px} .sub{color:#555;margin:0 0 8px}\n"
        "figure{margin:0} figure svg{display:block;max-width:100%;height:auto;border:1px solid "
        "#ddd}\n"
        "table{border-collapse:collapse;font-size:12px;margin:8px 0}\n"
        "th,td{border:1px solid #ddd;padding:2px 6px} td.n{text-align:right}\n"
        ".files a{margin-right:12px} .err{color:#a00;white-space:pre-wrap}\n"
        "summary{cursor:pointer;font-size:12px;color:#555}\n"
        "nav li{margin:2px 0} .caveats li{color:#8a4b00} .caveats .on{color:#555}\n"
        "h3{font-size:15px;margin:20px 0 4px} h4{font-size:13px;margin:12px 0 4px}\n"
        "pre.spec{font-size:12px;background:#f6f6f6;padding:8px;overflow-x:auto}\n</style></"
        "head><body>\n<h1>lg results",
        o);
    if (campaign) {
        fputs(": ", o);
        lg_xml_esc(o, campaign);
    }
    fputs("</h1>\n", o);
}

/* A chart's rows as a table; a long one (a run's time series) folded under a summary line. */
static void s_index_table(FILE *o, const lg_table_t *t)
{
    bool fold = t->nrows > 40;
    if (fold)
        fprintf(o, "<details><summary>the data: %d rows</summary>\n", t->nrows);
    fputs("<table>\n<tr>", o);
    for (int k = 0; k < t->ncols; k++) {
        fputs("<th>", o);
        lg_xml_esc(o, t->cols[k]);
        fputs("</th>", o);
    }
    fputs("</tr>\n", o);
    for (int r = 0; r < t->nrows; r++) {
        fputs("<tr>", o);
        for (int k = 0; k < t->ncols; k++) {
            const char *v = lg_table_get(t, r, k);
            char buf[64];
            if (v && lg_table_numeric(t, k)) {
                lg_fmt_cell(v, buf, sizeof buf);
                fputs("<td class=\"n\">", o);
                lg_xml_esc(o, buf);
            } else {
                fputs("<td>", o);
                lg_xml_esc(o, v ? v : "");
            }
            fputs("</td>", o);
        }
        fputs("</tr>\n", o);
    }
    fputs(fold ? "</table>\n</details>\n" : "</table>\n", o);
}

/* A chart's section: its title and subtitle as text, the chart inline (no drawn title), links
 * to its files, its data; a failed chart's error instead. */
static void s_index_section(FILE *o, lg_site_chart_t *c, lg_palette_t *pal)
{
    fputs("<section id=\"", o);
    lg_xml_esc(o, c->spec.name);
    fputs("\">\n<h2>", o);
    lg_xml_esc(o, c->spec.title);
    fputs("</h2>\n", o);
    char sub[1200];
    lg_chart_subline(&c->dspec, sub, sizeof sub);
    fputs("<p class=\"sub\">", o);
    lg_xml_esc(o, c->ok ? sub : c->spec.subtitle);
    fputs("</p>\n", o);
    if (!c->ok) {
        fputs("<p class=\"err\">", o);
        lg_xml_esc(o, c->err);
        fputs("</p>\n</section>\n", o);
        return;
    }
    char id[300];
    snprintf(id, sizeof id, "svg-%s", c->spec.name);
    for (char *q = id; *q; q++)
        if (!(isalnum((unsigned char)*q) || *q == '-' || *q == '_'))
            *q = '-';
    fputs("<figure>\n", o);
    lg_svg_write_inline(o, &c->dspec, &c->dtable, pal, id);
    fputs("</figure>\n", o);
    if (c->dspec.caveats[0]) {
        fputs("<ul class=\"caveats\">\n", o);
        for (const char *p = c->dspec.caveats; *p;) {
            size_t l = strcspn(p, "\n");
            fputs("<li>Caveat: ", o);
            char *one = strndup(p, l);
            lg_xml_esc(o, one ? one : "");
            free(one);
            fputs("</li>\n", o);
            p += l + (p[l] == '\n');
        }
        fputs("</ul>\n", o);
    }
    fputs("<p class=\"files\">", o);
    const char *ext[] = {"svg", "csv", "json"};
    for (int e = 0; e < 3; e++) {
        fputs("<a href=\"", o);
        lg_xml_esc(o, c->spec.name);
        fprintf(o, ".%s\">", ext[e]);
        lg_xml_esc(o, c->spec.name);
        fprintf(o, ".%s</a>", ext[e]);
    }
    fputs("</p>\n", o);
    s_index_table(o, &c->table);
    fputs("</section>\n", o);
}

/* A link to chart c in the page's list. */
static void s_nav_link(FILE *o, const lg_site_chart_t *c, const char *text)
{
    fputs("<li><a href=\"#", o);
    lg_xml_esc(o, c->spec.name);
    fputs("\">", o);
    lg_xml_esc(o, text);
    fputs(c->ok ? "</a></li>\n" : "</a> (failed)</li>\n", o);
}

/* The title of a grouped query's heading: its title up to its first {column} (e.g. "IOPS beside
 * the NAS's CPU and busiest disk" of "... disk: run {run_id}"). */
static void s_group_title(const lg_site_chart_t *c, char *buf, size_t len)
{
    snprintf(buf, len, "%s", c->spec.title);
    char *b = strchr(buf, '{');
    if (b) { /* "...: run {run_id}": up to the colon; "Run {run_id}: ...": what follows */
        *b = '\0';
        char *colon = strrchr(buf, ':');
        if (colon)
            *colon = '\0';
        else
            snprintf(buf, len, "%s",
                     strchr(c->spec.title, '}') ? strchr(c->spec.title, '}') + 1 : "");
        size_t n = strlen(buf);
        while (n > 0 && strchr(" :,-", buf[n - 1]))
            buf[--n] = '\0';
        memmove(buf, buf + strspn(buf, " :,-"), strlen(buf + strspn(buf, " :,-")) + 1);
    }
    if (!buf[0])
        snprintf(buf, len, "%s", c->spec.name);
}

/* The nav entries of a query grouped by its group columns: nested lists, group 1, group 2, the
 * charts (each named by its own value, e.g. "run 12"). */
static void s_nav_grouped(FILE *o, const lg_site_chart_t *c, const int *ord)
{
    char title[512];
    s_group_title(c, title, sizeof title);
    fputs("<li>", o);
    lg_xml_esc(o, title);
    fputs("\n<ul>\n", o);
    const char *g0 = NULL, *g1 = NULL;
    for (int k = 0; k < c->nparts; k++) {
        const lg_site_chart_t *p = &c->parts[ord[k]];
        const char *v0 = lg__index_group_value(p, 0), *v1 = lg__index_group_value(p, 1);
        bool new0 = !g0 || strcmp(g0, v0), new1 = new0 || !g1 || strcmp(g1, v1);
        if (g0 && new1 && c->spec.group[1][0])
            fputs("</ul></li>\n", o);
        if (g0 && new0)
            fputs("</ul></li>\n", o);
        if (new0) {
            fputs("<li>", o);
            lg_xml_esc(o, v0);
            fputs("\n<ul>\n", o);
        }
        if (new1 && c->spec.group[1][0]) {
            fputs("<li>", o);
            lg_xml_esc(o, v1);
            fputs("\n<ul>\n", o);
        }
        g0 = v0;
        g1 = v1;
        char text[300];
        size_t el = strlen(c->spec.each); /* "run 12" for run_id */
        el = el > 3 && !strcmp(c->spec.each + el - 3, "_id") ? el - 3 : el;
        snprintf(text, sizeof text, "%.*s %s", (int)el, c->spec.each,
                 p->each_value ? p->each_value : "");
        s_nav_link(o, p, text);
    }
    if (g0 && c->spec.group[1][0])
        fputs("</ul></li>\n", o);
    if (g0)
        fputs("</ul></li>\n", o);
    fputs("</ul></li>\n", o);
}

/* The sections of a grouped query: a heading for the query, one per group value, its charts. */
static void s_sections_grouped(FILE *o, lg_site_chart_t *c, const int *ord, lg_palette_t *pal)
{
    char title[512];
    s_group_title(c, title, sizeof title);
    fputs("<div class=\"group\">\n<h2>", o);
    lg_xml_esc(o, title);
    fputs("</h2>\n", o);
    const char *g0 = NULL, *g1 = NULL;
    for (int k = 0; k < c->nparts; k++) {
        lg_site_chart_t *p = &c->parts[ord[k]];
        const char *v0 = lg__index_group_value(p, 0), *v1 = lg__index_group_value(p, 1);
        bool new0 = !g0 || strcmp(g0, v0), new1 = new0 || !g1 || strcmp(g1, v1);
        if (new0) {
            fputs("<h3 class=\"group1\">", o);
            lg_xml_esc(o, v0);
            fputs("</h3>\n", o);
        }
        if (new1 && c->spec.group[1][0]) {
            fputs("<h4 class=\"group2\">", o);
            lg_xml_esc(o, v1);
            fputs("</h4>\n", o);
        }
        g0 = v0;
        g1 = v1;
        s_index_section(o, p, pal);
    }
    fputs("</div>\n", o);
}

/* The page shows each chart inline, without the title and subtitle drawn into the .svg file: the
 * page has them as a heading and a line of text, and the linked file stays whole for anyone who
 * publishes it on its own. Above the charts: the caveats, the test bed, the list of charts (the
 * per-run ones grouped under their profile and config). */
int lg_site_write_index(const char *dir, lg_site_chart_t *cs, int n, const char *campaign,
                        const lg_site_facts_t *facts, lg_palette_t *pal)
{
    char err[512];
    lg_site_chart_t **v = NULL;
    int nv = s_flatten(cs, n, &v);
    int **ord = nv >= 0 ? calloc((size_t)n + 1, sizeof *ord) : NULL;
    for (int i = 0; ord && i < n; i++)
        if (cs[i].parts && cs[i].spec.group[0][0] &&
            (ord[i] = calloc((size_t)cs[i].nparts + 1, sizeof **ord)))
            lg__index_group_order(&cs[i], ord[i]);
    FILE *o = ord ? s_open(dir, "index", "html", err, sizeof err) : NULL;
    if (!o) {
        lg_error("%s", ord ? err : "index.html: out of memory");
        for (int i = 0; ord && i < n; i++)
            free(ord[i]);
        free(ord);
        free(v);
        return -1;
    }
    s_index_head(o, campaign);
    lg__index_caveats(o, v, nv, facts);
    lg__index_testbed(o, facts);
    fputs("<nav><h2>Charts</h2><ul>\n", o);
    for (int i = 0; i < n; i++)
        if (ord[i])
            s_nav_grouped(o, &cs[i], ord[i]);
        else if (cs[i].parts)
            for (int j = 0; j < cs[i].nparts; j++)
                s_nav_link(o, &cs[i].parts[j], cs[i].parts[j].spec.title);
        else if (!cs[i].empty)
            s_nav_link(o, &cs[i], cs[i].spec.title);
    fputs("</ul></nav>\n", o);
    for (int i = 0; i < n; i++)
        if (ord[i])
            s_sections_grouped(o, &cs[i], ord[i], pal);
        else if (cs[i].parts)
            for (int j = 0; j < cs[i].nparts; j++)
                s_index_section(o, &cs[i].parts[j], pal);
        else if (!cs[i].empty)
            s_index_section(o, &cs[i], pal);
    fputs("<p class=\"sub\">Made by lg-export " LG_VERSION
          ". Figures: IOPS, MB/s (10<sup>6</sup> bytes/s), "
          "latency in ms (fio's total latency).</p>\n</body></html>\n",
          o);
    for (int i = 0; i < n; i++)
        free(ord[i]);
    free(ord);
    free(v);
    return fclose(o);
}

/* ---- the charts of an "each" query ---- */

/* NAME-VALUE: the value's ASCII letters and digits, a '-' for each run of anything else, at
 * most 48 characters of it; "-2", "-3" ... when an earlier part has that name. */
static void s_part_name(const lg_site_chart_t *c, int k, const char *value, char *out, size_t len)
{
    char slug[49];
    size_t o = 0;
    for (const char *p = value ? value : "null"; *p && o < sizeof slug - 1; p++) {
        if (isalnum((unsigned char)*p) && !((unsigned char)*p & 0x80))
            slug[o++] = *p;
        else if (o > 0 && slug[o - 1] != '-')
            slug[o++] = '-';
    }
    while (o > 0 && slug[o - 1] == '-')
        o--;
    slug[o] = '\0';
    snprintf(out, len, "%s-%s", c->spec.name, o ? slug : "x");
    for (int n = 2;; n++) {
        int taken = 0;
        for (int j = 0; j < k && !taken; j++)
            taken = !strcmp(c->parts[j].spec.name, out);
        if (!taken)
            return;
        snprintf(out, len, "%s-%s-%d", c->spec.name, o ? slug : "x", n);
    }
}

static bool s_same(const char *a, const char *b)
{
    return a == b || (a && b && !strcmp(a, b));
}

/* Part k of c: the rows whose each column holds value. -1 when out of memory. */
static int s_make_part(lg_site_chart_t *c, int k, int ec, const char *value)
{
    lg_site_chart_t *pt = &c->parts[k];
    const lg_table_t *t = &c->table;
    lg_table_t *d = &pt->table;
    pt->spec = c->spec;
    pt->spec.sql = NULL; /* the query's own */
    pt->parsed = true;
    s_part_name(c, k, value, pt->spec.name, sizeof pt->spec.name);
    d->ncols = t->ncols;
    for (int r = 0; r < t->nrows; r++)
        d->nrows += s_same(lg_table_get(t, r, ec), value);
    d->cols = calloc((size_t)t->ncols + 1, sizeof *d->cols);
    d->kind = calloc((size_t)t->ncols + 1, sizeof *d->kind);
    d->cells = calloc((size_t)t->ncols * (size_t)d->nrows + 1, sizeof *d->cells);
    if (!d->cols || !d->kind || !d->cells)
        return -1;
    for (int i = 0; i < t->ncols; i++) {
        d->kind[i] = t->kind[i];
        if (!(d->cols[i] = strdup(t->cols[i])))
            return -1;
    }
    size_t o = 0;
    for (int r = 0; r < t->nrows; r++) {
        if (!s_same(lg_table_get(t, r, ec), value))
            continue;
        for (int i = 0; i < t->ncols; i++, o++) {
            const char *v = lg_table_get(t, r, i);
            if (v && !(d->cells[o] = strdup(v)))
                return -1;
        }
    }
    pt->each_value = d->nrows > 0 ? lg_table_get(d, 0, ec) : NULL;
    s_fill(d, pt->spec.title, sizeof pt->spec.title);
    return 0;
}

int lg_site_split(lg_site_chart_t *c)
{
    int ec = lg_table_col(&c->table, c->spec.each);
    const char **vals = calloc((size_t)c->table.nrows + 1, sizeof *vals);
    int nv = 0;
    for (int r = 0; vals && r < c->table.nrows; r++) {
        const char *v = lg_table_get(&c->table, r, ec);
        int seen = 0;
        for (int i = 0; i < nv && !seen; i++)
            seen = s_same(vals[i], v);
        if (!seen)
            vals[nv++] = v;
    }
    c->parts = vals ? calloc((size_t)nv + 1, sizeof *c->parts) : NULL;
    if (!c->parts) {
        free(vals);
        snprintf(c->err, sizeof c->err, "out of memory");
        return -1;
    }
    for (int k = 0; k < nv; k++) {
        c->nparts = k + 1;
        if (s_make_part(c, k, ec, vals[k]) != 0) {
            free(vals);
            snprintf(c->err, sizeof c->err, "out of memory");
            return -1;
        }
    }
    free(vals);
    return 0;
}

int lg_site_write(const char *dir, lg_site_chart_t *c, lg_palette_t *pal)
{
    if (c->spec.each[0] && !c->parts) /* a chart of its own: its title from its rows */
        s_fill(&c->table, c->spec.title, sizeof c->spec.title);
    FILE *f = s_open(dir, c->spec.name, "svg", c->err, sizeof c->err);
    if (s_drawn_copy(c) != 0) {
        snprintf(c->err, sizeof c->err, "out of memory");
        if (f)
            fclose(f);
        return -1;
    }
    if (!f)
        return -1;
    lg_svg_write(f, &c->dspec, &c->dtable, pal);
    if (fclose(f) != 0) {
        snprintf(c->err, sizeof c->err, "could not write \"%s/%s.svg\": %s", dir, c->spec.name,
                 strerror(errno));
        return -1;
    }
    if (s_write_csv(dir, c) != 0 || s_write_json(dir, c) != 0)
        return -1;
    c->ok = true;
    return 0;
}

void lg_site_chart_clear(lg_site_chart_t *c)
{
    for (int j = 0; j < c->nparts; j++)
        lg_site_chart_clear(&c->parts[j]);
    free(c->parts);
    lg_chart_spec_clear(&c->spec);
    lg_table_clear(&c->table);
    if (c->drawn_copy)
        lg_table_clear(&c->dtable);
    memset(c, 0, sizeof *c);
}
