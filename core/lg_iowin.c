/* lg_iowin.c: the measured I/O's window of one load host. See lg_iowin.h. */
#include "lg_iowin.h"

#include <stdlib.h>

#include "lg_error.h"

/* The job's runtime, or 0 while it has no measured I/O: in its ramp fio counts I/Os but no
 * latencies, and its runtime then runs from the ramp's start. */
static uint64_t s_job_rt(const lg_fio_job_t *j)
{
    uint64_t rt = 0, lat = 0;
    for (int d = 0; d < LG_DIR_NR; d++) {
        lat += j->dir[d].lat_n;
        if (j->dir[d].runtime_ms > rt)
            rt = j->dir[d].runtime_ms;
    }
    return lat ? rt : 0;
}

static int s_grow(lg_iowin_t *w, size_t n)
{
    if (n <= w->n)
        return 0;
    int64_t *s = realloc(w->start_ms, n * sizeof *s);
    if (!s)
        return -ENOMEM;
    w->start_ms = s;
    uint64_t *rt = realloc(w->rt_ms, n * sizeof *rt);
    if (!rt)
        return -ENOMEM;
    w->rt_ms = rt;
    for (size_t i = w->n; i < n; i++) {
        w->start_ms[i] = INT64_MAX;
        w->rt_ms[i] = 0;
    }
    w->n = n;
    return 0;
}

int lg_iowin_note(lg_iowin_t *w, const lg_fio_report_t *rep)
{
    if (s_grow(w, rep->njobs))
        return -ENOMEM;
    for (size_t i = 0; i < rep->njobs; i++) {
        uint64_t rt = s_job_rt(&rep->jobs[i]);
        if (!rt)
            continue; /* not started, or in its ramp */
        int64_t s = rep->timestamp_ms - (int64_t)rt;
        if (s < w->start_ms[i])
            w->start_ms[i] = s;
        if (rt > w->rt_ms[i])
            w->rt_ms[i] = rt;
    }
    return 0;
}

int lg_iowin_get(const lg_iowin_t *w, int64_t *start_ms, int64_t *end_ms)
{
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (size_t i = 0; i < w->n; i++) {
        if (w->start_ms[i] == INT64_MAX)
            continue;
        int64_t e = w->start_ms[i] + (int64_t)w->rt_ms[i];
        if (w->start_ms[i] < lo)
            lo = w->start_ms[i];
        if (e > hi)
            hi = e;
    }
    if (lo == INT64_MAX)
        return -1;
    *start_ms = lo;
    *end_ms = hi;
    return 0;
}

uint64_t lg_iowin_runtime_ms(const lg_iowin_t *w)
{
    uint64_t rt = 0;
    for (size_t i = 0; i < w->n; i++)
        if (w->start_ms[i] != INT64_MAX && w->rt_ms[i] > rt)
            rt = w->rt_ms[i];
    return rt;
}

void lg_iowin_clear(lg_iowin_t *w)
{
    free(w->start_ms);
    free(w->rt_ms);
    *w = (lg_iowin_t){0};
}
