/* table.c: output of lgctl's tables (compare, rank, sweep, report): text cells printed aligned
 * (coloured on a terminal), as CSV or as Markdown, and a query result as CSV or typed JSON. */
#include "table.h"

#include <jansson.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "lg_error.h"

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
    t->cell[t->n] = strdup(buf);
    if (!t->cell[t->n])
        abort();
    t->tone[t->n++] = (signed char)tone;
}

void lg_tbl_free(lg_tbl_t *t)
{
    for (size_t i = 0; i < t->n; i++)
        free(t->cell[i]);
    free(t->cell);
    free(t->tone);
    memset(t, 0, sizeof *t);
}

void lg_csv_field(FILE *out, const char *s)
{
    if (!strpbrk(s, ",\"\n\r")) {
        fputs(s, out);
        return;
    }
    fputc('"', out);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', out);
        fputc(*s, out);
    }
    fputc('"', out);
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
        for (size_t r = 0; r < nrows; r++)
            for (size_t c = 0; c < t->ncols; c++) {
                lg_csv_field(out, t->cell[r * t->ncols + c]);
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
                for (const char *p = s; *p; p++)
                    fputs(*p == '|' ? "\\|" : (char[]){*p, 0}, out);
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

/* ---- generic output of a query result (rank and sweep in csv and json) ---- */

void lg_tbl_print_result(PGresult *r, lg_format_t fmt, FILE *out)
{
    int nf = PQnfields(r);
    if (fmt == LG_FMT_CSV) {
        lg_tbl_t t = {.ncols = (size_t)nf};
        for (int c = 0; c < nf; c++)
            lg_tbl_add(&t, 0, "%s", PQfname(r, c));
        for (int i = 0; i < PQntuples(r); i++)
            for (int c = 0; c < nf; c++)
                lg_tbl_add(&t, 0, "%s", PQgetvalue(r, i, c));
        lg_tbl_print(&t, LG_FMT_CSV, 0, 0, out);
        lg_tbl_free(&t);
        return;
    }
    json_t *rows = json_array();
    for (int i = 0; i < PQntuples(r); i++) {
        json_t *o = json_object();
        for (int c = 0; c < nf; c++) {
            Oid t = PQftype(r, c); /* int4, int8, float8, numeric */
            json_t *v = PQgetisnull(r, i, c) ? json_null()
                        : t == 16            ? json_boolean(PQgetvalue(r, i, c)[0] == 't')
                        : t == 23 || t == 20 ? json_integer(strtoll(PQgetvalue(r, i, c), NULL, 10))
                        : t == 701 || t == 1700 ? json_real(strtod(PQgetvalue(r, i, c), NULL))
                                                : json_string(PQgetvalue(r, i, c));
            json_object_set_new(o, PQfname(r, c), v);
        }
        json_array_append_new(rows, o);
    }
    json_dumpf(rows, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(15));
    fputc('\n', out);
    json_decref(rows);
}

