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
CREATE FUNCTION lg.ln_gamma(x float8) RETURNS float8
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

-- The regularized incomplete beta function I_x(a, b), with y = 1 - x given by the caller so that
-- neither end loses digits (t_cdf has both exactly). The continued fraction of I_x(a, b)
-- (converges fast for x < (a + 1) / (a + b + 2); otherwise 1 - I_y(b, a)), evaluated
-- front to back by the modified Lentz method.
CREATE FUNCTION lg.inc_beta(x float8, y float8, a float8, b float8) RETURNS float8
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
DECLARE
    tiny CONSTANT float8 := 1e-300;
    flip boolean := false;
    t float8;
    front float8;
    f float8 := 1;
    c float8 := 1;
    d float8 := 0;
    aj float8;
    m integer;
    j integer;
    delta float8;
BEGIN
    IF x <= 0 THEN
        RETURN 0;
    ELSIF y <= 0 THEN
        RETURN 1;
    END IF;
    IF x >= (a + 1) / (a + b + 2) THEN
        flip := true;
        t := x; x := y; y := t;
        t := a; a := b; b := t;
    END IF;
    front := exp(a * ln(x) + b * ln(y) + lg.ln_gamma(a + b) - lg.ln_gamma(a) - lg.ln_gamma(b)) / a;
    FOR j IN 1..1000 LOOP
        m := j / 2;
        IF j % 2 = 1 THEN
            aj := -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1));
        ELSE
            aj := m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m));
        END IF;
        d := 1 + aj * d;
        IF abs(d) < tiny THEN d := tiny; END IF;
        d := 1 / d;
        c := 1 + aj / c;
        IF abs(c) < tiny THEN c := tiny; END IF;
        delta := c * d;
        f := f * delta;
        EXIT WHEN abs(delta - 1) < 1e-15;
    END LOOP;
    RETURN CASE WHEN flip THEN 1 - front / f ELSE front / f END;
END $$;

-- P(T <= t) for Student's t with df degrees of freedom (df > 0, need not be whole).
CREATE FUNCTION lg.t_cdf(t float8, df float8) RETURNS float8
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

-- Two-sided p-value of a t statistic: P(|T| >= |t|), exact in the far tail (no 1 - cdf).
CREATE FUNCTION lg.t_p2(t float8, df float8) RETURNS float8
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
    SELECT CASE WHEN t = 0 THEN 1
                WHEN abs(t) = 'Infinity' THEN 0
                ELSE lg.inc_beta(df / (df + t * t), t * t / (df + t * t), df / 2, 0.5) END
$$;

-- The p-quantile of Student's t with df degrees of freedom (0 < p < 1): Newton's method on
-- lg.t_cdf, kept inside a bracket that bisection narrows whenever a step would leave it.
CREATE FUNCTION lg.t_quantile(p float8, df float8) RETURNS float8
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
DECLARE
    lo float8 := 0;
    hi float8 := 1;
    t float8;
    f float8;
    step float8;
    lnc float8;
    i integer;
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

-- ---- the noise of one run: batch means of its per-second samples ----

