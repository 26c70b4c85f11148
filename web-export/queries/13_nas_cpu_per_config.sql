-- chart: hbar
-- title: NAS CPU busy per SUT config: {profile}
-- subtitle: {profile} at {load}, mean CPU busy of the measured window, {runtime} per run
-- x: config
-- x-title: SUT config
-- y: cpu_busy_pct
-- y-title: NAS CPU busy
-- unit: %
-- series: series
-- sort: none
-- ci: ci_low ci_high
-- caveat: caveat
-- lower-is-better
-- each: profile
-- # One chart per profile: the headline load point only (as the IOPS charts), per SUT config,
-- # protocol and direction (and telemetry source when the campaign scraped several), the mean
-- # over repeats of each measured run's NAS CPU busy over its measured window
-- # (lg.v_sut_run.cpu_busy_pct_mean); with repeats (runs > 1) the 95% confidence interval of that
-- # mean, t(0.975, runs - 1) s / sqrt(runs) as lg.compare has it (schema/017_compare_noise.sql),
-- # drawn as an error bar. Runs without telemetry are left out; a campaign without any gets no
-- # chart. Each run's caveats (lg.v_point: a saturated load host, a steady state not reached) go
-- # under the chart.
WITH cpu AS (
    SELECT r.run_id, r.profile, r.direction, r.protocol, r.threads, r.qd, r.runtime_s,
           r.config_ordinal, s.labels, u.source, u.cpu_busy_pct_mean, r.ordinal,
           (SELECT string_agg(v.caveat, E'\n') FROM lg.v_point v WHERE v.run_id = r.run_id)
               AS caveat
    FROM lg.v_run r
    JOIN lg.v_campaign c USING (campaign_id)
    JOIN lg.v_sut_config s USING (sut_config_id)
    JOIN lg.v_sut_run u USING (run_id)
    WHERE (:campaign IS NULL OR c.name = :campaign) AND r.phase = 'measure' AND r.state = 'done'
      AND r.headline AND u.cpu_busy_pct_mean IS NOT NULL),
n AS (SELECT count(DISTINCT source) AS sources FROM cpu),
f AS (
    SELECT x.profile, lg.sut_short(x.labels) AS config,
           x.direction || ' · ' || x.protocol
               || CASE WHEN n.sources > 1 THEN ' · ' || x.source ELSE '' END AS series,
           avg(x.cpu_busy_pct_mean) AS cpu_busy_pct, count(*) AS runs,
           stddev_samp(x.cpu_busy_pct_mean) AS sd,
           x.threads || 'T' || x.qd || 'Q' AS load, x.runtime_s || ' s' AS runtime,
           x.config_ordinal, x.direction, x.protocol, x.source,
           lg.caveat_json(string_agg(x.caveat, E'\n' ORDER BY x.ordinal)) AS caveat
    FROM cpu x CROSS JOIN n
    GROUP BY x.profile, x.config_ordinal, x.labels, x.protocol, x.direction, x.source, n.sources,
             x.threads, x.qd, x.runtime_s)
SELECT f.profile, f.config, f.series, f.cpu_busy_pct, f.load, f.runtime, f.runs,
       f.cpu_busy_pct - h.half AS ci_low, f.cpu_busy_pct + h.half AS ci_high, f.caveat
FROM f
CROSS JOIN LATERAL (SELECT CASE WHEN f.runs > 1 -- t is undefined for 0 degrees of freedom
                            THEN lg.t_quantile(0.975, f.runs - 1) * f.sd / sqrt(f.runs) END
                       AS half) h
ORDER BY f.profile, f.config_ordinal, f.direction, f.protocol, f.source;
