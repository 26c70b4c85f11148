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
-- lg.run_attempt (schema/views/run_attempt.sql) makes a new attempt's row.
