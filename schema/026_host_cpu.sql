-- 026_host_cpu: the load hosts' own CPU beside every sample, and runs whose load host was
-- saturated. A load host that is itself CPU-bound passes as a slow NAS: its figures are the load
-- host's limit. Each agent reports, with every interval sample, how busy the CPUs it may run on
-- were (Linux: /proc/stat of its affinity mask; Windows: GetSystemTimes), fio's CPU as a percent
-- of those CPUs, and how many there were (lg_cpu.h).
--
-- The figures are columns of lg.sample, not a table of their own: the sample writer's one binary
-- COPY carries them, with no second key, index or COPY per sample (ingest speed). A sample of a
-- mixed run has a row per direction; each holds the same figures, and lg.v_host_sample takes
-- one. NULL: not measured (an older agent, an application run) or not known for that interval.
ALTER TABLE lg.sample
    ADD COLUMN cpu_busy_pct real,
    ADD COLUMN fio_cpu_pct real,
    ADD COLUMN host_cpus integer;

CREATE OR REPLACE VIEW lg.v_sample_all AS
    SELECT run_id, agent_id, seq, direction, t_ms, interval_ms, ios, bytes, lat_n, lat_sum,
           lat_sumsq, lat_min, lat_max, lg.hist_json(hist) AS hist, cpu_busy_pct, fio_cpu_pct,
           host_cpus
    FROM lg.sample;

-- lg.v_host_sample: one row per interval sample of each agent that measured its host: when it
-- ended (t, agent clock), its length, the CPUs' busy percent, fio's percent of them, the CPUs.
CREATE VIEW lg.v_host_sample AS
SELECT DISTINCT ON (s.run_id, s.agent_id, s.seq)
       s.run_id, s.agent_id, a.name AS agent, s.seq, to_timestamp(s.t_ms / 1000.0) AS t,
       s.t_ms, s.interval_ms, s.cpu_busy_pct::float8 AS cpu_busy_pct,
       s.fio_cpu_pct::float8 AS fio_cpu_pct, s.host_cpus AS cpus
FROM lg.sample s
JOIN lg.agent a USING (agent_id)
WHERE s.host_cpus IS NOT NULL
ORDER BY s.run_id, s.agent_id, s.seq, s.direction;

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

GRANT SELECT ON lg.v_sample_all, lg.v_host_sample, lg.v_host_run TO lg_reader, lg_writer;
