-- lg.check_threshold: function (schema/views: re-created by lgctl db migrate; see schema/README.md)
CREATE OR REPLACE FUNCTION lg.check_threshold(threshold float8) RETURNS float8
LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
    IF threshold IS NOT NULL AND NOT (threshold >= 0 AND threshold < 'Infinity') THEN
        RAISE EXCEPTION 'threshold % is not a percentage of 0 or more', threshold
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    RETURN coalesce(threshold, 0);
END $$;
