-- chart: bar
-- title: Application throughput per SUT config
-- subtitle: {workload} per agent; TPS of all agents together, {runtime} per run
-- x: profile
-- x-title: Application profile
-- y: tps
-- y-title: TPS
-- series: config
-- unit: tx/s
-- sort: none
-- ci: ci_low ci_high
-- # Application runs only (pgbench, sysbench oltp_read_write): the tools' final TPS summed over
-- # the agents (lg.v_metric, metric tps), mean over repeats of the measured runs; one group per
-- # application profile, a bar per SUT config. With repeats (runs > 1) the 95% confidence
-- # interval of that mean, t(0.975, runs - 1) s / sqrt(runs) as lg.compare has it
-- # (schema/017_compare_noise.sql), drawn as an error bar. A campaign without application runs
-- # gets no chart.
WITH f AS (
    SELECT m.profile,
           lg.sut_short(m.labels) AS config,
           avg(m.value) AS tps, count(*) AS runs, stddev_samp(m.value) AS sd,
           r.app || ' ' || r.threads
                 || CASE WHEN r.app = 'pgbench' THEN ' clients' ELSE ' threads' END AS workload,
           r.runtime_s || ' s' AS runtime, min(r.ordinal) AS first
    FROM lg.v_metric m
    JOIN lg.v_run r USING (run_id)
    WHERE (:campaign IS NULL OR m.campaign = :campaign) AND m.source = 'run'
      AND m.direction = 'txn' AND m.metric = 'tps' AND r.app IS NOT NULL
    GROUP BY m.profile, m.labels, r.app, r.threads, r.runtime_s)
SELECT f.profile, f.config, f.tps, f.workload, f.runtime, f.runs,
       f.tps - h.half AS ci_low, f.tps + h.half AS ci_high
FROM f
CROSS JOIN LATERAL (SELECT CASE WHEN f.runs > 1 -- t is undefined for 0 degrees of freedom
                            THEN lg.t_quantile(0.975, f.runs - 1) * f.sd / sqrt(f.runs) END
                       AS half) h
ORDER BY f.profile, f.first, f.config;
