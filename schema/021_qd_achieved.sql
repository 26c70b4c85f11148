-- 021_qd_achieved: the queue depth that ran, beside the one asked for. A run at 4T16Q whose
-- engine or NAS cannot keep 16 I/Os in flight per job measured another load than one that did;
-- both are stored as 16, so lg reads what fio saw from its own iodepth_level distribution.
--
-- fio counts, for every I/O it submits, how many of the job's I/Os were in flight then (its
-- cur_depth, this one included: io_u.c io_u_mark_depth), in buckets 1 | 2-3 | 4-7 | 8-15 |
-- 16-31 | 32-63 | >=64, printed as percentages of the job's I/Os under the keys "1", "2", "4",
-- "8", "16", "32", ">=64" (after ramp_time: fio resets them with the other statistics).
--
--   per job:   the I/O-weighted mean of each bucket's LOWER bound (1, 2, 4, 8, 16, 32, 64): at
--              least this many in flight, on average, when an I/O was submitted. Exact for a
--              job that held one power-of-two depth (1, 2, 4, 8, 16, 32); a job that held d in
--              flight reads between d/2 and d, so a depth held at the requested qd never reads
--              under qd/2 and is never "short"; a short run is under qd/2 for sure only when its
--              depth was steady (a mix of depths is averaged by their lower bounds).
--   per agent: qd_inflight, the sum over its jobs (with group_reporting one entry counts as
--              numjobs jobs); qd_jobs, how many; qd_achieved = qd_inflight / qd_jobs.
--   per run:   the same over the agents that delivered a result: qd_inflight the run's total
--              in flight, qd_achieved the mean per job.
-- qd_short: qd > 1 and qd_achieved < qd / 2. NULL when unknown (no fio JSON, an application run,
-- an import without iodepth_level).

-- A job's (one fio JSON "jobs" or "client_stats" entry) depth as above; NULL without one.
CREATE FUNCTION lg.fio_job_depth(job jsonb) RETURNS float8
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT sum((e.value)::float8 * b.depth) / nullif(sum((e.value)::float8), 0)
    FROM jsonb_each(CASE WHEN jsonb_typeof(job -> 'iodepth_level') = 'object'
                         THEN job -> 'iodepth_level' ELSE '{}'::jsonb END) e
    JOIN (VALUES ('1', 1), ('2', 2), ('4', 4), ('8', 8), ('16', 16), ('32', 32), ('>=64', 64))
         b(k, depth) ON b.k = e.key
    WHERE jsonb_typeof(e.value) = 'number'
$$;

-- The depth of the jobs of one fio JSON document (as stored in lg.run_agent.fio_json): of all
-- its jobs, or of one reporting group and one client-mode server ("host:port", '' for a local
-- run) as an import stores them. groups: how many reporting groups the counted jobs are in.
-- No row of figures (NULLs) for text that is not JSON.
CREATE FUNCTION lg.fio_qd(fio_json text, groupid integer DEFAULT NULL, host text DEFAULT NULL)
RETURNS TABLE (qd_achieved float8, qd_inflight float8, qd_jobs integer, groups integer)
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
    doc jsonb;
BEGIN
    BEGIN
        doc := fio_json::jsonb;
    EXCEPTION WHEN data_exception THEN
        doc := NULL;
    END;
    RETURN QUERY
    WITH j AS (
        SELECT e.job,
               CASE WHEN jsonb_typeof(e.job -> 'groupid') = 'number'
                    THEN (e.job ->> 'groupid')::numeric::integer ELSE 0 END AS gid,
               CASE WHEN jsonb_typeof(e.job -> 'hostname') = 'string'
                    THEN (e.job ->> 'hostname')
                         || CASE WHEN jsonb_typeof(e.job -> 'port') = 'number'
                                 THEN ':' || (e.job ->> 'port') ELSE '' END
                    ELSE '' END AS h,
               CASE WHEN e.job -> 'job options' ? 'group_reporting'
                         OR doc -> 'global options' ? 'group_reporting'
                    THEN greatest(1, coalesce(nullif(substring(coalesce(
                             e.job -> 'job options' ->> 'numjobs',
                             doc -> 'global options' ->> 'numjobs', '') FROM '^[0-9]{1,6}'),
                             '')::integer, 1))
                    ELSE 1 END AS w
        FROM jsonb_array_elements(CASE WHEN jsonb_typeof(doc -> 'jobs') = 'array' THEN doc -> 'jobs'
                                       WHEN jsonb_typeof(doc -> 'client_stats') = 'array'
                                       THEN doc -> 'client_stats'
                                       ELSE '[]'::jsonb END) e(job)
        WHERE (e.job ->> 'jobname') IS DISTINCT FROM 'All clients'),
    d AS (
        SELECT lg.fio_job_depth(j.job) AS depth, j.w, j.gid
        FROM j
        WHERE (fio_qd.groupid IS NULL OR j.gid = fio_qd.groupid)
          AND (fio_qd.host IS NULL OR j.h = fio_qd.host))
    SELECT sum(d.depth * d.w) / nullif(sum(d.w), 0), sum(d.depth * d.w), sum(d.w)::integer,
           count(DISTINCT d.gid)::integer
    FROM d
    WHERE d.depth IS NOT NULL;
