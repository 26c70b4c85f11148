-- lg.t_cdf: function (schema/views: re-created by lgctl db migrate; see schema/README.md)
-- P(T <= t) for Student's t with df degrees of freedom (df > 0, need not be whole).
CREATE OR REPLACE FUNCTION lg.t_cdf(t float8, df float8) RETURNS float8
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
DECLARE
    tail float8;
BEGIN
    IF df <= 0 THEN
        RAISE EXCEPTION 'lg.t_cdf: % degrees of freedom', df USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF t = 0 THEN
        RETURN 0.5;
    ELSIF t = 'Infinity' THEN
        RETURN 1;
    ELSIF t = '-Infinity' THEN
        RETURN 0;
    END IF;
    -- P(|T| >= |t|) = I_{df / (df + t^2)}(df / 2, 1 / 2)
    tail := 0.5 * lg.inc_beta(df / (df + t * t), t * t / (df + t * t), df / 2, 0.5);
    RETURN CASE WHEN t > 0 THEN 1 - tail ELSE tail END;
END $$;
