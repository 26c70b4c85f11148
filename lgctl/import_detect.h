/* import_detect.h: "lgctl import FILE...": what a results file is (fio JSON of any version,
 * lg's results CSV, DiskSpd XML or text, sysbench or pgbench output), told from its content by
 * one table of formats, each with its sniffer, its check and its importer. */
#ifndef LG_IMPORT_DETECT_H
#define LG_IMPORT_DETECT_H

#include "db.h"
#include <stddef.h>
#include <stdint.h>

typedef struct {
    const char *name; /* "fio JSON", "DiskSpd XML", ... as messages name it */
    /* 1 when text (its byte-order mark removed) is of this format, else 0. */
    int (*sniff)(const char *text, size_t len);
    /* Read path as the import would, storing nothing: 0, or an error with err saying why
     * (said after "recognised as NAME" unless it says so itself). NULL: nothing to check beyond the
     * sniff. */
    int (*check)(const char *path, const char *text, size_t len, char *err, size_t errlen);
    /* Store files[0..n), all of this format, as one campaign (labels and name as for lgctl
     * import; either may be NULL); *count: what was stored (files, figures), for the message.
     * NULL: recognised but not importable by this build (refusal says why). */
    int (*store)(PGconn *db, const char *const *files, size_t n, const char *labels,
                 const char *name, uint64_t *campaign_id, size_t *count, char *err, size_t errlen);
    const char *count_what; /* "file", "figure": what *count counts */
    const char *refusal;    /* why a file of this format is refused when store is NULL */
} lg_import_format_t;

/* The formats, in the order they are tried; *n set to their number. */
const lg_import_format_t *lg_import_formats(size_t *n);

/* The format of text (a byte-order mark at its start is skipped), or NULL when none. */
const lg_import_format_t *lg_import_detect(const char *text, size_t len);

/* Read path, tell its format and check it, storing nothing. 0 with *fmt set; else an error with
 * err saying what the file was recognised as (or that it was not) and why it is refused. */
int lg_import_probe(const char *path, const lg_import_format_t **fmt, char *err, size_t errlen);

#endif
