/* lgctl.c: the operator's command line: one table of options, one of commands and the options
 * each takes, feeding the parser, --help and lgctl(1); main reads the command line and calls the
 * command (cmd_*.c: campaigns, status, plan, database, reports, imports, keys). */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "db.h"
#include "lg_log.h"
#include "lg_util.h"
#include "localpg.h"

/* ---- the command line: one table of options, one of commands and the options each takes ---- */

typedef struct {
    const char *name; /* without its leading "--" */
    const char *arg;  /* the name of its value; NULL: a flag */
    const char *help; /* what it does, where a command gives no text of its own */
} opt_def_t;

static const opt_def_t s_opts[OPT_N] = {
    [OPT_HELP] = {"help", NULL, "print this help and exit (also: lgctl help COMMAND)"},
    [OPT_VERSION] = {"version", NULL, "print the version and exit"},
    [OPT_QUIET] = {"quiet", NULL, "no progress lines: only errors and the report"},
    [OPT_DATA_DIR] = {"data-dir", "DIR",
                      "local mode's data (default $XDG_DATA_HOME/lg; as root without\n"
                      "XDG_DATA_HOME: /var/lib/lg-local); one that another user\n"
                      "owns or can write is refused"},
    [OPT_CONTROLLER] = {"controller", "EP",
                        "the controller's control endpoint (default\n"
                        "$LG_CONTROLLER)"},
    [OPT_KEY] = {"key", "FILE",
                 "our CURVE key pair (default $LG_KEY); its public key must be\n"
                 "in the controller's --control-keys"},
    [OPT_CONTROLLER_KEY] = {"controller-key", "KEY",
                            "the controller's public key: its .pub file, or z85:KEY inline\n"
                            "(default $LG_CONTROLLER_KEY)"},
    [OPT_PLAINTEXT] = {"plaintext", NULL, "no CURVE, for a --plaintext controller on loopback"},
    [OPT_ALLOW_DESTRUCTIVE] = {"allow-destructive", NULL,
                               "local mode: let the agent overwrite block: targets"},
    [OPT_SMB_CREDENTIALS] = {"smb-credentials", "FILE",
                             "local mode: the agent's SMB user and password (smbclient -A\n"
                             "format: username = ..., password = ...)"},
    [OPT_ISCSI_CHAP] = {"iscsi-chap", "FILE",
                        "local mode: the agent's CHAP user and password (same format)"},
    [OPT_APP_USER] = {"app-user", "USER",
                      "local mode: the account the database servers of app: profiles\n"
                      "run as (they refuse root; needed when lgctl runs as root)"},
    [OPT_OPERATOR] = {"operator", "FILE",
                      "the operator's probes and credentials, the only programs a spec's\n"
                      "reduction: may name and secrets its telemetry may send (default\n"
                      "/etc/lg/operator.yaml as root, else ~/.config/lg/operator.yaml,\n"
                      "when it exists); yours or root's, writable by nobody else"},
    [OPT_SUBMIT_ID] = {"submit-id", "ID",
                       "the submission's id: submitting again with the same id returns the\n"
                       "same campaign (default: a random one, kept across lgctl's retries)"},
    [OPT_CAMPAIGN] = {"campaign", "NAME", "the newest campaign of this name"},
    [OPT_ID] = {"id", "N", "the campaign with this id"},
    [OPT_FAILED] = {"failed", NULL, "the measured points that failed (the default)"},
    [OPT_RUNS] = {"runs", "N,...", "the points of these runs (run ids, any attempt)"},
    [OPT_FORMAT] = {"format", "FMT", "table, csv, json or markdown (default table)"},
    [OPT_BY] = {"by", "DIMENSION",
                "a SUT label, or protocol, profile, direction, threads, qd,\n"
                "campaign"},
    [OPT_BASELINE] = {"baseline", "VALUE", "the value of --by the others are measured against"},
    [OPT_METRIC] = {"metric", "M,...",
                    "default iops; any of iops, mbps, lat_avg_ms, lat_min_ms, lat_max_ms,\n"
                    "lat_stddev_ms, p50_ms, p90_ms, p95_ms, p99_ms, p99_9_ms, p99_99_ms\n"
                    "(total latency; also lat_p99_ms, ...), clat_p50_ms ... clat_p99_99_ms\n"
                    "(completion latency, the percentiles fio prints by default: imported\n"
                    "results), iops_at_limit (a latency-bounded search's best\n"
                    "IOPS under its limit), tps and qps (application runs: transactions and\n"
                    "queries per second)"},
    [OPT_WHERE] = {"where", "k=v,...", "only results whose labels or dimensions have these values"},
    [OPT_SWEEP] = {"sweep", NULL,
                   "IOPS and latency per load point of swept profiles, a column\n"
                   "pair per configuration"},
    [OPT_IGNORE] = {"ignore", "LABEL,...",
                    "labels left out of what pairs two figures: for a --by dimension that\n"
                    "they change together with (compare says which)"},
    [OPT_THRESHOLD] = {"threshold", "PCT",
                       "differences under PCT percent show as ~ (same), like those\n"
                       "within the noise (default 0)"},
    [OPT_LABELS] = {"labels", "k=v,...", "the SUT labels of what was measured"},
    [OPT_NAME] = {"name", "NAME", "the campaign's name (1 to 63 characters)"},
    [OPT_DIR] = {"dir", "DIR", "where the key files go (default .; made, mode 0700, if missing)"},
    [OPT_CHECK] = {"check", NULL, "try what the command would use"},
    [OPT_BEFORE] = {"before", "DATE",
                    "campaigns that finished before DATE (e.g. 2026-01-01, or\n"
                    "'2026-01-01 12:00+01')"},
    [OPT_TIMEOUT] = {"timeout", "S",
                     "give up on a database that does not answer a statement within S\n"
                     "seconds (default 10; connecting: its connect_timeout, default 10)"},
};

