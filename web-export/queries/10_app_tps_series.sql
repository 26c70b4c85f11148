-- chart: timeseries
-- title: Application throughput over the run
-- subtitle: {workload} per agent; TPS of all agents together, second by second
-- x: second
-- x-title: Seconds into the run
-- y: tps
-- y-title: TPS
-- series: config
-- unit: tx/s
-- # Application runs only (pgbench, sysbench oltp_read_write): the tools' per-second reports
-- # summed over the agents (lg.v_app_series), only the seconds every agent of the run reported
-- # (a second only some agents reported would dip for no reason of the SUT's). One line per SUT
-- # config, and per profile when the campaign ran several application profiles, and per repeat
-- # when it repeated them. A campaign without application runs gets no chart.
WITH app_runs AS (
    SELECT r.run_id, r.profile, r.repeat, r.app, r.threads, lg.sut_short(s.labels) AS sut
    FROM lg.v_run r
    JOIN lg.v_campaign c USING (campaign_id)
    JOIN lg.v_sut_config s USING (sut_config_id)
    WHERE (:campaign IS NULL OR c.name = :campaign) AND r.app IS NOT NULL
      AND r.phase = 'measure' AND r.state = 'done'),
runs AS (
    SELECT a.*, (SELECT count(DISTINCT b.profile) FROM app_runs b) AS profiles,
           max(a.repeat) OVER () AS repeats
    FROM app_runs a),
full_seconds AS (
    SELECT x.*, max(x.agents) OVER (PARTITION BY x.run_id) AS run_agents
    FROM lg.v_app_series x
    WHERE x.run_id IN (SELECT run_id FROM runs))
SELECT u.sut || CASE WHEN u.profiles > 1 THEN ' · ' || u.profile ELSE '' END
             || CASE WHEN u.repeats > 1 THEN ' · repeat ' || u.repeat ELSE '' END AS config,
       x.seq AS second, x.tps,
       u.app || ' ' || u.threads
             || CASE WHEN u.app = 'pgbench' THEN ' clients' ELSE ' threads' END AS workload
FROM runs u
JOIN full_seconds x USING (run_id)
WHERE x.agents = x.run_agents
ORDER BY config, x.seq;
