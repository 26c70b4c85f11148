-- # lgctl status with no controller to ask: the final state of the newest campaign named $1 from
-- # the database, each point counted by its newest attempt (030_attempts).
SELECT c.campaign_id, c.name, c.state,
  count(*) FILTER (WHERE r.state = 'done') AS done,
  count(*) FILTER (WHERE r.state IN ('failed', 'aborted')) AS failed,
  count(r.*) AS runs, (SELECT count(*) FROM lg.v_failed_point v
    WHERE v.campaign_id = c.campaign_id) AS points_failed,
  coalesce(to_char(c.finished_at, 'YYYY-MM-DD HH24:MI:SS TZ'), '') AS finished,
  coalesce(c.message, '') AS message
FROM lg.v_campaign c LEFT JOIN lg.v_run r
  ON r.campaign_id = c.campaign_id AND NOT EXISTS (SELECT 1
  FROM lg.v_run n WHERE n.attempt > r.attempt
  AND coalesce(n.first_run, n.run_id) = coalesce(r.first_run, r.run_id))
WHERE c.campaign_id = (SELECT max(campaign_id) FROM lg.v_campaign WHERE name = $1)
GROUP BY c.campaign_id, c.name, c.state, c.finished_at, c.message
