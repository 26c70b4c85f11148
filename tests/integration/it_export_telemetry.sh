#!/usr/bin/env bash
# it_export_telemetry: lg-export's telemetry charts and error bars on a real campaign (local
# mode, fio on a file: two SUT configs, one with a long name, two repeats of a 4K random read)
# whose NAS telemetry the test writes itself into lg.sut_scrape (via lg.sut_series_ids) around
# the runs' real windows: 4 CPUs at a busy share the test picks per run, two disks whose busy
# share changes every scrape, one missed scrape. The per-run charts (one per run with telemetry,
# none for the run without) show every scrape's CPU and busiest-disk figure the test computes
# from what it wrote, a gap at the missed scrape, the run's IOPS as lg.v_sample has them; the
# NAS-CPU-per-config chart shows the mean over repeats and its 95% interval, computed here with
# t(0.975, 1) and checked against lg.compare's for the metric cpu_busy_pct. No name is cut.
. "$(dirname "$0")/lib.sh"
command -v xmllint >/dev/null || fail "xmllint is missing (deploy/install-deps.sh installs libxml2-utils)"
pg_start

LONG="raidz2-wide-stripe-of-twelve-with-special-vdev"
mkdir -p "$T/target"
cat >"$T/spec.yaml" <<SPEC
name: it-telemetry
configs:
  - labels: {build: t, media: ssd, compression: zstd, dedup: "on", pool: $LONG}
    target: $T/target/data.bin
  - labels: {build: t, media: ssd, compression: lz4, dedup: "off", pool: $LONG}
    target: $T/target/data.bin
between_configs: none
size: 16M
profiles: [{name: r4k, bs: 4k, pattern: random, read: 100}]
repeats: 2
threads: 1
qd: 2
ramp: 0s
runtime: 1s
precondition: none
SPEC
"$LG_BIN/lgctl" --data-dir "$T/lgdata" run "$T/spec.yaml" >"$T/run.txt" 2>"$T/run.log" ||
    { cat "$T/run.log" >&2; fail "lgctl run exited $?"; }
