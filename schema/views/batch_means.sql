-- lg.batch_means: function (schema/views: re-created by lgctl db migrate; see schema/README.md)
-- Batch means as in 019, and for an application run's tps and qps those of its per-second
-- reports (summed over its agents), so a single run's TPS has an interval too.
CREATE OR REPLACE FUNCTION lg.batch_means(run_id bigint, direction text, metric text)
RETURNS TABLE (batch integer, seconds integer, value float8)
LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, lg, pg_temp STABLE STRICT AS $$
    WITH s AS (
        SELECT x.seq, count(*) AS agents,
               sum(x.ios * 1000.0 / x.interval_ms)::float8 AS iops,
               (sum(x.bytes * 1000.0 / x.interval_ms) / 1e6)::float8 AS mbps,
               sum(x.lat_sum) AS lat_sum, sum(x.lat_n) AS lat_n,
               NULL::float8 AS tps, NULL::float8 AS qps
        FROM lg.sample x
        WHERE x.run_id = batch_means.run_id
          AND (x.direction = batch_means.direction OR batch_means.metric = 'iops_at_limit')
          AND x.interval_ms > 0
          AND batch_means.metric IN ('iops', 'mbps', 'lat_avg_ms', 'iops_at_limit')
        GROUP BY x.seq
        UNION ALL
        SELECT a.seq, count(*), NULL, NULL, NULL, NULL, sum(a.tps), sum(a.qps)
        FROM lg.app_sample a
        WHERE a.run_id = batch_means.run_id AND batch_means.direction = 'txn'
          AND batch_means.metric IN ('tps', 'qps')
        GROUP BY a.seq),
    whole AS (
        SELECT s.*, row_number() OVER (ORDER BY s.seq) AS i, count(*) OVER () AS nsec
        FROM s WHERE s.agents = (SELECT max(s2.agents) FROM s s2)),
    k AS (SELECT w.*, least(10, w.nsec / 2) AS nb FROM whole w),
    b AS (SELECT k.*, k.nsec / k.nb AS bs FROM k WHERE k.nb >= 5)
    SELECT ((b.i - (b.nsec - b.nb * b.bs) - 1) / b.bs)::integer + 1, count(*)::integer,
           CASE batch_means.metric
               WHEN 'iops' THEN avg(b.iops)
               WHEN 'iops_at_limit' THEN avg(b.iops)
               WHEN 'mbps' THEN avg(b.mbps)
               WHEN 'tps' THEN avg(b.tps)
               WHEN 'qps' THEN avg(b.qps)
               ELSE sum(b.lat_sum) / nullif(sum(b.lat_n), 0) / 1e6 END
    FROM b
    WHERE b.i > b.nsec - b.nb * b.bs
    GROUP BY 1
    ORDER BY 1
$$;