-- The batch means of a measured run's figure (iops, mbps or lat_avg_ms; the other metrics have
-- none): its samples merged over agents second by second (seq; only seconds every agent of the
-- run reported), then k = min(10, N / 2) batches of b = N / k consecutive seconds, the first
-- N - k * b seconds left out so that the batches are equal; no rows under 10 seconds (fewer than
-- 5 batches). A batch's IOPS and MB/s are the mean of its seconds' merged rates, its average
-- latency is its I/Os' (latency sum over count). Batches rather than the seconds themselves:
-- consecutive seconds are correlated, and their spread would understate the noise of the mean.
CREATE FUNCTION lg.batch_means(run_id bigint, direction text, metric text)
RETURNS TABLE (batch integer, seconds integer, value float8)
LANGUAGE sql STABLE STRICT AS $$
    WITH s AS (
        SELECT x.seq, count(*) AS agents,
               sum(x.ios * 1000.0 / x.interval_ms)::float8 AS iops,
               (sum(x.bytes * 1000.0 / x.interval_ms) / 1e6)::float8 AS mbps,
               sum(x.lat_sum) AS lat_sum, sum(x.lat_n) AS lat_n
        FROM lg.sample x
        WHERE x.run_id = batch_means.run_id AND x.direction = batch_means.direction
          AND x.interval_ms > 0 AND batch_means.metric IN ('iops', 'mbps', 'lat_avg_ms')
        GROUP BY x.seq),
    whole AS (
        SELECT s.*, row_number() OVER (ORDER BY s.seq) AS i, count(*) OVER () AS nsec
        FROM s WHERE s.agents = (SELECT max(s2.agents) FROM s s2)),
    k AS (SELECT w.*, least(10, w.nsec / 2) AS nb FROM whole w),
    b AS (SELECT k.*, k.nsec / k.nb AS bs FROM k WHERE k.nb >= 5)
    SELECT ((b.i - (b.nsec - b.nb * b.bs) - 1) / b.bs)::integer + 1, count(*)::integer,
           CASE batch_means.metric
               WHEN 'iops' THEN avg(b.iops)
               WHEN 'mbps' THEN avg(b.mbps)
               ELSE sum(b.lat_sum) / nullif(sum(b.lat_n), 0) / 1e6 END
    FROM b
    WHERE b.i > b.nsec - b.nb * b.bs
    GROUP BY 1
    ORDER BY 1
$$;

-- The standard error of a run's figure and its degrees of freedom, from its batch means: the
-- batch means' standard deviation / sqrt(k), k - 1. No row when the run has no batches.
CREATE FUNCTION lg.run_noise(run_id bigint, direction text, metric text)
RETURNS TABLE (se float8, df float8)
LANGUAGE sql STABLE STRICT AS $$
    SELECT stddev_samp(b.value) / sqrt(count(*)), count(*) - 1
    FROM lg.batch_means(run_noise.run_id, run_noise.direction, run_noise.metric) b
    HAVING count(*) >= 5 AND count(b.value) = count(*)
$$;

-- Welch's test of a difference d = mean1 - mean0 of two means with standard errors se1, se0 on
-- df1, df0 degrees of freedom: the Welch-Satterthwaite df, the two-sided p-value, and the 95%
-- interval of d. All NULL when either side has no noise estimate.
CREATE FUNCTION lg.welch(d float8, se1 float8, df1 float8, se0 float8, df0 float8,
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

-- A percentage as the comparisons show it: "+10.2%", "-2.3%".
CREATE FUNCTION lg.pct_text(pct float8) RETURNS text
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
    SELECT CASE WHEN pct >= 0 THEN '+' ELSE '' END || to_char(pct, 'FM999999999990.0') || '%'
$$;

-- ---- the figures, with the run each came from ----

-- lg.metric_points with, per figure, the run it is the result of (NULL: an import) and its
-- direction: what the noise of a single figure is computed from.
CREATE FUNCTION lg.metric_figures(dimension text, metric text, filter jsonb, campaigns text[],
                                  ignore text[])
RETURNS TABLE (key jsonb, dim_value text, value float8, run_id bigint, direction text)
LANGUAGE sql STABLE AS $$
    WITH f AS (
        SELECT v.*, v.labels || jsonb_build_object('protocol', v.protocol, 'profile', v.profile,
               'direction', v.direction, 'threads', v.threads, 'qd', v.qd) AS fields
        FROM lg.v_metric v
        WHERE v.metric = metric_figures.metric
          AND (metric_figures.campaigns IS NULL OR v.campaign = ANY (metric_figures.campaigns)
               OR v.campaign_id::text = ANY (metric_figures.campaigns)))
    SELECT f.fields - metric_figures.dimension - coalesce(metric_figures.ignore, '{}'::text[]),
           CASE WHEN metric_figures.dimension = 'campaign' THEN f.campaign
                ELSE coalesce(f.fields ->> metric_figures.dimension, '(none)') END,
           f.value, f.run_id, f.direction
    FROM f
    WHERE NOT EXISTS (
        SELECT 1 FROM jsonb_each_text(coalesce(metric_figures.filter, '{}')) w
        WHERE (CASE WHEN w.key = 'campaign' THEN f.campaign ELSE f.fields ->> w.key END)
              IS DISTINCT FROM w.value)
$$;

CREATE OR REPLACE FUNCTION lg.metric_points(dimension text, metric text, filter jsonb,
                                            campaigns text[], ignore text[])
RETURNS TABLE (key jsonb, dim_value text, value float8)
LANGUAGE sql STABLE AS $$
    SELECT p.key, p.dim_value, p.value
    FROM lg.metric_figures(dimension, metric, filter, campaigns, ignore) p
$$;

CREATE FUNCTION lg.check_threshold(threshold float8) RETURNS float8
LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
    IF threshold IS NOT NULL AND NOT (threshold >= 0 AND threshold < 'Infinity') THEN
        RAISE EXCEPTION 'threshold % is not a percentage of 0 or more', threshold
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    RETURN coalesce(threshold, 0);
END $$;

-- ---- lg.compare ----

DROP FUNCTION lg.compare(text, text, text, jsonb, text[]);
DROP FUNCTION lg.compare(text, text, text, jsonb, text[], text[]);

-- As 016's lg.compare, and for each value the 95% interval of its mean (ci_low, ci_high; how:
-- ci_method 'repeats' or 'batch means', NULL when unknown), and against the baseline Welch's
-- p-value and the 95% interval of the difference in percent of the baseline. status 'same'
-- (change '~') when the two are equal, the difference is under threshold percent, or its interval
-- includes zero; 'better' / 'worse' otherwise, also when the noise is unknown (p_value NULL: not
-- tested). change: '~', or the difference as '+10.2%'.
CREATE FUNCTION lg.compare(dimension text, baseline text, metric text, filter jsonb,
                           campaigns text[], ignore text[], threshold float8)
