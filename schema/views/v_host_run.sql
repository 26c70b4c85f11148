-- lg.v_host_run: view (schema/views: re-created by lgctl db migrate; see schema/README.md)
-- lg.v_host_run: each load host of each run over the run's measured window. Samples start after
-- ramp_time already (the agent sends none of the ramp: fio resets its figures at its end), so
-- every sample is of the window; the first one's CPU reading starts at fio's last report inside
-- the ramp, at most one status interval before. Means are weighted by each sample's length.
-- saturated: the mean busy percent at least 95 (LG_CPU_SATURATED_PCT, lg_cpu.h; the threshold
-- SPECstorage's load engine warns at); NULL when no busy figure is known.
CREATE VIEW lg.v_host_run AS
SELECT h.run_id, h.agent,
       sum(h.cpu_busy_pct * h.interval_ms) FILTER (WHERE h.cpu_busy_pct IS NOT NULL)
           / nullif(sum(h.interval_ms) FILTER (WHERE h.cpu_busy_pct IS NOT NULL), 0)
           AS cpu_busy_pct_mean,
       max(h.cpu_busy_pct) AS cpu_busy_pct_max,
       sum(h.fio_cpu_pct * h.interval_ms) FILTER (WHERE h.fio_cpu_pct IS NOT NULL)
           / nullif(sum(h.interval_ms) FILTER (WHERE h.fio_cpu_pct IS NOT NULL), 0)
           AS fio_cpu_pct_mean,
       sum(h.cpu_busy_pct * h.interval_ms) FILTER (WHERE h.cpu_busy_pct IS NOT NULL)
           / nullif(sum(h.interval_ms) FILTER (WHERE h.cpu_busy_pct IS NOT NULL), 0)
           >= 95 AS saturated,
       h.agent_id, max(h.cpus) AS cpus, count(*)::integer AS samples,
       max(h.fio_cpu_pct) AS fio_cpu_pct_max
FROM lg.v_host_sample h
GROUP BY h.run_id, h.agent_id, h.agent;
GRANT SELECT ON lg.v_host_run TO lg_reader, lg_writer;
