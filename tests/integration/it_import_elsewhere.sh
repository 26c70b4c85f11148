#!/usr/bin/env bash
# it_import_elsewhere: results made elsewhere imported the way a user would. DiskSpd -Rxml and
# text output (also as PowerShell's UTF-16LE) become one run per timespan whose stored figures
# equal an independent reading of the files (python's xml.etree, and the text's own "total:" and
# percentile lines); sysbench OLTP and pgbench output become application runs with the tools'
# own totals. A refused file (truncated XML, text that is neither, output without a required
# figure) stores nothing, even beside good files, and the message names the format and why.
. "$(dirname "$0")/lib.sh"
pg_start
"$LG_BIN/lgctl" db migrate >/dev/null
D="$LG_SRC/tests/unit/data/diskspd"
A="$LG_SRC/tests/unit/data/app"

counts() {
    q "SELECT (SELECT count(*) FROM lg.campaign) || ' ' || (SELECT count(*) FROM lg.run) || ' ' ||
        (SELECT count(*) FROM lg.result) || ' ' || (SELECT count(*) FROM lg.run_agent) || ' ' ||
        (SELECT count(*) FROM lg.app_result) || ' ' || (SELECT count(*) FROM lg.agent)"
}

# PowerShell's "diskspd ... > out.txt": UTF-16LE with a byte order mark.
python3 - "$D/made_2.1_text_mix.txt" "$T/ps_utf16.txt" <<'PY'
import sys
open(sys.argv[2], "wb").write(b"\xff\xfe" + open(sys.argv[1], encoding="utf-8").read().encode("utf-16-le"))
PY
cp "$D/pkb_2.0.21a.xml" "$T/pkb.xml"
cp "$D/made_2.2_L_2spans.xml" "$T/spans.xml"
cp "$D/made_2.0.17_text_write.txt" "$T/old.txt"

# ---- refusals first: nothing stored, the format and the reason named ----
before=$(counts)
head -c 5000 "$T/spans.xml" >"$T/truncated.xml"
printf 'Hello,\nthis is a shopping list.\n' >"$T/neither.txt"
for bad in truncated.xml neither.txt; do
    if "$LG_BIN/lgctl" import diskspd "$T/pkb.xml" "$T/$bad" >"$T/bad.out" 2>"$T/bad.err"; then
        fail "import of $bad beside a good file succeeded"
    fi
    cat "$T/bad.err"
    grep -q "nothing stored" "$T/bad.err" || fail "$bad: no 'nothing stored'"
    grep -q "$bad" "$T/bad.err" || fail "$bad: the file is not named"
done
grep -q "not DiskSpd output" "$T/bad.err" || fail "neither: the message does not say so"
"$LG_BIN/lgctl" import diskspd "$T/truncated.xml" 2>&1 | tee "$T/trunc.err" || true
grep -q "DiskSpd XML (-Rxml) that is not well formed" "$T/trunc.err" ||
    fail "truncated XML: the format and reason are not named"
expect_eq "rows after refusals" "$(counts)" "$before"

# ---- DiskSpd: four files, five runs ----
"$LG_BIN/lgctl" import diskspd "$T/pkb.xml" "$T/spans.xml" "$T/ps_utf16.txt" "$T/old.txt" \
    --labels build=win,media=ssd --name diskspd-hist >"$T/ds.out" 2>"$T/ds.err" ||
    { cat "$T/ds.err"; fail "diskspd import failed"; }
cat "$T/ds.out" "$T/ds.err"
expect_eq "runs" "$(q "SELECT string_agg(r.profile || ':' || r.direction || ':' || r.rw || ':' ||
    r.bs || ':' || r.read_pct || ':' || r.threads || 'T' || r.qd || 'Q:' || r.direct || ':' ||
    a.name, ' '
    ORDER BY r.ordinal) FROM lg.run r JOIN lg.run_agent ra USING (run_id) JOIN lg.agent a
    USING (agent_id)")" \
    "pkb:read:read:65536:100:4T2Q:true:import:pkb-044ffc87-0 spans.ts1:mixed:randrw:8192:70:4T8Q:true:import:WINLOAD-07 spans.ts2:write:write:65536:0:1T4Q:true:import:WINLOAD-07 ps_utf16:mixed:randrw:8192:70:2T4Q:true:import:NAS-BENCH-W11 old:write:write:65536:0:1T2Q:true:import:old-bench"
