-- 001_init: the results database: agents, SUT configs, campaigns, runs, per-agent rows,
-- interval samples and final results. Latency columns hold fio's total latency (lat_ns) in ns.
CREATE SCHEMA IF NOT EXISTS lg;

CREATE TABLE lg.agent (
    agent_id     bigserial PRIMARY KEY,
    name         text NOT NULL UNIQUE,
    lg_version   text NOT NULL DEFAULT '',
    os           text NOT NULL DEFAULT '',
    cpu_model    text NOT NULL DEFAULT '',
    cpu_count    integer NOT NULL DEFAULT 0,
    mem_bytes    bigint NOT NULL DEFAULT 0,
    fio_version  text NOT NULL DEFAULT '',
    facts        jsonb NOT NULL DEFAULT '{}',
    first_seen   timestamptz NOT NULL DEFAULT now(),
    last_seen    timestamptz NOT NULL DEFAULT now()
);

-- A NAS configuration under test. Labels: build, media, pool, compression, dedup, nic, any other.
CREATE TABLE lg.sut_config (
    sut_config_id bigserial PRIMARY KEY,
    labels        jsonb NOT NULL UNIQUE
);

CREATE TABLE lg.campaign (
    campaign_id  bigserial PRIMARY KEY,
    name         text NOT NULL,
    spec_path    text NOT NULL DEFAULT '',
    spec         text NOT NULL,               -- verbatim
    state        text NOT NULL DEFAULT 'pending'
                 CHECK (state IN ('pending', 'running', 'done', 'failed', 'aborted')),
    created_at   timestamptz NOT NULL DEFAULT now(),
    started_at   timestamptz,
    finished_at  timestamptz
);
CREATE INDEX campaign_name_idx ON lg.campaign (name, campaign_id);

CREATE TABLE lg.run (
    run_id        bigserial PRIMARY KEY,
    campaign_id   bigint NOT NULL REFERENCES lg.campaign ON DELETE CASCADE,
    ordinal       integer NOT NULL,           -- execution order inside the campaign
    sut_config_id bigint NOT NULL REFERENCES lg.sut_config,
    phase         text NOT NULL DEFAULT 'measure',
    profile       text NOT NULL,
    direction     text NOT NULL,              -- read, write, mixed
    rw            text NOT NULL,              -- fio rw=
    bs            integer NOT NULL,
    read_pct      integer NOT NULL,
    threads       integer NOT NULL,
    qd            integer NOT NULL,
    ramp_s        integer NOT NULL,
    runtime_s     integer NOT NULL,
    target_kind   text NOT NULL,
    target        text NOT NULL,
    size_bytes    bigint NOT NULL,
    direct        boolean NOT NULL,
    state         text NOT NULL DEFAULT 'pending'
                  CHECK (state IN ('pending', 'running', 'done', 'failed')),
    error         text,
    started_at    timestamptz,
    finished_at   timestamptz,
    UNIQUE (campaign_id, ordinal)
);

CREATE TABLE lg.run_agent (
    run_id      bigint NOT NULL REFERENCES lg.run ON DELETE CASCADE,
    agent_id    bigint NOT NULL REFERENCES lg.agent,
    state       text NOT NULL DEFAULT 'running',
    fio_exit    integer,
    njobs       integer,
    fio_json    text,                         -- the raw final fio JSON, verbatim
    error       text,
    PRIMARY KEY (run_id, agent_id)
);

-- Interval samples: deltas of fio's cumulative reports, one row per (run, agent, seq, direction).
CREATE TABLE lg.sample (
    run_id       bigint NOT NULL REFERENCES lg.run ON DELETE CASCADE,
    agent_id     bigint NOT NULL REFERENCES lg.agent,
    seq          integer NOT NULL,
    direction    text NOT NULL,
    t_ms         bigint NOT NULL,
    interval_ms  bigint NOT NULL,
    ios          bigint NOT NULL,
    bytes        bigint NOT NULL,
    lat_n        bigint NOT NULL,
    lat_sum      double precision NOT NULL,
    lat_sumsq    double precision NOT NULL,
    lat_min      bigint NOT NULL,
    lat_max      bigint NOT NULL,
    hist         jsonb,                       -- sparse {"bucket index": count}
    PRIMARY KEY (run_id, agent_id, seq, direction)
);

-- Final results per direction: per agent (agent_id set) and merged over agents (agent_id NULL).
CREATE TABLE lg.result (
    result_id    bigserial PRIMARY KEY,
    run_id       bigint NOT NULL REFERENCES lg.run ON DELETE CASCADE,
    agent_id     bigint REFERENCES lg.agent,
    direction    text NOT NULL,
    ios          bigint NOT NULL,
    bytes        bigint NOT NULL,
    runtime_ms   bigint NOT NULL,
    iops         double precision NOT NULL,
    bw_bytes     double precision NOT NULL,
    lat_n        bigint NOT NULL,
    lat_min      bigint NOT NULL,
    lat_max      bigint NOT NULL,
    lat_mean     double precision NOT NULL,
    lat_stddev   double precision NOT NULL,
    lat_sum      double precision NOT NULL,
    lat_sumsq    double precision NOT NULL,
    percentiles  jsonb,                       -- {"99.000000": ns, ...}
    hist         jsonb                        -- sparse {"bucket index": count}
);
CREATE UNIQUE INDEX result_once_idx ON lg.result (run_id, coalesce(agent_id, 0), direction);
