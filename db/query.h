/* query.h: a query file, as lg-export's charts (web-export/queries/) and lgctl's report
 * (lgctl/queries/) are written: a header of directives, then SQL.
 *
 *   -- chart: hbar
 *   -- title: 4K random IOPS
 *   -- lower-is-better
 *   SELECT ...
 *
 * The header is the file's first lines that are comments or blank: a directive is "-- KEY: VALUE"
 * or "-- KEY" (a flag); "--", "-- ---", "-- #..." and words without a colon ("-- what this
 * shows") are prose. What a directive means is its reader's (web-export/chart.c's charts, db/'s
 * renderer's report sections, render.h). The header's lines stay as blank lines of the SQL, so a
 * line the server names is the file's. In the SQL, :campaign (outside strings, quoted names,
 * comments and :: casts) is bound as ($1::text); and the lines between "--+ NAME" and "--+" are
 * a part, kept only when the caller asks for NAME (lg_query_sql), so that one file can hold a
 * statement whose columns vary (lgctl's runs, with application columns or without). */
#ifndef LG_QUERY_H
#define LG_QUERY_H

#include <stdbool.h>
#include <stddef.h>

typedef struct {
    char *key;
    char *value; /* NULL: a flag ("-- lower-is-better") */
    int line;    /* of the file, from 1 */
} lg_query_dir_t;

/* A query file read: the caller's struct, what it holds its own (lg_query_clear). */
typedef struct {
    char name[256];       /* the file's name without its folder and ".sql" */
    lg_query_dir_t *dirs; /* the directives, in the header's order */
    int ndirs;
    int lines;          /* the file's lines */
    char *sql;          /* the SQL (header lines blank, :campaign bound, parts as written) */
    bool uses_campaign; /* :campaign was there: the statement takes $1 */
} lg_query_t;

/* text (the file's content; path names it in messages and gives q->name) read into *q, emptied
 * first. 0, or -1 with "PATH:LINE: message" in err (a part not ended, out of memory), q then
 * cleared. A file of directives and no SQL is read (its reader says what it lacks first):
 * lg_query_blank tells. */
int lg_query_parse(const char *path, const char *text, lg_query_t *q, char *err, size_t errlen);
/* The same from the file at path ("PATH: could not open: ..." when it cannot be read). */
int lg_query_read(const char *path, lg_query_t *q, char *err, size_t errlen);
/* true when q has no SQL after its directives. */
bool lg_query_blank(const lg_query_t *q);
/* The value of q's directive key ("" for a flag), or NULL when its header has none. */
const char *lg_query_get(const lg_query_t *q, const char *key);
/* q's SQL with the parts whose names are in parts (a NULL-ended list; NULL: none) kept and the
 * others blank (their lines stay, empty). Caller frees; NULL when out of memory. */
char *lg_query_sql(const lg_query_t *q, const char *const *parts);
/* Frees what q holds (not q itself) and zeroes it. */
void lg_query_clear(lg_query_t *q);

/* Query files compiled into a program (db/embed_queries.cmake): each file's name (without
 * ".sql") and text; a NULL name ends the table. */
typedef struct {
    const char *name, *text;
} lg_query_src_t;
/* The query named name of set parsed into *q. 0, or -1 with err (none of that name, or one that
 * does not parse: the build's mistake, said as such). */
int lg_query_load(const lg_query_src_t *set, const char *name, lg_query_t *q, char *err,
                  size_t errlen);

/* Internal, for tests: sql with :campaign made ($1::text), *used whether it was there. Caller
 * owns the result; NULL when out of memory. */
char *lg__bind_campaign(const char *sql, bool *used);

#endif
