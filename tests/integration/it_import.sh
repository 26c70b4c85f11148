#!/usr/bin/env bash
# it_import: results of bare fio runs imported with "lgctl import fio-json" reproduce fio's own
# numbers (one job: exactly; several jobs: merged as lg merges); fio's client-mode form works;
# a truncated or non-fio file is refused with a clear message and nothing is stored.
. "$(dirname "$0")/lib.sh"
pg_start
"$LG_BIN/lgctl" db migrate >/dev/null

cat >"$T/one.fio" <<'JOB'
[global]
ioengine=null
size=64m
bs=4k
rw=randread
iodepth=8
time_based=1
runtime=2
lat_percentiles=1
[one]
JOB
sed 's/^\[one\]/numjobs=3\nrw=randrw\nrwmixread=60\n[three]/' "$T/one.fio" >"$T/three.fio"
fio --output-format=json+ --output="$T/4k-randread.json" "$T/one.fio" >/dev/null
fio --output-format=json+ --output="$T/mixed-3jobs.json" "$T/three.fio" >/dev/null

"$LG_BIN/lgctl" import fio-json "$T/4k-randread.json" "$T/mixed-3jobs.json" \
    --labels build=handmade,media=null,nic=none --name handmade >"$T/import.txt" 2>"$T/import.err" ||
    { cat "$T/import.err"; fail "import failed"; }
cat "$T/import.txt"
expect_eq "runs" "$(q "SELECT string_agg(profile || ':' || direction || ':' || threads || 'T' || qd || 'Q',
    ' ' ORDER BY ordinal) FROM lg.run")" "4k-randread:read:1T8Q mixed-3jobs:mixed:3T8Q"
# The raw JSON is archived verbatim.
q "SELECT fio_json FROM lg.run_agent ra JOIN lg.run r USING (run_id) WHERE r.ordinal = 1" \
    >"$T/archived.json"
# (psql ends the value with one more newline)
diff <(cat "$T/4k-randread.json"; echo) "$T/archived.json" >/dev/null ||
    fail "the archived JSON is not the file verbatim"
echo "ok: archived verbatim"
# One job: every figure and every percentile equals fio's, exactly.
expect_eq "one job: rows differing from fio" "$(q "
  WITH f AS (SELECT x.*, (ra.fio_json::jsonb)->'jobs'->0->'read' AS j FROM lg.result x
             JOIN lg.run_agent ra USING (run_id) JOIN lg.run r USING (run_id) WHERE r.ordinal = 1)
  SELECT count(*) FILTER (WHERE NOT (ios = (j->>'total_ios')::bigint
    AND iops = (j->>'iops')::float8 AND bw_bytes = (j->>'bw_bytes')::float8
    AND lat_mean = (j->'lat_ns'->>'mean')::float8 AND lat_stddev = (j->'lat_ns'->>'stddev')::float8
    AND lat_max = (j->'lat_ns'->>'max')::bigint AND lat_min = (j->'lat_ns'->>'min')::bigint
    AND percentiles = j->'lat_ns'->'percentile')) || '/' || count(*) FROM f")" "0/2"
run2=$(q "SELECT run_id FROM lg.run WHERE ordinal = 2")
check_merged "$run2" read
check_merged "$run2" write
# The labels are columns of the publishing view.
expect_eq "v_result" "$(q "SELECT string_agg(campaign || ':' || build || ':' || media || ':' || nic
    || ':' || direction || ':' || (iops > 0), ' ' ORDER BY run_id, direction) FROM lg.v_result")" \
    "handmade:handmade:null:none:read:true handmade:handmade:null:none:read:true handmade:handmade:null:none:write:true"

# fio's client mode (client_stats, one entry per job plus "All clients").
"$LG_BIN/lgctl" import fio-json "$LG_SRC/tests/unit/data/fio_client.json" --labels build=client \
    --name client >/dev/null 2>"$T/client.err" || { cat "$T/client.err"; fail "client import"; }
run3=$(q "SELECT run_id FROM lg.run r JOIN lg.campaign c USING (campaign_id) WHERE c.name = 'client'")
expect_eq "client mode agent" "$(q "SELECT a.name FROM lg.run_agent JOIN lg.agent a USING (agent_id)
    WHERE run_id = $run3")" "import:127.0.0.1"
for d in $(q "SELECT direction FROM lg.result WHERE run_id = $run3 AND agent_id IS NULL"); do
    check_merged "$run3" "$d"
done

# Broken input: a clear error naming the file, nothing stored.
before=$(q "SELECT count(*) FROM lg.campaign")/$(q "SELECT count(*) FROM lg.run")
head -c 3000 "$T/4k-randread.json" >"$T/truncated.json"
echo '{"hello": "world"}' >"$T/other.json"
for f in truncated other; do
    rc=0
    "$LG_BIN/lgctl" import fio-json "$T/4k-randread.json" "$T/$f.json" --name "bad-$f" \
        >/dev/null 2>"$T/$f.err" || rc=$?
    [ $rc -eq 1 ] || fail "$f: exit $rc, want 1"
    grep -q "$f.json" "$T/$f.err" || { cat "$T/$f.err"; fail "$f: the message does not name the file"; }
    grep -q "nothing stored" "$T/$f.err" || fail "$f: the message does not say nothing was stored"
    echo "ok: $f refused: $(cat "$T/$f.err")"
done
expect_eq "nothing stored by failed imports" "$(q "SELECT count(*) FROM lg.campaign")/$(q "SELECT count(*) FROM lg.run")" "$before"

# export-run: the samples and results of one run, as CSV and JSON.
"$LG_BIN/lgctl" export-run "$run2" --format csv >"$T/run2.csv" || fail "export csv"
head -n 1 "$T/run2.csv" | grep -q '^record,agent,direction,seq' || fail "csv header"
expect_eq "csv result rows" "$(grep -c '^result,' "$T/run2.csv")" 4
"$LG_BIN/lgctl" export-run "$run2" --format json | jq -e '.results | length == 4' >/dev/null ||
    fail "json export"
echo "PASS"
