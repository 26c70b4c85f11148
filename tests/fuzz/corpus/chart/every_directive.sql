-- chart: timeseries
-- title: 4K random read IOPS
-- subtitle: dedup off vs on
-- x: config
-- y: iops
-- series: protocol
-- unit: IOPS
-- sort: desc
-- lower-is-better
-- log
-- # a comment
-- ----------
--
-- Prose between directives is a comment too.

SELECT 1 AS config, 2 AS iops FROM t WHERE c = :campaign;
