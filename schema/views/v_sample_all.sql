-- lg.v_sample_all: view (schema/views: re-created by lgctl db migrate; see schema/README.md)
CREATE VIEW lg.v_sample_all AS
    SELECT run_id, agent_id, seq, direction, t_ms, interval_ms, ios, bytes, lat_n, lat_sum,
           lat_sumsq, lat_min, lat_max, lg.hist_json(hist) AS hist, cpu_busy_pct, fio_cpu_pct,
           host_cpus
    FROM lg.sample;
GRANT SELECT ON lg.v_sample_all TO lg_reader, lg_writer;
