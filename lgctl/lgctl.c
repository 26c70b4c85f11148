/* lgctl.c: the operator's command line: one table of options and one of commands, each naming
 * the options it takes (lg_opt.h), from which come the parser, lgctl help, lgctl(1)'s COMMANDS and
 * OPTIONS and the bash completion; main reads the command line (lg_opt_parse_cmd), starts up as
 * lg-export does (dbcli.h) and calls the command (cmd_*.c: campaigns, status, plan, database,
 * reports, imports, keys). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "db.h"
#include "dbcli.h"
#include "lg_error.h"
#include "lg_log.h"
#include "lg_opt.h"
#include "lg_util.h"

#define C(field) offsetof(cli_t, field)

/* lgctl's options, each written once: what each command says of one it takes its own way is in
 * its list (s_o_* below). */
static const lg_opt_t s_opts[] = {
    {"help", 'h', NULL, LG_OPT_HELP, 0, 0, 0, 0, NULL,
     "print this help and exit (also: lgctl help COMMAND)", NULL},
    {"version", 0, NULL, LG_OPT_VERSION, 0, 0, 0, 0, NULL, "print the version and exit", NULL},
    {"quiet", 0, NULL, LG_OPT_FLAG, 0, C(o.quiet), 0, 0, NULL,
     "no progress lines: only errors and the report", NULL},
    LG_DBCLI_OPT_DB(cli_t, o.db),
    LG_DBCLI_OPT_DATA_DIR(cli_t, o.db,
                          "local mode's data (default $XDG_DATA_HOME/lg; as root without\n"
                          "XDG_DATA_HOME: /var/lib/lg-local); one that another user\n"
                          "owns or can write is refused"),
    {"controller", 0, "EP", LG_OPT_STR, 0, C(o.controller), 0, 0, NULL,
     "the controller's control endpoint (default\n"
     "$LG_CONTROLLER)",
     NULL},
    {"key", 0, "FILE", LG_OPT_STR, 0, C(o.key_file), 0, 0, NULL,
     "our CURVE key pair (default $LG_KEY); its public key must be\n"
     "in the controller's --control-keys",
     NULL},
    {"controller-key", 0, "KEY", LG_OPT_STR, 0, C(o.controller_key), 0, 0, NULL,
     "the controller's public key: its .pub file, or z85:KEY inline\n"
     "(default $LG_CONTROLLER_KEY)",
     NULL},
    {"plaintext", 0, NULL, LG_OPT_FLAG, 0, C(o.plaintext), 0, 0, NULL,
     "no CURVE, for a --plaintext controller on loopback", NULL},
    {"allow-destructive", 0, NULL, LG_OPT_FLAG, 0, C(o.allow_destructive), 0, 0, NULL,
     "local mode: let the agent overwrite block: targets", NULL},
    {"smb-credentials", 0, "FILE", LG_OPT_STR, 0, C(o.smb_credentials), 0, 0, NULL,
     "local mode: the agent's SMB user and password (smbclient -A\n"
     "format: username = ..., password = ...)",
     NULL},
    {"iscsi-chap", 0, "FILE", LG_OPT_STR, 0, C(o.iscsi_chap), 0, 0, NULL,
     "local mode: the agent's CHAP user and password (same format)", NULL},
    {"app-user", 0, "USER", LG_OPT_STR, 0, C(o.app_user), 0, 0, NULL,
     "local mode: the account the database servers of app: profiles\n"
     "run as (they refuse root; needed when lgctl runs as root)",
     NULL},
    {"operator", 0, "FILE", LG_OPT_STR, 0, C(o.operator_file), 0, 0, NULL,
     "the operator's probes and credentials, the only programs a spec's\n"
     "reduction: may name and secrets its telemetry may send (default\n"
     "/etc/lg/operator.yaml as root, else ~/.config/lg/operator.yaml,\n"
     "when it exists); yours or root's, writable by nobody else",
     NULL},
    {"submit-id", 0, "ID", LG_OPT_STR, 0, C(o.submit_id), 0, 0, NULL,
     "the submission's id: submitting again with the same id returns the\n"
     "same campaign (default: a random one, kept across lgctl's retries)",
     NULL},
    {"campaign", 0, "NAME", LG_OPT_STR, 0, C(campaign), 0, 0, NULL,
     "the newest campaign of this name", NULL},
    {"id", 0, "N", LG_OPT_STR, 0, C(id), 0, 0, NULL, "the campaign with this id", NULL},
    {"failed", 0, NULL, LG_OPT_FLAG, 0, C(failed), 0, 0, NULL,
     "the measured points that failed (the default)", NULL},
    {"runs", 0, "N,...", LG_OPT_STR, 0, C(runs), 0, 0, NULL,
     "the points of these runs (run ids, any attempt)", NULL},
    {"format", 0, "FMT", LG_OPT_STR, 0, C(format), 0, 0, NULL,
     "table, csv, json or markdown (default table)", NULL},
    {"by", 0, "DIMENSION", LG_OPT_STR, 0, C(by), 0, 0, NULL,
     "a SUT label, or protocol, profile, direction, threads, qd,\n"
     "campaign",
     NULL},
    {"baseline", 0, "VALUE", LG_OPT_STR, 0, C(baseline), 0, 0, NULL,
     "the value of --by the others are measured against", NULL},
    {"metric", 0, "M,...", LG_OPT_STR, 0, C(metric), 0, 0, NULL,
     "default iops; any of iops, mbps, lat_avg_ms, lat_min_ms, lat_max_ms,\n"
     "lat_stddev_ms, p50_ms, p90_ms, p95_ms, p99_ms, p99_9_ms, p99_99_ms\n"
     "(total latency; also lat_p99_ms, ...), clat_p50_ms ... clat_p99_99_ms\n"
     "(completion latency, the percentiles fio prints by default: imported\n"
     "results), iops_at_limit (a latency-bounded search's best\n"
     "IOPS under its limit), tps and qps (application runs: transactions and\n"
     "queries per second)",
     NULL},
    {"where", 0, "k=v,...", LG_OPT_STR, 0, C(where), 0, 0, NULL,
     "only results whose labels or dimensions have these values", NULL},
    {"sweep", 0, NULL, LG_OPT_FLAG, 0, C(sweep), 0, 0, NULL,
     "IOPS and latency per load point of swept profiles, a column\n"
     "pair per configuration",
     NULL},
    {"ignore", 0, "LABEL,...", LG_OPT_STR, 0, C(ignore), 0, 0, NULL,
     "labels left out of what pairs two figures: for a --by dimension that\n"
     "they change together with (compare says which)",
     NULL},
    {"threshold", 0, "PCT", LG_OPT_STR, 0, C(threshold), 0, 0, NULL,
     "differences under PCT percent show as ~ (same), like those\n"
     "within the noise (default 0)",
     NULL},
    {"labels", 0, "k=v,...", LG_OPT_STR, 0, C(labels), 0, 0, NULL,
     "the SUT labels of what was measured", NULL},
    {"name", 0, "NAME", LG_OPT_STR, 0, C(name), 0, 0, NULL,
     "the campaign's name (1 to 63 characters)", NULL},
    {"dir", 0, "DIR", LG_OPT_STR, 0, C(dir), 0, 0, NULL,
     "where the key files go (default .; made, mode 0700, if missing)", NULL},
    {"check", 0, NULL, LG_OPT_FLAG, 0, C(check), 0, 0, NULL, "try what the command would use",
     NULL},
    {"before", 0, "DATE", LG_OPT_STR, 0, C(before), 0, 0, NULL,
     "campaigns that finished before DATE (e.g. 2026-01-01, or\n"
     "'2026-01-01 12:00+01')",
     NULL},
    LG_DBCLI_OPT_TIMEOUT(cli_t, o.db),
    /* the build's, for lgctl(1)'s COMMANDS and OPTIONS (doc/man-page.sh) */
    {"man-options", 0, NULL, LG_OPT_MAN, LG_OPT_HIDDEN, 0, 0, 0, NULL, NULL, NULL},
    {NULL, 0, NULL, 0, 0, 0, 0, 0, NULL, NULL, NULL},
};

