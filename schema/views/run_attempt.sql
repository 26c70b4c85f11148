-- lg.run_attempt: function (schema/views: re-created by lgctl db migrate; see schema/README.md)
-- A new pending attempt at run src's point: a copy of its row (every column but those a run
-- fills as it runs), attempt one past the point's newest, gate as given. The controller calls it
-- only on a row whose seal it checked, and seals the new row itself. Returns the new run_id.
CREATE OR REPLACE FUNCTION lg.run_attempt(src bigint, gate boolean)
RETURNS bigint
LANGUAGE plpgsql
SET search_path = pg_catalog, lg, pg_temp AS $f$
DECLARE
    cols text;
    att integer;
    first bigint;
    id bigint;
BEGIN
    SELECT coalesce(r.first_run, r.run_id) INTO first FROM lg.run r WHERE r.run_id = src;
    IF first IS NULL THEN
        RAISE EXCEPTION 'no run %', src;
    END IF;
    SELECT max(r.attempt) + 1 INTO att FROM lg.run r
    WHERE r.run_id = first OR r.first_run = first;
    SELECT string_agg(quote_ident(a.attname), ', ' ORDER BY a.attnum) INTO cols
    FROM pg_attribute a
    WHERE a.attrelid = 'lg.run'::regclass AND a.attnum > 0 AND NOT a.attisdropped
      AND a.attgenerated = ''
      AND a.attname NOT IN ('run_id', 'attempt', 'first_run', 'gate', 'state', 'error',
                            'started_at', 'finished_at', 'seal', 'ss_reached', 'ss_rounds',
                            'ss_window', 'start_skew_us', 'qd_achieved', 'qd_inflight',
                            'search_value', 'search_iops');
    EXECUTE format('INSERT INTO lg.run (%s, attempt, first_run, gate, state)'
                   ' SELECT %s, $2, $3, $4, ''pending'' FROM lg.run WHERE run_id = $1'
                   ' RETURNING run_id', cols, cols)
        INTO id USING src, att, first, gate;
    RETURN id;
END
$f$;
REVOKE ALL ON FUNCTION lg.run_attempt(bigint, boolean) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION lg.run_attempt(bigint, boolean) TO lg_writer;
