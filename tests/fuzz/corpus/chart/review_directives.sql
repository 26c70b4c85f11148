-- chart: timeseries
-- title: IOPS beside the NAS's CPU: run {run_id}
-- x: elapsed_s
-- y: iops
-- y2: busy_pct
-- y2-unit: %
-- series: what
-- each: run_id
-- group: profile config
-- window: window_start_s window_end_s
-- caveat: caveat
-- label: load
SELECT 1 AS run_id, 0.5 AS elapsed_s, 10 AS iops, NULL AS busy_pct, 'IOPS' AS what,
       'p' AS profile, 'c' AS config, 0 AS window_start_s, 3 AS window_end_s,
       '["a <caveat> & more"]' AS caveat, '1T1Q' AS load;