typedef struct {
    opt_id_t id;
    const char *help; /* NULL: the option's own */
} cmd_opt_t;

#define CMD_OPTS_END                                                                               \
    {                                                                                              \
        OPT_N, NULL                                                                                \
    }
/* talking to a controller: --controller, or the local one of a run in progress */
#define CMD_OPTS_CTL                                                                               \
    {OPT_CONTROLLER, NULL}, {OPT_KEY, NULL}, {OPT_CONTROLLER_KEY, NULL}, {OPT_PLAINTEXT, NULL},    \
    {                                                                                              \
        OPT_DATA_DIR, "the data folder of a local \"lgctl run\" in progress, when no\n"            \
                      "controller is given"                                                        \
    }
/* reading the database: $LG_DATABASE_URL or local mode's private cluster */
#define CMD_OPTS_DB                                                                                \
    {OPT_DATA_DIR, "local mode's data, whose database is read unless\n"                            \
                   "$LG_DATABASE_URL is set"},                                                     \
    {                                                                                              \
        OPT_TIMEOUT, NULL                                                                          \
    }

typedef struct {
    const char *name; /* one or two words */
    const char *args;
    int min, max;      /* how many arguments after the words */
    const char *brief; /* one line for the list of commands */
    const char *summary;
    const cmd_opt_t *opts;
    int (*fn)(cli_t *c);
} cmd_t;

static int c_version(cli_t *c)
{
    (void)c;
    printf("lgctl %s\n", LG_VERSION);
    return LGCTL_OK;
}

static int c_help(cli_t *c);

static const cmd_opt_t s_o_none[] = {CMD_OPTS_END};
static const cmd_opt_t s_o_plan[] = {{OPT_FORMAT, NULL},
                                     {OPT_CHECK,
                                      "also try each telemetry source once, and with --controller\n"
                                      "have every agent log in to its targets (a share's folder\n"
                                      "takes a new file, a LUN is there and as large as size)"},
                                     {OPT_OPERATOR, "with --check: whose credentials the\n"
                                                    "sources' requests carry"},
                                     {OPT_CONTROLLER, NULL},
                                     {OPT_KEY, NULL},
                                     {OPT_CONTROLLER_KEY, NULL},
                                     {OPT_PLAINTEXT, NULL},
                                     CMD_OPTS_END};
static const cmd_opt_t s_o_run[] = {
    {OPT_QUIET, NULL},
    {OPT_FORMAT, "the report's format: table, csv, json or markdown (default table)"},
    {OPT_ALLOW_DESTRUCTIVE, NULL},
    {OPT_SMB_CREDENTIALS, NULL},
    {OPT_ISCSI_CHAP, NULL},
    {OPT_APP_USER, NULL},
    {OPT_OPERATOR, "local mode: the probes and credentials its controller may use"},
    {OPT_DATA_DIR, NULL},
    {OPT_CONTROLLER, "run through this controller instead of on this machine (default\n"
                     "$LG_CONTROLLER; with LG_DATABASE_URL set, the report follows)"},
    {OPT_KEY, NULL},
    {OPT_CONTROLLER_KEY, NULL},
    {OPT_PLAINTEXT, NULL},
    CMD_OPTS_END};
static const cmd_opt_t s_o_submit[] = {{OPT_SUBMIT_ID, NULL}, CMD_OPTS_CTL, CMD_OPTS_END};
static const cmd_opt_t s_o_ctl[] = {CMD_OPTS_CTL, CMD_OPTS_END};
static const cmd_opt_t s_o_rerun[] = {
    {OPT_FAILED, NULL}, {OPT_RUNS, NULL}, CMD_OPTS_CTL, CMD_OPTS_END};
