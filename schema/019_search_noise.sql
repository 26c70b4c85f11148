-- 019_search_noise: a search's iops_at_limit knows its noise like any IOPS figure: its batch
-- means are those of the IOPS of its best probe (all of that run's I/Os, reads and writes
-- together, as the search measured it), so lgctl compare --metric iops_at_limit shows its
-- interval and tests its differences. The rest of lg.batch_means is as in 017.
CREATE OR REPLACE FUNCTION lg.batch_means(run_id bigint, direction text, metric text)
RETURNS TABLE (batch integer, seconds integer, value float8)
LANGUAGE sql STABLE STRICT AS $$
    WITH s AS (
        SELECT x.seq, count(*) AS agents,
               sum(x.ios * 1000.0 / x.interval_ms)::float8 AS iops,
               (sum(x.bytes * 1000.0 / x.interval_ms) / 1e6)::float8 AS mbps,
               sum(x.lat_sum) AS lat_sum, sum(x.lat_n) AS lat_n
        FROM lg.sample x
        WHERE x.run_id = batch_means.run_id
          AND (x.direction = batch_means.direction OR batch_means.metric = 'iops_at_limit')
          AND x.interval_ms > 0
          AND batch_means.metric IN ('iops', 'mbps', 'lat_avg_ms', 'iops_at_limit')
        GROUP BY x.seq),
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
               ELSE sum(b.lat_sum) / nullif(sum(b.lat_n), 0) / 1e6 END
    FROM b
    WHERE b.i > b.nsec - b.nb * b.bs
    GROUP BY 1
    ORDER BY 1
$$;
ALTER FUNCTION lg.batch_means(bigint, text, text) SECURITY DEFINER SET search_path = pg_catalog, lg;
