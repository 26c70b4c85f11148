-- lg.sut_short: function (schema/views: re-created by lgctl db migrate; see schema/README.md)
-- 012_report: a SUT config's labels as a reader says them, for report rows and chart categories:
-- the values of build, media, pool, compression and dedup in that order, then the other labels
-- by name; a value that does not say what it is about (on/off, yes/no, true/false, none, a number) is
-- given with its label ("dedup off", "recordsize 128"), after the plain values and a comma:
-- {"build":"r740","media":"hdd","pool":"raidz1","compression":"lz4","dedup":"off"} is
-- "r740 hdd raidz1 lz4, dedup off". No labels: "(no labels)".
CREATE OR REPLACE FUNCTION lg.sut_short(labels jsonb) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    WITH l AS (
        SELECT key, value,
               coalesce(array_position(ARRAY['build', 'media', 'pool', 'compression', 'dedup'],
                                       key), 6) AS rank,
               lower(value) IN ('on', 'off', 'yes', 'no', 'true', 'false', 'none', '')
                   OR value ~ '^[0-9][0-9.]*[a-zA-Z]{0,3}$' AS bare
        FROM jsonb_each_text(coalesce(labels, '{}'::jsonb)))
    SELECT coalesce(nullif(concat_ws(', ',
               nullif((SELECT string_agg(value, ' ' ORDER BY rank, key) FROM l WHERE NOT bare), ''),
               nullif((SELECT string_agg(key || ' ' || value, ', ' ORDER BY rank, key)
                       FROM l WHERE bare), '')), ''), '(no labels)')
$$;
GRANT EXECUTE ON FUNCTION lg.sut_short(jsonb) TO lg_reader, lg_writer;
