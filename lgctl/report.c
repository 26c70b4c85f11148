/* report.c: the report lgctl prints. Every figure comes from lg.result (merged rows); an
 * application run's from lg.v_app_result and lg.v_app_series (migration 020). Its statements are
 * query files (queries/report_NAME.sql, compiled in), each with a header of directives; its
 * sections are printed by db/'s renderer (lg_render_section), with the cells only C can make
 * (figures within text, notes from several columns) made here. */
#include "report.h"
#include "report_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "db.h"
#include "hostcpu.h"
#include "lg_error.h"
#include "lg_esc.h"
#include "lg_util.h"

/* A figure with thousands separators and `decimals` digits after the point; "" for NULL. col
 * is from lg_db_col. */
static const char *s_fig(char *buf, size_t len, PGresult *r, int row, int col, int decimals)
{
    if (lg_db_isnull(r, row, col)) {
        buf[0] = 0;
        return buf;
    }
    return lg_fmt_thousands(buf, len, strtod(lg_db_get(r, row, col), NULL), decimals);
}

/* The same, "-" for NULL (a figure the tool does not give, a run without results). */
static const char *s_fig_dash(char *buf, size_t len, PGresult *r, int row, int col, int decimals)
{
    if (lg_db_isnull(r, row, col)) {
        lg_strlcpy(buf, "-", len);
        return buf;
    }
    return s_fig(buf, len, r, row, col, decimals);
}

/* The run rows' columns the table reads, found by name once (lg_db_cols into col[]); C_APP,
 * from APP_COLS, last: only a campaign with application runs has it. */
enum {
    C_RUN,
    C_SUT,
    C_PROTOCOL,
    C_PHASE,
    C_PROFILE,
    C_DIR,
    C_THREADS,
    C_QD,
    C_STATE,
    C_AGENTS,
    C_IOPS,
    C_MBS,
    C_AVG,
    C_MAX,
    C_STDEV,
    C_P99,
    C_SS_REACHED,
    C_SS_ROUNDS,
    C_ERROR,
    C_RATE,
    C_CURVE,
    C_PROBE,
    C_SVALUE,
    C_TRIAL,
    C_COUNTS,
    C_QD_RAN,
    C_QD_INFLIGHT,
    C_QD_SHORT,
    C_NAS_CPU,
    C_HOST_SAT,
    C_HOST_CPU,
    C_CLAT_P99,
    C_APP,
    C_NCOLS
};
static const char *const s_run_col[C_NCOLS] = {[C_RUN] = "run",
                                               [C_SUT] = "sut",
                                               [C_PROTOCOL] = "protocol",
                                               [C_PHASE] = "phase",
                                               [C_PROFILE] = "profile",
                                               [C_DIR] = "direction",
                                               [C_THREADS] = "threads",
                                               [C_QD] = "qd",
                                               [C_STATE] = "state",
                                               [C_AGENTS] = "agents",
                                               [C_IOPS] = "iops",
                                               [C_MBS] = "mb_s",
                                               [C_AVG] = "lat_avg_ms",
                                               [C_MAX] = "lat_max_ms",
                                               [C_STDEV] = "lat_stddev_ms",
                                               [C_P99] = "p99_ms",
                                               [C_SS_REACHED] = "steady_state_reached",
                                               [C_SS_ROUNDS] = "steady_state_rounds",
                                               [C_ERROR] = "error",
                                               [C_RATE] = "rate_iops",
                                               [C_CURVE] = "curve_pct",
                                               [C_PROBE] = "probe",
                                               [C_SVALUE] = "probe_value_ms",
                                               [C_TRIAL] = "probe_trial",
                                               [C_COUNTS] = "probe_counts",
                                               [C_QD_RAN] = "qd_achieved",
                                               [C_QD_INFLIGHT] = "qd_inflight",
                                               [C_QD_SHORT] = "qd_short",
                                               [C_NAS_CPU] = "nas_cpu_pct",
                                               [C_HOST_SAT] = "host_saturated",
                                               [C_HOST_CPU] = "host_cpu_pct",
                                               [C_CLAT_P99] = "clat_p99_ms",
                                               [C_APP] = "app"};

