-- lg.metric_groups: function (schema/views: re-created by lgctl db migrate; see schema/README.md)
-- lg.metric_figures summed up, in one pass over lg.v_metric: per key (labels and run fields, less
-- the dimension) and dimension value, the figures' count, mean and standard deviation, the run
-- of a single figure (NULL for an import or several), its direction, and whether a run of it ran
-- far below its queue depth. dimension NULL: no dimension, figures with the same labels are one
-- group whatever their campaign (lg.rank without --by). Grouped on the plain columns and labels
-- before any jsonb is built: a rank over 200,000 runs builds its keys per group, not per figure.
CREATE OR REPLACE FUNCTION lg.metric_groups(dimension text, metric text, filter jsonb,
                                            campaigns text[])
RETURNS TABLE (key jsonb, dim_value text, n integer, mean float8, sd float8, run_id bigint,
               direction text, qd_short boolean)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, lg, pg_temp STABLE ROWS 100
SET work_mem = '64MB' AS $$
BEGIN
    RETURN QUERY EXECUTE format($q$
    WITH g AS (
        SELECT v.labels, v.protocol, v.profile, v.direction, v.threads, v.qd,
               CASE WHEN $1 IS NULL THEN NULL WHEN $1 = 'campaign' THEN v.campaign END AS cp,
               count(*)::integer AS n, avg(v.value) AS mean, stddev_samp(v.value) AS sd,
               CASE WHEN count(*) = 1 THEN max(v.run_id) END AS rid, bool_or(v.qd_short) AS sh
        FROM lg.v_metric v
        WHERE v.metric = $2 %s %s
        GROUP BY 1, 2, 3, 4, 5, 6, 7),
    f AS (
        SELECT g.*, g.labels || jsonb_build_object('protocol', g.protocol, 'profile', g.profile,
               'direction', g.direction, 'threads', g.threads, 'qd', g.qd) AS fields
        FROM g)
    SELECT CASE WHEN $1 IS NULL THEN f.fields ELSE f.fields - $1 END,
           CASE WHEN $1 IS NULL THEN NULL WHEN $1 = 'campaign' THEN f.cp
                ELSE coalesce(f.fields ->> $1, '(none)') END,
           f.n, f.mean, f.sd, f.rid, f.direction, f.sh
    FROM f
    $q$, CASE WHEN metric_groups.campaigns IS NULL THEN ''
              ELSE 'AND (v.campaign = ANY ($4) OR v.campaign_id::text = ANY ($4))' END,
         -- a filter is tested per figure (it may name the campaign, which groups need not share)
         CASE WHEN coalesce(metric_groups.filter, '{}') = '{}' THEN ''
              ELSE 'AND NOT EXISTS (
        SELECT 1 FROM jsonb_each_text($3) w
        WHERE (CASE w.key WHEN ''campaign'' THEN v.campaign WHEN ''protocol'' THEN v.protocol
                          WHEN ''profile'' THEN v.profile WHEN ''direction'' THEN v.direction
                          WHEN ''threads'' THEN v.threads::text WHEN ''qd'' THEN v.qd::text
                          ELSE v.labels ->> w.key END)
              IS DISTINCT FROM w.value)' END)
    USING metric_groups.dimension, metric_groups.metric, metric_groups.filter,
          metric_groups.campaigns;
END
$$;
