-- 034_gate_resumed: a campaign paused before a config (between_configs: pause) and resumed with
-- lgctl resume no longer passes the config's gate at once: resume records here the ordinal of the
-- run it lets go on, and the controller then runs the operator's read-back check (lg-controller
-- --readback), as it does after a hook, before it passes the gate. A check that reads a setting
-- other than the config's label stops the campaign before that config is measured. Without
-- --readback the gate is passed at once, as before.
ALTER TABLE lg.campaign
    ADD COLUMN gate_resumed integer NOT NULL DEFAULT 0; -- lgctl resume let the gate before this run go
