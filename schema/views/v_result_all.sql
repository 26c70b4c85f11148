-- lg.v_result_all: view (schema/views: re-created by lgctl db migrate; see schema/README.md)
-- Every result row: merged (agent_id NULL) and per agent, of runs in any state; clat_percentiles
-- (037): the completion-latency percentiles fio printed, where those were all it printed.
CREATE VIEW lg.v_result_all AS
    SELECT result_id, run_id, agent_id, direction, ios, bytes, runtime_ms, iops, bw_bytes, lat_n,
           lat_min, lat_max, lat_mean, lat_stddev, lat_sum, lat_sumsq, percentiles, hist,
           clat_percentiles
    FROM lg.result;
GRANT SELECT ON lg.v_result_all TO lg_reader, lg_writer;
