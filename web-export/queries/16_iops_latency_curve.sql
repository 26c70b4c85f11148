-- chart: curve
-- title: IOPS against latency: {profile}
-- subtitle: {profile}: each load point of the sweep (threads x queue depth per agent) labelled, average latency of all I/Os, {runtime} per run
-- x: iops
-- x-title: IOPS (all agents, reads and writes)
-- y: lat_avg_ms
-- y-title: Average latency
-- series: config
-- unit: ms
-- label: load
-- caveat: caveat
-- lower-is-better
-- each: profile
-- # One chart per swept profile (more than one unpaced load point): a line per SUT config and
-- # protocol (and direction, for a profile that runs reads and writes apart) through its load
-- # points in order of load, each point at its IOPS (read + write, mean over repeats) and its
-- # average latency (of all I/Os, weighted by their counts) and labelled with its load, e.g.
-- # "4T8Q": the curve vdbench draws. A failed point has no figure and says so.
WITH pts AS (
    SELECT v.profile, v.config AS config_ordinal, v.labels, v.protocol, v.threads, v.qd,
           v.runtime_s, v.run_id, v.repeat, v.ordinal, v.caveat,
           CASE WHEN r.direction = 'mixed' THEN NULL ELSE r.direction END AS direction,
           v.iops, v.lat_avg_ms, v.ios
    FROM lg.v_point v
    JOIN lg.v_run r USING (run_id)
    WHERE (:campaign IS NULL OR v.campaign = :campaign) AND v.phase = 'measure'
      AND v.rate_total = 0 AND v.curve_pct IS NULL AND r.app IS NULL),
swept AS (
    SELECT profile FROM pts GROUP BY profile HAVING count(DISTINCT (threads, qd)) > 1)
SELECT p.profile,
       lg.sut_short(p.labels) || ' · ' || p.protocol
           || coalesce(' · ' || p.direction, '') AS config,
       p.threads || 'T' || p.qd || 'Q' AS load,
       sum(p.iops) / nullif(count(DISTINCT p.run_id) FILTER (WHERE p.iops IS NOT NULL), 0)
           AS iops,
       sum(p.lat_avg_ms * p.ios) / nullif(sum(p.ios), 0) AS lat_avg_ms,
       count(DISTINCT p.run_id) FILTER (WHERE p.iops IS NOT NULL) AS runs,
       p.runtime_s || ' s' AS runtime,
       lg.caveat_json(string_agg(p.caveat, E'\n' ORDER BY p.ordinal)) AS caveat
FROM pts p
WHERE p.profile IN (SELECT profile FROM swept)
GROUP BY p.profile, p.config_ordinal, p.labels, p.protocol, p.direction, p.threads, p.qd,
         p.runtime_s
ORDER BY p.profile, p.config_ordinal, p.protocol, p.direction, p.threads * p.qd, p.threads;
