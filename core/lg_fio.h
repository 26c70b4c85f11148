/* lg_fio.h: reading fio's JSON output.
 * fio --output-format=json+ --status-interval=1 streams one pretty-printed JSON object per
 * interval (cumulative figures; the last one is final): each starts with a line "{" and ends with
 * a line that is exactly "}". The splitter cuts the stream into objects; the reader turns one
 * object into per-job, per-direction lg_dirstats_t. */
#ifndef LG_FIO_H
#define LG_FIO_H

#include <stddef.h>
#include <stdint.h>

#include "lg_stats.h"

/* ---- stream splitter ---- */
typedef struct lg_fio_splitter lg_fio_splitter_t;
/* Called for each complete object; text is NUL-terminated, owned by the splitter, valid only
 * during the call. Lines outside objects (fio warnings) go to on_noise if set. */
typedef void (*lg_fio_object_cb)(void *arg, const char *text, size_t len);
typedef void (*lg_fio_noise_cb)(void *arg, const char *line, size_t len);

/* Caller owns the result; max_object caps one object's size (bytes); NULL on allocation failure. */
lg_fio_splitter_t *lg_fio_splitter_new(size_t max_object, lg_fio_object_cb on_object,
                                       lg_fio_noise_cb on_noise, void *arg);
/* Feed bytes in any chunking. Returns 0, or LG_ETOOBIG when an object exceeded max_object
 * (that object is dropped; splitting resumes at the next "{" line). */
int lg_fio_splitter_feed(lg_fio_splitter_t *s, const char *data, size_t len);
/* Sets *self_p to NULL. */
void lg_fio_splitter_destroy(lg_fio_splitter_t **self_p);

/* ---- one report (one JSON object) ---- */
typedef struct {
    char name[128]; /* jobname */
    char host[128]; /* client mode: "hostname:port" of the fio server; "" otherwise */
    int error;      /* fio's job error */
    int groupid;    /* fio's reporting group (stonewall starts a new one) */
    lg_dirstats_t dir[LG_DIR_NR];
} lg_fio_job_t;

typedef struct {
    char fio_version[64]; /* "fio-3.33" */
    int64_t timestamp_ms; /* timestamp_ms */
    size_t njobs;
    lg_fio_job_t *jobs;
} lg_fio_report_t;

/* Parse one fio JSON object (the "jobs" form; also the "client_stats" form of fio's client mode,
 * whose entries are read like jobs, skipping the "All clients" aggregate). Latency is lat_ns; the
 * histogram is lat_ns.bins when present (json+ with lat_percentiles=1), else clat_ns.bins is NOT
 * used and has_hist stays false. On error returns LG_EPARSE and writes a message naming what was
 * wrong and where (e.g. 'jobs[2].read.lat_ns: missing "N"') into err. Caller owns *out. */
int lg_fio_report_parse(const char *text, size_t len, lg_fio_report_t **out, char *err,
                        size_t errlen);
/* Merge all jobs' direction d into *out (lg_dirstats_merge; one job = exact copy). */
void lg_fio_report_total(const lg_fio_report_t *r, lg_dir_t d, lg_dirstats_t *out);
/* Sets *self_p to NULL. */
void lg_fio_report_destroy(lg_fio_report_t **self_p);

#endif
