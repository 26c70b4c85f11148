-- chart: hbar
-- title: clat p99 latency per SUT config: {profile}
-- subtitle: {profile} at {load}, fio's 99th percentile of completion latency (clat, not total), {runtime} per run
-- x: config
-- x-title: SUT config
-- y: clat_p99_ms
-- y-title: clat p99 latency
-- series: series
-- unit: ms
-- sort: none
-- caveat: caveat
-- lower-is-better
-- each: profile
-- # Results made elsewhere (lgctl import) whose fio printed completion-latency percentiles only,
-- # its default: their p99 is not total latency, so it gets a chart of its own, named so, never
-- # drawn beside total-latency p99s (14_p99_per_profile). No such runs: no chart. Otherwise as
-- # 14: the headline load point, per SUT config, protocol and direction, the mean over repeats.
SELECT v.profile, lg.sut_short(v.labels) AS config,
       v.direction || ' · ' || v.protocol AS series,
       avg(v.clat_p99_ms) AS clat_p99_ms, count(v.clat_p99_ms) AS runs,
       v.threads || 'T' || v.qd || 'Q' AS load, v.runtime_s || ' s' AS runtime,
       lg.caveat_json(string_agg(v.caveat, E'\n' ORDER BY v.ordinal)) AS caveat
FROM lg.v_point v
JOIN lg.v_run r USING (run_id)
WHERE (:campaign IS NULL OR v.campaign = :campaign) AND v.phase = 'measure' AND v.headline
  AND r.app IS NULL AND v.p99_ms IS NULL
GROUP BY v.profile, v.config, v.labels, v.protocol, v.direction, v.threads, v.qd, v.runtime_s
HAVING count(v.clat_p99_ms) > 0
ORDER BY min(min(v.ordinal)) OVER (PARTITION BY v.profile), v.config, v.direction, v.protocol;
