-- lg.metric_points: function (schema/views: re-created by lgctl db migrate; see schema/README.md)
CREATE OR REPLACE FUNCTION lg.metric_points(dimension text, metric text, filter jsonb,
                                            campaigns text[], ignore text[])
RETURNS TABLE (key jsonb, dim_value text, value float8)
LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, lg, pg_temp STABLE AS $$
    SELECT p.key, p.dim_value, p.value
    FROM lg.metric_figures(dimension, metric, filter, campaigns, ignore) p
$$;

CREATE OR REPLACE FUNCTION lg.metric_points(dimension text, metric text, filter jsonb DEFAULT '{}',
                                            campaigns text[] DEFAULT NULL)
RETURNS TABLE (key jsonb, dim_value text, value float8)
LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, lg, pg_temp STABLE AS $$
    SELECT * FROM lg.metric_points(dimension, metric, filter, campaigns, NULL::text[])
$$;
