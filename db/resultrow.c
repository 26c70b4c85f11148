/* resultrow.c: one lg.result row from an lg_dirstats_t; doubles go as %.17g so that PostgreSQL
 * stores exactly the value computed (or read from fio's JSON). */
#include "resultrow.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db.h"
#include "lg_error.h"
#include "lg_wire.h"

int lg_results_store(PGconn *db, uint64_t run_id, uint64_t agent_id, lg_dir_t d,
                     const lg_dirstats_t *s, char *err, size_t errlen)
{
    return lg_results_store_pct(db, run_id, agent_id, d, s, NULL, err, errlen);
}

int lg_results_store_pct(PGconn *db, uint64_t run_id, uint64_t agent_id, lg_dir_t d,
                         const lg_dirstats_t *s, const char *printed_pct, char *err, size_t errlen)
{
    char v[15][40];
    snprintf(v[0], 40, "%llu", (unsigned long long)run_id);
    snprintf(v[1], 40, "%llu", (unsigned long long)agent_id);
    snprintf(v[2], 40, "%llu", (unsigned long long)s->ios);
    snprintf(v[3], 40, "%llu", (unsigned long long)s->bytes);
    snprintf(v[4], 40, "%llu", (unsigned long long)s->runtime_ms);
    snprintf(v[5], 40, "%.17g", s->iops);
    snprintf(v[6], 40, "%.17g", s->bw_bytes);
    snprintf(v[7], 40, "%llu", (unsigned long long)s->lat_n);
    snprintf(v[8], 40, "%llu", (unsigned long long)s->lat_min);
    snprintf(v[9], 40, "%llu", (unsigned long long)s->lat_max);
    snprintf(v[10], 40, "%.17g", s->lat_mean);
    snprintf(v[11], 40, "%.17g", s->lat_stddev);
    snprintf(v[12], 40, "%.17g", s->lat_sum);
    snprintf(v[13], 40, "%.17g", s->lat_sumsq);
    char *pct = s->has_hist ? lg_db_pct_json(&s->hist) : NULL;
    if (!pct && printed_pct && s->lat_n > 0)
        pct = strdup(printed_pct);
    char *hist = s->has_hist ? lg_db_hist_json(&s->hist) : NULL;
    if (s->has_hist && (!pct || !hist)) {
        free(pct);
        free(hist);
        snprintf(err, errlen, "out of memory");
        return -ENOMEM;
    }
    /* No latency samples (fio's gtod_reduce=1, or nothing completed): latency unknown, not 0. */
    int lat = s->lat_n > 0;
    const char *p[17] = {v[0],
                         agent_id ? v[1] : NULL,
                         lg_dir_name(d),
                         v[2],
                         v[3],
                         v[4],
                         v[5],
                         v[6],
                         v[7],
                         lat ? v[8] : NULL,
                         lat ? v[9] : NULL,
                         lat ? v[10] : NULL,
                         lat ? v[11] : NULL,
                         lat ? v[12] : NULL,
                         lat ? v[13] : NULL,
                         pct,
                         hist};
    int rc = lg_db_exec(db,
                        "INSERT INTO lg.result (run_id, agent_id, direction, ios, bytes,"
                        " runtime_ms, iops, bw_bytes, lat_n, lat_min, lat_max, lat_mean,"
                        " lat_stddev, lat_sum, lat_sumsq, percentiles, hist) VALUES ($1, $2, $3,"
                        " $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16::jsonb,"
                        " $17::jsonb) ON CONFLICT DO NOTHING",
                        17, p, NULL, err, errlen);
    free(pct);
    free(hist);
    return rc;
}

int lg_results_store_clat(PGconn *db, uint64_t run_id, uint64_t agent_id, lg_dir_t d,
                          const char *clat_pct, char *err, size_t errlen)
{
    char rid[24], aid[24];
    snprintf(rid, sizeof rid, "%llu", (unsigned long long)run_id);
    snprintf(aid, sizeof aid, "%llu", (unsigned long long)agent_id);
    const char *p[4] = {rid, agent_id ? aid : NULL, lg_dir_name(d), clat_pct};
    return lg_db_exec(db,
                      "UPDATE lg.result SET clat_percentiles = $4::jsonb WHERE run_id = $1"
                      " AND agent_id IS NOT DISTINCT FROM $2::bigint AND direction = $3",
                      4, p, NULL, err, errlen);
}