expect_eq "start times" "$(q "SELECT string_agg(to_char(started_at AT TIME ZONE 'UTC',
    'YYYY-MM-DD HH24:MI:SS'), ' ' ORDER BY ordinal) FROM lg.run")" \
    "2018-10-18 21:39:04 2025-03-14 09:26:53 2025-03-14 09:26:53 2024-11-02 17:05:41 2020-07-28 20:24:24"
expect_eq "agent rows = merged rows" "$(q "SELECT count(*) FROM lg.result a JOIN lg.result m
    ON m.run_id = a.run_id AND m.direction = a.direction AND m.agent_id IS NULL
    WHERE a.agent_id IS NOT NULL AND (a.ios, a.bytes, a.iops, a.lat_mean, a.percentiles::text)
    IS NOT DISTINCT FROM (m.ios, m.bytes, m.iops, m.lat_mean, m.percentiles::text)")" "7"
expect_eq "no latency without -L: NULL, never 0" "$(q "SELECT count(*) FILTER (WHERE lat_mean IS
    NULL AND lat_max IS NULL AND percentiles IS NULL) || '/' || count(*) FROM lg.result x
    JOIN lg.run r USING (run_id) WHERE r.profile = 'pkb'")" "2/2"

# Every stored figure against python's own reading of the files.
q "SELECT json_agg(json_build_object('p', r.profile, 'd', x.direction, 'ios', x.ios,
    'bytes', x.bytes, 'iops', x.iops, 'bw', x.bw_bytes, 'n', x.lat_n, 'mean', x.lat_mean,
    'sd', x.lat_stddev, 'min', x.lat_min, 'max', x.lat_max, 'pct', x.percentiles,
    'rt', x.runtime_ms)) FROM lg.result x JOIN lg.run r USING (run_id) WHERE x.agent_id IS NULL" \
    >"$T/stored.json"
python3 - "$T/stored.json" "$T/pkb.xml" "$T/spans.xml" "$T/ps_utf16.txt" "$T/old.txt" <<'PY'
import json, math, re, sys
import xml.etree.ElementTree as ET
stored = {(r["p"], r["d"]): r for r in json.load(open(sys.argv[1]))}
want = {}
def fig(prof, d, ios, nbytes, secs, mean=None, sd=None, mn=None, mx=None, pct=None):
    w = {"ios": ios, "bytes": nbytes, "iops": ios / secs, "bw": nbytes / secs, "rt": round(secs * 1000)}
    if mean is not None and ios > 0:
        w.update(n=ios, mean=mean * 1e6, sd=sd * 1e6 * math.sqrt(ios / (ios - 1)),
                 min=round(mn * 1e6), max=round(mx * 1e6),
                 pct={"%f" % p: round(v * 1e6) for p, v in pct if float("%f" % p) == p})
    else:
        w.update(n=0, mean=None, sd=None, min=None, max=None, pct=None)
    want[(prof, d)] = w
for path, prof in ((sys.argv[2], "pkb"), (sys.argv[3], "spans")):
    root = ET.parse(path).getroot()
    spans = root.findall("TimeSpan")
    for k, ts in enumerate(spans):
        name = prof if len(spans) == 1 else "%s.ts%d" % (prof, k + 1)
        wr = int(root.find("Profile/TimeSpans").findall("TimeSpan")[k].find("Targets/Target/WriteRatio").text)
        secs = float(ts.find("TestTimeSeconds").text)
        lat = ts.find("Latency")
        for d, D in ((0, "Read"), (1, "Write")):
            if (d == 0 and wr == 100) or (d == 1 and wr == 0):
                continue
            ios = sum(int(t.find(D + "Count").text) for t in ts.iter("Target"))
            nb = sum(int(t.find(D + "Bytes").text) for t in ts.iter("Target"))
            if lat is None or ios == 0:
                fig(name, ("read", "write")[d], ios, nb, secs)
                continue
            b = {float(x.find("Percentile").text): float(x.find(D + "Milliseconds").text)
                 for x in lat.findall("Bucket") if x.find(D + "Milliseconds") is not None}
            fig(name, ("read", "write")[d], ios, nb, secs,
                float(lat.find("Average%sMilliseconds" % D).text),
                float(lat.find("%sLatencyStdev" % D).text), b[0.0], b[100.0],
                [(p, v) for p, v in b.items() if 0 < p < 100])