RETURNS TABLE (profile text, direction text, protocol text, threads integer, qd integer,
               labels jsonb, dim_value text, value float8, n integer, baseline_value float8,
               pct float8, ratio float8, status text, key jsonb, ci_low float8, ci_high float8,
               ci_method text, p_value float8, diff_ci_low_pct float8, diff_ci_high_pct float8,
               change text)
LANGUAGE plpgsql STABLE AS $fn$
DECLARE
    base text := baseline;
    thr float8 := lg.check_threshold(threshold);
    hib boolean;
    vals text[];
BEGIN
    PERFORM lg.check_args(compare.dimension, compare.metric, compare.filter);
    SELECT m.higher_is_better INTO hib FROM lg.metric m WHERE m.metric = compare.metric;
    SELECT array_agg(d ORDER BY lg.value_order(d) NULLS LAST, d) INTO vals
        FROM (SELECT DISTINCT p.dim_value AS d
              FROM lg.metric_points(compare.dimension, compare.metric, compare.filter,
                                    compare.campaigns, compare.ignore) p) x;
    IF base IS NULL THEN
        base := vals[1];
    ELSIF vals IS NULL OR NOT base = ANY (vals) THEN
        RAISE EXCEPTION 'baseline "%" has no % figures for dimension "%"', base, compare.metric,
                        compare.dimension
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = CASE WHEN vals IS NULL THEN 'nothing matches the selection'
                              ELSE 'values of ' || compare.dimension || ': ' || array_to_string(vals, ', ') END;
    END IF;
    RETURN QUERY
    WITH agg AS (
        SELECT p.key, p.dim_value, avg(p.value) AS v, count(*)::integer AS cnt,
               stddev_samp(p.value) AS sd,
               CASE WHEN count(*) = 1 THEN max(p.run_id) END AS rid, max(p.direction) AS dir
        FROM lg.metric_figures(compare.dimension, compare.metric, compare.filter,
                               compare.campaigns, compare.ignore) p
        GROUP BY p.key, p.dim_value),
    st AS (
        SELECT a.key, a.dim_value, a.v, a.cnt,
               CASE WHEN a.cnt >= 2 THEN a.sd / sqrt(a.cnt) ELSE rn.se END AS se,
               CASE WHEN a.cnt >= 2 THEN a.cnt - 1 ELSE rn.df END AS df,
               CASE WHEN a.cnt >= 2 THEN 'repeats'
                    WHEN rn.se IS NOT NULL THEN 'batch means' END AS how
        FROM agg a
        LEFT JOIN LATERAL lg.run_noise(a.rid, a.dir, compare.metric) rn ON true),
    keys AS (SELECT DISTINCT s.key FROM st s),
    vs AS (SELECT DISTINCT s.dim_value FROM st s),
    grid AS (
        SELECT k.key, d.dim_value, a.v, coalesce(a.cnt, 0) AS cnt, a.se, a.df, a.how,
               b.v AS bv, b.se AS bse, b.df AS bdf
        FROM keys k CROSS JOIN vs d
        LEFT JOIN st a ON a.key = k.key AND a.dim_value = d.dim_value
        LEFT JOIN st b ON b.key = k.key AND b.dim_value = base),
    tested AS (
        SELECT g.*, CASE WHEN g.bv <> 0 THEN (g.v - g.bv) / g.bv * 100 END AS pc,
               lg.t_quantile(0.975, g.df) * g.se AS half,
               w.p_value AS pv, w.ci_low AS dlo, w.ci_high AS dhi
        FROM grid g
        LEFT JOIN LATERAL lg.welch(g.v - g.bv, g.se, g.df, g.bse, g.bdf) w
               ON g.dim_value <> base),
    verdict AS (
        SELECT t.*,
               CASE WHEN t.v IS NULL THEN 'missing'
                    WHEN t.dim_value = base THEN 'baseline'
                    WHEN t.bv IS NULL THEN 'no baseline'
                    WHEN t.v = t.bv THEN 'same'
                    WHEN abs(t.pc) < thr THEN 'same'
                    WHEN t.dlo <= 0 AND t.dhi >= 0 THEN 'same'
                    WHEN (t.v > t.bv) = hib THEN 'better'
                    ELSE 'worse' END AS verdict
        FROM tested t)
    SELECT g.key ->> 'profile', g.key ->> 'direction', g.key ->> 'protocol',
           (g.key ->> 'threads')::integer, (g.key ->> 'qd')::integer,
           g.key - 'profile' - 'direction' - 'protocol' - 'threads' - 'qd',
           g.dim_value, g.v, g.cnt, g.bv, g.pc,
           CASE WHEN g.bv <> 0 THEN g.v / g.bv END,
           g.verdict, g.key, g.v - g.half, g.v + g.half, g.how, g.pv,
           CASE WHEN g.bv > 0 THEN g.dlo / g.bv * 100 END,
           CASE WHEN g.bv > 0 THEN g.dhi / g.bv * 100 END,
           CASE WHEN g.verdict = 'same' THEN '~'
                WHEN g.verdict IN ('better', 'worse') THEN lg.pct_text(g.pc) END
    FROM verdict g
    ORDER BY g.key ->> 'profile', g.key ->> 'direction', g.key ->> 'protocol',
             (g.key ->> 'threads')::integer, (g.key ->> 'qd')::integer,
             (g.key - 'profile' - 'direction' - 'protocol' - 'threads' - 'qd')::text,
             g.dim_value <> base, lg.value_order(g.dim_value) NULLS LAST, g.dim_value;
