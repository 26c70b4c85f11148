-- lg.v_metric_def: view (schema/views: re-created by lgctl db migrate; see schema/README.md)
CREATE VIEW lg.v_metric_def AS
    SELECT metric, unit, higher_is_better, ordinal
    FROM lg.metric;
GRANT SELECT ON lg.v_metric_def TO lg_reader, lg_writer;
