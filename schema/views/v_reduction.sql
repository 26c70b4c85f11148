-- lg.v_reduction: view (schema/views: re-created by lgctl db migrate; see schema/README.md)
-- A config's reduction: what the NAS stored for what was written (the probe after the config's
-- last run), the probe before, and the ratio lg wrote (zstd per record as the agents read it
-- back, weighted by records; else the ratio the campaign asked for). error is the after probe's;
-- error_before the before probe's.
CREATE VIEW lg.v_reduction AS
SELECT c.campaign_id, c.name AS campaign, a.config_ordinal AS config, sc.labels,
       a.logical_bytes, a.physical_bytes,
       a.logical_bytes::float8 / nullif(a.physical_bytes, 0) AS achieved_ratio,
       (SELECT coalesce(sum(d.zstd * d.records) / nullif(sum(d.records) FILTER (
                            WHERE d.zstd IS NOT NULL), 0),
                        max(d.compress_asked))
        FROM lg.v_datacheck d WHERE d.campaign_id = c.campaign_id
          AND d.config = a.config_ordinal) AS written_ratio,
       b.logical_bytes AS logical_bytes_before, b.physical_bytes AS physical_bytes_before,
       a.logical_bytes - b.logical_bytes AS logical_bytes_added,
       a.physical_bytes - b.physical_bytes AS physical_bytes_added,
       a.error, a.at,
       -- the probe before the config's first run: on a dataset nothing was written to yet a
       -- probe may find nothing to read (compsize: "no files"), which is no failure of the after
       b.error AS error_before
FROM lg.reduction a
JOIN lg.campaign c USING (campaign_id)
LEFT JOIN lg.reduction b ON b.campaign_id = a.campaign_id
     AND b.config_ordinal = a.config_ordinal AND b.phase = 'before'
LEFT JOIN LATERAL (SELECT r.sut_config_id FROM lg.run r WHERE r.campaign_id = a.campaign_id
                   AND r.config_ordinal = a.config_ordinal LIMIT 1) rr ON true
LEFT JOIN lg.sut_config sc ON sc.sut_config_id = rr.sut_config_id
WHERE a.phase = 'after';
GRANT SELECT ON lg.v_reduction TO lg_reader, lg_writer;
