-- lg.welch: function (schema/views: re-created by lgctl db migrate; see schema/README.md)
-- Welch's test of a difference d = mean1 - mean0 of two means with standard errors se1, se0 on
-- df1, df0 degrees of freedom: the Welch-Satterthwaite df, the two-sided p-value, and the 95%
-- interval of d. All NULL when either side has no noise estimate.
CREATE OR REPLACE FUNCTION lg.welch(d float8, se1 float8, df1 float8, se0 float8, df0 float8,
                         OUT df float8, OUT p_value float8, OUT ci_low float8, OUT ci_high float8)
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE
    v float8;
    h float8;
BEGIN
    IF d IS NULL OR se1 IS NULL OR se0 IS NULL OR df1 IS NULL OR df0 IS NULL THEN
        RETURN;
    END IF;
    v := se1 * se1 + se0 * se0;
    IF v = 0 THEN -- two noiseless means: equal or not
        p_value := CASE WHEN d = 0 THEN 1 ELSE 0 END;
        ci_low := d;
        ci_high := d;
        RETURN;
    END IF;
    df := v * v / (se1 ^ 4 / df1 + se0 ^ 4 / df0);
    p_value := lg.t_p2(d / sqrt(v), df);
    h := lg.t_quantile(0.975, df) * sqrt(v);
    ci_low := d - h;
    ci_high := d + h;
END $$;
