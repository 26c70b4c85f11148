/* export_run.h: "lgctl export-run": one run's interval samples and final results, as CSV (one
 * table, a "record" column telling samples from results) or as one JSON document. */
#ifndef LG_EXPORT_RUN_H
#define LG_EXPORT_RUN_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "db.h"

/* format: "csv" or "json". Returns 0, LG_ENOTFOUND (no such run), LG_EPARSE (format) or
 * LG_EDB, with the reason in err. */
int lg_export_run(PGconn *db, uint64_t run_id, const char *format, FILE *out, char *err,
                  size_t errlen);

#endif
