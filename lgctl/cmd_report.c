/* cmd_report.c: lgctl report, compare, rank and export-run: the front ends of report.c,
 * compare.c and export_run.c, each on the database lg__cli_with_db opens. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "compare.h"
#include "db.h"
#include "export_run.h"
#include "lg_error.h"
#include "lg_log.h"
#include "lg_util.h"
#include "migrate.h"
#include "report.h"

typedef struct {
    uint64_t campaign_id;
    const char *name;
    lg_format_t format;
} report_args_t;

static int s_report_fn(PGconn *db, void *arg)
{
    report_args_t *a = arg;
    char err[1024];
    if (lg_report_print(db, a->campaign_id, a->name, a->format, stdout, err, sizeof err) != 0) {
        lg_error("%s", err);
        return LGCTL_FAIL;
    }
    return lg__cli_failed_points(db, a->campaign_id, a->name);
}

int lg__cli_failed_points(PGconn *db, uint64_t campaign_id, const char *name)
{
    char id[24], err[1024];
    snprintf(id, sizeof id, "%llu", (unsigned long long)campaign_id);
    fflush(stdout);
    int n = lg_db_failed_points(db, name, campaign_id ? id : NULL, stderr, err, sizeof err);
    if (n < 0) {
        lg_error("could not read the failed points: %s", err);
        return LGCTL_FAIL;
    }
    if (n > 0)
        lg_error("%d measured point%s without figures (the lines above); lgctl rerun NAME "
                 "--failed runs them again",
                 n, n == 1 ? "" : "s");
    return n ? LGCTL_FAIL : LGCTL_OK;
}

int lg__cli_print_report(const lgctl_opts_t *o, uint64_t campaign_id, const char *name)
{
    report_args_t a = {campaign_id, name, o->format};
    return lg__cli_with_db(o, s_report_fn, &a);
}

int lg__cli_report(void *ctx)
{
    cli_t *c = ctx;
    uint64_t id = 0;
    if (c->id && lg_parse_u64(c->id, 1, INT64_MAX, &id) != 0) {
        lg_error("report: --id: \"%s\" is not a campaign id", c->id);
        return LGCTL_USAGE;
    }
    return lg__cli_print_report(&c->o, id, c->campaign);
}

typedef struct {
    uint64_t run_id;
    const char *format;
} export_args_t;

static int s_export_fn(PGconn *db, void *arg)
{
    export_args_t *a = arg;
    char err[1024];
    if (lg_export_run(db, a->run_id, a->format, stdout, err, sizeof err) != 0) {
        lg_error("%s", err);
        return LGCTL_FAIL;
    }
    return LGCTL_OK;
}

static int s_export(const lgctl_opts_t *o, const char *run, const char *format)
{
    export_args_t a = {0, format};
    if (lg_parse_u64(run, 1, INT64_MAX, &a.run_id) != 0) {
        lg_error("export-run: \"%s\" is not a run id", run);
        return LGCTL_USAGE;
    }
    if (strcmp(format, "csv") != 0 && strcmp(format, "json") != 0) {
        lg_error("--format must be csv or json, got \"%s\"", format);
        return LGCTL_USAGE;
    }
    return lg__cli_with_db(o, s_export_fn, &a);
}

int lg__cli_export_run(void *ctx)
{
    cli_t *c = ctx;
    return s_export(&c->o, c->pos[0], c->format ? c->format : "csv");
}

typedef struct {
    lg_compare_opts_t c;
    int mode; /* 0 compare, 1 sweep, 2 rank */
} compare_args_t;

static int s_compare_fn(PGconn *db, void *arg)
{
    compare_args_t *a = arg;
    char err[4096];
    int applied;
    int r = lg_db_migrate(db, &applied, NULL, err, sizeof err);
    if (r == 0)
        r = a->mode == 0   ? lg_compare_print(db, &a->c, stdout, err, sizeof err)
            : a->mode == 1 ? lg_sweep_print(db, &a->c, stdout, err, sizeof err)
                           : lg_rank_print(db, &a->c, stdout, err, sizeof err);
    if (r) {
        lg_error("%s: %s", a->mode == 2 ? "rank" : "compare", err);
        return r == LG_EPARSE ? LGCTL_USAGE : LGCTL_FAIL;
    }
    return LGCTL_OK;
}

static int s_compare(const lgctl_opts_t *o, compare_args_t *a, const char *format)
{
    if (format && lg_format_parse(format, &a->c.format) != 0) {
        lg_error("--format must be table, csv, json or markdown, got \"%s\"", format);
        return LGCTL_USAGE;
    }
    if (a->mode == 0 && !a->c.dimension) {
        lg_error("compare needs --by DIMENSION (or --sweep)");
        return LGCTL_USAGE;
    }
    if (a->mode == 2 && !a->c.metrics) {
        lg_error("rank needs --metric M");
        return LGCTL_USAGE;
    }
    const char *nc = getenv("NO_COLOR");
    a->c.colour = isatty(STDOUT_FILENO) && !(nc && nc[0]);
    return lg__cli_with_db(o, s_compare_fn, a);
}

static int s_compare_rank(cli_t *c, int rank)
{
    compare_args_t a;
    memset(&a, 0, sizeof a);
    a.mode = rank ? 2 : c->sweep ? 1 : 0;
    a.c.dimension = c->by;
    a.c.baseline = c->baseline;
    a.c.metrics = c->metric;
    a.c.where = c->where;
    a.c.campaigns = c->campaign;
    a.c.ignore = c->ignore;
    a.c.threshold = c->threshold;
    return s_compare(&c->o, &a, c->format);
}

int lg__cli_compare(void *ctx)
{
    cli_t *c = ctx;
    return s_compare_rank(c, 0);
}

int lg__cli_rank(void *ctx)
{
    cli_t *c = ctx;
    return s_compare_rank(c, 1);
}
