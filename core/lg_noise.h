/* lg_noise.h: Student's t distribution, and what a campaign's repeats buy in precision. The
 * comparisons themselves are SQL (lg.t_cdf, lg.t_quantile and lg.compare in
 * schema/017_compare_noise.sql); this is the same distribution for what lgctl says before
 * anything is measured (lgctl plan). */
#ifndef LG_NOISE_H
#define LG_NOISE_H

#include <stddef.h>
#include <stdint.h>

/* P(T <= t) for Student's t with df > 0 degrees of freedom (need not be whole); NAN for
 * df <= 0 or a NAN argument. */
double lg_t_cdf(double t, double df);

/* The p-quantile of Student's t with df > 0 degrees of freedom, 0 < p < 1; NAN otherwise.
 * Accurate to about 1e-12 relative. */
double lg_t_quantile(double p, double df);

/* How many batch means a single run of n_seconds per-second samples is cut into for its
 * confidence interval (the rule of lg.batch_means): min(10, n / 2), or 0 (no interval) when that
 * is under 5. */
uint32_t lg_noise_batches(uint32_t n_seconds);

/* One line (no newline) on the precision that `repeats` measured runs per load point of
 * runtime_s seconds each buy: the 95% interval of a mean in run-to-run standard deviations and
 * the smallest difference that shows as other than "~"; for one repeat, where the interval
 * comes from. Written into buf (len bytes, always terminated). */
void lg_noise_plan_text(uint32_t repeats, uint32_t runtime_s, char *buf, size_t len);

#endif