NINES = {"25th": 25, "50th": 50, "75th": 75, "90th": 90, "95th": 95, "99th": 99, "3-nines": 99.9,
         "4-nines": 99.99, "5-nines": 99.999, "6-nines": 99.9999, "7-nines": 99.99999,
         "8-nines": 99.999999, "9-nines": 99.9999999}
for path, prof, enc in ((sys.argv[4], "ps_utf16", "utf-16"), (sys.argv[5], "old", "utf-8")):
    text = open(path, encoding=enc).read()
    secs = float(re.search(r"actual test time:\s*([\d.]+)s", text).group(1))
    wr = 100 if "performing write test" in text else int(re.search(r"read/write ratio: \d+/(\d+)", text).group(1))
    rows = [l.split("|") for l in text.splitlines() if "|" in l]
    table = {r[0].strip(): r for r in rows if r[0].strip() in NINES or r[0].strip() in ("min", "max")}
    for d, sec in ((0, "Read IO"), (1, "Write IO")):
        if (d == 0 and wr == 100) or (d == 1 and wr == 0):
            continue
        part = text.split("\n" + sec + "\n")[1]
        tot = [c.strip() for c in re.search(r"^total:(.*)$", part, re.M).group(1).split("|")]
        ios, nb = int(tot[1]), int(tot[0])
        col = lambda n: float(table[n][1 + d])
        fig(prof, ("read", "write")[d], ios, nb, secs, float(tot[4]), float(tot[-1]), col("min"),
            col("max"), [(NINES[n], col(n)) for n in NINES])
bad = 0
for key, w in sorted(want.items()):
    s = stored.get(key)
    if s is None:
        print("missing", key); bad += 1; continue
    for f, v in w.items():
        got = s[f]
        if isinstance(v, dict):
            ok = got is not None and {k: int(x) for k, x in got.items()} == v
        elif v is None or got is None:
            ok = v is got
        else:
            ok = abs(got - v) <= 1e-9 * max(1, abs(v))
        if not ok:
            print("differs", key, f, "stored", got, "want", v); bad += 1
if len(want) != len(stored):
    print("stored", sorted(stored), "want", sorted(want)); bad += 1
print("checked %d results" % len(want))
sys.exit(1 if bad else 0)
PY
echo "ok: DiskSpd figures equal an independent reading of the files"
# -D's intervals as samples: of spans.ts1 only, adding up to its totals, latency as sums.
expect_eq "samples" "$(q "SELECT string_agg(r.profile || ':' || s.direction || ':' || s.n || ':' ||
    s.ios_sum || ':' || (s.ios_sum = x.ios) || ':' || s.iv || ':' || s.lat1, ' '
    ORDER BY r.profile, s.direction) FROM (SELECT run_id, direction, count(*) AS n,
    sum(ios) AS ios_sum, min(interval_ms) || '-' || max(interval_ms) AS iv,
    round((min(lat_sum / lat_n) FILTER (WHERE seq = 1) / 1e6)::numeric, 6) AS lat1
    FROM lg.sample GROUP BY 1, 2) s JOIN lg.run r USING (run_id) JOIN lg.result x
    ON x.run_id = s.run_id AND x.direction = s.direction AND x.agent_id IS NULL")" \
    "spans.ts1:read:10:175250:true:1000-1000:0.300000 spans.ts1:write:10:75042:true:1000-1000:0.380000"
expect_eq "v_metric p99 of the text run (ms)" "$(q "SELECT value FROM lg.v_metric WHERE
    profile = 'ps_utf16' AND direction = 'read' AND metric = 'p99_ms'")" "1.873"

# ---- sysbench and pgbench ----
before=$(counts)
head -n 20 "$A/sysbench_oltp.txt" >"$T/sysbench_cut.txt"
"$LG_BIN/lgctl" import app "$A/pgbench_final.txt" "$T/sysbench_cut.txt" 2>"$T/app_bad.err" &&
    fail "a cut sysbench output was imported"
cat "$T/app_bad.err"
grep -q "sysbench output without what lg's application tables need" "$T/app_bad.err" ||
    fail "the cut sysbench output's refusal does not name the tool and why"
"$LG_BIN/lgctl" import app "$T/neither.txt" 2>"$T/app_bad.err" && fail "a shopping list was imported"
grep -q "neither sysbench nor pgbench output" "$T/app_bad.err" || fail "no reason for the list"
"$LG_BIN/lgctl" import app "$T/pkb.xml" 2>"$T/app_bad.err" && fail "DiskSpd XML imported as app"
grep -q 'diskspd-xml output, which "lgctl import diskspd" takes' "$T/app_bad.err" ||
    { cat "$T/app_bad.err"; fail "no hint to import diskspd"; }