/* The columns the application section reads (report_apps.sql), found by name once. */
enum {
    A_RUN,
    A_SUT,
    A_PROFILE,
    A_STATE,
    A_THREADS,
    A_ERROR,
    A_APP,
    A_AGENTS,
    A_TPS,
    A_QPS,
    A_AVG,
    A_PCT,
    A_PCT_MS,
    A_PCT_MAX,
    A_FAILED,
    A_PREP,
    A_TPS_MIN,
    A_TPS_MAX,
    A_SECONDS,
    A_NCOLS
};
static const char *const s_app_col[A_NCOLS] = {[A_RUN] = "run",
                                               [A_SUT] = "sut",
                                               [A_PROFILE] = "profile",
                                               [A_STATE] = "state",
                                               [A_THREADS] = "threads",
                                               [A_ERROR] = "error",
                                               [A_APP] = "app",
                                               [A_AGENTS] = "app_agents",
                                               [A_TPS] = "app_tps",
                                               [A_QPS] = "app_qps",
                                               [A_AVG] = "app_lat_avg_ms",
                                               [A_PCT] = "app_pct",
                                               [A_PCT_MS] = "app_lat_pct_ms",
                                               [A_PCT_MAX] = "app_lat_pct_max_ms",
                                               [A_FAILED] = "app_failed",
                                               [A_PREP] = "app_prepare_s",
                                               [A_TPS_MIN] = "app_tps_min",
                                               [A_TPS_MAX] = "app_tps_max",
                                               [A_SECONDS] = "app_seconds"};

/* An application run's cells (report_apps.sql's row i; its columns found at row 0, into a). */
typedef struct {
    int a[A_NCOLS];
    int several; /* a row of several agents showed the worst agent's percentile */
} apps_t;

static void s_app_row(void *arg, PGresult *r, int i, lg_tbl_t *t)
{
    apps_t *x = arg;
    int *a = x->a;
    if (i == 0)
        lg_db_cols(r, s_app_col, a, A_NCOLS);
    char f[64], g[64];
    int agents =
        lg_db_isnull(r, i, a[A_AGENTS]) ? 0 : (int)strtol(lg_db_get(r, i, a[A_AGENTS]), NULL, 10);
    lg_tbl_add(t, 0, "%s", lg_db_get(r, i, a[A_RUN]));
    lg_tbl_add(t, 0, "%s", lg_db_get(r, i, a[A_SUT]));
    lg_tbl_add(t, 0, "%s", lg_db_get(r, i, a[A_PROFILE]));
    lg_tbl_add(t, 0, "%s", lg_db_get(r, i, a[A_APP]));
    if (agents > 1)
        lg_tbl_add(t, 0, "%s x %d agents", lg_db_get(r, i, a[A_THREADS]), agents);
    else
        lg_tbl_add(t, 0, "%s", lg_db_get(r, i, a[A_THREADS]));
    lg_tbl_add(t, 0, "%s", lg_db_get(r, i, a[A_STATE]));
    lg_tbl_add(t, 0, "%s", s_fig_dash(f, sizeof f, r, i, a[A_TPS], 1));
    lg_tbl_add(t, 0, "%s", s_fig_dash(f, sizeof f, r, i, a[A_QPS], 1));
    lg_tbl_add(t, 0, "%s", s_fig_dash(f, sizeof f, r, i, a[A_AVG], 3));
    /* The tool's percentile; with several agents only the worst agent's is known. */
    int pct_col = agents > 1 ? a[A_PCT_MAX] : a[A_PCT_MS];
    if (lg_db_isnull(r, i, pct_col) || lg_db_isnull(r, i, a[A_PCT]))
        lg_tbl_add(t, 0, "-");
    else
        lg_tbl_add(t, 0, "p%s%s %s", lg_db_get(r, i, a[A_PCT]), agents > 1 ? " worst" : "",
                   s_fig(f, sizeof f, r, i, pct_col, 3));
    x->several |= agents > 1 && !lg_db_isnull(r, i, a[A_PCT_MAX]);
    lg_tbl_add(t, 0, "%s", s_fig_dash(f, sizeof f, r, i, a[A_FAILED], 0));
    char note[1024] = "";
    if (!lg_db_isnull(r, i, a[A_PREP]))
        snprintf(note, sizeof note, "loading the data set took %s s",
                 s_fig(f, sizeof f, r, i, a[A_PREP], 1));
    if (!lg_db_isnull(r, i, a[A_TPS_MIN]))
        snprintf(note + strlen(note), sizeof note - strlen(note),
                 "%sTPS varied from %s to %s over %s s", note[0] ? "; " : "",
                 s_fig(f, sizeof f, r, i, a[A_TPS_MIN], 0),
                 s_fig(g, sizeof g, r, i, a[A_TPS_MAX], 0), lg_db_get(r, i, a[A_SECONDS]));
    const char *e = lg_db_get(r, i, a[A_ERROR]);
    if (e[0])
        snprintf(note + strlen(note), sizeof note - strlen(note), "%s%s", note[0] ? "; " : "", e);
    lg_tbl_add(t, 0, "%s", note);
}

