-- # The campaign lgctl report prints: $1 its id (0: any), $2 its name (NULL: any); the newest
-- # of those. Its configs and whether it has application runs say what the report shows.
SELECT c.campaign_id, c.name, c.state,
  to_char(c.created_at, 'YYYY-MM-DD HH24:MI:SS TZ') AS created,
  coalesce(to_char(c.finished_at, 'YYYY-MM-DD HH24:MI:SS TZ'), '') AS finished,
  (SELECT count(DISTINCT sut_config_id) FROM lg.v_run r
    WHERE r.campaign_id = c.campaign_id) AS configs,
  EXISTS (SELECT 1 FROM lg.v_run r WHERE r.campaign_id = c.campaign_id
    AND r.app IS NOT NULL) AS apps
FROM lg.v_campaign c
WHERE ($1::bigint = 0 OR c.campaign_id = $1::bigint)
  AND ($2::text IS NULL OR c.name = $2)
ORDER BY c.campaign_id DESC LIMIT 1
