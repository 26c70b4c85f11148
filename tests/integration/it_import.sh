#!/usr/bin/env bash
# it_import: results of bare fio runs imported with "lgctl import fio-json" reproduce fio's own
# numbers (one job: exactly; several jobs: merged as lg merges); fio's client-mode form works;
# a truncated or non-fio file is refused with a clear message and nothing is stored. Faithful or
# NULL: plain json with lat_percentiles=1 keeps the percentiles fio printed; fio's default (clat
# percentiles only) stores them as clat percentiles (clat_p99_ms in v_metric, report, compare) and
# total-latency ones NULL, with a warning naming the file; gtod_reduce=1 stores latency NULL,
# never 0 ms; two fio servers on one host are two agents (host and port).
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
check_merged "$run2" read import
check_merged "$run2" write import
# The labels are columns of the publishing view.
expect_eq "v_result" "$(q "SELECT string_agg(campaign || ':' || build || ':' || media || ':' || nic
    || ':' || direction || ':' || (iops > 0), ' ' ORDER BY run_id, direction) FROM lg.v_result")" \
    "handmade:handmade:null:none:read:true handmade:handmade:null:none:read:true handmade:handmade:null:none:write:true"

# fio's client mode (client_stats, one entry per job plus "All clients").
"$LG_BIN/lgctl" import fio-json "$LG_SRC/tests/unit/data/fio_client.json" --labels build=client \
    --name client >/dev/null 2>"$T/client.err" || { cat "$T/client.err"; fail "client import"; }
run3=$(q "SELECT run_id FROM lg.run r JOIN lg.campaign c USING (campaign_id) WHERE c.name = 'client'")
expect_eq "client mode agent" "$(q "SELECT a.name FROM lg.run_agent JOIN lg.agent a USING (agent_id)
    WHERE run_id = $run3")" "import:127.0.0.1:38765"
for d in $(q "SELECT direction FROM lg.result WHERE run_id = $run3 AND agent_id IS NULL"); do
    check_merged "$run3" "$d" import
done

# The same 3 jobs as fio reports jobs of different lengths: 2000, 2000 and 1900 ms, each job's
# IOPS and bandwidth its own over its own runtime, as fio computes them. The import takes fio's
# group rule, the total over the longest runtime, and check_merged's import mode follows it; the
# sum of the jobs' rates, 1.7% more here, is another figure.
jq 'def rt(d; ms): d.runtime = ms | d.iops = (d.total_ios * 1000 / ms)
                   | d.bw_bytes = (d.io_bytes * 1000 / ms);
    .jobs[0].read |= rt(.; 2000) | .jobs[1].read |= rt(.; 2000) | .jobs[2].read |= rt(.; 1900)
    | .jobs[0].write |= rt(.; 2000) | .jobs[1].write |= rt(.; 2000) | .jobs[2].write |= rt(.; 1900)' \
    "$T/mixed-3jobs.json" >"$T/mixed-skewed.json"
"$LG_BIN/lgctl" import fio-json "$T/mixed-skewed.json" --name skewed >/dev/null 2>"$T/skewed.err" ||
    { cat "$T/skewed.err"; fail "import of mixed-skewed.json"; }
run4=$(q "SELECT run_id FROM lg.run r JOIN lg.campaign c USING (campaign_id) WHERE c.name = 'skewed'")
check_merged "$run4" read import
check_merged "$run4" write import
expect_eq "jobs 5% apart: IOPS = total I/Os / 2 s, not the sum of their rates" "$(q "
  SELECT abs(iops - $(jq '[.jobs[].read.total_ios] | add / 2' "$T/mixed-skewed.json")) <= 1e-9 * iops
     AND abs(iops - $(jq '[.jobs[].read.iops] | add' "$T/mixed-skewed.json")) > 1e-3 * iops
  FROM lg.result WHERE run_id = $run4 AND agent_id IS NULL AND direction = 'read'")" t

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