END
$fn$;

CREATE FUNCTION lg.compare(dimension text, baseline text, metric text, filter jsonb,
                           campaigns text[], ignore text[])
RETURNS TABLE (profile text, direction text, protocol text, threads integer, qd integer,
               labels jsonb, dim_value text, value float8, n integer, baseline_value float8,
               pct float8, ratio float8, status text, key jsonb, ci_low float8, ci_high float8,
               ci_method text, p_value float8, diff_ci_low_pct float8, diff_ci_high_pct float8,
               change text)
LANGUAGE sql STABLE AS $$
    SELECT * FROM lg.compare(dimension, baseline, metric, filter, campaigns, ignore, 0::float8)
$$;

CREATE FUNCTION lg.compare(dimension text, baseline text, metric text,
                           filter jsonb DEFAULT '{}', campaigns text[] DEFAULT NULL)
RETURNS TABLE (profile text, direction text, protocol text, threads integer, qd integer,
               labels jsonb, dim_value text, value float8, n integer, baseline_value float8,
               pct float8, ratio float8, status text, key jsonb, ci_low float8, ci_high float8,
               ci_method text, p_value float8, diff_ci_low_pct float8, diff_ci_high_pct float8,
               change text)
LANGUAGE sql STABLE AS $$
    SELECT * FROM lg.compare(dimension, baseline, metric, filter, campaigns, NULL::text[],
                             0::float8)
