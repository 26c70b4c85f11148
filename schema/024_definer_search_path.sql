-- 024_definer_search_path: the functions that run as their owner (SECURITY DEFINER, 008_reader)
-- search pg_temp last. A search_path without pg_temp has PostgreSQL search the caller's temporary
-- schema FIRST for relations and types: a reader could make a domain pg_temp.float8 (or
-- pg_temp.text) whose CHECK runs ALTER ROLE ... SUPERUSER, and lg.batch_means(), lg.compare(),
-- lg.rank() cast to it as the owner; a writer could shadow pg_roles with a temporary table so
-- lg.refresh_views() skipped its grants, or shadow float8 so lg.v_result depended on its
-- temporary domain (and was dropped with it when the session ended).
--
-- lg.refresh_views() is restated (as in 022_qd_result) with catalog relations and types
-- qualified. Functions and operators need no qualifying: pg_temp is never searched for them.
-- Then every SECURITY DEFINER function of lg gets the search_path by a loop over pg_proc, so
-- none is missed. A later migration that replaces one of them with CREATE OR REPLACE must
-- restate SECURITY DEFINER and the search_path (it resets both): see schema/README.md.

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

DO $do$
DECLARE
    f pg_catalog.regprocedure;
BEGIN
    FOR f IN
        SELECT p.oid::pg_catalog.regprocedure FROM pg_catalog.pg_proc p
        WHERE p.prosecdef AND p.pronamespace = 'lg'::pg_catalog.regnamespace
        ORDER BY p.oid
    LOOP
        EXECUTE pg_catalog.format('ALTER ROUTINE %s SET search_path = pg_catalog, lg, pg_temp', f);
    END LOOP;
END
$do$;

-- The views as the code above builds them: one a writer's session may have built through a
-- shadowed type or catalog is replaced.
SELECT lg.refresh_views();
