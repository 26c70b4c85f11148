/* lg_prom.h: the Prometheus text exposition format (version 0.0.4), as node_exporter, FreeBSD's
 * node_exporter, windows_exporter and netdata serve it: read line by line, with its types,
 * labels (and their escapes), NaN and +-Inf, and hard limits, since the text comes from a NAS
 * over the network. Pure: no I/O, so the controller, unit tests and the fuzzer share it. */
#ifndef LG_PROM_H
#define LG_PROM_H

#include <stddef.h>
#include <stdint.h>

typedef enum {
    LG_PROM_UNTYPED = 0, /* no # TYPE line, or "untyped" (Linux's node_zfs_arc_* are) */
    LG_PROM_COUNTER,
    LG_PROM_GAUGE,
    LG_PROM_HISTOGRAM,
    LG_PROM_SUMMARY,
} lg_prom_type_t;

#define LG_PROM_MAX_LABELS 16

typedef struct {
    const char *name;  /* label name */
    const char *value; /* unescaped */
} lg_prom_label_t;

/* One sample line. Pointers are valid during the callback only. */
typedef struct {
    const char *name;    /* metric name, e.g. "node_cpu_seconds_total" */
    lg_prom_type_t type; /* from the family's # TYPE line */
    size_t nlabels;
    lg_prom_label_t labels[LG_PROM_MAX_LABELS];
    double value;  /* NaN and +-Inf as such */
    int64_t ts_ms; /* the optional timestamp, else 0 */
    int has_ts;
} lg_prom_sample_t;

/* Limits on what one exposition may hold; 0 takes the default. */
typedef struct {
    size_t max_bytes;   /* the whole text (default 8 MiB) */
    size_t max_line;    /* one line (default 64 KiB) */
    size_t max_samples; /* sample lines (default 100,000) */
} lg_prom_limits_t;

/* Called for each sample; return nonzero to stop (lg_prom_parse returns that value). */
typedef int (*lg_prom_sample_cb)(void *arg, const lg_prom_sample_t *s);

/* Parses text (len bytes, not necessarily NUL-terminated). Calls cb for each sample line in
 * order. Returns 0; LG_EPARSE with err naming the line number and what is wrong (the samples
 * before it were delivered); LG_ETOOBIG when a limit is passed; or cb's nonzero value. */
int lg_prom_parse(const char *text, size_t len, const lg_prom_limits_t *lim, lg_prom_sample_cb cb,
                  void *arg, char *err, size_t errlen);

/* The value of label name in s, or NULL. */
const char *lg_prom_label(const lg_prom_sample_t *s, const char *name);

#endif
