-- chart: hbar
-- title: 4K random average latency
-- subtitle: 4 KiB random, fio total latency
-- x: config
-- y: lat_avg_ms
-- series: series
-- unit: ms
-- lower-is-better
-- # Mean over repeats of the measured runs, per SUT config, protocol and direction.
SELECT format('#%s %s', config,
              (SELECT string_agg(value, ' / ' ORDER BY key) FROM jsonb_each_text(labels))) AS config,
       direction || ' · ' || protocol AS series,
       avg(lat_avg_ms) AS lat_avg_ms
FROM lg.v_result
WHERE (:campaign IS NULL OR campaign = :campaign) AND phase = 'measure' AND profile = '4k-rand'
GROUP BY v_result.config, labels, protocol, direction
ORDER BY v_result.config, direction, protocol;
