-- lg.v_run: view (schema/views: re-created by lgctl db migrate; see schema/README.md)
-- lg.run for readers (who read views only, 008_reader). The columns are named, not *, so the
-- view is what this file says (telemetry and reduction are not among them, as before).
CREATE VIEW lg.v_run AS
    SELECT run_id, campaign_id, ordinal, sut_config_id, phase, profile, direction, rw, bs,
           read_pct, threads, qd, ramp_s, runtime_s, target_kind, target, size_bytes, direct,
           state, error, started_at, finished_at, config_ordinal, protocol, repeat, gate,
           rate_iops, thinktime_us, thinktime_blocks, bssplit, compress_ratio, dedup_ratio,
           dedup_unit, round_s, ss_reached, ss_rounds, ss_window, start_skew_us, agents, share,
           target_fs, target_mount, headline, search_id, probe, rate_total, curve_pct, curve_base,
           search_value, search_iops, app, app_params, qd_achieved, qd_inflight, qd_short,
           attempt, first_run, retries
    FROM lg.run;
GRANT SELECT ON lg.v_run TO lg_reader, lg_writer;
