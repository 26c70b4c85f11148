/* resultrow.h: storing final figures: one row per run, agent and direction in lg.result (the
 * merged row has no agent), with percentiles and the sparse histogram as jsonb. Shared by the
 * scheduler and by "lgctl import". */
#ifndef LG_RESULTS_H
#define LG_RESULTS_H

#include <stddef.h>
#include <stdint.h>

#include "db.h"
#include "lg_stats.h"

/* Insert the row for (run_id, agent_id, d); agent_id 0 stores the merged row. A row already
 * there is left alone (a resend). Returns 0 or LG_EDB with the server's message in err. */
int lg_results_store(PGconn *db, uint64_t run_id, uint64_t agent_id, lg_dir_t d,
                     const lg_dirstats_t *s, char *err, size_t errlen);

/* The completion-latency percentiles fio printed ({"99.000000": ns, ...}: clat_ns.percentile,
 * fio's default) into the result stored for (run_id, agent_id or 0, d): its clat_percentiles,
 * never its percentiles (total latency). 0 or LG_EDB with the server's message in err. */
int lg_results_store_clat(PGconn *db, uint64_t run_id, uint64_t agent_id, lg_dir_t d,
                          const char *clat_pct, char *err, size_t errlen);

/* The same, with the percentiles fio printed ({"99.000000": ns, ...} from lat_ns.percentile) to
 * store when s has no histogram (plain json output of one job): exact, as fio computed them. */
int lg_results_store_pct(PGconn *db, uint64_t run_id, uint64_t agent_id, lg_dir_t d,
                         const lg_dirstats_t *s, const char *printed_pct, char *err, size_t errlen);

#endif
