-- lg.rank: function (schema/views: re-created by lgctl db migrate; see schema/README.md)
-- As 007's lg.rank, and for each configuration the 95% interval of its mean (ci_low, ci_high,
-- ci_method as in lg.compare), and against the leader Welch's p-value and the 95% interval of
-- the gap in percent of the leader, in the better direction (gap_ci_low_pct, gap_ci_high_pct).
-- status: 'leader' (rank 1), 'same' (change '~': as good as the leader within the noise or the
-- threshold), 'untested' (a gap over the threshold where a side has no interval: not shown to be
-- behind) or 'behind' (change: the gap as '-25.0%'). By a dimension, the values are ranked
-- within each set of the other labels too (config: 'smb (compression=lz4)'): configurations that
-- differ in another label are never pooled as if they were repeats. A configuration with figures
-- for a profile, direction and protocol but none at one of its load points (a point that failed:
-- lg.v_failed_point) has a row there of its own, status 'missing' (rank, value NULL; change
-- 'missing'), after the ranked ones: a leader alone at a point says who it did not run against.
-- qd_short: a run the value rests on ran far below its queue depth (lgctl rank's "!"). The
-- figures come summed up per configuration and point (lg.metric_groups): over all campaigns of a
-- lab's database, every later step works on groups, not figures. A changed column list needs the
-- functions dropped first (lgctl calls them; no view does).
DROP FUNCTION IF EXISTS lg.rank(text, jsonb, text[], text);
DROP FUNCTION IF EXISTS lg.rank(text, jsonb, text[], text, float8);
CREATE FUNCTION lg.rank(metric text, filter jsonb, campaigns text[], dimension text,
                        threshold float8)
RETURNS TABLE (profile text, direction text, protocol text, threads integer, qd integer,
               rank integer, config text, value float8, n integer, leader_value float8,
               gap_pct float8, ratio float8, ci_low float8, ci_high float8, ci_method text,
               p_value float8, gap_ci_low_pct float8, gap_ci_high_pct float8, status text,
               change text, qd_short boolean)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, lg, pg_temp STABLE AS $fn$
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
               -- by a dimension: the other labels part configurations, never pooled as repeats
               CASE WHEN rank.dimension IS NULL THEN '{}'::jsonb
                    ELSE x.key - 'profile' - 'direction' - 'protocol' - 'threads' - 'qd' END AS lb,
               x.n, x.mean, x.sd, x.run_id, x.direction AS rdir, x.qd_short
        FROM lg.metric_groups(rank.dimension, rank.metric, rank.filter, rank.campaigns) x),
    -- a group of lg.metric_groups is one configuration at one point: its labels (with no
    -- dimension) or its dimension value and other labels (by one) and its run fields
    agg0 AS (SELECT p.pr, p.di, p.po, p.th, p.q, p.lb, p.cfg, p.mean AS v, p.n AS cnt, p.sd,
                    p.run_id AS rid, p.rdir AS dir, p.qd_short AS short,
                    count(*) OVER (PARTITION BY p.pr, p.di, p.po, p.th, p.q) AS gn,
                    row_number() OVER () AS id
             FROM p),
    -- the other labels that differ within a group of run fields: named beside the value
    vary AS (SELECT a.pr, a.di, a.po, a.th, a.q, k.key
             FROM agg0 a, jsonb_object_keys(a.lb) k(key)
             GROUP BY a.pr, a.di, a.po, a.th, a.q, k.key
             HAVING count(DISTINCT a.lb ->> k.key) > 1 OR count(*) < max(a.gn)),
    -- per configuration, those of its labels that vary in its group: a hash join on the group
    -- (NULL fields as '' or -1), not a scan of every varying label per configuration (42 s of a
    -- rank by campaign over 100,000 runs)
    named AS (SELECT a.id, string_agg(y.key || '=' || (a.lb ->> y.key), ',' ORDER BY y.key) AS o
              FROM agg0 a
              JOIN vary y ON coalesce(y.pr, '') = coalesce(a.pr, '')
                         AND coalesce(y.di, '') = coalesce(a.di, '')
                         AND coalesce(y.po, '') = coalesce(a.po, '')
                         AND coalesce(y.th, -1) = coalesce(a.th, -1)
                         AND coalesce(y.q, -1) = coalesce(a.q, -1)
              WHERE a.lb ? y.key
              GROUP BY a.id),
    agg AS (SELECT a.pr, a.di, a.po, a.th, a.q, a.lb, a.cfg || coalesce(' (' || n.o || ')', '') AS cfg,
                   a.v, a.cnt, a.sd, a.rid, a.dir, a.short
            FROM agg0 a
            LEFT JOIN named n ON n.id = a.id),
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
        WINDOW w AS (PARTITION BY s.pr, s.di, s.po, s.th, s.q, s.lb
                     ORDER BY CASE WHEN hib THEN -s.v ELSE s.v END)),
    -- Student's t once per degrees of freedom, not once per configuration: MATERIALIZED, or the
    -- planner flattens it and calls lg.t_quantile in the join's output, once a row (5 s of a rank
    -- by campaign over 200,000 runs)
    tq AS MATERIALIZED (SELECT d.df, lg.t_quantile(0.975, d.df) AS t
           FROM (SELECT DISTINCT s.df FROM st s WHERE s.df IS NOT NULL) d),
    -- Welch's test against the leader once per distinct gap and noise of the two sides (not the
    -- leader's own): repeats and copies of a review give many alike, and each call is a function
    -- of its own (7 s of a rank by campaign over 200,000 runs as a call per configuration).
    -- NULL noise keyed as -1 so that the join hashes.
    wk AS (SELECT DISTINCT r.v - r.lv AS d, coalesce(r.se, -1) AS se, coalesce(r.df, -1) AS df,
                  coalesce(r.lse, -1) AS lse, coalesce(r.ldf, -1) AS ldf
           FROM ranked r WHERE r.rk > 1),
    wt AS MATERIALIZED (SELECT k.*, w.p_value, w.ci_low, w.ci_high
           FROM wk k
           CROSS JOIN LATERAL lg.welch(k.d, nullif(k.se, -1), nullif(k.df, -1), nullif(k.lse, -1),
                                       nullif(k.ldf, -1)) w),
    tested AS (
        SELECT r.*,
               CASE WHEN r.lv <> 0 THEN (CASE WHEN hib THEN (r.v - r.lv) / r.lv
                                              ELSE (r.lv - r.v) / r.lv END) * 100 END AS gap,
               tq.t * r.se AS half,
               w.p_value AS pv,
               CASE WHEN hib THEN w.ci_low ELSE -w.ci_high END AS glo,
               CASE WHEN hib THEN w.ci_high ELSE -w.ci_low END AS ghi
        FROM ranked r
        LEFT JOIN tq ON tq.df = r.df
        LEFT JOIN wt w ON r.rk > 1 AND w.d = r.v - r.lv AND w.se = coalesce(r.se, -1)
                      AND w.df = coalesce(r.df, -1) AND w.lse = coalesce(r.lse, -1)
                      AND w.ldf = coalesce(r.ldf, -1)),
    verdict AS (
        SELECT t.*,
               CASE WHEN t.rk = 1 THEN 'leader'
                    WHEN t.v = t.lv THEN 'same'
                    WHEN abs(t.gap) < thr THEN 'same'
                    WHEN t.glo IS NULL THEN 'untested'
                    WHEN t.glo <= 0 AND t.ghi >= 0 THEN 'same'
                    ELSE 'behind' END AS verdict
        FROM tested t),
    -- the configurations of a profile, direction and protocol (and other labels) without
    -- figures at one of its load points
    -- (hash joins and EXCEPT, whose rows compare NULLs as equal: no pairwise scan)
    grp AS (SELECT DISTINCT a.pr, a.di, a.po, a.th, a.q, a.lb FROM agg0 a),
    miss AS (
        SELECT g.pr, g.di, g.po, g.th, g.q, g.lb, o.cfg
        FROM grp g
        JOIN (SELECT DISTINCT a.pr, a.di, a.po, a.lb, a.cfg FROM agg0 a) o
          ON coalesce(o.pr, '') = coalesce(g.pr, '') AND coalesce(o.di, '') = coalesce(g.di, '')
         AND coalesce(o.po, '') = coalesce(g.po, '') AND o.lb = g.lb
        EXCEPT
        SELECT a.pr, a.di, a.po, a.th, a.q, a.lb, a.cfg FROM agg0 a),
    rows AS (
        SELECT r.pr, r.di, r.po, r.th, r.q, r.lb, r.rk::integer AS rk, r.cfg, r.v, r.cnt, r.lv,
               r.gap, CASE WHEN r.lv <> 0 THEN r.v / r.lv END AS ratio,
               r.v - r.half AS lo, r.v + r.half AS hi, r.how, r.pv,
               CASE WHEN r.lv > 0 THEN r.glo / r.lv * 100 END AS glo_pct,
               CASE WHEN r.lv > 0 THEN r.ghi / r.lv * 100 END AS ghi_pct,
               r.verdict,
               CASE WHEN r.verdict = 'same' THEN '~'
                    WHEN r.verdict IN ('behind', 'untested') THEN lg.pct_text(r.gap) END AS chg,
               coalesce(r.short, false) AS short
        FROM verdict r
        UNION ALL
        SELECT m.pr, m.di, m.po, m.th, m.q, m.lb, NULL::integer, m.cfg, NULL::float8, 0, NULL,
               NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 'missing', 'missing', false
        FROM miss m)
    SELECT u.pr, u.di, u.po, u.th, u.q, u.rk, u.cfg, u.v, u.cnt, u.lv, u.gap, u.ratio, u.lo,
           u.hi, u.how, u.pv, u.glo_pct, u.ghi_pct, u.verdict, u.chg, u.short
    FROM rows u
    ORDER BY u.pr, u.di, u.po, u.th, u.q, u.lb::text, u.rk NULLS LAST, u.cfg;
END
$fn$;

CREATE FUNCTION lg.rank(metric text, filter jsonb DEFAULT '{}', campaigns text[] DEFAULT NULL,
                        dimension text DEFAULT NULL)
RETURNS TABLE (profile text, direction text, protocol text, threads integer, qd integer,
               rank integer, config text, value float8, n integer, leader_value float8,
               gap_pct float8, ratio float8, ci_low float8, ci_high float8, ci_method text,
               p_value float8, gap_ci_low_pct float8, gap_ci_high_pct float8, status text,
               change text, qd_short boolean)
LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, lg, pg_temp STABLE AS $$
    SELECT * FROM lg.rank(metric, filter, campaigns, dimension, 0::float8)
$$;
