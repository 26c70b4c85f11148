/* import_app.h: "lgctl import app": sysbench OLTP and pgbench output made elsewhere, stored in
 * the application tables lg's own application runs fill (lg.run with app set, lg.app_result),
 * read by the same parser as lg's own runs (core/lg_app.c). */
#ifndef LG_IMPORT_APP_H
#define LG_IMPORT_APP_H

#include "db.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lg_app.h"

/* Whether buf[0..len) is sysbench or pgbench output; sets *format_name to "sysbench" or
 * "pgbench" when it is. A UTF-8 byte order mark is allowed. */
bool lg_import_app_sniff(const char *buf, size_t len, const char **format_name);

/* One file's output read: which tool, and its final figures. text is UTF-8 (a byte order mark
 * allowed). Returns 0, or LG_EPARSE with err naming the tool recognised and what the application
 * tables need that the output lacks. */
int lg_import_app_parse(const char *text, size_t len, lg_app_total_t *out, char *err,
                        size_t errlen);

/* Store files[0..n) as one campaign named name (NULL: "import-" and the first file's name), one
 * application run per file (its agent "import"), with SUT labels "k=v,k=v" (may be NULL). All or
 * nothing, in one transaction; err names the file, the tool and why. Returns 0 with
 * *campaign_id set, or a negative error. */
int lg_import_app(PGconn *db, const char *const *files, size_t n, const char *labels,
                  const char *name, uint64_t *campaign_id, char *err, size_t errlen);

#endif
