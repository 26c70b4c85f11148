/* lg_runrow.h: a run as its lg.run row and back, as fio's cconv.c converts its options: one table
 * of columns {name, type, offset, flags} (lg_runrow.c) makes the INSERT a submission writes and
 * reads the row the scheduler loads. Pure: values are text by column name; no libpq here. */
#ifndef LG_RUNROW_H
#define LG_RUNROW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lg_names.h"
#include "lg_spec.h"

/* A run's block-size mix (lg.run.bssplit, "bs/pct:bs/pct"); n 0: none (""). */
typedef struct {
    lg_bssplit_t v[LG_MAX_BSSPLIT];
    size_t n;
} lg_runrow_bssplit_t;

/* An application run's data set (lg.run.app_params, JSON). */
typedef struct {
    bool set; /* false: NULL (a fio run, or a fill) */
    uint32_t scale, jobs, tables;
    uint64_t table_size;
    bool keep;
} lg_runrow_app_t;

/* One lg.run row as C values, each field named as its column. A 0 in a field marked "NULL" is SQL
 * NULL. The heap strings (char *) are the row's: lg_runrow_clear frees them. */
typedef struct {
    /* what a submission inserts */
    uint64_t campaign_id;
    uint32_t ordinal; /* 1-based, in the campaign's order */
    uint64_t sut_config_id;
    char profile[64];
    char direction[8]; /* read, write, mixed */
    char rw[16];       /* fio's rw= */
    uint32_t bs;
    int32_t read_pct;
    uint32_t threads, qd, ramp_s, runtime_s;
    lg_target_kind_t target_kind;
    char *target;
    uint64_t size_bytes;
    bool direct;
    lg_phase_t phase;
    uint32_t config_ordinal; /* 1-based */
    char protocol[32];
    uint32_t repeat;
    bool gate;
    uint32_t rate_iops, thinktime_us, thinktime_blocks;
    lg_runrow_bssplit_t bssplit;
    double compress_ratio, dedup_ratio;
    uint32_t dedup_unit, round_s;
    char *agents; /* JSON (lg_agents_json) */
    lg_share_t share;
    char target_fs[8];
    char *target_mount;
    bool headline;
    uint64_t search_id; /* 0: NULL */
    uint32_t probe;     /* 0: NULL */
    uint32_t rate_total;
    uint32_t curve_pct;  /* 0: NULL */
    uint32_t curve_base; /* the base run's ordinal; 0: NULL (the search's best) */
    int app;             /* lg_app_kind_t; 0: NULL */
    lg_runrow_app_t app_params;
    char *telemetry; /* JSON; NULL: NULL */
    char *reduction; /* JSON; NULL: NULL */
    uint32_t retries;
    /* read only: the database's, and what the load query adds */
    uint64_t run_id;
    uint32_t attempt;
    bool curve_base_of; /* another run's curve is of this one */
    char *sut;          /* lg.sut_short(labels) */
} lg_runrow_t;

typedef enum {
    LG_COL_U32,
    LG_COL_I32,
    LG_COL_U64,
    LG_COL_F64,
    LG_COL_BOOL,    /* "t" / "f" */
    LG_COL_STR,     /* char[size] */
    LG_COL_HSTR,    /* char *, the row's */
    LG_COL_ENUM,    /* an enum by its names (names) */
    LG_COL_BSSPLIT, /* lg_runrow_bssplit_t */
    LG_COL_APP      /* lg_runrow_app_t */
} lg_col_type_t;

enum {
    LG_COL_JSONB = 1 << 0,    /* its parameter is cast ::jsonb */
    LG_COL_NULLABLE = 1 << 1, /* 0 (a NULL pointer, an unset struct) is SQL NULL, and back */
    LG_COL_READONLY = 1 << 2, /* a column of lg.run set by the database: loaded, never inserted */
    LG_COL_QUERY = 1 << 3     /* made by the load query, no column of lg.run: loaded only */
};

/* One column. */
typedef struct {
    const char *name;
    lg_col_type_t type;
    size_t offset, size;     /* of its field in lg_runrow_t */
    const lg_names_t *names; /* LG_COL_ENUM */
    unsigned flags;
} lg_col_t;

/* The table of lg.run's columns (static): *n of them. */
const lg_col_t *lg_runrow_cols(size_t *n);

#define LG_RUNROW_MAX_COLS 64

/* One row's inserted columns as text, in the INSERT's order (lg_runrow_insert_sql). */
typedef struct {
    size_t n;
    const char *val[LG_RUNROW_MAX_COLS]; /* NULL: SQL NULL; into this struct or into the row */
    char num[LG_RUNROW_MAX_COLS][32];
    char bssplit[512];
    char app[256];
} lg_runrow_text_t;

/* "INSERT INTO lg.run (campaign_id, ...) VALUES ($1, ...)" (jsonb columns cast) into buf of len
 * bytes: 0, or LG_ETOOBIG when it does not fit. */
int lg_runrow_insert_sql(char *buf, size_t len);
/* row's inserted columns as the INSERT's text parameters into out. out->val points into out and
 * into row's strings: both must outlive its use. A non-nullable heap string left NULL is "". */
void lg_runrow_encode(const lg_runrow_t *row, lg_runrow_text_t *out);

/* A row's value of column col: its text, or NULL for SQL NULL or a column the row has not. */
typedef const char *(*lg_runrow_get_fn)(void *arg, const char *col);
/* row (zeroed first) from a row's values, as the scheduler always read them: SQL NULL, absent and
 * "" are 0, false, "" (a heap string: "", or NULL when nullable), an enum's fallback; numbers as
 * strtoul and strtod read them. Returns 0; LG_EPARSE when a value is no name of its enum: the
 * field gets the enum's fallback (as before) and err says which column held what; -ENOMEM (row
 * cleared). The caller owns row's strings (lg_runrow_clear), also on LG_EPARSE. */
int lg_runrow_decode(lg_runrow_t *row, lg_runrow_get_fn get, void *arg, char *err, size_t errlen);
/* Frees what row holds (not row) and zeroes it. */
void lg_runrow_clear(lg_runrow_t *row);

#endif
