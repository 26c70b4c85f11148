-- lg.compare: function (schema/views: re-created by lgctl db migrate; see schema/README.md)
-- As 016's lg.compare, and for each value the 95% interval of its mean (ci_low, ci_high; how:
-- ci_method 'repeats' or 'batch means', NULL when unknown), and against the baseline Welch's
-- p-value and the 95% interval of the difference in percent of the baseline. status 'same'
-- (change '~') when the two are equal, the difference is under threshold percent, or its interval
-- includes zero; 'untested' when it is over the threshold but a side has no interval (p_value
-- NULL: a difference that could not be tested is never called better or worse); 'better' /
-- 'worse' otherwise. change: '~', or the difference as '+10.2%'.
CREATE OR REPLACE FUNCTION lg.compare(dimension text, baseline text, metric text, filter jsonb,
                           campaigns text[], ignore text[], threshold float8)
RETURNS TABLE (profile text, direction text, protocol text, threads integer, qd integer,
               labels jsonb, dim_value text, value float8, n integer, baseline_value float8,
               pct float8, ratio float8, status text, key jsonb, ci_low float8, ci_high float8,
               ci_method text, p_value float8, diff_ci_low_pct float8, diff_ci_high_pct float8,
               change text)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, lg, pg_temp STABLE AS $fn$
DECLARE
    base text := baseline;
    thr float8 := lg.check_threshold(threshold);
    hib boolean;
    vals text[];
BEGIN
    PERFORM lg.check_args(compare.dimension, compare.metric, compare.filter);
    SELECT m.higher_is_better INTO hib FROM lg.metric m WHERE m.metric = compare.metric;
    -- A baseline named must have figures (a read of them of its own); else the first value is
    -- the baseline, found in the one read of the figures below (a campaign of 96,000 runs: 1.2 s
    -- a read).
    IF base IS NOT NULL THEN
        SELECT array_agg(d ORDER BY lg.value_order(d) NULLS LAST, d) INTO vals
            FROM (SELECT DISTINCT p.dim_value AS d
                  FROM lg.metric_points(compare.dimension, compare.metric, compare.filter,
                                        compare.campaigns, compare.ignore) p) x;
    END IF;
    IF base IS NOT NULL AND (vals IS NULL OR NOT base = ANY (vals)) THEN
        RAISE EXCEPTION 'baseline "%" has no % figures for dimension "%"', base, compare.metric,
                        compare.dimension
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = CASE WHEN vals IS NULL THEN 'nothing matches the selection'
                              ELSE 'values of ' || compare.dimension || ': ' || array_to_string(vals, ', ') END;
    END IF;
    RETURN QUERY
    WITH agg AS (
        SELECT p.key, p.dim_value, avg(p.value) AS v, count(*)::integer AS cnt,
               stddev_samp(p.value) AS sd,
               CASE WHEN count(*) = 1 THEN max(p.run_id) END AS rid, max(p.direction) AS dir
        FROM lg.metric_figures(compare.dimension, compare.metric, compare.filter,
                               compare.campaigns, compare.ignore) p
        GROUP BY p.key, p.dim_value),
    bs AS (
        SELECT coalesce(base, (SELECT a.dim_value FROM agg a
                               ORDER BY lg.value_order(a.dim_value) NULLS LAST, a.dim_value
                               LIMIT 1)) AS b),
    st AS (
        SELECT a.key, a.dim_value, a.v, a.cnt,
               CASE WHEN a.cnt >= 2 THEN a.sd / sqrt(a.cnt) ELSE rn.se END AS se,
               CASE WHEN a.cnt >= 2 THEN a.cnt - 1 ELSE rn.df END AS df,
               CASE WHEN a.cnt >= 2 THEN 'repeats'
                    WHEN rn.se IS NOT NULL THEN 'batch means' END AS how
        FROM agg a
        LEFT JOIN LATERAL lg.run_noise(a.rid, a.dir, compare.metric) rn ON true),
    keys AS (SELECT DISTINCT s.key FROM st s),
    vs AS (SELECT DISTINCT s.dim_value FROM st s),
    grid AS (
        SELECT k.key, d.dim_value, a.v, coalesce(a.cnt, 0) AS cnt, a.se, a.df, a.how,
               b.v AS bv, b.se AS bse, b.df AS bdf
        FROM keys k CROSS JOIN vs d
        LEFT JOIN st a ON a.key = k.key AND a.dim_value = d.dim_value
        LEFT JOIN st b ON b.key = k.key AND b.dim_value = (SELECT x.b FROM bs x)),
    tested AS (
        SELECT g.*, CASE WHEN g.bv <> 0 THEN (g.v - g.bv) / g.bv * 100 END AS pc,
               lg.t_quantile(0.975, g.df) * g.se AS half,
               w.p_value AS pv, w.ci_low AS dlo, w.ci_high AS dhi
        FROM grid g
        LEFT JOIN LATERAL lg.welch(g.v - g.bv, g.se, g.df, g.bse, g.bdf) w
               ON g.dim_value <> (SELECT x.b FROM bs x)),
    verdict AS (
        SELECT t.*,
               CASE WHEN t.v IS NULL THEN 'missing'
                    WHEN t.dim_value = (SELECT x.b FROM bs x) THEN 'baseline'
                    WHEN t.bv IS NULL THEN 'no baseline'
                    WHEN t.v = t.bv THEN 'same'
                    WHEN abs(t.pc) < thr THEN 'same'
                    WHEN t.dlo IS NULL THEN 'untested'
                    WHEN t.dlo <= 0 AND t.dhi >= 0 THEN 'same'
                    WHEN (t.v > t.bv) = hib THEN 'better'
                    ELSE 'worse' END AS verdict
        FROM tested t)
    SELECT g.key ->> 'profile', g.key ->> 'direction', g.key ->> 'protocol',
           (g.key ->> 'threads')::integer, (g.key ->> 'qd')::integer,
           g.key - 'profile' - 'direction' - 'protocol' - 'threads' - 'qd',
           g.dim_value, g.v, g.cnt, g.bv, g.pc,
           CASE WHEN g.bv <> 0 THEN g.v / g.bv END,
           g.verdict, g.key, g.v - g.half, g.v + g.half, g.how, g.pv,
           CASE WHEN g.bv > 0 THEN g.dlo / g.bv * 100 END,
           CASE WHEN g.bv > 0 THEN g.dhi / g.bv * 100 END,
           CASE WHEN g.verdict = 'same' THEN '~'
                WHEN g.verdict IN ('better', 'worse', 'untested') THEN lg.pct_text(g.pc) END
    FROM verdict g
    ORDER BY g.key ->> 'profile', g.key ->> 'direction', g.key ->> 'protocol',
             (g.key ->> 'threads')::integer, (g.key ->> 'qd')::integer,
             (g.key - 'profile' - 'direction' - 'protocol' - 'threads' - 'qd')::text,
             g.dim_value <> (SELECT x.b FROM bs x), lg.value_order(g.dim_value) NULLS LAST,
             g.dim_value;
