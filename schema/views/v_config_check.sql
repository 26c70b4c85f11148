-- lg.v_config_check: view (schema/views: re-created by lgctl db migrate; see schema/README.md)
-- 033_config_check: a config's settings as the operator's check read them back before its first
-- run, beside the config's labels; error says why the campaign stopped there (NULL: matched).
CREATE VIEW lg.v_config_check AS
SELECT k.campaign_id, c.name AS campaign, k.config_ordinal AS config, sc.labels,
       lg.sut_short(sc.labels) AS sut, k.read, k.error, k.output, k.at
FROM lg.config_check k
JOIN lg.campaign c USING (campaign_id)
LEFT JOIN LATERAL (SELECT r.sut_config_id FROM lg.run r WHERE r.campaign_id = k.campaign_id
                   AND r.config_ordinal = k.config_ordinal LIMIT 1) rr ON true
LEFT JOIN lg.sut_config sc ON sc.sut_config_id = rr.sut_config_id;
GRANT SELECT ON lg.v_config_check TO lg_reader, lg_writer;