# ---- faithful or NULL, from real fio runs ----
cat >"$T/plain.fio" <<JOB
[plain]
ioengine=null
size=64m
bs=4k
rw=randread
time_based=1
runtime=1
lat_percentiles=1
JOB
fio --output-format=json --output="$T/plain.json" "$T/plain.fio" >/dev/null
sed '/^lat_percentiles=1$/d' "$T/plain.fio" >"$T/clat.fio"
fio --output-format=json --output="$T/clat.json" "$T/clat.fio" >/dev/null
sed 's/^lat_percentiles=1$/gtod_reduce=1/' "$T/plain.fio" >"$T/gtod.fio"
fio --output-format=json --output="$T/gtod.json" "$T/gtod.fio" >/dev/null
for f in plain clat gtod; do
    "$LG_BIN/lgctl" import fio-json "$T/$f.json" --name "f-$f" >/dev/null 2>"$T/$f.err" ||
        { cat "$T/$f.err"; fail "import of $f.json"; }
done
res() { q "SELECT $2 FROM lg.result x JOIN lg.run r USING (run_id) JOIN lg.campaign c USING (campaign_id)
           WHERE c.name = 'f-$1' AND x.agent_id IS NULL"; }
expect_eq "plain json, lat_percentiles=1: p99 as fio printed it" "$(res plain "percentiles->>'99.000000'")" \
    "$(jq -r '.jobs[0].read.lat_ns.percentile["99.000000"]' "$T/plain.json")"
expect_eq "plain json: all of fio's percentiles" "$(res plain "percentiles::text")" \
    "$(q "SELECT '$(jq -c '.jobs[0].read.lat_ns.percentile' "$T/plain.json")'::jsonb::text")"
expect_eq "clat percentiles only: NULL, never 0" "$(res clat "coalesce(percentiles::text, 'NULL')")" NULL
grep -q "warning: \"$T/clat.json\": fio printed completion-latency percentiles only, its default: they are stored as such" "$T/clat.err" ||
    { cat "$T/clat.err"; fail "no warning naming clat.json"; }
# ... and its completion-latency percentiles are kept as what they are (issue 44 part 4)
expect_eq "clat percentiles kept as clat, every one fio printed" "$(res clat "clat_percentiles::text")" \
    "$(q "SELECT '$(jq -c '.jobs[0].read.clat_ns.percentile' "$T/clat.json")'::jsonb::text")"
expect_eq "plain json, lat_percentiles=1: no clat percentiles (fio printed total ones)" \
    "$(res plain "coalesce(clat_percentiles::text, 'NULL')")" NULL
want=$(jq -r '.jobs[0].read.clat_ns.percentile["99.000000"] / 1e6' "$T/clat.json")
expect_eq "clat_p99_ms in lg.v_metric" "$(q "SELECT round(value::numeric, 9) FROM lg.v_metric
    WHERE campaign = 'f-clat' AND metric = 'clat_p99_ms'")" "$(printf '%.9f' "$want")"
expect_eq "no p99_ms in lg.v_metric for it" "$(q "SELECT count(*) FROM lg.v_metric
    WHERE campaign = 'f-clat' AND metric = 'p99_ms'")" 0
"$LG_BIN/lgctl" report --campaign f-clat >"$T/clat.report"
grep -q "$(printf '%.3f' "$want") c" "$T/clat.report" || { cat "$T/clat.report"; fail "report: clat p99 not shown as such"; }
grep -q "p99 ms with c: fio's completion-latency (clat) p99" "$T/clat.report" || fail "report: no clat note"
"$LG_BIN/lgctl" rank --metric clat_p99_ms --campaign f-clat --format csv >"$T/clat.rank" ||
    fail "rank --metric clat_p99_ms"
expect_eq "rank: the clat p99" "$(awk -F, 'NR == 2 { printf "%.9f", $8 }' "$T/clat.rank")" "$(printf '%.9f' "$want")"
"$LG_BIN/lg-export" --db "$LG_DATABASE_URL" --out "$T/clat-site" --campaign f-clat >/dev/null 2>"$T/clat-export.log" ||
    { cat "$T/clat-export.log"; fail "lg-export of the clat campaign"; }
csv=$(ls "$T/clat-site"/19_clat_p99_per_profile*.csv 2>/dev/null | head -1)
[ -n "$csv" ] || { ls "$T/clat-site"; fail "lg-export: no clat p99 chart"; }
expect_eq "lg-export: the clat p99 chart's figure" \
    "$(python3 -c 'import csv, sys; r = list(csv.DictReader(open(sys.argv[1]))); print("%.9f" % float(r[0]["clat_p99_ms"]))' "$csv")" \
    "$(printf '%.9f' "$want")"
for f in "$T/clat-site"/14_p99_per_profile*.csv; do # (none, or without a figure)
    [ -e "$f" ] || continue
    [ -z "$(python3 -c 'import csv, sys; print("".join(r["p99_ms"] for r in csv.DictReader(open(sys.argv[1]))))' "$f")" ] ||
        fail "lg-export: the clat figure drawn as total-latency p99 in $f"
done
expect_eq "clat: the mean latency is still fio's lat_ns mean" "$(res clat "lat_mean")" \
    "$(jq -r '.jobs[0].read.lat_ns.mean' "$T/clat.json")"
expect_eq "gtod_reduce=1: latency NULL, not 0 ms" \
    "$(res gtod "coalesce(lat_mean::text, 'NULL') || ' ' || coalesce(lat_max::text, 'NULL') || ' ' || lat_n")" \
    "NULL NULL 0"
grep -q "no latency was measured" "$T/gtod.err" || fail "no warning for gtod.json"
expect_eq "gtod_reduce=1: IOPS still fio's" "$(res gtod iops)" "$(jq -r '.jobs[0].read.iops' "$T/gtod.json")"
echo "ok: printed percentiles kept; clat-only: clat percentiles kept as clat (clat_p99_ms), total ones and unmeasured latency NULL with warnings"

# Two fio servers on one host: two agents, told apart by port.
p1=$(free_port 2) # two ports nothing uses (a random one could be a neighbour's)
p2=$((p1 + 1))
fio --server="ip:127.0.0.1,$p1" >"$T/s1.log" 2>&1 &
CLEANUP_PIDS+=($!)
fio --server="ip:127.0.0.1,$p2" >"$T/s2.log" 2>&1 &
CLEANUP_PIDS+=($!)
printf 'ip:127.0.0.1,%s\nip:127.0.0.1,%s\n' "$p1" "$p2" >"$T/hosts"
for _ in $(seq 1 100); do # both servers listening before the client starts
    [ "$(ss -Hltn "( sport = :$p1 or sport = :$p2 )" | wc -l)" -ge 2 ] && break
    sleep 0.1
done
fio --client="$T/hosts" --output-format=json --output="$T/two.json" "$T/plain.fio" >"$T/client.log" 2>&1 ||
    fail "fio client mode against two servers on 127.0.0.1 failed: $(tail -n 5 "$T/client.log")"
expect_eq "fio's own client entries" \
    "$(jq '[.client_stats[] | select(.jobname != "All clients")] | length' "$T/two.json")" 2
"$LG_BIN/lgctl" import fio-json "$T/two.json" --name f-two >/dev/null 2>"$T/two.err" ||
    { cat "$T/two.err"; fail "import of two servers"; }
expect_eq "agents of the two-server run" "$(q "SELECT string_agg(a.name, ' ' ORDER BY a.name)
    FROM lg.run_agent ra JOIN lg.agent a USING (agent_id) JOIN lg.run r USING (run_id)
    JOIN lg.campaign c USING (campaign_id) WHERE c.name = 'f-two'")" \
    "import:127.0.0.1:$p1 import:127.0.0.1:$p2"
sum=$(jq -r '[.client_stats[] | select(.jobname != "All clients") | .read.iops] | map(tostring) | join(" + ")' "$T/two.json")
expect_eq "merged IOPS = the sum of the two servers' own ($sum)" \
    "$(q "SELECT abs($(res two "iops") - ($sum)) <= 1e-9 * ($sum)")" t
for port in "$p1" "$p2"; do
    expect_eq "server :$port p99 as fio printed it" "$(q "SELECT x.percentiles->>'99.000000' FROM lg.result x
        JOIN lg.agent a USING (agent_id) WHERE a.name = 'import:127.0.0.1:$port'")" \
        "$(jq -r --argjson p "$port" '.client_stats[] | select(.port == $p and .jobname != "All clients") | .read.lat_ns.percentile["99.000000"]' "$T/two.json")"
done

# ---- run details from the jobs, one run per reporting group ----
cat >"$T/details.fio" <<JOB
[global]
ioengine=null
size=64m
lat_percentiles=1
[grouped]
rw=randread
bs=4k
numjobs=4
group_reporting=1
time_based=1
runtime=1
[split]
stonewall
rw=randread
bssplit=4k/50:64k/50
rate_iops=500
time_based=1
runtime=1
[long]
stonewall
rw=randread
bs=4k
time_based=1
runtime=2
[short]
rw=randread
bs=4k
size=4m
JOB
fio --output-format=json --output="$T/details.json" "$T/details.fio" >/dev/null
"$LG_BIN/lgctl" import fio-json "$T/details.json" --name f-details >/dev/null 2>"$T/details.err" ||
    { cat "$T/details.err"; fail "import of details.json"; }
expect_eq "one run per stonewall group, with the jobs' own details" "$(q "
  SELECT string_agg(profile || ':' || threads || ':' || bs || ':' || bssplit || ':' || rate_iops, ' '
                    ORDER BY ordinal)
  FROM lg.run r JOIN lg.campaign c USING (campaign_id) WHERE c.name = 'f-details'")" \
    "details.g0:4:4096::0 details.g1:1:4096:4096/50:65536/50:500 details.g2:2:4096::0"
# The last group: one job ran 2 s, the other a few ms: IOPS is the total over the longest runtime.
expect_eq "jobs of different lengths: IOPS = total I/Os / longest runtime" "$(q "
  SELECT x.iops = x.ios * 1000.0 / x.runtime_ms
  FROM lg.result x JOIN lg.run r USING (run_id) JOIN lg.campaign c USING (campaign_id)
  WHERE c.name = 'f-details' AND r.profile = 'details.g2' AND x.agent_id IS NULL")" t
expect_eq "... and not the sum of the jobs' rates" "$(q "
  SELECT x.iops < $(jq '[.jobs[] | select(.groupid == 2) | .read.iops] | add' "$T/details.json")
  FROM lg.result x JOIN lg.run r USING (run_id) JOIN lg.campaign c USING (campaign_id)
  WHERE c.name = 'f-details' AND r.profile = 'details.g2' AND x.agent_id IS NULL")" t
# Verify reads are not workload reads.
cat >"$T/verify.fio" <<JOB
[verify]
ioengine=psync
filename=$T/verify.bin
size=4m
bs=4k
rw=write
verify=crc32c
JOB
fio --output-format=json --output="$T/verify.json" "$T/verify.fio" >/dev/null
[ "$(jq '.jobs[0].read.total_ios' "$T/verify.json")" -gt 0 ] || fail "fio reported no verify reads"
"$LG_BIN/lgctl" import fio-json "$T/verify.json" --name f-verify >/dev/null 2>"$T/verify.err" ||
    { cat "$T/verify.err"; fail "import of verify.json"; }
expect_eq "a write job with verify: a write run, no read figures" "$(q "
  SELECT r.direction || ':' || string_agg(x.direction, ',')
  FROM lg.run r JOIN lg.campaign c USING (campaign_id) JOIN lg.result x USING (run_id)
  WHERE c.name = 'f-verify' GROUP BY r.direction")" "write:write,write"
grep -q "the reads of its verify=crc32c are not counted" "$T/verify.err" || fail "no word on the verify reads"
echo "PASS"