static const cmd_opt_t s_o_agents[] = {
    {OPT_FORMAT, "table or json (default table)"}, CMD_OPTS_CTL, CMD_OPTS_END};
static const cmd_opt_t s_o_report[] = {
    {OPT_CAMPAIGN, "the newest campaign of this name (default: the newest of all)"},
    {OPT_ID, NULL},
    {OPT_FORMAT, NULL},
    CMD_OPTS_DB,
    CMD_OPTS_END};
static const cmd_opt_t s_o_db[] = {CMD_OPTS_DB, CMD_OPTS_END};
static const cmd_opt_t s_o_archive[] = {{OPT_BEFORE, NULL}, CMD_OPTS_DB, CMD_OPTS_END};
static const cmd_opt_t s_o_keygen[] = {{OPT_DIR, NULL}, CMD_OPTS_END};
static const cmd_opt_t s_o_import_fio[] = {
    {OPT_LABELS, "the SUT labels of what was measured, e.g. build=x,media=ssd"},
    {OPT_NAME, "the campaign's name (default: fio-import)"},
    CMD_OPTS_DB,
    CMD_OPTS_END};
static const cmd_opt_t s_o_import[] = {
    {OPT_LABELS, "the SUT labels of what the fio files measured, e.g. build=x,media=ssd"},
    {OPT_NAME, "the campaigns' name (default: import- and the first file's name)"},
    CMD_OPTS_DB,
    CMD_OPTS_END};
static const cmd_opt_t s_o_import_other[] = {
    {OPT_LABELS, "the SUT labels of what was measured, e.g. build=x,media=ssd"},
    {OPT_NAME, "the campaign's name (default: import- and the first file's name)"},
    CMD_OPTS_DB,
    CMD_OPTS_END};
static const cmd_opt_t s_o_import_results[] = {
    {OPT_NAME, "the campaign's name (default: the file's name)"}, CMD_OPTS_DB, CMD_OPTS_END};
static const cmd_opt_t s_o_compare[] = {
    {OPT_BY, NULL},
    {OPT_BASELINE, NULL},
    {OPT_METRIC, NULL},
    {OPT_WHERE, NULL},
    {OPT_CAMPAIGN, "only these campaigns (names, comma-separated)"},
    {OPT_IGNORE, NULL},
    {OPT_THRESHOLD, NULL},
    {OPT_SWEEP, NULL},
    {OPT_FORMAT, NULL},
    CMD_OPTS_DB,
    CMD_OPTS_END};
static const cmd_opt_t s_o_rank[] = {
    {OPT_METRIC, "the metric to order by (one of those of compare)"},
    {OPT_BY, "rank the values of this dimension (default: whole configurations)"},
    {OPT_WHERE, NULL},
    {OPT_CAMPAIGN, "only these campaigns (names, comma-separated)"},
    {OPT_THRESHOLD, "gaps to the leader under PCT percent show as ~ (same), like\n"
                    "those within the noise (default 0)"},
    {OPT_FORMAT, NULL},
    CMD_OPTS_DB,
    CMD_OPTS_END};
static const cmd_opt_t s_o_export[] = {
    {OPT_FORMAT, "csv or json (default csv)"}, CMD_OPTS_DB, CMD_OPTS_END};

