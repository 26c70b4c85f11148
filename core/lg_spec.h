/* lg_spec.h: campaign specs (YAML) parsed once into typed structs, and the run matrix they imply.
 * Every error names the file, line and key. Nothing downstream re-parses strings. */
#ifndef LG_SPEC_H
#define LG_SPEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Where a spec error was found and what it was. */
typedef struct {
    char file[256];
    int line;           /* 1-based; 0 if unknown */
    int column;         /* 1-based; 0 if unknown */
    char key[128];      /* dotted path, e.g. "profiles[1]" or "qd"; "" for the document */
    char message[512];  /* e.g. "unknown profile \"4k-random\"" */
} lg_spec_diag_t;

/* Formats "FILE:LINE:COL: key \"KEY\": MESSAGE" into buf. */
void lg_spec_diag_format(const lg_spec_diag_t *d, char *buf, size_t len);

typedef struct {
    char *key;
    char *value;
} lg_label_t;

typedef enum { LG_TARGET_FILE = 1, LG_TARGET_NULL = 2 } lg_target_kind_t;

/* A profile: a named workload. Standard ones: 4k-rand, 8k-7030, 8k-seq, 128k-seq. */
typedef struct {
    char name[64];
    uint32_t bs;        /* bytes */
    bool random;
    int read_pct;       /* 0..100 for a mixed run; -1: two runs, 100% read then 100% write */
} lg_profile_t;

typedef struct {
    char *path;         /* file the spec came from (as given) */
    char *text;         /* the spec verbatim */
    char *name;         /* campaign name: [A-Za-z0-9._-]{1,63} */
    lg_label_t *labels; /* SUT config labels, in file order */
    size_t nlabels;
    lg_target_kind_t target_kind;
    char *target;       /* absolute path for LG_TARGET_FILE; "" for LG_TARGET_NULL */
    uint64_t size;      /* bytes of the target file / null device to use */
    lg_profile_t *profiles;
    size_t nprofiles;
    uint32_t threads;   /* >= 1, <= 256 */
    uint32_t qd;        /* >= 1, <= 4096 */
    uint32_t ramp_s;    /* seconds, >= 0 */
    uint32_t runtime_s; /* seconds, >= 1 */
    bool direct;        /* default true */
} lg_spec_t;

/* One run of the matrix. */
typedef struct {
    char profile[64];
    char rw[16];        /* fio rw=: randread, randwrite, randrw, read, write, rw */
    char direction[8];  /* "read", "write" or "mixed" */
    uint32_t bs;
    int read_pct;       /* 100, 0, or the mix */
    uint32_t threads;
    uint32_t qd;
    uint32_t ramp_s;
    uint32_t runtime_s;
} lg_run_plan_t;

/* Parse a spec from a file. On error returns LG_ESPEC (or a negative errno if the file cannot be
 * read) and fills *diag. Caller owns *out (lg_spec_destroy). */
int lg_spec_parse_file(const char *path, lg_spec_t **out, lg_spec_diag_t *diag);
/* Same, from memory; path is used in messages. text need not be NUL-terminated. */
int lg_spec_parse_text(const char *text, size_t len, const char *path, lg_spec_t **out,
                       lg_spec_diag_t *diag);
/* Sets *self_p to NULL. */
void lg_spec_destroy(lg_spec_t **self_p);

/* The run matrix in execution order: for each profile in spec order, read before write (or the one
 * mixed run). Caller owns *runs (free()). Returns 0 or -ENOMEM. */
int lg_spec_plan(const lg_spec_t *spec, lg_run_plan_t **runs, size_t *nruns);

/* Look up a standard profile by name; NULL if unknown. */
const lg_profile_t *lg_profile_find(const char *name);

/* Parse "5s", "2m", "1h", "90" (seconds). Returns 0 or LG_EPARSE. */
int lg_parse_duration(const char *s, uint32_t *seconds);
/* Parse "4096", "4k", "4KiB", "256M", "1G", "1T" (powers of 1024). Returns 0 or LG_EPARSE. */
int lg_parse_size(const char *s, uint64_t *bytes);

#endif
