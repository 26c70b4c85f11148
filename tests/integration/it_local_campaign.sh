#!/usr/bin/env bash
# it_local_campaign: a campaign in local mode against a file, stored in a real PostgreSQL; every
# stored figure of a single-job run must equal the final fio JSON the agent received, exactly.
. "$(dirname "$0")/lib.sh"
pg_start

mkdir -p "$T/target"
cat >"$T/spec.yaml" <<SPEC
name: it-exact
sut:
  labels: {build: it, media: file, compression: none}
target: $T/target/data.bin
size: 64M
profiles: [4k-rand, {name: 8k-7030, sweep: none}]
threads: 1
qd: 4
runtime: 3s
precondition: none
SPEC
"$LG_BIN/lgctl" --data-dir "$T/lgdata" run "$T/spec.yaml" >"$T/report.txt" 2>"$T/lgctl.log" ||
    { cat "$T/lgctl.log" >&2; fail "lgctl run exited $?"; }
cat "$T/report.txt"

expect_eq "runs done" "$(q "SELECT count(*) FROM lg.run WHERE state = 'done'")" 3
expect_eq "runs total" "$(q "SELECT count(*) FROM lg.run")" 3
expect_eq "one job per run" "$(q "SELECT string_agg(DISTINCT njobs::text, ',') FROM lg.run_agent")" 1
# 4k-rand read, 4k-rand write, 8k-7030 read+write: 4 merged rows and 4 per-agent rows.
expect_eq "merged rows" "$(q "SELECT count(*) FROM lg.result WHERE agent_id IS NULL")" 4
expect_eq "agent rows" "$(q "SELECT count(*) FROM lg.result WHERE agent_id IS NOT NULL")" 4

# Compare every stored figure, and all 17 percentiles, with fio's own final JSON, archived
# verbatim with the run.
cmp_sql="
WITH f AS (
  SELECT x.*, (ra.fio_json::jsonb)->'jobs'->0->x.direction AS j
  FROM lg.result x
  JOIN lg.run_agent ra ON ra.run_id = x.run_id
  WHERE x.agent_id IS NULL OR x.agent_id = ra.agent_id)
SELECT count(*) FILTER (WHERE NOT (
      ios = (j->>'total_ios')::bigint
  AND bytes = (j->>'io_bytes')::bigint
  AND runtime_ms = (j->>'runtime')::bigint
  AND iops = (j->>'iops')::float8
  AND bw_bytes = (j->>'bw_bytes')::float8
  AND lat_n = (j->'lat_ns'->>'N')::bigint
  AND lat_min = (j->'lat_ns'->>'min')::bigint
  AND lat_max = (j->'lat_ns'->>'max')::bigint
  AND lat_mean = (j->'lat_ns'->>'mean')::float8
  AND lat_stddev = (j->'lat_ns'->>'stddev')::float8
  AND percentiles = j->'lat_ns'->'percentile')),
  count(*)
