-- 007_compare: the comparison engine. lg.metric names the metrics and which way is better;
-- lg.imported_figure holds published or hand-collected figures ("lgctl import results"), keyed
-- to an imported campaign and SUT config; lg.v_metric is one long form of every measured and
-- imported figure; lg.compare(), lg.rank() and lg.sweep() are what lgctl compare / rank print and
-- what reviewers SELECT from (schema/README.md).

CREATE TABLE lg.metric (
    metric            text PRIMARY KEY,
    unit              text NOT NULL,           -- the unit every figure of it is stored in
    higher_is_better  boolean NOT NULL,
    ordinal           integer NOT NULL UNIQUE
);
INSERT INTO lg.metric VALUES
    ('iops', 'IOPS', true, 1), ('mbps', 'MB/s', true, 2),
    ('lat_avg_ms', 'ms', false, 3), ('lat_min_ms', 'ms', false, 4),
    ('lat_max_ms', 'ms', false, 5), ('lat_stddev_ms', 'ms', false, 6),
    ('p50_ms', 'ms', false, 7), ('p90_ms', 'ms', false, 8), ('p95_ms', 'ms', false, 9),
    ('p99_ms', 'ms', false, 10), ('p99_9_ms', 'ms', false, 11), ('p99_99_ms', 'ms', false, 12);

-- Figures made elsewhere, already in their metric's unit; raw_value/raw_unit and line keep what
-- the file said and where.
CREATE TABLE lg.imported_figure (
    campaign_id   bigint NOT NULL REFERENCES lg.campaign ON DELETE CASCADE,
    line          integer NOT NULL,
    sut_config_id bigint NOT NULL REFERENCES lg.sut_config,
    profile       text NOT NULL,
    direction     text NOT NULL,
    protocol      text,
    threads       integer,
    qd            integer,
    metric        text NOT NULL REFERENCES lg.metric,
    value         double precision NOT NULL,
    raw_value     text NOT NULL,
    raw_unit      text NOT NULL,
    PRIMARY KEY (campaign_id, line)
);

-- One row per figure: measured (merged result of a finished measurement run) or imported.
CREATE VIEW lg.v_metric AS
SELECT c.campaign_id, c.name AS campaign, 'run'::text AS source, r.run_id, NULL::integer AS line,
       s.sut_config_id, s.labels, r.profile, x.direction, r.protocol, r.threads, r.qd,
       r.repeat, m.metric, m.value
FROM lg.result x
JOIN lg.run r USING (run_id)
JOIN lg.campaign c USING (campaign_id)
JOIN lg.sut_config s USING (sut_config_id)
CROSS JOIN LATERAL (VALUES
    ('iops', x.iops), ('mbps', x.bw_bytes / 1e6),
    ('lat_avg_ms', x.lat_mean / 1e6), ('lat_min_ms', x.lat_min / 1e6),
    ('lat_max_ms', x.lat_max / 1e6), ('lat_stddev_ms', x.lat_stddev / 1e6),
    ('p50_ms', (x.percentiles ->> '50.000000')::float8 / 1e6),
    ('p90_ms', (x.percentiles ->> '90.000000')::float8 / 1e6),
    ('p95_ms', (x.percentiles ->> '95.000000')::float8 / 1e6),
    ('p99_ms', (x.percentiles ->> '99.000000')::float8 / 1e6),
    ('p99_9_ms', (x.percentiles ->> '99.900000')::float8 / 1e6),
    ('p99_99_ms', (x.percentiles ->> '99.990000')::float8 / 1e6)) m(metric, value)
WHERE x.agent_id IS NULL AND r.state = 'done' AND r.phase = 'measure' AND m.value IS NOT NULL
UNION ALL
SELECT c.campaign_id, c.name, 'import', NULL, f.line, s.sut_config_id, s.labels, f.profile,
       f.direction, f.protocol, f.threads, f.qd, 1, f.metric, f.value
FROM lg.imported_figure f
JOIN lg.campaign c USING (campaign_id)
JOIN lg.sut_config s USING (sut_config_id);

