-- lg.v_app_result_all: view (schema/views: re-created by lgctl db migrate; see schema/README.md)
-- Readers read views only (008): every report and output row, per agent, of runs in any state.
CREATE VIEW lg.v_app_result_all AS
    SELECT run_id, agent_id, kind, transactions, tps, qps, queries, reads, writes, others,
           lat_avg_ms, lat_stddev_ms, lat_min_ms, lat_max_ms, lat_pct_ms, pct, failed, reconnects,
           duration_s, threads, scale, prepare_ms, tool_exit, output
    FROM lg.app_result;
GRANT SELECT ON lg.v_app_result_all TO lg_reader, lg_writer;