/* talking to a controller: --controller, or the local one of a run in progress */
#define CMD_OPTS_CTL                                                                               \
    {"controller", NULL}, {"key", NULL}, {"controller-key", NULL}, {"plaintext", NULL},            \
    {                                                                                              \
        "data-dir", "the data folder of a local \"lgctl run\" in progress, when no\n"              \
                    "controller is given"                                                          \
    }
/* reading the database: --db, $LG_DATABASE_URL or local mode's private cluster */
#define CMD_OPTS_DB                                                                                \
    {"db", NULL},                                                                                  \
        {"data-dir", "local mode's data, whose database is read unless --db or\n"                  \
                     "$LG_DATABASE_URL is given"},                                                 \
    {                                                                                              \
        "timeout", NULL                                                                            \
    }

static int c_version(void *ctx);
static int c_help(void *ctx);

static const lg_optuse_t s_o_none[] = {{NULL, NULL}};
static const lg_optuse_t s_o_plan[] = {
    {"format", NULL},
    {"check", "also try each telemetry source once, and with --controller\n"
              "have every agent log in to its targets (a share's folder\n"
              "takes a new file, a LUN is there and as large as size)"},
    {"operator", "with --check: whose credentials the\n"
                 "sources' requests carry"},
    {"controller", NULL},
    {"key", NULL},
    {"controller-key", NULL},
    {"plaintext", NULL},
    {NULL, NULL}};
