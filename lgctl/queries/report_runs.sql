-- # The rows of lgctl report: one per run and direction of campaign $1 (every attempt), from the
-- # merged results; $2 the labels every config shares (a JSON object), left out of each run's
-- # config name. Its text table and notes are report.c's; CSV and JSON are these rows as they
-- # are. A campaign with application runs asks for the part "apps": its figures merged over the
-- # agents (lg.v_app_result: which merges are exact is said there) and the lowest and highest
-- # TPS of the seconds every agent reported (lg.v_app_series), after the other columns.
SELECT r.campaign_id, c.name AS campaign, r.run_id AS run,
  lg.sut_short(CASE WHEN s.labels - ARRAY(SELECT jsonb_object_keys($2::jsonb)) = '{}'
    THEN s.labels ELSE s.labels - ARRAY(SELECT jsonb_object_keys($2::jsonb)) END) AS sut,
  r.protocol, r.target, r.phase, r.profile,
  coalesce(x.direction, r.direction) AS direction, r.threads, r.qd, r.repeat,
  r.state, (SELECT count(*) FROM lg.v_run_agent y WHERE y.run_id = r.run_id
    AND y.state = 'done' AND y.lost_at IS NULL)::integer AS agents,
  x.iops, x.bw_bytes::float8 / 1e6 AS mb_s, x.lat_mean::float8 / 1e6 AS lat_avg_ms,
  x.lat_max::float8 / 1e6 AS lat_max_ms, x.lat_stddev::float8 / 1e6 AS lat_stddev_ms,
  (x.percentiles->>'99.000000')::float8 / 1e6 AS p99_ms,
  (x.clat_percentiles->>'99.000000')::float8 / 1e6 AS clat_p99_ms,
  r.ss_reached AS steady_state_reached, r.ss_rounds AS steady_state_rounds,
  r.error, r.rate_total AS rate_iops, r.curve_pct, r.probe,
  r.search_value AS probe_value_ms, p.trial AS probe_trial, p.counts AS probe_counts,
  r.qd_achieved, r.qd_inflight, r.qd_short,
  (SELECT avg(u.cpu_busy_pct_mean) FROM lg.v_sut_run u WHERE u.run_id = r.run_id)
    AS nas_cpu_pct,
  (SELECT string_agg(h.agent, ', ' ORDER BY h.agent) FROM lg.v_host_run h
    WHERE h.run_id = r.run_id AND h.saturated) AS host_saturated,
  (SELECT max(h.cpu_busy_pct_mean) FROM lg.v_host_run h WHERE h.run_id = r.run_id)
    AS host_cpu_pct
--+ apps
  , r.app, a.agents AS app_agents, a.transactions AS app_transactions, a.tps AS app_tps,
  a.qps AS app_qps, a.lat_avg_ms AS app_lat_avg_ms, a.lat_stddev_ms AS app_lat_stddev_ms,
  a.lat_min_ms AS app_lat_min_ms, a.lat_max_ms AS app_lat_max_ms, a.pct AS app_pct,
  a.lat_pct_ms AS app_lat_pct_ms, a.lat_pct_max_ms AS app_lat_pct_max_ms,
  a.failed AS app_failed, a.prepare_ms::float8 / 1000 AS app_prepare_s,
  sr.tps_min AS app_tps_min, sr.tps_max AS app_tps_max, sr.seconds AS app_seconds
--+
FROM lg.v_run r JOIN lg.v_campaign c USING (campaign_id)
  JOIN lg.v_sut_config s USING (sut_config_id)
  LEFT JOIN lg.v_result_all x ON x.run_id = r.run_id AND x.agent_id IS NULL
  LEFT JOIN lg.v_search_probe p ON p.run_id = r.run_id
--+ apps
  LEFT JOIN lg.v_app_result a ON a.run_id = r.run_id
  LEFT JOIN LATERAL (SELECT min(y.tps) AS tps_min, max(y.tps) AS tps_max,
    count(*)::integer AS seconds FROM lg.v_app_series y WHERE y.run_id = r.run_id
    AND y.agents = (SELECT max(z.agents) FROM lg.v_app_series z WHERE z.run_id = r.run_id))
    sr ON r.app IS NOT NULL
--+
WHERE r.campaign_id = $1::bigint AND r.state <> 'skipped'
ORDER BY r.ordinal, r.attempt, x.direction
