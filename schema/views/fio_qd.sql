-- lg.fio_qd: function (schema/views: re-created by lgctl db migrate; see schema/README.md)
-- The depth of the jobs of one fio JSON document (as stored in lg.run_agent.fio_json): of all
-- its jobs, or of one reporting group and one client-mode server ("host:port", '' for a local
-- run) as an import stores them. groups: how many reporting groups the counted jobs are in.
-- No row of figures (NULLs) for text that is not JSON.
CREATE OR REPLACE FUNCTION lg.fio_qd(fio_json text, groupid integer DEFAULT NULL, host text DEFAULT NULL)
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
GRANT EXECUTE ON FUNCTION lg.fio_qd(text,integer,text) TO lg_reader, lg_writer, lg_import;