static const lg_optuse_t s_o_run[] = {
    {"quiet", NULL},
    {"format", "the report's format: table, csv, json or markdown (default table)"},
    {"allow-destructive", NULL},
    {"smb-credentials", NULL},
    {"iscsi-chap", NULL},
    {"app-user", NULL},
    {"operator", "local mode: the probes and credentials its controller may use"},
    {"data-dir", NULL},
    {"controller", "run through this controller instead of on this machine (default\n"
                   "$LG_CONTROLLER; with LG_DATABASE_URL set, the report follows)"},
    {"key", NULL},
    {"controller-key", NULL},
    {"plaintext", NULL},
    {NULL, NULL}};
static const lg_optuse_t s_o_submit[] = {{"submit-id", NULL}, CMD_OPTS_CTL, {NULL, NULL}};
static const lg_optuse_t s_o_ctl[] = {CMD_OPTS_CTL, {NULL, NULL}};
static const lg_optuse_t s_o_rerun[] = {
    {"failed", NULL}, {"runs", NULL}, CMD_OPTS_CTL, {NULL, NULL}};
static const lg_optuse_t s_o_agents[] = {
    {"format", "table or json (default table)"}, CMD_OPTS_CTL, {NULL, NULL}};
static const lg_optuse_t s_o_report[] = {
    {"campaign", "the newest campaign of this name (default: the newest of all)"},
    {"id", NULL},
    {"format", NULL},
    CMD_OPTS_DB,
    {NULL, NULL}};
static const lg_optuse_t s_o_db[] = {CMD_OPTS_DB, {NULL, NULL}};
static const lg_optuse_t s_o_archive[] = {{"before", NULL}, CMD_OPTS_DB, {NULL, NULL}};
static const lg_optuse_t s_o_keygen[] = {{"dir", NULL}, {NULL, NULL}};
static const lg_optuse_t s_o_import_fio[] = {
    {"labels", "the SUT labels of what was measured, e.g. build=x,media=ssd"},
    {"name", "the campaign's name (default: fio-import)"},
    CMD_OPTS_DB,
    {NULL, NULL}};
