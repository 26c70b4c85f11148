-- lg.metric_figures: function (schema/views: re-created by lgctl db migrate; see schema/README.md)
-- ---- the figures, with the run each came from ----
-- lg.metric_points with, per figure, the run it is the result of (NULL: an import) and its
-- direction: what the noise of a single figure is computed from.
CREATE OR REPLACE FUNCTION lg.metric_figures(dimension text, metric text, filter jsonb, campaigns text[],
                                  ignore text[])
RETURNS TABLE (key jsonb, dim_value text, value float8, run_id bigint, direction text)
LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, lg, pg_temp STABLE AS $$
    WITH f AS (
        SELECT v.*, v.labels || jsonb_build_object('protocol', v.protocol, 'profile', v.profile,
               'direction', v.direction, 'threads', v.threads, 'qd', v.qd) AS fields
        FROM lg.v_metric v
        WHERE v.metric = metric_figures.metric
          AND (metric_figures.campaigns IS NULL OR v.campaign = ANY (metric_figures.campaigns)
               OR v.campaign_id::text = ANY (metric_figures.campaigns)))
    SELECT f.fields - metric_figures.dimension - coalesce(metric_figures.ignore, '{}'::text[]),
           CASE WHEN metric_figures.dimension = 'campaign' THEN f.campaign
                ELSE coalesce(f.fields ->> metric_figures.dimension, '(none)') END,
           f.value, f.run_id, f.direction
    FROM f
    WHERE NOT EXISTS (
        SELECT 1 FROM jsonb_each_text(coalesce(metric_figures.filter, '{}')) w
        WHERE (CASE WHEN w.key = 'campaign' THEN f.campaign ELSE f.fields ->> w.key END)
              IS DISTINCT FROM w.value)
$$;
