-- lg.v_search_probe: view (schema/views: re-created by lgctl db migrate; see schema/README.md)
-- A search's probes in the order they ran. trial: 1 the first at its load, 2 its repeat, ...
-- (031_search_confirm); counts: the search acted on this trial, not on a repeat after it (a trial
-- over the limit that was tried again does not count: the repeat decided).
CREATE VIEW lg.v_search_probe AS
SELECT r.search_id, r.probe, r.run_id, r.state, r.threads, r.qd, r.rate_total,
       CASE s.vary WHEN 'qd' THEN r.qd WHEN 'threads' THEN r.threads ELSE r.rate_total END AS load,
       r.search_value AS value_ms, r.search_iops AS iops, s.metric, s.limit_ms,
       r.search_value > s.limit_ms AS over_limit,
       r.run_id = s.good_run_id AS is_good, r.run_id = s.bad_run_id AS is_bad,
       coalesce(r.trial, 1) AS trial,
       NOT EXISTS (SELECT 1 FROM lg.run n WHERE n.search_id = r.search_id AND n.probe = r.probe + 1
                   AND n.trial = coalesce(r.trial, 1) + 1) AS counts
FROM lg.run r
JOIN lg.search s USING (search_id)
WHERE r.probe IS NOT NULL AND r.state NOT IN ('pending', 'skipped');
GRANT SELECT ON lg.v_search_probe TO lg_reader, lg_writer;
