/* main.c: lg-export: run report queries (SQL files with a header of chart directives) against
 * the publishing views as the read-only role, and write a static site: an SVG chart, CSV and
 * JSON per query and an index.html that shows them all without any script. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <libgen.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "chart.h"
#include "db.h"
#include "lg_esc.h"
#include "lg_log.h"
#include "lg_owndir.h"
#include "localpg.h"

#ifndef LG_QUERY_DIR
#define LG_QUERY_DIR "/usr/share/lg/queries"
#endif

typedef struct {
    lg_chart_spec_t spec;
    lg_table_t table;
    char err[2048];
    bool ok, parsed;
    bool empty; /* the query found nothing (a profile the campaign did not run): no chart */
    /* What is drawn: the spec with its subtitle filled in, and the table in the unit drawn
     * (sub-millisecond latency in microseconds); the .csv and .json keep the query's rows. */
    lg_chart_spec_t dspec;
    lg_table_t dtable;
    bool drawn_copy;
} s_chart_t;

/* "{col}" in the subtitle becomes the column's distinct values ("16T16Q", "60 s"), so that a
 * chart says the load point and runtime its figures come from. */
static void s_fill_subtitle(const lg_table_t *t, char *sub, size_t len)
{
    char out[512];
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
            snprintf(s->subtitle + n, sizeof s->subtitle - n, "%serror bars: 95%% confidence "
                     "interval of the mean of repeats", n ? "; " : "");
            return;
        }
}

