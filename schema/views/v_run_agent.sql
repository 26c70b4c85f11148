-- lg.v_run_agent: view (schema/views: re-created by lgctl db migrate; see schema/README.md)
-- 023_agent_views: each agent's part of a run, readable by lg_reader (who reads views only, 008).
-- lg.v_run_agent: lg.run_agent with the agent's name: its load (threads, qd: its own where the
-- campaign gave it one), its slice of the target, its start, whether it was lost (lost_at), its
-- state and error, its depth and check. A run's figures are merged over its agents whose state is
-- 'done' and that were not lost.
CREATE VIEW lg.v_run_agent AS
SELECT ra.*, a.name AS agent FROM lg.run_agent ra JOIN lg.agent a USING (agent_id);
GRANT SELECT ON lg.v_run_agent TO lg_reader, lg_writer;
