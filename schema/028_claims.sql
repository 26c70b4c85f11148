-- 028_claims: the database is no command channel. A campaign belongs to the controller that
-- accepted it (owner: that controller's identity, lease_holder and lease_until: the process that
-- runs it now, renewed while it runs, which another controller respects), and each run row the
-- controller wrote at submit carries a seal (an HMAC under a key only that controller holds) of
-- what it acts on: target, agents, telemetry sources, reduction probe, application
-- (lg.run_seal_text). A row the controller did not write is refused when it takes a run up.
-- Imports get a role of their own, lg_import, that may add finished campaigns and nothing else:
-- no pending campaign, no owner, no seal, no probe or telemetry, no change to a row it did not add.
ALTER TABLE lg.campaign ADD COLUMN owner text, ADD COLUMN lease_holder text,
    ADD COLUMN lease_until timestamptz;
ALTER TABLE lg.run ADD COLUMN seal text;

DO $roles$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = 'lg_import') THEN
        CREATE ROLE lg_import NOLOGIN;
    END IF;
END
$roles$;
GRANT lg_reader TO lg_import; -- the read API: views and comparison functions
GRANT USAGE ON SCHEMA lg TO lg_import;
DO $tables$ -- the tables (views it reads as a member of lg_reader)
DECLARE
    t record;
BEGIN
    FOR t IN SELECT c.relname FROM pg_catalog.pg_class c
             WHERE c.relnamespace = 'lg'::regnamespace AND c.relkind IN ('r', 'p')
    LOOP
        EXECUTE pg_catalog.format('GRANT SELECT ON lg.%I TO lg_import', t.relname);
    END LOOP;
END
$tables$;
GRANT USAGE ON ALL SEQUENCES IN SCHEMA lg TO lg_import;
GRANT SELECT ON public.lg_migration TO lg_import;
-- what an import calls (the functions' files grant it too, when they are re-created); the
-- records of schema/views when 027 made them
DO $grants$
BEGIN
    GRANT EXECUTE ON FUNCTION lg.refresh_views(), lg.run_qd(bigint),
        lg.fio_qd(text, integer, text), lg.fio_job_depth(jsonb) TO lg_import;
    IF pg_catalog.to_regclass('public.lg_repeatable') IS NOT NULL THEN
        GRANT SELECT ON public.lg_repeatable TO lg_import;
    END IF;
END
$grants$;
GRANT INSERT ON lg.campaign, lg.run, lg.run_agent, lg.result, lg.sample, lg.imported_figure,
    lg.sut_config, lg.agent TO lg_import;
GRANT UPDATE (labels) ON lg.sut_config TO lg_import;
GRANT UPDATE (last_seen) ON lg.agent TO lg_import;
GRANT UPDATE (qd_achieved, qd_inflight, qd_jobs) ON lg.run_agent TO lg_import;
GRANT UPDATE (qd_achieved, qd_inflight) ON lg.run TO lg_import;

ALTER TABLE lg.campaign ENABLE ROW LEVEL SECURITY;
ALTER TABLE lg.run ENABLE ROW LEVEL SECURITY;
ALTER TABLE lg.run_agent ENABLE ROW LEVEL SECURITY;
-- the controller's role: every row, as before
CREATE POLICY writer_all ON lg.campaign TO lg_writer USING (true) WITH CHECK (true);
CREATE POLICY writer_all ON lg.run TO lg_writer USING (true) WITH CHECK (true);
CREATE POLICY writer_all ON lg.run_agent TO lg_writer USING (true) WITH CHECK (true);
-- imports: read all, add finished campaigns of nobody's, and runs only to those
CREATE POLICY import_read ON lg.campaign FOR SELECT TO lg_import USING (true);
CREATE POLICY import_read ON lg.run FOR SELECT TO lg_import USING (true);
CREATE POLICY import_read ON lg.run_agent FOR SELECT TO lg_import USING (true);
CREATE POLICY import_add ON lg.campaign FOR INSERT TO lg_import
    WITH CHECK (state IN ('done', 'failed', 'aborted') AND owner IS NULL AND lease_holder IS NULL
                AND lease_until IS NULL);
CREATE POLICY import_add ON lg.run FOR INSERT TO lg_import
    WITH CHECK (state NOT IN ('pending', 'running') AND seal IS NULL AND reduction IS NULL
                AND telemetry IS NULL AND app IS NULL
                AND EXISTS (SELECT 1 FROM lg.campaign c
                            WHERE c.campaign_id = run.campaign_id AND c.owner IS NULL));
CREATE POLICY import_depth ON lg.run FOR UPDATE TO lg_import
    USING (EXISTS (SELECT 1 FROM lg.campaign c
                   WHERE c.campaign_id = run.campaign_id AND c.owner IS NULL))
    WITH CHECK (state NOT IN ('pending', 'running') AND seal IS NULL);
CREATE POLICY import_add ON lg.run_agent FOR INSERT TO lg_import
    WITH CHECK (EXISTS (SELECT 1 FROM lg.run r JOIN lg.campaign c USING (campaign_id)
                        WHERE r.run_id = run_agent.run_id AND c.owner IS NULL));
CREATE POLICY import_depth ON lg.run_agent FOR UPDATE TO lg_import
    USING (EXISTS (SELECT 1 FROM lg.run r JOIN lg.campaign c USING (campaign_id)
                   WHERE r.run_id = run_agent.run_id AND c.owner IS NULL));
