/* import_results.h: "lgctl import results FILE.csv": published or hand-collected figures in
 * long form (one figure per row) stored as an imported campaign, so they compare like any other
 * campaign (lg.imported_figure, lg.v_metric). */
#ifndef LG_IMPORT_RESULTS_H
#define LG_IMPORT_RESULTS_H

#include <stddef.h>
#include <stdint.h>

#include "db.h"

/* Check the CSV text (header row; profile, direction, metric, value and unit required;
 * protocol, threads and qd optional; every other column a SUT label) and turn it into a JSON
 * array of figures in their metric's own unit. path only names the file in messages. On bad
 * rows returns LG_EPARSE with every problem, one per line "FILE:LINE: what", in err.
 * Caller owns *rows_json (free). */
int lg_results_csv_parse(const char *path, const char *text, size_t len, char **rows_json,
                         size_t *nrows, char *err, size_t errlen);

/* Store path as one campaign named name (NULL: "import-" and the file's base name). All or
 * nothing: on any bad row nothing is stored and err lists every bad row with its line number
 * (LG_EPARSE); a database failure returns LG_EDB. Returns 0 with *campaign_id and *nrows set. */
int lg_import_results_csv(PGconn *db, const char *path, const char *name, uint64_t *campaign_id,
                          size_t *nrows, char *err, size_t errlen);

#endif
