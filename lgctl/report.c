/* report.c: the report lgctl prints. Every figure comes from lg.result (merged rows); an
 * application run's from lg.v_app_result and lg.v_app_series (migration 020). */
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

/* The run rows of the report. A campaign with application runs gets RUNS_APP_COLS after the
 * others (CSV and JSON carry them; a fio-only campaign's columns stay as they were). */
#define RUNS_COLS                                                                                  \
    "SELECT r.campaign_id, c.name AS campaign, r.run_id AS run,"                                   \
    " lg.sut_short(CASE WHEN s.labels - ARRAY(SELECT jsonb_object_keys($2::jsonb)) = '{}'"         \
    "   THEN s.labels ELSE s.labels - ARRAY(SELECT jsonb_object_keys($2::jsonb)) END) AS sut,"     \
    " r.protocol, r.target, r.phase, r.profile,"                                                   \
    " coalesce(x.direction, r.direction) AS direction, r.threads, r.qd, r.repeat,"                 \
    " r.state, (SELECT count(*) FROM lg.v_run_agent y WHERE y.run_id = r.run_id"                   \
    "   AND y.state = 'done' AND y.lost_at IS NULL)::integer AS agents,"                           \
    " x.iops, x.bw_bytes::float8 / 1e6 AS mb_s, x.lat_mean::float8 / 1e6 AS lat_avg_ms,"           \
    " x.lat_max::float8 / 1e6 AS lat_max_ms, x.lat_stddev::float8 / 1e6 AS lat_stddev_ms,"         \
    " (x.percentiles->>'99.000000')::float8 / 1e6 AS p99_ms,"                                      \
    " (x.clat_percentiles->>'99.000000')::float8 / 1e6 AS clat_p99_ms,"                            \
    " r.ss_reached AS steady_state_reached, r.ss_rounds AS steady_state_rounds,"                   \
    " r.error, r.rate_total AS rate_iops, r.curve_pct, r.probe,"                                   \
    " r.search_value AS probe_value_ms, p.trial AS probe_trial, p.counts AS probe_counts,"         \
    " r.qd_achieved, r.qd_inflight, r.qd_short,"                                                   \
    " (SELECT avg(u.cpu_busy_pct_mean) FROM lg.v_sut_run u WHERE u.run_id = r.run_id)"             \
    "   AS nas_cpu_pct,"                                                                           \
    " (SELECT string_agg(h.agent, ', ' ORDER BY h.agent) FROM lg.v_host_run h"                     \
    "   WHERE h.run_id = r.run_id AND h.saturated) AS host_saturated,"                             \
    " (SELECT max(h.cpu_busy_pct_mean) FROM lg.v_host_run h WHERE h.run_id = r.run_id)"            \
    "   AS host_cpu_pct"
#define RUNS_FROM                                                                                  \
    " FROM lg.v_run r JOIN lg.v_campaign c USING (campaign_id)"                                    \
    " JOIN lg.v_sut_config s USING (sut_config_id)"                                                \
    " LEFT JOIN lg.v_result_all x ON x.run_id = r.run_id AND x.agent_id IS NULL"                   \
    " LEFT JOIN lg.v_search_probe p ON p.run_id = r.run_id"
#define RUNS_WHERE                                                                                 \
    " WHERE r.campaign_id = $1::bigint AND r.state <> 'skipped'"                                   \
    " ORDER BY r.ordinal, r.attempt, x.direction"
/* An application run's merged figures (lg.v_app_result: which merges are exact is said there)
 * and the lowest and highest TPS of its seconds that every agent reported (lg.v_app_series). */
#define APP_COLS                                                                                   \
    " r.app, a.agents AS app_agents, a.transactions AS app_transactions, a.tps AS app_tps,"        \
    " a.qps AS app_qps, a.lat_avg_ms AS app_lat_avg_ms, a.lat_stddev_ms AS app_lat_stddev_ms,"     \
    " a.lat_min_ms AS app_lat_min_ms, a.lat_max_ms AS app_lat_max_ms, a.pct AS app_pct,"           \
    " a.lat_pct_ms AS app_lat_pct_ms, a.lat_pct_max_ms AS app_lat_pct_max_ms,"                     \
    " a.failed AS app_failed, a.prepare_ms::float8 / 1000 AS app_prepare_s,"                       \
    " sr.tps_min AS app_tps_min, sr.tps_max AS app_tps_max, sr.seconds AS app_seconds"
