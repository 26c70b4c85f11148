-- 004_start_skew: when each agent really started fio (controller clock, corrected by the agent's
-- measured clock offset), and the spread of those instants over a run's agents.
ALTER TABLE lg.run_agent ADD COLUMN started_us bigint;
ALTER TABLE lg.run ADD COLUMN start_skew_us bigint;
