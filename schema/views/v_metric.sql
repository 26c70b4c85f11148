-- lg.v_metric: view (schema/views: re-created by lgctl db migrate; see schema/README.md)
CREATE VIEW lg.v_metric AS
-- the metrics as a list the query's "metric = ..." narrows before any row is read, and each value
-- computed for its metric alone, in the select list of a subquery the planner flattens (a LATERAL
-- VALUES of every value made PostgreSQL compute and hash all twelve per result; a LATERAL of the
-- one value was memoized on a key of the result's percentiles, detoasted per row: 0.5 s of a
-- rank over 100,000 runs)
SELECT y.* FROM (
SELECT c.campaign_id, c.name AS campaign, 'run'::text AS source, r.run_id, NULL::integer AS line,
       s.sut_config_id,
       s.labels || CASE WHEN r.curve_pct IS NOT NULL
                        THEN jsonb_build_object('curve', r.curve_pct || '%')
                        WHEN r.rate_total > 0 THEN jsonb_build_object('rate', r.rate_total::text)
                        ELSE '{}'::jsonb END AS labels,
       r.profile, x.direction, r.protocol, r.threads, r.qd,
       r.repeat, m.metric, CASE m.metric
    WHEN 'iops' THEN x.iops WHEN 'mbps' THEN x.bw_bytes / 1e6
    WHEN 'lat_avg_ms' THEN x.lat_mean / 1e6 WHEN 'lat_min_ms' THEN x.lat_min / 1e6
    WHEN 'lat_max_ms' THEN x.lat_max / 1e6 WHEN 'lat_stddev_ms' THEN x.lat_stddev / 1e6
    WHEN 'p50_ms' THEN (x.percentiles ->> '50.000000')::float8 / 1e6
    WHEN 'p90_ms' THEN (x.percentiles ->> '90.000000')::float8 / 1e6
    WHEN 'p95_ms' THEN (x.percentiles ->> '95.000000')::float8 / 1e6
    WHEN 'p99_ms' THEN (x.percentiles ->> '99.000000')::float8 / 1e6
    WHEN 'p99_9_ms' THEN (x.percentiles ->> '99.900000')::float8 / 1e6
    WHEN 'p99_99_ms' THEN (x.percentiles ->> '99.990000')::float8 / 1e6
    WHEN 'clat_p50_ms' THEN (x.clat_percentiles ->> '50.000000')::float8 / 1e6
    WHEN 'clat_p90_ms' THEN (x.clat_percentiles ->> '90.000000')::float8 / 1e6
    WHEN 'clat_p95_ms' THEN (x.clat_percentiles ->> '95.000000')::float8 / 1e6
    WHEN 'clat_p99_ms' THEN (x.clat_percentiles ->> '99.000000')::float8 / 1e6
    WHEN 'clat_p99_9_ms' THEN (x.clat_percentiles ->> '99.900000')::float8 / 1e6
    WHEN 'clat_p99_99_ms' THEN (x.clat_percentiles ->> '99.990000')::float8 / 1e6 END AS value,
       r.qd_achieved, r.qd_short
FROM lg.result x
JOIN lg.run r USING (run_id)
JOIN lg.campaign c USING (campaign_id)
JOIN lg.sut_config s USING (sut_config_id)
CROSS JOIN (VALUES ('iops'), ('mbps'), ('lat_avg_ms'), ('lat_min_ms'), ('lat_max_ms'),
                   ('lat_stddev_ms'), ('p50_ms'), ('p90_ms'), ('p95_ms'), ('p99_ms'), ('p99_9_ms'),
                   ('p99_99_ms'), ('clat_p50_ms'), ('clat_p90_ms'), ('clat_p95_ms'),
                   ('clat_p99_ms'), ('clat_p99_9_ms'), ('clat_p99_99_ms')) m(metric)
WHERE x.agent_id IS NULL AND r.state = 'done' AND r.phase = 'measure') y
WHERE y.value IS NOT NULL
UNION ALL
SELECT c.campaign_id, c.name, 'import', NULL, f.line, s.sut_config_id, s.labels, f.profile,
       f.direction, f.protocol, f.threads, f.qd, 1, f.metric, f.value, NULL::float8, NULL::boolean
FROM lg.imported_figure f
JOIN lg.campaign c USING (campaign_id)
JOIN lg.sut_config s USING (sut_config_id)
UNION ALL
SELECT c.campaign_id, c.name, 'search', s.good_run_id, NULL, s.sut_config_id,
       sc.labels || jsonb_build_object('search', s.metric || '<=' || s.limit_ms || 'ms by '
                                                 || s.vary),
       s.profile, s.direction, s.protocol,
       CASE WHEN s.vary = 'threads' THEN NULL ELSE s.threads END,
       CASE WHEN s.vary = 'qd' THEN NULL ELSE s.qd END,
       1, 'iops_at_limit', s.iops_at_limit, NULL, NULL
FROM lg.search s
JOIN lg.campaign c USING (campaign_id)
JOIN lg.sut_config sc USING (sut_config_id)
WHERE s.iops_at_limit IS NOT NULL AND s.state IN ('knee', 'not-reached', 'steps')
UNION ALL
SELECT c.campaign_id, c.name, 'run', r.run_id, NULL, s.sut_config_id, s.labels, r.profile,
       r.direction, r.protocol, r.threads, r.qd, r.repeat, m.metric, m.value, r.qd_achieved,
       r.qd_short
FROM lg.v_app_result a
JOIN lg.run r USING (run_id)
JOIN lg.campaign c USING (campaign_id)
JOIN lg.sut_config s USING (sut_config_id)
CROSS JOIN LATERAL (VALUES
    ('tps', a.tps), ('qps', a.qps), ('lat_avg_ms', a.lat_avg_ms),
    ('lat_stddev_ms', a.lat_stddev_ms), ('lat_min_ms', a.lat_min_ms),
    ('lat_max_ms', a.lat_max_ms),
    ('p95_ms', CASE WHEN a.pct = 95 THEN a.lat_pct_ms END),
    ('p99_ms', CASE WHEN a.pct = 99 THEN a.lat_pct_ms END)) m(metric, value)
WHERE r.state = 'done' AND r.phase = 'measure' AND m.value IS NOT NULL
UNION ALL
SELECT c.campaign_id, c.name, 'run', r.run_id, NULL, s.sut_config_id,
       s.labels || CASE WHEN r.curve_pct IS NOT NULL
                        THEN jsonb_build_object('curve', r.curve_pct || '%')
                        WHEN r.rate_total > 0 THEN jsonb_build_object('rate', r.rate_total::text)
                        ELSE '{}'::jsonb END,
       r.profile, x.direction, r.protocol, r.threads, r.qd,
       r.repeat, m.metric, m.value, r.qd_achieved, r.qd_short
FROM lg.result x
JOIN lg.run r USING (run_id)
JOIN lg.campaign c USING (campaign_id)
JOIN lg.sut_config s USING (sut_config_id)
CROSS JOIN LATERAL (SELECT avg(u.cpu_busy_pct_mean) AS cpu FROM lg.v_sut_run u
                    WHERE u.run_id = r.run_id) u
CROSS JOIN LATERAL (VALUES
    ('cpu_busy_pct', u.cpu), ('iops_per_cpu_pct', x.iops / nullif(u.cpu, 0))) m(metric, value)
WHERE x.agent_id IS NULL AND r.state = 'done' AND r.phase = 'measure' AND m.value IS NOT NULL
  AND r.telemetry IS NOT NULL;
GRANT SELECT ON lg.v_metric TO lg_reader, lg_writer;
