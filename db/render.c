/* render.c: db/'s renderer (render.h): text cells printed aligned (coloured on a terminal), as
 * CSV or as Markdown (lgctl's report, compare, rank, sweep); a query's rows read whole as typed
 * text and written as CSV or typed JSON (lgctl's --format csv and json, lg-export's files).
 * Control characters in cells are escaped, CSV text cells guarded against formulas and Markdown
 * cells kept from being markup (lg_esc.h). */
#include "render.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "lg_error.h"
#include "lg_esc.h"
#include "lg_log.h"
#include "lg_util.h"

/* ---- a table of text cells, printed aligned, as CSV or as Markdown ---- */

void lg_tbl_add(lg_tbl_t *t, int tone, const char *fmt, ...)
{
    if (t->n == t->cap) {
        size_t nc = t->cap ? t->cap * 2 : 64;
        char **c = realloc(t->cell, nc * sizeof *c);
        if (!c)
            abort(); /* a CLI printing a table: nothing sensible is left to do */
        t->cell = c;
        signed char *tn = realloc(t->tone, nc);
        if (!tn)
            abort();
        t->tone = tn;
        t->cap = nc;
    }
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    /* Cells hold names and labels from the database, which may predate the spec's refusal of
     * control characters (an import, an old campaign): escaped here, for every format. */
    t->cell[t->n] = lg_esc_ctrl_dup(buf);
    if (!t->cell[t->n])
        abort();
    t->tone[t->n++] = (signed char)tone;
}

void lg_tbl_clear(lg_tbl_t *t)
{
    for (size_t i = 0; i < t->n; i++)
        free(t->cell[i]);
    free(t->cell);
    free(t->tone);
    memset(t, 0, sizeof *t);
}

/* The width of a UTF-8 cell on a terminal: its characters, not its bytes ("\u00b1" is one). */
static size_t s_width(const char *s)
{
    size_t w = 0;
    for (; *s; s++)
        w += ((unsigned char)*s & 0xC0) != 0x80;
    return w;
}

/* Columns before nleft are text (left-aligned), the rest figures (right-aligned). */
void lg_tbl_print(const lg_tbl_t *t, lg_format_t fmt, int colour, size_t nleft, FILE *out)
{
    size_t nrows = t->ncols ? t->n / t->ncols : 0;
    if (fmt == LG_FMT_CSV) {
        /* The header and the text columns are text to a spreadsheet's formula guard; the rest
         * are figures, left alone while they look like numbers (a -12.5 % change stays one). */
        for (size_t r = 0; r < nrows; r++)
            for (size_t c = 0; c < t->ncols; c++) {
                int text = r == 0 || c < nleft || (c + 1 == t->ncols && t->last_left);
                lg_csv_write(out, t->cell[r * t->ncols + c], text ? LG_CSV_TEXT : LG_CSV_FIGURE);
                fputc(c + 1 == t->ncols ? '\n' : ',', out);
            }
        return;
    }
    size_t w[256] = {0};
    for (size_t i = 0; i < t->n && t->ncols <= 256; i++) {
        size_t l = s_width(t->cell[i]);
        if (l > w[i % t->ncols])
            w[i % t->ncols] = l;
    }
    for (size_t r = 0; r < nrows; r++) {
        if (fmt == LG_FMT_MARKDOWN)
            fputs("| ", out);
        for (size_t c = 0; c < t->ncols; c++) {
            const char *s = t->cell[r * t->ncols + c];
            int tone = t->tone[r * t->ncols + c];
            const char *on = !colour || r == 0 ? NULL
                             : tone == 1       ? "\033[32m"
                             : tone == -1      ? "\033[31m"
                             : tone == 2       ? "\033[33m"
                                               : NULL;
            int width = (int)w[c];
            if (fmt == LG_FMT_MARKDOWN) {
                lg_md_write(out, s); /* a page renders it: no HTML, no cell boundary of its own */
                fputs(c + 1 == t->ncols ? " |\n" : " | ", out);
                continue;
            }
            if (on)
                fputs(on, out);
            int left = c < nleft || (c + 1 == t->ncols && t->last_left);
            int pad = c + 1 == t->ncols && left ? 0 : width - (int)s_width(s);
            fprintf(out, "%*s%s%*s", left ? 0 : pad, "", s, left ? pad : 0, "");
            if (on)
                fputs("\033[0m", out);
            fputs(c + 1 == t->ncols ? "\n" : "  ", out);
        }
        if (fmt == LG_FMT_MARKDOWN && r == 0) {
            fputc('|', out);
            for (size_t c = 0; c < t->ncols; c++)
                fputs(c < nleft || (c + 1 == t->ncols && t->last_left) ? "---|" : "---:|", out);
            fputc('\n', out);
        }
    }
}