/* The campaign's application runs (pgbench, sysbench oltp_read_write), after the runs: the
 * tools' own figures merged over the agents (report_apps.sql). */
static int s_apps(PGconn *db, const char *cid, int md, FILE *out, char *err, size_t errlen)
{
    apps_t x = {.several = 0};
    PGresult *r = NULL;
    int rc = lg__query_section(db, "report_apps", cid, md, out, s_app_row, &x, &r, err, errlen);
    int rows = lg_db_nrows(r);
    lg_db_result_destroy(&r);
    if (rc || rows == 0)
        return rc;
    fprintf(out,
            "%sclients: per agent. avg ms: transaction-weighted over the agents. pct ms: the "
            "tool's percentile of transaction latency%s. TPS varied: the lowest and highest "
            "TPS of the run's seconds that every agent reported.\n",
            md ? "\n" : "",
            x.several ? "; \"worst\": the worst agent's, not a percentile of all transactions (one "
                        "cannot be merged from the agents' percentiles)"
                      : "");
    return 0;
}

/* A ratio, and its range over the runs and agents when that is wider than 2%: "2.95 (2.91-3.02)".
 */
static const char *s_ratio_range(char *buf, size_t len, PGresult *r, int i, int c, int cmin,
                                 int cmax)
{
    if (lg_db_isnull(r, i, c))
        return "-";
    double v = strtod(lg_db_get(r, i, c), NULL);
    if (cmin < 0 || lg_db_isnull(r, i, cmin)) {
        snprintf(buf, len, "%.2f", v);
        return buf;
    }
    double lo = strtod(lg_db_get(r, i, cmin), NULL), hi = strtod(lg_db_get(r, i, cmax), NULL);
    if (lo > 0 && hi / lo > 1.02)
        snprintf(buf, len, "%.2f (%.2f-%.2f)", v, lo, hi);
    else
        snprintf(buf, len, "%.2f", v);
    return buf;
}

/* A row of what the agents measured in the data each fill and write run left on its target
 * (report_datacheck.sql): its ratios with their ranges, "!" on one more than 15% off what was
 * asked (arg: a flag set then). */
static void s_datacheck_row(void *arg, PGresult *r, int i, lg_tbl_t *t)
{
    static const char *const text[] = {"config", "sut", "phase", "profile", "runs", "asked"};
    int tc[6], c_zstd = lg_db_col(r, "zstd"), c_zmin = lg_db_col(r, "zstd_min"),
               c_zmax = lg_db_col(r, "zstd_max"), c_lz4 = lg_db_col(r, "lz4"),
               c_dmin = lg_db_col(r, "dedup_min"), c_dmax = lg_db_col(r, "dedup_max"),
               c_records = lg_db_col(r, "records"), c_unit = lg_db_col(r, "unit"),
               c_error = lg_db_col(r, "error"), c_zoff = lg_db_col(r, "zstd_off"),
               c_doff = lg_db_col(r, "dedup_off");
    lg_db_cols(r, text, tc, 6);
    char f[64];
    const char *e = lg_db_get(r, i, c_error);
    int zoff = lg_db_get(r, i, c_zoff)[0] == 't', doff = lg_db_get(r, i, c_doff)[0] == 't';
    *(int *)arg |= zoff || doff;
    for (int k = 0; k < 6; k++)
        lg_tbl_add(t, 0, "%s", lg_db_get(r, i, tc[k]));
    lg_tbl_add(t, 0, "%s%s", s_ratio_range(f, sizeof f, r, i, c_zstd, c_zmin, c_zmax),
               zoff ? " !" : "");
    lg_tbl_add(t, 0, "%s", s_ratio_range(f, sizeof f, r, i, c_lz4, -1, -1));
    /* dedup is of each agent's own data: its range, not one figure of all */
    lg_tbl_add(t, 0, "%s%s", s_ratio_range(f, sizeof f, r, i, c_dmin, c_dmin, c_dmax),
               doff ? " !" : "");
    if (lg_db_isnull(r, i, c_records))
        lg_tbl_add(t, 0, "-");
    else
        lg_tbl_add(t, 0, "%s x %s B", lg_db_get(r, i, c_records), lg_db_get(r, i, c_unit));
    lg_tbl_add(t, 0, "%s%s", e[0] ? "the check failed: " : "", e);
}