/* The drawn copy of chart c: subtitle filled in; milliseconds below 1 shown in microseconds. */
static int s_drawn_copy(s_chart_t *c)
{
    c->dspec = c->spec;
    c->dspec.sql = NULL; /* the original owns it */
    s_fill_subtitle(&c->table, c->dspec.subtitle, sizeof c->dspec.subtitle);
    s_note_intervals(&c->table, &c->dspec);
    lg_table_t *d = &c->dtable, *t = &c->table;
    d->ncols = t->ncols;
    d->nrows = t->nrows;
    d->cols = calloc((size_t)t->ncols + 1, sizeof *d->cols);
    d->numeric = calloc((size_t)t->ncols + 1, sizeof *d->numeric);
    d->cells = calloc((size_t)t->ncols * (size_t)t->nrows + 1, sizeof *d->cells);
    c->drawn_copy = true;
    if (!d->cols || !d->numeric || !d->cells)
        return -1;
    int yc = lg_table_col(t, c->spec.y);
    double max = 0;
    for (int r = 0; yc >= 0 && r < t->nrows; r++) {
        const char *v = lg_table_get(t, r, yc);
        if (v && strtod(v, NULL) > max)
            max = strtod(v, NULL);
    }
    int us = yc >= 0 && t->numeric[yc] && !strcmp(c->spec.unit, "ms") && max > 0 && max < 1.0;
    if (us)
        snprintf(c->dspec.unit, sizeof c->dspec.unit, "\xc2\xb5s");
    for (int i = 0; i < t->ncols; i++) {
        d->cols[i] = strdup(t->cols[i]);
        d->numeric[i] = t->numeric[i];
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

static void s_usage(FILE *o)
{
    fputs(
        "usage: lg-export [--db URL | --data-dir DIR] --out DIR [--campaign NAME] [--queries DIR]\n"
        "                 [QUERY.sql ...]\n"
        "  --db URL        PostgreSQL connection string (default $LG_DATABASE_URL)\n"
        "  --data-dir DIR  the database of lgctl's local mode in DIR (its private cluster,\n"
        "                  started for the while when down, as lgctl does)\n"
        "  --out DIR       where the site is written (created if missing)\n"
        "  --campaign NAME value of the :campaign placeholder in the queries\n"
        "  --queries DIR   the default query set (used when no QUERY.sql is given)\n"
        "  --version       print the version and exit\n"
        "Each query is plain SQL after a header of directives:\n"
        "  -- chart: hbar|bar|line|scatter|timeseries|curve   -- title: ...   -- subtitle: ...\n"
        "  -- x: COL   -- y: COL   -- series: COL   -- unit: IOPS   -- sort: asc|desc|none\n"
        "  -- limit: COL (dashed line at its values)   -- mark: COL [LABEL] (ring true rows)\n"
        "  -- lower-is-better   -- log\n",
        o);
}

/* A cell of the site's CSV: a spreadsheet opens it, so text it would run as a formula gets a
 * leading ' (never a value of a number type, nor text that looks like a number: a negative
 * number stays one) and control characters are escaped (lg_esc.h); NULL is an empty field. */
static void s_csv_field(FILE *o, const char *v, bool numeric, bool last)
{
    lg_csv_write(o, v, numeric ? LG_CSV_NUMBER : LG_CSV_FIGURE);
    fputc(last ? '\n' : ',', o);
}

static bool s_numeric_oid(Oid t)
{
    /* int8, int2, int4, float4, float8, numeric */
    return t == 20 || t == 21 || t == 23 || t == 700 || t == 701 || t == 1700;
}

static int s_run_query(PGconn *db, s_chart_t *c, const char *campaign)
{
    PGresult *r = PQexec(db, "BEGIN READ ONLY");
    if (PQresultStatus(r) != PGRES_COMMAND_OK)
        goto dberr;
    PQclear(r);
    r = PQexec(db, "SET LOCAL ROLE lg_reader");
    if (PQresultStatus(r) != PGRES_COMMAND_OK)
        goto dberr;
    PQclear(r);
    const char *params[1] = {campaign};
    r = PQexecParams(db, c->spec.sql, c->spec.uses_campaign ? 1 : 0, NULL, params, NULL, NULL, 0);
    if (PQresultStatus(r) != PGRES_TUPLES_OK)
        goto dberr;
    lg_table_t *t = &c->table;
    t->ncols = PQnfields(r);
    t->nrows = PQntuples(r);
    t->cols = calloc((size_t)t->ncols + 1, sizeof *t->cols);
    t->numeric = calloc((size_t)t->ncols + 1, sizeof *t->numeric);
    t->cells = calloc((size_t)t->ncols * (size_t)t->nrows + 1, sizeof *t->cells);
    if (!t->cols || !t->numeric || !t->cells) {
        PQclear(r);
        snprintf(c->err, sizeof c->err, "out of memory");
        PQclear(PQexec(db, "ROLLBACK"));
        return -1;
    }
    for (int i = 0; i < t->ncols; i++) {
        t->cols[i] = strdup(PQfname(r, i));
        t->numeric[i] = s_numeric_oid(PQftype(r, i));
    }
    for (int row = 0; row < t->nrows; row++)
        for (int i = 0; i < t->ncols; i++)
            if (!PQgetisnull(r, row, i))
                t->cells[(size_t)row * (size_t)t->ncols + (size_t)i] =
                    strdup(PQgetvalue(r, row, i));
    PQclear(r);
    PQclear(PQexec(db, "COMMIT"));
    return 0;
dberr:;
    /* The server's position is a character offset into the SQL; make it a line of the file
     * (the directive header was kept as blank lines, so lines match). */
    const char *pos = PQresultErrorField(r, PG_DIAG_STATEMENT_POSITION);
    int line = 1;
    if (pos) {
        long p = strtol(pos, NULL, 10);
        for (long i = 0; i < p - 1 && c->spec.sql[i]; i++)
            line += c->spec.sql[i] == '\n';
    }
    char msg[1024];
    snprintf(msg, sizeof msg, "%s", PQresultErrorMessage(r));
    size_t n = strlen(msg);
    while (n > 0 && (msg[n - 1] == '\n' || msg[n - 1] == ' '))
        msg[--n] = '\0';
    char *nl = strchr(msg, '\n'); /* keep the primary line; LINE/caret detail is ours to give */
    if (nl)
        *nl = '\0';
    snprintf(c->err, sizeof c->err, "%s.sql:%d: query failed: %s", c->spec.name, line, msg);
    PQclear(r);
    PQclear(PQexec(db, "ROLLBACK"));
    return -1;
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

static int s_write_csv(const char *dir, s_chart_t *c)
{
    FILE *f = s_open(dir, c->spec.name, "csv", c->err, sizeof c->err);
    if (!f)
        return -1;
    const lg_table_t *t = &c->table;
    for (int i = 0; i < t->ncols; i++)
        s_csv_field(f, t->cols[i], false, i == t->ncols - 1); /* column names */
    for (int r = 0; r < t->nrows; r++)
        for (int i = 0; i < t->ncols; i++)
            s_csv_field(f, lg_table_get(t, r, i), t->numeric[i], i == t->ncols - 1);
    return fclose(f);
}

static int s_write_json(const char *dir, s_chart_t *c)
{
    const lg_table_t *t = &c->table;
    json_t *doc = json_object(), *cols = json_array(), *rows = json_array();
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
    for (int i = 0; i < t->ncols; i++)
        json_array_append_new(cols, json_string(t->cols[i]));
    for (int r = 0; r < t->nrows; r++) {
        json_t *row = json_object();
        for (int i = 0; i < t->ncols; i++) {
            const char *v = lg_table_get(t, r, i);
            json_t *jv;
            char *end;
            double d;
            if (!v)
                jv = json_null();
            else if (t->numeric[i] && (d = strtod(v, &end), *end == '\0'))
                jv = json_real(d);
            else
                jv = json_string(v);
            json_object_set_new(row, t->cols[i], jv);
        }
        json_array_append_new(rows, row);
    }
    json_object_set_new(doc, "columns", cols);
    json_object_set_new(doc, "rows", rows);
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s.json", dir, c->spec.name);
    /* jansson writes C0 controls as \u00XX; ENSURE_ASCII does the same for C1 controls */
    int rc = json_dump_file(doc, path,
                            JSON_INDENT(1) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17) |
                                JSON_ENSURE_ASCII);
    json_decref(doc);
    if (rc)
        snprintf(c->err, sizeof c->err, "could not write \"%s\"", path);
    return rc;
}

/* The page shows each chart inline, without the title and subtitle drawn into the .svg file: the
 * page has them as a heading and a line of text, and the linked file stays whole for anyone who
 * publishes it on its own. */
static int s_write_index(const char *dir, s_chart_t *cs, int n, const char *campaign,
                         lg_palette_t *pal)
{
    char err[512];
    FILE *o = s_open(dir, "index", "html", err, sizeof err);
    if (!o) {
        lg_error("%s", err);
        return -1;
    }
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
        "nav li{margin:2px 0}\n</style></head><body>\n<h1>lg results",
        o);
    if (campaign) {
        fputs(": ", o);
        lg_xml_esc(o, campaign);
    }
    fputs("</h1>\n<nav><ul>\n", o);
    for (int i = 0; i < n; i++) {
        if (cs[i].empty)
            continue;
        fputs("<li><a href=\"#", o);
        lg_xml_esc(o, cs[i].spec.name);
        fputs("\">", o);
        lg_xml_esc(o, cs[i].spec.title);
        fputs(cs[i].ok ? "</a></li>\n" : "</a> (failed)</li>\n", o);
    }
    fputs("</ul></nav>\n", o);
    for (int i = 0; i < n; i++) {
        s_chart_t *c = &cs[i];
        if (c->empty)
            continue;
        fputs("<section id=\"", o);
        lg_xml_esc(o, c->spec.name);
        fputs("\">\n<h2>", o);
        lg_xml_esc(o, c->spec.title);
        fputs("</h2>\n", o);
        char sub[800];
        lg_chart_subline(&c->dspec, sub, sizeof sub);
        fputs("<p class=\"sub\">", o);
        lg_xml_esc(o, c->ok ? sub : c->spec.subtitle);
        fputs("</p>\n", o);
        if (!c->ok) {
            fputs("<p class=\"err\">", o);
            lg_xml_esc(o, c->err);
            fputs("</p>\n</section>\n", o);
            continue;
        }
        char id[300];
        snprintf(id, sizeof id, "svg-%s", c->spec.name);
        for (char *q = id; *q; q++)
            if (!(isalnum((unsigned char)*q) || *q == '-' || *q == '_'))
                *q = '-';
        fputs("<figure>\n", o);
        lg_svg_write_inline(o, &c->dspec, &c->dtable, pal, id);
        fputs("</figure>\n<p class=\"files\">", o);
        const char *ext[] = {"svg", "csv", "json"};
        for (int e = 0; e < 3; e++) {
            fputs("<a href=\"", o);
            lg_xml_esc(o, c->spec.name);
            fprintf(o, ".%s\">", ext[e]);
            lg_xml_esc(o, c->spec.name);
            fprintf(o, ".%s</a>", ext[e]);
        }
        fputs("</p>\n<table>\n<tr>", o);
        const lg_table_t *t = &c->table;
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
                if (v && t->numeric[k]) {
                    lg_fmt_num(strtod(v, NULL), buf, sizeof buf);
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
        fputs("</table>\n</section>\n", o);
    }
    fputs("<p class=\"sub\">Made by lg-export " LG_VERSION
          ". Figures: IOPS, MB/s (10<sup>6</sup> bytes/s), "
          "latency in ms (fio's total latency).</p>\n</body></html>\n",
          o);
    return fclose(o);
}

static int s_cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The default set: every *.sql in dir, sorted by name. Caller frees each and the array. */
static int s_default_queries(const char *dir, char ***out)
{
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    char **v = NULL;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t l = strlen(e->d_name);
        if (l < 5 || strcmp(e->d_name + l - 4, ".sql") != 0)
            continue;
        char **nv = realloc(v, sizeof *v * (size_t)(n + 1));
        if (!nv)
            break;
        v = nv;
        size_t pl = strlen(dir) + l + 2;
        v[n] = malloc(pl);
        if (!v[n])
            break;
        snprintf(v[n], pl, "%s/%s", dir, e->d_name);
        n++;
    }
    closedir(d);
    if (n > 1)
        qsort(v, (size_t)n, sizeof *v, s_cmp_str);
    *out = v;
    return n;
}

/* BIN/../share/lg/queries next to an installed binary, else the source tree's set. */
static void s_find_query_dir(char *buf, size_t len)
{
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = '\0';
        snprintf(buf, len, "%s/../share/lg/queries", dirname(exe));
        struct stat st;
        if (stat(buf, &st) == 0 && S_ISDIR(st.st_mode))
            return;
    }
    snprintf(buf, len, "%s", LG_QUERY_DIR);
}

