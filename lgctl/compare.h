/* compare.h: "lgctl compare", "lgctl compare --sweep" and "lgctl rank": the comparison engine's
 * front end. The comparison itself is SQL (lg.compare, lg.sweep, lg.rank in
 * schema/007_compare.sql); this module passes the selection and formats the rows as an aligned
 * table (coloured on a terminal), CSV, JSON or Markdown. */
#ifndef LG_COMPARE_H
#define LG_COMPARE_H

#include <stddef.h>
#include <stdio.h>

#include "db.h"
#include "render.h"

typedef struct {
    const char *dimension; /* --by: a SUT label or a run field; NULL for rank without --by */
    const char *baseline;  /* --baseline; NULL: the first value in order */
    const char *metrics;   /* --metric "iops,lat_avg_ms"; NULL: iops */
    const char *where;     /* --where "k=v,..."; NULL: everything */
    const char *campaigns; /* --campaign "name-or-id,..."; NULL: all campaigns */
    const char *ignore;    /* --ignore "label,...": left out of what pairs figures; NULL: none */
    const char *threshold; /* --threshold PCT: smaller differences are "~"; NULL: 0 */
    lg_format_t format;
    int colour; /* better/worse in colour (table format only) */
} lg_compare_opts_t;

/* The three commands. Each returns 0, LG_EPARSE for a bad selection (unknown dimension or
 * metric, a baseline without figures, a malformed --where: the caller's usage error), or
 * LG_EDB; err says what and where. Results go to out. */
int lg_compare_print(PGconn *db, const lg_compare_opts_t *o, FILE *out, char *err, size_t errlen);
int lg_sweep_print(PGconn *db, const lg_compare_opts_t *o, FILE *out, char *err, size_t errlen);
int lg_rank_print(PGconn *db, const lg_compare_opts_t *o, FILE *out, char *err, size_t errlen);

#endif
