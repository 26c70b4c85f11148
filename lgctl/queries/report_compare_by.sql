-- # What a comparison of campaign $1's configs can be by: how many configs it measured, the
-- # label keys whose values differ between them (comma-separated) and how many protocols.
WITH c AS (SELECT DISTINCT s.labels FROM lg.v_run r
    JOIN lg.v_sut_config s USING (sut_config_id)
    WHERE r.campaign_id = $1::bigint AND r.phase = 'measure' AND r.state = 'done'),
  k AS (SELECT DISTINCT jsonb_object_keys(labels) AS key FROM c)
SELECT (SELECT count(*) FROM c) AS configs,
  coalesce((SELECT string_agg(k.key, ',' ORDER BY k.key) FROM k
    WHERE (SELECT count(DISTINCT coalesce(c.labels ->> k.key, '')) FROM c) > 1), '') AS keys,
  (SELECT count(DISTINCT r.protocol) FROM lg.v_run r WHERE r.campaign_id = $1::bigint
    AND r.phase = 'measure' AND r.state = 'done') AS protocols