#define APP_JOIN                                                                                   \
    " LEFT JOIN lg.v_app_result a ON a.run_id = r.run_id"                                          \
    " LEFT JOIN LATERAL (SELECT min(y.tps) AS tps_min, max(y.tps) AS tps_max,"                     \
    "   count(*)::integer AS seconds FROM lg.v_app_series y WHERE y.run_id = r.run_id"             \
    "   AND y.agents = (SELECT max(z.agents) FROM lg.v_app_series z WHERE z.run_id = r.run_id))"   \
    "   sr ON r.app IS NOT NULL"

/* The columns the application section reads (its own and APP_COLS), found by name once. */
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

/* The campaign's application runs (pgbench, sysbench oltp_read_write), after the runs: the
 * tools' own figures merged over the agents. */
static int s_apps(PGconn *db, const char *cid, int md, FILE *out, char *err, size_t errlen)
{
    const char *p[1] = {cid};
    PGresult *r = NULL;
    int rc = lg_db_exec(db,
                        "SELECT r.run_id AS run, lg.sut_short(s.labels) AS sut, r.profile,"
                        " r.state, r.threads, coalesce(r.error, '') AS error, " APP_COLS
                        " FROM lg.v_run r JOIN lg.v_sut_config s USING (sut_config_id)" APP_JOIN
                        " WHERE r.campaign_id = $1::bigint AND r.app IS NOT NULL"
                        " AND r.state <> 'skipped' ORDER BY r.ordinal",
                        1, p, &r, err, errlen);
    if (rc)
        return rc;
    if (lg_db_nrows(r) == 0) {
        lg_db_result_destroy(&r);
        return 0;
    }
    fprintf(out, "\n%sapplications%s (the tools' own figures, all agents together):\n",
            md ? "**" : "", md ? "**" : "");
    lg_tbl_t t = {.ncols = 12, .last_left = 1};
    static const char *const head[] = {"run", "SUT config", "profile", "tool",   "clients", "state",
                                       "TPS", "QPS",        "avg ms",  "pct ms", "failed",  "note"};
    for (size_t i = 0; i < t.ncols; i++)
        lg_tbl_add(&t, 0, "%s", head[i]);
    int several = 0, a[A_NCOLS];
    lg_db_cols(r, s_app_col, a, A_NCOLS);
    for (int i = 0; i < lg_db_nrows(r); i++) {
        char f[64], g[64];
        int agents = lg_db_isnull(r, i, a[A_AGENTS])
                         ? 0
                         : (int)strtol(lg_db_get(r, i, a[A_AGENTS]), NULL, 10);
        lg_tbl_add(&t, 0, "%s", lg_db_get(r, i, a[A_RUN]));
        lg_tbl_add(&t, 0, "%s", lg_db_get(r, i, a[A_SUT]));
        lg_tbl_add(&t, 0, "%s", lg_db_get(r, i, a[A_PROFILE]));
        lg_tbl_add(&t, 0, "%s", lg_db_get(r, i, a[A_APP]));
        if (agents > 1)
            lg_tbl_add(&t, 0, "%s x %d agents", lg_db_get(r, i, a[A_THREADS]), agents);
        else
            lg_tbl_add(&t, 0, "%s", lg_db_get(r, i, a[A_THREADS]));
        lg_tbl_add(&t, 0, "%s", lg_db_get(r, i, a[A_STATE]));
        lg_tbl_add(&t, 0, "%s", s_fig_dash(f, sizeof f, r, i, a[A_TPS], 1));
        lg_tbl_add(&t, 0, "%s", s_fig_dash(f, sizeof f, r, i, a[A_QPS], 1));
        lg_tbl_add(&t, 0, "%s", s_fig_dash(f, sizeof f, r, i, a[A_AVG], 3));
        /* The tool's percentile; with several agents only the worst agent's is known. */
        int pct_col = agents > 1 ? a[A_PCT_MAX] : a[A_PCT_MS];
        if (lg_db_isnull(r, i, pct_col) || lg_db_isnull(r, i, a[A_PCT]))
            lg_tbl_add(&t, 0, "-");
        else
            lg_tbl_add(&t, 0, "p%s%s %s", lg_db_get(r, i, a[A_PCT]), agents > 1 ? " worst" : "",
                       s_fig(f, sizeof f, r, i, pct_col, 3));
        several |= agents > 1 && !lg_db_isnull(r, i, a[A_PCT_MAX]);
        lg_tbl_add(&t, 0, "%s", s_fig_dash(f, sizeof f, r, i, a[A_FAILED], 0));
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
            snprintf(note + strlen(note), sizeof note - strlen(note), "%s%s", note[0] ? "; " : "",
                     e);
        lg_tbl_add(&t, 0, "%s", note);
    }
    lg_tbl_print(&t, md ? LG_FMT_MARKDOWN : LG_FMT_TABLE, 0, 6, out);
    lg_tbl_clear(&t);
    lg_db_result_destroy(&r);
    fprintf(out,
            "%sclients: per agent. avg ms: transaction-weighted over the agents. pct ms: the "
            "tool's percentile of transaction latency%s. TPS varied: the lowest and highest "
            "TPS of the run's seconds that every agent reported.\n",
            md ? "\n" : "",
            several ? "; \"worst\": the worst agent's, not a percentile of all transactions (one "
                      "cannot be merged from the agents' percentiles)"
                    : "");
    return 0;
}

