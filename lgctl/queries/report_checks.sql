-- # What the operator's check (lg-controller --readback) read back of each config of campaign $1
-- # before its first run, beside the config's labels.
SELECT config, sut, coalesce((SELECT string_agg(e.key || '=' || e.value,
    ', ' ORDER BY e.key) FROM jsonb_each_text(read) e), '') AS read,
  coalesce(error, '') AS error
FROM lg.v_config_check WHERE campaign_id = $1::bigint ORDER BY config
