/* report_int.h: the parts of lgctl report in files of their own. report_query.c: lgctl's
 * queries (queries/NAME.sql) run by name. report_configs.c: what the report says of the SUT
 * configs above its table (the labels they all share, each config by what sets it apart, the
 * settings the operator's read-back check read). */
#ifndef LG_REPORT_INT_H
#define LG_REPORT_INT_H

#include <stddef.h>
#include <stdio.h>

#include "db.h"
#include "query.h"
#include "render.h"

/* The query files compiled into lgctl (queries/NAME.sql; lgctl_queries.c, made by the build). */
extern const lg_query_src_t lg_lgctl_queries[];
/* Run lgctl's query name, the parts named in parts kept (a NULL-ended list, or NULL), with n
 * parameters, as lg_db_exec does (*out the caller's to destroy). 0 or an LG_E* code with err. */
int lg__query_exec(PGconn *db, const char *name, const char *const *parts, int n,
                   const char *const *params, PGresult **out, char *err, size_t errlen);
/* A report's section from lgctl's query name, of campaign id cid (its $1), in text or Markdown
 * (lg_render_section: row(arg, ...) makes a row's cells or lines; *res, when res is not NULL,
 * the result, the caller's). 0 or an LG_E* code with err. */
int lg__query_section(PGconn *db, const char *name, const char *cid, int md, FILE *out,
                      lg_render_row_fn row, void *arg, PGresult **res, char *err, size_t errlen);
/* A campaign asked for that is not there: "no campaign WHAT; campaigns: a, b" (the newest names)
 * into err, or none when there are no campaigns at all. Returns LG_ENOTFOUND. */
int lg__report_none(PGconn *db, const char *what, const char *none, char *err, size_t errlen);

/* The labels that every SUT config the campaign measured has, with the same value, as a JSON
 * object into common ("{}" with one config or none in common). Returns 0 or an LG_E* code. */
int lg__report_common_labels(PGconn *db, const char *cid, char *common, size_t len, char *err,
                             size_t errlen);
/* "SUT configs: a; b": each config once in the order the runs r ran (column sut_col: without
 * the labels in common, which a line "In every config: ..." says once before it). */
void lg__report_sut_line(PGconn *db, const PGresult *r, int sut_col, int nconfigs,
                         const char *common, int md, FILE *out);
/* What the operator's read-back check read of each config before its first run, beside the
 * config's labels; nothing when the campaign had none. Returns 0 or an LG_E* code. */
int lg__report_checks(PGconn *db, const char *cid, int md, FILE *out, char *err, size_t errlen);

#endif
