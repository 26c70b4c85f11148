-- # The telemetry sources of campaign $1 that missed scrapes during its runs (how many, and the
-- # first reason: their figures have gaps, never filled in), or whose answers lg had to change to
-- # store them (label values that were not UTF-8, or cut: their keys differ from the exporter's
-- # names); report.c says each as a warning.
SELECT u.source, count(*) FILTER (WHERE u.missed) AS missed,
  count(*) AS scrapes, min(u.run_id) FILTER (WHERE u.missed) AS first_run,
  (array_agg(u.error ORDER BY u.run_id, u.seq) FILTER (WHERE u.missed))[1] AS first_error,
  count(*) FILTER (WHERE NOT u.missed AND u.error IS NOT NULL) AS noted,
  (array_agg(u.error ORDER BY u.run_id, u.seq)
    FILTER (WHERE NOT u.missed AND u.error IS NOT NULL))[1] AS first_note
FROM lg.v_sut_sample u JOIN lg.v_run r USING (run_id)
WHERE r.campaign_id = $1::bigint GROUP BY u.source
HAVING count(*) FILTER (WHERE u.missed OR u.error IS NOT NULL) > 0 ORDER BY u.source
