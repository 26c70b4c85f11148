-- 016_compare_ignore: lg.compare(..., ignore) leaves the named labels out of what pairs two
-- figures, for a --by dimension that other labels change together with (build a with dedup off,
-- build b with dedup on: "lgctl compare --by dedup --ignore build"). The old signatures stay, as
-- calls of the new ones with no labels ignored.
CREATE FUNCTION lg.metric_points(dimension text, metric text, filter jsonb, campaigns text[],
                                 ignore text[])
RETURNS TABLE (key jsonb, dim_value text, value float8)
LANGUAGE sql STABLE AS $$
    WITH f AS (
        SELECT v.*, v.labels || jsonb_build_object('protocol', v.protocol, 'profile', v.profile,
               'direction', v.direction, 'threads', v.threads, 'qd', v.qd) AS fields
        FROM lg.v_metric v
        WHERE v.metric = metric_points.metric
          AND (metric_points.campaigns IS NULL OR v.campaign = ANY (metric_points.campaigns)
               OR v.campaign_id::text = ANY (metric_points.campaigns)))
    SELECT f.fields - metric_points.dimension - coalesce(metric_points.ignore, '{}'::text[]),
           CASE WHEN metric_points.dimension = 'campaign' THEN f.campaign
                ELSE coalesce(f.fields ->> metric_points.dimension, '(none)') END,
           f.value
    FROM f
    WHERE NOT EXISTS (
        SELECT 1 FROM jsonb_each_text(coalesce(metric_points.filter, '{}')) w
        WHERE (CASE WHEN w.key = 'campaign' THEN f.campaign ELSE f.fields ->> w.key END)
              IS DISTINCT FROM w.value)
$$;

CREATE FUNCTION lg.compare(dimension text, baseline text, metric text, filter jsonb,
                           campaigns text[], ignore text[])
RETURNS TABLE (profile text, direction text, protocol text, threads integer, qd integer,
               labels jsonb, dim_value text, value float8, n integer, baseline_value float8,
               pct float8, ratio float8, status text, key jsonb)
LANGUAGE plpgsql STABLE AS $fn$
DECLARE
    base text := baseline;
    hib boolean;
    vals text[];
BEGIN
    PERFORM lg.check_args(compare.dimension, compare.metric, compare.filter);
    SELECT m.higher_is_better INTO hib FROM lg.metric m WHERE m.metric = compare.metric;
    SELECT array_agg(d ORDER BY lg.value_order(d) NULLS LAST, d) INTO vals
        FROM (SELECT DISTINCT p.dim_value AS d
              FROM lg.metric_points(compare.dimension, compare.metric, compare.filter,
                                    compare.campaigns, compare.ignore) p) x;
    IF base IS NULL THEN
        base := vals[1];
    ELSIF vals IS NULL OR NOT base = ANY (vals) THEN
        RAISE EXCEPTION 'baseline "%" has no % figures for dimension "%"', base, compare.metric,
                        compare.dimension
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = CASE WHEN vals IS NULL THEN 'nothing matches the selection'
                              ELSE 'values of ' || compare.dimension || ': ' || array_to_string(vals, ', ') END;
    END IF;
    RETURN QUERY
    WITH agg AS (
        SELECT p.key, p.dim_value, avg(p.value) AS v, count(*)::integer AS n
        FROM lg.metric_points(compare.dimension, compare.metric, compare.filter,
                              compare.campaigns, compare.ignore) p
        GROUP BY p.key, p.dim_value),
    keys AS (SELECT DISTINCT a.key FROM agg a),
    vs AS (SELECT DISTINCT a.dim_value FROM agg a),
    grid AS (
        SELECT k.key, d.dim_value, a.v, coalesce(a.n, 0) AS n, b.v AS bv
        FROM keys k CROSS JOIN vs d
        LEFT JOIN agg a ON a.key = k.key AND a.dim_value = d.dim_value
        LEFT JOIN agg b ON b.key = k.key AND b.dim_value = base)
    SELECT g.key ->> 'profile', g.key ->> 'direction', g.key ->> 'protocol',
           (g.key ->> 'threads')::integer, (g.key ->> 'qd')::integer,
           g.key - 'profile' - 'direction' - 'protocol' - 'threads' - 'qd',
           g.dim_value, g.v, g.n, g.bv,
           CASE WHEN g.bv <> 0 THEN (g.v - g.bv) / g.bv * 100 END,
           CASE WHEN g.bv <> 0 THEN g.v / g.bv END,
           CASE WHEN g.v IS NULL THEN 'missing'
                WHEN g.dim_value = base THEN 'baseline'
                WHEN g.bv IS NULL THEN 'no baseline'
                WHEN g.v = g.bv THEN 'same'
                WHEN (g.v > g.bv) = hib THEN 'better'
                ELSE 'worse' END,
           g.key
    FROM grid g
    ORDER BY g.key ->> 'profile', g.key ->> 'direction', g.key ->> 'protocol',
             (g.key ->> 'threads')::integer, (g.key ->> 'qd')::integer,
             (g.key - 'profile' - 'direction' - 'protocol' - 'threads' - 'qd')::text,
             g.dim_value <> base, lg.value_order(g.dim_value) NULLS LAST, g.dim_value;
END
$fn$;


CREATE OR REPLACE FUNCTION lg.metric_points(dimension text, metric text, filter jsonb DEFAULT '{}',
                                            campaigns text[] DEFAULT NULL)
RETURNS TABLE (key jsonb, dim_value text, value float8)
LANGUAGE sql STABLE AS $$
    SELECT * FROM lg.metric_points(dimension, metric, filter, campaigns, NULL::text[])
$$;

CREATE OR REPLACE FUNCTION lg.compare(dimension text, baseline text, metric text,
                                      filter jsonb DEFAULT '{}', campaigns text[] DEFAULT NULL)
RETURNS TABLE (profile text, direction text, protocol text, threads integer, qd integer,
               labels jsonb, dim_value text, value float8, n integer, baseline_value float8,
               pct float8, ratio float8, status text, key jsonb)
LANGUAGE sql STABLE AS $$
    SELECT * FROM lg.compare(dimension, baseline, metric, filter, campaigns, NULL::text[])
$$;

ALTER FUNCTION lg.metric_points(text, text, jsonb, text[], text[])
    SECURITY DEFINER SET search_path = pg_catalog, lg;
ALTER FUNCTION lg.metric_points(text, text, jsonb, text[])
    SECURITY DEFINER SET search_path = pg_catalog, lg;
ALTER FUNCTION lg.compare(text, text, text, jsonb, text[], text[])
    SECURITY DEFINER SET search_path = pg_catalog, lg;
ALTER FUNCTION lg.compare(text, text, text, jsonb, text[])
    SECURITY DEFINER SET search_path = pg_catalog, lg;
