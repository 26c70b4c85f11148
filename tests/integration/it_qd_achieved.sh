#!/usr/bin/env bash
# it_qd_achieved: the queue depth that ran (schema/021_qd_achieved.sql), with real fio in local
# mode: libaio on a file at 2T8Q keeps its 8 I/Os in flight per job; the same load paced to
# 20 IOPS per job cannot (fio waits for what is in flight before it sleeps), and is marked
# short in lg.run, lg.v_metric, lg.v_result, lgctl report, compare and rank, the full one
# nowhere. The stored figures equal what this test computes from the stored fio JSON on its own
# (python). schema/022_qd_result.sql: lg.v_result's columns.
. "$(dirname "$0")/lib.sh"
pg_start

mkdir -p "$T/target"
cat >"$T/spec.yaml" <<SPEC
name: it-qd
sut:
  labels: {build: it, media: file}
target: $T/target/data.bin
size: 64M
profiles:
  - {name: 4k-rand, sweep: none}
  - {name: paced, bs: 4k, pattern: random, read: 100, rate_iops: 20}
threads: 2
qd: 8
runtime: 3s
precondition: none
SPEC
"$LG_BIN/lgctl" --data-dir "$T/lgdata" run "$T/spec.yaml" >"$T/report.txt" 2>"$T/lgctl.log" ||
    { cat "$T/lgctl.log" >&2; fail "lgctl run exited $?"; }
cat "$T/report.txt"

expect_eq "runs done" "$(q "SELECT count(*) FROM lg.run WHERE state = 'done'")" 3
expect_eq "agent rows with a depth" \
    "$(q "SELECT count(*) FROM lg.run_agent WHERE qd_achieved IS NOT NULL AND qd_jobs = 2")" 3

# The definition, computed here from fio's own JSON as stored: per job the I/O-weighted mean of
# its iodepth_level buckets' lower bounds; per agent the mean over its jobs and their sum.
psql -qAt -F ' ' -v ON_ERROR_STOP=1 -c "SELECT run_id, replace(encode(convert_to(fio_json, 'UTF8'),
    'base64'), E'\\n', '') FROM lg.run_agent ORDER BY run_id" >"$T/json.b64"
python3 - "$T/json.b64" >"$T/mine.txt" <<'PY'
import base64, json, sys
low = {"1": 1, "2": 2, "4": 4, "8": 8, "16": 16, "32": 32, ">=64": 64}
for line in open(sys.argv[1]):
    run, b64 = line.split()
    doc = json.loads(base64.b64decode(b64))
    depths = []
    for job in doc["jobs"]:
        lv = job["iodepth_level"]
        tot = sum(lv.values())
        depths.append(sum(v * low[k] for k, v in lv.items()) / tot)
    print("%s %.6f %.6f %d" % (run, sum(depths) / len(depths), sum(depths), len(depths)))
PY
expect_eq "qd_achieved, qd_inflight, qd_jobs per agent: as computed from fio's JSON here" \
    "$(q "SELECT string_agg(format('%s %s %s %s', run_id, to_char(qd_achieved, 'FM990.000000'),
                                   to_char(qd_inflight, 'FM990.000000'), qd_jobs), E'\n' ORDER BY run_id)
          FROM lg.run_agent")" "$(cat "$T/mine.txt")"
expect_eq "a run's figures are its one agent's" \
    "$(q "SELECT count(*) FROM lg.run r JOIN lg.run_agent a USING (run_id)
          WHERE r.qd_achieved = a.qd_achieved AND r.qd_inflight = a.qd_inflight")" 3

