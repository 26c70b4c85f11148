-- lg.v_sut_run: view (schema/views: re-created by lgctl db migrate; see schema/README.md)
-- Per run and source, over the measured window: a scrape counts for the part of the time it
-- covers that lies in the window (its rates held for that time), so means are the window's own
-- even when a scrape straddles its start or end (scrapes seconds apart on a busy NAS, a window of
-- a few seconds); maxima and counts are over the scrapes that overlap it.
CREATE VIEW lg.v_sut_run AS
SELECT x.run_id, x.source,
       sum(x.cpu_busy_pct * o.ov) / nullif(sum(o.ov) FILTER (
           WHERE x.cpu_busy_pct IS NOT NULL), 0) AS cpu_busy_pct_mean,
       max(x.cpu_busy_pct) AS cpu_busy_pct_max,
       sum(x.cpu_iowait_pct * o.ov) / nullif(sum(o.ov) FILTER (
           WHERE x.cpu_iowait_pct IS NOT NULL), 0) AS cpu_iowait_pct_mean,
       max(x.disk_busy_pct_max) AS disk_busy_pct_max,
       sum(x.disk_read_bytes_s * o.ov) / nullif(sum(o.ov) FILTER (
           WHERE x.disk_read_bytes_s IS NOT NULL), 0) AS disk_read_bytes_s,
       sum(x.disk_write_bytes_s * o.ov) / nullif(sum(o.ov) FILTER (
           WHERE x.disk_write_bytes_s IS NOT NULL), 0) AS disk_write_bytes_s,
       sum(x.net_rx_bytes_s * o.ov) / nullif(sum(o.ov) FILTER (
           WHERE x.net_rx_bytes_s IS NOT NULL), 0) AS net_rx_bytes_s,
       sum(x.net_tx_bytes_s * o.ov) / nullif(sum(o.ov) FILTER (
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
CROSS JOIN LATERAL (SELECT greatest(0::float8, extract(epoch FROM
           least(x.t, w.w_end) - greatest(x.t - make_interval(secs => coalesce(x.elapsed_s, 0)),
                                          w.w_start))::float8) AS ov) o
WHERE (x.missed AND x.t BETWEEN w.w_start AND w.w_end)
   OR (NOT x.missed AND o.ov > 0)
GROUP BY x.run_id, x.source, w.w_start, w.w_end;
GRANT SELECT ON lg.v_sut_run TO lg_reader, lg_writer;
