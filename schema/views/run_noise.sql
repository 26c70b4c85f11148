-- lg.run_noise: function (schema/views: re-created by lgctl db migrate; see schema/README.md)
-- The standard error of a run's figure and its degrees of freedom, from its batch means: the
-- batch means' standard deviation / sqrt(k), k - 1. No row when the run has no batches.
CREATE OR REPLACE FUNCTION lg.run_noise(run_id bigint, direction text, metric text)
RETURNS TABLE (se float8, df float8)
LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, lg, pg_temp STABLE STRICT AS $$
    SELECT stddev_samp(b.value) / sqrt(count(*)), count(*) - 1
    FROM lg.batch_means(run_noise.run_id, run_noise.direction, run_noise.metric) b
    HAVING count(*) >= 5 AND count(b.value) = count(*)
$$;
