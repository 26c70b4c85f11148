-- lg.ln_gamma: function (schema/views: re-created by lgctl db migrate; see schema/README.md)
-- 017_compare_noise: comparisons that know their noise. Every compared value gets a 95%
-- confidence interval of its mean (Student's t): from its repeats when there are two or more
-- figures, or, for a single measured run, from batch means of that run's per-second samples.
-- A difference is tested with Welch's t-test (unequal variances, Welch-Satterthwaite degrees of
-- freedom); one whose 95% interval includes zero, or whose size is under the caller's threshold
-- (percent), is "same" and shown as "~". lg.compare and lg.rank take a threshold and return the
-- intervals and p-values; their older signatures stay, as calls of the new ones with threshold 0,
-- and return the new columns too. The method and what is not exact: docs/design.md
-- ("Comparisons that know their noise"); the columns: schema/README.md.
-- ---- Student's t distribution, in SQL (PostgreSQL 15 has no lgamma) ----
-- ln Gamma(x), x > 0: shifted up to x >= 10 with Gamma(x) = Gamma(x + 1) / x, then Stirling's
-- series to the x^-9 term (the first term left out is below 1e-13 there).
CREATE OR REPLACE FUNCTION lg.ln_gamma(x float8) RETURNS float8
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
DECLARE
    s float8 := 0;
    z float8;
BEGIN
    IF x <= 0 THEN
        RAISE EXCEPTION 'lg.ln_gamma: % is not positive', x USING ERRCODE = 'invalid_parameter_value';
    END IF;
    WHILE x < 10 LOOP
        s := s - ln(x);
        x := x + 1;
    END LOOP;
    z := 1 / (x * x);
    RETURN s + (x - 0.5) * ln(x) - x + 0.5 * ln(2 * pi())
           + (1 / x) * (1.0 / 12 - z * (1.0 / 360 - z * (1.0 / 1260 - z * (1.0 / 1680 - z / 1188))));
END $$;
