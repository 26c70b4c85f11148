-- lg.run_seal_text: function (schema/views: re-created by lgctl db migrate; see schema/README.md)
-- What the controller acts on in a run row, as one text: where it writes (target, its mount and
-- share, size, the agents), what it runs and scrapes (application, telemetry sources, reduction
-- probe), and which run of which campaign it is. The controller seals it at submit (an HMAC under
-- its own key, lg.run.seal) and checks it when it takes the run up (028_claims). Load figures the
-- controller itself changes later (a search's threads, qd and rate) are not in it. Changing this
-- text changes every seal: pending runs of older controllers' campaigns then fail their check.
CREATE OR REPLACE FUNCTION lg.run_seal_text(r lg.run)
RETURNS text
LANGUAGE sql STABLE AS $$
    SELECT ROW(r.run_id, r.campaign_id, r.ordinal, r.config_ordinal, r.phase, r.target_kind,
               r.target, r.target_mount, r.target_fs, r.share, r.size_bytes, r.rw, r.direct,
               r.agents, r.app, r.app_params, r.telemetry, r.reduction)::text
$$;
GRANT EXECUTE ON FUNCTION lg.run_seal_text(lg.run) TO lg_writer;
