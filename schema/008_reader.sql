-- 008_reader: lg_reader (reports, comparisons, exports) reads views only; lg_writer (the
-- controller, imports) writes tables. The views below are the read API over the tables the
-- reports need; the comparison functions and lg.refresh_views() run with their owner's rights
-- (SECURITY DEFINER, fixed search_path; none of them builds SQL from its arguments), so a reader
-- can call them and a writer can have the publishing views rebuilt without owning them.
CREATE VIEW lg.v_campaign AS SELECT * FROM lg.campaign;
CREATE VIEW lg.v_run AS SELECT * FROM lg.run;
CREATE VIEW lg.v_sut_config AS SELECT * FROM lg.sut_config;
-- Every result row: merged (agent_id NULL) and per agent, of runs in any state.
CREATE VIEW lg.v_result_all AS SELECT * FROM lg.result;
CREATE VIEW lg.v_sample_all AS SELECT * FROM lg.sample;
CREATE VIEW lg.v_agent AS SELECT * FROM lg.agent;
CREATE VIEW lg.v_metric_def AS SELECT * FROM lg.metric;

ALTER FUNCTION lg.refresh_views() SECURITY DEFINER SET search_path = pg_catalog, lg;
ALTER FUNCTION lg.dimensions() SECURITY DEFINER SET search_path = pg_catalog, lg;
ALTER FUNCTION lg.metric_points(text, text, jsonb, text[])
    SECURITY DEFINER SET search_path = pg_catalog, lg;
ALTER FUNCTION lg.check_args(text, text, jsonb) SECURITY DEFINER SET search_path = pg_catalog, lg;
ALTER FUNCTION lg.compare(text, text, text, jsonb, text[])
    SECURITY DEFINER SET search_path = pg_catalog, lg;
ALTER FUNCTION lg.rank(text, jsonb, text[], text) SECURITY DEFINER SET search_path = pg_catalog, lg;
ALTER FUNCTION lg.sweep(jsonb, text[]) SECURITY DEFINER SET search_path = pg_catalog, lg;

REVOKE ALL ON ALL TABLES IN SCHEMA lg FROM lg_reader;
ALTER DEFAULT PRIVILEGES IN SCHEMA lg REVOKE SELECT ON TABLES FROM lg_reader;
GRANT SELECT ON lg.v_campaign, lg.v_run, lg.v_sut_config, lg.v_result_all, lg.v_sample_all,
    lg.v_agent, lg.v_metric_def, lg.v_result, lg.v_sample, lg.v_metric, lg.v_sweep TO lg_reader;
GRANT SELECT ON lg.v_campaign, lg.v_run, lg.v_sut_config, lg.v_result_all, lg.v_sample_all,
    lg.v_agent, lg.v_metric_def, lg.v_result, lg.v_sample, lg.v_metric, lg.v_sweep TO lg_writer;
GRANT SELECT ON public.lg_migration TO lg_reader, lg_writer;