/* s_datacheck: what the agents measured in the data each fill and write run left on its target
 * (lg.v_datacheck), one row per config, phase and profile over its runs and agents, beside the
 * ratios the campaign asked for. A ratio of all of it is that of the bytes (records of one unit:
 * records / sum(records / ratio)); the range of the runs' and agents' own follows when they
 * differ. "!" on a ratio more than 15% off what was asked (the pattern is made to within 10%; a
 * small fill varies a little more). */
static const char s_datacheck_sql[] =
    "SELECT d.config, lg.sut_short(d.labels) AS sut, d.phase, d.profile,"
    " count(DISTINCT d.run_id) AS runs, count(*) AS checks,"
    " CASE WHEN d.compress_asked IS NULL AND d.dedup_asked IS NULL THEN '-' ELSE"
    "   concat_ws(', ', 'compress ' || trim_scale(round(d.compress_asked::numeric, 2)) || ':1',"
    "             'dedup ' || trim_scale(round(d.dedup_asked::numeric, 2)) || ':1') END AS asked,"
    " sum(d.records) FILTER (WHERE d.zstd > 0)"
    "   / nullif(sum(d.records / d.zstd) FILTER (WHERE d.zstd > 0), 0) AS zstd,"
    " min(d.zstd) AS zstd_min, max(d.zstd) AS zstd_max,"
    " sum(d.records) FILTER (WHERE d.lz4 > 0)"
    "   / nullif(sum(d.records / d.lz4) FILTER (WHERE d.lz4 > 0), 0) AS lz4,"
    " min(d.dedup) AS dedup_min, max(d.dedup) AS dedup_max, sum(d.records) AS records,"
    " max(d.unit) AS unit, coalesce(string_agg(DISTINCT d.error, '; '), '') AS error,"
    " bool_or(d.compress_asked IS NOT NULL AND d.zstd IS NOT NULL"
    "   AND abs(d.zstd / d.compress_asked - 1) > 0.15) AS zstd_off,"
    " bool_or(d.dedup_asked IS NOT NULL AND d.dedup IS NOT NULL"
    "   AND abs(d.dedup / d.dedup_asked - 1) > 0.15) AS dedup_off"
    " FROM lg.v_datacheck d WHERE d.campaign_id = $1::bigint"
    " GROUP BY d.config, d.labels, d.phase, d.profile, d.compress_asked, d.dedup_asked"
    " ORDER BY d.config, min(d.run_id)";

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

