/* site_index.c: the parts of index.html around the charts: the caveats at the top (each with
 * the charts that carry it), the test bed (load hosts, the NAS's facts from its telemetry, the
 * spec, lg's version) and the per-run charts grouped under their profile and config. Every text
 * from the database is escaped for HTML (lg_xml_esc). */
#include "site.h"

#include <stdlib.h>
#include <string.h>

#define S_MAX_LISTED 60 /* caveats listed at the top of the page; the rest are counted */

void lg_site_facts_clear(lg_site_facts_t *f)
{
    lg_table_clear(&f->caveats);
    lg_table_clear(&f->agents);
    lg_table_clear(&f->nas);
    lg_table_clear(&f->spec);
}

/* Whether the lines of text (each ending in '\n') hold line (l bytes) as a whole line. */
static bool s_has_line(const char *text, const char *line, size_t l)
{
    for (const char *q = text; *q;) {
        size_t ql = strcspn(q, "\n");
        if (ql == l && !memcmp(q, line, l))
            return true;
        q += ql + (q[ql] == '\n');
    }
    return false;
}

/* One caveat line and the charts that show it. */
static void s_caveat_item(FILE *o, const char *line, size_t l, lg_site_chart_t **v, int nv)
{
    char *one = strndup(line, l);
    if (!one)
        return;
    fputs("<li>", o);
    lg_xml_esc(o, one);
    int k = 0;
    for (int i = 0; i < nv; i++) {
        if (!v[i]->ok || !s_has_line(v[i]->dspec.caveats, line, l))
            continue;
        fputs(k++ ? ", " : " <span class=\"on\">(on ", o);
        fputs("<a href=\"#", o);
        lg_xml_esc(o, v[i]->spec.name);
        fputs("\">", o);
        lg_xml_esc(o, v[i]->spec.title);
        fputs("</a>", o);
    }
    fputs(k ? ")</span></li>\n" : "</li>\n", o);
    free(one);
}

void lg__index_caveats(FILE *o, lg_site_chart_t **v, int nv, const lg_site_facts_t *f)
{
    /* The campaign's caveats first (those of points no chart shows too), then any a chart's own
     * query found that the campaign's list does not hold (a query of the user's). */
    char *all = NULL;
    size_t alen = 0;
    FILE *m = open_memstream(&all, &alen);
    if (!m)
        return;
    int cc = f ? lg_table_col(&f->caveats, "caveat") : -1;
    for (int r = 0; cc >= 0 && r < f->caveats.nrows; r++) {
        const char *c = lg_table_get(&f->caveats, r, cc);
        if (c && c[0])
            fprintf(m, "%s\n", c);
    }
    fflush(m);
    for (int i = 0; i < nv; i++)
        for (const char *p = v[i]->ok ? v[i]->dspec.caveats : ""; *p;) {
            size_t l = strcspn(p, "\n");
            fflush(m);
            if (!s_has_line(all ? all : "", p, l))
                fprintf(m, "%.*s\n", (int)l, p);
            p += l + (p[l] == '\n');
        }
    fclose(m);
    if (all && all[0]) {
        fputs("<section id=\"caveats\" class=\"caveats\">\n<h2>Caveats</h2>\n<p class=\"sub\">What "
              "a reader must know before trusting the figures below; each chart that shows an "
              "affected point says it again under itself.</p>\n<ul>\n",
              o);
        int k = 0, more = 0;
        for (const char *p = all; *p; k++) {
            size_t l = strcspn(p, "\n");
            if (k < S_MAX_LISTED)
                s_caveat_item(o, p, l, v, nv);
            else
                more++;
            p += l + (p[l] == '\n');
        }
        if (more) /* e.g. a load host saturated in every run: the page stays readable */
            fprintf(o, "<li>and %d more: see each chart's, and lg.v_point's caveat column</li>\n",
                    more);
        fputs("</ul>\n</section>\n", o);
    }
    free(all);
}

/* A cell as text, "" for NULL or a missing column. */
static const char *s_cell(const lg_table_t *t, int r, const char *col)
{
    int c = lg_table_col(t, col);
    const char *v = c >= 0 ? lg_table_get(t, r, c) : NULL;
    return v ? v : "";
}

/* "62.8 GiB" from bytes; "" for none. */
static void s_bytes(const char *v, char *buf, size_t len)
{
    double b = v[0] ? strtod(v, NULL) : 0;
    if (b <= 0)
        snprintf(buf, len, "%s", v[0] ? "unknown" : "");
    else
        snprintf(buf, len, "%.1f GiB", b / (1024.0 * 1024 * 1024));
}

static void s_td(FILE *o, const char *v)
{
    fputs("<td>", o);
    lg_xml_esc(o, v[0] ? v : "unknown");
    fputs("</td>", o);
}