$$;

-- ---- lg.rank ----

DROP FUNCTION lg.rank(text, jsonb, text[], text);

-- As 007's lg.rank, and for each configuration the 95% interval of its mean (ci_low, ci_high,
-- ci_method as in lg.compare), and against the leader Welch's p-value and the 95% interval of
-- the gap in percent of the leader, in the better direction (gap_ci_low_pct, gap_ci_high_pct).
-- status: 'leader' (rank 1), 'same' (change '~': as good as the leader within the noise or the
-- threshold) or 'behind' (change: the gap as '-25.0%').
CREATE FUNCTION lg.rank(metric text, filter jsonb, campaigns text[], dimension text,
                        threshold float8)
RETURNS TABLE (profile text, direction text, protocol text, threads integer, qd integer,
               rank integer, config text, value float8, n integer, leader_value float8,
               gap_pct float8, ratio float8, ci_low float8, ci_high float8, ci_method text,
               p_value float8, gap_ci_low_pct float8, gap_ci_high_pct float8, status text,
               change text)
LANGUAGE plpgsql STABLE AS $fn$
DECLARE
    thr float8 := lg.check_threshold(threshold);
    hib boolean;
BEGIN
    PERFORM lg.check_args(rank.dimension, rank.metric, rank.filter);
    SELECT m.higher_is_better INTO hib FROM lg.metric m WHERE m.metric = rank.metric;
    RETURN QUERY
    WITH p AS (
        SELECT x.key ->> 'profile' AS pr, x.key ->> 'direction' AS di, x.key ->> 'protocol' AS po,
               (x.key ->> 'threads')::integer AS th, (x.key ->> 'qd')::integer AS q,
               CASE WHEN rank.dimension IS NULL
                    THEN (SELECT coalesce(string_agg(e.key || '=' || e.value, ',' ORDER BY e.key),
                                          '(no labels)')
                          FROM jsonb_each_text(x.key - 'profile' - 'direction' - 'protocol'
                                               - 'threads' - 'qd') e)
                    ELSE x.dim_value END AS cfg,
               x.value, x.run_id, x.direction AS rdir
        FROM lg.metric_figures(coalesce(rank.dimension, 'campaign'), rank.metric, rank.filter,
                               rank.campaigns, NULL) x),
    agg AS (SELECT p.pr, p.di, p.po, p.th, p.q, p.cfg, avg(p.value) AS v,
                   count(*)::integer AS cnt, stddev_samp(p.value) AS sd,
                   CASE WHEN count(*) = 1 THEN max(p.run_id) END AS rid, max(p.rdir) AS dir
            FROM p GROUP BY p.pr, p.di, p.po, p.th, p.q, p.cfg),
    st AS (
        SELECT a.*,
               CASE WHEN a.cnt >= 2 THEN a.sd / sqrt(a.cnt) ELSE rn.se END AS se,
               CASE WHEN a.cnt >= 2 THEN a.cnt - 1 ELSE rn.df END AS df,
               CASE WHEN a.cnt >= 2 THEN 'repeats'
                    WHEN rn.se IS NOT NULL THEN 'batch means' END AS how
        FROM agg a
        LEFT JOIN LATERAL lg.run_noise(a.rid, a.dir, rank.metric) rn ON true),
    ranked AS (
        SELECT s.*, rank() OVER w AS rk, first_value(s.v) OVER w AS lv,
               first_value(s.se) OVER w AS lse, first_value(s.df) OVER w AS ldf
        FROM st s
        WINDOW w AS (PARTITION BY s.pr, s.di, s.po, s.th, s.q
                     ORDER BY CASE WHEN hib THEN -s.v ELSE s.v END)),
    tested AS (
        SELECT r.*,
               CASE WHEN r.lv <> 0 THEN (CASE WHEN hib THEN (r.v - r.lv) / r.lv
                                              ELSE (r.lv - r.v) / r.lv END) * 100 END AS gap,
               lg.t_quantile(0.975, r.df) * r.se AS half,
               w.p_value AS pv,
               CASE WHEN hib THEN w.ci_low ELSE -w.ci_high END AS glo,
               CASE WHEN hib THEN w.ci_high ELSE -w.ci_low END AS ghi
        FROM ranked r
        LEFT JOIN LATERAL lg.welch(r.v - r.lv, r.se, r.df, r.lse, r.ldf) w ON r.rk > 1),
    verdict AS (
        SELECT t.*,
               CASE WHEN t.rk = 1 THEN 'leader'
                    WHEN t.v = t.lv THEN 'same'
                    WHEN abs(t.gap) < thr THEN 'same'
                    WHEN t.glo <= 0 AND t.ghi >= 0 THEN 'same'
                    ELSE 'behind' END AS verdict
        FROM tested t)
    SELECT r.pr, r.di, r.po, r.th, r.q, r.rk::integer, r.cfg, r.v, r.cnt, r.lv, r.gap,
           CASE WHEN r.lv <> 0 THEN r.v / r.lv END,
           r.v - r.half, r.v + r.half, r.how, r.pv,
           CASE WHEN r.lv > 0 THEN r.glo / r.lv * 100 END,
           CASE WHEN r.lv > 0 THEN r.ghi / r.lv * 100 END,
           r.verdict,
           CASE WHEN r.verdict = 'same' THEN '~'
                WHEN r.verdict = 'behind' THEN lg.pct_text(r.gap) END
    FROM verdict r
    ORDER BY r.pr, r.di, r.po, r.th, r.q, r.rk, r.cfg;