END
$$;

ALTER TABLE lg.run_agent
    ADD COLUMN qd_achieved float8,  -- in flight per job (see above)
    ADD COLUMN qd_inflight float8,  -- in flight, the sum over its jobs
    ADD COLUMN qd_jobs     integer; -- the jobs counted

ALTER TABLE lg.run
    ADD COLUMN qd_achieved float8,  -- in flight per job, over the agents that delivered a result
    ADD COLUMN qd_inflight float8,  -- the run's total in flight
    ADD COLUMN qd_short    boolean GENERATED ALWAYS AS (qd > 1 AND qd_achieved < qd / 2.0) STORED;

-- A run's figures from its agents' (set by the controller at a run's end, imports, this
-- migration): over the agents that delivered a result.
CREATE FUNCTION lg.run_qd(run_id bigint)
RETURNS TABLE (qd_achieved float8, qd_inflight float8)
LANGUAGE sql STABLE AS $$
    SELECT sum(x.qd_inflight) / nullif(sum(x.qd_jobs), 0), sum(x.qd_inflight)
    FROM lg.run_agent x
    WHERE x.run_id = run_qd.run_id AND x.state = 'done' AND x.qd_jobs > 0
$$;

-- The runs stored before: from the fio JSON they kept. An import's row holds the whole file:
-- its server is in the agent's name ("import:host:port"), and only a file of one reporting
-- group can be read back (a run per group; which group a run was is not recorded).
UPDATE lg.run_agent ra
SET (qd_achieved, qd_inflight, qd_jobs) =
    (SELECT q.qd_achieved, q.qd_inflight, q.qd_jobs
     FROM lg.agent a, lg.run r,
          lg.fio_qd(ra.fio_json, NULL,
                    CASE WHEN r.protocol = 'import'
                         THEN CASE WHEN a.name LIKE 'import:%' THEN substr(a.name, 8) ELSE '' END
                    END) q
     WHERE a.agent_id = ra.agent_id AND r.run_id = ra.run_id
       AND (r.protocol IS DISTINCT FROM 'import' OR q.groups = 1))
WHERE ra.fio_json IS NOT NULL AND ra.fio_json <> '' AND ra.state = 'done';
UPDATE lg.run r
SET (qd_achieved, qd_inflight) = (SELECT q.qd_achieved, q.qd_inflight FROM lg.run_qd(r.run_id) q)
WHERE EXISTS (SELECT 1 FROM lg.run_agent x WHERE x.run_id = r.run_id AND x.qd_jobs > 0);

CREATE OR REPLACE VIEW lg.v_run AS SELECT * FROM lg.run;

-- v_metric as in 020, with the run's qd_achieved and qd_short at the end (NULL for imported
-- figures and searches): a comparison can tell a figure measured far below its queue depth.
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
WHERE r.state = 'done' AND r.phase = 'measure' AND m.value IS NOT NULL;

GRANT SELECT ON lg.v_run, lg.v_metric TO lg_reader, lg_writer;
GRANT EXECUTE ON FUNCTION lg.fio_job_depth(jsonb), lg.fio_qd(text, integer, text)
    TO lg_reader, lg_writer;
GRANT EXECUTE ON FUNCTION lg.run_qd(bigint) TO lg_writer;
