/* lg_steady.c: the steady-state judgement over the last window of rounds. */
#include "lg_steady.h"

#include <math.h>
#include <string.h>

void lg_steady_judge(const double *iops, size_t n, lg_steady_t *out)
{
    memset(out, 0, sizeof *out);
    size_t w = n < LG_STEADY_WINDOW ? n : LG_STEADY_WINDOW;
    if (w == 0)
        return;
    const double *x = iops + (n - w);
    double sum = 0, min = x[0], max = x[0];
    for (size_t i = 0; i < w; i++) {
        sum += x[i];
        if (x[i] < min)
            min = x[i];
        if (x[i] > max)
            max = x[i];
    }
    double mean = sum / (double)w;
    /* Least squares over round numbers 0 .. w-1. */
    double xm = (double)(w - 1) / 2.0, sxy = 0, sxx = 0;
    for (size_t i = 0; i < w; i++) {
        sxy += ((double)i - xm) * (x[i] - mean);
        sxx += ((double)i - xm) * ((double)i - xm);
    }
    out->n = w;
    out->mean = mean;
    out->min = min;
    out->max = max;
    out->range = max - min;
    out->slope = sxx > 0 ? sxy / sxx : 0;
    out->excursion = fabs(out->slope) * (double)(w - 1);
    out->range_ok = out->range <= LG_STEADY_RANGE * mean;
    out->slope_ok = out->excursion <= LG_STEADY_SLOPE * mean;
    out->reached = w == LG_STEADY_WINDOW && mean > 0 && out->range_ok && out->slope_ok;
}
