-- lg.fio_job_depth: function (schema/views: re-created by lgctl db migrate; see schema/README.md)
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
CREATE OR REPLACE FUNCTION lg.fio_job_depth(job jsonb) RETURNS float8
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT sum((e.value)::float8 * b.depth) / nullif(sum((e.value)::float8), 0)
    FROM jsonb_each(CASE WHEN jsonb_typeof(job -> 'iodepth_level') = 'object'
                         THEN job -> 'iodepth_level' ELSE '{}'::jsonb END) e
    JOIN (VALUES ('1', 1), ('2', 2), ('4', 4), ('8', 8), ('16', 16), ('32', 32), ('>=64', 64))
         b(k, depth) ON b.k = e.key
    WHERE jsonb_typeof(e.value) = 'number'
$$;
GRANT EXECUTE ON FUNCTION lg.fio_job_depth(jsonb) TO lg_reader, lg_writer, lg_import;
