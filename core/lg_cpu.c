/* lg_cpu.c: /proc/stat and /proc/PID/stat text into CPU times, and two readings into the busy
 * percent of the host's CPUs and its fio's share of them (lg_cpu.h). */
#include "lg_cpu.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lg_error.h"

void lg_cpu_set_clear(lg_cpu_set_t *s)
{
    memset(s, 0, sizeof *s);
}

void lg_cpu_set_add(lg_cpu_set_t *s, unsigned cpu)
{
    if (cpu < LG_CPU_SET_MAX)
        s->bits[cpu / 64] |= (uint64_t)1 << (cpu % 64);
}

int lg_cpu_set_has(const lg_cpu_set_t *s, unsigned cpu)
{
    return cpu < LG_CPU_SET_MAX && (s->bits[cpu / 64] >> (cpu % 64) & 1);
}

unsigned lg_cpu_set_count(const lg_cpu_set_t *s)
{
    unsigned n = 0;
    for (size_t i = 0; i < sizeof s->bits / sizeof s->bits[0]; i++)
        for (uint64_t b = s->bits[i]; b; b &= b - 1)
            n++;
    return n;
}

/* An unsigned decimal at *p (after blanks) within end; moves *p past it. 0 or -1. */
static int s_u64(const char **p, const char *end, uint64_t *v)
{
    const char *s = *p;
    while (s < end && *s == ' ')
        s++;
    if (s == end || *s < '0' || *s > '9')
        return -1;
    uint64_t x = 0;
    for (; s < end && *s >= '0' && *s <= '9'; s++) {
        unsigned d = (unsigned)(*s - '0');
        if (x > (UINT64_MAX - d) / 10)
            return -1;
        x = x * 10 + d;
    }
    *p = s;
    *v = x;
    return 0;
}

/* One "cpuN a b c ..." line [p, end): N and the sums; -1 when malformed. Fields after steal
 * (guest, guest_nice) are in user and nice already; kernels before 2.6.11 have fewer fields. */
static int s_cpu_line(const char *p, const char *end, unsigned *cpu, lg_cpu_times_t *t)
{
    uint64_t n, v[8] = {0};
    p += 3;
    if (s_u64(&p, end, &n) != 0 || n >= LG_CPU_SET_MAX || p == end || *p != ' ')
        return -1;
    int k = 0;
    while (k < 8 && s_u64(&p, end, &v[k]) == 0)
        k++;
    if (k < 4)
        return -1;
    *cpu = (unsigned)n;
    t->total = 0;
    for (int i = 0; i < 8; i++)
        t->total += v[i];
    t->idle = v[3];
    t->iowait = v[4];
    return 0;
}

int lg_cpu_stat_parse(const char *text, size_t len, const lg_cpu_set_t *set, lg_cpu_times_t *out)
{
    memset(out, 0, sizeof *out);
    const char *p = text, *end = text + len;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *le = nl ? nl : end;
        if (le - p > 3 && memcmp(p, "cpu", 3) == 0 && p[3] >= '0' && p[3] <= '9') {
            unsigned cpu;
            lg_cpu_times_t t;
            if (s_cpu_line(p, le, &cpu, &t) != 0)
                return LG_EPARSE;
            if (!set || lg_cpu_set_has(set, cpu)) {
                out->total += t.total;
                out->idle += t.idle;
                out->iowait += t.iowait;
                out->ncpus++;
            }
        }
        p = nl ? nl + 1 : end;
    }
    return out->ncpus ? 0 : LG_EPARSE;
}

double lg_cpu_busy_pct(const lg_cpu_times_t *a, const lg_cpu_times_t *b)
{
    if (a->ncpus != b->ncpus || b->total <= a->total || b->idle < a->idle || b->iowait < a->iowait)
        return NAN;
    double dt = (double)(b->total - a->total);
    double di = (double)(b->idle - a->idle) + (double)(b->iowait - a->iowait);
    if (di > dt)
        return NAN;
    return 100.0 * (dt - di) / dt;
}

