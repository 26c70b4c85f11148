/* lg_telem.h: what lg keeps of one scrape of a NAS's Prometheus endpoint. The exposition
 * (node_exporter on Linux or FreeBSD, windows_exporter, netdata) is reduced to a few keys that
 * mean the same whatever the exporter (schema/025_telemetry.sql lists them): CPU seconds by mode
 * summed over the CPUs, memory available and total, per-disk bytes and busy time, per-NIC bytes,
 * ZFS ARC hits, misses and size, and the metrics a source asks for by name. Values stay raw
 * (counters as counters); rates are the database's business. Pure: no I/O. */
#ifndef LG_TELEM_H
#define LG_TELEM_H

#include <stddef.h>

#define LG_TELEM_MAX_KEYS 1024 /* series kept of one scrape; more are dropped (and said) */
#define LG_TELEM_KEY_MAX 200   /* bytes of a key; an extra metric with a longer one is left out */
#define LG_TELEM_PART_MAX 183  /* bytes of a label value in a mapped key (disk.read.<dev>) */

typedef struct {
    char **keys;
    double *vals;
    size_t n, cap;
    size_t dropped; /* series left out: over LG_TELEM_MAX_KEYS or a key too long */
    /* What the exporter's label values lost on their way into keys (valid UTF-8, lg_esc.h):
     * bytes that were not UTF-8 (or NUL) replaced by U+FFFD, and values cut (on a character
     * boundary) to LG_TELEM_PART_MAX bytes. */
    size_t replaced, cut;
} lg_telem_vals_t;

/* Reduce an exposition (len bytes) to keys and values. extras: metric names to keep as they
 * are ("x.NAME{labels}"); one ending in '*' is a prefix. Returns 0; LG_EPARSE with err when the
 * text is not a Prometheus text exposition (or holds no sample); LG_ETOOBIG over the parser's
 * limits; -ENOMEM. out is reset first; free it with lg_telem_vals_clear. */
int lg_telem_extract(const char *text, size_t len, const char *const *extras, size_t nextras,
                     lg_telem_vals_t *out, char *err, size_t errlen);

/* Frees what v holds (not v itself) and zeroes it; NULL is a no-op. */
void lg_telem_vals_clear(lg_telem_vals_t *v);

/* The value of key in v, or NAN. */
double lg_telem_get(const lg_telem_vals_t *v, const char *key);

#endif
