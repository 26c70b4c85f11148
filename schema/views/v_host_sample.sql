-- lg.v_host_sample: view (schema/views: re-created by lgctl db migrate; see schema/README.md)
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
GRANT SELECT ON lg.v_host_sample TO lg_reader, lg_writer;
