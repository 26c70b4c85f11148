-- # The load hosts that were saturated (lg.v_host_run, 026_host_cpu: their CPUs 95% busy or more
-- # over a run's measured window) in campaign $1's runs, a warning each after the report's table.
SELECT h.agent, array_to_string(array_agg(h.run_id ORDER BY h.run_id), ', ') AS runs,
  count(*) AS n, max(h.cpu_busy_pct_mean) AS busy
FROM lg.v_run r CROSS JOIN LATERAL (SELECT * FROM lg.v_host_run x
  WHERE x.run_id = r.run_id AND x.saturated OFFSET 0) h
WHERE r.campaign_id = $1::bigint AND r.state <> 'skipped'
GROUP BY h.agent ORDER BY h.agent
