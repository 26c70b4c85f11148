/* lg_runrow.c: a run and its lg.run row, both ways, by one table of columns (fio's cconv.c): a
 * column added to lg.run is one line here (and its field in lg_runrow_t), and the submission's
 * INSERT and the scheduler's load both follow. */
#include "lg_runrow.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lg_error.h"
#include "lg_util.h"

/* The enums are read and written as int. */
_Static_assert(sizeof(lg_target_kind_t) == sizeof(int), "target kind is an int");
_Static_assert(sizeof(lg_phase_t) == sizeof(int), "phase is an int");
_Static_assert(sizeof(lg_share_t) == sizeof(int), "share is an int");

#define S_SIZE(f) sizeof(((lg_runrow_t *)0)->f)
/* A column named as its field: one spelling of each name. */
#define S_COL(f, type, flags)                                                                      \
    {                                                                                              \
#f, type, offsetof(lg_runrow_t, f), S_SIZE(f), NULL, flags                                 \
    }
#define S_ENUM(f, names, flags)                                                                    \
    {                                                                                              \
#f, LG_COL_ENUM, offsetof(lg_runrow_t, f), S_SIZE(f), &(names), flags                      \
    }

static const lg_col_t s_cols[] = {
    S_COL(campaign_id, LG_COL_U64, 0),
    S_COL(ordinal, LG_COL_U32, 0),
    S_COL(sut_config_id, LG_COL_U64, 0),
    S_COL(profile, LG_COL_STR, 0),
    S_COL(direction, LG_COL_STR, 0),
    S_COL(rw, LG_COL_STR, 0),
    S_COL(bs, LG_COL_U32, 0),
    S_COL(read_pct, LG_COL_I32, 0),
    S_COL(threads, LG_COL_U32, 0),
    S_COL(qd, LG_COL_U32, 0),
    S_COL(ramp_s, LG_COL_U32, 0),
    S_COL(runtime_s, LG_COL_U32, 0),
    S_ENUM(target_kind, lg_target_kind_names, 0),
    S_COL(target, LG_COL_HSTR, 0),
    S_COL(size_bytes, LG_COL_U64, 0),
    S_COL(direct, LG_COL_BOOL, 0),
    S_ENUM(phase, lg_phase_names, 0),
    S_COL(config_ordinal, LG_COL_U32, 0),
    S_COL(protocol, LG_COL_STR, 0),
    S_COL(repeat, LG_COL_U32, 0),
    S_COL(gate, LG_COL_BOOL, 0),
    S_COL(rate_iops, LG_COL_U32, 0),
    S_COL(thinktime_us, LG_COL_U32, 0),
    S_COL(thinktime_blocks, LG_COL_U32, 0),
    S_COL(bssplit, LG_COL_BSSPLIT, 0),
    S_COL(compress_ratio, LG_COL_F64, 0),
    S_COL(dedup_ratio, LG_COL_F64, 0),
    S_COL(dedup_unit, LG_COL_U32, 0),
    S_COL(round_s, LG_COL_U32, 0),
    S_COL(agents, LG_COL_HSTR, LG_COL_JSONB),
    S_ENUM(share, lg_share_names, 0),
    S_COL(target_fs, LG_COL_STR, 0),
    S_COL(target_mount, LG_COL_HSTR, 0),
    S_COL(headline, LG_COL_BOOL, 0),
    S_COL(search_id, LG_COL_U64, LG_COL_NULLABLE),
    S_COL(probe, LG_COL_U32, LG_COL_NULLABLE),
    S_COL(rate_total, LG_COL_U32, 0),
    S_COL(curve_pct, LG_COL_U32, LG_COL_NULLABLE),
    S_COL(curve_base, LG_COL_U32, LG_COL_NULLABLE),
    S_ENUM(app, lg_app_kind_names, LG_COL_NULLABLE),
    S_COL(app_params, LG_COL_APP, LG_COL_JSONB | LG_COL_NULLABLE),
    S_COL(telemetry, LG_COL_HSTR, LG_COL_JSONB | LG_COL_NULLABLE),
    S_COL(reduction, LG_COL_HSTR, LG_COL_JSONB | LG_COL_NULLABLE),
    S_COL(retries, LG_COL_U32, 0),
    S_COL(run_id, LG_COL_U64, LG_COL_READONLY),
    S_COL(attempt, LG_COL_U32, LG_COL_READONLY),
    S_COL(curve_base_of, LG_COL_BOOL, LG_COL_QUERY),
    S_COL(sut, LG_COL_HSTR, LG_COL_QUERY),
};
#define S_NCOLS (sizeof s_cols / sizeof *s_cols)
_Static_assert(S_NCOLS <= LG_RUNROW_MAX_COLS, "LG_RUNROW_MAX_COLS holds every column");