END
$fn$;

CREATE OR REPLACE FUNCTION lg.compare(dimension text, baseline text, metric text, filter jsonb,
                           campaigns text[], ignore text[])
RETURNS TABLE (profile text, direction text, protocol text, threads integer, qd integer,
               labels jsonb, dim_value text, value float8, n integer, baseline_value float8,
               pct float8, ratio float8, status text, key jsonb, ci_low float8, ci_high float8,
               ci_method text, p_value float8, diff_ci_low_pct float8, diff_ci_high_pct float8,
               change text)
LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, lg, pg_temp STABLE AS $$
    SELECT * FROM lg.compare(dimension, baseline, metric, filter, campaigns, ignore, 0::float8)
$$;

CREATE OR REPLACE FUNCTION lg.compare(dimension text, baseline text, metric text,
                           filter jsonb DEFAULT '{}', campaigns text[] DEFAULT NULL)
RETURNS TABLE (profile text, direction text, protocol text, threads integer, qd integer,
               labels jsonb, dim_value text, value float8, n integer, baseline_value float8,
               pct float8, ratio float8, status text, key jsonb, ci_low float8, ci_high float8,
               ci_method text, p_value float8, diff_ci_low_pct float8, diff_ci_high_pct float8,
               change text)
LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, lg, pg_temp STABLE AS $$
    SELECT * FROM lg.compare(dimension, baseline, metric, filter, campaigns, NULL::text[],
                             0::float8)
$$;
