-- lg.caveat_json: function (schema/views: re-created by lgctl db migrate; see schema/README.md)
-- The caveat lines of a chart's row (lines joined by E'\n', e.g. string_agg of lg.v_point's
-- caveat over the runs behind a bar) as a JSON array of the distinct lines in order of first
-- appearance ('["run 7 (...) failed: ..."]'), NULL when there are none: one printable cell in
-- lg-export's CSV and JSON, which lg-export draws under the chart a line each.
CREATE OR REPLACE FUNCTION lg.caveat_json(lines text) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT json_agg(d.line ORDER BY d.n)::text
    FROM (SELECT u.line, min(u.n) AS n
          FROM unnest(string_to_array(lines, E'\n')) WITH ORDINALITY AS u(line, n)
          WHERE u.line <> ''
          GROUP BY u.line) d
$$;
GRANT EXECUTE ON FUNCTION lg.caveat_json(text) TO lg_reader, lg_writer;
