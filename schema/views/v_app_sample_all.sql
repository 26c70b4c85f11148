-- lg.v_app_sample_all: view (schema/views: re-created by lgctl db migrate; see schema/README.md)
CREATE VIEW lg.v_app_sample_all AS
    SELECT run_id, agent_id, seq, t_ms, interval_ms, tps, qps, read_qps, write_qps, other_qps,
           lat_avg_ms, lat_stddev_ms, lat_pct_ms, pct, err_ps, reconn_ps, failed, threads
    FROM lg.app_sample;
GRANT SELECT ON lg.v_app_sample_all TO lg_reader, lg_writer;
