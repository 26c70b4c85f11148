/* report.c: the text report lgctl prints. Every figure comes from lg.result (merged rows). */
#include "report.h"

#include <stdlib.h>
#include <string.h>

#include "db.h"
#include "lg_error.h"

int lg_report_print(PGconn *db, uint64_t campaign_id, const char *name, FILE *out, char *err,
                    size_t errlen)
{
    char id[24];
    snprintf(id, sizeof id, "%llu", (unsigned long long)campaign_id);
    const char *p[2] = {id, name};
    PGresult *c = NULL;
    int rc = lg_db_exec(db,
                        "SELECT c.campaign_id, c.name, c.state, c.created_at::text,"
                        " coalesce((SELECT string_agg(DISTINCT s.labels::text, ' ')"
                        "   FROM lg.v_run r JOIN lg.v_sut_config s USING (sut_config_id)"
                        "   WHERE r.campaign_id = c.campaign_id), '')"
                        " FROM lg.v_campaign c"
                        " WHERE ($1::bigint = 0 OR c.campaign_id = $1::bigint)"
                        " AND ($2::text IS NULL OR c.name = $2)"
                        " ORDER BY c.campaign_id DESC LIMIT 1",
                        2, p, &c, err, errlen);
    if (rc)
        return rc;
    if (PQntuples(c) == 0) {
        PQclear(c);
        if (name)
            snprintf(err, errlen, "no campaign named \"%s\"", name);
        else if (campaign_id)
            snprintf(err, errlen, "no campaign %s", id);
        else
            snprintf(err, errlen, "no campaigns in the database yet");
        return LG_ENOTFOUND;
    }
    const char *cid = PQgetvalue(c, 0, 0);
    fprintf(out, "campaign %s \"%s\" (%s, created %s)\n", cid, PQgetvalue(c, 0, 1),
            PQgetvalue(c, 0, 2), PQgetvalue(c, 0, 3));
    const char *sut = PQgetvalue(c, 0, 4);
    fprintf(out, "SUT: %s\n\n", strcmp(sut, "{}") == 0 || !sut[0] ? "(no labels)" : sut);
    const char *p2[1] = {cid};
    PGresult *r = NULL;
    rc = lg_db_exec(db,
                    "SELECT r.run_id, r.profile, coalesce(x.direction, r.direction),"
                    " r.threads || 'T' || r.qd || 'Q', r.state,"
                    " to_char(x.iops, 'FM9999999990.0'),"
                    " to_char(x.bw_bytes / 1e6, 'FM9999999990.00'),"
                    " to_char(x.lat_mean / 1e6, 'FM9999990.000'),"
                    " to_char(x.lat_max / 1e6, 'FM9999990.000'),"
                    " to_char(x.lat_stddev / 1e6, 'FM9999990.000'),"
                    " to_char((x.percentiles->>'99.000000')::float8 / 1e6, 'FM9999990.000'),"
                    " coalesce(r.error, '')"
                    " FROM lg.v_run r LEFT JOIN lg.v_result_all x"
                    "   ON x.run_id = r.run_id AND x.agent_id IS NULL"
                    " WHERE r.campaign_id = $1::bigint"
                    " ORDER BY r.ordinal, x.direction",
                    1, p2, &r, err, errlen);
    PQclear(c);
    if (rc)
        return rc;
    fprintf(out, "%-6s %-10s %-6s %-7s %-7s %12s %10s %10s %10s %10s %10s\n", "run", "profile",
            "dir", "load", "state", "IOPS", "MB/s", "avg ms", "max ms", "stdev ms", "p99 ms");
    for (int i = 0; i < PQntuples(r); i++) {
        fprintf(out, "%-6s %-10s %-6s %-7s %-7s %12s %10s %10s %10s %10s %10s\n",
                PQgetvalue(r, i, 0), PQgetvalue(r, i, 1), PQgetvalue(r, i, 2),
                PQgetvalue(r, i, 3), PQgetvalue(r, i, 4), PQgetvalue(r, i, 5),
                PQgetvalue(r, i, 6), PQgetvalue(r, i, 7), PQgetvalue(r, i, 8),
                PQgetvalue(r, i, 9), PQgetvalue(r, i, 10));
        if (PQgetvalue(r, i, 11)[0])
            fprintf(out, "       error: %s\n", PQgetvalue(r, i, 11));
    }
    PQclear(r);
    return 0;
}
