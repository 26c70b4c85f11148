#!/usr/bin/env bash
# it_export_review: what lg-export adds for a review a reviewer can publish (issue 42 part 5), on
# real campaigns in local mode (fio on files). Config "file" runs 4k-rand and an 8k-7030 sweep;
# config "locked" targets a file with the immutable flag, so that its reads run and every run
# that writes fails for real. The test writes NAS telemetry for one run (as it_export_telemetry
# does, with the NAS's CPU count and memory), deletes one second of that run's samples, and sets
# the load host's CPU figures to known values (this loaded test machine saturates at will).
# Checked against the database: the p99 and p99.9 bars equal the stored percentiles; the
# IOPS-against-latency curve's points equal the sweep's IOPS and latency, each labelled with its
# load; the 8K 70/30 read and write split; the per-run chart shades lg.v_run_window's window and
# breaks its line at the missing second; the caveats (a failed point, a saturated load host, a
# steady state not reached) appear under the charts that show the point and at the top of
# index.html, and not otherwise; the test bed (the agent's and the NAS's facts, the spec, lg's
# version); the per-run charts grouped under their profile and config; text escaped, SVGs XML.
. "$(dirname "$0")/lib.sh"
command -v xmllint >/dev/null || fail "xmllint is missing (deploy/install-deps.sh installs libxml2-utils)"
pg_start
LOCK="$T/locked/data.bin"
trap 'rc=$?; set +e; chattr -i "$LOCK" 2>/dev/null; cleanup $rc' EXIT
mkdir -p "$T/target" "$T/locked"
truncate -s 16M "$LOCK"
chattr +i "$LOCK" || fail "chattr +i: the test needs the immutable flag (ext4, xfs or btrfs under /tmp)"

cat >"$T/spec.yaml" <<SPEC
# a review <script>x</script> & co: the page escapes what the spec holds
name: it-review
configs:
  - labels: {build: rv, media: file}
    target: $T/target/data.bin
  - labels: {build: rv, media: locked}
    target: $LOCK
