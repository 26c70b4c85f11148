-- lg.hist_json: function (schema/views: re-created by lgctl db migrate; see schema/README.md)
CREATE OR REPLACE FUNCTION lg.hist_json(h bytea) RETURNS jsonb
LANGUAGE sql IMMUTABLE STRICT AS $$
    SELECT coalesce(jsonb_object_agg(bucket::text, count), '{}'::jsonb) FROM lg.hist_unpack(h)
$$;
