/* cli.h: inside lgctl's command line: the options' ids (their table is in lgctl.c), what a command
 * is given, and the commands of each family (cmd_*.c) that lgctl.c's table calls. */
#ifndef LG_LGCTL_CLI_H
#define LG_LGCTL_CLI_H

#include <stddef.h>
#include <stdint.h>

#include "db.h"
#include "lg_operator.h"
#include "lg_spec.h"
#include "lgctl.h"

/* lgctl's options, in the order of their table (s_opts in lgctl.c). */
typedef enum {
    OPT_HELP,
    OPT_VERSION,
    OPT_QUIET,
    OPT_DATA_DIR,
    OPT_CONTROLLER,
    OPT_KEY,
    OPT_CONTROLLER_KEY,
    OPT_PLAINTEXT,
    OPT_ALLOW_DESTRUCTIVE,
    OPT_SMB_CREDENTIALS,
    OPT_ISCSI_CHAP,
    OPT_APP_USER,
    OPT_OPERATOR,
    OPT_SUBMIT_ID,
    OPT_CAMPAIGN,
    OPT_ID,
    OPT_FORMAT,
    OPT_BY,
    OPT_BASELINE,
    OPT_METRIC,
    OPT_WHERE,
    OPT_SWEEP,
    OPT_IGNORE,
    OPT_THRESHOLD,
    OPT_LABELS,
    OPT_NAME,
    OPT_DIR,
    OPT_CHECK,
    OPT_TIMEOUT,
    OPT_FAILED,
    OPT_RUNS,
    OPT_BEFORE,
    OPT_N
} opt_id_t;

/* The most arguments a command takes: lgctl import's files (years of results, one a run). */
#define LGCTL_MAX_ARGS 4096

typedef struct {
    lgctl_opts_t o;
    const char *pos[LGCTL_MAX_ARGS]; /* the arguments after the command's words */
    int npos;
    const char *val[OPT_N]; /* each option's value ("" for a flag), NULL: not given */
} cli_t;

/* Each command: what its arguments and options ask, as an LGCTL_* exit code. */
/* cmd_plan.c */
int lg__cli_plan(cli_t *c);
/* cmd_campaign.c */
int lg__cli_run(cli_t *c);
int lg__cli_submit(cli_t *c);
int lg__cli_pause(cli_t *c);
int lg__cli_resume(cli_t *c);
int lg__cli_abort(cli_t *c);
int lg__cli_rerun(cli_t *c);
/* cmd_status.c */
int lg__cli_status(cli_t *c);
int lg__cli_watch(cli_t *c);
int lg__cli_agents(cli_t *c);
/* cmd_db.c */
int lg__cli_db_url(cli_t *c);
int lg__cli_db_start(cli_t *c);
int lg__cli_db_stop(cli_t *c);
int lg__cli_db_shell(cli_t *c);
int lg__cli_db_migrate(cli_t *c);
int lg__cli_db_archive(cli_t *c);
int lg__cli_db_restore(cli_t *c);
/* cmd_report.c */
/* The measured points of the campaign (id, else the newest named name, else the newest) that have
 * no figures, named on stderr: LGCTL_FAIL when there is one, else LGCTL_OK. */
int lg__cli_failed_points(PGconn *db, uint64_t campaign_id, const char *name);
int lg__cli_report(cli_t *c);
int lg__cli_compare(cli_t *c);
int lg__cli_rank(cli_t *c);
int lg__cli_export_run(cli_t *c);
/* cmd_import.c */
int lg__cli_import(cli_t *c);
int lg__cli_import_fio(cli_t *c);
int lg__cli_import_results(cli_t *c);
int lg__cli_import_diskspd(cli_t *c);
int lg__cli_import_app(cli_t *c);
/* cmd_keygen.c */
int lg__cli_keygen(cli_t *c);

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
/* Open the database (LG_DATABASE_URL or the private cluster), run fn, close what was opened.
 * fn returns an LGCTL_* code, and so does this (cmd_db.c). */
int lg__cli_with_db(const lgctl_opts_t *o, int (*fn)(PGconn *db, void *arg), void *arg);
/* One request about the newest campaign name to its controller: cmd is "status", "pause",
 * "resume" or "abort"; what it answers is printed (cmd_campaign.c). */
int lg__cli_campaign_request(const lgctl_opts_t *o, const char *cmd, const char *name);
/* Print the report of a campaign (0 with name NULL: the newest) from the database
 * (cmd_report.c). */
int lg__cli_print_report(const lgctl_opts_t *o, uint64_t campaign_id, const char *name);

#endif
