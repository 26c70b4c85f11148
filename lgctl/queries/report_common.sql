-- # The labels that every SUT config campaign $1 measured has, with the same value, as a JSON
-- # object ("{}" with one config or none in common): the report says them once.
WITH c AS (SELECT DISTINCT s.labels FROM lg.v_run r
    JOIN lg.v_sut_config s USING (sut_config_id)
    WHERE r.campaign_id = $1::bigint AND r.state <> 'skipped'),
  e AS (SELECT l.key, l.value FROM c, jsonb_each(c.labels) l)
SELECT CASE WHEN (SELECT count(*) FROM c) < 2 THEN '{}'::jsonb
  ELSE coalesce((SELECT jsonb_object_agg(key, v) FROM
    (SELECT key, min(value::text)::jsonb AS v FROM e GROUP BY key
     HAVING count(*) = (SELECT count(*) FROM c)
      AND count(DISTINCT value) = 1) x), '{}'::jsonb) END AS common
