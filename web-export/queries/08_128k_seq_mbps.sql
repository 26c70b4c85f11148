-- chart: hbar
-- title: 128K sequential read/write throughput
-- subtitle: 128 KiB sequential, MB/s = 10^6 bytes/s
-- x: config
-- y: mbps
-- series: series
-- unit: MB/s
-- # Mean over repeats of the measured runs, per SUT config, protocol and direction.
SELECT format('#%s %s', config,
              (SELECT string_agg(value, ' / ' ORDER BY key) FROM jsonb_each_text(labels))) AS config,
       direction || ' · ' || protocol AS series,
       avg(mbps) AS mbps
FROM lg.v_result
WHERE (:campaign IS NULL OR campaign = :campaign) AND phase = 'measure' AND profile = '128k-seq'
GROUP BY v_result.config, labels, protocol, direction
ORDER BY v_result.config, direction, protocol;
