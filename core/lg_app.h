/* lg_app.h: the output of the application benchmarks lg runs beside fio (pgbench against a
 * private PostgreSQL, sysbench OLTP against a private MariaDB) read into per-second samples and
 * the tools' own final totals. Pure parsing: the caller captures the output and hands it in. */
#ifndef LG_APP_H
#define LG_APP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum { LG_APP_PGBENCH = 1, LG_APP_SYSBENCH_OLTP = 2 } lg_app_kind_t;

/* One per-second report. A figure the tool does not print for this kind is NAN; a pgbench item
 * it prints only when it can be non-zero (retries with --max-tries != 1, lag with -R, skipped
 * with -L) is 0 when absent. Counts are doubles so that NAN can say "not this tool". */
typedef struct {
    double t_s;       /* end of the interval: seconds since the start, or Unix time (t_epoch) */
    bool t_epoch;     /* pgbench --progress-timestamp: t_s is Unix time with milliseconds */
    uint32_t threads; /* sysbench "thds"; 0 for pgbench, whose line has none */
    double tps;       /* transactions per second over the interval */
    double qps;       /* sysbench; NAN for pgbench, which counts transactions only */
    double read_qps, write_qps, other_qps; /* sysbench "r/w/o"; NAN for pgbench */
    double lat_avg_ms;    /* pgbench "lat"; NAN for sysbench, whose line has only a percentile */
    double lat_stddev_ms; /* pgbench "stddev"; NAN for sysbench */
    double lat_pct_ms; /* sysbench "lat (ms,P%)"; NAN for pgbench and for sysbench --percentile=0 */
    uint32_t pct;      /* P of lat_pct_ms; 0 when none */
    double err_ps;     /* sysbench "err/s" (ignored errors); NAN for pgbench (see failed) */
    double reconn_ps;  /* sysbench "reconn/s"; NAN for pgbench */
    double failed;     /* pgbench failed transactions in the interval (a count); NAN sysbench */
    double retried, retries; /* pgbench transactions retried and retries in the interval */
    double lag_ms;           /* pgbench -R: average schedule lag */
    double skipped;          /* pgbench -L: transactions skipped in the interval */
} lg_app_sample_t;

/* The tool's own final figures. As in lg_app_sample_t, NAN where the tool has no such figure. */
typedef struct {
    lg_app_kind_t kind;
    uint32_t threads;      /* pgbench "number of threads"; sysbench "Number of threads" */
    uint64_t transactions; /* pgbench "number of transactions actually processed"; sysbench
                            * "transactions" */
    double tps;            /* pgbench "tps = X (without initial connection time)": transactions
                            * over the clients' mean run time, the connections' set-up left out;
                            * sysbench "transactions: N (X per sec.)": over its total time */
    double lat_avg_ms;     /* pgbench "latency average"; sysbench "avg" */
    double duration_s;     /* pgbench "duration" (the -T asked for; NAN with -t); sysbench
                            * "total time" (measured) */
    /* pgbench */
    uint32_t clients, scale;
    uint64_t tx_per_client;    /* -t: "number of transactions per client"; 0 with -T */
    uint64_t failed;           /* "number of failed transactions" */
    uint64_t retried, retries; /* 0 when not printed (--max-tries 1) */
    uint64_t skipped;          /* 0 when not printed (no -L) */
    double lat_stddev_ms;      /* NAN when not printed: pgbench prints it only with -P, -R or -L */
    double init_conn_ms;       /* "initial connection time" */
    /* sysbench */
    uint64_t queries; /* "queries", which is read + write + other (checked) */
    uint64_t reads, writes, others;
    double qps;
    uint64_t errors; /* "ignored errors" */
    double errors_ps;
    uint64_t reconnects;
    double reconnects_ps;
    uint64_t events; /* "total number of events" */
    double lat_min_ms, lat_max_ms, lat_sum_ms;
    double
        lat_pct_ms; /* "Nth percentile"; NAN with --percentile=0 ("percentile stats: disabled") */
    uint32_t pct;   /* N; 0 when none */
} lg_app_total_t;

/* Reads one line of the tool's output (a trailing newline is allowed). Returns 1 when it is a
 * per-second report and *out holds it; 0 when it is another line (*out untouched); LG_EPARSE
 * when it starts like a report but is malformed, with a message naming the field in err (when
 * err is not NULL). pgbench's reports are the "progress: " lines of -P (on stderr); sysbench's
 * the "[ Ns ] thds: " lines of --report-interval (on stdout). */
int lg_app_parse_line(lg_app_kind_t k, const char *line, lg_app_sample_t *out, char *err,
                      size_t errlen);

/* Reads the tool's final summary out of len bytes of its output (stdout alone, or stdout and
 * stderr together; progress and other lines are skipped). Returns 0, or LG_EPARSE with a message
 * naming the field that is missing, repeated or malformed in err. */
int lg_app_parse_final(lg_app_kind_t k, const char *text, size_t len, lg_app_total_t *out,
                       char *err, size_t errlen);

#endif
