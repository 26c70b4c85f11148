-- chart: line
-- title: 8K 70/30 sweep average latency
-- subtitle: 8 KiB random 70% read, mean latency over reads and writes, {runtime} per run
-- x: load
-- x-title: Load point (threads x queue depth per agent)
-- y: lat_avg_ms
-- y-title: Average latency
-- series: config
-- unit: ms
-- lower-is-better
-- caveat: caveat
-- # Every point measured (lg.v_point): a failed one has no figure (a gap in its line, marked on
-- # the axis), its caveats go under the chart.
-- # One point per load point (threads T, queue depth Q) of the sweep, per SUT config and protocol.
SELECT lg.sut_short(v.labels) || ' · ' || v.protocol AS config,
       v.threads || 'T' || v.qd || 'Q' AS load,
       sum(v.lat_avg_ms * v.ios) / nullif(sum(v.ios), 0) AS lat_avg_ms,
       v.runtime_s || ' s' AS runtime,
       lg.caveat_json(string_agg(v.caveat, E'\n' ORDER BY v.ordinal)) AS caveat
FROM lg.v_point v
WHERE (:campaign IS NULL OR v.campaign = :campaign) AND v.phase = 'measure' AND v.profile = '8k-7030'
  AND v.rate_total = 0 AND v.curve_pct IS NULL -- paced runs (curve points, @IOPS) are not load points
GROUP BY v.config, v.labels, v.protocol, v.threads, v.qd, v.runtime_s
ORDER BY v.threads, v.qd, v.config, v.protocol;
