-- chart: hbar
-- title: 4K random read/write IOPS
-- subtitle: 4 KiB random at {load}, {runtime} per run
-- x: config
-- x-title: SUT config
-- y: iops
-- y-title: IOPS
-- series: series
-- unit: IOPS
-- sort: none
-- caveat: caveat
-- ci: ci_low ci_high
-- # Every point measured (lg.v_point: a failed one has no figure, drawn as missing; its caveats,
-- # e.g. a saturated load host, go under the chart). The headline load point only (the spec's
-- # threads x qd; never an average over a sweep's load points), mean over repeats of the measured
-- # runs, per SUT config, protocol and direction; with repeats (runs > 1) the 95% confidence
-- # interval of that mean, t(0.975, runs - 1) s / sqrt(runs) as lg.compare has it
-- # (schema/017_compare_noise.sql), drawn as an error bar.
WITH f AS (
    SELECT lg.sut_short(v.labels) AS config,
           v.direction || ' · ' || v.protocol AS series,
           avg(v.iops) AS iops, count(v.iops) AS runs, stddev_samp(v.iops) AS sd,
           v.threads || 'T' || v.qd || 'Q' AS load,
           v.runtime_s || ' s' AS runtime, v.config AS config_ordinal, v.direction, v.protocol,
           lg.caveat_json(string_agg(v.caveat, E'\n' ORDER BY v.ordinal)) AS caveat
    FROM lg.v_point v
    WHERE (:campaign IS NULL OR v.campaign = :campaign) AND v.phase = 'measure'
      AND v.profile = '4k-rand' AND v.headline
    GROUP BY v.config, v.labels, v.protocol, v.direction, v.threads, v.qd, v.runtime_s)
SELECT f.config, f.series, f.iops, f.load, f.runtime, f.runs,
       f.iops - h.half AS ci_low, f.iops + h.half AS ci_high, f.caveat
FROM f
CROSS JOIN LATERAL (SELECT CASE WHEN f.runs > 1 -- t is undefined for 0 degrees of freedom
                            THEN lg.t_quantile(0.975, f.runs - 1) * f.sd / sqrt(f.runs) END
                       AS half) h
ORDER BY f.config_ordinal, f.direction, f.protocol;
