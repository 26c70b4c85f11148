-- lg.t_quantile: function (schema/views: re-created by lgctl db migrate; see schema/README.md)
-- The p-quantile of Student's t with df degrees of freedom (0 < p < 1): Newton's method on
-- lg.t_cdf, kept inside a bracket that bisection narrows whenever a step would leave it. For the
-- 95% intervals every caller asks for (p = 0.975, 3 degrees of freedom or more), Newton starts
-- at the Cornish-Fisher expansion about the normal quantile, within 1e-3 of the answer: three
-- steps, not a bracket doubled from 1 and bisected (a rank by campaign over a lab's database
-- asks for one per configuration).
CREATE OR REPLACE FUNCTION lg.t_quantile(p float8, df float8) RETURNS float8
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
DECLARE
    lo float8 := 0;
    hi float8 := 1;
    t float8;
    f float8;
    step float8;
    lnc float8;
    i integer;
    z CONSTANT float8 := 1.959963984540054; -- the normal distribution's 0.975-quantile
    t0 float8;
BEGIN
    IF p <= 0 OR p >= 1 OR df <= 0 THEN
        RAISE EXCEPTION 'lg.t_quantile: p % or df % out of range', p, df
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF p = 0.5 THEN
        RETURN 0;
    ELSIF p < 0.5 THEN
        RETURN -lg.t_quantile(1 - p, df);
    END IF;
    IF p = 0.975 AND df >= 3 THEN
        t0 := z + (z ^ 3 + z) / (4 * df) + (5 * z ^ 5 + 16 * z ^ 3 + 3 * z) / (96 * df ^ 2)
              + (3 * z ^ 7 + 19 * z ^ 5 + 17 * z ^ 3 - 15 * z) / (384 * df ^ 3);
        hi := t0 * 1.001;
    END IF;
    WHILE lg.t_cdf(hi, df) < p LOOP
        lo := hi;
        hi := hi * 2;
    END LOOP;
    -- ln of the density's constant: Gamma((df + 1) / 2) / (Gamma(df / 2) sqrt(df pi))
    lnc := lg.ln_gamma((df + 1) / 2) - lg.ln_gamma(df / 2) - 0.5 * ln(df * pi());
    t := CASE WHEN t0 > lo AND t0 < hi THEN t0 ELSE (lo + hi) / 2 END;
    FOR i IN 1..200 LOOP
        f := lg.t_cdf(t, df) - p;
        IF f < 0 THEN lo := t; ELSE hi := t; END IF;
        step := f / exp(lnc - (df + 1) / 2 * ln(1 + t * t / df));
        IF t - step <= lo OR t - step >= hi THEN
            step := t - (lo + hi) / 2;
        END IF;
        t := t - step;
        EXIT WHEN abs(step) <= 1e-13 * (1 + abs(t)) OR hi - lo <= 1e-13 * (1 + abs(t));
    END LOOP;
    RETURN t;
END $$;