static const cmd_t s_cmds[] = {
    {"plan", "SPEC.yaml", 1, 1, "check a spec, print its runs and longest duration",
     "check a spec and print its run matrix, run count and longest duration, without running\n"
     "anything",
     s_o_plan, lg__cli_plan},
    {"run", "SPEC.yaml", 1, 1, "run a campaign (local mode without a controller)",
     "run a campaign and print its report; with no controller configured, everything runs on\n"
     "this machine (local mode: a private PostgreSQL, controller and agent under --data-dir).\n"
     "Ctrl-C aborts the campaign and keeps what was measured",
     s_o_run, lg__cli_run},
    {"submit", "SPEC.yaml", 1, 1, "hand a campaign to the controller and return",
     "hand a campaign to the controller and return", s_o_submit, lg__cli_submit},
    {"status", "NAME", 1, 1, "state and progress of the newest campaign NAME",
     "state and progress of the newest campaign NAME; \"done with N failed\" (exit 1) when a\n"
     "measured point has no figures (the message names each)",
     s_o_ctl, lg__cli_status},
    {"pause", "NAME", 1, 1, "no new run of NAME starts until resume",
     "no new run of NAME starts until resume", s_o_ctl, lg__cli_pause},
    {"resume", "NAME", 1, 1, "go on (also past a pause between SUT configs)",
     "go on (also past a pause between SUT configs)", s_o_ctl, lg__cli_resume},
    {"abort", "NAME", 1, 1, "stop the current run and end the campaign",
     "stop the current run and end the campaign", s_o_ctl, lg__cli_abort},
    {"rerun", "NAME", 1, 1, "run points of a campaign again (--failed or --runs)",
     "run points of the newest campaign NAME again, into the same campaign, through the\n"
     "controller that ran it: the measured points that failed (--failed, the default) or the\n"
     "points of the runs given (--runs N,...). Each is a new attempt at its point; the newest\n"
     "attempt that gave figures is the one reports, compare, rank and charts use. Waits for\n"
     "the campaign to end, as run does; exit 1 while a point still has no figures",
     s_o_rerun, lg__cli_rerun},
    {"agents", "", 0, 0, "the agents the controller knows",
     "the agents the controller knows: state, last heard, clock, host (with --format json:\n"
     "an array of objects, one an agent, its labels an object of their own)",
     s_o_agents, lg__cli_agents},
    {"watch", "NAME", 1, 1, "live IOPS and latency per agent, progress, ETA",
     "live IOPS, MB/s and latency per agent, progress and ETA", s_o_ctl, lg__cli_watch},
    {"report", "", 0, 0, "the report of a campaign (default: the newest)",
     "print the report of a campaign (default: the newest); a run whose load host was\n"
     "saturated (its CPUs 95% busy or more over the measured window) says so in its note,\n"
     "and a warning after the table names the host and its runs: those figures are the\n"
     "load host's limit, not the NAS's",
     s_o_report, lg__cli_report},
    {"db url", "", 0, 0, "print the database's URL (nothing is started)",
     "print the database's URL: LG_DATABASE_URL, or the postgresql:// URL of local mode's\n"
     "private cluster under --data-dir (up while lgctl db start keeps it so)",
     s_o_db, lg__cli_db_url},
    {"db start", "", 0, 0, "keep the local database up until db stop",
     "start local mode's private cluster (made if new, migrated) and keep it up until lgctl db\n"
     "stop; prints its URL, e.g. for psql \"$(lgctl db url)\" or a report tool",
     s_o_db, lg__cli_db_start},
    {"db stop", "", 0, 0, "stop the local database", "stop local mode's private cluster", s_o_db,
     lg__cli_db_stop},
    {"db shell", "[-- PSQL-ARGS]", 0, 64, "psql on the database",
     "psql on the database (LG_DATABASE_URL, or local mode's cluster, started for the while\n"
     "when down); arguments after -- go to psql, e.g. lgctl db shell -- -c 'TABLE lg.v_result'",
     s_o_db, lg__cli_db_shell},
    {"db migrate", "", 0, 0, "apply pending schema migrations",
     "apply pending schema migrations (idempotent), then re-create the views and functions of\n"
     "schema/views when a migration was applied or one of their files changed; prints how many\n"
     "migrations were applied, and that the views were re-created",
     s_o_db, lg__cli_db_migrate},
    {"db archive", "FILE", 1, 1, "move old campaigns out of the database into FILE",
     "write every campaign that finished before --before (done, failed or aborted), with its\n"
     "runs, samples, results and telemetry, into FILE (made new, mode 0600; never\n"
     "overwritten), then delete them from the database, in one transaction: nothing is\n"
     "deleted unless FILE is whole on disk. The sample partitions left empty are dropped;\n"
     "current campaigns' partitions are not touched. lgctl db restore FILE brings them back",
     s_o_archive, lg__cli_db_archive},
    {"db restore", "FILE", 1, 1, "bring archived campaigns back from FILE",
     "store the campaigns of an archive that lgctl db archive wrote, figures as they were, in\n"
     "one transaction; refused (nothing stored) when one of them is in the database or FILE is\n"
     "cut short",
     s_o_db, lg__cli_db_restore},
    {"keygen", "NAME", 1, 1, "write a CURVE key pair",
     "write a CURVE key pair: DIR/NAME.key (secret, mode 0600) and DIR/NAME.pub (one\n"
     "allow-list line); never overwrites a key",
     s_o_keygen, lg__cli_keygen},
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
     s_o_import, lg__cli_import},
    {"import fio-json", "FILE...", 1, LGCTL_MAX_ARGS, "store bare fio runs' JSON as a campaign",
     "store results of bare fio runs (json or json+, also fio's client mode) as a campaign,\n"
     "one run per file",
     s_o_import_fio, lg__cli_import_fio},
    {"import diskspd", "FILE...", 1, 256, "store DiskSpd results (-Rxml or text) as a campaign",
     "store results of Microsoft DiskSpd (its -Rxml output or its text output, UTF-8 or the\n"
     "UTF-16 of PowerShell's redirection) as a campaign, one run per timespan, the computer\n"
     "name as the agent",
     s_o_import_other, lg__cli_import_diskspd},
    {"import app", "FILE...", 1, 256, "store sysbench OLTP or pgbench output as a campaign",
     "store the output of sysbench OLTP tests or pgbench made elsewhere as application runs,\n"
     "one per file; output that lacks what lg's application tables need is refused",
     s_o_import_other, lg__cli_import_app},
    {"import results", "FILE.csv", 1, 1, "store published figures as a campaign",
     "store published or hand-collected figures (long form: profile,direction,metric,value,\n"
     "unit[,protocol,threads,qd] and a column per SUT label) as an imported campaign",
     s_o_import_results, lg__cli_import_results},
    {"compare", "", 0, 0, "one value against another, metric by metric",
     "one row per combination of the other dimensions, the metric for each value of --by and\n"
     "its change against the baseline; repeats are averaged (n), each mean with its 95% CI,\n"
     "and a change within the noise (~) is no change; a note names each side, config and\n"
     "load host that was saturated in a run behind its figures; a value without figures at a\n"
     "point where it has some at others says missing. With --sweep: IOPS and latency per\n"
     "load point",
     s_o_compare, lg__cli_compare},
    {"rank", "", 0, 0, "configurations ordered by a metric",
     "configurations ordered by a metric, with the gap to the leader (~ when within the noise);\n"
     "a configuration with figures at a profile's other loads but none at this one has a row\n"
     "saying missing (no rank)",
     s_o_rank, lg__cli_rank},
    {"export-run", "RUN", 1, 1, "one run's samples and results as CSV or JSON",
     "one run's interval samples and final results", s_o_export, lg__cli_export_run},
    {"version", "", 0, 0, "print the version", "print the version", s_o_none, c_version},
    {"help", "[COMMAND]", 0, 2, "this list, or a command's usage and options",
     "this list, or a command's usage and options", s_o_none, c_help},
};
#define NCMDS (sizeof s_cmds / sizeof s_cmds[0])

