-- title: trials repeated
-- about: (a probe over the limit is tried again at its load; the load is over only if every trial was, and the last trial counts)
-- # The loads of campaign $1's searches that were tried more than once (a trial over the limit is
-- # tried again before the search acts on it): every trial's figure, and which one counted; a
-- # line each (report.c).
SELECT s.profile || ' ' || s.direction || ', ' || CASE WHEN s.vary = 'rate' AND
    p.load = 0 THEN 'unpaced' WHEN s.vary = 'rate' THEN p.load || ' IOPS offered'
    ELSE s.vary || ' ' || p.load END AS at,
  string_agg('probe ' || p.probe || ' ' || coalesce(round(p.value_ms::numeric, 3)::text,
    'no figure') || ' ms' || CASE WHEN p.counts THEN ' (counts)' ELSE '' END, ', '
    ORDER BY p.probe) AS trials, bool_and(p.over_limit) AS all_over
FROM lg.v_search s JOIN lg.v_search_probe p USING (search_id)
WHERE s.campaign_id = $1::bigint GROUP BY s.search_id, s.profile, s.direction,
  s.vary, p.load HAVING count(*) > 1 ORDER BY s.search_id, min(p.probe)
