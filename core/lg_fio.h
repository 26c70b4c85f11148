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

/* What a report's fio version did not print and the reader derived (lg_fio_report_t.conv). */
#define LG_FIO_CONV_USEC 1u /* latencies from microseconds (fio-2's "lat") */
#define LG_FIO_CONV_KIB 2u  /* io_bytes from KiB (fio-2 before "io_kbytes" came) */
#define LG_FIO_CONV_BW 4u   /* bw_bytes from bw (KiB/s) x 1024 (fio before 3.2) */
#define LG_FIO_CONV_N 8u    /* latency sample counts from total_ios (fio before 3.18) */
#define LG_FIO_CONV_CLAT_BINS                                                                      \
    16u /* total-latency histogram from clat_ns.bins (fio 3.0 to 3.6                               \
         * with lat_percentiles=1) */

typedef struct {
    char fio_version[64]; /* "fio-3.33" */
    int64_t timestamp_ms; /* timestamp_ms */
    unsigned conv;        /* LG_FIO_CONV_*: what was derived */
    size_t njobs;
    lg_fio_job_t *jobs;
} lg_fio_report_t;

/* Parse one fio JSON object (the "jobs" form; also the "client_stats" form of fio's client mode,
 * whose entries are read like jobs, skipping the "All clients" aggregate), of any fio from
 * 2.1.14 on: what an older version did not print is derived (LG_FIO_CONV_*, in out->conv).
 * Latency is lat_ns (fio-2: lat, in us); the histogram is lat_ns.bins when present (json+ with
 * lat_percentiles=1; fio 3.0 to 3.6: clat_ns.bins under lat_percentiles=1), else has_hist stays
 * false. On error returns LG_EPARSE and writes a message naming what was
 * wrong and where (e.g. 'jobs[2].read.lat_ns: missing "N"') into err. Caller owns *out. */
int lg_fio_report_parse(const char *text, size_t len, lg_fio_report_t **out, char *err,
                        size_t errlen);
/* The conversions in conv as words ("latency sample counts from total_ios; ..."), into buf. */
void lg_fio_conv_describe(unsigned conv, char *buf, size_t len);

/* The oldest fio whose status stream the agent reads (json+ with lat_ns, from fio-3.1 on). */
#define LG_FIO_OLDEST_MAJOR 3
#define LG_FIO_OLDEST_MINOR 1
#define LG_FIO_OLDEST "fio-3.1"
/* "fio-3.16", "fio-2.2.10", "fio-3.28-12-gabc" into major and minor; LG_EPARSE otherwise. */
int lg_fio_version_parse(const char *v, unsigned *major, unsigned *minor);
/* 1 when v is LG_FIO_OLDEST or newer, 0 when older, LG_EPARSE when v is not a fio version. */
int lg_fio_version_supported(const char *v);

/* Merge all jobs' direction d into *out (lg_dirstats_merge; one job = exact copy). */
void lg_fio_report_total(const lg_fio_report_t *r, lg_dir_t d, lg_dirstats_t *out);
/* Is job j in its ramp? fio ends each job's ramp on its own (at its first completion past
 * ramp_time) and counts a job's I/Os in its ramp but no latencies, then sets them to zero:
 * I/O done and no latency sample yet. */
int lg_fio_job_in_ramp(const lg_fio_job_t *j);
/* As lg_fio_report_total, over the jobs past their ramp only: in a report that came while some
 * jobs were still in theirs, what those did is not the run's, and is about to be reset. */
void lg_fio_report_total_measured(const lg_fio_report_t *r, lg_dir_t d, lg_dirstats_t *out);
/* Sets *self_p to NULL. */
void lg_fio_report_destroy(lg_fio_report_t **self_p);

#endif
