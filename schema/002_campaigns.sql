-- 002_campaigns: the review method as campaigns: SUT configs with several protocols, sweeps,
-- repeats, preconditioning (steady state or fill) with its outcome, data patterns, and the
-- gates between configs (pause for the operator, or the controller's hook).
ALTER TABLE lg.run
    ADD COLUMN config_ordinal   integer NOT NULL DEFAULT 1,
    ADD COLUMN protocol         text NOT NULL DEFAULT 'file',
    ADD COLUMN repeat           integer NOT NULL DEFAULT 1,
    ADD COLUMN gate             boolean NOT NULL DEFAULT false,
    ADD COLUMN rate_iops        integer NOT NULL DEFAULT 0,
    ADD COLUMN thinktime_us     integer NOT NULL DEFAULT 0,
    ADD COLUMN thinktime_blocks integer NOT NULL DEFAULT 0,
    ADD COLUMN bssplit          text NOT NULL DEFAULT '',   -- "4096/50:65536/50"
    ADD COLUMN compress_ratio   double precision NOT NULL DEFAULT 0,
    ADD COLUMN dedup_ratio      double precision NOT NULL DEFAULT 0,
    ADD COLUMN dedup_unit       integer NOT NULL DEFAULT 131072,
    ADD COLUMN round_s          integer NOT NULL DEFAULT 0,
    -- steady-state outcome: reached or not, rounds run, the final window
    ADD COLUMN ss_reached       boolean,
    ADD COLUMN ss_rounds        integer,
    ADD COLUMN ss_window        jsonb;

-- What a run with a data pattern really wrote, measured by the agent per record.
ALTER TABLE lg.run_agent ADD COLUMN datacheck jsonb;

ALTER TABLE lg.run DROP CONSTRAINT run_state_check;
ALTER TABLE lg.run ADD CONSTRAINT run_state_check
    CHECK (state IN ('pending', 'running', 'done', 'failed', 'aborted'));

ALTER TABLE lg.campaign
    ADD COLUMN between_configs  text NOT NULL DEFAULT 'pause'
               CHECK (between_configs IN ('pause', 'hook', 'none')),
    ADD COLUMN gate_passed      integer NOT NULL DEFAULT 0, -- gates of runs up to this ordinal passed
    ADD COLUMN pause_requested  boolean NOT NULL DEFAULT false,
    ADD COLUMN message          text;

ALTER TABLE lg.campaign DROP CONSTRAINT campaign_state_check;
ALTER TABLE lg.campaign ADD CONSTRAINT campaign_state_check
    CHECK (state IN ('pending', 'running', 'paused', 'done', 'failed', 'aborted'));
