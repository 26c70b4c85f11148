-- lg.run_qd: function (schema/views: re-created by lgctl db migrate; see schema/README.md)
-- A run's figures from its agents' (set by the controller at a run's end, imports, this
-- migration): over the agents that delivered a result.
CREATE OR REPLACE FUNCTION lg.run_qd(run_id bigint)
RETURNS TABLE (qd_achieved float8, qd_inflight float8)
LANGUAGE sql STABLE AS $$
    SELECT sum(x.qd_inflight) / nullif(sum(x.qd_jobs), 0), sum(x.qd_inflight)
    FROM lg.run_agent x
    WHERE x.run_id = run_qd.run_id AND x.state = 'done' AND x.qd_jobs > 0
$$;
GRANT EXECUTE ON FUNCTION lg.run_qd(bigint) TO lg_writer, lg_import;
