-- chart: hbar
-- title: 4K random maximum latency
-- subtitle: 4 KiB random, fio total latency at {load}, {runtime} per run
-- x: config
-- x-title: SUT config
-- y: lat_max_ms
-- y-title: Maximum latency
-- series: series
-- unit: ms
-- sort: none
-- caveat: caveat
-- lower-is-better
-- log
-- # Every point measured (lg.v_point: a failed one has no figure, drawn as missing; its caveats,
-- # e.g. a saturated load host, go under the chart). The headline load point only (the spec's
-- # threads x qd; never an average over a sweep's load points), mean over repeats of the measured
-- # runs, per SUT config, protocol and direction.
SELECT lg.sut_short(v.labels) AS config,
       v.direction || ' · ' || v.protocol AS series,
       max(v.lat_max_ms) AS lat_max_ms,
       v.threads || 'T' || v.qd || 'Q' AS load,
       v.runtime_s || ' s' AS runtime,
       lg.caveat_json(string_agg(v.caveat, E'\n' ORDER BY v.ordinal)) AS caveat
FROM lg.v_point v
WHERE (:campaign IS NULL OR v.campaign = :campaign) AND v.phase = 'measure'
  AND v.profile = '4k-rand' AND v.headline
GROUP BY v.config, v.labels, v.protocol, v.direction, v.threads, v.qd, v.runtime_s
ORDER BY v.config, v.direction, v.protocol;
