/* import_common.h: what the importers of others' results (DiskSpd, sysbench, pgbench) share:
 * the campaign that holds an import, its SUT labels, and the agent a file's host becomes. */
#ifndef LG_IMPORT_COMMON_H
#define LG_IMPORT_COMMON_H

#include "db.h"
#include <stddef.h>
#include <stdint.h>

/* Read a whole file (at most max bytes). Caller frees *buf (NUL-terminated). Returns 0, or a
 * negative error with err naming the file. */
int lg__import_read_file(const char *path, size_t max, char **buf, size_t *len, char *err,
                         size_t errlen);

/* The SUT labels "k=v,k=v" (NULL: none) as a JSON object's text (*out, caller frees); LG_EPARSE
 * with "--labels" in err for an item that is not KEY=VALUE. */
int lg__import_labels_json(const char *labels, char **out, char *err, size_t errlen);

/* BEGIN, the SUT config of labels ("k=v,k=v", may be NULL) and the campaign (named name, else
 * "import-" and the first file's base name) recording tool and the files; sets cid and sut (the
 * ids as text, 24 bytes each). On error the transaction is still open: end it with lg_db_end.
 * LG_EPARSE with "--labels" in err for labels that are not KEY=VALUE. */
int lg__import_begin(PGconn *db, const char *tool, const char *const *files, size_t n,
                     const char *labels, const char *name, char *cid, char *sut, char *err,
                     size_t errlen);

/* The agent named name ("import:HOST" by convention), made if new; facts (JSON text, may be
 * NULL) are merged into its facts. Returns its id, or 0 with err set. */
uint64_t lg__import_agent(PGconn *db, const char *name, const char *facts, char *err,
                          size_t errlen);

/* The profile name of a file: its base name without extension. */
void lg__import_profile(const char *path, char *out, size_t outlen);

#endif
