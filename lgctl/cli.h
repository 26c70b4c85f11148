/* cli.h: inside lgctl's command line: what a command is given (the options' and commands' tables
 * are in lgctl.c), and the commands of each family (cmd_*.c) that lgctl.c's table calls. */
#ifndef LG_LGCTL_CLI_H
#define LG_LGCTL_CLI_H

#include <stddef.h>
#include <stdint.h>

#include "db.h"
#include "lg_operator.h"
#include "lg_spec.h"
#include "lgctl.h"

/* The most arguments a command takes: lgctl import's files (years of results, one a run). */
#define LGCTL_MAX_ARGS 4096

/* What the command line gives a command (lgctl.c's tables fill it). */
typedef struct {
    lgctl_opts_t o;                      /* what every command reads */
    const char *pos[LGCTL_MAX_ARGS + 4]; /* the arguments after the command's words */
    int npos;
    /* the options of some commands as given (NULL or 0: not given) */
    const char *format; /* --format as written (o.format: read, but for export-run's) */
    const char *campaign, *id, *by, *baseline, *metric, *where, *ignore, *threshold;
    const char *labels, *name, *dir, *runs, *before;
    int sweep, check, failed;
} cli_t;

/* Each command (lg_optcmd_t's run): what its arguments and options ask (ctx: a cli_t), as an
 * LGCTL_* exit code. */
/* cmd_plan.c */
int lg__cli_plan(void *ctx);
/* cmd_campaign.c */
int lg__cli_run(void *ctx);
int lg__cli_submit(void *ctx);
int lg__cli_pause(void *ctx);
int lg__cli_resume(void *ctx);
int lg__cli_abort(void *ctx);
int lg__cli_rerun(void *ctx);
/* cmd_status.c */
int lg__cli_status(void *ctx);
int lg__cli_watch(void *ctx);
int lg__cli_agents(void *ctx);
/* cmd_db.c */
int lg__cli_db_url(void *ctx);
int lg__cli_db_start(void *ctx);
int lg__cli_db_stop(void *ctx);
int lg__cli_db_shell(void *ctx);
int lg__cli_db_migrate(void *ctx);
int lg__cli_db_archive(void *ctx);
int lg__cli_db_restore(void *ctx);
/* cmd_report.c */
/* The measured points of the campaign (id, else the newest named name, else the newest) that have
 * no figures, named on stderr: LGCTL_FAIL when there is one, else LGCTL_OK. */
int lg__cli_failed_points(PGconn *db, uint64_t campaign_id, const char *name);
int lg__cli_report(void *ctx);
int lg__cli_compare(void *ctx);
int lg__cli_rank(void *ctx);
int lg__cli_export_run(void *ctx);
/* cmd_import.c */
int lg__cli_import(void *ctx);
int lg__cli_import_fio(void *ctx);
int lg__cli_import_results(void *ctx);
int lg__cli_import_diskspd(void *ctx);
int lg__cli_import_app(void *ctx);
/* cmd_keygen.c */
int lg__cli_keygen(void *ctx);

/* What the families share. */
/* The spec at path read and checked into *spec (caller destroys it), or an exit code after
 * saying what is wrong and where; a spec file that is not there is a usage error (2), as a broken
 * one is (cmd_plan.c). */
int lg__cli_spec_load(const char *path, lg_spec_t **spec);
/* What in spec's plan would make its figures wrong without being an error
 * (lg_plan_unwritten_reads), each said as a warning, for run and submit (cmd_plan.c). */
void lg__cli_spec_warn(const lg_spec_t *spec);
/* Try each telemetry source of spec once; print: say what answered. Returns how many did not
 * answer (cmd_plan.c). */
size_t lg__cli_telemetry_check(const lg_spec_t *spec, int print, const lg_operator_t *op);
/* The operator's file of o (--operator, else the default when it exists), loaded; an empty one
 * when there is none. NULL after saying why it cannot be used. Caller owns it. */
lg_operator_t *lg__cli_operator(const lgctl_opts_t *o);
/* Open the database (LG_DATABASE_URL or the private cluster: o->db), run fn, close what was opened.
 * fn returns an LGCTL_* code, and so does this (cmd_db.c). */
int lg__cli_with_db(const lgctl_opts_t *o, int (*fn)(PGconn *db, void *arg), void *arg);
/* One request about the newest campaign name to its controller: cmd is "status", "pause",
 * "resume" or "abort"; what it answers is printed (cmd_campaign.c). */
int lg__cli_campaign_request(const lgctl_opts_t *o, const char *cmd, const char *name);
/* Print the report of a campaign (0 with name NULL: the newest) from the database
 * (cmd_report.c). */
int lg__cli_print_report(const lgctl_opts_t *o, uint64_t campaign_id, const char *name);

#endif