const lg_col_t *lg_runrow_cols(size_t *n)
{
    *n = S_NCOLS;
    return s_cols;
}

static int s_inserted(const lg_col_t *c)
{
    return !(c->flags & (LG_COL_READONLY | LG_COL_QUERY));
}

int lg_runrow_insert_sql(char *buf, size_t len)
{
    size_t o = (size_t)snprintf(buf, len, "INSERT INTO lg.run (");
    size_t k = 0;
    for (size_t i = 0; i < S_NCOLS && o < len; i++)
        if (s_inserted(&s_cols[i]))
            o += (size_t)snprintf(buf + o, len - o, "%s%s", k++ ? ", " : "", s_cols[i].name);
    o += (size_t)snprintf(buf + o, o < len ? len - o : 0, ") VALUES (");
    k = 0;
    for (size_t i = 0; i < S_NCOLS && o < len; i++)
        if (s_inserted(&s_cols[i])) {
            k++;
            o += (size_t)snprintf(buf + o, len - o, "%s$%zu%s", k > 1 ? ", " : "", k,
                                  s_cols[i].flags & LG_COL_JSONB ? "::jsonb" : "");
        }
    o += (size_t)snprintf(buf + o, o < len ? len - o : 0, ")");
    return o < len ? 0 : LG_ETOOBIG;
}

/* ---- encode ---- */

static int s_enum_get(const void *p)
{
    int v;
    memcpy(&v, p, sizeof v);
    return v;
}

static const char *s_bssplit_text(const lg_runrow_bssplit_t *b, char *buf, size_t len)
{
    size_t o = 0;
    buf[0] = 0;
    for (size_t i = 0; i < b->n && o < len; i++)
        o += (size_t)snprintf(buf + o, len - o, "%s%u/%u", i ? ":" : "", b->v[i].bs, b->v[i].pct);
    return buf;
}

static const char *s_app_text(const lg_runrow_app_t *a, char *buf, size_t len)
{
    if (!a->set)
        return NULL;
    snprintf(buf, len,
             "{\"scale\": %u, \"jobs\": %u, \"tables\": %u, \"table_size\": %llu,"
             " \"keep\": %s}",
             a->scale, a->jobs, a->tables, (unsigned long long)a->table_size,
             a->keep ? "true" : "false");
    return buf;
}

/* Column c of row as text: into num (32 bytes) or t's own buffers, or the row's string. */
static const char *s_encode_one(const lg_col_t *c, const lg_runrow_t *row, char *num,
                                lg_runrow_text_t *t)
{
    const char *p = (const char *)row + c->offset;
    int nullable = (c->flags & LG_COL_NULLABLE) != 0;
    uint64_t u = 0;
    switch (c->type) {
    case LG_COL_U32:
        u = *(const uint32_t *)p;
        break;
    case LG_COL_U64:
        u = *(const uint64_t *)p;
        break;
    case LG_COL_I32:
        snprintf(num, 32, "%d", (int)*(const int32_t *)p);
        return num;
    case LG_COL_F64:
        snprintf(num, 32, "%.17g", *(const double *)p);
        return num;
    case LG_COL_BOOL:
        return *(const bool *)p ? "t" : "f";
    case LG_COL_STR:
        return nullable && !p[0] ? NULL : p;
    case LG_COL_HSTR: {
        const char *s = *(char *const *)p;
        return s ? s : nullable ? NULL : "";
    }
    case LG_COL_ENUM: {
        int v = s_enum_get(p);
        return nullable && v == 0 ? NULL : lg_name_of(c->names, v);
    }
    case LG_COL_BSSPLIT:
        return s_bssplit_text((const lg_runrow_bssplit_t *)p, t->bssplit, sizeof t->bssplit);
    case LG_COL_APP:
        return s_app_text((const lg_runrow_app_t *)p, t->app, sizeof t->app);
    }
    if (nullable && u == 0)
        return NULL;
    snprintf(num, 32, "%llu", (unsigned long long)u);
    return num;
}

void lg_runrow_encode(const lg_runrow_t *row, lg_runrow_text_t *out)
{
    out->n = 0;
    for (size_t i = 0; i < S_NCOLS; i++)
        if (s_inserted(&s_cols[i])) {
            out->val[out->n] = s_encode_one(&s_cols[i], row, out->num[out->n], out);
            out->n++;
        }
}

/* ---- decode ---- */

