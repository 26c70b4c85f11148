-- chart: hbar
-- title: p99 latency per SUT config: {profile}
-- subtitle: {profile} at {load}, fio's 99th percentile of total latency, {runtime} per run
-- x: config
-- x-title: SUT config
-- y: p99_ms
-- y-title: p99 latency
-- series: series
-- unit: ms
-- sort: none
-- caveat: caveat
-- lower-is-better
-- each: profile
-- # One chart per profile (fio runs): the headline load point only (the spec's threads x qd), per
-- # SUT config, protocol and direction, the p99 of all I/Os of a run merged over its agents
-- # (lg.v_point, from fio's percentiles: the same figure as lgctl report's), the mean over
-- # repeats (a percentile has no mean of its own: the mean of the runs' p99; runs says how
-- # many). A failed point has no figure and says so; its caveats go under the chart.
SELECT v.profile, lg.sut_short(v.labels) AS config,
       v.direction || ' · ' || v.protocol AS series,
       avg(v.p99_ms) AS p99_ms, count(v.p99_ms) AS runs,
       v.threads || 'T' || v.qd || 'Q' AS load, v.runtime_s || ' s' AS runtime,
       lg.caveat_json(string_agg(v.caveat, E'\n' ORDER BY v.ordinal)) AS caveat
FROM lg.v_point v
JOIN lg.v_run r USING (run_id)
WHERE (:campaign IS NULL OR v.campaign = :campaign) AND v.phase = 'measure' AND v.headline
  AND r.app IS NULL
GROUP BY v.profile, v.config, v.labels, v.protocol, v.direction, v.threads, v.qd, v.runtime_s
ORDER BY min(min(v.ordinal)) OVER (PARTITION BY v.profile), v.config, v.direction, v.protocol;
