-- chart: hbar
-- title: 8K sequential read/write IOPS
-- subtitle: 8 KiB sequential, per SUT config and protocol
-- x: config
-- y: iops
-- series: series
-- unit: IOPS
-- # Mean over repeats of the measured runs, per SUT config, protocol and direction.
SELECT format('#%s %s', config,
              (SELECT string_agg(value, ' / ' ORDER BY key) FROM jsonb_each_text(labels))) AS config,
       direction || ' · ' || protocol AS series,
       avg(iops) AS iops
FROM lg.v_result
WHERE (:campaign IS NULL OR campaign = :campaign) AND phase = 'measure' AND profile = '8k-seq'
GROUP BY v_result.config, labels, protocol, direction
ORDER BY v_result.config, direction, protocol;
