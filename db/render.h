/* render.h: db/'s renderer, how the command-line programs print what queries find (as psql's
 * print.c is psql's): text cells a program made, aligned as a table (coloured on a terminal), as
 * CSV or as Markdown (lg_tbl_t: lgctl's reports and comparisons); and a query's rows read whole
 * as text with each column's kind (lg_table_t: lg-export's charts and files), written as CSV or
 * as JSON whose values keep their SQL types (lgctl's --format csv and json, lg-export's .csv and
 * .json). Text from the database is escaped for where it goes (lg_esc.h). */
#ifndef LG_RENDER_H
#define LG_RENDER_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "db.h"
#include "query.h"

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
/* Every row of r as lg_table_print writes them (CSV or JSON). */
void lg_tbl_print_result(PGresult *r, lg_format_t fmt, FILE *out);

/* A query's rows read whole, as text: cells[row * ncols + col], NULL for SQL NULL; kind[col] its
 * column's kind (lg_db_fkind: a boolean, an integer, a real number or text). The caller's struct;
 * what it holds is its own (lg_table_clear). */
typedef struct {
    int ncols, nrows;
    char **cols;
    char **cells;
    lg_db_kind_t *kind;
} lg_table_t;

/* r's columns and rows into *t (emptied first). 0, or -ENOMEM (t then cleared). */
int lg_table_from_result(const PGresult *r, lg_table_t *t);
/* Column index by name, -1 when absent. */
int lg_table_col(const lg_table_t *t, const char *name);
/* Cell (r, c): its text, NULL for SQL NULL; owned by t. */
const char *lg_table_get(const lg_table_t *t, int r, int c);
/* true when column c holds numbers to chart or sum (an integer or a real; not a boolean). */
bool lg_table_numeric(const lg_table_t *t, int c);
/* Frees what t holds (not t itself) and zeroes it. */
void lg_table_clear(lg_table_t *t);
/* t as CSV: a header of its columns' names, then its rows; control characters escaped, and text
 * a spreadsheet would run as a formula guarded (never a value of a column of a number type, nor
 * text that looks like a number: a negative number stays one); NULL an empty field. */
void lg_table_csv(const lg_table_t *t, FILE *out);
/* t's rows as a JSON array of objects, a member per column in order, each value of its SQL type:
 * a boolean, an integer, a real number (text that is none, as NaN, stays a string), a string, or
 * null. Caller owns the result (json_decref); NULL when out of memory. */
json_t *lg_table_json_rows(const lg_table_t *t);
/* t as CSV (lg_table_csv) or, for LG_FMT_JSON, its rows (lg_table_json_rows) indented, every
 * character outside ASCII escaped (C1 controls, which some terminals obey, among them). */
void lg_table_print(const lg_table_t *t, lg_format_t fmt, FILE *out);

/* ---- a report's section from a query file (lgctl report) ---- */

/* A row's cells: lg_tbl_add each into t (as many as the section's head names); t NULL for a
 * section of lines (no head), which prints its own. */
typedef void (*lg_render_row_fn)(void *arg, PGresult *r, int row, lg_tbl_t *t);

/* Runs query q (its SQL, no parts, with n parameters) and, when it finds rows, prints them as a
 * section of a report in text or Markdown (fmt), as its directives say:
 *   -- title: TEXT            the section's heading line (bold in Markdown), after a blank line
 *   -- about: TEXT            what follows the title on its line (the line ends with ':')
 *   -- head: A | B | ...      the table's column headings; without: the section is lines
 *   -- left: N                the first N columns are text (left-aligned), the others figures
 *   -- note                   the last column is text too (a note), however long
 *   -- figures: COL N, ...    columns shown with thousands separators and N decimals, NULL "-"
 *   -- hide: COL, ...         columns for the program, not shown
 *   -- warn: COL              a column not shown: each row's text there (NULL or empty: none)
 *                             is said under the table as a line "warning: TEXT"
 *   -- footer: TEXT           a line under the table (and its warnings)
 * A row's cells are row()'s; without row(), each column's value but the hidden ones, the figures
 * formatted, the others as the database wrote them (NULL empty). Returns 0 with *res the result
 * (the caller's to read further and destroy; res NULL: destroyed here), or lg_db_exec's error
 * with err (an unknown directive in q's header: LG_EPARSE, the program's mistake). */
int lg_render_section(PGconn *db, const lg_query_t *q, int n, const char *const *params,
                      lg_format_t fmt, FILE *out, lg_render_row_fn row, void *arg, PGresult **res,
                      char *err, size_t errlen);
/* 0 when q's header holds only the directives above, else LG_EPARSE with "NAME.sql:LINE: unknown
 * directive ..." in err (a typo: lg_render_section refuses it too). */
int lg_render_check(const lg_query_t *q, char *err, size_t errlen);

#endif