/* s_datacheck: what the agents measured in the data the campaign's fill and write runs left
 * (report_datacheck.sql), beside the ratios it asked for. */
static int s_datacheck(PGconn *db, const char *cid, int md, FILE *out, char *err, size_t errlen)
{
    int off = 0;
    int rc = lg__query_section(db, "report_datacheck", cid, md, out, s_datacheck_row, &off, NULL,
                               err, errlen);
    if (rc == 0 && off)
        fprintf(out,
                "%s! more than 15%% off the ratio asked: the data on the target is not the "
                "pattern the campaign set (a NAS figure measured on it is of other data).\n",
                md ? "\n\\" : "");
    return rc;
}

/* Where a section of lines prints (lg_render_row_fn's arg). */
typedef struct {
    FILE *out;
    int md;
} lines_t;

/* s_telemetry: a source that missed scrapes during the campaign's runs is said, with how many
 * and the first reason: its figures have gaps (never filled in). So is one whose answers lg had
 * to change to store them (label values that were not UTF-8, or cut): its keys differ from the
 * exporter's names (report_telemetry.sql). */
static void s_telemetry_row(void *arg, PGresult *r, int i, lg_tbl_t *t)
{
    const lines_t *l = arg;
    int c_source = lg_db_col(r, "source"), c_missed = lg_db_col(r, "missed"),
        c_scrapes = lg_db_col(r, "scrapes"), c_run = lg_db_col(r, "first_run"),
        c_why = lg_db_col(r, "first_error"), c_noted = lg_db_col(r, "noted"),
        c_note = lg_db_col(r, "first_note");
    char src[256], why[1024];
    const char *missed = lg_db_get(r, i, c_missed), *scrapes = lg_db_get(r, i, c_scrapes);
    const char *noted = lg_db_get(r, i, c_noted);
    (void)t;
    if (strcmp(noted, "0") != 0)
        fprintf(l->out, "%swarning: telemetry source \"%s\" (%s of %s scrapes): %s\n",
                l->md ? "\n" : "", lg_esc_text(lg_db_get(r, i, c_source), l->md, src, sizeof src),
                noted, scrapes, lg_esc_text(lg_db_get(r, i, c_note), l->md, why, sizeof why));
    if (!strcmp(missed, "0"))
        return;
    int none = !strcmp(missed, scrapes);
    fprintf(l->out,
            "%swarning: telemetry source \"%s\" %s %s of %s scrapes (first in run %s: %s)%s\n",
            l->md ? "\n" : "", lg_esc_text(lg_db_get(r, i, c_source), l->md, src, sizeof src),
            none ? "answered none:" : "missed", missed, scrapes, lg_db_get(r, i, c_run),
            lg_esc_text(lg_db_get(r, i, c_why), l->md, why, sizeof why),
            none ? "; no NAS figures from it" : "; its figures have gaps there");
}

/* s_comparison: a campaign of several SUT configs that differ in one label (or, with the same
 * labels, in protocol) ends with lgctl compare's table by it (IOPS and average latency, first
 * config the baseline); several differing labels get the command to run instead. Never fails
 * the report: a comparison that cannot be made says why. */
