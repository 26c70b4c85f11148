-- 025_telemetry: the NAS side of a run. The controller scrapes each telemetry source of a run (a
-- Prometheus text endpoint: node_exporter, FreeBSD's, windows_exporter, netdata) once before the
-- run, every interval from the run's start to its end, and once after, and stores the raw
-- counter and gauge values of each scrape with its send and receive instants (controller clock).
-- Rates are derived here, over the real time between two answered scrapes; a counter that went
-- down was reset (the new value is the delta); a missed scrape is a row with t_recv NULL and its
-- error, and its figures are NULL, never interpolated.
--
-- Keys (lg.sut_series.key), the same whatever the exporter:
--   cpu.<mode>         seconds in that mode summed over the CPUs (the modes partition time:
--                      Linux idle iowait irq nice softirq steal system user; FreeBSD idle
--                      interrupt nice system user; Windows idle user privileged)
--   cpu.count          CPUs seen
--   mem.avail, mem.total   bytes
--   disk.read.<dev>, disk.written.<dev>   bytes; disk.busy.<dev> seconds busy (or disk.idle.<dev>
--                      seconds idle, from windows_exporter); stacked devices (dm-, md, zd) are
--                      kept as vdisk.* and left out of the sums
--   net.rx.<dev>, net.tx.<dev>   bytes (loopback left out)
--   arc.hits, arc.misses, arc.size   ZFS ARC
--   x.<metric>{labels} a metric the source's metrics: asked for, verbatim
--
-- A config's reduction probe (its reduction: argv, run by the controller before the config's
-- first run and after its last) is stored in lg.reduction.

ALTER TABLE lg.run ADD COLUMN telemetry jsonb;  -- the sources its config scrapes ([] or NULL: none)
ALTER TABLE lg.run ADD COLUMN reduction jsonb;  -- its config's reduction: argv (NULL: none)

CREATE TABLE lg.sut_series (
    series_id  serial PRIMARY KEY,
    key        text NOT NULL UNIQUE
);

CREATE TABLE lg.sut_scrape (
    run_id     bigint NOT NULL REFERENCES lg.run ON DELETE CASCADE,
    source     text NOT NULL,
    seq        integer NOT NULL,            -- 0: the baseline before the run, then 1, 2, ...
    kind       text NOT NULL CHECK (kind IN ('before', 'during', 'after')),
    t_send     timestamptz NOT NULL,        -- the request went out (controller clock)
    t_recv     timestamptz,                 -- the answer was read; NULL: missed
    error      text,                        -- why it was missed
    series     integer[],                   -- lg.sut_series ids ...
    vals       double precision[],          -- ... and their values, in the same order
    PRIMARY KEY (run_id, source, seq)
);

CREATE TABLE lg.reduction (
    campaign_id     bigint NOT NULL REFERENCES lg.campaign ON DELETE CASCADE,
    config_ordinal  integer NOT NULL,
    phase           text NOT NULL CHECK (phase IN ('before', 'after')),
    at              timestamptz NOT NULL DEFAULT now(),
    logical_bytes   bigint,
    physical_bytes  bigint,
    output          text,                   -- what the probe printed (its end), verbatim
    error           text,                   -- why there are no figures
    PRIMARY KEY (campaign_id, config_ordinal, phase)
);

-- The ids of keys, in their order, adding the new ones.
CREATE FUNCTION lg.sut_series_ids(keys text[]) RETURNS integer[]
LANGUAGE sql SET search_path = pg_catalog, lg, pg_temp AS $$
    WITH ins AS (
        INSERT INTO lg.sut_series (key)
        SELECT DISTINCT k FROM unnest(sut_series_ids.keys) k
        ON CONFLICT (key) DO NOTHING
        RETURNING series_id, key)
    SELECT array_agg(coalesce(i.series_id, s.series_id) ORDER BY u.o)
    FROM unnest(sut_series_ids.keys) WITH ORDINALITY u(k, o)
    LEFT JOIN ins i ON i.key = u.k
    LEFT JOIN lg.sut_series s ON s.key = u.k
$$;

-- Each answered scrape's values with the change since the previous answered scrape of the same
-- key: t is the middle of the request, elapsed_s the time since that previous scrape's t.
CREATE VIEW lg.v_sut_delta AS
WITH v AS (
    SELECT s.run_id, s.source, s.seq, s.kind, s.t_send + (s.t_recv - s.t_send) / 2 AS t, k.key,
           u.val
    FROM lg.sut_scrape s
    CROSS JOIN LATERAL unnest(s.series, s.vals) AS u(id, val)
    JOIN lg.sut_series k ON k.series_id = u.id
    WHERE s.t_recv IS NOT NULL)
