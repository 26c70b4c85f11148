/* row.h: one row the store read, by column name, as plain strings. The store makes it of a
 * PGresult row (lg_row_from_pg, db.h); unit tests write it by hand. So the scheduler reads rows
 * without libpq. */
#ifndef LG_ROW_H
#define LG_ROW_H

#include <stddef.h>
#include <stdint.h>

#define LG_ROW_MAX_COLS 64

typedef struct {
    size_t n;
    char *col[LG_ROW_MAX_COLS];
    char *val[LG_ROW_MAX_COLS]; /* NULL: SQL NULL */
} lg_row_t;

/* A new empty row; NULL on allocation failure. */
lg_row_t *lg_row_new(void);
/* Set col to val (copied; NULL for SQL NULL). Returns 0 or -ENOMEM. */
int lg_row_set(lg_row_t *r, const char *col, const char *val);
/* The value of col: "" when it is NULL or not in the row. */
const char *lg_row_get(const lg_row_t *r, const char *col);
/* Is col NULL or absent? */
int lg_row_null(const lg_row_t *r, const char *col);
uint64_t lg_row_u64(const lg_row_t *r, const char *col);
uint32_t lg_row_u32(const lg_row_t *r, const char *col);
/* Free the row *self_p and set *self_p to NULL; NULL or *NULL: nothing. */
void lg_row_destroy(lg_row_t **self_p);

#endif
