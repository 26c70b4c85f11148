-- lg.v_sut_run: view (schema/views: re-created by lgctl db migrate; see schema/README.md)
-- Per run and source, over the measured window: a scrape counts when the middle of the time it
-- covers lies in the window; means are weighted by that time.
CREATE VIEW lg.v_sut_run AS
SELECT x.run_id, x.source,
       sum(x.cpu_busy_pct * x.elapsed_s) / nullif(sum(x.elapsed_s) FILTER (
           WHERE x.cpu_busy_pct IS NOT NULL), 0) AS cpu_busy_pct_mean,
       max(x.cpu_busy_pct) AS cpu_busy_pct_max,
       sum(x.cpu_iowait_pct * x.elapsed_s) / nullif(sum(x.elapsed_s) FILTER (
           WHERE x.cpu_iowait_pct IS NOT NULL), 0) AS cpu_iowait_pct_mean,
       max(x.disk_busy_pct_max) AS disk_busy_pct_max,
       sum(x.disk_read_bytes_s * x.elapsed_s) / nullif(sum(x.elapsed_s) FILTER (
           WHERE x.disk_read_bytes_s IS NOT NULL), 0) AS disk_read_bytes_s,
       sum(x.disk_write_bytes_s * x.elapsed_s) / nullif(sum(x.elapsed_s) FILTER (
           WHERE x.disk_write_bytes_s IS NOT NULL), 0) AS disk_write_bytes_s,
       sum(x.net_rx_bytes_s * x.elapsed_s) / nullif(sum(x.elapsed_s) FILTER (
           WHERE x.net_rx_bytes_s IS NOT NULL), 0) AS net_rx_bytes_s,
       sum(x.net_tx_bytes_s * x.elapsed_s) / nullif(sum(x.elapsed_s) FILTER (
           WHERE x.net_tx_bytes_s IS NOT NULL), 0) AS net_tx_bytes_s,
       min(x.mem_avail_bytes) AS mem_avail_bytes_min,
       (SELECT 100 * sum(d.delta) FILTER (WHERE d.key = 'arc.hits')
               / nullif(sum(d.delta) FILTER (WHERE d.key IN ('arc.hits', 'arc.misses')), 0)
        FROM lg.v_sut_delta d
        WHERE d.run_id = x.run_id AND d.source = x.source
          AND d.t - make_interval(secs => d.elapsed_s / 2) BETWEEN w.w_start AND w.w_end)
           AS arc_hit_pct,
       count(*) FILTER (WHERE NOT x.missed) AS samples,
       count(*) FILTER (WHERE x.missed) AS missed,
       (array_agg(x.error ORDER BY x.seq) FILTER (WHERE x.missed))[1] AS first_error
FROM lg.v_sut_sample x
JOIN lg.v_run_window w USING (run_id)
WHERE (x.missed AND x.t BETWEEN w.w_start AND w.w_end)
   OR (NOT x.missed AND x.t - make_interval(secs => coalesce(x.elapsed_s, 0) / 2)
       BETWEEN w.w_start AND w.w_end)
GROUP BY x.run_id, x.source, w.w_start, w.w_end;
GRANT SELECT ON lg.v_sut_run TO lg_reader, lg_writer;
