/* lg_steady.h: the steady-state rule of the review method (after the SNIA PTS): over a window
 * of 5 rounds of per-round IOPS, the range (max - min) is within 20% of the window mean and the
 * least-squares line across the window moves by no more than 10% of the mean
 * (|slope| x (rounds - 1) <= 0.10 x mean). */
#ifndef LG_STEADY_H
#define LG_STEADY_H

#include <stdbool.h>
#include <stddef.h>

#define LG_STEADY_WINDOW 5
#define LG_STEADY_RANGE 0.20
#define LG_STEADY_SLOPE 0.10

typedef struct {
    size_t n; /* rounds in the window (LG_STEADY_WINDOW once enough rounds ran) */
    double mean;
    double min, max;
    double range;     /* max - min */
    double slope;     /* IOPS per round, least squares */
    double excursion; /* |slope| x (n - 1): how far the fitted line moves across the window */
    bool range_ok, slope_ok;
    bool reached; /* a full window with both rules holding */
} lg_steady_t;

/* Judge the last LG_STEADY_WINDOW of the n rounds in iops[] (fewer: judged but not reached). */
void lg_steady_judge(const double *iops, size_t n, lg_steady_t *out);

#endif
