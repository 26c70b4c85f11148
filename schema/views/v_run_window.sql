-- lg.v_run_window: view (schema/views: re-created by lgctl db migrate; see schema/README.md)
-- The measured window of a run in the controller's clock: from fio's start (the earliest agent's,
-- lg.run_agent.started_us; else the run's start) plus the ramp, for the runtime. (A view, not a
-- function: the views below run with their owner's rights, which a function would not pass on.)
CREATE VIEW lg.v_run_window AS
SELECT r.run_id, b + make_interval(secs => r.ramp_s) AS w_start,
       b + make_interval(secs => r.ramp_s + r.runtime_s) AS w_end
FROM lg.run r,
     LATERAL (SELECT coalesce(to_timestamp(min(ra.started_us) / 1e6), r.started_at) AS b
              FROM lg.run_agent ra WHERE ra.run_id = r.run_id) x;
GRANT SELECT ON lg.v_run_window TO lg_reader, lg_writer;
