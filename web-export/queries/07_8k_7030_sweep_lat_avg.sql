-- chart: line
-- title: 8K 70/30 sweep average latency
-- subtitle: 8 KiB random 70% read, mean latency over reads and writes
-- x: load
-- y: lat_avg_ms
-- series: config
-- unit: ms
-- lower-is-better
-- # One point per load point (threads T, queue depth Q) of the sweep, per SUT config and protocol.
SELECT format('#%s %s · %s', config,
              (SELECT string_agg(value, ' / ' ORDER BY key) FROM jsonb_each_text(labels)), protocol) AS config,
       threads || 'T' || qd || 'Q' AS load,
       sum(lat_avg_ms * ios) / nullif(sum(ios), 0) AS lat_avg_ms
FROM lg.v_result
WHERE (:campaign IS NULL OR campaign = :campaign) AND phase = 'measure' AND profile = '8k-7030'
GROUP BY v_result.config, labels, protocol, threads, qd
ORDER BY threads, qd, v_result.config, protocol;
