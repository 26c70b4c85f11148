-- lg.t_p2: function (schema/views: re-created by lgctl db migrate; see schema/README.md)
-- Two-sided p-value of a t statistic: P(|T| >= |t|), exact in the far tail (no 1 - cdf).
CREATE OR REPLACE FUNCTION lg.t_p2(t float8, df float8) RETURNS float8
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
    SELECT CASE WHEN t = 0 THEN 1
                WHEN abs(t) = 'Infinity' THEN 0
                ELSE lg.inc_beta(df / (df + t * t), t * t / (df + t * t), df / 2, 0.5) END
$$;
