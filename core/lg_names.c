/* lg_names.c: the names of a campaign's enums, each written once (see lg_names.h). A name here is
 * what specs say, what lg.run's columns hold and what reports show: change none of them without a
 * migration of the rows that hold it. */
#include "lg_names.h"

#include <string.h>

#include "lg_error.h"

#define S_N(a) (sizeof(a) / sizeof *(a))

static const lg_name_t s_target_kind[] = {
    {LG_TARGET_FILE, "file"},   /* a file, local or on a mounted share */
    {LG_TARGET_NULL, "null"},   /* fio's null engine */
    {LG_TARGET_BLOCK, "block"}, /* a whole block device */
    {LG_TARGET_SMB, "smb"},     /* smb://, the lgsmb engine */
    {LG_TARGET_ISCSI, "iscsi"}, /* iscsi://, the lgiscsi engine */
};
const lg_names_t lg_target_kind_names = {.what = "target kind",
                                         .names = s_target_kind,
                                         .n = S_N(s_target_kind),
                                         .fallback = LG_TARGET_FILE};

static const lg_name_t s_phase[] = {
    {LG_PHASE_MEASURE, "measure"},
    {LG_PHASE_STEADY, "steady-state"},
    {LG_PHASE_FILL, "fill"},
    {LG_PHASE_SEARCH, "search"},
};
const lg_names_t lg_phase_names = {
    .what = "phase", .names = s_phase, .n = S_N(s_phase), .fallback = LG_PHASE_MEASURE};

static const lg_name_t s_share[] = {
    {LG_SHARE_AUTO, "auto"},
    {LG_SHARE_FILES, "files"},
    {LG_SHARE_RANGE, "range"},
    {LG_SHARE_WHOLE, "whole"},
};
const lg_names_t lg_share_names = {
    .what = "share", .names = s_share, .n = S_N(s_share), .fallback = LG_SHARE_AUTO};

static const lg_name_t s_between[] = {
    {LG_BETWEEN_PAUSE, "pause"},
    {LG_BETWEEN_HOOK, "hook"},
    {LG_BETWEEN_NONE, "none"},
};
const lg_names_t lg_between_names = {
    .what = "between", .names = s_between, .n = S_N(s_between), .fallback = LG_BETWEEN_PAUSE};

static const lg_name_t s_precond[] = {
    {LG_PRECOND_NONE, "none"},
    {LG_PRECOND_STEADY, "steady-state"},
    {LG_PRECOND_FILL, "fill"},
};
const lg_names_t lg_precond_names = {
    .what = "precondition", .names = s_precond, .n = S_N(s_precond), .fallback = LG_PRECOND_NONE};

static const lg_name_t s_app_kind[] = {
    {LG_APP_PGBENCH, "pgbench"},
    {LG_APP_SYSBENCH_OLTP, "sysbench-oltp"},
};
const lg_names_t lg_app_kind_names = {.what = "application",
                                      .names = s_app_kind,
                                      .n = S_N(s_app_kind),
                                      .unknown = "",
                                      .fallback = LG_APP_SYSBENCH_OLTP};

const char *lg_name_of(const lg_names_t *t, int value)
{
    for (size_t i = 0; i < t->n; i++)
        if (t->names[i].value == value)
            return t->names[i].name;
    if (t->unknown)
        return t->unknown;
    for (size_t i = 0; i < t->n; i++)
        if (t->names[i].value == t->fallback)
            return t->names[i].name;
    return "";
}

int lg_name_parse(const lg_names_t *t, const char *s, int *value)
{
    for (size_t i = 0; s && i < t->n; i++)
        if (!strcmp(t->names[i].name, s)) {
            *value = t->names[i].value;
            return 0;
        }
    return LG_EPARSE;
}

/* The typed faces of lg_name_of / lg_name_parse that lg_names.h declares: lg_target_kind_name and
 * lg_target_kind_parse, lg_phase_name and lg_phase_parse, and so on. */
#define S_TYPED(fn, type, table)                                                                   \
    const char *fn##_name(type v)                                                                  \
    {                                                                                              \
        return lg_name_of(&(table), (int)v);                                                       \
    }                                                                                              \
    int fn##_parse(const char *s, type *out)                                                       \
    {                                                                                              \
        int v = 0;                                                                                 \
        int rc = lg_name_parse(&(table), s, &v);                                                   \
        if (rc == 0)                                                                               \
            *out = (type)v;                                                                        \
        return rc;                                                                                 \
    }

S_TYPED(lg_target_kind, lg_target_kind_t, lg_target_kind_names)
S_TYPED(lg_phase, lg_phase_t, lg_phase_names)
S_TYPED(lg_share, lg_share_t, lg_share_names)
S_TYPED(lg_between, lg_between_t, lg_between_names)
S_TYPED(lg_precond, lg_precond_t, lg_precond_names)

const char *lg_appwl_name(int kind)
{
    return lg_name_of(&lg_app_kind_names, kind);
}

int lg_appwl_parse(const char *s)
{
    int v = 0;
    return lg_name_parse(&lg_app_kind_names, s, &v) == 0 ? v : 0;
}
