/* report_int.h: the parts of lgctl report in files of their own. report_configs.c: what the
 * report says of the SUT configs above its table (the labels they all share, each config by what
 * sets it apart, the settings the operator's read-back check read). */
#ifndef LG_REPORT_INT_H
#define LG_REPORT_INT_H

#include <stddef.h>
#include <stdio.h>

#include "db.h"

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
