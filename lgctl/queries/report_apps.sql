-- title: applications
-- about: (the tools' own figures, all agents together)
-- head: run | SUT config | profile | tool | clients | state | TPS | QPS | avg ms | pct ms | failed | note
-- left: 6
-- note
-- # The application runs of campaign $1 (pgbench, sysbench oltp_read_write), after the runs:
-- # the tools' own figures merged over the agents (lg.v_app_result) and the lowest and highest
-- # TPS of the seconds every agent reported (lg.v_app_series); report.c makes each row's cells.
SELECT r.run_id AS run, lg.sut_short(s.labels) AS sut, r.profile, r.state, r.threads,
  coalesce(r.error, '') AS error, r.app, a.agents AS app_agents, a.tps AS app_tps,
  a.qps AS app_qps, a.lat_avg_ms AS app_lat_avg_ms, a.pct AS app_pct,
  a.lat_pct_ms AS app_lat_pct_ms, a.lat_pct_max_ms AS app_lat_pct_max_ms,
  a.failed AS app_failed, a.prepare_ms::float8 / 1000 AS app_prepare_s,
  sr.tps_min AS app_tps_min, sr.tps_max AS app_tps_max, sr.seconds AS app_seconds
FROM lg.v_run r JOIN lg.v_sut_config s USING (sut_config_id)
  LEFT JOIN lg.v_app_result a ON a.run_id = r.run_id
  LEFT JOIN LATERAL (SELECT min(y.tps) AS tps_min, max(y.tps) AS tps_max,
    count(*)::integer AS seconds FROM lg.v_app_series y WHERE y.run_id = r.run_id
    AND y.agents = (SELECT max(z.agents) FROM lg.v_app_series z WHERE z.run_id = r.run_id))
    sr ON r.app IS NOT NULL
WHERE r.campaign_id = $1::bigint AND r.app IS NOT NULL AND r.state <> 'skipped'
ORDER BY r.ordinal
