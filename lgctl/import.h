/* import.h: "lgctl import fio-json": results made by a bare fio run (--output-format=json or
 * json+, also the client_stats form of fio's client mode) stored as a campaign, so that
 * hand-made runs join comparisons. */
#ifndef LG_IMPORT_H
#define LG_IMPORT_H

#include <stddef.h>
#include <stdint.h>

#include "db.h"

/* Store files[0..n) as one campaign named name (NULL: "import-" and the first file's name),
 * one run per file, with SUT labels "k=v,k=v" (may be NULL). All or nothing: on any error
 * (unreadable, truncated or non-fio JSON) nothing is stored and err names the file and why.
 * Returns 0 with *campaign_id set, or a negative error. */
int lg_import_fio_json(PGconn *db, const char *const *files, size_t n, const char *labels,
                       const char *name, uint64_t *campaign_id, char *err, size_t errlen);

/* Read path as import would, storing nothing: 0, or an error with err naming the file, the fio
 * version when it says one, and why it cannot be imported. */
int lg_import_fio_check(const char *path, char *err, size_t errlen);

#endif
