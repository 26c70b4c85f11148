-- chart: bar
-- title: IOPS per SUT config, a ssd raidz2-wide-stripe-of-twelve zstd, dedup on, recordsize 1M
-- x: config
-- y: iops
-- series: series
-- unit: IOPS
-- ci: ci_low ci_high
-- log
SELECT 'a ssd raidz2-wide-stripe-of-twelve zstd, dedup on' AS config, 'read' AS series,
       100.0 AS iops, 90.0 AS ci_low, 110.0 AS ci_high;
