-- 022_qd_result: lg.v_result carries the run's qd_achieved and qd_short (021_qd_achieved) at
-- its end, so a chart or a SELECT over the publishing view can tell a figure measured far below
-- its queue depth from one that held it, as lg.v_metric, the report and the comparisons do.
--
-- lg.v_result is built by lg.refresh_views() (003_views) with a column per label in use, so it
-- is this function that changes: as in 003, with the two columns after the others, label
-- columns never named as a fixed column (the label stays in `labels`; such a name made
-- CREATE VIEW fail with a column given twice), and v_result and v_sample granted to lg_writer
-- as 008_reader granted them (a rebuild dropped that grant). CREATE OR REPLACE resets what
-- 008_reader set with ALTER FUNCTION, so SECURITY DEFINER and the search_path are restated;
-- 009_refresh_writer's EXECUTE grants stay. lg.v_run (SELECT * FROM lg.run) gained the columns
-- in 021; no other view is built on v_result.

CREATE OR REPLACE FUNCTION lg.refresh_views() RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, lg AS $fn$
DECLARE
    cols text := '';
    k text;
BEGIN
    FOR k IN
        SELECT key FROM (
            SELECT unnest(ARRAY['build', 'media', 'pool', 'compression', 'dedup', 'nic']) AS key
            UNION
            SELECT jsonb_object_keys(labels) FROM lg.sut_config) keys
        WHERE key NOT IN ('run_id', 'campaign_id', 'campaign', 'labels', 'config', 'phase',
                          'profile', 'direction', 'bs', 'read_pct', 'threads', 'qd', 'protocol',
                          'repeat', 'iops', 'mbps', 'lat_avg_ms', 'lat_min_ms', 'lat_max_ms',
                          'lat_stddev_ms', 'p50_ms', 'p90_ms', 'p95_ms', 'p99_ms', 'p99_9_ms',
                          'p99_99_ms', 'ios', 'bytes', 'runtime_ms', 'started_at', 'ss_reached',
                          'qd_achieved', 'qd_short', 'agent', 'seq', 't', 'interval_ms',
                          'lat_n')
        ORDER BY array_position(ARRAY['build', 'media', 'pool', 'compression', 'dedup', 'nic'],
                                key) NULLS LAST, key
    LOOP
        cols := cols || format(', s.labels ->> %L AS %I', k, k);
    END LOOP;
    DROP VIEW IF EXISTS lg.v_result;
    DROP VIEW IF EXISTS lg.v_sample;
    EXECUTE format($v$
        CREATE VIEW lg.v_result AS
        SELECT r.run_id, c.campaign_id, c.name AS campaign, r.config_ordinal AS config, r.phase,
               r.profile, x.direction, r.bs, r.read_pct, r.threads, r.qd, r.protocol, r.repeat
               %s, s.labels,
               x.iops, x.bw_bytes / 1e6 AS mbps,
               x.lat_mean / 1e6 AS lat_avg_ms, x.lat_min / 1e6 AS lat_min_ms,
               x.lat_max / 1e6 AS lat_max_ms, x.lat_stddev / 1e6 AS lat_stddev_ms,
               (x.percentiles ->> '50.000000')::float8 / 1e6 AS p50_ms,
               (x.percentiles ->> '90.000000')::float8 / 1e6 AS p90_ms,
               (x.percentiles ->> '95.000000')::float8 / 1e6 AS p95_ms,
               (x.percentiles ->> '99.000000')::float8 / 1e6 AS p99_ms,
               (x.percentiles ->> '99.900000')::float8 / 1e6 AS p99_9_ms,
               (x.percentiles ->> '99.990000')::float8 / 1e6 AS p99_99_ms,
               x.ios, x.bytes, x.runtime_ms, r.started_at, r.ss_reached,
               r.qd_achieved, r.qd_short
        FROM lg.result x
        JOIN lg.run r USING (run_id)
        JOIN lg.campaign c USING (campaign_id)
        JOIN lg.sut_config s USING (sut_config_id)
        WHERE x.agent_id IS NULL AND r.state = 'done'$v$, cols);
    EXECUTE format($v$
        CREATE VIEW lg.v_sample AS
        SELECT r.run_id, c.name AS campaign, r.phase, r.profile, x.direction, r.threads, r.qd,
               r.protocol %s, a.name AS agent, x.seq,
               to_timestamp(x.t_ms / 1000.0) AS t, x.interval_ms,
               CASE WHEN x.interval_ms > 0 THEN x.ios * 1000.0 / x.interval_ms END AS iops,
               CASE WHEN x.interval_ms > 0 THEN x.bytes * 1000.0 / x.interval_ms / 1e6 END AS mbps,
               CASE WHEN x.lat_n > 0 THEN x.lat_sum / x.lat_n / 1e6 END AS lat_avg_ms,
               x.lat_max / 1e6 AS lat_max_ms, x.ios, x.bytes, x.lat_n
        FROM lg.sample x
        JOIN lg.run r USING (run_id)
        JOIN lg.campaign c USING (campaign_id)
        JOIN lg.sut_config s USING (sut_config_id)
        JOIN lg.agent a ON a.agent_id = x.agent_id$v$, cols);
    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'lg_reader') THEN
        GRANT SELECT ON lg.v_result, lg.v_sample TO lg_reader;
    END IF;
    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'lg_writer') THEN
        GRANT SELECT ON lg.v_result, lg.v_sample TO lg_writer;
    END IF;
END
$fn$;

SELECT lg.refresh_views();