/* Print text indented by `indent` after its first line (which the caller has placed). */
static void s_print_wrapped(FILE *f, const char *text, int indent)
{
    for (const char *p = text; *p; p++) {
        fputc(*p, f);
        if (*p == '\n')
            fprintf(f, "%*s", indent, "");
    }
    fputc('\n', f);
}

static void s_cmd_synopsis(FILE *f, const cmd_t *k)
{
    fprintf(f, "lgctl %s%s%s [options]\n", k->name, k->args[0] ? " " : "", k->args);
}

static void s_cmd_help(FILE *f, const cmd_t *k)
{
    fputs("usage: ", f);
    s_cmd_synopsis(f, k);
    fputs("  ", f);
    s_print_wrapped(f, k->summary, 2);
    fputs("options:\n", f);
    for (const cmd_opt_t *co = k->opts;; co++) {
        opt_id_t id = co->id == OPT_N ? OPT_HELP : co->id;
        const opt_def_t *d = &s_opts[id];
        char lhs[64];
        snprintf(lhs, sizeof lhs, "--%s%s%s", d->name, d->arg ? " " : "", d->arg ? d->arg : "");
        fprintf(f, "  %-24s ", lhs);
        s_print_wrapped(f, co->id == OPT_N || !co->help ? d->help : co->help, 27);
        if (co->id == OPT_N)
            break;
    }
}

static void s_usage(FILE *f)
{
    fputs("usage: lgctl COMMAND [ARGS] [options]\ncommands:\n", f);
    for (size_t i = 0; i < NCMDS; i++) {
        char lhs[64];
        snprintf(lhs, sizeof lhs, "%s%s%s", s_cmds[i].name, s_cmds[i].args[0] ? " " : "",
                 s_cmds[i].args);
        fprintf(f, "  %-24s %s\n", lhs, s_cmds[i].brief);
    }
    fputs("Each command's options: lgctl help COMMAND, or lgctl COMMAND --help. --version prints\n"
          "the version. Exit codes: 0 success, 1 failure (a campaign with failed runs, a query\n"
          "that matches nothing), 2 bad usage or a broken spec.\n"
          "environment: LG_DATABASE_URL uses that database instead of the private cluster;\n"
          "LG_CONTROLLER, LG_KEY and LG_CONTROLLER_KEY give --controller, --key and\n"
          "--controller-key; LG_HOOK is the between-configs hook of the local controller,\n"
          "LG_READBACK its read-back check (--readback) and LG_HOOK_TIMEOUT how many seconds\n"
          "each may run (default 3600).\n",
          f);
}

/* ---- the man page's COMMANDS and OPTIONS sections (scdoc), from the same tables ---- */

/* What the man page says about a command beyond its summary: the longer explanations --help
 * leaves out. */
