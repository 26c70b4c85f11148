/* export_run.c: one run's figures out of the database, in the units of the views (IOPS, MB/s of
 * 10^6 bytes, latency in ns as stored) so a spreadsheet or a script needs nothing else. */
#include "export_run.h"

#include <stdlib.h>
#include <string.h>

#include "db.h"
#include "lg_error.h"

static void s_csv_field(FILE *out, const char *v, int last)
{
    int quote = strpbrk(v, ",\"\n\r") != NULL;
    if (quote) {
        fputc('"', out);
        for (const char *c = v; *c; c++) {
            if (*c == '"')
                fputc('"', out);
            fputc(*c, out);
        }
        fputc('"', out);
    } else {
        fputs(v, out);
    }
    fputc(last ? '\n' : ',', out);
}

int lg_export_run(PGconn *db, uint64_t run_id, const char *format, FILE *out, char *err,
                  size_t errlen)
{
    char id[24];
    snprintf(id, sizeof id, "%llu", (unsigned long long)run_id);
    const char *p[1] = {id};
    PGresult *r = NULL;
    int rc = lg_db_exec(db, "SELECT 1 FROM lg.v_run WHERE run_id = $1", 1, p, &r, err, errlen);
    if (rc)
        return rc;
    int found = PQntuples(r) > 0;
    PQclear(r);
    if (!found) {
        snprintf(err, errlen, "no run %s", id);
        return LG_ENOTFOUND;
    }
    if (strcmp(format, "json") == 0) {
        rc = lg_db_exec(
            db,
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
            "   WHERE x.run_id = $1) x)))",
            1, p, &r, err, errlen);
        if (rc)
            return rc;
        fputs(PQgetvalue(r, 0, 0), out);
        fputc('\n', out);
        PQclear(r);
        return 0;
    }
    if (strcmp(format, "csv") != 0) {
        snprintf(err, errlen, "--format must be csv or json, got \"%s\"", format);
        return LG_EPARSE;
    }
    rc = lg_db_exec(
        db,
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
        " ORDER BY o, agent, k, direction",
        1, p, &r, err, errlen);
    if (rc)
        return rc;
    int nf = PQnfields(r);
    for (int f = 0; f < nf; f++)
        s_csv_field(out, PQfname(r, f), f == nf - 1);
    for (int i = 0; i < PQntuples(r); i++)
        for (int f = 0; f < nf; f++)
            s_csv_field(out, PQgetvalue(r, i, f), f == nf - 1);
    PQclear(r);
    return 0;
}