int lg_cpu_proc_parse(const char *text, size_t len, lg_cpu_proc_t *out)
{
    const char *end = text + len, *p = text;
    uint64_t pid;
    if (s_u64(&p, end, &pid) != 0 || pid == 0 || pid > INT32_MAX)
        return LG_EPARSE;
    /* comm is whatever the program named itself: the last ')' ends it */
    const char *rp = NULL;
    for (const char *q = p; q < end; q++)
        if (*q == ')')
            rp = q;
    if (!rp || rp + 2 >= end || rp[1] != ' ')
        return LG_EPARSE;
    p = rp + 2; /* field 3, the state: one character */
    if (p + 1 >= end || p[1] != ' ')
        return LG_EPARSE;
    p += 1;
    /* fields 4 (ppid) to 17 (cstime) */
    uint64_t f[14];
    for (int i = 0; i < 14; i++) {
        /* ppid and a few others print as signed; only tty_nr and tpgid go negative */
        while (p < end && *p == ' ')
            p++;
        if (p < end && *p == '-')
            p++;
        if (s_u64(&p, end, &f[i]) != 0)
            return LG_EPARSE;
    }
    if (f[0] > INT32_MAX)
        return LG_EPARSE;
    out->pid = (int)pid;
    out->ppid = (int)f[0];
    out->ticks = f[10] + f[11] + f[12] + f[13];
    return 0;
}

typedef struct {
    int pid;
    size_t i; /* index into procs */
} pid_ix_t;

static int s_pid_cmp(const void *a, const void *b)
{
    int x = ((const pid_ix_t *)a)->pid, y = ((const pid_ix_t *)b)->pid;
    return (x > y) - (x < y);
}

/* Index (into procs) of pid, by binary search in byp (sorted by pid); n when absent. */
static size_t s_find(const pid_ix_t *byp, size_t n, int pid)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (byp[mid].pid < pid)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && byp[lo].pid == pid ? byp[lo].i : n;
}

int lg_cpu_tree_mark(const lg_cpu_proc_t *procs, size_t n, int root, unsigned char *in)
{
    /* Each process walks up its parents until it meets root (in the tree), pid 0 or a parent
     * that is gone (not), or one already known; what it passed gets the same answer. /proc's
     * order is not parents first (pids wrap), hence the lookup by pid. */
    memset(in, 0, n);
    if (n == 0)
        return 0;
    pid_ix_t *byp = malloc(n * sizeof *byp);
    unsigned char *state = calloc(n, 1); /* 0 unknown, 1 in the tree, 2 not */
    size_t *chain = malloc(n * sizeof *chain);
    int found = -ENOMEM;
    if (!byp || !state || !chain)
        goto out;
    found = 0;
    for (size_t i = 0; i < n; i++)
        byp[i] = (pid_ix_t){procs[i].pid, i};
    qsort(byp, n, sizeof *byp, s_pid_cmp);
    for (size_t i = 0; i < n; i++) {
        size_t depth = 0, k = i;
        unsigned char verdict = 2;
        while (k < n && depth < n) {
            if (state[k]) {
                verdict = state[k];
                break;
            }
            chain[depth++] = k;
            if (procs[k].pid == root) {
                verdict = 1;
                break;
            }
            if (procs[k].ppid == 0 || procs[k].ppid == procs[k].pid)
                break;
            k = s_find(byp, n, procs[k].ppid);
        }
        for (size_t d = 0; d < depth; d++)
            state[chain[d]] = verdict;
    }
    for (size_t i = 0; i < n; i++) {
        in[i] = state[i] == 1;
        found |= in[i] && procs[i].pid == root;
    }
out:
    free(byp);
    free(state);
    free(chain);
    return found;
}

uint64_t lg_cpu_tree_ticks(const lg_cpu_proc_t *procs, size_t n, int root, int *found)
{
    uint64_t sum = 0;
    *found = 0;
    unsigned char *in = malloc(n ? n : 1);
    if (!in)
        return 0;
    if (lg_cpu_tree_mark(procs, n, root, in) == 1) {
        *found = 1;
        for (size_t i = 0; i < n; i++)
            if (in[i])
                sum += procs[i].ticks;
    }
    free(in);
    return sum;
}

void lg_cpu_use(const lg_cpu_snap_t *a, const lg_cpu_snap_t *b, lg_cpu_use_t *out)
{
    out->busy_pct = NAN;
    out->fio_pct = NAN;
    out->cpus = 0;
    if (!a->host_ok || !b->host_ok)
        return;
    out->cpus = b->host.ncpus;
    out->busy_pct = lg_cpu_busy_pct(&a->host, &b->host);
    if (a->fio_ok && b->fio_ok && b->fio >= a->fio && b->fio_hz == a->fio_hz && b->fio_hz &&
        b->fio_wall_us > a->fio_wall_us && out->cpus) {
        double cpu_s = (double)(b->fio - a->fio) / (double)b->fio_hz;
        double cap_s = (double)(b->fio_wall_us - a->fio_wall_us) / 1e6 * out->cpus;
        out->fio_pct = 100.0 * cpu_s / cap_s;
    }
}