static int s_datacheck(PGconn *db, const char *cid, int md, FILE *out, char *err, size_t errlen)
{
    const char *p[1] = {cid};
    PGresult *r = NULL;
    int rc = lg_db_exec(db, s_datacheck_sql, 1, p, &r, err, errlen);
    if (rc)
        return rc;
    if (lg_db_nrows(r) == 0) {
        lg_db_result_destroy(&r);
        return 0;
    }
    fprintf(out,
            "\n%sdata written%s (read back by each agent: zstd -1 and lz4 per record, dedup of "
            "whole records; over the runs and agents of each row):\n",
            md ? "**" : "", md ? "**" : "");
    lg_tbl_t t = {.ncols = 11, .last_left = 1};
    static const char *const head[] = {"config", "SUT config", "phase", "profile", "runs", "asked",
                                       "zstd",   "lz4",        "dedup", "records", "note"};
    for (size_t i = 0; i < t.ncols; i++)
        lg_tbl_add(&t, 0, "%s", head[i]);
    int off = 0;
    static const char *const text[] = {"config", "sut", "phase", "profile", "runs", "asked"};
    int tc[6], c_zstd = lg_db_col(r, "zstd"), c_zmin = lg_db_col(r, "zstd_min"),
               c_zmax = lg_db_col(r, "zstd_max"), c_lz4 = lg_db_col(r, "lz4"),
               c_dmin = lg_db_col(r, "dedup_min"), c_dmax = lg_db_col(r, "dedup_max"),
               c_records = lg_db_col(r, "records"), c_unit = lg_db_col(r, "unit"),
               c_error = lg_db_col(r, "error"), c_zoff = lg_db_col(r, "zstd_off"),
               c_doff = lg_db_col(r, "dedup_off");
    lg_db_cols(r, text, tc, 6);
    for (int i = 0; i < lg_db_nrows(r); i++) {
        char f[64];
        const char *e = lg_db_get(r, i, c_error);
        int zoff = lg_db_get(r, i, c_zoff)[0] == 't', doff = lg_db_get(r, i, c_doff)[0] == 't';
        off |= zoff || doff;
        for (int k = 0; k < 6; k++)
            lg_tbl_add(&t, 0, "%s", lg_db_get(r, i, tc[k]));
        lg_tbl_add(&t, 0, "%s%s", s_ratio_range(f, sizeof f, r, i, c_zstd, c_zmin, c_zmax),
                   zoff ? " !" : "");
        lg_tbl_add(&t, 0, "%s", s_ratio_range(f, sizeof f, r, i, c_lz4, -1, -1));
        /* dedup is of each agent's own data: its range, not one figure of all */
        lg_tbl_add(&t, 0, "%s%s", s_ratio_range(f, sizeof f, r, i, c_dmin, c_dmin, c_dmax),
                   doff ? " !" : "");
        if (lg_db_isnull(r, i, c_records))
            lg_tbl_add(&t, 0, "-");
        else
            lg_tbl_add(&t, 0, "%s x %s B", lg_db_get(r, i, c_records), lg_db_get(r, i, c_unit));
        lg_tbl_add(&t, 0, "%s%s", e[0] ? "the check failed: " : "", e);
    }
    lg_tbl_print(&t, md ? LG_FMT_MARKDOWN : LG_FMT_TABLE, 0, 6, out);
    lg_tbl_clear(&t);
    lg_db_result_destroy(&r);
    if (off)
        fprintf(out,
                "%s! more than 15%% off the ratio asked: the data on the target is not the "
                "pattern the campaign set (a NAS figure measured on it is of other data).\n",
                md ? "\n\\" : "");
    return 0;
}

/* s_telemetry: a source that missed scrapes during the campaign's runs is said, with how many
 * and the first reason: its figures have gaps (never filled in). So is one whose answers lg had
 * to change to store them (label values that were not UTF-8, or cut): its keys differ from the
 * exporter's names. */
