/* appout.h: what an application tool (pgbench, sysbench) prints, as the agent reads it from the
 * tool's pipe in chunks of any size: kept whole up to a cap (the archive's copy and the source
 * of the final summary), cut into lines, and each per-second report turned into a sample with
 * its sequence number, its time and the length of its interval. Pure: no I/O, no loop. */
#ifndef LG_APPOUT_H
#define LG_APPOUT_H

#include <stddef.h>
#include <stdint.h>

#include "lg_app.h"

#define LG_APPOUT_CAP (8u << 20) /* the output kept for AppTotals.output */
#define LG_APPOUT_LINE_CAP 4096  /* a longer line is cut there (and then is not a report) */

/* sample: the seq-th report (from 1), ending at t_ms (Unix milliseconds), interval_ms after the
 * one before it (or after the start for the first; 0 when the tool's clock went back). */
typedef void (*lg_appout_sample_fn)(void *arg, uint64_t seq, int64_t t_ms, uint64_t interval_ms,
                                    const lg_app_sample_t *s);

typedef struct {
    lg_app_kind_t kind;
    const char *tool_name; /* for the warning about a malformed report */
    uint64_t run_id;       /* likewise */
    size_t cap;            /* LG_APPOUT_CAP unless set otherwise after init */
    int64_t start_us;      /* when the tool started (Unix us): pgbench's times count from it */
    lg_appout_sample_fn on_sample;
    void *arg;
    char *out; /* NUL-terminated; NULL until the first byte */
    size_t out_len, out_cap;
    int out_cut; /* more than cap bytes came (or memory ran out): out is their beginning */
    char line[LG_APPOUT_LINE_CAP];
    size_t line_len;
    uint64_t seq; /* reports so far */
    double prev_t_s;
    int has_prev;
} lg_appout_t;

void lg_appout_init(lg_appout_t *o, lg_app_kind_t kind, const char *tool_name, uint64_t run_id,
                    lg_appout_sample_fn on_sample, void *arg);
/* Takes len bytes of the tool's output; calls on_sample for every complete report line in it. */
void lg_appout_feed(lg_appout_t *o, const char *data, size_t len);
/* The tool has ended: a last line without its newline is read too. */
void lg_appout_finish(lg_appout_t *o);
/* Frees what o holds (not o itself) and zeroes it: lg_appout_init makes it ready again. */
void lg_appout_clear(lg_appout_t *o);

#endif
