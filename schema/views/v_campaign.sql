-- lg.v_campaign: view (schema/views: re-created by lgctl db migrate; see schema/README.md)
-- The read API over the tables (008_reader): lg_reader reads views only. The columns are named,
-- not *, so the view is what this file says (submit_id is not among them, as before).
CREATE VIEW lg.v_campaign AS
    SELECT campaign_id, name, spec_path, spec, state, created_at, started_at, finished_at,
           between_configs, gate_passed, pause_requested, message, on_agent_loss
    FROM lg.campaign;
GRANT SELECT ON lg.v_campaign TO lg_reader, lg_writer;
