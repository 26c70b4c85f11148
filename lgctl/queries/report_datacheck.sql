-- title: data written
-- about: (read back by each agent: zstd -1 and lz4 per record, dedup of whole records; over the runs and agents of each row)
-- head: config | SUT config | phase | profile | runs | asked | zstd | lz4 | dedup | records | note
-- left: 6
-- note
-- # What the agents measured in the data each fill and write run of campaign $1 left on its
-- # target (lg.v_datacheck), a row per config, phase and profile over its runs and agents, beside
-- # the ratios the campaign asked for. A ratio of all of it is that of the bytes (records of one
-- # unit: records / sum(records / ratio)); report.c adds the range of the runs' and agents' own
-- # when they differ, and "!" on a ratio more than 15% off what was asked (the pattern is made to
-- # within 10%; a small fill varies a little more).
SELECT d.config, lg.sut_short(d.labels) AS sut, d.phase, d.profile,
  count(DISTINCT d.run_id) AS runs, count(*) AS checks,
  CASE WHEN d.compress_asked IS NULL AND d.dedup_asked IS NULL THEN '-' ELSE
    concat_ws(', ', 'compress ' || trim_scale(round(d.compress_asked::numeric, 2)) || ':1',
              'dedup ' || trim_scale(round(d.dedup_asked::numeric, 2)) || ':1') END AS asked,
  sum(d.records) FILTER (WHERE d.zstd > 0)
    / nullif(sum(d.records / d.zstd) FILTER (WHERE d.zstd > 0), 0) AS zstd,
  min(d.zstd) AS zstd_min, max(d.zstd) AS zstd_max,
  sum(d.records) FILTER (WHERE d.lz4 > 0)
    / nullif(sum(d.records / d.lz4) FILTER (WHERE d.lz4 > 0), 0) AS lz4,
  min(d.dedup) AS dedup_min, max(d.dedup) AS dedup_max, sum(d.records) AS records,
  max(d.unit) AS unit, coalesce(string_agg(DISTINCT d.error, '; '), '') AS error,
  bool_or(d.compress_asked IS NOT NULL AND d.zstd IS NOT NULL
    AND abs(d.zstd / d.compress_asked - 1) > 0.15) AS zstd_off,
  bool_or(d.dedup_asked IS NOT NULL AND d.dedup IS NOT NULL
    AND abs(d.dedup / d.dedup_asked - 1) > 0.15) AS dedup_off
FROM lg.v_datacheck d WHERE d.campaign_id = $1::bigint
GROUP BY d.config, d.labels, d.phase, d.profile, d.compress_asked, d.dedup_asked
ORDER BY d.config, min(d.run_id)
