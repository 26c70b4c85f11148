/* table.h: how lgctl prints what it finds: text cells aligned as a table (coloured on a
 * terminal), CSV or Markdown, and a query result as CSV or JSON with typed values. */
#ifndef LG_TABLE_H
#define LG_TABLE_H

#include <stddef.h>
#include <stdio.h>

#include "db.h"

typedef enum { LG_FMT_TABLE, LG_FMT_CSV, LG_FMT_JSON, LG_FMT_MARKDOWN } lg_format_t;

/* Parse a --format value ("table", "csv", "json", "markdown"). Returns 0 or LG_EPARSE. */
int lg_format_parse(const char *s, lg_format_t *out);

/* Cells row by row, ncols to a row; the first row is the header. */
typedef struct {
    size_t ncols, n, cap;
    char **cell;
    signed char *tone; /* 1 better (green), -1 worse (red), 2 missing (yellow), 0 plain */
    int last_left;     /* the last column is text (a note), left-aligned whatever nleft says */
} lg_tbl_t;

/* The next cell (printf-style), its control characters escaped (\x1b), since names and labels
 * from the database may hold them. */
void lg_tbl_add(lg_tbl_t *t, int tone, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Frees the cells (not t itself) and zeroes t: empty, ready for lg_tbl_add again. */
void lg_tbl_clear(lg_tbl_t *t);
/* Columns before nleft are text (left-aligned), the rest figures (right-aligned); JSON is not a
 * format of this function (see lg_tbl_print_result). Cells were escaped by lg_tbl_add; in CSV
 * the header and text cells a spreadsheet would run as formulas get a leading ' (figures that
 * look like numbers are left alone); in Markdown every cell is lg_md_esc'd (no HTML of its own,
 * | kept in its cell). */
void lg_tbl_print(const lg_tbl_t *t, lg_format_t fmt, int colour, size_t nleft, FILE *out);
/* Every row of r as CSV (a header of column names; control characters escaped, and text a
 * spreadsheet would run as a formula guarded, never a column of a number type) or as a JSON
 * array of objects whose values keep their SQL types (booleans, integers, floats, NULL). */
void lg_tbl_print_result(PGresult *r, lg_format_t fmt, FILE *out);

#endif