int lg_format_parse(const char *s, lg_format_t *out)
{
    static const char *const names[] = {"table", "csv", "json", "markdown"};
    for (int i = 0; i < 4; i++)
        if (strcmp(s, names[i]) == 0) {
            *out = (lg_format_t)i;
            return 0;
        }
    return LG_EPARSE;
}

/* ---- a query's rows read whole: typed text, as CSV or JSON ---- */

int lg_table_from_result(const PGresult *r, lg_table_t *t)
{
    memset(t, 0, sizeof *t);
    t->ncols = lg_db_nfields(r);
    t->nrows = lg_db_nrows(r);
    t->cols = calloc((size_t)t->ncols + 1, sizeof *t->cols);
    t->kind = calloc((size_t)t->ncols + 1, sizeof *t->kind);
    t->cells = calloc((size_t)t->ncols * (size_t)t->nrows + 1, sizeof *t->cells);
    int ok = t->cols && t->kind && t->cells;
    for (int c = 0; ok && c < t->ncols; c++) {
        ok = (t->cols[c] = strdup(lg_db_fname(r, c))) != NULL;
        t->kind[c] = lg_db_fkind(r, c);
    }
    for (int row = 0; ok && row < t->nrows; row++)
        for (int c = 0; ok && c < t->ncols; c++) {
            char **cell = &t->cells[(size_t)row * (size_t)t->ncols + (size_t)c];
            if (!lg_db_isnull(r, row, c))
                ok = (*cell = strdup(lg_db_get(r, row, c))) != NULL;
        }
    if (!ok) {
        lg_table_clear(t);
        return -ENOMEM;
    }
    return 0;
}

int lg_table_col(const lg_table_t *t, const char *name)
{
    for (int c = 0; c < t->ncols; c++)
        if (!strcmp(t->cols[c], name))
            return c;
    return -1;
}

const char *lg_table_get(const lg_table_t *t, int r, int c)
{
    return t->cells[(size_t)r * (size_t)t->ncols + (size_t)c];
}

bool lg_table_numeric(const lg_table_t *t, int c)
{
    return t->kind && c >= 0 && c < t->ncols &&
           (t->kind[c] == LG_DB_INT || t->kind[c] == LG_DB_REAL);
}

void lg_table_clear(lg_table_t *t)
{
    for (int c = 0; t->cols && c < t->ncols; c++)
        free(t->cols[c]);
    for (size_t i = 0; t->cells && i < (size_t)t->nrows * (size_t)t->ncols; i++)
        free(t->cells[i]);
    free(t->cols);
    free(t->cells);
    free(t->kind);
    memset(t, 0, sizeof *t);
}

void lg_table_csv(const lg_table_t *t, FILE *out)
{
    /* A column of a number type holds numbers, negative ones too: never guarded. Others (names,
     * labels, figures the SQL formatted as text) are guarded unless they look like a number.
     * Control characters are escaped in both. */
    for (int c = 0; c < t->ncols; c++) {
        lg_csv_write(out, t->cols[c], LG_CSV_TEXT);
        fputc(c + 1 == t->ncols ? '\n' : ',', out);
    }
    for (int r = 0; r < t->nrows; r++)
        for (int c = 0; c < t->ncols; c++) {
            int number = t->kind && t->kind[c] != LG_DB_TEXT;
            lg_csv_write(out, lg_table_get(t, r, c), number ? LG_CSV_NUMBER : LG_CSV_FIGURE);
            fputc(c + 1 == t->ncols ? '\n' : ',', out);
        }
}

