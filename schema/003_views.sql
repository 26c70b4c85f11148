-- 003_views: publishing views in reviewers' units, one plain SELECT per chart, and the two
-- roles: the controller writes (lg_writer), reports and exports read (lg_reader).
-- v_result: one row per finished run and direction (merged over agents); v_sample: the time
-- series. Every SUT label is a column: lg.refresh_views() rebuilds both views with a column per
-- label key in use (build, media, pool, compression, dedup and nic always), and runs whenever
-- a campaign is stored.

CREATE OR REPLACE FUNCTION lg.refresh_views() RETURNS void
LANGUAGE plpgsql AS $fn$
DECLARE
    cols text := '';
    k text;
BEGIN
    FOR k IN
        SELECT key FROM (
            SELECT unnest(ARRAY['build', 'media', 'pool', 'compression', 'dedup', 'nic']) AS key
            UNION
            SELECT jsonb_object_keys(labels) FROM lg.sut_config) keys
        WHERE key NOT IN ('run_id', 'campaign_id', 'campaign', 'labels')
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
               x.ios, x.bytes, x.runtime_ms, r.started_at, r.ss_reached
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
END
$fn$;

DO $roles$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'lg_writer') THEN
        CREATE ROLE lg_writer NOLOGIN;
    END IF;
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'lg_reader') THEN
        CREATE ROLE lg_reader NOLOGIN;
    END IF;
END
$roles$;
GRANT USAGE ON SCHEMA lg TO lg_writer, lg_reader;
GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA lg TO lg_writer;
GRANT USAGE ON ALL SEQUENCES IN SCHEMA lg TO lg_writer;
GRANT SELECT ON ALL TABLES IN SCHEMA lg TO lg_reader;
ALTER DEFAULT PRIVILEGES IN SCHEMA lg GRANT SELECT ON TABLES TO lg_reader;

SELECT lg.refresh_views();
