-- lg.sample_drop_empty: function (schema/views: re-created by lgctl db migrate; see schema/README.md)
-- After lgctl db archive: drop the lg.sample partitions left with no sample whose range is below
-- the run ids in use and has no run left (the default partition, and the one new runs go to,
-- stay). Returns how many were dropped.
CREATE OR REPLACE FUNCTION lg.sample_drop_empty() RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, lg, pg_temp AS $$
DECLARE
    p record;
    n integer := 0;
    top bigint := (SELECT s.last_value FROM lg.run_run_id_seq s);
    empty boolean;
BEGIN
    FOR p IN SELECT c.relname, substr(c.relname, 13)::bigint AS lo
             FROM pg_catalog.pg_inherits i JOIN pg_catalog.pg_class c ON c.oid = i.inhrelid
             WHERE i.inhparent = 'lg.sample'::regclass AND c.relname ~ '^sample_runs_[0-9]+$'
    LOOP
        CONTINUE WHEN p.lo + 10000 > top
            OR EXISTS (SELECT 1 FROM lg.run r WHERE r.run_id >= p.lo AND r.run_id < p.lo + 10000);
        EXECUTE format('SELECT NOT EXISTS (SELECT 1 FROM lg.%I)', p.relname) INTO empty;
        CONTINUE WHEN NOT empty;
        EXECUTE format('DROP TABLE lg.%I', p.relname);
        n := n + 1;
    END LOOP;
    RETURN n;
END
$$;
REVOKE ALL ON FUNCTION lg.sample_drop_empty() FROM PUBLIC;
