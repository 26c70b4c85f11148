-- lg.v_sut_sample: view (schema/views: re-created by lgctl db migrate; see schema/README.md)
-- One row per scrape after the baseline: the NAS's figures over the time since the previous
-- answered scrape; a missed scrape's are NULL.
CREATE VIEW lg.v_sut_sample AS
WITH d AS (
    SELECT run_id, source, seq, t, max(elapsed_s) AS elapsed_s,
           sum(delta) FILTER (WHERE key LIKE 'cpu.%' AND key <> 'cpu.count') AS cpu_all,
           sum(delta) FILTER (WHERE key IN ('cpu.idle', 'cpu.iowait')) AS cpu_idle,
           sum(delta) FILTER (WHERE key = 'cpu.iowait') AS cpu_iowait,
           max(val) FILTER (WHERE key = 'mem.avail') AS mem_avail,
           max(val) FILTER (WHERE key = 'mem.total') AS mem_total,
           max(CASE WHEN key LIKE 'disk.busy.%' THEN delta / nullif(elapsed_s, 0)
                    WHEN key LIKE 'disk.idle.%' THEN 1 - delta / nullif(elapsed_s, 0) END)
               AS disk_busy,
           sum(delta / nullif(elapsed_s, 0)) FILTER (WHERE key LIKE 'disk.read.%') AS disk_read,
           sum(delta / nullif(elapsed_s, 0)) FILTER (WHERE key LIKE 'disk.written.%') AS disk_write,
           sum(delta / nullif(elapsed_s, 0)) FILTER (WHERE key LIKE 'net.rx.%') AS net_rx,
           sum(delta / nullif(elapsed_s, 0)) FILTER (WHERE key LIKE 'net.tx.%') AS net_tx,
           sum(delta) FILTER (WHERE key = 'arc.hits') AS arc_hits,
           sum(delta) FILTER (WHERE key = 'arc.misses') AS arc_misses,
           max(val) FILTER (WHERE key = 'arc.size') AS arc_size
    FROM lg.v_sut_delta
    GROUP BY run_id, source, seq, t)
SELECT s.run_id, s.source, s.seq, s.kind, coalesce(d.t, s.t_send) AS t, d.elapsed_s,
       100 * (1 - d.cpu_idle / nullif(d.cpu_all, 0)) AS cpu_busy_pct,
       100 * d.cpu_iowait / nullif(d.cpu_all, 0) AS cpu_iowait_pct,
       d.mem_avail AS mem_avail_bytes, d.mem_total AS mem_total_bytes,
       CASE WHEN d.disk_busy IS NOT NULL THEN 100 * least(1, greatest(0, d.disk_busy)) END
           AS disk_busy_pct_max,
       d.disk_read AS disk_read_bytes_s, d.disk_write AS disk_write_bytes_s,
       d.net_rx AS net_rx_bytes_s, d.net_tx AS net_tx_bytes_s,
       100 * d.arc_hits / nullif(d.arc_hits + d.arc_misses, 0) AS arc_hit_pct,
       d.arc_size AS arc_size_bytes, s.t_recv IS NULL AS missed, s.error
FROM lg.sut_scrape s
LEFT JOIN d USING (run_id, source, seq)
WHERE s.kind <> 'before';
GRANT SELECT ON lg.v_sut_sample TO lg_reader, lg_writer;
