-- lg.dimensions: function (schema/views: re-created by lgctl db migrate; see schema/README.md)
-- The dimensions a comparison can be made by: every run field, and every SUT label in use.
CREATE OR REPLACE FUNCTION lg.dimensions() RETURNS SETOF text
LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, lg, pg_temp STABLE AS $$
    SELECT unnest(ARRAY['protocol', 'profile', 'direction', 'threads', 'qd', 'campaign'])
    UNION ALL
    (SELECT k FROM (SELECT unnest(ARRAY['build', 'media', 'pool', 'compression', 'dedup', 'nic'])
                    UNION SELECT jsonb_object_keys(labels) FROM lg.sut_config) l(k)
     WHERE k NOT IN ('protocol', 'profile', 'direction', 'threads', 'qd', 'campaign')
     ORDER BY array_position(ARRAY['build', 'media', 'pool', 'compression', 'dedup', 'nic'], k)
              NULLS LAST, k)
$$;