-- The dimensions a comparison can be made by: every run field, and every SUT label in use.
CREATE FUNCTION lg.dimensions() RETURNS SETOF text
LANGUAGE sql STABLE AS $$
    SELECT unnest(ARRAY['protocol', 'profile', 'direction', 'threads', 'qd', 'campaign'])
    UNION ALL
    (SELECT k FROM (SELECT unnest(ARRAY['build', 'media', 'pool', 'compression', 'dedup', 'nic'])
                    UNION SELECT jsonb_object_keys(labels) FROM lg.sut_config) l(k)
     WHERE k NOT IN ('protocol', 'profile', 'direction', 'threads', 'qd', 'campaign')
     ORDER BY array_position(ARRAY['build', 'media', 'pool', 'compression', 'dedup', 'nic'], k)
              NULLS LAST, k)
$$;

-- Every figure of v_metric as (key, dimension value, value): the key is a jsonb of everything
-- that identifies the figure (run fields and labels) except the dimension and the campaign, so
-- campaigns with the same labels compare. Filtered by metric, by filter ({"media": "ssd", ...},
-- any dimension, values compared as text) and by campaigns (names or ids; NULL: all).
CREATE FUNCTION lg.metric_points(dimension text, metric text, filter jsonb DEFAULT '{}',
                                 campaigns text[] DEFAULT NULL)
RETURNS TABLE (key jsonb, dim_value text, value float8)
LANGUAGE sql STABLE AS $$
    WITH f AS (
        SELECT v.*, v.labels || jsonb_build_object('protocol', v.protocol, 'profile', v.profile,
               'direction', v.direction, 'threads', v.threads, 'qd', v.qd) AS fields
        FROM lg.v_metric v
        WHERE v.metric = metric_points.metric
          AND (metric_points.campaigns IS NULL OR v.campaign = ANY (metric_points.campaigns)
               OR v.campaign_id::text = ANY (metric_points.campaigns)))
    SELECT f.fields - metric_points.dimension,
           CASE WHEN metric_points.dimension = 'campaign' THEN f.campaign
                ELSE coalesce(f.fields ->> metric_points.dimension, '(none)') END,
           f.value
    FROM f
    WHERE NOT EXISTS (
        SELECT 1 FROM jsonb_each_text(coalesce(metric_points.filter, '{}')) w
        WHERE (CASE WHEN w.key = 'campaign' THEN f.campaign ELSE f.fields ->> w.key END)
              IS DISTINCT FROM w.value)
$$;

-- Order of dimension values: numbers by value, then text.
CREATE FUNCTION lg.value_order(v text) RETURNS numeric
LANGUAGE sql IMMUTABLE AS $$
    SELECT CASE WHEN v ~ '^[0-9]+(\.[0-9]+)?$' THEN v::numeric END
$$;

CREATE FUNCTION lg.check_args(dimension text, metric text, filter jsonb) RETURNS void
LANGUAGE plpgsql STABLE AS $$
DECLARE
    k text;
BEGIN
    IF NOT EXISTS (SELECT 1 FROM lg.metric m WHERE m.metric = check_args.metric) THEN
        RAISE EXCEPTION 'unknown metric "%"', check_args.metric
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'metrics: ' || (SELECT string_agg(m.metric, ', ' ORDER BY m.ordinal)
                                         FROM lg.metric m);
    END IF;
    IF dimension IS NOT NULL
       AND NOT EXISTS (SELECT 1 FROM lg.dimensions() d WHERE d = dimension) THEN
        RAISE EXCEPTION 'unknown dimension "%"', dimension
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'dimensions: ' || (SELECT string_agg(d, ', ') FROM lg.dimensions() d);
    END IF;
    FOR k IN SELECT jsonb_object_keys(coalesce(filter, '{}')) LOOP
        IF NOT EXISTS (SELECT 1 FROM lg.dimensions() d WHERE d = k) THEN
            RAISE EXCEPTION 'unknown dimension "%" in the filter', k
                USING ERRCODE = 'invalid_parameter_value',
                      HINT = 'dimensions: ' || (SELECT string_agg(d, ', ') FROM lg.dimensions() d);
        END IF;
    END LOOP;
END
$$;