END
$fn$;

CREATE FUNCTION lg.rank(metric text, filter jsonb DEFAULT '{}', campaigns text[] DEFAULT NULL,
                        dimension text DEFAULT NULL)
RETURNS TABLE (profile text, direction text, protocol text, threads integer, qd integer,
               rank integer, config text, value float8, n integer, leader_value float8,
               gap_pct float8, ratio float8, ci_low float8, ci_high float8, ci_method text,
               p_value float8, gap_ci_low_pct float8, gap_ci_high_pct float8, status text,
               change text)
LANGUAGE sql STABLE AS $$
    SELECT * FROM lg.rank(metric, filter, campaigns, dimension, 0::float8)
$$;

-- Readers call these as their owner (008_reader): the samples and runs are not theirs to read.
ALTER FUNCTION lg.batch_means(bigint, text, text) SECURITY DEFINER SET search_path = pg_catalog, lg;
ALTER FUNCTION lg.run_noise(bigint, text, text) SECURITY DEFINER SET search_path = pg_catalog, lg;
ALTER FUNCTION lg.metric_figures(text, text, jsonb, text[], text[])
    SECURITY DEFINER SET search_path = pg_catalog, lg;
ALTER FUNCTION lg.metric_points(text, text, jsonb, text[], text[])
    SECURITY DEFINER SET search_path = pg_catalog, lg;
ALTER FUNCTION lg.compare(text, text, text, jsonb, text[], text[], float8)
    SECURITY DEFINER SET search_path = pg_catalog, lg;
ALTER FUNCTION lg.compare(text, text, text, jsonb, text[], text[])
    SECURITY DEFINER SET search_path = pg_catalog, lg;
ALTER FUNCTION lg.compare(text, text, text, jsonb, text[])
    SECURITY DEFINER SET search_path = pg_catalog, lg;
ALTER FUNCTION lg.rank(text, jsonb, text[], text, float8)
    SECURITY DEFINER SET search_path = pg_catalog, lg;
ALTER FUNCTION lg.rank(text, jsonb, text[], text) SECURITY DEFINER SET search_path = pg_catalog, lg;