/* A cell as JSON, of its column's kind. */
static json_t *s_json_value(const char *s, lg_db_kind_t k)
{
    char *end;
    if (!s)
        return json_null();
    if (k == LG_DB_BOOL)
        return json_boolean(s[0] == 't');
    if (k == LG_DB_INT) {
        long long v = strtoll(s, &end, 10);
        if (end != s && *end == '\0')
            return json_integer(v);
    } else if (k == LG_DB_REAL) {
        double v = strtod(s, &end);
        if (end != s && *end == '\0' && isfinite(v))
            return json_real(v);
    }
    return json_string(s);
}

json_t *lg_table_json_rows(const lg_table_t *t)
{
    json_t *rows = json_array();
    for (int r = 0; rows && r < t->nrows; r++) {
        json_t *o = json_object();
        for (int c = 0; o && c < t->ncols; c++)
            json_object_set_new(
                o, t->cols[c],
                s_json_value(lg_table_get(t, r, c), t->kind ? t->kind[c] : LG_DB_TEXT));
        if (!o || json_array_append_new(rows, o) != 0) {
            json_decref(rows);
            return NULL;
        }
    }
    return rows;
}

void lg_table_print(const lg_table_t *t, lg_format_t fmt, FILE *out)
{
    if (fmt != LG_FMT_JSON) {
        lg_table_csv(t, out);
        return;
    }
    json_t *rows = lg_table_json_rows(t);
    /* ENSURE_ASCII: C1 controls (U+0080..U+009F, which some terminals obey) as \u escapes too */
    json_dumpf(rows, out,
               JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(15) | JSON_ENSURE_ASCII);
    fputc('\n', out);
    json_decref(rows);
}

void lg_tbl_print_result(PGresult *r, lg_format_t fmt, FILE *out)
{
    lg_table_t t;
    if (lg_table_from_result(r, &t) != 0) {
        lg_error("out of memory");
        return;
    }
    lg_table_print(&t, fmt, out);
    lg_table_clear(&t);
}

/* ---- a report's section from a query file ---- */

/* Item k (from 0) of list, items split by sep, white space around them gone, into buf. 1 when
 * there is one, else 0. */
static int s_item(const char *list, char sep, int k, char *buf, size_t len)
{
    for (int i = 0; list; i++) {
        const char *end = strchr(list, sep);
        size_t n = end ? (size_t)(end - list) : strlen(list);
        if (i == k) {
            while (n > 0 && (*list == ' ' || *list == '\t'))
                list++, n--;
            while (n > 0 && (list[n - 1] == ' ' || list[n - 1] == '\t'))
                n--;
            snprintf(buf, len, "%.*s", (int)n, list);
            return 1;
        }
        list = end ? end + 1 : NULL;
    }
    return 0;
}

/* The decimals of column name among figures ("COL N, COL N"), or -1 when it is none. */
static int s_figure(const char *figures, const char *name)
{
    char item[128], col[128];
    int dec;
    for (int k = 0; figures && s_item(figures, ',', k, item, sizeof item); k++)
        if (sscanf(item, "%127s %d", col, &dec) == 2 && strcmp(col, name) == 0)
            return dec;
    return -1;
}

/* 1 when name is one of list ("COL, COL"). */
static int s_listed(const char *list, const char *name)
{
    char item[128];
    for (int k = 0; list && s_item(list, ',', k, item, sizeof item); k++)
        if (strcmp(item, name) == 0)
            return 1;
    return 0;
}

/* Row i's cells as the database wrote them (figures formatted, hidden columns left out). */
static void s_plain_row(const lg_query_t *q, PGresult *r, int i, lg_tbl_t *t)
{
    const char *figures = lg_query_get(q, "figures"), *hide = lg_query_get(q, "hide");
    const char *warn = lg_query_get(q, "warn");
    for (int c = 0; c < lg_db_nfields(r); c++) {
        const char *name = lg_db_fname(r, c);
        int dec = s_figure(figures, name);
        char buf[64];
        if (s_listed(hide, name) || s_listed(warn, name))
            continue;
        if (dec < 0)
            lg_tbl_add(t, 0, "%s", lg_db_get(r, i, c));
        else if (lg_db_isnull(r, i, c))
            lg_tbl_add(t, 0, "-");
        else
            lg_tbl_add(t, 0, "%s",
                       lg_fmt_thousands(buf, sizeof buf, strtod(lg_db_get(r, i, c), NULL), dec));
    }
}

