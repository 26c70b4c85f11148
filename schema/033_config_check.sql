-- 033_config_check: what the operator's read-back check (lg-controller --readback) read of a SUT
-- config's settings after the hook set the NAS up for it, before its first run: the settings as
-- a JSON object of strings, the check's output, and why the campaign stopped (a label read
-- otherwise, a check that failed, read no label or could not run). One row per campaign and
-- config; the controller writes it.
CREATE TABLE lg.config_check (
    campaign_id     bigint NOT NULL REFERENCES lg.campaign ON DELETE CASCADE,
    config_ordinal  integer NOT NULL,
    at              timestamptz NOT NULL DEFAULT now(),
    read            jsonb,                  -- {"compression": "lz4", ...}: the settings it printed
    output          text,                   -- what the check printed, verbatim (cut at 4000 B)
    error           text,                   -- why the campaign stopped there; NULL: it matched
    PRIMARY KEY (campaign_id, config_ordinal)
);
GRANT SELECT, INSERT, UPDATE, DELETE ON lg.config_check TO lg_writer;