SELECT run_id, source, seq, kind, t, key, val,
       extract(epoch FROM t - lag(t) OVER w)::float8 AS elapsed_s,
       CASE WHEN lag(val) OVER w IS NULL THEN NULL
            WHEN val >= lag(val) OVER w THEN val - lag(val) OVER w
            ELSE val END AS delta
FROM v
WINDOW w AS (PARTITION BY run_id, source, key ORDER BY seq);

-- One row per scrape after the baseline: the NAS's figures over the time since the previous
-- answered scrape; a missed scrape's are NULL.
CREATE VIEW lg.v_sut_sample AS
WITH d AS (
    SELECT run_id, source, seq, t, max(elapsed_s) AS elapsed_s,
           sum(delta) FILTER (WHERE key LIKE 'cpu.%' AND key <> 'cpu.count') AS cpu_all,
           sum(delta) FILTER (WHERE key IN ('cpu.idle', 'cpu.iowait')) AS cpu_idle,
           sum(delta) FILTER (WHERE key = 'cpu.iowait') AS cpu_iowait,
           max(val) FILTER (WHERE key = 'mem.avail') AS mem_avail,
           max(val) FILTER (WHERE key = 'mem.total') AS mem_total,
           max(CASE WHEN key LIKE 'disk.busy.%' THEN delta / nullif(elapsed_s, 0)
                    WHEN key LIKE 'disk.idle.%' THEN 1 - delta / nullif(elapsed_s, 0) END)
               AS disk_busy,
           sum(delta / nullif(elapsed_s, 0)) FILTER (WHERE key LIKE 'disk.read.%') AS disk_read,
           sum(delta / nullif(elapsed_s, 0)) FILTER (WHERE key LIKE 'disk.written.%') AS disk_write,
           sum(delta / nullif(elapsed_s, 0)) FILTER (WHERE key LIKE 'net.rx.%') AS net_rx,
           sum(delta / nullif(elapsed_s, 0)) FILTER (WHERE key LIKE 'net.tx.%') AS net_tx,
           sum(delta) FILTER (WHERE key = 'arc.hits') AS arc_hits,
           sum(delta) FILTER (WHERE key = 'arc.misses') AS arc_misses,
           max(val) FILTER (WHERE key = 'arc.size') AS arc_size
    FROM lg.v_sut_delta
    GROUP BY run_id, source, seq, t)
SELECT s.run_id, s.source, s.seq, s.kind, coalesce(d.t, s.t_send) AS t, d.elapsed_s,
       100 * (1 - d.cpu_idle / nullif(d.cpu_all, 0)) AS cpu_busy_pct,
       100 * d.cpu_iowait / nullif(d.cpu_all, 0) AS cpu_iowait_pct,
       d.mem_avail AS mem_avail_bytes, d.mem_total AS mem_total_bytes,
       CASE WHEN d.disk_busy IS NOT NULL THEN 100 * least(1, greatest(0, d.disk_busy)) END
           AS disk_busy_pct_max,
       d.disk_read AS disk_read_bytes_s, d.disk_write AS disk_write_bytes_s,
       d.net_rx AS net_rx_bytes_s, d.net_tx AS net_tx_bytes_s,
       100 * d.arc_hits / nullif(d.arc_hits + d.arc_misses, 0) AS arc_hit_pct,
       d.arc_size AS arc_size_bytes, s.t_recv IS NULL AS missed, s.error
FROM lg.sut_scrape s
LEFT JOIN d USING (run_id, source, seq)
WHERE s.kind <> 'before';

