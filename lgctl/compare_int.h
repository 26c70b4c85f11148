/* compare_int.h: inside lgctl compare, compare --sweep and rank (compare.c, sweep.c, rank.c):
 * the selection and the cells they share (compare_sel.c). */
#ifndef LG_COMPARE_INT_H
#define LG_COMPARE_INT_H

#include <stddef.h>

#include "compare.h"
#include "db.h"
#include "render.h"

/* The selection as the queries' parameters. */
typedef struct {
    char *where;            /* {"k": "v"} */
    char *campaigns;        /* ["a", "b"] or NULL */
    char *metrics;          /* ["iops"] */
    char *ignore;           /* ["build"] or NULL */
    double threshold;       /* percent */
    char threshold_sql[32]; /* the same, as the query's parameter */
} lg__cmp_sel_t;

/* o's selection into *s (free what it holds with lg__cmp_sel_clear); LG_EPARSE with err for a
 * malformed one. */
int lg__cmp_sel(const lg_compare_opts_t *o, lg__cmp_sel_t *s, char *err, size_t errlen);
/* Frees what s holds (not s itself) and zeroes it. */
void lg__cmp_sel_clear(lg__cmp_sel_t *s);
/* Like lg_db_exec, but an invalid_parameter_value raised by lg.check_args / lg.compare (unknown
 * dimension, metric, baseline) is the caller's usage error: LG_EPARSE, message and hint. Caller
 * owns *out. */
int lg__cmp_query(PGconn *db, const char *sql, int n, const char *const *params, PGresult **out,
                  char *err, size_t errlen);
/* Every name in the selection exists (lg.check_args): errors before any figure is read. */
int lg__cmp_check(PGconn *db, const char *dimension, const lg__cmp_sel_t *s, char *err,
                  size_t errlen);
/* Nothing matched: say which filter matched nothing and what there is instead. Always returns
 * LG_ENOTFOUND (exit 1) with err set. */
int lg__cmp_no_match(PGconn *db, const lg__cmp_sel_t *s, const char *metric, char *err,
                     size_t errlen);

/* A select list from an X-macro table of (column id, name, SQL expression): each expression
 * "AS" its name, and a row is read by name: the ids index the columns lg_db_cols finds once per
 * result (never a position). Returns buf. */
const char *lg__cmp_select_list(const char *const *exprs, size_t n, char *buf, size_t len);
#define COL_ENUM(id, name, expr) id,
#define COL_NAME(id, name, expr) name,
#define COL_EXPR(id, name, expr) expr " AS " name,
/* The campaigns parameter $N (a JSON array or NULL) as text[]. */
#define CAMPAIGNS_SQL(n)                                                                           \
    "CASE WHEN $" n "::jsonb IS NOT NULL THEN ARRAY(SELECT jsonb_array_elements_text($" n          \
    "::jsonb)) END"

/* A non-negative integer column (n, threads, qd, rank): strictly parsed; 0 if not one. */
int lg__cmp_int(PGresult *r, int row, int col);
/* The value, NULL for SQL's NULL (col from lg_db_col: -1 reads as NULL). */
const char *lg__cmp_null(PGresult *r, int row, int col);
/* A boolean column: true. */
int lg__cmp_short(PGresult *r, int row, int col);
/* A figure for people: IOPS to 0.1, MB/s to 0.01, ms to 0.001; "missing" for v NULL. */
void lg__cmp_fig(char *buf, size_t len, const char *unit, const char *v);
/* The half-width of a row's 95% interval as a figure ("210.3", the figure's own precision), or
 * NULL when it has none. */
const char *lg__cmp_half(char *buf, size_t len, const char *unit, const char *lo, const char *hi);
/* A p-value as people read it: two significant digits, "<0.0001" below that. */
void lg__cmp_p(char *buf, size_t len, const char *p);
/* The load of a row: "16T8Q" (threads x queue depth per agent), for an application benchmark's
 * transactions (direction txn, qd 1) "16 clients"; "-" when the figures do not say. */
void lg__cmp_load_cell(lg_tbl_t *t, const char *dir, const char *threads, const char *qd);
/* After a change written into buf (o bytes): in markdown the difference's CI and p-value; an
 * untested difference (no CI on one side) gets " *". Returns 1 for that mark. */
int lg__cmp_ci_suffix(char *buf, size_t len, size_t o, int md, const char *p, const char *lo,
                      const char *hi, const char *status);
/* A value cell: the figure, "±" the half-width of its 95% interval when it has one, and n when
 * it is a mean: "10000.0 ±745.2 (n=3)"; " !" for a run far below its queue depth. */
void lg__cmp_value_cell(lg_tbl_t *t, int tone, const char *unit, PGresult *r, int row, int ccol,
                        int lcol, int hcol, int ncol, int qd_short);
/* The heading's account of the noise (rank: of the gap to the leader). */
void lg__cmp_noise_note(char *buf, size_t len, double threshold, int rank);
/* The note under a table with an untested difference ("*"). */
extern const char lg__cmp_untested_note[];

#endif