full=$(q "SELECT string_agg(to_char(qd_achieved, 'FM990.0'), ',' ORDER BY ordinal) FROM lg.run
          WHERE profile = '4k-rand'")
paced=$(q "SELECT to_char(qd_achieved, 'FM990.0') FROM lg.run WHERE profile = 'paced'")
echo "in flight per job: 4k-rand read,write $full; paced $paced (of 8)"
expect_eq "libaio at qd 8 keeps at least 4 in flight per job" \
    "$(q "SELECT bool_and(qd_achieved >= 4) FROM lg.run WHERE profile = '4k-rand'")" t
expect_eq "the paced run keeps under 2 in flight per job" \
    "$(q "SELECT qd_achieved < 2 FROM lg.run WHERE profile = 'paced'")" t
expect_eq "qd_short: the paced run only" \
    "$(q "SELECT string_agg(profile || ':' || direction || ':' || qd_short, ' ' ORDER BY ordinal)
          FROM lg.run")" "4k-rand:read:false 4k-rand:write:false paced:read:true"
expect_eq "v_metric carries it (iops rows short, by profile)" \
    "$(q "SELECT string_agg(DISTINCT profile || ':' || qd_short, ' ') FROM lg.v_metric
          WHERE metric = 'iops'")" "4k-rand:false paced:true"

# The report: a "QD ran" column beside the load, "!" and a note on the short run only.
grep -qE "^[0-9]+ +it file +local +measure +paced +read +2T8Q +[0-9.]+ ! +done .*ran [0-9.]+ of 8 in flight per job \([0-9.]+ of 16 in all\)" \
    "$T/report.txt" || fail "the report does not mark the paced run"
[ "$(grep -cE " 2T8Q +[0-9.]+ +done " "$T/report.txt")" = 2 ] ||
    fail "the report marks a run that kept its depth"
grep -q "^! ran far below its queue depth" "$T/report.txt" || fail "the report's footnote"
"$LG_BIN/lgctl" --data-dir "$T/lgdata" report --format csv >"$T/report.csv"
expect_eq "report csv: qd_short by profile" \
    "$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "qd_short") c = i; next }
                {print $8 ":" $c}' "$T/report.csv" | tr '\n' ' ')" \
    "4k-rand:f 4k-rand:f paced:t "

# compare: the pair with the short side is marked, with the footnote.
"$LG_BIN/lgctl" --data-dir "$T/lgdata" compare --by profile --baseline 4k-rand --metric iops \
    >"$T/cmp.txt" || fail "compare"
cat "$T/cmp.txt"
grep -qE "^ *read +local +2T8Q .* [0-9.]+ ! +.* !$" "$T/cmp.txt" || fail "compare: the pair is not marked"
grep -qE "^ *write +local .*!" "$T/cmp.txt" && fail "compare: the write row (no short side) is marked"
grep -q "^! ran far below its queue depth" "$T/cmp.txt" || fail "compare's footnote"
"$LG_BIN/lgctl" --data-dir "$T/lgdata" compare --by profile --baseline 4k-rand --metric iops \
    --format json >"$T/cmp.json"
expect_eq "compare json: qd_short per cell of the read row" \
    "$(python3 -c 'import json,sys; r=[x for x in json.load(open(sys.argv[1]))["rows"] if x["direction"]=="read"][0]; print(r["cells"]["4k-rand"]["qd_short"], r["cells"]["paced"]["qd_short"])' "$T/cmp.json")" \
    "False True"

# rank: the short run's figure is marked, with the footnote; the full ones as before.
"$LG_BIN/lgctl" --data-dir "$T/lgdata" rank --metric iops >"$T/rank.txt" || fail "rank"
cat "$T/rank.txt"
grep -qE "^paced +read +local +2T8Q +1 +build=it,media=file +[0-9.]+( ±[0-9.]+)? ! +leader$" \
    "$T/rank.txt" || fail "rank: the paced run is not marked"
expect_eq "rank: the 4k-rand rows, unmarked" \
    "$(grep -cE "^4k-rand +(read|write) +local +2T8Q +1 +build=it,media=file +[0-9.]+( ±[0-9.]+)? +leader$" \
        "$T/rank.txt")" 2
expect_eq "rank: the footnote" \
    "$(grep -c "^! ran far below its queue depth: a run this figure rests on" "$T/rank.txt")" 1
# Ranked against each other (--by profile): the paced figure and its gap to the leader.
"$LG_BIN/lgctl" --data-dir "$T/lgdata" rank --metric iops --by profile >"$T/rank-by.txt" ||
    fail "rank --by profile"
cat "$T/rank-by.txt"
grep -qE "^- +read +local +2T8Q +2 +paced +[0-9.]+( ±[0-9.]+)? ! +untested: .* from the leader .* !$" "$T/rank-by.txt" ||
    fail "rank --by profile: the paced row and its gap are not marked"
grep -qE "^- +read +local +2T8Q +1 +4k-rand +[0-9.]+( ±[0-9.]+)? +leader$" "$T/rank-by.txt" ||
    fail "rank --by profile: the leader (it kept its depth) is marked"
grep -qE "^- +write .*!" "$T/rank-by.txt" && fail "rank --by profile: the write row is marked"
# Runs that kept their depth print as before: no mark, no footnote.
"$LG_BIN/lgctl" --data-dir "$T/lgdata" rank --metric iops --where profile=4k-rand \
    >"$T/rank-full.txt" || fail "rank --where profile=4k-rand"
expect_eq "rank of the full runs: no '!' anywhere" "$(grep -c '!' "$T/rank-full.txt")" 0
"$LG_BIN/lgctl" --data-dir "$T/lgdata" rank --metric iops --format json >"$T/rank.json" ||
    fail "rank json"
expect_eq "rank json: qd_short per row" \
    "$(jq -r 'map(.profile + ":" + .direction + ":" + (.qd_short | tostring)) | join(" ")' "$T/rank.json")" \
    "4k-rand:read:false 4k-rand:write:false paced:read:true"
"$LG_BIN/lgctl" --data-dir "$T/lgdata" rank --metric iops --format csv >"$T/rank.csv" ||
    fail "rank csv"
expect_eq "rank csv: a qd_short column" \
    "$(awk -F, 'NR == 1 {print $NF; next} {print $1 ":" $2 ":" $NF}' "$T/rank.csv" | tr '\n' ' ')" \
    "qd_short 4k-rand:read:f 4k-rand:write:f paced:read:t "

# lg.v_result: the run's depth that ran and the mark, its last two columns (022_qd_result).
expect_eq "v_result: its last columns" \
    "$(q "SELECT string_agg(column_name, ',' ORDER BY ordinal_position DESC) FROM (
          SELECT column_name, ordinal_position FROM information_schema.columns
          WHERE table_schema = 'lg' AND table_name = 'v_result'
          ORDER BY ordinal_position DESC LIMIT 2) c")" "qd_short,qd_achieved"
expect_eq "v_result: qd_short per run and direction" \
    "$(q "SELECT string_agg(profile || ':' || direction || ':' || qd_short, ' ' ORDER BY run_id, direction)
          FROM lg.v_result")" "4k-rand:read:false 4k-rand:write:false paced:read:true"
expect_eq "v_result: qd_achieved is the run's" \
    "$(q "SELECT count(*) FROM lg.v_result v JOIN lg.run r USING (run_id)
          WHERE v.qd_achieved = r.qd_achieved")" 3

# fio's captures: the function on JSON it did not make (3 jobs all at depth 1; client mode by
# server and group), and on text that is not JSON.
expect_eq "3 jobs at depth 1" "$(psql -qAt -v ON_ERROR_STOP=1 \
    -v doc="$(cat "$LG_SRC/tests/unit/data/fio_3jobs.json")" <<'SQL'
SELECT format('%s %s %s %s', q.qd_achieved, q.qd_inflight, q.qd_jobs, q.groups) FROM lg.fio_qd(:'doc') q;
SQL
)" "1 3 3 1"
expect_eq "not JSON: no figures" "$(q "SELECT coalesce(qd_jobs, -1) FROM lg.fio_qd('fio: oops {')")" -1
echo "ok: depth that ran: 4k-rand $full, paced $paced of 8; marked in report, compare, rank and lg.v_result"
