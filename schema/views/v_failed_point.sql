-- lg.v_failed_point: view (schema/views: re-created by lgctl db migrate; see schema/README.md)
-- The measured points of a campaign that have no figures: a run (a measured point or a search's
-- probe) that failed, that no newer attempt of the same point (030_attempts) followed and whose
-- point has no attempt that gave figures (a failed rerun leaves the older figures standing), with
-- what names it to a reader: its config's labels, profile, direction and load, its attempts and
-- its error. lgctl report, status and lg-export name these and exit 1; lgctl rerun --failed runs
-- them again.
CREATE VIEW lg.v_failed_point AS
    SELECT r.campaign_id, r.run_id, r.ordinal, r.attempt, coalesce(r.first_run, r.run_id) AS point,
           r.sut_config_id, s.labels, lg.sut_short(s.labels) AS sut, r.config_ordinal, r.profile,
           r.direction, r.protocol, r.threads, r.qd, r.rate_total, r.phase, r.repeat, r.error,
           r.profile || ' ' || r.direction || ' ' || r.threads || 'T' || r.qd || 'Q'
               || CASE WHEN r.rate_total > 0 THEN '@' || r.rate_total ELSE '' END
               || CASE WHEN r.repeat > 1 THEN ' repeat ' || r.repeat ELSE '' END AS point_text
    FROM lg.run r
    JOIN lg.sut_config s USING (sut_config_id)
    WHERE r.state = 'failed' AND r.phase IN ('measure', 'search')
      AND NOT EXISTS (SELECT 1 FROM lg.run n
                      WHERE coalesce(n.first_run, n.run_id) = coalesce(r.first_run, r.run_id)
                        AND (n.attempt > r.attempt
                             OR n.state IN ('done', 'partial', 'superseded')));
GRANT SELECT ON lg.v_failed_point TO lg_reader, lg_writer;
