-- lg.metric_figures: function (schema/views: re-created by lgctl db migrate; see schema/README.md)
-- ---- the figures, with the run each came from ----
-- lg.metric_points with, per figure, the run it is the result of (NULL: an import) and its
-- direction: what the noise of a single figure is computed from.
-- Planned at each call with its own campaigns and metric (EXECUTE ... USING): a plan made once
-- for any campaigns ("$4 IS NULL OR name = ANY ($4)") reads every run of the database, where one
-- for the named campaign reads its runs by their key (issue 43 part 1: a lab's database); no
-- filter, no per-figure test of one. The campaigns are found by name or id first, so that their
-- runs are read by lg.run's (campaign_id, ordinal) key: a test of name or id on every row read
-- every run of the database (report's and compare's notes, 10,000 runs of lg.run for 8). The key (labels and run fields as jsonb) is built, and the
-- filter tested, once per campaign and point rather than once per figure (0.6 s of a rank over
-- 100,000 runs). qd_short: the figure's run ran far below its queue depth (lg.rank's "!").
-- A changed column list needs the function dropped first; every caller is a function, which
-- PostgreSQL does not record as depending on it.
DROP FUNCTION IF EXISTS lg.metric_figures(text, text, jsonb, text[], text[]);
CREATE FUNCTION lg.metric_figures(dimension text, metric text, filter jsonb, campaigns text[],
                                  ignore text[])
RETURNS TABLE (key jsonb, dim_value text, value float8, run_id bigint, direction text,
               qd_short boolean)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, lg, pg_temp STABLE ROWS 100
SET work_mem = '64MB' AS $$
BEGIN
    RETURN QUERY EXECUTE format($q$
    WITH g AS (
        SELECT v.campaign, v.labels, v.protocol, v.profile, v.direction, v.threads, v.qd,
               array_agg(v.value) AS vals, array_agg(v.run_id) AS rids,
               array_agg(v.qd_short) AS shorts
        FROM lg.v_metric v
        WHERE v.metric = $2 %s
        GROUP BY v.campaign, v.labels, v.protocol, v.profile, v.direction, v.threads, v.qd),
    f AS (
        SELECT g.*, g.labels || jsonb_build_object('protocol', g.protocol, 'profile', g.profile,
               'direction', g.direction, 'threads', g.threads, 'qd', g.qd) AS fields
        FROM g),
    k AS (
        SELECT f.fields - $1 - coalesce($5, '{}'::text[]) AS key,
               CASE WHEN $1 = 'campaign' THEN f.campaign
                    ELSE coalesce(f.fields ->> $1, '(none)') END AS dim_value,
               f.direction, f.vals, f.rids, f.shorts
        FROM f
        %s
        OFFSET 0)
    SELECT k.key, k.dim_value, u.value, u.run_id, k.direction, u.short
    FROM k
    CROSS JOIN LATERAL unnest(k.vals, k.rids, k.shorts) u(value, run_id, short)
    $q$, CASE WHEN metric_figures.campaigns IS NULL THEN ''
              ELSE 'AND v.campaign_id = ANY (ARRAY(SELECT c.campaign_id FROM lg.campaign c
                    WHERE c.name = ANY ($4) OR c.campaign_id::text = ANY ($4)))' END,
         CASE WHEN coalesce(metric_figures.filter, '{}') = '{}' THEN ''
              ELSE 'WHERE NOT EXISTS (
        SELECT 1 FROM jsonb_each_text($3) w
        WHERE (CASE WHEN w.key = ''campaign'' THEN f.campaign ELSE f.fields ->> w.key END)
              IS DISTINCT FROM w.value)' END)
    USING metric_figures.dimension, metric_figures.metric, metric_figures.filter,
          metric_figures.campaigns, metric_figures.ignore;
END
$$;
