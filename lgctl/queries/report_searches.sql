-- title: searches
-- about: (the most load under a latency limit)
-- head: SUT config | protocol | profile | dir | limit | by | outcome | best load | IOPS at limit | first over | probes | what it found
-- left: 7
-- note
-- figures: iops_at_limit 0
-- # What each latency-bounded search of campaign $1 found (lg.v_search), after the runs.
SELECT s.sut, s.protocol, s.profile, s.direction,
  s.metric || ' <= ' || s.limit_ms || ' ms' AS limit_text, s.vary, s.state,
  coalesce(s.good_load::text, '-') AS good_load, s.iops_at_limit,
  coalesce(s.bad_load::text, '-') AS bad_load,
  coalesce(s.probes::text, '') || ' (' || n.repeats
    || CASE WHEN n.repeats = 1 THEN ' repeat, ' ELSE ' repeats, ' END
    || n.not_needed || ' not needed)' AS probes,
  s.message
FROM lg.v_search s
  CROSS JOIN LATERAL (SELECT
    (SELECT count(*) FROM lg.v_run r WHERE r.search_id = s.search_id
      AND r.probe IS NOT NULL AND r.state = 'skipped') AS not_needed,
    (SELECT count(*) FROM lg.v_search_probe p WHERE p.search_id = s.search_id
      AND p.trial > 1) AS repeats) n
WHERE s.campaign_id = $1::bigint ORDER BY s.search_id
