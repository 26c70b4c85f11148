/* export_run.c: one run's figures out of the database, in the units of the views (IOPS, MB/s of
 * 10^6 bytes, latency in ns as stored) so a spreadsheet or a script needs nothing else. */
#include "export_run.h"

#include <stdlib.h>
#include <string.h>

#include "db.h"
#include "lg_error.h"
#include "lg_esc.h"

/* Agent names may predate any check (an agent without CURVE names itself): control characters
 * escaped, and a name a spreadsheet would run guarded; the figures are SQL numbers as text,
 * left alone while they look like numbers. */
static void s_csv_field(FILE *out, const char *v, int last)
{
    lg_csv_write(out, v, LG_CSV_FIGURE);
    fputc(last ? '\n' : ',', out);
}

/* A run's whole record as one JSON document: the run, its results, its samples, and an
 * application run's totals and per-second reports. */
static const char s_json_sql[] =
    "SELECT jsonb_pretty(jsonb_build_object("
    " 'run', (SELECT to_jsonb(x) - 'spec' FROM (SELECT r.*, c.name AS campaign,"
    "   s.labels FROM lg.v_run r JOIN lg.v_campaign c USING (campaign_id)"
    "   JOIN lg.v_sut_config s USING (sut_config_id) WHERE r.run_id = $1) x),"
    " 'results', (SELECT coalesce(jsonb_agg(to_jsonb(x) - 'hist' ORDER BY x.agent NULLS"
    "   FIRST, x.direction), '[]') FROM (SELECT a.name AS agent, x.* FROM lg.v_result_all x"
    "   LEFT JOIN lg.v_agent a USING (agent_id) WHERE x.run_id = $1) x),"
    " 'samples', (SELECT coalesce(jsonb_agg(to_jsonb(x) ORDER BY x.agent, x.seq,"
    "   x.direction), '[]') FROM (SELECT a.name AS agent, x.seq, x.direction, x.t_ms,"
    "   x.interval_ms, x.ios, x.bytes, x.lat_n, x.lat_sum, x.lat_sumsq, x.lat_min,"
    "   x.lat_max, x.hist FROM lg.v_sample_all x JOIN lg.v_agent a USING (agent_id)"
    "   WHERE x.run_id = $1) x))"
    /* An application run: the tool's totals per agent (its output stays in the
     * database: up to 8 MiB each) and its per-second reports. */
    " || CASE WHEN $2::boolean THEN jsonb_build_object("
    "  'app_results', (SELECT coalesce(jsonb_agg(to_jsonb(y) - 'output' - 'run_id'"
    "   - 'agent_id' ORDER BY y.agent), '[]') FROM (SELECT a.name AS agent, y.*"
    "   FROM lg.v_app_result_all y JOIN lg.v_agent a USING (agent_id)"
    "   WHERE y.run_id = $1) y),"
    "  'app_samples', (SELECT coalesce(jsonb_agg(to_jsonb(y) - 'run_id' - 'agent_id'"
    "   ORDER BY y.agent, y.seq), '[]') FROM (SELECT a.name AS agent, y.*"
    "   FROM lg.v_app_sample_all y JOIN lg.v_agent a USING (agent_id)"
    "   WHERE y.run_id = $1) y))"
    " ELSE '{}'::jsonb END) AS run";

/* A fio run's samples, per-agent results and merged results as CSV rows. */
static const char s_fio_csv_sql[] =
    "SELECT record, agent, direction, seq, t_ms, interval_ms, ios, bytes, iops, mbps, lat_n,"
    " lat_mean_ns, lat_min_ns, lat_max_ns, lat_stddev_ns, p50_ns, p99_ns, p99_9_ns FROM ("
    " SELECT 1 AS o, 'sample' AS record, a.name AS agent, x.direction, x.seq::text AS seq,"
    "  x.t_ms::text AS t_ms, x.interval_ms::text AS interval_ms, x.ios::text AS ios,"
    "  x.bytes::text AS bytes,"
    "  CASE WHEN x.interval_ms > 0 THEN (x.ios * 1000.0 / x.interval_ms)::text END AS iops,"
    "  CASE WHEN x.interval_ms > 0 THEN (x.bytes * 1000.0 / x.interval_ms / 1e6)::text END"
    "   AS mbps,"
    "  x.lat_n::text AS lat_n,"
    "  CASE WHEN x.lat_n > 0 THEN (x.lat_sum / x.lat_n)::text END AS lat_mean_ns,"
    "  x.lat_min::text AS lat_min_ns, x.lat_max::text AS lat_max_ns,"
    "  CASE WHEN x.lat_n > 1 THEN sqrt(greatest(x.lat_sumsq - x.lat_sum * x.lat_sum / x.lat_n,"
    "   0) / (x.lat_n - 1))::text END AS lat_stddev_ns,"
    "  NULL AS p50_ns, NULL AS p99_ns, NULL AS p99_9_ns, x.seq AS k"
    " FROM lg.v_sample_all x JOIN lg.v_agent a USING (agent_id) WHERE x.run_id = $1"
    " UNION ALL"
    " SELECT 2, 'result', coalesce(a.name, '(merged)'), x.direction, NULL, NULL,"
    "  x.runtime_ms::text, x.ios::text, x.bytes::text, x.iops::text,"
    "  (x.bw_bytes / 1e6)::text, x.lat_n::text, x.lat_mean::text, x.lat_min::text,"
    "  x.lat_max::text, x.lat_stddev::text, x.percentiles->>'50.000000',"
    "  x.percentiles->>'99.000000', x.percentiles->>'99.900000', 0"
    " FROM lg.v_result_all x LEFT JOIN lg.v_agent a USING (agent_id) WHERE x.run_id = $1) u"
    " ORDER BY o, agent, k, direction";

