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
-- ln Gamma(x), x > 0: Lanczos' approximation (g = 7, 9 terms; relative error about 1e-15), one
-- expression where Stirling's series first shifted x up to 10 a step at a time (inc_beta asks
-- for three per call); x under 1/2 through Gamma(x) = Gamma(x + 1) / x.
CREATE OR REPLACE FUNCTION lg.ln_gamma(x float8) RETURNS float8
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
BEGIN
    IF x <= 0 THEN
        RAISE EXCEPTION 'lg.ln_gamma: % is not positive', x USING ERRCODE = 'invalid_parameter_value';
    ELSIF x < 0.5 THEN
        RETURN lg.ln_gamma(x + 1) - ln(x);
    END IF;
    RETURN 0.91893853320467274178 + (x - 0.5) * ln(x + 6.5) - (x + 6.5)
           + ln(0.99999999999980993 + 676.5203681218851 / x - 1259.1392167224028 / (x + 1)
                + 771.32342877765313 / (x + 2) - 176.61502916214059 / (x + 3)
                + 12.507343278686905 / (x + 4) - 0.13857109526572012 / (x + 5)
                + 9.9843695780195716e-6 / (x + 6) + 1.5056327351493116e-7 / (x + 7));
END $$;
