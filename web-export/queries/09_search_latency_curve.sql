-- chart: curve
-- title: Load-latency curve of the latency-bounded search
-- subtitle: {metric} of all I/Os over all agents per probe, limit {limit_text}; the knee is the most load under it
-- x: iops
-- x-title: IOPS reached (all agents)
-- y: value_ms
-- y-title: Latency of the search's metric
-- series: search
-- unit: ms
-- limit: limit_ms
-- mark: knee {knee_text}
-- caveat: caveat
-- lower-is-better
-- # One line per search (SUT config, protocol, profile, workload), its probes in order of IOPS;
-- # the dashed line is the limit, the ringed point the highest load that stayed under it. A trial
-- # over the limit that was tried again is not drawn: the search acted on the trial after it. A
-- # probe's caveats (lg.v_point: a saturated load host) go under the chart.
SELECT s.sut || ' · ' || s.protocol || ' · ' || s.profile || ' ' || s.direction AS search,
       p.iops, p.value_ms, s.limit_ms, coalesce(p.is_good, false) AS knee, p.load, s.vary,
       s.metric, s.metric || ' <= ' || s.limit_ms || ' ms' AS limit_text,
       'knee: ' || CASE WHEN s.vary = 'rate' AND p.load = 0 THEN 'unpaced'
                        WHEN s.vary = 'rate' THEN p.load || ' IOPS offered'
                        ELSE s.vary || ' ' || p.load END
                || ', ' || round(p.iops::numeric) || ' IOPS' AS knee_text,
       (SELECT lg.caveat_json(string_agg(v.caveat, E'\n')) FROM lg.v_point v
        WHERE v.run_id = p.run_id) AS caveat
FROM lg.v_search s
JOIN lg.v_search_probe p USING (search_id)
WHERE (:campaign IS NULL OR s.campaign = :campaign) AND p.value_ms IS NOT NULL AND p.counts
ORDER BY s.search_id, p.iops;
