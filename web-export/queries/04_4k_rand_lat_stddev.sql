-- chart: hbar
-- title: 4K random latency standard deviation
-- subtitle: 4 KiB random, fio total latency at {load}, {runtime} per run
-- x: config
-- x-title: SUT config
-- y: lat_stddev_ms
-- y-title: Latency standard deviation
-- series: series
-- unit: ms
-- sort: none
-- lower-is-better
-- # The headline load point only (the spec's threads x qd; never an average over a sweep's load
-- # points), mean over repeats of the measured runs, per SUT config, protocol and direction.
SELECT lg.sut_short(v.labels) AS config,
       v.direction || ' · ' || v.protocol AS series,
       avg(v.lat_stddev_ms) AS lat_stddev_ms,
       v.threads || 'T' || v.qd || 'Q' AS load,
       r.runtime_s || ' s' AS runtime
FROM lg.v_result v JOIN lg.v_run r USING (run_id)
WHERE (:campaign IS NULL OR v.campaign = :campaign) AND v.phase = 'measure'
  AND v.profile = '4k-rand' AND r.headline
GROUP BY v.config, v.labels, v.protocol, v.direction, v.threads, v.qd, r.runtime_s
ORDER BY v.config, v.direction, v.protocol;
