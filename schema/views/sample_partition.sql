-- lg.sample_partition: function (schema/views: re-created by lgctl db migrate; see schema/README.md)
-- The partition of lg.sample (036_sample_partitions) that holds run id rid's samples, made if there
-- is none: a table for the range's 10,000 run ids, given the rows of the range that the default
-- partition holds (those stored before 036), then attached. Attaching locks lg.sample less than
-- CREATE TABLE ... PARTITION OF would (the writer's COPY goes on), and the range's CHECK spares
-- it a scan. Returns the range's first run id. As the owner: lg.run's trigger calls it.
CREATE OR REPLACE FUNCTION lg.sample_partition(rid bigint) RETURNS bigint
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, lg, pg_temp AS $$
DECLARE
    lo bigint := rid - rid % 10000;
    t text := format('sample_runs_%s', lo);
BEGIN
    IF rid IS NULL OR rid < 0 THEN
        RETURN NULL;
    END IF;
    IF to_regclass('lg.' || t) IS NOT NULL THEN
        RETURN lo;
    END IF;
    PERFORM pg_advisory_xact_lock(hashtext('lg.sample_partition'));
    IF to_regclass('lg.' || t) IS NOT NULL THEN -- made while this one waited
        RETURN lo;
    END IF;
    EXECUTE format('CREATE TABLE lg.%I (LIKE lg.sample INCLUDING DEFAULTS INCLUDING STORAGE'
                   ' INCLUDING COMPRESSION INCLUDING CONSTRAINTS)', t);
    EXECUTE format('ALTER TABLE lg.%I ADD CONSTRAINT %I CHECK (run_id >= %s AND run_id < %s)',
                   t, t || '_range', lo, lo + 10000);
    EXECUTE format('WITH m AS (DELETE FROM lg.sample_default WHERE run_id >= %s AND run_id < %s'
                   ' RETURNING *) INSERT INTO lg.%I SELECT * FROM m', lo, lo + 10000, t);
    EXECUTE format('ALTER TABLE lg.sample ATTACH PARTITION lg.%I FOR VALUES FROM (%s) TO (%s)',
                   t, lo, lo + 10000);
    EXECUTE format('ALTER TABLE lg.%I DROP CONSTRAINT %I', t, t || '_range');
    RETURN lo;
END
$$;
REVOKE ALL ON FUNCTION lg.sample_partition(bigint) FROM PUBLIC;