static int s_telemetry(PGconn *db, const char *cid, int md, FILE *out, char *err, size_t errlen)
{
    const char *p[1] = {cid};
    PGresult *r = NULL;
    int rc = lg_db_exec(
        db,
        "SELECT u.source, count(*) FILTER (WHERE u.missed) AS missed,"
        " count(*) AS scrapes, min(u.run_id) FILTER (WHERE u.missed) AS first_run,"
        " (array_agg(u.error ORDER BY u.run_id, u.seq) FILTER (WHERE u.missed))[1]"
        "   AS first_error,"
        " count(*) FILTER (WHERE NOT u.missed AND u.error IS NOT NULL) AS noted,"
        " (array_agg(u.error ORDER BY u.run_id, u.seq)"
        "   FILTER (WHERE NOT u.missed AND u.error IS NOT NULL))[1] AS first_note"
        " FROM lg.v_sut_sample u JOIN lg.v_run r USING (run_id)"
        " WHERE r.campaign_id = $1::bigint GROUP BY u.source"
        " HAVING count(*) FILTER (WHERE u.missed OR u.error IS NOT NULL) > 0 ORDER BY u.source",
        1, p, &r, err, errlen);
    if (rc)
        return rc;
    int c_source = lg_db_col(r, "source"), c_missed = lg_db_col(r, "missed"),
        c_scrapes = lg_db_col(r, "scrapes"), c_run = lg_db_col(r, "first_run"),
        c_why = lg_db_col(r, "first_error"), c_noted = lg_db_col(r, "noted"),
        c_note = lg_db_col(r, "first_note");
    for (int i = 0; i < lg_db_nrows(r); i++) {
        char src[256], why[1024];
        const char *missed = lg_db_get(r, i, c_missed), *scrapes = lg_db_get(r, i, c_scrapes);
        const char *noted = lg_db_get(r, i, c_noted);
        if (strcmp(noted, "0") != 0)
            fprintf(out, "%swarning: telemetry source \"%s\" (%s of %s scrapes): %s\n",
                    md ? "\n" : "", lg_esc_text(lg_db_get(r, i, c_source), md, src, sizeof src),
                    noted, scrapes, lg_esc_text(lg_db_get(r, i, c_note), md, why, sizeof why));
        if (!strcmp(missed, "0"))
            continue;
        int none = !strcmp(missed, scrapes);
        fprintf(out,
                "%swarning: telemetry source \"%s\" %s %s of %s scrapes (first in run %s: "
                "%s)%s\n",
                md ? "\n" : "", lg_esc_text(lg_db_get(r, i, c_source), md, src, sizeof src),
                none ? "answered none:" : "missed", missed, scrapes, lg_db_get(r, i, c_run),
                lg_esc_text(lg_db_get(r, i, c_why), md, why, sizeof why),
                none ? "; no NAS figures from it" : "; its figures have gaps there");
    }
    lg_db_result_destroy(&r);
    return 0;
}

/* s_reduction: what the NAS stored for what each config wrote (its reduction: probe after the
 * config's last run) beside the ratio lg wrote. */
