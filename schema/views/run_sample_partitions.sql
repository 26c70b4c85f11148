-- lg.run_sample_partitions: function (schema/views: re-created by lgctl db migrate; see schema/README.md)
-- lg.run's trigger: the lg.sample partition of every range of run ids a statement inserted into
-- (lg.sample_partition), before any sample of those runs can arrive. The trigger is made here
-- too, so these files alone make it.
CREATE OR REPLACE FUNCTION lg.run_sample_partitions() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, lg, pg_temp AS $$
BEGIN
    PERFORM lg.sample_partition(x.lo)
    FROM (SELECT DISTINCT n.run_id - n.run_id % 10000 AS lo FROM new_runs n) x;
    RETURN NULL;
END
$$;
REVOKE ALL ON FUNCTION lg.run_sample_partitions() FROM PUBLIC;
CREATE OR REPLACE TRIGGER run_sample_partitions AFTER INSERT ON lg.run
    REFERENCING NEW TABLE AS new_runs FOR EACH STATEMENT
    EXECUTE FUNCTION lg.run_sample_partitions();