/* An application run's: transactions, not I/Os, in columns of their own. */
static const char s_app_csv_sql[] =
    "SELECT record, agent, seq, t_ms, interval_ms, transactions, tps, qps, lat_avg_ms,"
    " lat_stddev_ms, lat_min_ms, lat_max_ms, lat_pct_ms, pct, failed, prepare_ms FROM ("
    " SELECT 1 AS o, 'app_sample' AS record, a.name AS agent, x.seq::text AS seq,"
    "  x.t_ms::text AS t_ms, x.interval_ms::text AS interval_ms, NULL AS transactions,"
    "  x.tps::text AS tps, x.qps::text AS qps, x.lat_avg_ms::text AS lat_avg_ms,"
    "  x.lat_stddev_ms::text AS lat_stddev_ms, NULL AS lat_min_ms, NULL AS lat_max_ms,"
    "  x.lat_pct_ms::text AS lat_pct_ms, x.pct::text AS pct, x.failed::text AS failed,"
    "  NULL AS prepare_ms, x.seq AS k"
    " FROM lg.v_app_sample_all x JOIN lg.v_agent a USING (agent_id) WHERE x.run_id = $1"
    " UNION ALL"
    " SELECT 2, 'app_result', a.name, NULL, NULL, NULL, x.transactions::text,"
    "  x.tps::text, x.qps::text, x.lat_avg_ms::text, x.lat_stddev_ms::text,"
    "  x.lat_min_ms::text, x.lat_max_ms::text, x.lat_pct_ms::text, x.pct::text,"
    "  x.failed::text, x.prepare_ms::text, 0"
    " FROM lg.v_app_result_all x JOIN lg.v_agent a USING (agent_id) WHERE x.run_id = $1"
    " UNION ALL" /* merged: sums, and the transaction-weighted mean (lg.v_app_result) */
    " SELECT 3, 'app_result', '(merged)', NULL, NULL, NULL, x.transactions::text,"
    "  x.tps::text, x.qps::text, x.lat_avg_ms::text, x.lat_stddev_ms::text,"
    "  x.lat_min_ms::text, x.lat_max_ms::text, x.lat_pct_ms::text, x.pct::text,"
    "  x.failed::text, x.prepare_ms::text, 0"
    " FROM lg.v_app_result x WHERE x.run_id = $1) u"
    " ORDER BY o, agent, k";

static int s_json(PGconn *db, const char *id, int app, FILE *out, char *err, size_t errlen)
{
    const char *pj[2] = {id, app ? "true" : "false"};
    PGresult *r = NULL;
    int rc = lg_db_exec(db, s_json_sql, 2, pj, &r, err, errlen);
    if (rc)
        return rc;
    fputs(lg_db_get(r, 0, lg_db_col(r, "run")), out);
    fputc('\n', out);
    lg_db_result_destroy(&r);
    return 0;
}

static int s_csv(PGconn *db, const char *id, int app, FILE *out, char *err, size_t errlen)
{
    const char *p[1] = {id};
    PGresult *r = NULL;
    int rc = lg_db_exec(db, app ? s_app_csv_sql : s_fio_csv_sql, 1, p, &r, err, errlen);
    if (rc)
        return rc;
    int nf = lg_db_nfields(r);
    for (int f = 0; f < nf; f++)
        s_csv_field(out, lg_db_fname(r, f), f == nf - 1);
    for (int i = 0; i < lg_db_nrows(r); i++)
        for (int f = 0; f < nf; f++)
            s_csv_field(out, lg_db_get(r, i, f), f == nf - 1);
    lg_db_result_destroy(&r);
    return 0;
}

int lg_export_run(PGconn *db, uint64_t run_id, const char *format, FILE *out, char *err,
                  size_t errlen)
{
    char id[24];
    snprintf(id, sizeof id, "%llu", (unsigned long long)run_id);
    const char *p[1] = {id};
    PGresult *r = NULL;
    int rc = lg_db_exec(db, "SELECT app IS NOT NULL AS app FROM lg.v_run WHERE run_id = $1", 1, p,
                        &r, err, errlen);
    if (rc)
        return rc;
    int found = lg_db_nrows(r) > 0;
    int app = found && lg_db_get(r, 0, lg_db_col(r, "app"))[0] == 't';
    lg_db_result_destroy(&r);
    if (!found) {
        snprintf(err, errlen, "no run %s", id);
        return LG_ENOTFOUND;
    }
    if (strcmp(format, "json") == 0)
        return s_json(db, id, app, out, err, errlen);
    if (strcmp(format, "csv") != 0) {
        snprintf(err, errlen, "--format must be csv or json, got \"%s\"", format);
        return LG_EPARSE;
    }
    return s_csv(db, id, app, out, err, errlen);
}
