/* import_diskspd.h: "lgctl import diskspd": results of Microsoft DiskSpd (the Windows load host's
 * standard tool), its -Rxml output or its text output, stored as a campaign with one run per
 * timespan. Parsing (text to lg_diskspd_t) is pure and apart from storing. */
#ifndef LG_IMPORT_DISKSPD_H
#define LG_IMPORT_DISKSPD_H

#include "db.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define LG_DISKSPD_MAX_PCT 128
#define LG_DISKSPD_MAX_SPANS 64

/* One direction (read or write) of one timespan, summed over its threads and targets. A latency
 * figure DiskSpd did not print (no -L, or no I/O that way) is NAN. */
typedef struct {
    uint64_t ios, bytes;
    double lat_mean_ms;   /* DiskSpd's average of every I/O's latency (issue to completion) */
    double lat_stddev_ms; /* DiskSpd's: a population standard deviation (divides by N) */
    double lat_min_ms, lat_max_ms;
    size_t npct; /* percentiles DiskSpd printed, strictly between 0 and 100 */
    double pct[LG_DISKSPD_MAX_PCT], pct_ms[LG_DISKSPD_MAX_PCT];
    double iops_stddev; /* -D: standard deviation of the per-interval IOPS; NAN without it */
} lg_diskspd_dir_t;

/* One interval of -D's per-interval figures (XML only): read [0] and write [1] I/Os completed in
 * it, and with -L (DiskSpd 2.0.20 on) their latencies; NAN where not printed. */
typedef struct {
    uint32_t end_ms; /* SampleMillisecond: the interval's end since measuring began */
    uint64_t ios[2];
    double lat_avg_ms[2], lat_sd_ms[2], lat_min_ms[2], lat_max_ms[2];
} lg_diskspd_sample_t;

/* One timespan: what it ran (from the profile part of the output) and what it measured. */
typedef struct {
    double test_s;       /* "actual test time" / TestTimeSeconds, as printed (%.2f) */
    uint32_t threads;    /* all threads: targets x threads per target, or the thread pool */
    uint32_t qd;         /* outstanding I/Os per thread (the first target's; see qd_differs) */
    bool qd_differs;     /* targets ran at different depths: qd is the deepest */
    uint32_t bs;         /* block size in bytes (the first target's) */
    int write_ratio;     /* -w: 0..100; -1 when the output does not say */
    int random;          /* 1 random (-r), 0 sequential, -1 not said */
    int direct;          /* 1 the OS's cache off (-Su, -Sh, -Sr): unbuffered I/O; 0 on; -1 */
    uint32_t duration_s; /* -d as asked; 0 when not said */
    uint32_t warmup_s;   /* -W */
    char target[512];    /* the first target's path */
    size_t ntargets;
    bool has_lat;       /* -L: latency measured */
    bool bs_differs;    /* its targets' block sizes differ: bs is the first's */
    uint32_t bucket_ms; /* -D's interval (IoBucketDuration); 0 without -D */
    size_t nsamples;    /* -D's intervals, in order; samples is owned (lg_diskspd_clear) */
    lg_diskspd_sample_t *samples;
    lg_diskspd_dir_t dir[2]; /* [0] read, [1] write */
} lg_diskspd_span_t;

typedef struct {
    bool xml;           /* -Rxml; else the text output */
    char computer[256]; /* ComputerName / "computer name:"; "" when the output has none */
    char version[64];   /* <Tool><Version>; "" when not printed (text output has none) */
    char start[64];     /* RunTime / "start time:" as printed, e.g. "2018/10/18 21:39:04 UTC" */
    char cmdline[1024]; /* text output's "Command Line:"; "" otherwise */
    size_t nspans;
    lg_diskspd_span_t spans[LG_DISKSPD_MAX_SPANS];
    size_t skipped; /* timespans interrupted before measuring began: not in spans */
} lg_diskspd_t;

/* Whether buf[0..len) (the start of a file is enough) is DiskSpd output; sets *format_name to
 * "diskspd-xml" or "diskspd-text" when it is. A UTF-8 or UTF-16 byte order mark is allowed. */
bool lg_import_diskspd_sniff(const char *buf, size_t len, const char **format_name);

/* Text as UTF-8: a UTF-8 byte order mark dropped, invalid UTF-8 bytes replaced by U+FFFD,
 * UTF-16LE/BE (with its mark, as PowerShell's redirection writes) converted; other input copied.
 * Caller frees *out. Returns 0, -ENOMEM, or LG_EPARSE for UTF-16 that is not well formed (err says
 * where). */
int lg_diskspd_to_utf8(const char *buf, size_t len, char **out, size_t *outlen, char *err,
                       size_t errlen);

/* Parse DiskSpd output (UTF-8, as lg_diskspd_to_utf8 gives) into *out (clear it after with
 * lg_diskspd_clear, whatever the outcome). Returns 0, or LG_EPARSE with err naming the format it
 * recognised and what is missing or malformed. */
int lg_diskspd_parse(const char *text, size_t len, lg_diskspd_t *out, char *err, size_t errlen);
/* Free what *ds owns (its spans' samples); ds itself is the caller's. */
void lg_diskspd_clear(lg_diskspd_t *ds);
/* The two formats' own parsers (lg_diskspd_parse picks one). */
/* A timespan with nothing read yet: counts 0, every latency and the ratios unknown (NAN, -1). */
void lg__diskspd_span_init(lg_diskspd_span_t *s);
int lg__diskspd_parse_xml(const char *text, size_t len, lg_diskspd_t *out, char *err,
                          size_t errlen);
int lg__diskspd_parse_text(const char *text, size_t len, lg_diskspd_t *out, char *err,
                           size_t errlen);

/* Store files[0..n) as one campaign named name (NULL: "import-" and the first file's name), one
 * run per timespan of each file, the computer name as the agent ("import:NAME"), with SUT labels
 * "k=v,k=v" (may be NULL). All or nothing, in one transaction: on any error nothing is stored and
 * err names the file, the format recognised and why. Returns 0 with *campaign_id set, or a
 * negative error. */
int lg_import_diskspd(PGconn *db, const char *const *files, size_t n, const char *labels,
                      const char *name, uint64_t *campaign_id, char *err, size_t errlen);

#endif