static const lg_optuse_t s_o_import[] = {
    {"labels", "the SUT labels of what the fio files measured, e.g. build=x,media=ssd"},
    {"name", "the campaigns' name (default: import- and the first file's name)"},
    CMD_OPTS_DB,
    {NULL, NULL}};
static const lg_optuse_t s_o_import_other[] = {
    {"labels", "the SUT labels of what was measured, e.g. build=x,media=ssd"},
    {"name", "the campaign's name (default: import- and the first file's name)"},
    CMD_OPTS_DB,
    {NULL, NULL}};
static const lg_optuse_t s_o_import_results[] = {
    {"name", "the campaign's name (default: the file's name)"}, CMD_OPTS_DB, {NULL, NULL}};
static const lg_optuse_t s_o_compare[] = {
    {"by", NULL},
    {"baseline", NULL},
    {"metric", NULL},
    {"where", NULL},
    {"campaign", "only these campaigns (names, comma-separated)"},
    {"ignore", NULL},
    {"threshold", NULL},
    {"sweep", NULL},
    {"format", NULL},
    CMD_OPTS_DB,
    {NULL, NULL}};
static const lg_optuse_t s_o_rank[] = {
    {"metric", "the metric to order by (one of those of compare)"},
    {"by", "rank the values of this dimension (default: whole configurations)"},
    {"where", NULL},
    {"campaign", "only these campaigns (names, comma-separated)"},
    {"threshold", "gaps to the leader under PCT percent show as ~ (same), like\n"
                  "those within the noise (default 0)"},
    {"format", NULL},
    CMD_OPTS_DB,
    {NULL, NULL}};
static const lg_optuse_t s_o_export[] = {
    {"format", "csv or json (default csv)"}, CMD_OPTS_DB, {NULL, NULL}};

/* What the man page says of compare and plan beyond their text: what --help leaves out. */
#define S_MORE_COMPARE                                                                             \
    "A value is shown as its mean ± the half-width of its 95% confidence interval: from the n "   \
    "figures when n > 1, and for a single run from 10 batch means of its per-second samples "      \
    "(IOPS, MB/s and average latency of runs of 10 s or more). A difference whose 95% interval "   \
    "(Welch's t-test) includes zero, or that is under *--threshold*, is shown as *~*; one that "   \
    "cannot be tested (no interval on a side: an import, a short run, a percentile of one run) "   \
    "keeps better or worse, marked *\\**. CSV and JSON carry the intervals, the p-value and the "  \
    "change; Markdown the difference's interval and p-value. *--metric iops_at_limit* compares "   \
    "latency-bounded searches: the IOPS of the most load each found under its limit."
#define S_MORE_PLAN                                                                                \
    "A latency-bounded search is listed with every probe it may take (its worst case); the "       \
    "probes it does not need are skipped when it runs. With repeats, the plan says what "          \
    "precision they buy."

