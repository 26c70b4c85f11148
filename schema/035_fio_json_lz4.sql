-- 035_fio_json_lz4: fio's final JSON (lg.run_agent.fio_json, about 30-120 KB a run and agent) is
-- compressed by TOAST with lz4 rather than pglz. Both shrink it about 4.5 to 5 times (fio's JSON of
-- a client run: 30,281 bytes to 6,201 with pglz, 6,343 with lz4; of three jobs: 117,067 to 27,759
-- and 26,824); lz4 reads back several times faster, and every depth figure (lg.fio_qd) reads it.
-- Rows stored before keep their pglz until written again.
ALTER TABLE lg.run_agent ALTER COLUMN fio_json SET COMPRESSION lz4;
