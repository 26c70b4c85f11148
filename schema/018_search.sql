-- 018_search: the latency-bounded load search and paced load points. A search is one row here
-- per (campaign, SUT config, target, profile, workload); its probes are runs (phase 'search',
-- probe 1..steps) planned up front so the plan shows the worst case: the controller sets each
-- probe's load when the one before it ends, in the same transaction, and marks the probes it
-- did not need 'skipped'. The outcome (state, the best load under the limit and its IOPS, the
-- first load over it) is written with the probe that decided it. Paced runs carry rate_total,
-- the offered IOPS over all their agents; a curve point carries curve_pct of its base (the
-- search's best, or the run at ordinal curve_base) and gets its rate when that base ends.
CREATE TABLE lg.search (
    search_id       bigserial PRIMARY KEY,
    campaign_id     bigint NOT NULL REFERENCES lg.campaign ON DELETE CASCADE,
    sut_config_id   bigint NOT NULL REFERENCES lg.sut_config,
    config_ordinal  integer NOT NULL,
    protocol        text NOT NULL,
    profile         text NOT NULL,
    direction       text NOT NULL,
    metric          text NOT NULL REFERENCES lg.metric,
    limit_ms        double precision NOT NULL CHECK (limit_ms > 0),
    vary            text NOT NULL CHECK (vary IN ('qd', 'threads', 'rate')),
    min_load        integer NOT NULL,
    max_load        integer NOT NULL,       -- 0: none (rate: what the unpaced probe reached)
    steps           integer NOT NULL,
    resolution_pct  integer NOT NULL,
    threads         integer NOT NULL,       -- the fixed part of the load
    qd              integer NOT NULL,
    state           text NOT NULL DEFAULT 'pending'
                    CHECK (state IN ('pending', 'probing', 'knee', 'not-reached', 'first-over',
                                     'steps', 'failed')),
    probes          integer NOT NULL DEFAULT 0,
    good_run_id     bigint,                 -- the highest load under the limit
    good_load       integer,
    good_value_ms   double precision,
    iops_at_limit   double precision,
    bad_run_id      bigint,                 -- the lowest load over it
    bad_load        integer,
    bad_value_ms    double precision,
    message         text,
    finished_at     timestamptz
);
CREATE INDEX search_campaign ON lg.search (campaign_id);

ALTER TABLE lg.run
    ADD COLUMN search_id    bigint REFERENCES lg.search ON DELETE CASCADE,
    ADD COLUMN probe        integer,          -- 1-based probe of search_id; NULL: not a probe
    ADD COLUMN rate_total   integer NOT NULL DEFAULT 0, -- offered IOPS over all agents; 0 unpaced
    ADD COLUMN curve_pct    integer,          -- a curve point: percent of its base's IOPS
    ADD COLUMN curve_base   integer,          -- ordinal of its base run (NULL: the search's best)
    ADD COLUMN search_value double precision, -- a probe's metric (all I/Os, merged)
    ADD COLUMN search_iops  double precision; -- a probe's IOPS (all I/Os, merged)
CREATE INDEX run_search ON lg.run (search_id) WHERE search_id IS NOT NULL;

ALTER TABLE lg.run DROP CONSTRAINT run_state_check;
ALTER TABLE lg.run ADD CONSTRAINT run_state_check
    CHECK (state IN ('pending', 'running', 'done', 'partial', 'failed', 'aborted', 'skipped'));

INSERT INTO lg.metric VALUES ('iops_at_limit', 'IOPS', true, 13);

CREATE OR REPLACE VIEW lg.v_run AS SELECT * FROM lg.run;

-- A search with its campaign and config, and its probes in the order they ran.
CREATE VIEW lg.v_search AS
SELECT s.*, c.name AS campaign, sc.labels, lg.sut_short(sc.labels) AS sut
FROM lg.search s
JOIN lg.campaign c USING (campaign_id)
JOIN lg.sut_config sc USING (sut_config_id);

CREATE VIEW lg.v_search_probe AS
SELECT r.search_id, r.probe, r.run_id, r.state, r.threads, r.qd, r.rate_total,
       CASE s.vary WHEN 'qd' THEN r.qd WHEN 'threads' THEN r.threads ELSE r.rate_total END AS load,
       r.search_value AS value_ms, r.search_iops AS iops, s.metric, s.limit_ms,
       r.search_value > s.limit_ms AS over_limit,
       r.run_id = s.good_run_id AS is_good, r.run_id = s.bad_run_id AS is_bad
FROM lg.run r
JOIN lg.search s USING (search_id)
WHERE r.probe IS NOT NULL AND r.state NOT IN ('pending', 'skipped');

-- v_metric: search outcomes become the figure iops_at_limit (keyed by the search's metric and
-- limit, and the fixed part of its load); paced runs are told apart from unpaced ones at the
-- same load by a "rate" (offered IOPS) or, for a curve point, a "curve" (percent) field.
CREATE OR REPLACE VIEW lg.v_metric AS
SELECT c.campaign_id, c.name AS campaign, 'run'::text AS source, r.run_id, NULL::integer AS line,
       s.sut_config_id,
       s.labels || CASE WHEN r.curve_pct IS NOT NULL
                        THEN jsonb_build_object('curve', r.curve_pct || '%')
                        WHEN r.rate_total > 0 THEN jsonb_build_object('rate', r.rate_total::text)
                        ELSE '{}'::jsonb END AS labels,
       r.profile, x.direction, r.protocol, r.threads, r.qd,
       r.repeat, m.metric, m.value
FROM lg.result x
JOIN lg.run r USING (run_id)
JOIN lg.campaign c USING (campaign_id)
JOIN lg.sut_config s USING (sut_config_id)
CROSS JOIN LATERAL (VALUES
    ('iops', x.iops), ('mbps', x.bw_bytes / 1e6),
    ('lat_avg_ms', x.lat_mean / 1e6), ('lat_min_ms', x.lat_min / 1e6),
    ('lat_max_ms', x.lat_max / 1e6), ('lat_stddev_ms', x.lat_stddev / 1e6),
    ('p50_ms', (x.percentiles ->> '50.000000')::float8 / 1e6),
    ('p90_ms', (x.percentiles ->> '90.000000')::float8 / 1e6),
    ('p95_ms', (x.percentiles ->> '95.000000')::float8 / 1e6),
    ('p99_ms', (x.percentiles ->> '99.000000')::float8 / 1e6),
    ('p99_9_ms', (x.percentiles ->> '99.900000')::float8 / 1e6),
    ('p99_99_ms', (x.percentiles ->> '99.990000')::float8 / 1e6)) m(metric, value)
WHERE x.agent_id IS NULL AND r.state = 'done' AND r.phase = 'measure' AND m.value IS NOT NULL
UNION ALL
SELECT c.campaign_id, c.name, 'import', NULL, f.line, s.sut_config_id, s.labels, f.profile,
       f.direction, f.protocol, f.threads, f.qd, 1, f.metric, f.value
FROM lg.imported_figure f
JOIN lg.campaign c USING (campaign_id)
JOIN lg.sut_config s USING (sut_config_id)
UNION ALL
SELECT c.campaign_id, c.name, 'search', s.good_run_id, NULL, s.sut_config_id,
       sc.labels || jsonb_build_object('search', s.metric || '<=' || s.limit_ms || 'ms by '
                                                 || s.vary),
       s.profile, s.direction, s.protocol,
       CASE WHEN s.vary = 'threads' THEN NULL ELSE s.threads END,
       CASE WHEN s.vary = 'qd' THEN NULL ELSE s.qd END,
       1, 'iops_at_limit', s.iops_at_limit
FROM lg.search s
JOIN lg.campaign c USING (campaign_id)
JOIN lg.sut_config sc USING (sut_config_id)
WHERE s.iops_at_limit IS NOT NULL AND s.state IN ('knee', 'not-reached', 'steps');

GRANT SELECT ON lg.v_search, lg.v_search_probe, lg.v_run TO lg_reader, lg_writer;
GRANT SELECT, INSERT, UPDATE, DELETE ON lg.search TO lg_writer;
GRANT USAGE ON SEQUENCE lg.search_search_id_seq TO lg_writer;
