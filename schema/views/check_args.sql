-- lg.check_args: function (schema/views: re-created by lgctl db migrate; see schema/README.md)
CREATE OR REPLACE FUNCTION lg.check_args(dimension text, metric text, filter jsonb) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, lg, pg_temp STABLE AS $$
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
