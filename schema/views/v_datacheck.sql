-- lg.v_datacheck: view (schema/views: re-created by lgctl db migrate; see schema/README.md)
-- lg.v_datacheck: what the agents measured in the data a run wrote (lg.run_agent.datacheck:
-- per-record zstd -1 and lz4 compression and SHA-256 dedup, read back from the target after each
-- fill and write run), beside the ratios the campaign asked for, as a view readers may read
-- (lg_reader reads views only, 008): one row per agent of each run that has a check, in any
-- state. ratio columns are NULL where the check failed (error says why). compress_asked and
-- dedup_asked are NULL when the campaign set no data pattern (fio's default data).
CREATE VIEW lg.v_datacheck AS
SELECT r.run_id, c.campaign_id, c.name AS campaign, r.config_ordinal AS config, s.labels,
       r.protocol, r.phase, r.profile, r.direction, r.state, a.name AS agent,
       nullif(r.compress_ratio, 0) AS compress_asked, nullif(r.dedup_ratio, 0) AS dedup_asked,
       (ra.datacheck ->> 'unit')::integer AS unit,
       (ra.datacheck ->> 'records')::bigint AS records,
       (ra.datacheck ->> 'unique')::bigint AS unique_records,
       (ra.datacheck ->> 'zero')::bigint AS zero_records,
       (ra.datacheck ->> 'zstd')::float8 AS zstd, (ra.datacheck ->> 'lz4')::float8 AS lz4,
       (ra.datacheck ->> 'dedup')::float8 AS dedup, ra.datacheck ->> 'error' AS error
FROM lg.run_agent ra
JOIN lg.run r USING (run_id)
JOIN lg.campaign c USING (campaign_id)
JOIN lg.sut_config s USING (sut_config_id)
JOIN lg.agent a USING (agent_id)
WHERE ra.datacheck IS NOT NULL;
GRANT SELECT ON lg.v_datacheck TO lg_reader, lg_writer;
