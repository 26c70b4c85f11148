-- lg.metric_figures: function (schema/views: re-created by lgctl db migrate; see schema/README.md)
-- ---- the figures, with the run each came from ----
-- lg.metric_points with, per figure, the run it is the result of (NULL: an import) and its
-- direction: what the noise of a single figure is computed from.
-- Planned at each call with its own campaigns and metric (EXECUTE ... USING): a plan made once
-- for any campaigns ("$4 IS NULL OR name = ANY ($4)") reads every run of the database, where one
-- for the named campaign reads its runs by their key (issue 43 part 1: a lab's database); no
-- filter, no per-figure test of one.
CREATE OR REPLACE FUNCTION lg.metric_figures(dimension text, metric text, filter jsonb, campaigns text[],
                                  ignore text[])
RETURNS TABLE (key jsonb, dim_value text, value float8, run_id bigint, direction text)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, lg, pg_temp STABLE ROWS 100 AS $$
BEGIN
    RETURN QUERY EXECUTE format($q$
    WITH f AS (
        SELECT v.*, v.labels || jsonb_build_object('protocol', v.protocol, 'profile', v.profile,
               'direction', v.direction, 'threads', v.threads, 'qd', v.qd) AS fields
        FROM lg.v_metric v
        WHERE v.metric = $2 %s)
    SELECT f.fields - $1 - coalesce($5, '{}'::text[]),
           CASE WHEN $1 = 'campaign' THEN f.campaign
                ELSE coalesce(f.fields ->> $1, '(none)') END,
           f.value, f.run_id, f.direction
    FROM f
    %s
    $q$, CASE WHEN metric_figures.campaigns IS NULL THEN ''
              ELSE 'AND (v.campaign = ANY ($4) OR v.campaign_id::text = ANY ($4))' END,
         CASE WHEN coalesce(metric_figures.filter, '{}') = '{}' THEN ''
              ELSE 'WHERE NOT EXISTS (
        SELECT 1 FROM jsonb_each_text($3) w
        WHERE (CASE WHEN w.key = ''campaign'' THEN f.campaign ELSE f.fields ->> w.key END)
              IS DISTINCT FROM w.value)' END)
    USING metric_figures.dimension, metric_figures.metric, metric_figures.filter,
          metric_figures.campaigns, metric_figures.ignore;
END
$$;