-- The measured window of a run in the controller's clock: from fio's start (the earliest agent's,
-- lg.run_agent.started_us; else the run's start) plus the ramp, for the runtime. (A view, not a
-- function: the views below run with their owner's rights, which a function would not pass on.)
CREATE VIEW lg.v_run_window AS
SELECT r.run_id, b + make_interval(secs => r.ramp_s) AS w_start,
       b + make_interval(secs => r.ramp_s + r.runtime_s) AS w_end
FROM lg.run r,
     LATERAL (SELECT coalesce(to_timestamp(min(ra.started_us) / 1e6), r.started_at) AS b
              FROM lg.run_agent ra WHERE ra.run_id = r.run_id) x;

-- Per run and source, over the measured window: a scrape counts when the middle of the time it
-- covers lies in the window; means are weighted by that time.
CREATE VIEW lg.v_sut_run AS
SELECT x.run_id, x.source,
       sum(x.cpu_busy_pct * x.elapsed_s) / nullif(sum(x.elapsed_s) FILTER (
           WHERE x.cpu_busy_pct IS NOT NULL), 0) AS cpu_busy_pct_mean,
       max(x.cpu_busy_pct) AS cpu_busy_pct_max,
       sum(x.cpu_iowait_pct * x.elapsed_s) / nullif(sum(x.elapsed_s) FILTER (
           WHERE x.cpu_iowait_pct IS NOT NULL), 0) AS cpu_iowait_pct_mean,
       max(x.disk_busy_pct_max) AS disk_busy_pct_max,
       sum(x.disk_read_bytes_s * x.elapsed_s) / nullif(sum(x.elapsed_s) FILTER (
           WHERE x.disk_read_bytes_s IS NOT NULL), 0) AS disk_read_bytes_s,
       sum(x.disk_write_bytes_s * x.elapsed_s) / nullif(sum(x.elapsed_s) FILTER (
           WHERE x.disk_write_bytes_s IS NOT NULL), 0) AS disk_write_bytes_s,
       sum(x.net_rx_bytes_s * x.elapsed_s) / nullif(sum(x.elapsed_s) FILTER (
           WHERE x.net_rx_bytes_s IS NOT NULL), 0) AS net_rx_bytes_s,
       sum(x.net_tx_bytes_s * x.elapsed_s) / nullif(sum(x.elapsed_s) FILTER (
           WHERE x.net_tx_bytes_s IS NOT NULL), 0) AS net_tx_bytes_s,
       min(x.mem_avail_bytes) AS mem_avail_bytes_min,
       (SELECT 100 * sum(d.delta) FILTER (WHERE d.key = 'arc.hits')
               / nullif(sum(d.delta) FILTER (WHERE d.key IN ('arc.hits', 'arc.misses')), 0)
        FROM lg.v_sut_delta d
        WHERE d.run_id = x.run_id AND d.source = x.source
          AND d.t - make_interval(secs => d.elapsed_s / 2) BETWEEN w.w_start AND w.w_end)
           AS arc_hit_pct,
       count(*) FILTER (WHERE NOT x.missed) AS samples,
       count(*) FILTER (WHERE x.missed) AS missed,
       (array_agg(x.error ORDER BY x.seq) FILTER (WHERE x.missed))[1] AS first_error
FROM lg.v_sut_sample x
JOIN lg.v_run_window w USING (run_id)
WHERE (x.missed AND x.t BETWEEN w.w_start AND w.w_end)
   OR (NOT x.missed AND x.t - make_interval(secs => coalesce(x.elapsed_s, 0) / 2)
       BETWEEN w.w_start AND w.w_end)
GROUP BY x.run_id, x.source, w.w_start, w.w_end;

-- A config's reduction: what the NAS stored for what was written (the probe after the config's
-- last run), the probe before, and the ratio lg wrote (zstd per record as the agents read it
-- back, weighted by records; else the ratio the campaign asked for).
CREATE VIEW lg.v_reduction AS
SELECT c.campaign_id, c.name AS campaign, a.config_ordinal AS config, sc.labels,
       a.logical_bytes, a.physical_bytes,
       a.logical_bytes::float8 / nullif(a.physical_bytes, 0) AS achieved_ratio,
       (SELECT coalesce(sum(d.zstd * d.records) / nullif(sum(d.records) FILTER (
                            WHERE d.zstd IS NOT NULL), 0),
                        max(d.compress_asked))
        FROM lg.v_datacheck d WHERE d.campaign_id = c.campaign_id
          AND d.config = a.config_ordinal) AS written_ratio,
       b.logical_bytes AS logical_bytes_before, b.physical_bytes AS physical_bytes_before,
       a.logical_bytes - b.logical_bytes AS logical_bytes_added,
       a.physical_bytes - b.physical_bytes AS physical_bytes_added,
       coalesce(a.error, b.error) AS error, a.at
FROM lg.reduction a
JOIN lg.campaign c USING (campaign_id)
LEFT JOIN lg.reduction b ON b.campaign_id = a.campaign_id
     AND b.config_ordinal = a.config_ordinal AND b.phase = 'before'
LEFT JOIN LATERAL (SELECT r.sut_config_id FROM lg.run r WHERE r.campaign_id = a.campaign_id
                   AND r.config_ordinal = a.config_ordinal LIMIT 1) rr ON true