static void s_comparison(PGconn *db, const char *cid, const char *name, int md, FILE *out)
{
    const char *p[1] = {cid};
    PGresult *r = NULL;
    char err[1024], shown[4096], keys_shown[2048], by_shown[512];
    /* the label keys whose values differ between the configs measured, and the protocols */
    if (lg__query_exec(db, "report_compare_by", NULL, 1, p, &r, err, sizeof err) != 0) {
        fprintf(out, "\nno comparison: %s\n", lg_esc_text(err, md, shown, sizeof shown));
        return;
    }
    long configs = strtol(lg_db_get(r, 0, lg_db_col(r, "configs")), NULL, 10);
    long protocols = strtol(lg_db_get(r, 0, lg_db_col(r, "protocols")), NULL, 10);
    char keys[512];
    lg_strlcpy(keys, lg_db_get(r, 0, lg_db_col(r, "keys")), sizeof keys);
    lg_db_result_destroy(&r);
    const char *by = NULL;
    if (configs > 1 && keys[0] && !strchr(keys, ','))
        by = keys;
    else if (configs <= 1 && protocols > 1)
        by = "protocol";
    /* name is escaped by the caller; label names may predate the spec's checks */
    lg_esc_text(keys, md, keys_shown, sizeof keys_shown);
    if (!by) {
        if (configs > 1)
            fprintf(out,
                    "\nThe configs differ in %s: compare them with lgctl compare --by LABEL "
                    "--campaign %s\n",
                    keys[0] ? keys_shown : "nothing measured", name);
        return;
    }
    lg_esc_text(by, md, by_shown, sizeof by_shown);
    fprintf(out, "\n%scomparison by %s%s (lgctl compare --by %s --campaign %s):\n", md ? "**" : "",
            by_shown, md ? "**" : "", by_shown, name);
    lg_compare_opts_t o = {.dimension = by,
                           .metrics = "iops,lat_avg_ms",
                           .campaigns = cid,
                           .format = md ? LG_FMT_MARKDOWN : LG_FMT_TABLE};
    if (lg_compare_print(db, &o, out, err, sizeof err) != 0)
        fprintf(out, "no comparison: %s\n", lg_esc_text(err, md, shown, sizeof shown));
}

/* A load of the campaign's searches that was tried more than once (a trial over the limit is
 * tried again before the search acts on it): every trial's figure, and which one counted
 * (report_trials.sql). */
static void s_trial_row(void *arg, PGresult *r, int i, lg_tbl_t *t)
{
    const lines_t *l = arg;
    char a[256], b[1024];
    (void)t;
    fprintf(l->out, "%s%s: %s: %s\n", l->md ? "- " : "  ",
            lg_esc_text(lg_db_get(r, i, lg_db_col(r, "at")), l->md, a, sizeof a),
            lg_esc_text(lg_db_get(r, i, lg_db_col(r, "trials")), l->md, b, sizeof b),
            lg_db_get(r, i, lg_db_col(r, "all_over"))[0] == 't' ? "over, confirmed"
                                                                : "not confirmed");
}

/* The campaign's searches: what each found (report_searches.sql), then the trials repeated. */
static int s_searches(PGconn *db, const char *cid, int md, FILE *out, char *err, size_t errlen)
{
    PGresult *r = NULL;
    int rc = lg__query_section(db, "report_searches", cid, md, out, NULL, NULL, &r, err, errlen);
    int rows = lg_db_nrows(r);
    lg_db_result_destroy(&r);
    if (rc || rows == 0)
        return rc;
    lines_t l = {out, md};
    return lg__query_section(db, "report_trials", cid, md, out, s_trial_row, &l, NULL, err, errlen);
}

/* A search probe's note: its number, its trial at its load when it repeats the probe before it,
 * its figure, and when it was over the limit and tried again (the repeat counts, not it). */
static void s_probe_note(char *note, size_t len, PGresult *r, const int *col, int i)
{
    const char *trial = lg_db_get(r, i, col[C_TRIAL]);
    int repeat = !lg_db_isnull(r, i, col[C_TRIAL]) && strcmp(trial, "1") != 0;
    int redone = lg_db_get(r, i, col[C_COUNTS])[0] == 'f';
    size_t o = (size_t)snprintf(note, len, "probe %s", lg_db_get(r, i, col[C_PROBE]));
    if (repeat && o < len)
        o += (size_t)snprintf(note + o, len - o, ", trial %s at its load", trial);
    if (!lg_db_isnull(r, i, col[C_SVALUE]) && o < len)
        o += (size_t)snprintf(note + o, len - o, ": %.3f ms all I/O",
                              strtod(lg_db_get(r, i, col[C_SVALUE]), NULL));
    if (redone && o < len)
        snprintf(note + o, len - o, "; over the limit, tried again (the next trial counts)");
}

/* The note of run row i: what a reader must know about it (a preconditioning's outcome, a
 * probe, a curve point, too little in flight, a saturated load host, fewer agents than the most
 * any run had, an error). */
