-- lg.refresh_views: function (schema/views: re-created by lgctl db migrate; see schema/README.md)
-- Builds lg.v_result and lg.v_sample with a column per SUT label in use (003_views) and runs
-- whenever a campaign is stored, as its owner (SECURITY DEFINER, callable by lg_writer only:
-- 009_refresh_writer). Catalog relations and types are qualified and pg_temp is searched last
-- (024_definer_search_path): a caller's temporary pg_roles or float8 must not change what it
-- builds. A label named like a column of the views stays in labels only (022_qd_result).
CREATE OR REPLACE FUNCTION lg.refresh_views() RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, lg, pg_temp AS $fn$
DECLARE
    cols pg_catalog.text := '';
    k pg_catalog.text;
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
               (x.percentiles ->> '50.000000')::pg_catalog.float8 / 1e6 AS p50_ms,
               (x.percentiles ->> '90.000000')::pg_catalog.float8 / 1e6 AS p90_ms,
               (x.percentiles ->> '95.000000')::pg_catalog.float8 / 1e6 AS p95_ms,
               (x.percentiles ->> '99.000000')::pg_catalog.float8 / 1e6 AS p99_ms,
               (x.percentiles ->> '99.900000')::pg_catalog.float8 / 1e6 AS p99_9_ms,
               (x.percentiles ->> '99.990000')::pg_catalog.float8 / 1e6 AS p99_99_ms,
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
    IF EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = 'lg_reader') THEN
        GRANT SELECT ON lg.v_result, lg.v_sample TO lg_reader;
    END IF;
    IF EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = 'lg_writer') THEN
        GRANT SELECT ON lg.v_result, lg.v_sample TO lg_writer;
    END IF;
END
$fn$;
REVOKE ALL ON FUNCTION lg.refresh_views() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION lg.refresh_views() TO lg_writer, lg_import;
-- The views as this file builds them, now.
SELECT lg.refresh_views();
