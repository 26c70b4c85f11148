/* report.h: the comparison report: one table per campaign, one row per run and direction, in
 * reviewers' units (IOPS, MB/s = 10^6 bytes/s, latency in ms), read from the merged results. */
#ifndef LG_REPORT_H
#define LG_REPORT_H

#include <libpq-fe.h>
#include <stdint.h>
#include <stdio.h>

/* Print the report of campaign_id, or if 0 of the newest campaign named name, or if name is
 * NULL of the newest campaign. Returns 0, LG_ENOTFOUND or LG_EDB (message in err). */
int lg_report_print(PGconn *db, uint64_t campaign_id, const char *name, FILE *out, char *err,
                    size_t errlen);

#endif
