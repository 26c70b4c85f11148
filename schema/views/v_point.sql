-- lg.v_point: view (schema/views: re-created by lgctl db migrate; see schema/README.md)
-- Every point a campaign measured, for the published charts (lg-export): each run that ended
-- (done, failed, partial, aborted; not one a later attempt of the same point replaced with a
-- done one) with its merged figures per direction (NULL for a run without figures: a failed or
-- missing point, drawn as such), and its caveat: what a reader must know before trusting the
-- figure, one line each (E'\n' between them), NULL when nothing: a load host saturated over
-- the measured window (lg.v_host_run), the run failed, or the steady state was not reached in
-- the preconditioning run just before it (same config, target, profile and direction).
CREATE VIEW lg.v_point AS
WITH pt AS (
    SELECT r.*, c.name AS campaign, s.labels,
           lg.sut_short(s.labels) || ' · ' || r.profile || ' ' || r.direction || ' '
               || r.threads || 'T' || r.qd || 'Q'
               || CASE WHEN r.rate_total > 0 THEN ' @' || r.rate_total || ' IOPS' ELSE '' END
               || CASE WHEN max(r.repeat) OVER (PARTITION BY r.campaign_id) > 1
                       THEN ' · repeat ' || r.repeat ELSE '' END AS point
    FROM lg.run r
    JOIN lg.campaign c USING (campaign_id)
    JOIN lg.sut_config s USING (sut_config_id)
    WHERE r.state IN ('done', 'failed', 'partial', 'aborted')
      AND (r.state = 'done' OR NOT EXISTS (
          SELECT 1 FROM lg.run d
          WHERE d.campaign_id = r.campaign_id AND d.state = 'done' AND d.run_id <> r.run_id
            AND d.config_ordinal = r.config_ordinal AND d.target = r.target
            AND d.phase = r.phase AND d.profile = r.profile AND d.direction = r.direction
            AND d.threads = r.threads AND d.qd = r.qd AND d.repeat = r.repeat
            AND d.rate_total IS NOT DISTINCT FROM r.rate_total
            AND d.curve_pct IS NOT DISTINCT FROM r.curve_pct
            AND d.probe IS NOT DISTINCT FROM r.probe))),
cav AS (
    SELECT p.run_id,
           string_agg(k.line, E'\n' ORDER BY k.ord, k.line) AS caveat
    FROM pt p
    CROSS JOIN LATERAL (
        SELECT 1 AS ord, 'run ' || p.run_id || ' (' || p.point || ') failed'
                   || CASE WHEN p.state <> 'failed' THEN ' (' || p.state || ')' ELSE '' END
                   || coalesce(': ' || nullif(p.error, ''), '') || '; no figure for this point'
        WHERE p.state <> 'done'
        UNION ALL
        SELECT 2, 'run ' || p.run_id || ' (' || p.point || '): load host "' || h.agent
                   || '" saturated (CPU ' || round(h.cpu_busy_pct_mean::numeric)
                   || '% busy over the measured window): the figure is its limit, not the NAS''s'
        FROM lg.v_host_run h WHERE h.run_id = p.run_id AND h.saturated
        UNION ALL
        SELECT 3, 'run ' || p.run_id || ' (' || p.point || '): steady state not reached in '
                   || 'the preconditioning before it (run ' || ss.run_id || ', '
                   || coalesce(ss.ss_rounds::text, '?') || ' rounds): the figure may still drift'
        FROM (SELECT s.run_id, s.ss_rounds, s.ss_reached
              FROM lg.run s
              WHERE s.campaign_id = p.campaign_id AND s.phase = 'steady-state'
                AND s.config_ordinal = p.config_ordinal AND s.target = p.target
                AND s.profile = p.profile AND s.direction = p.direction
                AND s.ordinal < p.ordinal
              ORDER BY s.ordinal DESC LIMIT 1) ss
        WHERE p.phase <> 'steady-state' AND ss.ss_reached IS FALSE) k(ord, line)
    GROUP BY p.run_id)
SELECT p.run_id, p.campaign_id, p.campaign, p.config_ordinal AS config, p.labels, p.phase,
       p.profile, coalesce(x.direction, p.direction) AS direction, p.threads, p.qd, p.protocol,
       p.repeat, p.state, p.headline, p.rate_total, p.curve_pct, p.runtime_s, p.ordinal,
       x.iops, x.bw_bytes / 1e6 AS mbps, x.lat_mean / 1e6 AS lat_avg_ms,
       x.lat_max / 1e6 AS lat_max_ms, x.lat_stddev / 1e6 AS lat_stddev_ms,
       (x.percentiles ->> '99.000000')::float8 / 1e6 AS p99_ms,
       (x.percentiles ->> '99.900000')::float8 / 1e6 AS p99_9_ms,
       x.ios, cav.caveat
FROM pt p
LEFT JOIN lg.result x ON x.run_id = p.run_id AND x.agent_id IS NULL AND p.state = 'done'
LEFT JOIN cav ON cav.run_id = p.run_id;
GRANT SELECT ON lg.v_point TO lg_reader, lg_writer;