runs=$(q "SELECT string_agg(run_id::text, ' ' ORDER BY config_ordinal, repeat) FROM lg.run
          WHERE phase = 'measure' AND state = 'done'")
read -r A1 A2 B1 B2 <<<"$runs"
[ -n "$B2" ] || fail "want four measured runs, got: $runs"
echo "ok: runs $runs (config 1: $A1 $A2, config 2: $B1 $B2)"

# ---- telemetry for three runs: CPU busy 40 % and 60 % (config 1), 30 % (config 2's first) ----
# Scrape k (0 the baseline, the last one 'after') has its middle at the run's start + k * 0.25 s;
# sda is busy 20 + 15 * (k % 5) % of interval k, sdb 10 %; scrape 3 is missed.
DT=0.25
MISS=3
telemetry() { # run busy
    psql -qX -v ON_ERROR_STOP=1 -v run="$1" -v b="$2" -v dt=$DT -v miss=$MISS <<'SQL'
WITH r AS (
    SELECT ru.run_id, w.w_start - make_interval(secs => ru.ramp_s) AS t0,
           ru.ramp_s + ru.runtime_s AS len
    FROM lg.run ru JOIN lg.v_run_window w USING (run_id) WHERE ru.run_id = :run),
k AS (SELECT r.*, g.k FROM r, generate_series(0, ceil(r.len / :dt)::int + 1) g(k)),
c AS (SELECT k.*, max(k.k) OVER () AS last,
             sum(CASE WHEN k.k = 0 THEN 0 ELSE 0.2 + 0.15 * (k.k % 5) END) OVER (ORDER BY k.k)
                 * :dt AS sda FROM k)
INSERT INTO lg.sut_scrape (run_id, source, seq, kind, t_send, t_recv, error, series, vals)
SELECT c.run_id, 'nas', c.k,
       CASE WHEN c.k = 0 THEN 'before' WHEN c.k = c.last THEN 'after' ELSE 'during' END,
       c.t0 + make_interval(secs => c.k * :dt - 0.005),
       CASE WHEN c.k <> :miss THEN c.t0 + make_interval(secs => c.k * :dt + 0.005) END,
       CASE WHEN c.k = :miss THEN 'timeout' END,
       CASE WHEN c.k <> :miss THEN lg.sut_series_ids(ARRAY['cpu.user', 'cpu.system', 'cpu.idle',
            'cpu.iowait', 'disk.busy.sda', 'disk.busy.sdb']) END,
       CASE WHEN c.k <> :miss THEN ARRAY[1e6 + 4 * :b * c.k * :dt * 0.7,
            5e5 + 4 * :b * c.k * :dt * 0.3, 2e6 + 4 * (1 - :b) * c.k * :dt, 1000,
            50 + c.sda, 70 + 0.1 * c.k * :dt]::float8[] END
FROM c;
UPDATE lg.run SET telemetry = '[{"name": "nas"}]' WHERE run_id = :run;
SQL
}
telemetry "$A1" 0.4
telemetry "$A2" 0.6
telemetry "$B1" 0.3
expect_eq "scrapes stored (6 a run)" "$(q "SELECT count(*) FROM lg.sut_scrape")" 18

OUT="$LG_BIN/../export-test/telemetry"
rm -rf "$OUT"
mkdir -p "$OUT"
"$LG_BIN/lg-export" --db "$LG_DATABASE_URL" --out "$OUT" --campaign it-telemetry \
    >"$T/export.txt" 2>"$T/export.log" || { rc=$?; cat "$T/export.log" >&2; fail "lg-export exited $rc"; }
for f in "$OUT"/*.svg; do xmllint --noout "$f" || fail "$(basename "$f") is not well-formed XML"; done
grep -q "<script" "$OUT/index.html" && fail "index.html uses a script"

# ---- the per-run charts: one per run with telemetry ----
expect_eq "per-run charts" "$(cd "$OUT" && ls 12_run_nas_load-*.svg | sort | tr '\n' ' ')" \
    "$(printf '12_run_nas_load-%s.svg\n' "$A1" "$A2" "$B1" | sort | tr '\n' ' ')"
for r in "$A1" "$A2" "$B1"; do
    for ext in csv json; do [ -s "$OUT/12_run_nas_load-$r.$ext" ] || fail "12_run_nas_load-$r.$ext missing"; done
    grep -q "<section id=\"12_run_nas_load-$r\">" "$OUT/index.html" || fail "index.html lacks run $r's chart"
done
# Every scrape's figures as written: CPU 40 %, the busiest disk sda's share (scrape 4 covers 3 and
# 4, missed 3 is empty), at k * 0.25 s (the missed one when it was sent); the IOPS of each
# interval as lg.v_sample has them.
q "SELECT seq, iops FROM lg.v_sample WHERE run_id = $A1 ORDER BY seq" >"$T/iops.want"
python3 - "$OUT/12_run_nas_load-$A1.csv" "$T/iops.want" $DT $MISS <<'PY' || fail "run $A1's chart figures"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
dt, miss = float(sys.argv[3]), int(sys.argv[4])
bad = []
share = lambda k: 0.2 + 0.15 * (k % 5)
cpu = [r for r in rows if r["what"] == "NAS CPU busy"]
disk = [r for r in rows if r["what"] == "busiest disk busy"]
if len(cpu) != len(disk) or len(cpu) < 5:
    bad.append(f"{len(cpu)} CPU and {len(disk)} disk points")
for r in cpu + disk:
    k = int(r["seq"])
    at = k * dt - (0.005 if k == miss else 0)  # a missed scrape: when it was sent
    if abs(float(r["elapsed_s"]) - at) > 0.0015:
        bad.append(f"{r['what']} scrape {k} at {r['elapsed_s']} s, want {at}")
    want = None if k == miss else (40.0 if r["what"] == "NAS CPU busy" else
           100 * ((share(k - 1) + share(k)) / 2 if k == miss + 1 else share(k)))
    got = None if r["busy_pct"] == "" else float(r["busy_pct"])
    if (want is None) != (got is None) or (want is not None and abs(got - want) > 1e-6):
        bad.append(f"{r['what']} scrape {k}: {got}, want {want}")
want = {int(l.split("|")[0]): float(l.split("|")[1]) for l in open(sys.argv[2]) if l.strip()}
iops = {int(r["seq"]): float(r["iops"]) for r in rows if r["what"] == "IOPS"}
if set(iops) != set(want) or any(abs(iops[s] - want[s]) > 1e-6 * want[s] for s in want):
    bad.append(f"IOPS {iops}, want {want}")
last = max((float(r["elapsed_s"]) for r in rows if r["what"] == "IOPS"), default=0)
if not 0.8 <= last <= 1.6:
    bad.append(f"the last interval ends at {last} s of a 1 s run")
print("\n".join(bad) or f"ok: run chart: {len(cpu)} scrapes, {len(iops)} intervals as written")
sys.exit(1 if bad else 0)
PY
# Drawn: IOPS solid on the left, CPU and disk dashed on the right (0-100 %), the CPU's line broken
# at the missed scrape (two pieces), the disk's too.
svg="$OUT/12_run_nas_load-$A1.svg"
expect_eq "dashed polylines (CPU and disk, each in two pieces)" \
    "$(grep -c 'stroke-dasharray="6 3"' "$svg")" 4
expect_eq "the missed scrape marked on the time axis (once for CPU and disk)" \
    "$(grep -c 'class="missing"' "$svg")" 1
grep -q '>Busy (%)</text>' "$svg" || fail "no right axis title"
grep -q 'text-anchor="start" font-size="10" fill="#666">100</text>' "$svg" || fail "no 100 % tick on the right"
grep -q "$LONG" "$svg" || fail "the run's long config name is not in its chart"

# ---- NAS CPU per config: mean over repeats with its 95% interval ----
csv13="$OUT/13_nas_cpu_per_config-r4k.csv"
[ -s "$csv13" ] || { ls "$OUT" >&2; fail "no NAS CPU chart for r4k"; }
q "SELECT dim_value, value, ci_low, ci_high, n FROM lg.compare('dedup', NULL, 'cpu_busy_pct',
   '{}', ARRAY['it-telemetry']) WHERE value IS NOT NULL ORDER BY dim_value" >"$T/compare.txt"
python3 - "$csv13" "$T/compare.txt" <<'PY' || fail "the NAS CPU chart's figures"
import csv, sys, statistics
rows = {r["config"]: r for r in csv.DictReader(open(sys.argv[1]))}
bad = []
on = [r for c, r in rows.items() if "dedup on" in c]
off = [r for c, r in rows.items() if "dedup off" in c]
if len(on) != 1 or len(off) != 1:
    sys.exit(f"want one row per config: {list(rows)}")
on, off = on[0], off[0]
t975_1 = 12.706204736174704  # t(0.975, 1 degree of freedom)
half = t975_1 * statistics.stdev([40.0, 60.0]) / 2 ** 0.5
for name, got, want in (("mean, dedup on", on["cpu_busy_pct"], 50.0), ("runs, dedup on", on["runs"], 2),
                        ("ci_low", on["ci_low"], 50.0 - half), ("ci_high", on["ci_high"], 50.0 + half),
                        ("mean, dedup off", off["cpu_busy_pct"], 30.0), ("runs, dedup off", off["runs"], 1)):
    if abs(float(got) - want) > 1e-6:
        bad.append(f"{name}: {got}, want {want}")
if off["ci_low"] or off["ci_high"]:
    bad.append("an interval for a single run")
cmp = {l.split("|")[0]: l.strip().split("|") for l in open(sys.argv[2]) if l.strip()}
c = cmp.get("on")
if not c or any(abs(float(a) - float(b)) > 1e-6 for a, b in
                zip(c[1:4], (on["cpu_busy_pct"], on["ci_low"], on["ci_high"]))):
    bad.append(f"lg.compare says {c}, the chart {on}")
print("\n".join(bad) or f"ok: NAS CPU 50 % +- {half:.3f} (2 runs) and 30 % (1 run), as lg.compare")
sys.exit(1 if bad else 0)
PY
svg13="$OUT/13_nas_cpu_per_config-r4k.svg"
expect_eq "error bars on the NAS CPU chart" "$(grep -c 'class="ci"' "$svg13")" 1
grep -q 'error bars: 95% confidence interval' "$svg13" || fail "the chart does not say what its error bars are"
# No name is cut anywhere: every config's whole name is in the text of the charts that show it.
if grep -l '…' "$OUT"/*.svg; then fail "a chart cuts a name with an ellipsis"; fi
for c in "t ssd $LONG zstd, dedup on" "t ssd $LONG lz4, dedup off"; do
    python3 - "$svg13" "$c" <<'PY' || fail "\"$c\" is not shown whole in $svg13"
import re, sys
text = re.sub(r"<title>.*?</title>", "", open(sys.argv[1]).read(), flags=re.S)
text = re.sub(r"<[^>]+>", "", text)
sys.exit(0 if sys.argv[2].replace(" ", "") in text.replace(" ", "").replace("\n", "") else 1)
PY
done
echo "ok: names whole, wrapped"
echo "PASS"