/* lgctl's commands: their words, arguments, texts and options (lg_opt.h). */
static const lg_optcmd_t s_cmds[] = {
    {"plan", "SPEC.yaml", 1, 1, "check a spec, print its runs and longest duration",
     "check a spec and print its run matrix, run count and longest duration, without running\n"
     "anything",
     S_MORE_PLAN, s_o_plan, lg__cli_plan},
    {"run", "SPEC.yaml", 1, 1, "run a campaign (local mode without a controller)",
     "run a campaign and print its report; with no controller configured, everything runs on\n"
     "this machine (local mode: a private PostgreSQL, controller and agent under --data-dir).\n"
     "Ctrl-C aborts the campaign and keeps what was measured",
     NULL, s_o_run, lg__cli_run},
    {"submit", "SPEC.yaml", 1, 1, "hand a campaign to the controller and return",
     "hand a campaign to the controller and return", NULL, s_o_submit, lg__cli_submit},
    {"status", "NAME", 1, 1, "state and progress of the newest campaign NAME",
     "state and progress of the newest campaign NAME; \"done with N failed\" (exit 1) when a\n"
     "measured point has no figures (the message names each)",
     NULL, s_o_ctl, lg__cli_status},
    {"pause", "NAME", 1, 1, "no new run of NAME starts until resume",
     "no new run of NAME starts until resume", NULL, s_o_ctl, lg__cli_pause},
    {"resume", "NAME", 1, 1, "go on (also past a pause between SUT configs)",
     "go on (also past a pause between SUT configs)", NULL, s_o_ctl, lg__cli_resume},
    {"abort", "NAME", 1, 1, "stop the current run and end the campaign",
     "stop the current run and end the campaign", NULL, s_o_ctl, lg__cli_abort},
    {"rerun", "NAME", 1, 1, "run points of a campaign again (--failed or --runs)",
     "run points of the newest campaign NAME again, into the same campaign, through the\n"
     "controller that ran it: the measured points that failed (--failed, the default) or the\n"
     "points of the runs given (--runs N,...). Each is a new attempt at its point; the newest\n"
     "attempt that gave figures is the one reports, compare, rank and charts use. Waits for\n"
     "the campaign to end, as run does; exit 1 while a point still has no figures",
     NULL, s_o_rerun, lg__cli_rerun},
    {"agents", "", 0, 0, "the agents the controller knows",
     "the agents the controller knows: state, last heard, clock, host (with --format json:\n"
     "an array of objects, one an agent, its labels an object of their own)",
     NULL, s_o_agents, lg__cli_agents},
    {"watch", "NAME", 1, 1, "live IOPS and latency per agent, progress, ETA",
     "live IOPS, MB/s and latency per agent, progress and ETA", NULL, s_o_ctl, lg__cli_watch},
    {"report", "", 0, 0, "the report of a campaign (default: the newest)",
     "print the report of a campaign (default: the newest); a run whose load host was\n"
     "saturated (its CPUs 95% busy or more over the measured window) says so in its note,\n"
     "and a warning after the table names the host and its runs: those figures are the\n"
     "load host's limit, not the NAS's",
     NULL, s_o_report, lg__cli_report},
    {"db url", "", 0, 0, "print the database's URL (nothing is started)",
     "print the database's URL: --db's or LG_DATABASE_URL's, or the postgresql:// URL of\n"
     "local mode's private cluster under --data-dir (up while lgctl db start keeps it so)",
     NULL, s_o_db, lg__cli_db_url},
    {"db start", "", 0, 0, "keep the local database up until db stop",
     "start local mode's private cluster (made if new, migrated) and keep it up until lgctl db\n"
     "stop; prints its URL, e.g. for psql \"$(lgctl db url)\" or a report tool",
     NULL, s_o_db, lg__cli_db_start},
    {"db stop", "", 0, 0, "stop the local database", "stop local mode's private cluster", NULL,
     s_o_db, lg__cli_db_stop},
    {"db shell", "[-- PSQL-ARGS]", 0, 64, "psql on the database",
     "psql on the database (--db or LG_DATABASE_URL, or local mode's cluster, started for\n"
     "the while when down); arguments after -- go to psql, e.g. lgctl db shell -- -c 'TABLE "
     "lg.v_result'",
     NULL, s_o_db, lg__cli_db_shell},
    {"db migrate", "", 0, 0, "apply pending schema migrations",
     "apply pending schema migrations (idempotent), then re-create the views and functions of\n"
     "schema/views when a migration was applied or one of their files changed; prints how many\n"
     "migrations were applied, and that the views were re-created",
     NULL, s_o_db, lg__cli_db_migrate},
    {"db archive", "FILE", 1, 1, "move old campaigns out of the database into FILE",
     "write every campaign that finished before --before (done, failed or aborted), with its\n"
     "runs, samples, results and telemetry, into FILE (made new, mode 0600; never\n"
     "overwritten), then delete them from the database, in one transaction: nothing is\n"
     "deleted unless FILE is whole on disk. The sample partitions left empty are dropped;\n"
     "current campaigns' partitions are not touched. lgctl db restore FILE brings them back",
     NULL, s_o_archive, lg__cli_db_archive},
    {"db restore", "FILE", 1, 1, "bring archived campaigns back from FILE",
     "store the campaigns of an archive that lgctl db archive wrote, figures as they were, in\n"
     "one transaction; refused (nothing stored) when one of them is in the database or FILE is\n"
     "cut short",
     NULL, s_o_db, lg__cli_db_restore},
    {"keygen", "NAME", 1, 1, "write a CURVE key pair",
     "write a CURVE key pair: DIR/NAME.key (secret, mode 0600) and DIR/NAME.pub (one\n"
     "allow-list line); never overwrites a key",
     NULL, s_o_keygen, lg__cli_keygen},
    {"import", "FILE...", 1, LGCTL_MAX_ARGS,
     "store results made elsewhere, each file's format told",
     "store results made elsewhere as campaigns, each file's format told from its content\n"
     "(up to 4096 files): fio JSON of any fio from 2.1.14 on (json, json+, client mode, a\n"
     "status stream, text before the JSON; each reporting group a run, each fio server an\n"
     "agent, each of several runs appended to one file a run; what an older fio did not print\n"
     "is derived and said), and lg's results CSV (as import results). DiskSpd XML and text,\n"
     "sysbench and pgbench output and fio's text report are recognised and refused, saying\n"
     "why. A fio job that ended with an error is stored as a failed run, without figures.\n"
     "Every file is checked first: when one is refused, nothing is stored",
     NULL, s_o_import, lg__cli_import},
    {"import fio-json", "FILE...", 1, LGCTL_MAX_ARGS, "store bare fio runs' JSON as a campaign",
     "store results of bare fio runs (json or json+, also fio's client mode) as a campaign,\n"
     "one run per file",
     NULL, s_o_import_fio, lg__cli_import_fio},
    {"import diskspd", "FILE...", 1, 256, "store DiskSpd results (-Rxml or text) as a campaign",
     "store results of Microsoft DiskSpd (its -Rxml output or its text output, UTF-8 or the\n"
     "UTF-16 of PowerShell's redirection) as a campaign, one run per timespan, the computer\n"
     "name as the agent",
     NULL, s_o_import_other, lg__cli_import_diskspd},
    {"import app", "FILE...", 1, 256, "store sysbench OLTP or pgbench output as a campaign",
     "store the output of sysbench OLTP tests or pgbench made elsewhere as application runs,\n"
     "one per file; output that lacks what lg's application tables need is refused",
     NULL, s_o_import_other, lg__cli_import_app},
    {"import results", "FILE.csv", 1, 1, "store published figures as a campaign",
     "store published or hand-collected figures (long form: profile,direction,metric,value,\n"
     "unit[,protocol,threads,qd] and a column per SUT label) as an imported campaign",
     NULL, s_o_import_results, lg__cli_import_results},
    {"compare", "", 0, 0, "one value against another, metric by metric",
     "one row per combination of the other dimensions, the metric for each value of --by and\n"
     "its change against the baseline; repeats are averaged (n), each mean with its 95% CI,\n"
     "and a change within the noise (~) is no change; a note names each side, config and\n"
     "load host that was saturated in a run behind its figures; a value without figures at a\n"
     "point where it has some at others says missing. With --sweep: IOPS and latency per\n"
     "load point",
     S_MORE_COMPARE, s_o_compare, lg__cli_compare},
    {"rank", "", 0, 0, "configurations ordered by a metric",
     "configurations ordered by a metric, with the gap to the leader (~ when within the noise);\n"
     "a configuration with figures at a profile's other loads but none at this one has a row\n"
     "saying missing (no rank)",
     NULL, s_o_rank, lg__cli_rank},
    {"export-run", "RUN", 1, 1, "one run's samples and results as CSV or JSON",
     "one run's interval samples and final results", NULL, s_o_export, lg__cli_export_run},
    {"version", "", 0, 0, "print the version", "print the version", NULL, s_o_none, c_version},
    {"help", "[COMMAND]", 0, 2, "this list, or a command's usage and options",
     "this list, or a command's usage and options", NULL, s_o_none, c_help},
    {NULL, NULL, 0, 0, NULL, NULL, NULL, NULL, NULL},
};

