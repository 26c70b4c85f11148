/* lg_cpu.h: a load host's own CPU over an interval: how busy the CPUs it may use were, and how
 * much of them its fio took. Pure: the agent's platform code reads /proc (Linux) or asks Windows
 * and hands the text or the counters here, so the arithmetic is the same everywhere and the unit
 * tests feed it saved /proc text. */
#ifndef LG_CPU_H
#define LG_CPU_H

#include <stddef.h>
#include <stdint.h>

/* A saturated load host: its CPUs at least this busy (mean over the measured window). The same
 * figure is in lg.v_host_run (schema/026_host_cpu.sql). */
#define LG_CPU_SATURATED_PCT 95.0

#define LG_CPU_SET_MAX 1024 /* CPU numbers 0 .. 1023 */

/* The CPUs a process may run on (its affinity mask, a cpuset's CPUs). */
typedef struct {
    uint64_t bits[LG_CPU_SET_MAX / 64];
} lg_cpu_set_t;

void lg_cpu_set_clear(lg_cpu_set_t *s);
void lg_cpu_set_add(lg_cpu_set_t *s, unsigned cpu);
int lg_cpu_set_has(const lg_cpu_set_t *s, unsigned cpu);
unsigned lg_cpu_set_count(const lg_cpu_set_t *s);

/* CPU time of a set of CPUs since boot, in the counters' own unit (Linux: USER_HZ ticks of
 * /proc/stat; Windows: 100 ns). total includes idle and iowait. */
typedef struct {
    uint64_t total;
    uint64_t idle;
    uint64_t iowait;
    unsigned ncpus; /* CPUs counted */
} lg_cpu_times_t;

/* Sum the per-CPU lines ("cpuN user nice system idle iowait irq softirq steal guest guest_nice")
 * of /proc/stat text for the CPUs in set (NULL: every CPU); the "cpu" line of all CPUs is not
 * used. guest and guest_nice are left out of total (the kernel counts them in user and nice
 * already). A CPU in set without a line (offline) is not counted. Returns 0, or LG_EPARSE when
 * no CPU of set has a line or a line of one is malformed. */
int lg_cpu_stat_parse(const char *text, size_t len, const lg_cpu_set_t *set, lg_cpu_times_t *out);

/* Busy percent between two readings of the same CPUs: 100 x (dtotal - didle - diowait) /
 * dtotal (time waiting for I/O is idle time: a CPU waiting on the NAS is not busy). NaN when
 * the CPUs counted differ, a counter went back or no time passed. */
double lg_cpu_busy_pct(const lg_cpu_times_t *a, const lg_cpu_times_t *b);

/* One process from /proc/PID/stat. ticks = utime + stime + cutime + cstime: its own CPU and
 * that of its children it has reaped (so a job process that ended still counts, in its
 * parent). */
typedef struct {
    int pid;
    int ppid;
    uint64_t ticks;
} lg_cpu_proc_t;

/* Parse one /proc/PID/stat line ("pid (comm) state ppid ... utime stime cutime cstime ...";
 * comm may hold spaces and parentheses: the last ')' ends it). Returns 0 or LG_EPARSE. */
int lg_cpu_proc_parse(const char *text, size_t len, lg_cpu_proc_t *out);

/* Which of procs[0..n) are root or below it (parents linked by ppid): in[i] set for those.
 * Returns 1, 0 when root is not among them, or -ENOMEM. */
int lg_cpu_tree_mark(const lg_cpu_proc_t *procs, size_t n, int root, unsigned char *in);
/* The ticks of root and all its descendants among procs[0..n); 0 with *found 0 when root is not
 * among them. */
uint64_t lg_cpu_tree_ticks(const lg_cpu_proc_t *procs, size_t n, int root, int *found);

/* One reading of the host's CPUs and of its fio, at one instant. */
typedef struct {
    lg_cpu_times_t host;
    int host_ok;
    uint64_t fio;        /* fio's (and its job processes') CPU time, in fio_hz units */
    uint64_t fio_hz;     /* units of fio per second (Linux: USER_HZ; Windows: 10,000,000) */
    int fio_ok;          /* fio was found */
    int64_t fio_wall_us; /* monotonic microseconds of the fio reading */
} lg_cpu_snap_t;

/* What a sample carries: host busy percent, fio's CPU as a percent of the host CPUs' capacity
 * (dwall x cpus), and the CPUs counted. A figure that is unknown is NaN; cpus 0 means nothing
 * was measured. */
typedef struct {
    double busy_pct;
    double fio_pct;
    uint32_t cpus;
} lg_cpu_use_t;

/* The use between readings a and b (a first). */
void lg_cpu_use(const lg_cpu_snap_t *a, const lg_cpu_snap_t *b, lg_cpu_use_t *out);

#endif
