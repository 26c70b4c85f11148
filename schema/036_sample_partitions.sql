-- 036_sample_partitions: lg.sample, about 30 million rows a year in a lab, is partitioned by
-- ranges of 10,000 run ids (lg.sample_runs_<first id>), so a review's samples sit in a few
-- partitions of their own time: lgctl db archive deletes old reviews' rows from old partitions
-- only and drops the partitions it empties, and lgctl db restore brings them back without touching
-- the partitions current runs write to. Run ids only grow, so a partition is also a period.
-- A partition is made when a run of its range is inserted (lg.run's trigger run_sample_partitions
-- and lg.sample_partition, in schema/views), and a default partition takes any row of a range that
-- has none, so no sample is ever refused: the rows stored before this migration are there.
-- The table is rebuilt: the old rows are moved into the default partition, the views on it are made
-- again as they were, and the grants are copied.
ALTER TABLE lg.sample RENAME TO sample_unpartitioned;
ALTER INDEX lg.sample_pkey RENAME TO sample_unpartitioned_pkey;

CREATE TABLE lg.sample (LIKE lg.sample_unpartitioned INCLUDING DEFAULTS INCLUDING STORAGE
                        INCLUDING COMPRESSION INCLUDING CONSTRAINTS)
    PARTITION BY RANGE (run_id);
ALTER TABLE lg.sample ADD PRIMARY KEY (run_id, agent_id, seq, direction),
    ADD FOREIGN KEY (agent_id) REFERENCES lg.agent (agent_id),
    ADD FOREIGN KEY (run_id) REFERENCES lg.run (run_id) ON DELETE CASCADE;
CREATE TABLE lg.sample_default PARTITION OF lg.sample DEFAULT;

-- The rows so far go to the default partition; lg.sample_partition (schema/views) moves a range's
-- rows out of it when a run of that range is inserted (lg.run's trigger, schema/views).
INSERT INTO lg.sample SELECT * FROM lg.sample_unpartitioned;

DO $$
DECLARE
    g record;
BEGIN
    FOR g IN SELECT a.privilege_type AS p, a.grantee::regrole::text AS who
             FROM pg_catalog.pg_class c, pg_catalog.aclexplode(c.relacl) a
             WHERE c.oid = 'lg.sample_unpartitioned'::regclass AND a.grantee <> 0
               AND a.grantee <> c.relowner LOOP
        EXECUTE format('GRANT %s ON lg.sample TO %s', g.p, g.who);
    END LOOP;
END
$$;
-- The views on the old table, and the views on those, made again on the new one as they were
-- (definition, owner, grants, comment): the old table goes with them, and whatever made them
-- (schema/views, refresh_views, an older migration) need not run again.
CREATE TEMP TABLE sample_views ON COMMIT DROP AS
WITH RECURSIVE dep(oid, depth) AS (
    SELECT DISTINCT r.ev_class, 1
    FROM pg_catalog.pg_depend d JOIN pg_catalog.pg_rewrite r ON r.oid = d.objid
    WHERE d.refobjid = 'lg.sample_unpartitioned'::regclass AND r.ev_class <> d.refobjid
    UNION
    SELECT r.ev_class, dep.depth + 1
    FROM dep JOIN pg_catalog.pg_depend d ON d.refobjid = dep.oid
    JOIN pg_catalog.pg_rewrite r ON r.oid = d.objid
    WHERE r.ev_class <> dep.oid)
-- (a definition names the old table by its new name: named back)
SELECT c.relname, max(dep.depth) AS depth,
       pg_catalog.regexp_replace(pg_catalog.pg_get_viewdef(c.oid), '\msample_unpartitioned\M',
                                 'sample', 'g') AS def,
       pg_catalog.pg_get_userbyid(c.relowner) AS owner, c.relacl, c.relowner,
       pg_catalog.obj_description(c.oid, 'pg_class') AS comment
FROM dep JOIN pg_catalog.pg_class c ON c.oid = dep.oid
GROUP BY c.oid, c.relname, c.relowner, c.relacl;
DROP TABLE lg.sample_unpartitioned CASCADE;
DO $$
DECLARE
    v record;
    g record;
BEGIN
    FOR v IN SELECT * FROM sample_views ORDER BY depth, relname LOOP
        EXECUTE format('CREATE VIEW lg.%I AS %s', v.relname, v.def);
        EXECUTE format('ALTER VIEW lg.%I OWNER TO %I', v.relname, v.owner);
        IF v.comment IS NOT NULL THEN
            EXECUTE format('COMMENT ON VIEW lg.%I IS %L', v.relname, v.comment);
        END IF;
        FOR g IN SELECT a.privilege_type AS p, a.grantee::regrole::text AS who
                 FROM pg_catalog.aclexplode(v.relacl) a
                 WHERE a.grantee <> 0 AND a.grantee <> v.relowner LOOP
            EXECUTE format('GRANT %s ON lg.%I TO %s', g.p, v.relname, g.who);
        END LOOP;
    END LOOP;
END
$$;

