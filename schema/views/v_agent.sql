-- lg.v_agent: view (schema/views: re-created by lgctl db migrate; see schema/README.md)
CREATE VIEW lg.v_agent AS
    SELECT agent_id, name, lg_version, os, cpu_model, cpu_count, mem_bytes, fio_version, facts,
           first_seen, last_seen
    FROM lg.agent;
GRANT SELECT ON lg.v_agent TO lg_reader, lg_writer;