static void s_run_note(char *note, size_t len, PGresult *r, const int *col, int i, int apps,
                       long most)
{
    const char *phase = lg_db_get(r, i, col[C_PHASE]);
    int precond = strcmp(phase, "measure") != 0 && strcmp(phase, "search") != 0;
    int qd_short = lg_db_get(r, i, col[C_QD_SHORT])[0] == 't';
    note[0] = 0;
    if (!lg_db_isnull(r, i, col[C_SS_REACHED]))
        snprintf(note, len, "%s: steady state %s after %s rounds", phase,
                 lg_db_get(r, i, col[C_SS_REACHED])[0] == 't' ? "reached" : "NOT REACHED",
                 lg_db_get(r, i, col[C_SS_ROUNDS]));
    else if (precond)
        snprintf(note, len, "%s", phase);
    else if (!lg_db_isnull(r, i, col[C_PROBE]))
        s_probe_note(note, len, r, col, i);
    else if (!lg_db_isnull(r, i, col[C_CURVE]))
        snprintf(note, len, "curve: %s%% of the maximum", lg_db_get(r, i, col[C_CURVE]));
    else if (apps && !lg_db_isnull(r, i, col[C_APP]))
        snprintf(note, len, "%s: see applications", lg_db_get(r, i, col[C_APP]));
    if (!lg_db_isnull(r, i, col[C_PROBE]) && lg_db_isnull(r, i, col[C_SVALUE]))
        s_probe_note(note, len, r, col, i);
    if (qd_short)
        snprintf(note + strlen(note), len - strlen(note),
                 "%sran %.1f of %s in flight per job (%.1f of %lld in all)", note[0] ? "; " : "",
                 strtod(lg_db_get(r, i, col[C_QD_RAN]), NULL), lg_db_get(r, i, col[C_QD]),
                 strtod(lg_db_get(r, i, col[C_QD_INFLIGHT]), NULL),
                 strtoll(lg_db_get(r, i, col[C_QD]), NULL, 10) *
                     llround(strtod(lg_db_get(r, i, col[C_QD_INFLIGHT]), NULL) /
                             strtod(lg_db_get(r, i, col[C_QD_RAN]), NULL)));
    /* A load host at 95% CPU or more (026_host_cpu): the figure is its limit. */
    if (!lg_db_isnull(r, i, col[C_HOST_SAT])) {
        int several = strstr(lg_db_get(r, i, col[C_HOST_SAT]), ", ") != NULL;
        snprintf(note + strlen(note), len - strlen(note),
                 "%sload host%s saturated: %s (CPU %s%.0f%%)", note[0] ? "; " : "",
                 several ? "s" : "", lg_db_get(r, i, col[C_HOST_SAT]), several ? "up to " : "",
                 strtod(lg_db_get(r, i, col[C_HOST_CPU]), NULL));
    }
    long nag = strtol(lg_db_get(r, i, col[C_AGENTS]), NULL, 10);
    if (nag > 0 && nag < most)
        snprintf(note + strlen(note), len - strlen(note), "%son %ld of %ld agents",
                 note[0] ? "; " : "", nag, most);
    const char *e = lg_db_get(r, i, col[C_ERROR]);
    if (e[0])
        snprintf(note + strlen(note), len - strlen(note), "%s%s", note[0] ? "; " : "", e);
}