/* "bs/pct:bs/pct", read as the scheduler always read it. */
static void s_bssplit_parse(const char *b, lg_runrow_bssplit_t *out)
{
    out->n = 0;
    while (*b && out->n < LG_MAX_BSSPLIT) {
        lg_bssplit_t *e = &out->v[out->n++];
        char *end;
        e->bs = (uint32_t)strtoul(b, &end, 10);
        e->pct = *end == '/' ? (uint32_t)strtoul(end + 1, &end, 10) : 0;
        b = *end == ':' ? end + 1 : end + strlen(end);
    }
}

/* What a key of app_params holds (0: absent or not a number). */
static uint64_t s_json_u64(json_t *o, const char *key)
{
    return (uint64_t)json_integer_value(json_object_get(o, key));
}

static void s_app_parse(const char *s, lg_runrow_app_t *out)
{
    json_t *o = json_loads(s, 0, NULL);
    out->set = true;
    out->scale = (uint32_t)s_json_u64(o, "scale");
    out->jobs = (uint32_t)s_json_u64(o, "jobs");
    out->tables = (uint32_t)s_json_u64(o, "tables");
    out->table_size = s_json_u64(o, "table_size");
    out->keep = json_is_true(json_object_get(o, "keep"));
    json_decref(o);
}

/* An enum's value: NULL, absent or "": 0 when nullable, else its fallback; a name it has not:
 * the fallback, and LG_EPARSE. */
static int s_enum_parse(const lg_col_t *c, const char *s, int *v)
{
    if (!s || !s[0]) {
        *v = c->flags & LG_COL_NULLABLE ? 0 : c->names->fallback;
        return 0;
    }
    if (lg_name_parse(c->names, s, v) == 0)
        return 0;
    *v = c->names->fallback;
    return LG_EPARSE;
}

/* Column c's value s (NULL: SQL NULL or absent) into row: 0, LG_EPARSE (an enum's unknown name)
 * or -ENOMEM. */
static int s_decode_one(const lg_col_t *c, const char *s, lg_runrow_t *row)
{
    char *p = (char *)row + c->offset;
    const char *v = s ? s : "";
    int rc = 0;
    switch (c->type) {
    case LG_COL_U32:
        *(uint32_t *)p = (uint32_t)strtoul(v, NULL, 10);
        break;
    case LG_COL_I32:
        *(int32_t *)p = (int32_t)strtol(v, NULL, 10);
        break;
    case LG_COL_U64:
        *(uint64_t *)p = strtoull(v, NULL, 10);
        break;
    case LG_COL_F64:
        *(double *)p = strtod(v, NULL);
        break;
    case LG_COL_BOOL:
        *(bool *)p = v[0] == 't';
        break;
    case LG_COL_STR:
        lg_strlcpy(p, v, c->size);
        break;
    case LG_COL_HSTR:
        if (s || !(c->flags & LG_COL_NULLABLE))
            if (!(*(char **)p = strdup(v)))
                return -ENOMEM;
        break;
    case LG_COL_ENUM: {
        int e = 0;
        rc = s_enum_parse(c, s, &e);
        memcpy(p, &e, sizeof e);
        break;
    }
    case LG_COL_BSSPLIT:
        s_bssplit_parse(v, (lg_runrow_bssplit_t *)p);
        break;
    case LG_COL_APP:
        if (s)
            s_app_parse(s, (lg_runrow_app_t *)p);
        break;
    }
    return rc;
}

int lg_runrow_decode(lg_runrow_t *row, lg_runrow_get_fn get, void *arg, char *err, size_t errlen)
{
    memset(row, 0, sizeof *row);
    int ret = 0;
    for (size_t i = 0; i < S_NCOLS; i++) {
        const lg_col_t *c = &s_cols[i];
        const char *s = get(arg, c->name);
        int rc = s_decode_one(c, s, row);
        if (rc == -ENOMEM) {
            lg_runrow_clear(row);
            snprintf(err, errlen, "out of memory");
            return rc;
        }
        if (rc && !ret) {
            snprintf(err, errlen, "%s \"%.64s\" is no %s lg knows: read as %s", c->name, s,
                     c->names->what, lg_name_of(c->names, c->names->fallback));
            ret = rc;
        }
    }
    return ret;
}

void lg_runrow_clear(lg_runrow_t *row)
{
    for (size_t i = 0; i < S_NCOLS; i++)
        if (s_cols[i].type == LG_COL_HSTR)
            free(*(char **)((char *)row + s_cols[i].offset));
    memset(row, 0, sizeof *row);
}