int main(int argc, char **argv)
{
    lg_log_init("lg-export");
    const char *db_url = getenv("LG_DATABASE_URL"), *out = NULL, *campaign = NULL, *qdir = NULL;
    const char *data_dir = NULL;
    lg_localpg_t pg;
    memset(&pg, 0, sizeof pg);
    char **files = calloc((size_t)argc + 1, sizeof *files);
    int nfiles = 0;
    if (!files)
        return 2;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            s_usage(stdout);
            free(files);
            return 0;
        }
        if (!strcmp(a, "--version")) {
            printf("lg-export %s\n", LG_VERSION);
            free(files);
            return 0;
        }
        if (!strcmp(a, "--db") || !strcmp(a, "--out") || !strcmp(a, "--campaign") ||
            !strcmp(a, "--queries") || !strcmp(a, "--data-dir")) {
            if (i + 1 >= argc) {
                lg_error("option \"%s\" needs a value", a);
                free(files);
                return 2;
            }
            const char *v = argv[++i];
            if (!strcmp(a, "--db"))
                db_url = v;
            else if (!strcmp(a, "--out"))
                out = v;
            else if (!strcmp(a, "--campaign"))
                campaign = v;
            else if (!strcmp(a, "--data-dir"))
                data_dir = v;
            else
                qdir = v;
        } else if (a[0] == '-') {
            lg_error("unknown option \"%s\"", a);
            s_usage(stderr);
            free(files);
            return 2;
        } else {
            files[nfiles++] = argv[i];
        }
    }
    if (data_dir && data_dir[0] != '/') {
        lg_error("--data-dir must be an absolute path");
        free(files);
        return 2;
    }
    if (data_dir)
        db_url = NULL; /* --data-dir names the database outright */
    if (!out || (!db_url && !data_dir)) {
        lg_error("%s is required", !out ? "--out" : "--db, --data-dir or LG_DATABASE_URL");
        s_usage(stderr);
        free(files);
        return 2;
    }
    char **deflt = NULL;
    int ndef = 0;
    if (nfiles == 0) {
        char dirbuf[PATH_MAX];
        if (!qdir) {
            s_find_query_dir(dirbuf, sizeof dirbuf);
            qdir = dirbuf;
        }
        ndef = s_default_queries(qdir, &deflt);
        if (ndef <= 0) {
            lg_error("no queries in \"%s\"", qdir);
            free(files);
            free(deflt);
            return 2;
        }
    }
    /* The site's folder must be out of other users' hands (lg-export often runs as root). */
    char err[4096];
    static char out_real[4096];
    if (lg_owndir(out, 0755, LG_OWNDIR_ROOT_OK, out_real, sizeof out_real, err, sizeof err) != 0) {
        lg_error("--out: %s", err);
        free(files);
        return 1;
    }
    out = out_real;
    if (data_dir) {
        if (lg_localpg_open(data_dir, &pg, err, sizeof err) != 0) {
            lg_error("--data-dir %s: %s", data_dir, err);
            free(files);
            return 1;
        }
        db_url = pg.conninfo;
    }
    PGconn *db = lg_db_connect(db_url, err, sizeof err);
    if (!db) {
        lg_error("could not connect to the database: %s", err);
        lg_localpg_close(&pg);
        free(files);
        return 1;
    }
    if (campaign) { /* a campaign that is not there is an error, not a site of empty charts */
        const char *p[1] = {campaign};
        PGresult *r = NULL;
        int found = lg_db_exec(db, "SELECT 1 FROM lg.v_campaign WHERE name = $1", 1, p, &r, err,
                               sizeof err) == 0 &&
                    PQntuples(r) > 0;
        PQclear(r);
        if (!found) {
            char names[1024];
            lg_db_campaign_names(db, names, sizeof names);
            lg_error("--campaign: no campaign named \"%s\"; campaigns: %s", campaign,
                     names[0] ? names : "(none yet)");
            PQfinish(db);
            lg_localpg_close(&pg);
            free(files);
            return 1;
        }
    }
    int n = nfiles ? nfiles : ndef;
    s_chart_t *cs = calloc((size_t)n, sizeof *cs);
    lg_palette_t pal = {0};
    int failed = 0;
    for (int i = 0; cs && i < n; i++) {
        s_chart_t *c = &cs[i];
        const char *path = nfiles ? files[i] : deflt[i];
        if (lg_chart_parse(path, &c->spec, c->err, sizeof c->err) != 0) {
            lg_error("%s", c->err);
            failed++;
            continue;
        }
        c->parsed = true;
        if (s_run_query(db, c, campaign) != 0 ||
            lg_chart_check(&c->spec, &c->table, c->err, sizeof c->err) != 0) {
            if (!strstr(c->err, ".sql:")) { /* a column check: name the file and directive line */
                char tmp[2048];
                snprintf(tmp, sizeof tmp, "%s: %s", path, c->err);
                snprintf(c->err, sizeof c->err, "%s", tmp);
            } else if (strchr(path, '/')) {
                char tmp[2048];
                snprintf(tmp, sizeof tmp, "%.*s%s", (int)(strrchr(path, '/') - path + 1), path,
                         c->err);
                snprintf(c->err, sizeof c->err, "%s", tmp);
            }
            lg_error("%s", c->err);
            failed++;
            continue;
        }
        if (c->table.nrows == 0) { /* e.g. a profile this campaign did not run: no empty chart */
            c->empty = true;
            lg_info("%s: no figures%s%s: no chart", c->spec.name, campaign ? " in campaign " : "",
                     campaign ? campaign : "");
            continue;
        }
        FILE *f = s_open(out, c->spec.name, "svg", c->err, sizeof c->err);
        if (s_drawn_copy(c) != 0) {
            snprintf(c->err, sizeof c->err, "out of memory");
            if (f)
                fclose(f);
            failed++;
            continue;
        }
        if (!f || (lg_svg_write(f, &c->dspec, &c->dtable, &pal), fclose(f) != 0) ||
            s_write_csv(out, c) != 0 || s_write_json(out, c) != 0) {
            lg_error("%s", c->err);
            failed++;
            continue;
        }
        c->ok = true;
        fprintf(stdout, "%s/%s.svg\n", out, c->spec.name);
    }
    int nempty = 0;
    for (int i = 0; cs && i < n; i++)
        nempty += cs[i].empty;
    int rc = cs ? s_write_index(out, cs, n, campaign, &pal) : -1;
    if (rc == 0)
        fprintf(stdout, "%s/index.html\n", out);
    for (int i = 0; cs && i < n; i++) {
        lg_chart_spec_free(&cs[i].spec);
        lg_table_free(&cs[i].table);
        if (cs[i].drawn_copy)
            lg_table_free(&cs[i].dtable);
    }
    for (int i = 0; i < ndef; i++)
        free(deflt[i]);
    free(deflt);
    free(cs);
    free(files);
    lg_palette_free(&pal);
    PQfinish(db);
    lg_localpg_close(&pg);
    if (failed)
        lg_error("%d of %d charts failed", failed, n);
    if (!failed && nempty == n) {
        lg_error("none of the %d queries found any figures%s%s", n, campaign ? " of campaign " : "",
                 campaign ? campaign : "");
        return 1;
    }
    return failed || rc ? 1 : 0;
}
