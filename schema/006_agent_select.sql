-- 006_agent_select: which agents drive a run (names or label selectors, with per-agent threads x
-- QD) and how they share the target; what each agent was given (its file or slice, its load).
ALTER TABLE lg.run ADD COLUMN agents jsonb NOT NULL DEFAULT '[]';
ALTER TABLE lg.run ADD COLUMN share text NOT NULL DEFAULT 'auto'
    CHECK (share IN ('auto', 'files', 'range', 'whole'));
ALTER TABLE lg.run_agent ADD COLUMN target text;
ALTER TABLE lg.run_agent ADD COLUMN offset_bytes bigint;
ALTER TABLE lg.run_agent ADD COLUMN size_bytes bigint;
ALTER TABLE lg.run_agent ADD COLUMN threads integer;
ALTER TABLE lg.run_agent ADD COLUMN qd integer;