int lg_render_check(const lg_query_t *q, char *err, size_t errlen)
{
    static const char *const known[] = {"title",   "about", "head", "left",  "note",
                                        "figures", "hide",  "warn", "footer"};
    for (int i = 0; i < q->ndirs; i++) {
        size_t k = 0;
        while (k < sizeof known / sizeof known[0] && strcmp(known[k], q->dirs[i].key) != 0)
            k++;
        if (k == sizeof known / sizeof known[0]) {
            snprintf(err, errlen, "%s.sql:%d: unknown directive \"%s\"", q->name, q->dirs[i].line,
                     q->dirs[i].key);
            return LG_EPARSE;
        }
    }
    return 0;
}

/* r's rows (there are some) under q's title, as its directives say. */
static void s_section(const lg_query_t *q, PGresult *r, int md, FILE *out, lg_render_row_fn row,
                      void *arg)
{
    const char *title = lg_query_get(q, "title"), *about = lg_query_get(q, "about");
    const char *head = lg_query_get(q, "head"), *left = lg_query_get(q, "left");
    const char *footer = lg_query_get(q, "footer");
    if (title)
        fprintf(out, "\n%s%s%s%s%s:\n", md ? "**" : "", title, md ? "**" : "", about ? " " : "",
                about ? about : "");
    if (!head) { /* lines, each row's own */
        for (int i = 0; row && i < lg_db_nrows(r); i++)
            row(arg, r, i, NULL);
    } else {
        lg_tbl_t t = {.last_left = lg_query_get(q, "note") != NULL};
        char h[256];
        while (s_item(head, '|', (int)t.ncols, h, sizeof h))
            t.ncols++;
        for (size_t c = 0; c < t.ncols && s_item(head, '|', (int)c, h, sizeof h); c++)
            lg_tbl_add(&t, 0, "%s", h);
        for (int i = 0; i < lg_db_nrows(r); i++) {
            if (row)
                row(arg, r, i, &t);
            else
                s_plain_row(q, r, i, &t);
        }
        lg_tbl_print(&t, md ? LG_FMT_MARKDOWN : LG_FMT_TABLE, 0, left ? strtoul(left, NULL, 10) : 0,
                     out);
        lg_tbl_clear(&t);
    }
    int wc = lg_query_get(q, "warn") ? lg_db_col(r, lg_query_get(q, "warn")) : -1;
    for (int i = 0; wc >= 0 && i < lg_db_nrows(r); i++) { /* said, not only noted */
        char text[2048];
        if (lg_db_get(r, i, wc)[0])
            fprintf(out, "%swarning: %s\n", md ? "\n" : "",
                    lg_esc_text(lg_db_get(r, i, wc), md, text, sizeof text));
    }
    if (footer)
        fprintf(out, "%s%s\n", md ? "\n" : "", footer);
}

int lg_render_section(PGconn *db, const lg_query_t *q, int n, const char *const *params,
                      lg_format_t fmt, FILE *out, lg_render_row_fn row, void *arg, PGresult **res,
                      char *err, size_t errlen)
{
    if (res)
        *res = NULL;
    int rc = lg_render_check(q, err, errlen);
    char *sql = rc ? NULL : lg_query_sql(q, NULL);
    if (!rc && !sql) {
        snprintf(err, errlen, "out of memory");
        rc = -ENOMEM;
    }
    PGresult *r = NULL;
    if (!rc)
        rc = lg_db_exec(db, sql, n, params, &r, err, errlen);
    free(sql);
    if (rc)
        return rc;
    if (lg_db_nrows(r) > 0)
        s_section(q, r, fmt == LG_FMT_MARKDOWN, out, row, arg);
    if (res)
        *res = r;
    else
        lg_db_result_destroy(&r);
    return 0;
}