LEFT JOIN lg.sut_config sc ON sc.sut_config_id = rr.sut_config_id
WHERE a.phase = 'after';

GRANT SELECT, INSERT, UPDATE, DELETE ON lg.sut_series, lg.sut_scrape, lg.reduction TO lg_writer;
GRANT USAGE ON SEQUENCE lg.sut_series_series_id_seq TO lg_writer;
GRANT EXECUTE ON FUNCTION lg.sut_series_ids(text[]) TO lg_writer;
REVOKE EXECUTE ON FUNCTION lg.sut_series_ids(text[]) FROM PUBLIC;
GRANT SELECT ON lg.v_run_window, lg.v_sut_delta, lg.v_sut_sample, lg.v_sut_run, lg.v_reduction
    TO lg_reader, lg_writer;

-- The NAS's CPU as metrics of lg.compare / lgctl compare: its busy share over the measured
-- window (the mean over the run's sources when it has several), and IOPS per percent of it (the
-- work the NAS does for its CPU: a compression or dedup setting that costs CPU shows here).
INSERT INTO lg.metric (metric, unit, higher_is_better, ordinal)
SELECT v.metric, v.unit, v.hib, (SELECT max(ordinal) FROM lg.metric) + v.o
FROM (VALUES ('cpu_busy_pct', '%', false, 1), ('iops_per_cpu_pct', 'IOPS/%', true, 2))
     v(metric, unit, hib, o)
ON CONFLICT (metric) DO NOTHING;

CREATE OR REPLACE VIEW lg.v_metric AS
SELECT c.campaign_id, c.name AS campaign, 'run'::text AS source, r.run_id, NULL::integer AS line,
       s.sut_config_id,
       s.labels || CASE WHEN r.curve_pct IS NOT NULL
                        THEN jsonb_build_object('curve', r.curve_pct || '%')
                        WHEN r.rate_total > 0 THEN jsonb_build_object('rate', r.rate_total::text)
                        ELSE '{}'::jsonb END AS labels,
       r.profile, x.direction, r.protocol, r.threads, r.qd,
       r.repeat, m.metric, m.value, r.qd_achieved, r.qd_short
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
       f.direction, f.protocol, f.threads, f.qd, 1, f.metric, f.value, NULL::float8, NULL::boolean
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
       1, 'iops_at_limit', s.iops_at_limit, NULL, NULL
FROM lg.search s
JOIN lg.campaign c USING (campaign_id)
JOIN lg.sut_config sc USING (sut_config_id)
WHERE s.iops_at_limit IS NOT NULL AND s.state IN ('knee', 'not-reached', 'steps')
UNION ALL
SELECT c.campaign_id, c.name, 'run', r.run_id, NULL, s.sut_config_id, s.labels, r.profile,
       r.direction, r.protocol, r.threads, r.qd, r.repeat, m.metric, m.value, r.qd_achieved,
       r.qd_short
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
WHERE r.state = 'done' AND r.phase = 'measure' AND m.value IS NOT NULL
UNION ALL
SELECT c.campaign_id, c.name, 'run', r.run_id, NULL, s.sut_config_id,
       s.labels || CASE WHEN r.curve_pct IS NOT NULL
                        THEN jsonb_build_object('curve', r.curve_pct || '%')
                        WHEN r.rate_total > 0 THEN jsonb_build_object('rate', r.rate_total::text)
                        ELSE '{}'::jsonb END,
       r.profile, x.direction, r.protocol, r.threads, r.qd,
       r.repeat, m.metric, m.value, r.qd_achieved, r.qd_short
FROM lg.result x
JOIN lg.run r USING (run_id)
JOIN lg.campaign c USING (campaign_id)
JOIN lg.sut_config s USING (sut_config_id)
CROSS JOIN LATERAL (SELECT avg(u.cpu_busy_pct_mean) AS cpu FROM lg.v_sut_run u
                    WHERE u.run_id = r.run_id) u
CROSS JOIN LATERAL (VALUES
    ('cpu_busy_pct', u.cpu), ('iops_per_cpu_pct', x.iops / nullif(u.cpu, 0))) m(metric, value)
WHERE x.agent_id IS NULL AND r.state = 'done' AND r.phase = 'measure' AND m.value IS NOT NULL
  AND r.telemetry IS NOT NULL;

GRANT SELECT ON lg.v_metric TO lg_reader, lg_writer;
