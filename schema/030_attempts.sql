-- 030_attempts: a run that failed for a transient reason (a target's connect or login, an agent
-- lost, a prepare that timed out) is run again as a new attempt: a run row of its own (its own
-- samples and results) at the same ordinal, attempt 2, 3 ..., first_run naming the point's first
-- attempt. A point is coalesce(first_run, run_id); its newest done attempt is the one that
-- counts: older done attempts become 'superseded' (so every view of done runs leaves them out),
-- failed ones stay 'failed' and are named only when no newer attempt followed. retries: how many
-- more attempts a transient failure gets (the spec's retries:, copied by the controller).
ALTER TABLE lg.run ADD COLUMN attempt integer NOT NULL DEFAULT 1 CHECK (attempt >= 1),
    ADD COLUMN first_run bigint,
    ADD COLUMN retries integer NOT NULL DEFAULT 0 CHECK (retries BETWEEN 0 AND 10);
ALTER TABLE lg.run DROP CONSTRAINT run_campaign_id_ordinal_key;
ALTER TABLE lg.run ADD CONSTRAINT run_campaign_ordinal_attempt_key
    UNIQUE (campaign_id, ordinal, attempt);
CREATE INDEX run_point_idx ON lg.run (coalesce(first_run, run_id), attempt);
ALTER TABLE lg.run DROP CONSTRAINT run_state_check;
ALTER TABLE lg.run ADD CONSTRAINT run_state_check
    CHECK (state IN ('pending', 'running', 'done', 'partial', 'failed', 'aborted', 'skipped',
                     'superseded'));

-- A new pending attempt at run src's point: a copy of its row (every column but those a run
-- fills as it runs), attempt one past the point's newest, gate as given. The controller calls it
-- only on a row whose seal it checked, and seals the new row itself. Returns the new run_id.
CREATE FUNCTION lg.run_attempt(src bigint, gate boolean)
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