static const struct {
    const char *cmd, *text;
} s_man_more[] = {
    {"compare",
     "A value is shown as its mean ± the half-width of its 95% confidence interval: from the n "
     "figures when n > 1, and for a single run from 10 batch means of its per-second samples "
     "(IOPS, MB/s and average latency of runs of 10 s or more). A difference whose 95% interval "
     "(Welch's t-test) includes zero, or that is under *--threshold*, is shown as *~*; one that "
     "cannot be tested (no interval on a side: an import, a short run, a percentile of one run) "
     "keeps better or worse, marked *\\**. CSV and JSON carry the intervals, the p-value and the "
     "change; Markdown the difference's interval and p-value. *--metric iops_at_limit* compares "
     "latency-bounded searches: the IOPS of the most load each found under its limit."},
    {"plan",
     "A latency-bounded search is listed with every probe it may take (its worst case); the "
     "probes it does not need are skipped when it runs. With repeats, the plan says what "
     "precision they buy."},
};

/* text with each newline a space (the tables wrap for --help; scdoc wraps itself) */
static void s_man_text(FILE *f, const char *text)
{
    for (const char *p = text; *p; p++)
        fputc(*p == '\n' ? ' ' : *p, f);
}

static void s_man_opt(FILE *f, const opt_def_t *d)
{
    fprintf(f, "*--%s*", d->name);
    if (d->arg)
        fprintf(f, " _%s_", d->arg);
}

static int s_opt_cmp(const void *a, const void *b)
{
    return strcmp(s_opts[*(const opt_id_t *)a].name, s_opts[*(const opt_id_t *)b].name);
}

/* "lgctl --man-sections": for the build only (CMakeLists.txt puts it into lgctl(1) in place of
 * the line @LGCTL_COMMANDS_AND_OPTIONS@), so --help and the man page have one source. */
static void s_print_man(FILE *f)
{
    fputs("# COMMANDS\n\n", f);
    for (size_t i = 0; i < NCMDS; i++) {
        const cmd_t *k = &s_cmds[i];
        fprintf(f, "*%s*", k->name);
        if (k->args[0])
            fprintf(f, " _%s_", k->args);
        fputs("\n\t", f);
        s_man_text(f, k->summary);
        fputc('\n', f);
        for (size_t m = 0; m < sizeof s_man_more / sizeof s_man_more[0]; m++)
            if (!strcmp(s_man_more[m].cmd, k->name))
                fprintf(f, "\n\t%s\n", s_man_more[m].text);
        int n = 0;
        for (const cmd_opt_t *co = k->opts; co->id != OPT_N; co++) {
            fputs(n++ ? ", " : "\n\tOptions: ", f);
            s_man_opt(f, &s_opts[co->id]);
        }
        fputs(n ? ".\n\n" : "\n", f);
    }
    fputs("# OPTIONS\n\n", f);
    opt_id_t ids[OPT_N];
    for (int i = 0; i < OPT_N; i++)
        ids[i] = (opt_id_t)i;
    qsort(ids, OPT_N, sizeof ids[0], s_opt_cmp);
    for (int i = 0; i < OPT_N; i++) {
        s_man_opt(f, &s_opts[ids[i]]);
        fputs("\n\t", f);
        s_man_text(f, s_opts[ids[i]].help);
        fputc('\n', f);
        /* where a command says it its own way: "compare: ...", once per text */
        for (size_t k = 0; k < NCMDS; k++)
            for (const cmd_opt_t *co = s_cmds[k].opts; co->id != OPT_N; co++) {
                if (co->id != ids[i] || !co->help)
                    continue;
                int seen = 0;
                for (size_t j = 0; j < k && !seen; j++)
                    for (const cmd_opt_t *c2 = s_cmds[j].opts; c2->id != OPT_N; c2++)
                        seen |= c2->id == ids[i] && c2->help && !strcmp(c2->help, co->help);
                if (seen)
                    continue;
                fprintf(f, "\n\t%s: ", s_cmds[k].name);
                s_man_text(f, co->help);
                fputc('\n', f);
            }
        fputc('\n', f);
    }
}

/* The command named by words[0..n), longest match first; *used: how many words it took. */
static const cmd_t *s_find_cmd(const char *const *words, int n, int *used)
{
    for (int want = 2; want >= 1; want--) {
        if (n < want)
            continue;
        char name[128];
        if (want == 2)
            snprintf(name, sizeof name, "%s %s", words[0], words[1]);
        else
            lg_strlcpy(name, words[0], sizeof name);
        for (size_t i = 0; i < NCMDS; i++)
            if (strcmp(s_cmds[i].name, name) == 0) {
                *used = want;
                return &s_cmds[i];
            }
    }
    return NULL;
}

static int c_help(cli_t *c)
{
    if (c->npos == 0) {
        s_usage(stdout);
        return LGCTL_OK;
    }
    int used = 0;
    const cmd_t *k = s_find_cmd(c->pos, c->npos, &used);
    if (!k || used != c->npos) {
        lg_error("help: no command \"%s%s%s\"", c->pos[0], c->npos > 1 ? " " : "",
                 c->npos > 1 ? c->pos[1] : "");
        s_usage(stderr);
        return LGCTL_USAGE;
    }
    s_cmd_help(stdout, k);
    return LGCTL_OK;
}

