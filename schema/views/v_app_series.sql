-- lg.v_app_series: view (schema/views: re-created by lgctl db migrate; see schema/README.md)
-- The merged time series: per second of the run (seq), over the agents that reported it.
CREATE VIEW lg.v_app_series AS
SELECT s.run_id, s.seq, count(*)::integer AS agents, sum(s.tps) AS tps, sum(s.qps) AS qps,
       sum(s.tps * s.lat_avg_ms) / nullif(sum(s.tps) FILTER (WHERE s.lat_avg_ms IS NOT NULL), 0)
           AS lat_avg_ms,
       max(s.lat_pct_ms) AS lat_pct_max_ms, min(s.pct) AS pct,
       sum(s.err_ps) AS err_ps, sum(s.failed) AS failed
FROM lg.app_sample s
GROUP BY s.run_id, s.seq;
GRANT SELECT ON lg.v_app_series TO lg_reader, lg_writer;
