-- 014_latency_unknown: a result whose latency was not measured (fio with gtod_reduce=1, or no
-- latency samples at all) keeps its latency NULL, never 0 ms: only lat_n says how many samples
-- there were (0).
ALTER TABLE lg.result
    ALTER COLUMN lat_min DROP NOT NULL,
    ALTER COLUMN lat_max DROP NOT NULL,
    ALTER COLUMN lat_mean DROP NOT NULL,
    ALTER COLUMN lat_stddev DROP NOT NULL,
    ALTER COLUMN lat_sum DROP NOT NULL,
    ALTER COLUMN lat_sumsq DROP NOT NULL;