static int s_takes(const cmd_t *k, opt_id_t id)
{
    if (id == OPT_HELP || id == OPT_VERSION)
        return 1;
    for (const cmd_opt_t *co = k->opts; co->id != OPT_N; co++)
        if (co->id == id)
            return 1;
    return 0;
}

/* Where main goes on: NEXT, or an exit code to end with. */
#define NEXT (-1)

/* The defaults the environment gives (LG_CONTROLLER, LG_DATABASE_URL, LG_KEY,
 * LG_CONTROLLER_KEY; an empty one is none) and local mode's data folder, in ddir. */
static void s_env_defaults(lgctl_opts_t *o, char *ddir, size_t len)
{
    lg_localpg_default_dir(ddir, len);
    o->data_dir = ddir;
    o->controller = getenv("LG_CONTROLLER");
    if (o->controller && !o->controller[0])
        o->controller = NULL;
    o->database = getenv("LG_DATABASE_URL");
    if (o->database && !o->database[0])
        o->database = NULL;
    o->key_file = getenv("LG_KEY");
    o->controller_key = getenv("LG_CONTROLLER_KEY");
    if (o->key_file && !o->key_file[0])
        o->key_file = NULL;
    if (o->controller_key && !o->controller_key[0])
        o->controller_key = NULL;
}

/* The option argv[*i] ("--opt", "--opt=VALUE", or "--opt VALUE", which takes argv[*i + 1]) into
 * c->val. Returns NEXT or LGCTL_USAGE after saying why. */
static int s_parse_opt(cli_t *c, int argc, char **argv, int *i, const char *a)
{
    const char *eq = strchr(a, '=');
    size_t nl = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
    opt_id_t id = OPT_N;
    for (int k = 0; k < OPT_N; k++)
        if (strlen(s_opts[k].name) == nl && strncmp(s_opts[k].name, a + 2, nl) == 0)
            id = (opt_id_t)k;
    if (id == OPT_N) {
        lg_error("unknown option \"%.*s\" (lgctl help lists the commands, lgctl help COMMAND "
                 "a command's options)",
                 (int)(nl + 2), a);
        return LGCTL_USAGE;
    }
    const char *v = "";
    if (s_opts[id].arg) {
        if (eq)
            v = eq + 1;
        else if (*i + 1 < argc)
            v = argv[++*i];
        else {
            lg_error("option --%s needs a value (%s)", s_opts[id].name, s_opts[id].arg);
            return LGCTL_USAGE;
        }
    } else if (eq) {
        lg_error("option --%s takes no value", s_opts[id].name);
        return LGCTL_USAGE;
    }
    c->val[id] = v;
    return NEXT;
}

/* Options anywhere (before or after the command), as --opt VALUE or --opt=VALUE, into c->val;
 * the other words into words[*nwords]. Returns NEXT or LGCTL_USAGE. */
static int s_parse_args(cli_t *c, int argc, char **argv, const char **words, int max, int *nwords)
{
    int rest = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!rest && strcmp(a, "--") == 0) { /* the rest are arguments (db shell: psql's) */
            rest = 1;
            continue;
        }
        if (!rest && strcmp(a, "-h") == 0)
            a = "--help";
        if (rest || a[0] != '-' || a[1] != '-' || a[2] == 0) {
            if (*nwords == max) {
                lg_error("too many arguments");
                return LGCTL_USAGE;
            }
            words[(*nwords)++] = a;
            continue;
        }
        int rc = s_parse_opt(c, argc, argv, &i, a);
        if (rc != NEXT)
            return rc;
    }
    return NEXT;
}

/* No command in words: --version, --help, or what there is. Returns an exit code. */
static int s_no_cmd(cli_t *c, const char *const *words, int nwords)
{
    if (c->val[OPT_VERSION] && !nwords)
        return c_version(c);
    if (c->val[OPT_HELP] && !nwords) {
        s_usage(stdout);
        return LGCTL_OK;
    }
    if (nwords) {
        char names[1024];
        size_t no = 0;
        for (size_t i = 0; i < NCMDS && no < sizeof names; i++)
            no += (size_t)snprintf(names + no, sizeof names - no, "%s%s", i ? ", " : "",
                                   s_cmds[i].name);
        lg_error("unknown command \"%s\"; commands: %s", words[0], names);
        lg_log_hint("lgctl help COMMAND prints a command's usage and options");
    } else
        s_usage(stderr);
    return LGCTL_USAGE;
}

/* Command k with --help or --version, an option it does not take, or too few or many arguments
 * (the words after its own, which go into c->pos). Returns NEXT or an exit code. */
