-- lg.v_sweep: view (schema/views: re-created by lgctl db migrate; see schema/README.md)
CREATE VIEW lg.v_sweep AS SELECT * FROM lg.sweep();
GRANT SELECT ON lg.v_sweep TO lg_reader, lg_writer;
