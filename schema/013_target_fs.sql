-- 013_target_fs: what a file target must sit on, from the spec's fs: and mount: keys (empty:
-- by protocol, decided by the agent), so that a share that is not mounted is never replaced by
-- the local disk under the same path.
ALTER TABLE lg.run
    ADD COLUMN target_fs    text NOT NULL DEFAULT '',
    ADD COLUMN target_mount text NOT NULL DEFAULT '';