"$LG_BIN/lgctl" import diskspd "$A/pgbench_final.txt" 2>"$T/app_bad.err" && fail "pgbench as DiskSpd"
grep -q 'pgbench output, which "lgctl import app" takes' "$T/app_bad.err" ||
    { cat "$T/app_bad.err"; fail "no hint to import app"; }
expect_eq "rows after app refusals" "$(counts)" "$before"

printf '\xef\xbb\xbf' >"$T/sysbench_bom.txt"
cat "$A/sysbench_oltp.txt" >>"$T/sysbench_bom.txt"
"$LG_BIN/lgctl" import app "$T/sysbench_bom.txt" "$A/pgbench_final.txt" --labels build=db \
    --name apps >"$T/app.out" 2>"$T/app.err" || { cat "$T/app.err"; fail "app import failed"; }
cat "$T/app.out"
expect_eq "app runs" "$(q "SELECT string_agg(r.profile || ':' || r.app || ':' || r.direction ||
    ':' || r.threads || ':' || x.transactions || ':' || x.tps, ' ' ORDER BY r.ordinal)
    FROM lg.run r JOIN lg.app_result x USING (run_id) JOIN lg.campaign c USING (campaign_id)
    WHERE c.name = 'apps'")" \
    "sysbench_bom:sysbench-oltp:txn:4:7505:1499.96 pgbench_final:pgbench:txn:4:$(sed -n \
    's/^number of transactions actually processed: \([0-9]*\).*/\1/p' "$A/pgbench_final.txt"):$(sed -n \
    's/^tps = \([0-9.]*\) .*/\1/p' "$A/pgbench_final.txt" | sed 's/0*$//')"
expect_eq "sysbench figures" "$(q "SELECT x.queries || ':' || x.reads || ':' || x.lat_pct_ms ||
    ':' || x.pct || ':' || x.lat_max_ms FROM lg.app_result x WHERE x.kind = 'sysbench-oltp'")" \
    "150100:105070:$(awk '/95th percentile:/ { print $3 }' "$A/sysbench_oltp.txt"):95:$(awk \
    '$1 == "max:" { print $2 }' "$A/sysbench_oltp.txt")"
expect_eq "output kept verbatim" "$(q "SELECT md5(output) FROM lg.app_result
    WHERE kind = 'pgbench'")" "$(md5sum <"$A/pgbench_final.txt" | cut -d' ' -f1)"
expect_eq "sysbench's per-second reports" "$(q "SELECT count(*) || ':' || min(s.seq) || ':' ||
    max(s.seq) || ':' || round(sum(s.tps)::numeric, 2) || ':' || min(s.interval_ms) || ':' || max(s.threads)
    FROM lg.app_sample s JOIN lg.run r USING (run_id) WHERE r.app = 'sysbench-oltp'")" \
    "5:1:5:$(awk '/^\[ [0-9]+s \] thds:/ { t += $7 } END { print t }' "$A/sysbench_oltp.txt"):1000:4"
expect_eq "tps in v_metric" "$(q "SELECT count(*) FROM lg.v_metric WHERE campaign = 'apps'
    AND direction = 'txn' AND metric = 'tps'")" "2"
# pgbench's stderr (-P --progress-timestamp) and stdout in one file: its reports at their times.
cat "$A/pgbench_ts_progress.txt" "$A/pgbench_ts_final.txt" >"$T/pgbench_all.txt"
"$LG_BIN/lgctl" import app "$T/pgbench_all.txt" --name pgts >/dev/null 2>"$T/pgts.err" ||
    { cat "$T/pgts.err"; fail "pgbench with its progress lines"; }
expect_eq "pgbench's reports" "$(q "SELECT count(*) || ':' || min(s.t_ms) || ':' ||
    round(sum(s.tps)::numeric, 1) FROM lg.app_sample s JOIN lg.run r USING (run_id)
    JOIN lg.campaign c USING (campaign_id) WHERE c.name = 'pgts'")" \
    "$(grep -c '^progress:' "$A/pgbench_ts_progress.txt"):$(awk '/^progress:/ { printf "%d",
    $2 * 1000 + 0.5; exit }' "$A/pgbench_ts_progress.txt"):$(awk '/^progress:/ { t += $4 }
    END { printf "%.1f", t }' "$A/pgbench_ts_progress.txt")"
echo "ok: it_import_elsewhere"
