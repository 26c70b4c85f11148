/* row.c: see row.h. */
#include "row.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

lg_row_t *lg_row_new(void)
{
    return calloc(1, sizeof(lg_row_t));
}

int lg_row_set(lg_row_t *r, const char *col, const char *val)
{
    size_t i = 0;
    while (i < r->n && strcmp(r->col[i], col) != 0)
        i++;
    if (i == LG_ROW_MAX_COLS)
        return -ENOMEM;
    char *v = val ? strdup(val) : NULL;
    if (val && !v)
        return -ENOMEM;
    if (i == r->n) {
        if (!(r->col[i] = strdup(col))) {
            free(v);
            return -ENOMEM;
        }
        r->val[i] = NULL;
        r->n++;
    }
    free(r->val[i]);
    r->val[i] = v;
    return 0;
}

static const char *s_find(const lg_row_t *r, const char *col)
{
    for (size_t i = 0; r && i < r->n; i++)
        if (!strcmp(r->col[i], col))
            return r->val[i];
    return NULL;
}

const char *lg_row_get(const lg_row_t *r, const char *col)
{
    const char *v = s_find(r, col);
    return v ? v : "";
}

int lg_row_null(const lg_row_t *r, const char *col)
{
    return s_find(r, col) == NULL;
}

uint64_t lg_row_u64(const lg_row_t *r, const char *col)
{
    return strtoull(lg_row_get(r, col), NULL, 10);
}

uint32_t lg_row_u32(const lg_row_t *r, const char *col)
{
    return (uint32_t)strtoul(lg_row_get(r, col), NULL, 10);
}

void lg_row_destroy(lg_row_t **self_p)
{
    lg_row_t *r = self_p ? *self_p : NULL;
    if (!r)
        return;
    *self_p = NULL;
    for (size_t i = 0; i < r->n; i++) {
        free(r->col[i]);
        free(r->val[i]);
    }
    free(r);
}
