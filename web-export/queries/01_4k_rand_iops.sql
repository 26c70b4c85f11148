-- chart: hbar
-- title: 4K random read/write IOPS
-- subtitle: 4 KiB random at {load}, {runtime} per run
-- x: config
-- x-title: SUT config
-- y: iops
-- y-title: IOPS
-- series: series
-- unit: IOPS
-- sort: none
-- # The headline load point only (the spec's threads x qd; never an average over a sweep's load
-- # points), mean over repeats of the measured runs, per SUT config, protocol and direction.
SELECT lg.sut_short(v.labels) AS config,
       v.direction || ' · ' || v.protocol AS series,
       avg(v.iops) AS iops,
       v.threads || 'T' || v.qd || 'Q' AS load,
       r.runtime_s || ' s' AS runtime
FROM lg.v_result v JOIN lg.v_run r USING (run_id)
WHERE (:campaign IS NULL OR v.campaign = :campaign) AND v.phase = 'measure'
  AND v.profile = '4k-rand' AND r.headline
GROUP BY v.config, v.labels, v.protocol, v.direction, v.threads, v.qd, r.runtime_s
ORDER BY v.config, v.direction, v.protocol;
