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
-- # Application runs only (pgbench, sysbench oltp_read_write): the tools' final TPS summed over
-- # the agents (lg.v_metric, metric tps), mean over repeats of the measured runs; one group per
-- # application profile, a bar per SUT config. A campaign without application runs gets no chart.
SELECT m.profile,
       lg.sut_short(m.labels) AS config,
       avg(m.value) AS tps,
       r.app || ' ' || r.threads
             || CASE WHEN r.app = 'pgbench' THEN ' clients' ELSE ' threads' END AS workload,
       r.runtime_s || ' s' AS runtime
FROM lg.v_metric m
JOIN lg.v_run r USING (run_id)
WHERE (:campaign IS NULL OR m.campaign = :campaign) AND m.source = 'run'
  AND m.direction = 'txn' AND m.metric = 'tps' AND r.app IS NOT NULL
GROUP BY m.profile, m.labels, r.app, r.threads, r.runtime_s
ORDER BY m.profile, min(r.ordinal), config;
