-- 020_app: application benchmarks beside fio's workloads. A run with app set ran pgbench (against
-- a private PostgreSQL) or sysbench oltp_read_write (against a private MariaDB) on each of its
-- agents, the server's data in a folder on the target; app_params holds the data set (scale;
-- tables and table_size) and keep. Its figures are the tools' own: per second in lg.app_sample,
-- the final totals (and the tool's whole output, verbatim) in lg.app_result, one row per agent.
-- Merged over agents (lg.v_app_result, lg.v_app_series):
--   exact:  transactions, queries and failures add; TPS and QPS add (the agents start together);
--           the average latency is the transaction-weighted mean of the agents' averages; the
--           standard deviation (pgbench) is pooled from each agent's mean, stddev and count; the
--           minimum and maximum are the least and greatest.
--   not:    a percentile (sysbench's p95/p99) cannot be merged from the agents' percentiles: the
--           merged lat_pct_ms is the agent's own with one agent and NULL with several, and
--           lat_pct_max_ms (the worst agent's) is kept beside it, named as what it is.
ALTER TABLE lg.run
    ADD COLUMN app        text CHECK (app IN ('pgbench', 'sysbench-oltp')),
    ADD COLUMN app_params jsonb;

CREATE TABLE lg.app_sample (
    run_id        bigint NOT NULL REFERENCES lg.run ON DELETE CASCADE,
    agent_id      bigint NOT NULL REFERENCES lg.agent,
    seq           integer NOT NULL,
    t_ms          bigint NOT NULL,           -- end of the interval, agent clock (ms since 1970)
    interval_ms   bigint NOT NULL,
    tps           double precision,
    qps           double precision,          -- sysbench; NULL for pgbench
    read_qps      double precision,
    write_qps     double precision,
    other_qps     double precision,
    lat_avg_ms    double precision,          -- pgbench; NULL for sysbench
    lat_stddev_ms double precision,          -- pgbench
    lat_pct_ms    double precision,          -- sysbench: the pct-th percentile of the second
    pct           integer,
    err_ps        double precision,          -- sysbench ignored errors per second
    reconn_ps     double precision,
    failed        double precision,          -- pgbench failed transactions in the interval
    threads       integer,
    PRIMARY KEY (run_id, agent_id, seq)
);

CREATE TABLE lg.app_result (
    run_id        bigint NOT NULL REFERENCES lg.run ON DELETE CASCADE,
    agent_id      bigint NOT NULL REFERENCES lg.agent,
    kind          text NOT NULL,
    transactions  bigint NOT NULL,
    tps           double precision NOT NULL,
    qps           double precision,
    queries       bigint,
    reads         bigint,
    writes        bigint,
    others        bigint,
    lat_avg_ms    double precision,
    lat_stddev_ms double precision,
    lat_min_ms    double precision,
    lat_max_ms    double precision,
    lat_pct_ms    double precision,
    pct           integer,
    failed        bigint NOT NULL DEFAULT 0, -- pgbench failed transactions; sysbench ignored errors
    reconnects    bigint,
    duration_s    double precision,
    threads       integer,
    scale         integer,
    prepare_ms    bigint,                    -- making the server and loading the data set
    tool_exit     integer,
    output        text NOT NULL,             -- the tool's output, verbatim
    PRIMARY KEY (run_id, agent_id)
);

INSERT INTO lg.metric VALUES ('tps', 'tx/s', true, 14), ('qps', 'queries/s', true, 15);

CREATE OR REPLACE VIEW lg.v_run AS SELECT * FROM lg.run;

-- The merged figures of each application run (see above for which merges are exact).
CREATE VIEW lg.v_app_result AS
SELECT x.run_id, min(x.kind) AS kind, count(*)::integer AS agents,
       sum(x.transactions)::bigint AS transactions, sum(x.tps) AS tps, sum(x.qps) AS qps,
       sum(x.queries)::bigint AS queries, sum(x.failed)::bigint AS failed,
       sum(x.transactions * x.lat_avg_ms) / nullif(sum(x.transactions), 0) AS lat_avg_ms,
       sqrt(greatest(0,
           sum(x.transactions * (x.lat_stddev_ms ^ 2 + x.lat_avg_ms ^ 2))
               / nullif(sum(x.transactions), 0)
           - (sum(x.transactions * x.lat_avg_ms) / nullif(sum(x.transactions), 0)) ^ 2))
           AS lat_stddev_ms,
       min(x.lat_min_ms) AS lat_min_ms, max(x.lat_max_ms) AS lat_max_ms,
       CASE WHEN count(*) = 1 THEN min(x.lat_pct_ms) END AS lat_pct_ms,
       max(x.lat_pct_ms) AS lat_pct_max_ms, min(x.pct) AS pct,
       max(x.prepare_ms) AS prepare_ms, max(x.duration_s) AS duration_s
FROM lg.app_result x
GROUP BY x.run_id;

-- The merged time series: per second of the run (seq), over the agents that reported it.
CREATE VIEW lg.v_app_series AS
SELECT s.run_id, s.seq, count(*)::integer AS agents, sum(s.tps) AS tps, sum(s.qps) AS qps,
       sum(s.tps * s.lat_avg_ms) / nullif(sum(s.tps) FILTER (WHERE s.lat_avg_ms IS NOT NULL), 0)
           AS lat_avg_ms,
       max(s.lat_pct_ms) AS lat_pct_max_ms, min(s.pct) AS pct,
       sum(s.err_ps) AS err_ps, sum(s.failed) AS failed
FROM lg.app_sample s
GROUP BY s.run_id, s.seq;

-- v_metric as in 018, and the application runs' figures (direction 'txn'): tps, qps, latency
-- average/stddev/min/max and the tool's percentile as p95_ms or p99_ms (with one agent only).
CREATE OR REPLACE VIEW lg.v_metric AS
SELECT c.campaign_id, c.name AS campaign, 'run'::text AS source, r.run_id, NULL::integer AS line,
       s.sut_config_id,
       s.labels || CASE WHEN r.curve_pct IS NOT NULL
                        THEN jsonb_build_object('curve', r.curve_pct || '%')
                        WHEN r.rate_total > 0 THEN jsonb_build_object('rate', r.rate_total::text)
                        ELSE '{}'::jsonb END AS labels,
       r.profile, x.direction, r.protocol, r.threads, r.qd,
       r.repeat, m.metric, m.value
FROM lg.result x
JOIN lg.run r USING (run_id)
JOIN lg.campaign c USING (campaign_id)
JOIN lg.sut_config s USING (sut_config_id)
CROSS JOIN LATERAL (VALUES
    ('iops', x.iops), ('mbps', x.bw_bytes / 1e6),
    ('lat_avg_ms', x.lat_mean / 1e6), ('lat_min_ms', x.lat_min / 1e6),
    ('lat_max_ms', x.lat_max / 1e6), ('lat_stddev_ms', x.lat_stddev / 1e6),
    ('p50_ms', (x.percentiles ->> '50.000000')::float8 / 1e6),
    ('p90_ms', (x.percentiles ->> '90.000000')::float8 / 1e6),
    ('p95_ms', (x.percentiles ->> '95.000000')::float8 / 1e6),
    ('p99_ms', (x.percentiles ->> '99.000000')::float8 / 1e6),
    ('p99_9_ms', (x.percentiles ->> '99.900000')::float8 / 1e6),
    ('p99_99_ms', (x.percentiles ->> '99.990000')::float8 / 1e6)) m(metric, value)
WHERE x.agent_id IS NULL AND r.state = 'done' AND r.phase = 'measure' AND m.value IS NOT NULL
UNION ALL
SELECT c.campaign_id, c.name, 'import', NULL, f.line, s.sut_config_id, s.labels, f.profile,
       f.direction, f.protocol, f.threads, f.qd, 1, f.metric, f.value
FROM lg.imported_figure f
JOIN lg.campaign c USING (campaign_id)
JOIN lg.sut_config s USING (sut_config_id)
UNION ALL
SELECT c.campaign_id, c.name, 'search', s.good_run_id, NULL, s.sut_config_id,
       sc.labels || jsonb_build_object('search', s.metric || '<=' || s.limit_ms || 'ms by '
                                                 || s.vary),
       s.profile, s.direction, s.protocol,
       CASE WHEN s.vary = 'threads' THEN NULL ELSE s.threads END,
       CASE WHEN s.vary = 'qd' THEN NULL ELSE s.qd END,
       1, 'iops_at_limit', s.iops_at_limit
FROM lg.search s
JOIN lg.campaign c USING (campaign_id)
JOIN lg.sut_config sc USING (sut_config_id)
WHERE s.iops_at_limit IS NOT NULL AND s.state IN ('knee', 'not-reached', 'steps')
UNION ALL
SELECT c.campaign_id, c.name, 'run', r.run_id, NULL, s.sut_config_id, s.labels, r.profile,
       r.direction, r.protocol, r.threads, r.qd, r.repeat, m.metric, m.value
FROM lg.v_app_result a
JOIN lg.run r USING (run_id)
JOIN lg.campaign c USING (campaign_id)
JOIN lg.sut_config s USING (sut_config_id)
CROSS JOIN LATERAL (VALUES
    ('tps', a.tps), ('qps', a.qps), ('lat_avg_ms', a.lat_avg_ms),
    ('lat_stddev_ms', a.lat_stddev_ms), ('lat_min_ms', a.lat_min_ms),
    ('lat_max_ms', a.lat_max_ms),
    ('p95_ms', CASE WHEN a.pct = 95 THEN a.lat_pct_ms END),
    ('p99_ms', CASE WHEN a.pct = 99 THEN a.lat_pct_ms END)) m(metric, value)
WHERE r.state = 'done' AND r.phase = 'measure' AND m.value IS NOT NULL;

-- Batch means as in 019, and for an application run's tps and qps those of its per-second
-- reports (summed over its agents), so a single run's TPS has an interval too.
CREATE OR REPLACE FUNCTION lg.batch_means(run_id bigint, direction text, metric text)
RETURNS TABLE (batch integer, seconds integer, value float8)
LANGUAGE sql STABLE STRICT AS $$
    WITH s AS (
        SELECT x.seq, count(*) AS agents,
               sum(x.ios * 1000.0 / x.interval_ms)::float8 AS iops,
               (sum(x.bytes * 1000.0 / x.interval_ms) / 1e6)::float8 AS mbps,
               sum(x.lat_sum) AS lat_sum, sum(x.lat_n) AS lat_n,
               NULL::float8 AS tps, NULL::float8 AS qps
        FROM lg.sample x
        WHERE x.run_id = batch_means.run_id
          AND (x.direction = batch_means.direction OR batch_means.metric = 'iops_at_limit')
          AND x.interval_ms > 0
          AND batch_means.metric IN ('iops', 'mbps', 'lat_avg_ms', 'iops_at_limit')
        GROUP BY x.seq
        UNION ALL
        SELECT a.seq, count(*), NULL, NULL, NULL, NULL, sum(a.tps), sum(a.qps)
        FROM lg.app_sample a
        WHERE a.run_id = batch_means.run_id AND batch_means.direction = 'txn'
          AND batch_means.metric IN ('tps', 'qps')
        GROUP BY a.seq),
    whole AS (
        SELECT s.*, row_number() OVER (ORDER BY s.seq) AS i, count(*) OVER () AS nsec
        FROM s WHERE s.agents = (SELECT max(s2.agents) FROM s s2)),
    k AS (SELECT w.*, least(10, w.nsec / 2) AS nb FROM whole w),
    b AS (SELECT k.*, k.nsec / k.nb AS bs FROM k WHERE k.nb >= 5)
    SELECT ((b.i - (b.nsec - b.nb * b.bs) - 1) / b.bs)::integer + 1, count(*)::integer,
           CASE batch_means.metric
               WHEN 'iops' THEN avg(b.iops)
               WHEN 'iops_at_limit' THEN avg(b.iops)
               WHEN 'mbps' THEN avg(b.mbps)
               WHEN 'tps' THEN avg(b.tps)
               WHEN 'qps' THEN avg(b.qps)
               ELSE sum(b.lat_sum) / nullif(sum(b.lat_n), 0) / 1e6 END
    FROM b
    WHERE b.i > b.nsec - b.nb * b.bs
    GROUP BY 1
    ORDER BY 1
$$;
ALTER FUNCTION lg.batch_means(bigint, text, text) SECURITY DEFINER SET search_path = pg_catalog, lg;

-- Readers read views only (008): every report and output row, per agent, of runs in any state.
CREATE VIEW lg.v_app_result_all AS SELECT * FROM lg.app_result;
CREATE VIEW lg.v_app_sample_all AS SELECT * FROM lg.app_sample;

GRANT SELECT ON lg.v_app_result, lg.v_app_series, lg.v_app_result_all, lg.v_app_sample_all,
    lg.v_run, lg.v_metric TO lg_reader, lg_writer;
GRANT SELECT, INSERT, UPDATE, DELETE ON lg.app_sample, lg.app_result TO lg_writer;