/* The table of the runs (r from RUNS_COLS, its columns in col), then its footnotes. */
static void s_runs_table(PGresult *r, const int *col, int apps, lg_format_t fmt, FILE *out)
{
    int md = fmt == LG_FMT_MARKDOWN;
    /* With NAS telemetry, a column of the NAS's CPU over each run's measured window */
    int nas = 0;
    for (int i = 0; i < lg_db_nrows(r) && !nas; i++)
        nas = !lg_db_isnull(r, i, col[C_NAS_CPU]);
    lg_tbl_t t = {.ncols = nas ? 17 : 16, .last_left = 1};
    static const char *const head[] = {"run",       "SUT config", "protocol", "phase",    "profile",
                                       "dir",       "load",       "QD ran",   "state",    "IOPS",
                                       "MB/s",      "avg ms",     "max ms",   "stdev ms", "p99 ms",
                                       "NAS CPU %", "note"};
    int shorts = 0, clats = 0;
    for (size_t i = 0; i < 17; i++)
        if (nas || i != 15)
            lg_tbl_add(&t, 0, "%s", head[i]);
    /* The most agents any run's figures came from: a run on fewer (an agent lost, failed, busy
     * or not yet there when it started) says so, as its summed figures are of fewer hosts. */
    long most = 0;
    for (int i = 0; i < lg_db_nrows(r); i++) {
        long n = strtol(lg_db_get(r, i, col[C_AGENTS]), NULL, 10);
        most = n > most ? n : most;
    }
    for (int i = 0; i < lg_db_nrows(r); i++) {
        char f[64];
        const char *phase = lg_db_get(r, i, col[C_PHASE]);
        int precond = strcmp(phase, "measure") != 0 && strcmp(phase, "search") != 0;
        lg_tbl_add(&t, 0, "%s", lg_db_get(r, i, col[C_RUN]));
        lg_tbl_add(&t, 0, "%s", lg_db_get(r, i, col[C_SUT]));
        lg_tbl_add(&t, 0, "%s", lg_db_get(r, i, col[C_PROTOCOL]));
        lg_tbl_add(&t, 0, "%s", precond ? "precond" : phase);
        lg_tbl_add(&t, 0, "%s", lg_db_get(r, i, col[C_PROFILE]));
        lg_tbl_add(&t, 0, "%s", lg_db_get(r, i, col[C_DIR]));
        if (apps && !lg_db_isnull(r, i, col[C_APP]))
            lg_tbl_add(&t, 0, "%s %s", lg_db_get(r, i, col[C_THREADS]),
                       strcmp(lg_db_get(r, i, col[C_APP]), "pgbench") == 0 ? "clients" : "threads");
        else if (strcmp(lg_db_get(r, i, col[C_RATE]), "0") != 0)
            lg_tbl_add(&t, 0, "%sT%sQ@%s", lg_db_get(r, i, col[C_THREADS]),
                       lg_db_get(r, i, col[C_QD]), lg_db_get(r, i, col[C_RATE]));
        else
            lg_tbl_add(&t, 0, "%sT%sQ", lg_db_get(r, i, col[C_THREADS]),
                       lg_db_get(r, i, col[C_QD]));
        /* In flight per job as fio saw it (021_qd_achieved); "!" when far below the load's. */
        int qd_short = lg_db_get(r, i, col[C_QD_SHORT])[0] == 't';
        shorts |= qd_short;
        if (lg_db_isnull(r, i, col[C_QD_RAN]))
            lg_tbl_add(&t, 0, "-");
        else
            lg_tbl_add(&t, 0, "%.1f%s", strtod(lg_db_get(r, i, col[C_QD_RAN]), NULL),
                       qd_short ? " !" : "");
        lg_tbl_add(&t, 0, "%s", lg_db_get(r, i, col[C_STATE]));
        lg_tbl_add(&t, 0, "%s", s_fig(f, sizeof f, r, i, col[C_IOPS], 1));
        lg_tbl_add(&t, 0, "%s", s_fig(f, sizeof f, r, i, col[C_MBS], 2));
        for (int k = C_AVG; k < C_P99; k++)
            lg_tbl_add(&t, 0, "%s", s_fig(f, sizeof f, r, i, col[k], 3));
        /* no total-latency p99, but fio's completion-latency one: shown as such ("c") */
        int clat = lg_db_isnull(r, i, col[C_P99]) && !lg_db_isnull(r, i, col[C_CLAT_P99]);
        clats |= clat;
        if (clat)
            lg_tbl_add(&t, 0, "%s c", s_fig(f, sizeof f, r, i, col[C_CLAT_P99], 3));
        else
            lg_tbl_add(&t, 0, "%s", s_fig(f, sizeof f, r, i, col[C_P99], 3));
        if (nas)
            lg_tbl_add(&t, 0, "%s", s_fig_dash(f, sizeof f, r, i, col[C_NAS_CPU], 1));
        char note[1024];
        s_run_note(note, sizeof note, r, col, i, apps, most);
        lg_tbl_add(&t, 0, "%s", note);
    }
    /* Columns up to state are text; the figures align right; the note is text again, but last. */
    lg_tbl_print(&t, fmt, 0, 9, out);
    lg_tbl_clear(&t);
    if (shorts)
        fprintf(out,
                "%s! ran far below its queue depth: under half the requested I/Os in flight per "
                "job (fio's iodepth_level; the engine or the SUT did not keep more queued), so "
                "its figures are of a lighter load than its label says.\n",
                md ? "\n\\" : "");
    if (nas)
        fprintf(out,
                "%sNAS CPU %%: the NAS's CPU busy over the run's measured window (ramp "
                "excluded), from its telemetry (the mean of its sources when several).\n",
                md ? "\n" : "");
    if (clats)
        fprintf(out,
                "%sp99 ms with c: fio's completion-latency (clat) p99, the only percentiles its "
                "output had (fio prints those unless lat_percentiles=1); not total latency.\n",
                md ? "\n" : "");
}

