/* table.c: output of lgctl's tables (compare, rank, sweep, report): text cells printed aligned
 * (coloured on a terminal), as CSV or as Markdown, and a query result as CSV or typed JSON.
 * Control characters in cells are escaped, CSV text cells guarded against formulas and Markdown
 * cells kept from being markup (lg_esc.h). */
#include "table.h"

#include <jansson.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "lg_error.h"
#include "lg_esc.h"

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

/* ---- generic output of a query result (rank and sweep in csv and json) ---- */

void lg_tbl_print_result(PGresult *r, lg_format_t fmt, FILE *out)
{
    int nf = lg_db_nfields(r);
    if (fmt == LG_FMT_CSV) {
        /* A column of a number type holds numbers, negative ones too: never guarded. Others
         * (names, labels, figures the SQL formatted as text) are guarded unless they look like
         * a number. Control characters are escaped in both. */
        for (int c = 0; c < nf; c++) {
            lg_csv_write(out, lg_db_fname(r, c), LG_CSV_TEXT);
            fputc(c + 1 == nf ? '\n' : ',', out);
        }
        for (int i = 0; i < lg_db_nrows(r); i++)
            for (int c = 0; c < nf; c++) {
                lg_csv_write(out, lg_db_get(r, i, c),
                             lg_db_fkind(r, c) != LG_DB_TEXT ? LG_CSV_NUMBER : LG_CSV_FIGURE);
                fputc(c + 1 == nf ? '\n' : ',', out);
            }
        return;
    }
    json_t *rows = json_array();
    for (int i = 0; i < lg_db_nrows(r); i++) {
        json_t *o = json_object();
        for (int c = 0; c < nf; c++) {
            lg_db_kind_t k = lg_db_fkind(r, c);
            const char *s = lg_db_get(r, i, c);
            json_t *v = lg_db_isnull(r, i, c) ? json_null()
                        : k == LG_DB_BOOL     ? json_boolean(s[0] == 't')
                        : k == LG_DB_INT      ? json_integer(strtoll(s, NULL, 10))
                        : k == LG_DB_REAL     ? json_real(strtod(s, NULL))
                                              : json_string(s);
            json_object_set_new(o, lg_db_fname(r, c), v);
        }
        json_array_append_new(rows, o);
    }
    /* ENSURE_ASCII: C1 controls (U+0080..U+009F, which some terminals obey) as \u escapes too */
    json_dumpf(rows, out,
               JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(15) | JSON_ENSURE_ASCII);
    fputc('\n', out);
    json_decref(rows);
}
