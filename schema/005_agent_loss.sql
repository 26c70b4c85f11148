-- 005_agent_loss: a run that lost an agent finishes with the others and is "partial" (which
-- agent, and when, in its error); the campaign's policy says whether to go on.
ALTER TABLE lg.run DROP CONSTRAINT run_state_check;
ALTER TABLE lg.run ADD CONSTRAINT run_state_check
    CHECK (state IN ('pending', 'running', 'done', 'partial', 'failed', 'aborted'));
ALTER TABLE lg.campaign ADD COLUMN on_agent_loss text NOT NULL DEFAULT 'continue'
    CHECK (on_agent_loss IN ('continue', 'stop'));
ALTER TABLE lg.run_agent ADD COLUMN lost_at timestamptz;
