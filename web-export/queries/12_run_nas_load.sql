-- chart: timeseries
-- title: IOPS beside the NAS's CPU and busiest disk: run {run_id}
-- subtitle: {run}; IOPS of all agents per interval, busy % per scrape of {sources}; a gap (x on the time axis): no figure, e.g. a missed scrape
-- x: elapsed_s
-- x-title: Seconds since the run's start (fio's start, ramp included)
-- y: iops
-- y-title: IOPS
-- unit: IOPS
-- y2: busy_pct
-- y2-title: Busy
-- y2-unit: %
-- series: what
-- each: run_id
-- group: profile config
-- window: window_start_s window_end_s
-- caveat: caveat
-- # One chart per measured run that has telemetry (lg.v_sut_sample): its IOPS, read and write
-- # summed over its agents for each interval (lg.v_sample; an interval not every agent reported is
-- # NULL, a gap, not a dip; so is one no agent's sample is stored for), against the left axis; the
-- # NAS's CPU busy and its busiest disk's busy (lg.v_sut_sample, per telemetry source) against the
-- # right, 0-100%. A missed scrape is a gap, never interpolated. Time is seconds since the run's
-- # start in the controller's clock (the earliest agent's fio start, lg.v_run_window's start less
-- # the ramp): a scrape at its middle, an interval at its end. Without a ramp an agent's first
-- # interval starts when its fio did, so its intervals are placed from that start (controller
-- # clock) by their lengths and the agent's clock offset does not shift them; after a ramp the
-- # first interval is only fio's own runtime since the ramp ended, and the intervals are placed by
-- # their own timestamps (the agent's clock, the controller's in local mode; hosts kept in time by
-- # NTP are off by milliseconds). The measured window (lg.v_run_window) is shaded; index.html
-- # groups the charts under their profile and SUT config; a run's caveats (lg.v_point) go under its
-- # chart.
WITH runs AS (
    SELECT r.run_id, r.ramp_s, r.runtime_s,
           w.w_start - make_interval(secs => r.ramp_s) AS t0,
           lg.sut_short(s.labels) || ' · ' || r.protocol || ' · ' || r.profile || ' '
               || r.direction || ' ' || r.threads || 'T' || r.qd || 'Q'
               || CASE WHEN max(r.repeat) OVER (PARTITION BY r.campaign_id) > 1
                       THEN ' · repeat ' || r.repeat ELSE '' END
               || ', ' || r.runtime_s || ' s' AS run,
           r.profile, lg.sut_short(s.labels) || ' · ' || r.protocol AS config,
           extract(epoch FROM w.w_start - (w.w_start - make_interval(secs => r.ramp_s)))::float8
               AS window_start_s,
           extract(epoch FROM w.w_end - (w.w_start - make_interval(secs => r.ramp_s)))::float8
               AS window_end_s,
           (SELECT lg.caveat_json(string_agg(p.caveat, E'\n')) FROM lg.v_point p
            WHERE p.run_id = r.run_id) AS caveat
    FROM lg.v_run r
    JOIN lg.v_campaign c USING (campaign_id)
    JOIN lg.v_sut_config s USING (sut_config_id)
    JOIN lg.v_run_window w USING (run_id)
    WHERE (:campaign IS NULL OR c.name = :campaign) AND r.phase = 'measure' AND r.state = 'done'),
telemetry_runs AS (
    SELECT u.* FROM runs u WHERE EXISTS (SELECT 1 FROM lg.v_sut_sample x WHERE x.run_id = u.run_id)),
-- each agent's intervals, read and write summed: their end in seconds since its fio's start
agent_iv AS (
    SELECT x.run_id, x.agent, x.seq, sum(x.ios) AS ios, max(x.interval_ms) AS interval_ms,
           max(x.t) AS t
    FROM lg.v_sample x
    WHERE x.run_id IN (SELECT run_id FROM telemetry_runs) AND x.interval_ms > 0
    GROUP BY x.run_id, x.agent, x.seq),
agent_pos AS (
    SELECT a.*, u.t0,
           CASE WHEN u.ramp_s = 0 AND ra.started_us IS NOT NULL
                THEN extract(epoch FROM a.t - first_value(a.t) OVER w)
                     + first_value(a.interval_ms) OVER w / 1000.0
                     + ra.started_us / 1e6 - extract(epoch FROM u.t0)
                ELSE extract(epoch FROM a.t - u.t0) END AS end_s
    FROM agent_iv a
    JOIN telemetry_runs u USING (run_id)
    LEFT JOIN lg.v_run_agent ra ON ra.run_id = a.run_id AND ra.agent = a.agent
    WINDOW w AS (PARTITION BY a.run_id, a.agent ORDER BY a.seq)),
intervals AS (
    SELECT p.run_id, p.seq, count(*) AS agents, avg(p.end_s) AS end_s,
           sum(p.ios * 1000.0 / p.interval_ms) AS iops
    FROM agent_pos p
    GROUP BY p.run_id, p.seq),
-- an interval no agent's sample is stored for (a missing second): a row without a figure, a gap,
-- halfway between its neighbours
seqs AS (
    SELECT i.run_id, generate_series(min(i.seq), max(i.seq)) AS seq FROM intervals i
    GROUP BY i.run_id),
ivals AS (
    SELECT q.run_id, q.seq, i.agents, i.iops,
           coalesce(i.end_s, (lag(i.end_s) OVER w + lead(i.end_s) OVER w) / 2) AS end_s
    FROM seqs q LEFT JOIN intervals i USING (run_id, seq)
    WINDOW w AS (PARTITION BY q.run_id ORDER BY q.seq))
SELECT i.run_id, u.run, 'IOPS' AS what, round(i.end_s::numeric, 3)::float8 AS elapsed_s,
       CASE WHEN i.agents = max(i.agents) OVER (PARTITION BY i.run_id)
            THEN i.iops::float8 END AS iops,
       NULL::float8 AS busy_pct, NULL::text AS source, i.seq,
       (SELECT string_agg(DISTINCT x.source, ', ') FROM lg.v_sut_sample x
        WHERE x.run_id = i.run_id) AS sources,
       u.profile, u.config, u.window_start_s, u.window_end_s, u.caveat
FROM ivals i
JOIN telemetry_runs u USING (run_id)
UNION ALL
SELECT x.run_id, u.run, m.what || CASE WHEN n.sources > 1 THEN ' · ' || x.source ELSE '' END,
       round(extract(epoch FROM x.t - u.t0)::numeric, 3)::float8,
       NULL, m.busy, x.source, x.seq, n.names,
       u.profile, u.config, u.window_start_s, u.window_end_s, u.caveat
FROM lg.v_sut_sample x
JOIN telemetry_runs u USING (run_id)
CROSS JOIN LATERAL (SELECT count(DISTINCT y.source) AS sources,
                           string_agg(DISTINCT y.source, ', ') AS names
                    FROM lg.v_sut_sample y WHERE y.run_id = x.run_id) n
CROSS JOIN LATERAL (VALUES ('NAS CPU busy', x.cpu_busy_pct),
                           ('busiest disk busy', x.disk_busy_pct_max)) m(what, busy)
ORDER BY run_id, what, source, seq;
