/* import_int.h: inside lgctl's fio import: the final reports of one fio output file
 * (import_read.c), stored by import.c. */
#ifndef LG_IMPORT_INT_H
#define LG_IMPORT_INT_H

#include <stddef.h>

#include "import.h"
#include "lg_fio.h"

typedef struct {
    char *text; /* the report, verbatim */
    size_t len;
    lg_fio_report_t *rep; /* parsed */
} fio_final_t;

typedef struct {
    fio_final_t *v;
    size_t n;
} fio_finals_t;

/* The final reports of the fio output at path, in file order, each parsed: one for a plain
 * json/json+ output or a --status-interval stream (its last object), one per run when several
 * runs' outputs were appended to one file. Text before, between and after the JSON, and a
 * byte-order mark, are skipped. On error nothing is left in *out and err names the file, the
 * report, the fio version when it says one, and why. Free with lg__import_finals_clear. */
int lg__import_read(const char *path, fio_finals_t *out, char *err, size_t errlen);
/* The same from text already read (len bytes at buf; path names it in messages). */
int lg__import_read_text(const char *path, const char *buf, size_t len, fio_finals_t *out,
                         char *err, size_t errlen);
/* Frees what f holds (not f itself) and zeroes it. */
void lg__import_finals_clear(fio_finals_t *f);

#endif