between_configs: none
size: 16M
profiles: [4k-rand, {name: 8k-7030, sweep: [1T1Q, 1T2Q, 2T2Q]}]
threads: 1
qd: 2
ramp: 0s
runtime: 3s
precondition: none
SPEC
"$LG_BIN/lgctl" --data-dir "$T/lgdata" run "$T/spec.yaml" >"$T/run.txt" 2>"$T/run.log" || true
run_of() { # config profile direction threads qd
    q "SELECT run_id FROM lg.run r JOIN lg.campaign c USING (campaign_id) WHERE c.name = 'it-review'
       AND r.config_ordinal = $1 AND r.profile = '$2' AND r.direction = '$3' AND r.threads = $4
       AND r.qd = $5 AND r.phase = 'measure'"
}
A4R=$(run_of 1 4k-rand read 1 2)
A4W=$(run_of 1 4k-rand write 1 2)
B4R=$(run_of 2 4k-rand read 1 2)
B4W=$(run_of 2 4k-rand write 1 2)
states=$(q "SELECT string_agg(r.config_ordinal || ':' || r.state, ' ' ORDER BY r.ordinal) FROM lg.run r
            JOIN lg.campaign c USING (campaign_id) WHERE c.name = 'it-review'")
expect_eq "runs: config 1 all done, config 2 reads done and writes failed" "$states" \
    "1:done 1:done 1:done 1:done 1:done 2:done 2:failed 2:failed 2:failed 2:failed"

# The load host's CPU as the test says (40 %: not saturated), the NAS's telemetry of run A4R
# (4 CPUs, 8 GiB, its system as lg_telem.c keeps node_exporter's uname and os info, test_telem;
# CPU busy 40 %), and one second of A4R's samples gone.
q "UPDATE lg.sample SET cpu_busy_pct = 40, host_cpus = 2 WHERE run_id IN (SELECT run_id FROM lg.run)"
psql -qX -v ON_ERROR_STOP=1 -v run="$A4R" <<'SQL'
WITH r AS (
    SELECT ru.run_id, w.w_start - make_interval(secs => ru.ramp_s) AS t0,
           ru.ramp_s + ru.runtime_s AS len
    FROM lg.run ru JOIN lg.v_run_window w USING (run_id) WHERE ru.run_id = :run),
k AS (SELECT r.*, g.k, max(g.k) OVER () AS last
      FROM r, generate_series(0, ceil(r.len / 0.5)::int + 1) g(k))
INSERT INTO lg.sut_scrape (run_id, source, seq, kind, t_send, t_recv, series, vals)
SELECT k.run_id, 'nas', k.k,
       CASE WHEN k.k = 0 THEN 'before' WHEN k.k = k.last THEN 'after' ELSE 'during' END,
       k.t0 + make_interval(secs => k.k * 0.5 - 0.005), k.t0 + make_interval(secs => k.k * 0.5 + 0.005),
       lg.sut_series_ids(ARRAY['cpu.user', 'cpu.idle', 'cpu.count', 'mem.total', 'disk.busy.sda',
                               'os.sysname.Linux', 'os.release.6.18.44-fc-v1300',
                               'os.name.Debian <b>12</b> & co']),
       ARRAY[1000 + 4 * 0.4 * k.k * 0.5, 5000 + 4 * 0.6 * k.k * 0.5, 4, 8 * 1024.0 ^ 3,
             10 + 0.3 * k.k * 0.5, 1, 1, 1]::float8[]
FROM k;
UPDATE lg.run SET telemetry = '[{"name": "nas"}]' WHERE run_id = :run;
SQL
nseq=$(q "SELECT count(DISTINCT seq) FROM lg.sample WHERE run_id = $A4R")
[ "$nseq" -ge 3 ] || fail "run $A4R has $nseq samples, the test needs 3 or more"
q "DELETE FROM lg.sample WHERE run_id = $A4R AND seq = 2"

export_to() { # dir campaign [FAILED]
    rm -rf "$1"
    # a campaign's FAILED points (default 0) are named and lg-export exits 1 (030_attempts), the
    # site written all the same
    local rc=0 want=0 nf=${3:-0}
    [ "$nf" = 0 ] || want=1
    "$LG_BIN/lg-export" --db "$LG_DATABASE_URL" --out "$1" --campaign "$2" >"$T/export.txt" \
        2>"$T/export.log" || rc=$?
    [ $rc = $want ] && [ "$(grep -c '^failed: run [0-9]* (' "$T/export.log")" = "$nf" ] ||
        { cat "$T/export.log" >&2; fail "lg-export exited $rc, not $want naming $nf failed points"; }
    for f in "$1"/*.svg; do xmllint --noout "$f" || fail "$(basename "$f") is not well-formed XML"; done
    python3 -c 'import html.parser, sys; html.parser.HTMLParser().feed(open(sys.argv[1]).read())' \
        "$1/index.html" || fail "index.html does not parse"
}
# The caveat lines of a chart (its tspans joined) or of the page's list, unescaped: one a line.
caveats() { # FILE.svg | index.html
    python3 - "$1" <<'PY'
import html, re, sys
s = open(sys.argv[1]).read()
if sys.argv[1].endswith(".svg"):
    for g in re.findall(r'<g class="caveat">(.*?)</g>', s, re.S):
        text = html.unescape(" ".join(re.findall(r"<tspan[^>]*>(.*?)</tspan>", g)))
        print(text[len("Caveat: "):] if text.startswith("Caveat: ") else "NO PREFIX: " + text)
else:
    top = s[s.find('<section id="caveats"'):]
    top = top[:top.find("</section>")]
    for li in re.findall(r"<li>(.*?)</li>", top, re.S):
        print(html.unescape(re.sub(r"<[^>]+>", "", li)))
PY
}
OUT="$LG_BIN/../export-test/review"
export_to "$OUT" it-review 4 # the locked config's
echo "ok: exported, every SVG well-formed"

# ---- p99 and p99.9 bars per profile: the stored percentiles ----
for pct in p99_ms p99_9_ms; do
    f="$OUT/$([ $pct = p99_ms ] && echo 14_p99_per_profile || echo 15_p99_9_per_profile)-4k-rand.csv"
    [ -s "$f" ] || fail "no $pct chart for 4k-rand: $(ls "$OUT")"
    for rd in "$A4R read rv file" "$A4W write rv file" "$B4R read rv locked"; do
        read -r run dir cfg <<<"$rd"
        want=$(q "SELECT $pct FROM lg.v_result WHERE run_id = $run AND direction = '$dir'")
        got=$(python3 -c 'import csv, sys
for r in csv.DictReader(open(sys.argv[1])):
    if r["config"] == sys.argv[2] and r["series"] == sys.argv[3] + " · local":
        print(r[sys.argv[4]])' "$f" "$cfg" "$dir" "$pct")
        python3 -c 'import sys; a, b = map(float, sys.argv[1:]); sys.exit(abs(a - b) > 1e-9 * b)' \
            "$got" "$want" || fail "$pct bar of $cfg $dir: $got, stored $want"
    done
done
svg14="$OUT/14_p99_per_profile-4k-rand.svg"
expect_eq "p99 bars drawn (3 runs with figures)" "$(grep -c '<rect x=[^>]*height="16.0" fill="#' "$svg14")" 3
expect_eq "the failed point (locked, write) drawn as missing" "$(grep -c 'class="missing"' "$svg14")" 1
echo "ok: p99 and p99.9 bars equal lg.v_result's percentiles; the failed point marked"

# ---- the IOPS-against-latency curve of the swept profile, each point labelled ----
python3 - "$OUT/16_iops_latency_curve-8k-7030.csv" <<PY || fail "the curve's points"
import csv, subprocess, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["config"] == "rv file · local"]
want = subprocess.run(["psql", "-qAtX", "-c", """
    SELECT v.threads || 'T' || v.qd || 'Q', sum(v.iops), sum(v.lat_avg_ms * v.ios) / sum(v.ios)
    FROM lg.v_result v WHERE v.campaign = 'it-review' AND v.profile = '8k-7030' AND v.config = 1
    GROUP BY v.threads, v.qd ORDER BY v.threads * v.qd, v.threads"""],
    capture_output=True, text=True, check=True).stdout.split()
want = [w.split("|") for w in want]
got = [(r["load"], float(r["iops"]), float(r["lat_avg_ms"])) for r in rows]
bad = len(got) != 3 or [g[0] for g in got] != [w[0] for w in want] or any(
    abs(g[1] - float(w[1])) > 1e-9 * g[1] or abs(g[2] - float(w[2])) > 1e-9 * g[2]
    for g, w in zip(got, want))
print(("bad: " if bad else "ok: curve ") + f"{got} vs {want}")
sys.exit(1 if bad else 0)
PY
svg16="$OUT/16_iops_latency_curve-8k-7030.svg"
for l in 1T1Q 1T2Q 2T2Q; do
    grep -q "<g class=\"label\"><text[^>]*>$l</text>" "$svg16" || fail "the curve's point $l is not labelled"
done
# The locked config's points failed: no x and no y to draw them at; each is a caveat under it.
expect_eq "the locked config's three failed points said under the curve" \
    "$(caveats "$svg16" | grep -c '^run [0-9]* (rv locked · 8k-7030 mixed [12]T[12]Q) failed')" 3
# The 8K 70/30 split: reads and writes apart, as stored per direction.
for d in read write; do
    expect_eq "8K 70/30 $d IOPS at 2T2Q" \
        "$(awk -F, -v c="rv file · local · $d" '$1 == c && $2 == "2T2Q" { print $3 }' "$OUT/17_8k_7030_rw_iops.csv")" \
        "$(q "SELECT iops FROM lg.v_result WHERE campaign = 'it-review' AND profile = '8k-7030'
              AND config = 1 AND threads = 2 AND qd = 2 AND direction = '$d'")"
done
[ -s "$OUT/18_8k_7030_rw_lat_avg.svg" ] || fail "no 8K 70/30 latency split"
echo "ok: the curve equals the sweep's IOPS and latency, labelled; the read/write split"

# ---- the per-run chart: the measured window shaded, no line across the missing second ----
svg12="$OUT/12_run_nas_load-$A4R.svg"
[ -s "$svg12" ] || fail "no per-run chart of run $A4R: $(ls "$OUT" | grep 12_)"
win=$(q "SELECT 0, extract(epoch FROM w.w_end - w.w_start) FROM lg.v_run_window w WHERE run_id = $A4R")
python3 - "$svg12" "$win" <<'PY' || fail "the shaded window"
import re, sys
s = open(sys.argv[1]).read()
m = re.findall(r'<rect class="window"[^>]*data-start="([^"]+)" data-end="([^"]+)"', s)
want = [float(x) for x in sys.argv[2].split("|")]
ok = len(m) == 1 and all(abs(float(a) - b) < 1e-6 for a, b in zip(m[0], want))
print(("ok: " if ok else "bad: ") + f"window {m} vs v_run_window {want}")
sys.exit(0 if ok else 1)
PY
expect_eq "IOPS line in two pieces around the missing second" \
    "$(grep -c '<polyline fill="none" stroke="[^"]*" stroke-width="2" points=' "$svg12")" 2
grep -q 'class="caveat"' "$svg12" && fail "run $A4R's chart has a caveat, it has none"
echo "ok: the window shaded as lg.v_run_window has it, the line broken at the missing second"

# ---- caveats: the failed points, and nothing else yet ----
line="run $B4W (rv locked · 4k-rand write 1T2Q) failed: agent \"local\": fio exited"
grep -qF "$line" <<<"$(caveats "$OUT/01_4k_rand_iops.svg")" || fail "01's chart lacks the caveat \"$line\""
grep -qF "$line" <<<"$(caveats "$OUT/index.html")" || fail "index.html lacks the caveat \"$line\""
grep -qF "Caveat: run $B4W (rv locked · 4k-rand write 1T2Q) failed: agent &quot;local&quot;" \
    "$OUT/index.html" || fail "the caveat under chart 01 in index.html, escaped"

grep -q 'href="#01_4k_rand_iops"' <(sed -n '/<section id="caveats"/,/<\/section>/p' "$OUT/index.html") ||
    fail "the caveat at the top does not link to its chart"
expect_eq "caveat lines under 01 (one failed point)" "$(grep -c '<g class="caveat">' "$OUT/01_4k_rand_iops.svg")" 1
expect_eq "caveat lines under 06 (three failed points)" \
    "$(grep -c '<g class="caveat">' "$OUT/06_8k_7030_sweep_iops.svg")" 3
if grep -l 'saturated\|steady state' "$OUT"/*.svg "$OUT/index.html"; then
    fail "a saturation or steady-state caveat without cause"
fi
echo "ok: the failed points are caveats under their charts and at the top"

# ---- the test bed, escaped ----
tb=$(sed -n '/<section id="testbed">/,/<\/section>/p' "$OUT/index.html")
agent=$(q "SELECT cpu_model || '|' || cpu_count || '|' || fio_version FROM lg.v_agent WHERE name = 'local'")
IFS='|' read -r model cores fiov <<<"$agent"
[ -n "$model" ] && [ -n "$fiov" ] || fail "the agent's facts are not stored: $agent"
grep -qF "<td>local</td><td>$model</td><td>$cores</td>" <<<"$tb" || fail "the test bed lacks the agent's CPU: $tb"
grep -qF "<td>$fiov</td>" <<<"$tb" || fail "the test bed lacks fio's version $fiov"
grep -qF "<td>nas</td><td>4</td><td>8.0 GiB</td><td>Debian &lt;b&gt;12&lt;/b&gt; &amp; co, Linux 6.18.44-fc-v1300</td>" <<<"$tb" ||
    fail "the test bed lacks the NAS's cores, memory and system, escaped: $tb"
grep -qF '# a review &lt;script&gt;x&lt;/script&gt; &amp; co' <<<"$tb" || fail "the spec is not there, escaped"
grep -q '<script' "$OUT/index.html" && fail "index.html has a script tag"
grep -qF "lg $("$LG_BIN/lg-export" --version | awk '{ print $NF }')" <<<"$tb" || fail "no lg version in the test bed"
echo "ok: the test bed: agent $model ($cores cores, fio $fiov), NAS 4 cores 8 GiB Linux 6.18.44, the spec escaped"

# ---- the per-run charts grouped under profile and config ----
python3 - "$OUT/index.html" "$A4R" <<'PY' || fail "the per-run charts are not grouped"
import re, sys
s = open(sys.argv[1]).read()
i = s.find('<div class="group">')
sec = s.find(f'<section id="12_run_nas_load-{sys.argv[2]}">')
h3 = s.rfind('<h3 class="group1">4k-rand</h3>', i, sec)
h4 = s.rfind('<h4 class="group2">rv file · local</h4>', h3, sec)
ok = 0 <= i < h3 < h4 < sec
nav = s[s.find("<nav>"):s.find("</nav>")]
ok = ok and re.search(r'<li>4k-rand\n<ul>\n<li>rv file · local\n<ul>\n<li><a href="#12_run_nas_load-\d+">run \d+</a>', nav)
print("ok: grouped" if ok else f"bad: {i} {h3} {h4} {sec}\n{nav}")
sys.exit(0 if ok else 1)
PY
echo "ok: the per-run charts under their profile and config"

# ---- a saturated load host: its caveat where its run is shown, and at the top ----
q "UPDATE lg.sample SET cpu_busy_pct = 99 WHERE run_id = $A4W"
export_to "$OUT.sat" it-review 4
line="run $A4W (rv file · 4k-rand write 1T2Q): load host \"local\" saturated (CPU 99% busy"
for c in 01_4k_rand_iops 14_p99_per_profile-4k-rand; do
    grep -qF "$line" <<<"$(caveats "$OUT.sat/$c.svg")" || fail "$c lacks the saturation caveat"
done
grep -qF "$line" <<<"$(caveats "$OUT.sat/index.html")" || fail "index.html lacks the saturation caveat"
grep -l 'saturated' "$OUT.sat"/16_*.svg "$OUT.sat"/06_*.svg "$OUT.sat/12_run_nas_load-$A4R.svg" &&
    fail "a chart that does not show run $A4W says it was saturated"
echo "ok: the saturated load host is a caveat on the charts of run $A4W only"

# ---- a steady state not reached: a second campaign with real preconditioning ----
sed -e 's/^name: it-review$/name: it-review-ss/' -e '/media: locked/,+1d' \
    -e 's/^profiles: .*/profiles: [{name: r4k, bs: 4k, pattern: random, read: 100}]/' \
    -e 's/^runtime: 3s/runtime: 1s/' \
    -e 's/^precondition: none/precondition: {mode: steady-state, round: 1s, max: 5s}/' "$T/spec.yaml" >"$T/ss.yaml"
"$LG_BIN/lgctl" --data-dir "$T/lgdata" run "$T/ss.yaml" >"$T/ss.txt" 2>"$T/ss.log" ||
    { cat "$T/ss.log" >&2; fail "the steady-state campaign failed"; }
SS=$(q "SELECT run_id FROM lg.run r JOIN lg.campaign c USING (campaign_id) WHERE c.name = 'it-review-ss' AND phase = 'steady-state'")
reached=$(q "SELECT ss_reached FROM lg.run WHERE run_id = $SS")
q "UPDATE lg.sample SET cpu_busy_pct = 40 WHERE run_id IN (SELECT run_id FROM lg.run)"
for st in "$reached" "$([ "$reached" = t ] && echo f || echo t)"; do
    q "UPDATE lg.run SET ss_reached = '$st' WHERE run_id = $SS"
    export_to "$OUT.ss" it-review-ss
    n=$(caveats "$OUT.ss/14_p99_per_profile-r4k.svg" | grep -c "steady state not reached in the preconditioning before it (run $SS," || true)
    expect_eq "steady-state caveat on the r4k chart with ss_reached $st" "$n" "$([ "$st" = f ] && echo 1 || echo 0)"
    n=$(caveats "$OUT.ss/index.html" | grep -c "steady state not reached" || true)
    expect_eq "steady-state caveat at the top with ss_reached $st" "$n" "$([ "$st" = f ] && echo 1 || echo 0)"
done
echo "ok: a steady state not reached is a caveat (the campaign's own outcome: reached=$reached)"
echo "PASS"
