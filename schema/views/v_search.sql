-- lg.v_search: view (schema/views: re-created by lgctl db migrate; see schema/README.md)
-- A search with its campaign and config, and its probes in the order they ran.
CREATE VIEW lg.v_search AS
SELECT s.*, c.name AS campaign, sc.labels, lg.sut_short(sc.labels) AS sut
FROM lg.search s
JOIN lg.campaign c USING (campaign_id)
JOIN lg.sut_config sc USING (sut_config_id);
GRANT SELECT ON lg.v_search TO lg_reader, lg_writer;
