/* lg_names.h: the enums a campaign's runs are made of (target kind, phase, share, gate between
 * configs, preconditioning, application) and their names, each written once in a table
 * (lg_names.c) that the spec parser, the run codec (lg_runrow.h) and the controller read. */
#ifndef LG_NAMES_H
#define LG_NAMES_H

#include <stddef.h>

#include "lg_app.h"

/* How several agents share one target so that they do not overlap:
 * FILES: each its own file, PATH.AGENT (file targets), the size split between them;
 * RANGE: each its own slice of the device (block targets), size / n bytes at k * size / n;
 * WHOLE: all on the whole target (e.g. reading the same data);
 * AUTO: FILES for a file, RANGE for a block device, WHOLE for null. One agent: always WHOLE. */
typedef enum { LG_SHARE_AUTO = 0, LG_SHARE_FILES, LG_SHARE_RANGE, LG_SHARE_WHOLE } lg_share_t;

/* FILE: a file (local, or on a mounted share); BLOCK: a whole block device, overwritten;
 * SMB: smb://[user@]host[:port]/share/path through the lgsmb engine; ISCSI:
 * iscsi://host[:port]/iqn/lun through the lgiscsi engine (a LUN, overwritten). The values are
 * the wire's (lg.proto's TargetKind). */
typedef enum {
    LG_TARGET_FILE = 1,
    LG_TARGET_NULL = 2,
    LG_TARGET_BLOCK = 3,
    LG_TARGET_SMB = 4,
    LG_TARGET_ISCSI = 5
} lg_target_kind_t;

typedef enum { LG_PRECOND_NONE = 0, LG_PRECOND_STEADY = 1, LG_PRECOND_FILL = 2 } lg_precond_t;
typedef enum { LG_BETWEEN_PAUSE = 0, LG_BETWEEN_HOOK = 1, LG_BETWEEN_NONE = 2 } lg_between_t;

typedef enum {
    LG_PHASE_MEASURE = 0,
    LG_PHASE_STEADY = 1,
    LG_PHASE_FILL = 2,
    LG_PHASE_SEARCH = 3
} lg_phase_t;

/* One value and its name. */
typedef struct {
    int value;
    const char *name;
} lg_name_t;

/* The names of one enum. */
typedef struct {
    const char *what; /* "target kind": what a message calls it */
    const lg_name_t *names;
    size_t n;
    const char *unknown; /* the name a value outside the table is given; NULL: the fallback's */
    int fallback;        /* what a stored name outside the table reads as (lg_runrow_decode) */
} lg_names_t;

/* target_kind: "file", "null", "block", "smb", "iscsi" (unknown value: "file"; fallback FILE) */
extern const lg_names_t lg_target_kind_names;
/* phase: "measure", "steady-state", "fill", "search" (unknown: "measure"; fallback MEASURE) */
extern const lg_names_t lg_phase_names;
/* share: "auto", "files", "range", "whole" (unknown: "auto"; fallback AUTO) */
extern const lg_names_t lg_share_names;
/* between: "pause", "hook", "none" (unknown: "pause"; fallback PAUSE) */
extern const lg_names_t lg_between_names;
/* precondition: "none", "steady-state", "fill" (unknown: "none"; fallback NONE) */
extern const lg_names_t lg_precond_names;
/* app: "pgbench", "sysbench-oltp" (unknown, 0 among them: ""; fallback SYSBENCH_OLTP, as the
 * controller always read a stored name other than pgbench) */
extern const lg_names_t lg_app_kind_names;

/* value's name in t; t->unknown when it has none. Static, never NULL. */
const char *lg_name_of(const lg_names_t *t, int value);
/* s's value in t into *value: 0, or LG_EPARSE (s NULL or not one of t's names; *value kept). */
int lg_name_parse(const lg_names_t *t, const char *s, int *value);

const char *lg_target_kind_name(lg_target_kind_t k);
int lg_target_kind_parse(const char *s, lg_target_kind_t *out);
const char *lg_phase_name(lg_phase_t p);
int lg_phase_parse(const char *s, lg_phase_t *out);
const char *lg_share_name(lg_share_t s);
int lg_share_parse(const char *s, lg_share_t *out);
const char *lg_between_name(lg_between_t b);
int lg_between_parse(const char *s, lg_between_t *out);
const char *lg_precond_name(lg_precond_t p);
int lg_precond_parse(const char *s, lg_precond_t *out);
/* An application's name ("" for 0, a fio profile), and back (0 if unknown). */
const char *lg_appwl_name(int kind);
int lg_appwl_parse(const char *s);

#endif