-- The comparison: for every combination of the other dimensions present (key), one row per
-- value of the dimension (every value found anywhere in the selection, so a missing counterpart
-- is a row with status 'missing', never dropped). Repeats and campaigns with the same key are
-- combined as the mean, n says how many figures. pct = (value - baseline) / baseline * 100,
-- ratio = value / baseline; better/worse follow lg.metric.higher_is_better. baseline NULL: the
-- first value in order. Unknown dimension or metric, or a baseline with no figures: an error
-- (SQLSTATE 22023) that says which.
CREATE FUNCTION lg.compare(dimension text, baseline text, metric text,
                           filter jsonb DEFAULT '{}', campaigns text[] DEFAULT NULL)
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
                                    compare.campaigns) p) x;
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
                              compare.campaigns) p
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

-- Configurations ranked by a metric within each group of run fields (profile, direction,
-- protocol, threads, qd): a configuration is a set of SUT labels (or, with dimension, one
-- value of that dimension). gap_pct is the distance to the leader, in the metric's better
-- direction: 0 for the leader, negative for the rest.
CREATE FUNCTION lg.rank(metric text, filter jsonb DEFAULT '{}', campaigns text[] DEFAULT NULL,
                        dimension text DEFAULT NULL)
RETURNS TABLE (profile text, direction text, protocol text, threads integer, qd integer,
               rank integer, config text, value float8, n integer, leader_value float8,
               gap_pct float8, ratio float8)
LANGUAGE plpgsql STABLE AS $fn$
DECLARE
    hib boolean;
BEGIN
    PERFORM lg.check_args(rank.dimension, rank.metric, rank.filter);
    SELECT m.higher_is_better INTO hib FROM lg.metric m WHERE m.metric = rank.metric;
    RETURN QUERY
    WITH p AS (
        SELECT x.key ->> 'profile' AS pr, x.key ->> 'direction' AS di, x.key ->> 'protocol' AS po,
               (x.key ->> 'threads')::integer AS th, (x.key ->> 'qd')::integer AS q,
               CASE WHEN rank.dimension IS NULL
                    THEN (SELECT coalesce(string_agg(e.key || '=' || e.value, ',' ORDER BY e.key),
                                          '(no labels)')
                          FROM jsonb_each_text(x.key - 'profile' - 'direction' - 'protocol'
                                               - 'threads' - 'qd') e)
                    ELSE x.dim_value END AS cfg,
               x.value
        FROM lg.metric_points(coalesce(rank.dimension, 'campaign'), rank.metric, rank.filter,
                              rank.campaigns) x),
    agg AS (SELECT pr, di, po, th, q, cfg, avg(p.value) AS v, count(*)::integer AS n
            FROM p GROUP BY pr, di, po, th, q, cfg),
    ranked AS (
        SELECT a.*, rank() OVER w AS rk, first_value(a.v) OVER w AS lv
        FROM agg a
        WINDOW w AS (PARTITION BY pr, di, po, th, q
                     ORDER BY CASE WHEN hib THEN -a.v ELSE a.v END))
    SELECT r.pr, r.di, r.po, r.th, r.q, r.rk::integer, r.cfg, r.v, r.n, r.lv,
           CASE WHEN r.lv <> 0 THEN (CASE WHEN hib THEN (r.v - r.lv) / r.lv
                                          ELSE (r.lv - r.v) / r.lv END) * 100 END,
           CASE WHEN r.lv <> 0 THEN r.v / r.lv END
    FROM ranked r
    ORDER BY r.pr, r.di, r.po, r.th, r.q, r.rk, r.cfg;
END
$fn$;

-- Sweep curves: for profiles measured at more than one load point in the selection, IOPS and
-- average latency per configuration (its labels and protocol, as "k=v,...") and load point,
-- mean of repeats (n of them).
CREATE FUNCTION lg.sweep(filter jsonb DEFAULT '{}', campaigns text[] DEFAULT NULL)
RETURNS TABLE (profile text, direction text, config text, threads integer, qd integer,
               iops float8, lat_avg_ms float8, n integer)
LANGUAGE sql STABLE AS $$
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
CREATE VIEW lg.v_sweep AS SELECT * FROM lg.sweep();

GRANT SELECT ON lg.metric, lg.imported_figure, lg.v_metric, lg.v_sweep TO lg_reader;
GRANT SELECT, INSERT, UPDATE, DELETE ON lg.imported_figure TO lg_writer;
