/* hostcpu.h: what lgctl says about the load hosts' own CPU (lg.v_host_run, 026_host_cpu): a
 * load host at 95% CPU or more over a run's measured window was the limit of that run, not the
 * NAS, and the report and comparisons say so. */
#ifndef LG_HOSTCPU_H
#define LG_HOSTCPU_H

#include <stdio.h>

#include "db.h"

/* After a campaign's run table: one warning line per saturated load host, naming it and its
 * runs (campaign id cid). md: Markdown. Returns 0 or LG_EDB with err set. */
int lg_hostcpu_report_warning(PGconn *db, const char *cid, int md, FILE *out, char *err,
                              size_t errlen);

/* After a comparison (lg.metric_figures' parameters: dimension, the metrics and campaigns and
 * ignored labels as JSON arrays or NULL, the filter as a JSON object): one note line per side,
 * config and load host that was saturated in a run behind its figures. Returns 0, or LG_EDB
 * (LG_ETIMEOUT...) with err set: the comparison then fails rather than drop its notes. */
int lg_hostcpu_compare_note(PGconn *db, const char *dimension, const char *metrics,
                            const char *filter, const char *campaigns, const char *ignore, int md,
                            FILE *out, char *err, size_t errlen);

#endif
