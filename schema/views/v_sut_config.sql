-- lg.v_sut_config: view (schema/views: re-created by lgctl db migrate; see schema/README.md)
CREATE VIEW lg.v_sut_config AS
    SELECT sut_config_id, labels
    FROM lg.sut_config;
GRANT SELECT ON lg.v_sut_config TO lg_reader, lg_writer;
