-- lg.sut_series_ids: function (schema/views: re-created by lgctl db migrate; see schema/README.md)
-- The ids of keys, in their order, adding the new ones.
CREATE OR REPLACE FUNCTION lg.sut_series_ids(keys text[]) RETURNS integer[]
LANGUAGE sql SET search_path = pg_catalog, lg, pg_temp AS $$
    WITH ins AS (
        INSERT INTO lg.sut_series (key)
        SELECT DISTINCT k FROM unnest(sut_series_ids.keys) k
        ON CONFLICT (key) DO NOTHING
        RETURNING series_id, key)
    SELECT array_agg(coalesce(i.series_id, s.series_id) ORDER BY u.o)
    FROM unnest(sut_series_ids.keys) WITH ORDINALITY u(k, o)
    LEFT JOIN ins i ON i.key = u.k
    LEFT JOIN lg.sut_series s ON s.key = u.k
$$;
REVOKE ALL ON FUNCTION lg.sut_series_ids(text[]) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION lg.sut_series_ids(text[]) TO lg_writer;
