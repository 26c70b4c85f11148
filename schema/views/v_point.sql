-- lg.v_point: view (schema/views: re-created by lgctl db migrate; see schema/README.md)
-- Every point a campaign measured, for the published charts (lg-export): each run that ended
-- (done, failed, partial, aborted; not one a later attempt of the same point replaced with a
-- done one) with its merged figures per direction (NULL for a run without figures: a failed or
-- missing point, drawn as such), and its caveat: what a reader must know before trusting the
-- figure, one line each (E'\n' between them), NULL when nothing: the run failed, a load host was
-- saturated over the measured window (lg.v_host_run), or the steady state was not reached in the
-- preconditioning run just before it (same config, target, profile and direction). One SELECT
-- with lateral parts, no CTE or window: a query's filter on campaign or run reaches lg.run.
CREATE VIEW lg.v_point AS
SELECT r.run_id, r.campaign_id, c.name AS campaign, r.config_ordinal AS config, s.labels,
       r.phase, r.profile, coalesce(x.direction, r.direction) AS direction, r.threads, r.qd,
       r.protocol, r.repeat, r.state, r.headline, r.rate_total, r.curve_pct, r.runtime_s,
       r.ordinal, x.iops, x.bw_bytes / 1e6 AS mbps, x.lat_mean / 1e6 AS lat_avg_ms,
       x.lat_max / 1e6 AS lat_max_ms, x.lat_stddev / 1e6 AS lat_stddev_ms,
       (x.percentiles ->> '99.000000')::float8 / 1e6 AS p99_ms,
       (x.percentiles ->> '99.900000')::float8 / 1e6 AS p99_9_ms,
       x.ios, cav.caveat,
       -- fio's completion-latency p99, where its output had only those (037): never p99_ms
       (x.clat_percentiles ->> '99.000000')::float8 / 1e6 AS clat_p99_ms
FROM lg.campaign c
-- per campaign, once over its runs (a correlated subquery per run would read the campaign's runs
-- for each of them; a grouping over lg.run would read every campaign's, for a query on one):
-- whether it has repeats, and a steady state it did not reach
CROSS JOIN LATERAL (
    SELECT max(q.repeat) > 1 AS repeats,
           coalesce(bool_or(q.phase = 'steady-state' AND q.ss_reached IS FALSE), false)
               AS ss_missed
    FROM lg.run q WHERE q.campaign_id = c.campaign_id) cf
JOIN lg.run r ON r.campaign_id = c.campaign_id
JOIN lg.sut_config s ON s.sut_config_id = r.sut_config_id
LEFT JOIN lg.result x ON x.run_id = r.run_id AND x.agent_id IS NULL AND r.state = 'done'
CROSS JOIN LATERAL (
    SELECT 'run ' || r.run_id || ' (' || lg.sut_short(s.labels) || ' · ' || r.profile || ' '
           || r.direction || ' ' || r.threads || 'T' || r.qd || 'Q'
           || CASE WHEN r.rate_total > 0 THEN ' @' || r.rate_total || ' IOPS' ELSE '' END
           || CASE WHEN cf.repeats THEN ' · repeat ' || r.repeat ELSE '' END || ')' AS run) pt
CROSS JOIN LATERAL (
    SELECT string_agg(k.line, E'\n' ORDER BY k.ord, k.line) AS caveat
    FROM (
        SELECT 1 AS ord, pt.run || ' failed'
                   || CASE WHEN r.state <> 'failed' THEN ' (' || r.state || ')' ELSE '' END
                   || coalesce(': ' || nullif(r.error, ''), '') || '; no figure for this point'
        WHERE r.state <> 'done'
        UNION ALL
        SELECT 2, pt.run || ': load host "' || h.agent || '" saturated (CPU '
                   || round(h.cpu_busy_pct_mean::numeric)
                   || '% busy over the measured window): the figure is its limit, not the NAS''s'
        FROM lg.v_host_run h WHERE h.run_id = r.run_id AND h.saturated
        UNION ALL
        SELECT 3, pt.run || ': steady state not reached in the preconditioning before it (run '
                   || ss.run_id || ', ' || coalesce(ss.ss_rounds::text, '?')
                   || ' rounds): the figure may still drift'
        FROM (SELECT p.run_id, p.ss_rounds, p.ss_reached
              FROM lg.run p
              WHERE p.campaign_id = r.campaign_id AND p.phase = 'steady-state'
                AND p.config_ordinal = r.config_ordinal AND p.target = r.target
                AND p.profile = r.profile AND p.direction = r.direction
                AND p.ordinal < r.ordinal
              ORDER BY p.ordinal DESC LIMIT 1) ss
        WHERE cf.ss_missed AND r.phase <> 'steady-state' AND ss.ss_reached IS FALSE) k(ord, line)
    ) cav
WHERE r.state IN ('done', 'failed', 'partial', 'aborted')
  AND (r.state = 'done' OR NOT EXISTS (
      SELECT 1 FROM lg.run d
      WHERE d.campaign_id = r.campaign_id AND d.state = 'done' AND d.run_id <> r.run_id
        AND d.config_ordinal = r.config_ordinal AND d.target = r.target
        AND d.phase = r.phase AND d.profile = r.profile AND d.direction = r.direction
        AND d.threads = r.threads AND d.qd = r.qd AND d.repeat = r.repeat
        AND d.rate_total IS NOT DISTINCT FROM r.rate_total
        AND d.curve_pct IS NOT DISTINCT FROM r.curve_pct
        AND d.probe IS NOT DISTINCT FROM r.probe));
GRANT SELECT ON lg.v_point TO lg_reader, lg_writer;
