-- lg.pct_text: function (schema/views: re-created by lgctl db migrate; see schema/README.md)
-- A percentage as the comparisons show it: "+10.2%", "-2.3%".
CREATE OR REPLACE FUNCTION lg.pct_text(pct float8) RETURNS text
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
    SELECT CASE WHEN pct >= 0 THEN '+' ELSE '' END || to_char(pct, 'FM999999999990.0') || '%'
$$;
