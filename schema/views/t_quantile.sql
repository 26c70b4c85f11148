-- lg.t_quantile: function (schema/views: re-created by lgctl db migrate; see schema/README.md)
-- The p-quantile of Student's t with df degrees of freedom (0 < p < 1).
-- For the 95% intervals every caller asks for (p = 0.975, 3 degrees of freedom or more) it is a
-- polynomial in u = 1 / df, exact to the last bit or two of a double (4.4e-16 at most on
-- [3, infinity); schema/t975_fit.py makes it again and says so): rank and compare ask for one per
-- Welch test, which as Newton's steps on lg.t_cdf cost 0.4 ms each. Otherwise Newton's method on
-- lg.t_cdf, kept inside a bracket that bisection narrows whenever a step would leave it.
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
    u float8;
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
        u := 1 / df;
        RETURN (((((((((((((((((-316.8598182547673 * u + 1177.6318057095475)
               * u - 2016.4375554692533) * u + 2101.0853460956364) * u - 1476.0049639172482)
               * u + 725.3713975390688) * u - 245.28229191129927) * u + 50.342123184139176)
               * u - 2.494848719092692) * u - 1.3085837591126557) * u + 0.10134622317186077)
               * u + 0.6288362725053692) * u + 0.732851048514425) * u + 1.5895351502109172)
               * u + 2.5558496638250228) * u + 2.8224986158591423) * u + 2.372271230298198)
               * u + 1.9599639845400545);
    END IF;
    WHILE lg.t_cdf(hi, df) < p LOOP
        lo := hi;
        hi := hi * 2;
    END LOOP;
    -- ln of the density's constant: Gamma((df + 1) / 2) / (Gamma(df / 2) sqrt(df pi))
    lnc := lg.ln_gamma((df + 1) / 2) - lg.ln_gamma(df / 2) - 0.5 * ln(df * pi());
    t := (lo + hi) / 2;
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