FROM f"
expect_eq "rows differing from fio's JSON | rows compared" "$(q "$cmp_sql")" "0|8"
# The same numbers, in the report's units, for the first run: the row names its SUT config (its
# labels, short) and protocol, and IOPS has thousands separators.
iops=$(q "SELECT to_char(((ra.fio_json::jsonb)->'jobs'->0->'read'->>'iops')::float8, 'FM999,999,999,990.0')
          FROM lg.run_agent ra JOIN lg.run r USING (run_id) WHERE r.ordinal = 1")
grep -q "^SUT config: it file, compression none$" "$T/report.txt" || fail "the report's SUT line"
grep -E "^[0-9]+ +it file, compression none +local +measure +4k-rand +read +1T4Q +[0-9.]+ +done +$iops " \
    "$T/report.txt" >/dev/null || fail "the report does not show read IOPS $iops"
grep -qE "created [0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2} " "$T/report.txt" ||
    fail "the report's creation time is not to the second"
# The other formats carry the same figures unrounded: JSON's equals fio's own.
"$LG_BIN/lgctl" --data-dir "$T/lgdata" report --campaign it-exact --format json >"$T/report.json"
expect_eq "report --format json: run 1 read IOPS equals fio's" "$(q "
  SELECT (('$(cat "$T/report.json")'::jsonb)->0->>'iops')::float8
       = ((ra.fio_json::jsonb)->'jobs'->0->'read'->>'iops')::float8
  FROM lg.run_agent ra JOIN lg.run r USING (run_id) WHERE r.ordinal = 1")" t
"$LG_BIN/lgctl" --data-dir "$T/lgdata" report --format csv >"$T/report.csv"
expect_eq "report --format csv: rows (a header and one per direction)" "$(wc -l <"$T/report.csv")" 5
head -n 1 "$T/report.csv" | grep -q "^campaign_id,campaign,run,sut,protocol,target,phase," ||
    fail "report --format csv: header $(head -n 1 "$T/report.csv")"
"$LG_BIN/lgctl" --data-dir "$T/lgdata" report --format markdown | grep -q "^| run | SUT config |" ||
    fail "report --format markdown: no table header"
# The local database within reach (local mode's own cluster, so without LG_DATABASE_URL): db url
# (nothing started), db start keeps it up across other commands until db stop, psql on the URL,
# db shell with psql's arguments after --, starting the cluster for the while.
L() { env -u LG_DATABASE_URL "$LG_BIN/lgctl" --data-dir "$T/own" "$@"; }
url=$(L db url 2>"$T/url.err")
grep -q "is not running now" "$T/url.err" || fail "db url does not say the database is down"
L db start >"$T/start.out" 2>/dev/null || fail "lgctl db start failed"
expect_eq "db start prints the URL db url prints" "$(cat "$T/start.out")" "$url"
migs=$(psql "$url" -Atc "SELECT count(*) FROM public.lg_migration")
[ "$migs" -ge 12 ] || fail "db start: $migs migrations applied"
L report --format csv >/dev/null 2>&1 || true # no campaign there: exit 1, the database stays up
expect_eq "runs, after a report (the database stayed up)" "$(psql "$url" -Atc "SELECT count(*) FROM lg.run")" 0
expect_eq "db shell -- -Atc" "$(L db shell -- -Atc "SELECT count(*) FROM public.lg_migration")" "$migs"
L db stop || fail "lgctl db stop failed"
if psql "$url" -Atc "SELECT 1" >/dev/null 2>&1; then fail "the database still answers after db stop"; fi
expect_eq "db shell starts it for the while" "$(L db shell -- -Atc "SELECT count(*) FROM public.lg_migration")" "$migs"
if psql "$url" -Atc "SELECT 1" >/dev/null 2>&1; then fail "db shell left the database up"; fi
echo "ok: db url, db start, db shell, db stop"

# status and watch after the local run has ended: its final state from the database.
"$LG_BIN/lgctl" --data-dir "$T/lgdata" status it-exact >"$T/status.out" 2>&1 ||
    { cat "$T/status.out" >&2; fail "status after the run"; }
grep -q '"it-exact": done, 3 of 3 runs done, 0 failed or aborted; finished ' "$T/status.out" ||
    { cat "$T/status.out" >&2; fail "status after the run does not give the final state"; }
"$LG_BIN/lgctl" --data-dir "$T/lgdata" watch it-exact >"$T/watch.out" 2>&1 || fail "watch after the run"
grep -q '"it-exact": done' "$T/watch.out" || fail "watch after the run: $(cat "$T/watch.out")"
rc=0
"$LG_BIN/lgctl" --data-dir "$T/lgdata" status nosuch >/dev/null 2>"$T/st.err" || rc=$?
expect_eq "status nosuch: exit" "$rc" 1
grep -q 'no campaign named "nosuch"; campaigns: it-exact' "$T/st.err" || fail "status nosuch: $(cat "$T/st.err")"

# A campaign that is not there: exit 1, naming it and the campaigns there are.
rc=0
"$LG_BIN/lgctl" --data-dir "$T/lgdata" report --campaign nosuch >/dev/null 2>"$T/nosuch.err" || rc=$?
expect_eq "report --campaign nosuch: exit" "$rc" 1
grep -q 'no campaign named "nosuch"; campaigns: it-exact' "$T/nosuch.err" ||
    { cat "$T/nosuch.err" >&2; fail "report --campaign nosuch does not say what exists"; }
echo "ok: report shows IOPS $iops"
# Interval samples: deltas of fio's cumulative reports add up to the final count exactly.
expect_eq "runs whose samples do not add up" "$(q "
  SELECT count(*) FROM lg.result x
  WHERE x.agent_id IS NOT NULL
    AND x.ios <> (SELECT sum(s.ios) FROM lg.sample s WHERE s.run_id = x.run_id
                  AND s.agent_id = x.agent_id AND s.direction = x.direction)")" 0
# No artefact at the end: fio's final report, a few ms after its last status report, is folded
# into the last sample instead of making a sample of a few ms with 0 I/Os and some bytes.
expect_eq "samples shorter than half a second, or with bytes but no I/O" "$(q "
  SELECT count(*) FROM lg.sample WHERE interval_ms < 500 OR (ios = 0 AND bytes > 0)")" 0
expect_eq "samples per run >= 2" "$(q "
  SELECT bool_and(n >= 2) FROM (SELECT count(DISTINCT seq) n FROM lg.sample GROUP BY run_id) s")" t
# Latency means fio's total latency, with lat_percentiles=1 in the job.
grep -q '"lat_percentiles" : "1"' <<<"$(q "SELECT fio_json FROM lg.run_agent LIMIT 1")" ||
    fail "the fio job did not run with lat_percentiles=1"
echo "ok: lat_percentiles=1"
echo "PASS"
