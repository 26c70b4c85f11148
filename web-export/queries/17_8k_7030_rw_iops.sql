-- chart: line
-- title: 8K 70/30 sweep throughput: reads and writes apart
-- subtitle: 8 KiB random 70% read, the reads' and the writes' IOPS per load point, {runtime} per run
-- x: load
-- x-title: Load point (threads x queue depth per agent)
-- y: iops
-- y-title: IOPS
-- series: config
-- unit: IOPS
-- caveat: caveat
-- # The mixed profile's two directions apart (lg.v_point has a row per direction of a run): a
-- # line per SUT config, protocol and direction through the sweep's unpaced load points. A
-- # failed point has no figure (a gap, marked on the axis); its caveats go under the chart.
SELECT lg.sut_short(v.labels) || ' · ' || v.protocol || ' · ' || v.direction AS config,
       v.threads || 'T' || v.qd || 'Q' AS load,
       sum(v.iops) / count(DISTINCT v.repeat) FILTER (WHERE v.iops IS NOT NULL) AS iops,
       v.runtime_s || ' s' AS runtime,
       lg.caveat_json(string_agg(v.caveat, E'\n' ORDER BY v.ordinal)) AS caveat
FROM lg.v_point v
WHERE (:campaign IS NULL OR v.campaign = :campaign) AND v.phase = 'measure' AND v.profile = '8k-7030'
  AND v.rate_total = 0 AND v.curve_pct IS NULL -- paced runs (curve points, @IOPS) are not load points
GROUP BY v.config, v.labels, v.protocol, v.direction, v.threads, v.qd, v.runtime_s
ORDER BY v.threads, v.qd, v.config, v.protocol, v.direction;