static void s_testbed_agents(FILE *o, const lg_table_t *a)
{
    fputs("<h3>Load hosts</h3>\n", o);
    if (a->nrows == 0) {
        fputs("<p>No agent ran a run of this campaign.</p>\n", o);
        return;
    }
    fputs("<table class=\"agents\">\n<tr><th>agent</th><th>CPU</th><th>cores</th><th>memory</th>"
          "<th>OS</th><th>fio</th><th>lg</th></tr>\n",
          o);
    for (int r = 0; r < a->nrows; r++) {
        char mem[64];
        s_bytes(s_cell(a, r, "mem_bytes"), mem, sizeof mem);
        fputs("<tr>", o);
        s_td(o, s_cell(a, r, "agent"));
        s_td(o, s_cell(a, r, "cpu_model"));
        s_td(o, s_cell(a, r, "cpu_count"));
        s_td(o, mem);
        s_td(o, s_cell(a, r, "os"));
        s_td(o, s_cell(a, r, "fio_version"));
        s_td(o, s_cell(a, r, "lg_version"));
        fputs("</tr>\n", o);
    }
    fputs("</table>\n", o);
}

static void s_testbed_nas(FILE *o, const lg_table_t *n)
{
    fputs("<h3>NAS, from its telemetry</h3>\n", o);
    if (n->nrows == 0) {
        fputs("<p>No telemetry: the campaign scraped no exporter of the NAS.</p>\n", o);
        return;
    }
    fputs("<table class=\"nas\">\n<tr><th>source</th><th>cores</th><th>memory</th>"
          "<th>kernel or OS</th></tr>\n",
          o);
    for (int r = 0; r < n->nrows; r++) {
        char mem[64];
        s_bytes(s_cell(n, r, "mem_total_bytes"), mem, sizeof mem);
        fputs("<tr>", o);
        s_td(o, s_cell(n, r, "source"));
        s_td(o, s_cell(n, r, "cpus"));
        s_td(o, mem);
        s_td(o, s_cell(n, r, "os"));
        fputs("</tr>\n", o);
    }
    fputs("</table>\n<p class=\"sub\">As the NAS's exporter reported them: cores count its "
          "CPUs, memory is its total, the system its OS and kernel (node_exporter's uname and os "
          "collectors, windows_exporter's os; unknown without them).</p>\n",
          o);
}

void lg__index_testbed(FILE *o, const lg_site_facts_t *f)
{
    if (!f || f->spec.nrows == 0)
        return; /* without --campaign: charts of every campaign, no one test bed */
    fputs("<section id=\"testbed\">\n<h2>Test bed</h2>\n", o);
    s_testbed_agents(o, &f->agents);
    s_testbed_nas(o, &f->nas);
    fputs("<h3>Spec</h3>\n<p>", o);
    const char *path = s_cell(&f->spec, 0, "spec_path");
    if (path[0]) {
        fputs("From <code>", o);
        lg_xml_esc(o, path);
        fputs("</code>, as stored with the campaign.", o);
    } else {
        fputs("As stored with the campaign.", o);
    }
    fputs("</p>\n<details><summary>the spec</summary>\n<pre class=\"spec\">", o);
    lg_xml_esc(o, s_cell(&f->spec, 0, "spec"));
    fputs("</pre>\n</details>\n<p>lg " LG_VERSION " (lg-export); the load hosts' lg is in their "
          "table.</p>\n</section>\n",
          o);
}

/* The value of group column g in part p's first row ("" for NULL). */
const char *lg__index_group_value(const lg_site_chart_t *p, int g)
{
    int c = p->spec.group[g][0] ? lg_table_col(&p->table, p->spec.group[g]) : -1;
    const char *v = c >= 0 && p->table.nrows > 0 ? lg_table_get(&p->table, 0, c) : NULL;
    return v ? v : "";
}

/* The parts of c in grouped order: by the first group column's values in order of first
 * appearance, within each by the second's, each group's parts in their own order. out has room
 * for c->nparts. */
void lg__index_group_order(const lg_site_chart_t *c, int *out)
{
    int n = 0;
    bool *used = calloc((size_t)c->nparts + 1, sizeof *used);
    if (!used) {
        for (int i = 0; i < c->nparts; i++)
            out[i] = i;
        return;
    }
    for (int a = 0; a < c->nparts; a++) {
        if (used[a])
            continue;
        const char *g0 = lg__index_group_value(&c->parts[a], 0);
        for (int b = a; b < c->nparts; b++) {
            if (used[b] || strcmp(lg__index_group_value(&c->parts[b], 0), g0))
                continue;
            const char *g1 = lg__index_group_value(&c->parts[b], 1);
            for (int k = b; k < c->nparts; k++)
                if (!used[k] && !strcmp(lg__index_group_value(&c->parts[k], 0), g0) &&
                    !strcmp(lg__index_group_value(&c->parts[k], 1), g1)) {
                    used[k] = true;
                    out[n++] = k;
                }
        }
    }
    free(used);
}
