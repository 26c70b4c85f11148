-- lg.v_app_result: view (schema/views: re-created by lgctl db migrate; see schema/README.md)
-- The merged figures of each application run (see above for which merges are exact).
CREATE VIEW lg.v_app_result AS
SELECT x.run_id, min(x.kind) AS kind, count(*)::integer AS agents,
       sum(x.transactions)::bigint AS transactions, sum(x.tps) AS tps, sum(x.qps) AS qps,
       sum(x.queries)::bigint AS queries, sum(x.failed)::bigint AS failed,
       sum(x.transactions * x.lat_avg_ms) / nullif(sum(x.transactions), 0) AS lat_avg_ms,
       sqrt(greatest(0,
           sum(x.transactions * (x.lat_stddev_ms ^ 2 + x.lat_avg_ms ^ 2))
               / nullif(sum(x.transactions), 0)
           - (sum(x.transactions * x.lat_avg_ms) / nullif(sum(x.transactions), 0)) ^ 2))
           AS lat_stddev_ms,
       min(x.lat_min_ms) AS lat_min_ms, max(x.lat_max_ms) AS lat_max_ms,
       CASE WHEN count(*) = 1 THEN min(x.lat_pct_ms) END AS lat_pct_ms,
       max(x.lat_pct_ms) AS lat_pct_max_ms, min(x.pct) AS pct,
       max(x.prepare_ms) AS prepare_ms, max(x.duration_s) AS duration_s
FROM lg.app_result x
GROUP BY x.run_id;
GRANT SELECT ON lg.v_app_result TO lg_reader, lg_writer;
