-- # The figures lg.compare averages (lg.metric_figures: $1 the dimension, $2 the metrics, $3 the
-- # filter, $4 the campaigns, $5 the labels ignored) whose run had a saturated load host, a note
-- # each after a comparison. The host figures are read run by run (LATERAL: the run reaches
-- # lg.sample's key through the views' grouping), never as a join that aggregates every run's
-- # samples first (issue 43 part 1).
SELECT f.dim_value AS side, lg.sut_short(c.labels) AS config, h.agent,
  array_to_string(array_agg(DISTINCT f.run_id ORDER BY f.run_id), ', ') AS runs,
  count(DISTINCT f.run_id) AS n, max(h.cpu_busy_pct_mean) AS busy
FROM jsonb_array_elements_text($2::jsonb) u(metric)
  CROSS JOIN LATERAL lg.metric_figures($1, u.metric, $3::jsonb,
    CASE WHEN $4::jsonb IS NOT NULL
      THEN ARRAY(SELECT jsonb_array_elements_text($4::jsonb)) END,
    CASE WHEN $5::jsonb IS NOT NULL
      THEN ARRAY(SELECT jsonb_array_elements_text($5::jsonb)) END) f
  JOIN lg.v_run r ON r.run_id = f.run_id
  JOIN lg.v_sut_config c ON c.sut_config_id = r.sut_config_id
  CROSS JOIN LATERAL (SELECT * FROM lg.v_host_run x WHERE x.run_id = f.run_id
    AND x.saturated OFFSET 0) h
GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
