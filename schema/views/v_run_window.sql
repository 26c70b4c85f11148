-- lg.v_run_window: view (schema/views: re-created by lgctl db migrate; see schema/README.md)
-- The measured window of a run in the controller's clock. Where every agent of the run reported
-- when its measured I/O began and ended (lg.run_agent.io_start_us, io_end_us: 029_io_window),
-- from the first agent's start to the last one's end: what the NAS served, with the logins of
-- lgsmb and lgiscsi (before fio's epoch) and the ramp left out. Otherwise fio's start (the
-- earliest agent's, lg.run_agent.started_us; else the run's start) plus the ramp, for the
-- runtime. (A view, not a function: the views below run with their owner's rights, which a
-- function would not pass on.)
CREATE VIEW lg.v_run_window AS
SELECT r.run_id,
       CASE WHEN x.io THEN x.io_start ELSE x.b + make_interval(secs => r.ramp_s) END AS w_start,
       CASE WHEN x.io THEN x.io_end ELSE x.b + make_interval(secs => r.ramp_s + r.runtime_s) END
           AS w_end
FROM lg.run r,
     LATERAL (SELECT coalesce(to_timestamp(min(ra.started_us) / 1e6), r.started_at) AS b,
                     count(*) > 0 AND count(*) = count(ra.io_start_us) AND
                         count(*) = count(ra.io_end_us) AS io,
                     to_timestamp(min(ra.io_start_us) / 1e6) AS io_start,
                     to_timestamp(max(ra.io_end_us) / 1e6) AS io_end
              FROM lg.run_agent ra WHERE ra.run_id = r.run_id) x;
GRANT SELECT ON lg.v_run_window TO lg_reader, lg_writer;