int lg_report_print(PGconn *db, uint64_t campaign_id, const char *name, lg_format_t fmt, FILE *out,
                    char *err, size_t errlen)
{
    char id[24];
    snprintf(id, sizeof id, "%llu", (unsigned long long)campaign_id);
    const char *p[2] = {id, name};
    PGresult *c = NULL;
    int rc = lg__query_exec(db, "report_campaign", NULL, 2, p, &c, err, errlen);
    if (rc)
        return rc;
    if (lg_db_nrows(c) == 0) {
        lg_db_result_destroy(&c);
        char what[600];
        if (name)
            snprintf(what, sizeof what, "named \"%s\"", name);
        else
            lg_strlcpy(what, id, sizeof what);
        return lg__report_none(db, what, "no campaigns in the database yet", err, errlen);
    }
    /* Names and labels come from the database: an import or a campaign older than the spec's
     * refusal of control characters may hold them, and Markdown is rendered on web pages, so
     * what is printed is escaped for where it goes. */
    int md = fmt == LG_FMT_MARKDOWN;
    char cid[24], cname[1024];
    lg_strlcpy(cid, lg_db_get(c, 0, lg_db_col(c, "campaign_id")), sizeof cid);
    lg_esc_text(lg_db_get(c, 0, lg_db_col(c, "name")), md, cname, sizeof cname);
    /* CSV and JSON name each run's config whole; the text says labels common to all once */
    char common[4096] = "{}";
    int text = fmt != LG_FMT_CSV && fmt != LG_FMT_JSON;
    if (text && (rc = lg__report_common_labels(db, cid, common, sizeof common, err, errlen)) != 0) {
        lg_db_result_destroy(&c);
        return rc;
    }
    const char *p2[2] = {cid, common};
    PGresult *r = NULL;
    int apps = lg_db_get(c, 0, lg_db_col(c, "apps"))[0] == 't';
    static const char *const with_apps[] = {"apps", NULL};
    rc = lg__query_exec(db, "report_runs", apps ? with_apps : NULL, 2, p2, &r, err, errlen);
    if (rc) {
        lg_db_result_destroy(&c);
        return rc;
    }
    if (fmt == LG_FMT_CSV || fmt == LG_FMT_JSON) {
        lg_tbl_print_result(r, fmt, out);
        lg_db_result_destroy(&r);
        lg_db_result_destroy(&c);
        return 0;
    }

    const char *finished = lg_db_get(c, 0, lg_db_col(c, "finished"));
    fprintf(out, "%scampaign %s \"%s\"%s: %s, created %s%s%s\n", md ? "**" : "", cid, cname,
            md ? "**" : "", lg_db_get(c, 0, lg_db_col(c, "state")),
            lg_db_get(c, 0, lg_db_col(c, "created")), finished[0] ? ", finished " : "", finished);
    int col[C_NCOLS]; /* the runs' columns by name; "app" only with application runs */
    lg_db_cols(r, s_run_col, col, apps ? C_NCOLS : C_APP);
    col[C_APP] = apps ? col[C_APP] : -1;
    lg__report_sut_line(db, r, col[C_SUT],
                        (int)strtol(lg_db_get(c, 0, lg_db_col(c, "configs")), NULL, 10), common, md,
                        out);
    lg_db_result_destroy(&c);
    if ((rc = lg__report_checks(db, cid, md, out, err, errlen)) != 0) {
        lg_db_result_destroy(&r);
        return rc;
    }

    s_runs_table(r, col, apps, fmt, out);
    lg_db_result_destroy(&r);
    rc = lg_hostcpu_report_warning(db, cid, md, out, err, errlen);
    lines_t l = {out, md};
    if (rc == 0)
        rc = lg__query_section(db, "report_telemetry", cid, md, out, s_telemetry_row, &l, NULL, err,
                               errlen);
    if (rc == 0 && apps)
        rc = s_apps(db, cid, md, out, err, errlen);
    if (rc == 0)
        rc = s_datacheck(db, cid, md, out, err, errlen);
    if (rc == 0)
        rc = lg__query_section(db, "report_reduction", cid, md, out, NULL, NULL, NULL, err, errlen);
    if (rc == 0)
        rc = s_searches(db, cid, md, out, err, errlen);
    if (rc == 0)
        s_comparison(db, cid, cname, md, out);
    return rc;
}
