-- title: data reduction the NAS achieved
-- about: (its reduction: probe after each config's last run)
-- head: config | SUT config | logical GB | physical GB | achieved | written | note
-- left: 2
-- note
-- figures: logical_gb 3, physical_gb 3, achieved_ratio 2, written_ratio 2
-- warn: warning
-- footer: achieved: logical / physical bytes as the NAS reports them; written: the ratio of the data lg wrote (zstd per record as the agents read it back, else the ratio the campaign asked for).
-- # What the NAS stored for what each config of campaign $1 wrote (its reduction: probe after the
-- # config's last run) beside the ratio lg wrote; a failed probe is said after the table too.
SELECT d.config, lg.sut_short(d.labels) AS sut,
  d.logical_bytes / 1e9 AS logical_gb, d.physical_bytes / 1e9 AS physical_gb,
  d.achieved_ratio, d.written_ratio,
  CASE WHEN coalesce(d.error, '') <> '' THEN 'the probe failed: ' || d.error
    -- the probe after read what the config wrote: before, nothing was there yet
    WHEN coalesce(d.error_before, '') <> ''
    THEN 'before its first run: nothing written yet (the probe: ' || d.error_before || ')'
    ELSE '' END AS note,
  CASE WHEN coalesce(d.error, '') <> ''
    THEN 'config ' || d.config || ': its reduction probe failed: ' || d.error END AS warning
FROM lg.v_reduction d WHERE d.campaign_id = $1::bigint ORDER BY d.config
