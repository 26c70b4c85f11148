-- lg.sweep: function (schema/views: re-created by lgctl db migrate; see schema/README.md)
-- Sweep curves: for profiles measured at more than one load point in the selection, IOPS and
-- average latency per configuration (its labels and protocol, as "k=v,...") and load point,
-- mean of repeats (n of them).
CREATE OR REPLACE FUNCTION lg.sweep(filter jsonb DEFAULT '{}', campaigns text[] DEFAULT NULL)
RETURNS TABLE (profile text, direction text, config text, threads integer, qd integer,
               iops float8, lat_avg_ms float8, n integer)
LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, lg, pg_temp STABLE AS $$
    WITH p AS (
        SELECT x.key, 'iops' AS metric, x.value
        FROM lg.metric_points('campaign', 'iops', sweep.filter, sweep.campaigns) x
        UNION ALL
        SELECT x.key, 'lat_avg_ms', x.value
        FROM lg.metric_points('campaign', 'lat_avg_ms', sweep.filter, sweep.campaigns) x),
    q AS (
        SELECT p.key ->> 'profile' AS pr, p.key ->> 'direction' AS di,
               (SELECT coalesce(string_agg(e.key || '=' || e.value, ',' ORDER BY e.key), '-')
                FROM jsonb_each_text(p.key - 'profile' - 'direction' - 'threads' - 'qd') e
                WHERE e.value IS NOT NULL) AS cfg,
               (p.key ->> 'threads')::integer AS th, (p.key ->> 'qd')::integer AS q,
               p.metric, p.value
        FROM p),
    agg AS (
        SELECT q.pr, q.di, q.cfg, q.th, q.q,
               avg(q.value) FILTER (WHERE q.metric = 'iops') AS iops,
               avg(q.value) FILTER (WHERE q.metric = 'lat_avg_ms') AS lat,
               (count(*) FILTER (WHERE q.metric = 'iops'))::integer AS n
        FROM q WHERE q.th IS NOT NULL AND q.q IS NOT NULL
        GROUP BY 1, 2, 3, 4, 5)
    SELECT a.pr, a.di, a.cfg, a.th, a.q, a.iops, a.lat, a.n
    FROM agg a
    WHERE (SELECT count(DISTINCT (b.th, b.q)) FROM agg b WHERE b.pr = a.pr AND b.di = a.di) > 1
    ORDER BY a.pr, a.di, a.th, a.q, a.cfg
$$;
