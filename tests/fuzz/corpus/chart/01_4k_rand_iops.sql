-- chart: hbar
-- title: 4K random read/write IOPS
-- subtitle: 4 KiB random, per SUT config and protocol
-- x: config
-- y: iops
-- series: series
-- unit: IOPS
-- sort: none
-- # Mean over repeats of the measured runs, per SUT config, protocol and direction.
SELECT format('#%s %s', config,
              (SELECT string_agg(value, ' / ' ORDER BY key) FROM jsonb_each_text(labels))) AS config,
       direction || ' · ' || protocol AS series,
       avg(iops) AS iops
FROM lg.v_result
WHERE (:campaign IS NULL OR campaign = :campaign) AND phase = 'measure' AND profile = '4k-rand'
GROUP BY v_result.config, labels, protocol, direction
ORDER BY v_result.config, direction, protocol;
