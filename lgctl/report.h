/* report.h: a campaign's report: one row per run and direction, each saying which SUT config
 * (lg.sut_short of its labels) and protocol it measured, in reviewers' units (IOPS, MB/s = 10^6
 * bytes/s, latency in ms), read from the merged results; preconditioning runs are marked and a
 * steady state not reached is flagged. A campaign with application runs (pgbench, sysbench) gets
 * their figures too: a section in the table and Markdown, app_* columns in CSV and JSON. As a
 * table (readable numbers), Markdown, CSV or JSON. */
#ifndef LG_REPORT_H
#define LG_REPORT_H

#include <stdint.h>
#include <stdio.h>

#include "db.h"
#include "render.h"

/* Print the report of campaign_id, or if 0 of the newest campaign named name, or if name is
 * NULL of the newest campaign. Returns 0, LG_ENOTFOUND (err names what matched nothing and the
 * campaigns there are) or LG_EDB. */
int lg_report_print(PGconn *db, uint64_t campaign_id, const char *name, lg_format_t fmt, FILE *out,
                    char *err, size_t errlen);

/* A campaign's state from the database, as "lgctl status" prints it from a controller: for a
 * campaign whose controller is gone (a local run that ended). 0 or LG_ENOTFOUND (err names what
 * there is) or LG_EDB. */
int lg_report_status(PGconn *db, const char *name, FILE *out, char *err, size_t errlen);

#endif