static const lg_optset_t s_set = {
    "lgctl",
    "usage: lgctl COMMAND [ARGS] [options]\n",
    "Each command's options: lgctl help COMMAND, or lgctl COMMAND --help. --version prints\n"
    "the version. Exit codes: 0 success, 1 failure (a campaign with failed runs, a query\n"
    "that matches nothing), 2 bad usage or a broken spec.\n"
    "environment: LG_DATABASE_URL (or --db) uses that database instead of the private\n"
    "cluster; LG_CONTROLLER, LG_KEY and LG_CONTROLLER_KEY give --controller, --key and\n"
    "--controller-key; LG_HOOK is the between-configs hook of the local controller,\n"
    "LG_READBACK its read-back check (--readback) and LG_HOOK_TIMEOUT how many seconds\n"
    "each may run (default 3600).\n",
    24,
    s_opts,
    NULL,
    s_cmds};

static int c_version(void *ctx)
{
    (void)ctx;
    printf("lgctl %s\n", LG_VERSION);
    return LGCTL_OK;
}

static int c_help(void *ctx)
{
    cli_t *c = ctx;
    return lg_opt_help_cmd(&s_set, c->pos, c->npos) == 0 ? LGCTL_OK : LGCTL_USAGE;
}

/* The defaults the environment gives: LG_CONTROLLER, LG_KEY, LG_CONTROLLER_KEY (an empty one is
 * none; LG_DATABASE_URL is lg_dbcli_init's). */
