-- 037_clat_percentiles: completion-latency percentiles kept as what they are. fio prints clat
-- percentiles unless lat_percentiles=1, so a result made elsewhere (lgctl import) often has only
-- those: they are lg.result.clat_percentiles (same keys as percentiles, nanoseconds), never
-- percentiles (total latency), and the metrics clat_p50_ms ... clat_p99_99_ms read them in
-- lg.v_metric (compare, rank, sweep, lg-export), beside p50_ms ... p99_99_ms.
ALTER TABLE lg.result ADD COLUMN clat_percentiles jsonb;
INSERT INTO lg.metric (metric, unit, higher_is_better, ordinal) VALUES
    ('clat_p50_ms', 'ms', false, 18), ('clat_p90_ms', 'ms', false, 19),
    ('clat_p95_ms', 'ms', false, 20), ('clat_p99_ms', 'ms', false, 21),
    ('clat_p99_9_ms', 'ms', false, 22), ('clat_p99_99_ms', 'ms', false, 23);