static int s_check_cmd(cli_t *c, const cmd_t *k, const char *const *words, int nwords, int used)
{
    if (c->val[OPT_HELP]) {
        s_cmd_help(stdout, k);
        return LGCTL_OK;
    }
    if (c->val[OPT_VERSION])
        return c_version(c);
    for (int id = 0; id < OPT_N; id++)
        if (c->val[id] && !s_takes(k, (opt_id_t)id)) {
            lg_error("%s: option --%s does not apply to %s", k->name, s_opts[id].name, k->name);
            s_cmd_help(stderr, k);
            return LGCTL_USAGE;
        }
    c->npos = nwords - used;
    for (int i = 0; i < c->npos; i++)
        c->pos[i] = words[used + i];
    if (c->npos < k->min || c->npos > k->max) {
        if (c->npos < k->min)
            lg_error("%s: needs %s", k->name, k->args);
        else
            lg_error("%s: unexpected argument \"%s\"", k->name, c->pos[k->max]);
        fputs("usage: ", stderr);
        s_cmd_synopsis(stderr, k);
        fprintf(stderr, "(lgctl help %s: its options)\n", k->name);
        return LGCTL_USAGE;
    }
    return NEXT;
}

/* The options given into c->o (over the environment's defaults), checked; the database's
 * deadline. Returns NEXT or LGCTL_USAGE. */
static int s_apply_opts(cli_t *c, const cmd_t *k)
{
    lgctl_opts_t *o = &c->o;
    if (c->val[OPT_DATA_DIR])
        o->data_dir = c->val[OPT_DATA_DIR];
    if (c->val[OPT_CONTROLLER])
        o->controller = c->val[OPT_CONTROLLER];
    if (c->val[OPT_KEY])
        o->key_file = c->val[OPT_KEY];
    if (c->val[OPT_CONTROLLER_KEY])
        o->controller_key = c->val[OPT_CONTROLLER_KEY];
    o->plaintext = c->val[OPT_PLAINTEXT] != NULL;
    o->quiet = c->val[OPT_QUIET] != NULL;
    if (o->quiet) /* progress is info: only warnings and errors are left */
        lg_log_set_level(LG_LOG_WARN);
    o->allow_destructive = c->val[OPT_ALLOW_DESTRUCTIVE] != NULL;
    o->submit_id = c->val[OPT_SUBMIT_ID];
    o->smb_credentials = c->val[OPT_SMB_CREDENTIALS];
    o->app_user = c->val[OPT_APP_USER];
    o->iscsi_chap = c->val[OPT_ISCSI_CHAP];
    o->operator_file = c->val[OPT_OPERATOR];
    /* export-run's formats are its own (csv, json); everywhere else the four of tables */
    if (c->val[OPT_FORMAT] && k->fn != lg__cli_export_run &&
        lg_format_parse(c->val[OPT_FORMAT], &o->format) != 0) {
        lg_error("%s: --format must be table, csv, json or markdown, got \"%s\"", k->name,
                 c->val[OPT_FORMAT]);
        return LGCTL_USAGE;
    }
    if (o->data_dir[0] != '/') {
        lg_error("--data-dir must be an absolute path");
        return LGCTL_USAGE;
    }
    /* The database: named as lgctl, every statement to a deadline, Ctrl-C ends any wait */
    lg_db_set_app("lgctl");
    lg_db_set_deadline_ms(10000);
    if (c->val[OPT_TIMEOUT]) {
        uint64_t t;
        if (lg_parse_u64(c->val[OPT_TIMEOUT], 1, 86400, &t) != 0) {
            lg_error("--timeout must be a number of seconds from 1 to 86400, got \"%s\"",
                     c->val[OPT_TIMEOUT]);
            return LGCTL_USAGE;
        }
        lg_db_set_deadline_ms((uint32_t)t * 1000);
    }
    return NEXT;
}

int main(int argc, char **argv)
{
    lg_log_init("lgctl");
    cli_t c;
    memset(&c, 0, sizeof c);
    char ddir[1024];
    s_env_defaults(&c.o, ddir, sizeof ddir);
    if (argc == 2 && !strcmp(argv[1], "--man-sections")) { /* the build's, for lgctl(1) */
        s_print_man(stdout);
        return 0;
    }
    static const char *words[LGCTL_MAX_ARGS + 4];
    int nwords = 0;
    int rc = s_parse_args(&c, argc, argv, words, (int)(sizeof words / sizeof words[0]), &nwords);
    if (rc != NEXT)
        return rc;
    int used = 0;
    const cmd_t *k = nwords ? s_find_cmd(words, nwords, &used) : NULL;
    if (!k)
        return s_no_cmd(&c, words, nwords);
    if ((rc = s_check_cmd(&c, k, words, nwords, used)) != NEXT ||
        (rc = s_apply_opts(&c, k)) != NEXT)
        return rc;
    lg_db_interrupt_on_signals(&lgctl_interrupted); /* every wait of lgctl's ends on it */
    signal(SIGPIPE, SIG_IGN);
    return k->fn(&c);
}