static void s_env_defaults(lgctl_opts_t *o)
{
    o->controller = getenv("LG_CONTROLLER");
    if (o->controller && !o->controller[0])
        o->controller = NULL;
    o->key_file = getenv("LG_KEY");
    o->controller_key = getenv("LG_CONTROLLER_KEY");
    if (o->key_file && !o->key_file[0])
        o->key_file = NULL;
    if (o->controller_key && !o->controller_key[0])
        o->controller_key = NULL;
}

/* What the options given ask beyond their values: --quiet's log level and --format's (export-run's
 * formats are its own: csv, json). Returns 0 or LGCTL_USAGE after saying why. */
static int s_ready(cli_t *c, const lg_optcmd_t *k)
{
    if (c->o.quiet) /* progress is info: only warnings and errors are left */
        lg_log_set_level(LG_LOG_WARN);
    if (c->format && k->run != lg__cli_export_run &&
        lg_format_parse(c->format, &c->o.format) != 0) {
        lg_error("%s: --format must be table, csv, json or markdown, got \"%s\"", k->name,
                 c->format);
        return LGCTL_USAGE;
    }
    return 0;
}

int main(int argc, char **argv)
{
    static cli_t c; /* its arguments are many: not on the stack */
    lg_dbcli_init(&c.o.db, "lgctl", 1);
    s_env_defaults(&c.o);
    const lg_optcmd_t *k = NULL;
    int rc = lg_opt_parse_cmd(&s_set, argc, argv, &c, &k, c.pos,
                              (int)(sizeof c.pos / sizeof c.pos[0]), &c.npos);
    if (rc)
        return rc == LG_OPT_DONE ? LGCTL_OK : LGCTL_USAGE;
    if (s_ready(&c, k) != 0 || lg_dbcli_start(&c.o.db, &lgctl_interrupted) != 0)
        return LGCTL_USAGE;
    return k->run(&c);
}
