-- lg.value_order: function (schema/views: re-created by lgctl db migrate; see schema/README.md)
-- Order of dimension values: numbers by value, then text.
CREATE OR REPLACE FUNCTION lg.value_order(v text) RETURNS numeric
LANGUAGE sql IMMUTABLE AS $$
    SELECT CASE WHEN v ~ '^[0-9]+(\.[0-9]+)?$' THEN v::numeric END
$$;