static int s_reduction(PGconn *db, const char *cid, int md, FILE *out, char *err, size_t errlen)
{
    const char *p[1] = {cid};
    PGresult *r = NULL;
    int rc = lg_db_exec(db,
                        "SELECT d.config, lg.sut_short(d.labels) AS sut,"
                        " d.logical_bytes / 1e9 AS logical_gb,"
                        " d.physical_bytes / 1e9 AS physical_gb,"
                        " d.achieved_ratio, d.written_ratio, coalesce(d.error, '') AS error,"
                        " coalesce(d.error_before, '') AS error_before"
                        " FROM lg.v_reduction d WHERE d.campaign_id = $1::bigint ORDER BY d.config",
                        1, p, &r, err, errlen);
    if (rc)
        return rc;
    if (lg_db_nrows(r) == 0) {
        lg_db_result_destroy(&r);
        return 0;
    }
    fprintf(out,
            "\n%sdata reduction the NAS achieved%s (its reduction: probe after each config's "
            "last run):\n",
            md ? "**" : "", md ? "**" : "");
    lg_tbl_t t = {.ncols = 7, .last_left = 1};
    static const char *const head[] = {"config",   "SUT config", "logical GB", "physical GB",
                                       "achieved", "written",    "note"};
    for (size_t i = 0; i < t.ncols; i++)
        lg_tbl_add(&t, 0, "%s", head[i]);
    int c_config = lg_db_col(r, "config"), c_sut = lg_db_col(r, "sut"),
        c_logical = lg_db_col(r, "logical_gb"), c_physical = lg_db_col(r, "physical_gb"),
        c_achieved = lg_db_col(r, "achieved_ratio"), c_written = lg_db_col(r, "written_ratio"),
        c_error = lg_db_col(r, "error"), c_before = lg_db_col(r, "error_before");
    for (int i = 0; i < lg_db_nrows(r); i++) {
        char f[64];
        lg_tbl_add(&t, 0, "%s", lg_db_get(r, i, c_config));
        lg_tbl_add(&t, 0, "%s", lg_db_get(r, i, c_sut));
        lg_tbl_add(&t, 0, "%s", s_fig_dash(f, sizeof f, r, i, c_logical, 3));
        lg_tbl_add(&t, 0, "%s", s_fig_dash(f, sizeof f, r, i, c_physical, 3));
        lg_tbl_add(&t, 0, "%s", s_fig_dash(f, sizeof f, r, i, c_achieved, 2));
        lg_tbl_add(&t, 0, "%s", s_fig_dash(f, sizeof f, r, i, c_written, 2));
        const char *e = lg_db_get(r, i, c_error), *eb = lg_db_get(r, i, c_before);
        if (e[0])
            lg_tbl_add(&t, 0, "the probe failed: %s", e);
        else if (eb[0]) /* the after read what the config wrote: before, nothing was there yet */
            lg_tbl_add(&t, 0, "before its first run: nothing written yet (the probe: %s)", eb);
        else
            lg_tbl_add(&t, 0, "%s", "");
    }
    lg_tbl_print(&t, md ? LG_FMT_MARKDOWN : LG_FMT_TABLE, 0, 2, out);
    lg_tbl_clear(&t);
    for (int i = 0; i < lg_db_nrows(r); i++) { /* a failed probe is said, not only noted */
        char why[1200];
        const char *e = lg_db_get(r, i, c_error);
        if (e[0])
            fprintf(out, "%swarning: config %s: its reduction probe failed: %s\n", md ? "\n" : "",
                    lg_db_get(r, i, c_config), lg_esc_text(e, md, why, sizeof why));
    }
    lg_db_result_destroy(&r);
    fprintf(out,
            "%sachieved: logical / physical bytes as the NAS reports them; written: the ratio "
            "of the data lg wrote (zstd per record as the agents read it back, else the ratio the "
            "campaign asked for).\n",
            md ? "\n" : "");
    return 0;
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
    if (lg_db_exec(
            db,
            "WITH c AS (SELECT DISTINCT s.labels FROM lg.v_run r"
            "   JOIN lg.v_sut_config s USING (sut_config_id)"
            "   WHERE r.campaign_id = $1::bigint AND r.phase = 'measure' AND r.state = 'done'),"
            " k AS (SELECT DISTINCT jsonb_object_keys(labels) AS key FROM c)"
            " SELECT (SELECT count(*) FROM c) AS configs,"
            " coalesce((SELECT string_agg(k.key, ',' ORDER BY k.key) FROM k"
            "   WHERE (SELECT count(DISTINCT coalesce(c.labels ->> k.key, '')) FROM c) > 1), '')"
            "   AS keys,"
            " (SELECT count(DISTINCT r.protocol) FROM lg.v_run r WHERE r.campaign_id = $1::bigint"
            "   AND r.phase = 'measure' AND r.state = 'done') AS protocols",
            1, p, &r, err, sizeof err) != 0) {
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

/* The loads of the campaign's searches that were tried more than once (a trial over the limit
 * is tried again before the search acts on it): every trial's figure, and which one counted. */
static int s_search_trials(PGconn *db, const char *cid, int md, FILE *out, char *err, size_t errlen)
{
    const char *p[1] = {cid};
    PGresult *r = NULL;
    int rc = lg_db_exec(
        db,
        "SELECT s.profile || ' ' || s.direction || ', ' || CASE WHEN s.vary = 'rate' AND"
        " p.load = 0 THEN 'unpaced' WHEN s.vary = 'rate' THEN p.load || ' IOPS offered'"
        " ELSE s.vary || ' ' || p.load END AS at,"
        " string_agg('probe ' || p.probe || ' ' || coalesce(round(p.value_ms::numeric, 3)::text,"
        "   'no figure') || ' ms' || CASE WHEN p.counts THEN ' (counts)' ELSE '' END, ', '"
        "   ORDER BY p.probe) AS trials, bool_and(p.over_limit) AS all_over"
        " FROM lg.v_search s JOIN lg.v_search_probe p USING (search_id)"
        " WHERE s.campaign_id = $1::bigint GROUP BY s.search_id, s.profile, s.direction,"
        " s.vary, p.load HAVING count(*) > 1 ORDER BY s.search_id, min(p.probe)",
        1, p, &r, err, errlen);
    if (rc)
        return rc;
    if (lg_db_nrows(r) > 0)
        fprintf(out,
                "\n%strials repeated%s (a probe over the limit is tried again at its load; the "
                "load is over only if every trial was, and the last trial counts):\n",
                md ? "**" : "", md ? "**" : "");
    int c_at = lg_db_col(r, "at"), c_trials = lg_db_col(r, "trials"),
        c_over = lg_db_col(r, "all_over");
    for (int i = 0; i < lg_db_nrows(r); i++) {
        char a[256], b[1024];
        fprintf(out, "%s%s: %s: %s\n", md ? "- " : "  ",
                lg_esc_text(lg_db_get(r, i, c_at), md, a, sizeof a),
                lg_esc_text(lg_db_get(r, i, c_trials), md, b, sizeof b),
                lg_db_get(r, i, c_over)[0] == 't' ? "over, confirmed" : "not confirmed");
    }
    lg_db_result_destroy(&r);
    return 0;
}

/* The campaign's searches: what each found (lg.v_search), after the runs. */
static int s_searches(PGconn *db, const char *cid, int md, FILE *out, char *err, size_t errlen)
{
    const char *p[1] = {cid};
    PGresult *r = NULL;
    int rc = lg_db_exec(db,
                        "SELECT s.sut, s.protocol, s.profile, s.direction,"
                        " s.metric || ' <= ' || s.limit_ms || ' ms' AS limit_text, s.vary, s.state,"
                        " s.good_load, s.iops_at_limit, s.bad_load, s.probes, s.message,"
                        " (SELECT count(*) FROM lg.v_run r WHERE r.search_id = s.search_id"
                        "   AND r.probe IS NOT NULL AND r.state = 'skipped') AS not_needed,"
                        " (SELECT count(*) FROM lg.v_search_probe p WHERE p.search_id = s.search_id"
                        "   AND p.trial > 1) AS repeats, s.confirm"
                        " FROM lg.v_search s WHERE s.campaign_id = $1::bigint ORDER BY s.search_id",
                        1, p, &r, err, errlen);
    if (rc)
        return rc;
    if (lg_db_nrows(r) == 0) {
        lg_db_result_destroy(&r);
        return 0;
    }
    fprintf(out, "\n%ssearches%s (the most load under a latency limit):\n", md ? "**" : "",
            md ? "**" : "");
    lg_tbl_t t = {.ncols = 12, .last_left = 1};
    static const char *const head[] = {"SUT config",    "protocol",   "profile", "dir",
                                       "limit",         "by",         "outcome", "best load",
                                       "IOPS at limit", "first over", "probes",  "what it found"};
    for (size_t i = 0; i < t.ncols; i++)
        lg_tbl_add(&t, 0, "%s", head[i]);
    static const char *const text[] = {"sut",        "protocol", "profile", "direction",
                                       "limit_text", "vary",     "state"};
    int tc[7], c_good = lg_db_col(r, "good_load"), c_iops = lg_db_col(r, "iops_at_limit"),
               c_bad = lg_db_col(r, "bad_load"), c_probes = lg_db_col(r, "probes"),
               c_message = lg_db_col(r, "message"), c_skipped = lg_db_col(r, "not_needed"),
               c_repeats = lg_db_col(r, "repeats");
    lg_db_cols(r, text, tc, 7);
    for (int i = 0; i < lg_db_nrows(r); i++) {
        char f[64];
        for (int k = 0; k < 7; k++)
            lg_tbl_add(&t, 0, "%s", lg_db_get(r, i, tc[k]));
        lg_tbl_add(&t, 0, "%s", lg_db_isnull(r, i, c_good) ? "-" : lg_db_get(r, i, c_good));
        lg_tbl_add(&t, 0, "%s",
                   lg_db_isnull(r, i, c_iops) ? "-" : s_fig(f, sizeof f, r, i, c_iops, 0));
        lg_tbl_add(&t, 0, "%s", lg_db_isnull(r, i, c_bad) ? "-" : lg_db_get(r, i, c_bad));
        lg_tbl_add(&t, 0, "%s (%s%s%s not needed)", lg_db_get(r, i, c_probes),
                   lg_db_get(r, i, c_repeats),
                   strcmp(lg_db_get(r, i, c_repeats), "1") ? " repeats, " : " repeat, ",
                   lg_db_get(r, i, c_skipped));
        lg_tbl_add(&t, 0, "%s", lg_db_get(r, i, c_message));
    }
    lg_tbl_print(&t, md ? LG_FMT_MARKDOWN : LG_FMT_TABLE, 0, 7, out);
    lg_tbl_clear(&t);
    lg_db_result_destroy(&r);
    return s_search_trials(db, cid, md, out, err, errlen);
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
    int rc = lg_db_exec(db,
                        "SELECT c.campaign_id, c.name, c.state,"
                        " to_char(c.created_at, 'YYYY-MM-DD HH24:MI:SS TZ') AS created,"
                        " coalesce(to_char(c.finished_at, 'YYYY-MM-DD HH24:MI:SS TZ'), '')"
                        "   AS finished,"
                        " (SELECT count(DISTINCT sut_config_id) FROM lg.v_run r"
                        "   WHERE r.campaign_id = c.campaign_id) AS configs,"
                        " EXISTS (SELECT 1 FROM lg.v_run r WHERE r.campaign_id = c.campaign_id"
                        "   AND r.app IS NOT NULL) AS apps"
                        " FROM lg.v_campaign c"
                        " WHERE ($1::bigint = 0 OR c.campaign_id = $1::bigint)"
                        " AND ($2::text IS NULL OR c.name = $2)"
                        " ORDER BY c.campaign_id DESC LIMIT 1",
                        2, p, &c, err, errlen);
    if (rc)
        return rc;
    if (lg_db_nrows(c) == 0) {
        lg_db_result_destroy(&c);
        char names[1024];
        lg_db_campaign_names(db, names, sizeof names);
        if (!names[0])
            snprintf(err, errlen, "no campaigns in the database yet");
        else if (name)
            snprintf(err, errlen, "no campaign named \"%s\"; campaigns: %s", name, names);
        else
            snprintf(err, errlen, "no campaign %s; campaigns: %s", id, names);
        return LG_ENOTFOUND;
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
    rc = lg_db_exec(db,
                    apps ? RUNS_COLS "," APP_COLS RUNS_FROM APP_JOIN RUNS_WHERE
                         : RUNS_COLS RUNS_FROM RUNS_WHERE,
                    2, p2, &r, err, errlen);
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
    if (rc == 0)
        rc = s_telemetry(db, cid, md, out, err, errlen);
    if (rc == 0 && apps)
        rc = s_apps(db, cid, md, out, err, errlen);
    if (rc == 0)
        rc = s_datacheck(db, cid, md, out, err, errlen);
    if (rc == 0)
        rc = s_reduction(db, cid, md, out, err, errlen);
    if (rc == 0)
        rc = s_searches(db, cid, md, out, err, errlen);
    if (rc == 0)
        s_comparison(db, cid, cname, md, out);
    return rc;
}
