#!/usr/bin/env bash
# it_export_site: a tiny local-mode campaign with two SUT configs, exported by lg-export with the
# default queries: every file is written, SVGs are XML, each CSV equals its query's rows, the site
# renders in headless Chromium with every chart title; a bad directive and a SQL error are named
# with their file and line while the other charts are still written.
. "$(dirname "$0")/lib.sh"
command -v xmllint >/dev/null || fail "xmllint is missing (deploy/install-deps.sh installs libxml2-utils)"
CHROME=$(command -v chromium || command -v chromium-browser || true)
[ -n "$CHROME" ] || fail "chromium is missing (deploy/install-deps.sh installs it)"
pg_start

mkdir -p "$T/target"
cat >"$T/spec.yaml" <<SPEC
name: it-export
configs:
  - labels: {build: it, media: file, dedup: "off"}
    target: $T/target/data.bin
  - labels: {build: it, media: file, dedup: "on"}
    target: $T/target/data.bin
between_configs: none
size: 16M
profiles: [4k-rand, 8k-seq, {name: 8k-7030, sweep: [2T2Q, 4T4Q], curve: [50]}, 128k-seq, {name: r4k, bs: 4k, pattern: random, read: 100, search: {metric: p99_ms, limit: 500, vary: qd, max: 2, steps: 2}}]
threads: 1
qd: 2
ramp: 0s
runtime: 1s
precondition: none
SPEC
"$LG_BIN/lgctl" --data-dir "$T/lgdata" run "$T/spec.yaml" >"$T/run.txt" 2>"$T/run.log" ||
    { cat "$T/run.log" >&2; fail "lgctl run exited $?"; }
expect_eq "configs" "$(q "SELECT count(DISTINCT config) FROM lg.v_result WHERE campaign = 'it-export'")" 2
# The configs differ in one label (dedup): the report ends with the comparison by it.
grep -q "^comparison by dedup (lgctl compare --by dedup --campaign it-export):" "$T/run.txt" ||
    { cat "$T/run.txt"; fail "the local run's report has no comparison by dedup"; }
grep -qE "^4k-rand +read +local +1T2Q +it +file +- +[0-9.]+ +[0-9.]+ " "$T/run.txt" ||
    fail "the comparison has no 4k-rand read row: $(sed -n '/^comparison by/,$p' "$T/run.txt")"
echo "ok: the report compares the two configs by dedup"

OUT="$LG_BIN/../export-test/site"
rm -rf "$OUT"
mkdir -p "$OUT"
QDIR="$LG_SRC/web-export/queries"
"$LG_BIN/lg-export" --db "$LG_DATABASE_URL" --out "$OUT" --campaign it-export \
    >"$T/export.txt" 2>"$T/export.log" || { rc=$?; cat "$T/export.log" >&2; fail "lg-export exited $rc"; }
n=0
skipped=0
for qf in "$QDIR"/*.sql; do
    name=$(basename "$qf" .sql)
    # The application charts (10, 11), the telemetry charts (12, 13; it_export_telemetry) and
    # imported clat p99 (19; it_import): this campaign ran fio only, without telemetry, and has
    # total-latency percentiles, so lg-export makes none.
    case $name in 1[01]_app_* | 12_run_nas_load | 13_nas_cpu_per_config | 19_clat_p99_per_profile)
        grep -q "$name: no figures" "$T/export.log" || fail "$name: lg-export does not say it had no figures"
        [ -z "$(ls "$OUT/$name"*.svg 2>/dev/null)" ] || fail "$name: a chart of a campaign without its kind of runs"
        skipped=$((skipped + 1)); continue ;;
    esac
    # A query with the each directive (p99 per profile, the curve per swept profile) writes a
    # chart per value, NAME-VALUE.*, in the order lg-export lists them; their CSVs together are
    # the query's rows.
    parts=$name
    if grep -q '^-- each:' "$qf"; then
        parts=$(sed -n "s|^.*/\($name-[^/]*\)\.svg\$|\1|p" "$T/export.txt")
        [ -n "$parts" ] || fail "$name: no chart of any value"
    fi
    : >"$T/$name.got.csv"
    for part in $parts; do
        for ext in svg csv json; do
            [ -s "$OUT/$part.$ext" ] || fail "$part.$ext missing or empty"
        done
        xmllint --noout "$OUT/$part.svg" || fail "$part.svg is not well-formed XML"
        jq -e '.rows | length > 0' "$OUT/$part.json" >/dev/null || fail "$part.json has no rows"
        grep -q "<title" "$OUT/$part.svg" && grep -q "<desc" "$OUT/$part.svg" || fail "$part.svg lacks <title>/<desc>"
        if [ -s "$T/$name.got.csv" ]; then tail -n +2 "$OUT/$part.csv"; else cat "$OUT/$part.csv"; fi >>"$T/$name.got.csv"
    done
    # The CSV equals the query's rows: the same SQL (directive lines are comments) run by psql.
    sed 's/:campaign/:'"'"'campaign'"'"'/g' "$qf" >"$T/$name.psql"
    psql -X -q --csv -v ON_ERROR_STOP=1 -v campaign=it-export -f "$T/$name.psql" >"$T/$name.want.csv" ||
        fail "psql could not run $name.sql"
    cmp -s "$T/$name.want.csv" "$T/$name.got.csv" ||
        { diff "$T/$name.want.csv" "$T/$name.got.csv" | head >&2; fail "$name.csv differs from the query's rows"; }
    n=$((n + 1))
done
expect_eq "charts checked" "$((n + skipped))" "$(ls "$QDIR"/*.sql | wc -l)"
[ "$n" -ge 8 ] || fail "fewer than 8 default queries"
# Publishable as they come: axis titles in words, categories that name their labels, the load
# point and runtime in the subtitle, sub-millisecond latency in microseconds, one tick format.
grep -q '>IOPS</text>' "$OUT/01_4k_rand_iops.svg" || fail "the IOPS chart's axis is not titled IOPS"
grep -qE '>Average latency \((ms|µs)\)</text>' "$OUT/02_4k_rand_lat_avg.svg" ||
    fail "the latency chart's axis is not titled in words"
grep -q '>it file, dedup off</text>' "$OUT/01_4k_rand_iops.svg" ||
    fail "the category does not name the config's labels (it file, dedup off)"
grep -q '4 KiB random at 1T2Q, 1 s per run' "$OUT/index.html" || fail "no load point and runtime in the subtitle"
max_avg=$(q "SELECT max(lat_avg_ms) FROM lg.v_result WHERE campaign = 'it-export' AND profile = '4k-rand'")
if awk -v m="$max_avg" 'BEGIN { exit !(m < 1) }'; then
    grep -q 'Average latency (µs)' "$OUT/02_4k_rand_lat_avg.svg" || fail "sub-ms latency not in µs"
    grep -q ',0\.[0-9]' "$OUT/02_4k_rand_lat_avg.csv" || fail "the CSV must keep the query's ms"
fi
ticks=$(grep -oE 'font-size="10" fill="#666">[0-9.,]+<' "$OUT/01_4k_rand_iops.svg" | sed -E 's/.*>([0-9.,]+)</\1/')
decs=$(awk -F. '{ print (NF > 1 ? length($2) : 0) }' <<<"$ticks" | sort -u | wc -l)
expect_eq "tick labels of one axis share their decimals ($(echo $ticks))" "$decs" 1
[ -s "$OUT/index.html" ] || fail "index.html missing"
xmllint --html --noout "$OUT/index.html" 2>/dev/null || true
grep -q "<script" "$OUT/index.html" && fail "index.html uses a script"
echo "ok: $n charts: svg, csv, json; CSVs equal the queries' rows"
# The sweep chart's points are the unpaced sweep runs only: the curve point at 50% (paced, at the
# first load point's 2T2Q) is not added into 2T2Q.
expect_eq "sweep chart: 2T2Q is the unpaced run's read + write IOPS, per config" \
    "$(python3 -c 'import csv, sys
for row in csv.DictReader(open(sys.argv[1])):
    if row["load"] == "2T2Q":
        print(row["iops"])' "$OUT/06_8k_7030_sweep_iops.csv" | sort)" \
    "$(q "SELECT sum(v.iops) FROM lg.v_result v JOIN lg.v_run r
          USING (run_id) WHERE v.campaign = 'it-export' AND v.profile = '8k-7030'
          AND v.threads = 2 AND v.qd = 2 AND r.rate_total = 0 GROUP BY v.config" | sort)"
expect_eq "the campaign has its curve points" "$(q "SELECT count(*) FROM lg.v_run r JOIN
    lg.campaign c USING (campaign_id) WHERE c.name = 'it-export' AND r.curve_pct = 50")" 2

# The other chart kinds: vertical bars, scatter, and a time series of interval samples (log y).
mkdir -p "$T/kinds" "$OUT/kinds"
cat >"$T/kinds/k_bar.sql" <<'SQL'
-- chart: bar
-- title: 128K sequential MB/s as bars
-- x: config
-- y: mbps
-- series: direction
-- unit: MB/s
-- sort: desc
SELECT 'config ' || config AS config, direction, avg(mbps) AS mbps
FROM lg.v_result WHERE campaign = :campaign AND profile = '128k-seq'
GROUP BY config, direction ORDER BY config, direction;
SQL
cat >"$T/kinds/k_scatter.sql" <<'SQL'
-- chart: scatter
-- title: Latency against IOPS
-- x: iops
-- y: lat_avg_ms
-- series: profile
-- unit: ms
-- lower-is-better
SELECT profile, iops, lat_avg_ms FROM lg.v_result WHERE campaign = :campaign ORDER BY run_id, direction;
SQL
cat >"$T/kinds/k_timeseries.sql" <<'SQL'
-- chart: timeseries
-- title: 4K random read IOPS per second
-- x: seconds
-- y: iops
-- series: config
-- unit: IOPS
-- log
SELECT 'run ' || run_id AS config,
       extract(epoch FROM t - min(t) OVER (PARTITION BY run_id))::float8 AS seconds, iops
FROM lg.v_sample WHERE campaign = :campaign AND profile = '4k-rand' AND direction = 'read'
ORDER BY run_id, seq;
SQL
# x as timestamptz text: drawn as seconds since the first sample.
cat >"$T/kinds/k_timestamp.sql" <<'SQL'
-- chart: timeseries
-- title: 4K random read IOPS over time
-- x: t
-- y: iops
-- series: config
-- unit: IOPS
SELECT 'run ' || run_id AS config, t, iops
FROM lg.v_sample WHERE campaign = :campaign AND profile = '4k-rand' AND direction = 'read'
ORDER BY run_id, seq;
SQL
"$LG_BIN/lg-export" --out "$OUT/kinds" --campaign it-export "$T/kinds"/*.sql >/dev/null 2>"$T/kinds.log" ||
    { cat "$T/kinds.log" >&2; fail "lg-export of bar/scatter/timeseries failed"; }
for k in k_bar k_scatter k_timeseries; do
    xmllint --noout "$OUT/kinds/$k.svg" || fail "$k.svg is not well-formed XML"
done
grep -q "<polyline" "$OUT/kinds/k_timeseries.svg" || fail "the time series has no line"
grep -q "<circle" "$OUT/kinds/k_scatter.svg" || fail "the scatter has no points"
grep -q "<polyline" "$OUT/kinds/k_timestamp.svg" || fail "the timestamp time series has no line"
grep -q "time since the first sample" "$OUT/kinds/k_timestamp.svg" || fail "timestamp x not drawn as elapsed time"
# The title is drawn in the standalone SVG, but not a second time under the page's <h2>.
grep -q 'font-weight="bold"' "$OUT/01_4k_rand_iops.svg" || fail "the standalone SVG has no drawn title"
grep -q 'font-weight="bold"' "$OUT/index.html" && fail "the page draws chart titles twice"
grep -q '<svg[^>]*aria-labelledby="svg-01_4k_rand_iops-t' "$OUT/index.html" || fail "the page's charts lack their accessible name"
echo "ok: bar, scatter and timeseries charts written (LG_DATABASE_URL as the default --db)"

# Headless Chromium: a screenshot that is not blank, and a DOM that has every chart title.
shot() { chrome_shot "$1" "$2" "${3:-1000,2400}"; } # page png [WxH]: pages are tall
PNG_DIR=$(cd "$LG_BIN/.." && pwd)/export-test
shot "$(cd "$OUT" && pwd)/index.html" "$PNG_DIR/index.png"
shot "$(cd "$OUT" && pwd)/01_4k_rand_iops.svg" "$PNG_DIR/01_4k_rand_iops.png" 820,560
shot "$(cd "$OUT" && pwd)/06_8k_7030_sweep_iops.svg" "$PNG_DIR/06_8k_7030_sweep_iops.png" 820,560
shot "$(cd "$OUT" && pwd)/kinds/k_timeseries.svg" "$PNG_DIR/k_timeseries.png" 820,560
shot "$(cd "$OUT" && pwd)/kinds/k_bar.svg" "$PNG_DIR/k_bar.png" 820,560
shot "$(cd "$OUT" && pwd)/kinds/k_timestamp.svg" "$PNG_DIR/k_timestamp.png" 820,560
not_blank() { # png: a blank page compresses to almost nothing and has one colour
    python3 - "$1" <<'PY'
import sys, zlib, struct
d = open(sys.argv[1], 'rb').read()
i, idat, w, h = 8, b'', 0, 0
while i < len(d):
    n, t = struct.unpack('>I4s', d[i:i + 8]); c = d[i + 8:i + 8 + n]; i += 12 + n
    if t == b'IHDR': w, h, bd, ct = struct.unpack('>IIBB', c[:10])
    if t == b'IDAT': idat += c
raw = zlib.decompress(idat)
# Count distinct byte values over the filtered scanlines: a blank page has very few.
distinct = len(set(raw[::7]))
print(f"{sys.argv[1]}: {w}x{h}, {distinct} distinct byte values")
sys.exit(0 if distinct > 20 else 1)
PY
}
for p in index 01_4k_rand_iops 06_8k_7030_sweep_iops k_timeseries k_bar k_timestamp; do
    [ -s "$PNG_DIR/$p.png" ] || { cat "$T/chrome.log" >&2; fail "chromium wrote no $p.png"; }
    not_blank "$PNG_DIR/$p.png" || fail "$p.png is blank"
done
timeout 60 "$CHROME" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --user-data-dir="$(mktemp -d "$T/chrome.XXXX")" --dump-dom "file://$(cd "$OUT" && pwd)/index.html" \
    >"$PNG_DIR/index.dom.html" 2>"$T/chrome-dom.log" || true
for qf in "$QDIR"/*.sql; do
    case $(basename "$qf") in 1[01]_app_* | 12_run_nas_load.sql | 13_nas_cpu_per_config.sql | 19_clat_p99_per_profile.sql) continue ;; esac # no chart without application runs, telemetry or imported clat
    title=$(sed -n 's/^-- title: //p' "$qf" | head -n 1 | sed 's/ *{.*//')  # {column}: filled in
    grep -qF "$title" "$PNG_DIR/index.dom.html" || fail "the rendered page lacks the title \"$title\""
done
echo "ok: chromium rendered index.html (not blank) with every chart title; PNGs in $PNG_DIR"

# A bad directive and a SQL error: both named with file and line; the good chart still written.
mkdir -p "$T/bad" "$T/badout"
cp "$QDIR/01_4k_rand_iops.sql" "$T/bad/good.sql"
printf -- '-- chart: hbar\n-- title: Bad\n-- colour: red\n-- x: a\n-- y: b\nSELECT 1 AS a, 2 AS b;\n' >"$T/bad/bad_directive.sql"
printf -- '-- chart: hbar\n-- title: Broken\n-- x: a\n-- y: b\nSELECT 1 AS a,\n       2 AS b\nFROM no_such_table;\n' >"$T/bad/bad_sql.sql"
set +e
"$LG_BIN/lg-export" --db "$LG_DATABASE_URL" --out "$T/badout" --campaign it-export \
    "$T/bad/bad_directive.sql" "$T/bad/good.sql" "$T/bad/bad_sql.sql" >"$T/bad.txt" 2>"$T/bad.log"
rc=$?
set -e
cat "$T/bad.log"
[ $rc -ne 0 ] || fail "lg-export exited 0 with a bad query"
grep -q "bad_directive.sql:3: unknown directive \"colour\"" "$T/bad.log" || fail "bad directive not named with its line"
grep -q "bad_sql.sql:7: query failed: .*no_such_table" "$T/bad.log" || fail "SQL error not named with its line"
for ext in svg csv json; do [ -s "$T/badout/good.$ext" ] || fail "good.$ext not written next to bad queries"; done
[ ! -e "$T/badout/bad_sql.svg" ] || fail "a chart was written for a failing query"
grep -q "Broken" "$T/badout/index.html" || fail "index.html does not list the failed chart"
echo "ok: bad directive and SQL error named (exit $rc), the good chart written"
# The read-only role: a query that writes is refused.
printf -- '-- x: a\n-- y: b\nINSERT INTO lg.metric VALUES (1) RETURNING 1 AS a, 1 AS b;\n' >"$T/bad/write.sql"
if "$LG_BIN/lg-export" --db "$LG_DATABASE_URL" --out "$T/badout" "$T/bad/write.sql" 2>"$T/write.log"; then
    fail "a writing query succeeded"
fi
grep -q "write.sql:[0-9]*: query failed: .*read-only" "$T/write.log" || { cat "$T/write.log" >&2; fail "writing query not refused"; }
echo "ok: queries run read-only"

# A campaign that is not there: exit 1 naming it and those there are, no site of empty charts.
rc=0
"$LG_BIN/lg-export" --db "$LG_DATABASE_URL" --out "$T/nosuch" --campaign nosuch >/dev/null 2>"$T/nosuch.log" || rc=$?
expect_eq "lg-export --campaign nosuch: exit" "$rc" 1
grep -q 'no campaign named "nosuch"; campaigns: it-export' "$T/nosuch.log" || { cat "$T/nosuch.log" >&2; fail "nosuch not named"; }
[ ! -e "$T/nosuch/index.html" ] || fail "lg-export wrote a site for a campaign that is not there"

# Local mode, one command to the site: a campaign in local mode's own cluster (no LG_DATABASE_URL),
# then lg-export --data-dir starts that cluster, exports and stops it again. A profile the
# campaign did not run gets no chart (and is not in the index).
sed -e 's/^name: it-export$/name: it-local-site/' \
    -e 's/^profiles: .*/profiles: [4k-rand]/' "$T/spec.yaml" >"$T/local.yaml"
env -u LG_DATABASE_URL "$LG_BIN/lgctl" --data-dir "$T/own" run "$T/local.yaml" >/dev/null 2>"$T/own.log" ||
    { cat "$T/own.log" >&2; fail "local-mode run in its own cluster"; }
env -u LG_DATABASE_URL "$LG_BIN/lg-export" --data-dir "$T/own" --out "$T/ownsite" --campaign it-local-site \
    >"$T/ownsite.txt" 2>"$T/ownsite.log" || { cat "$T/ownsite.log" >&2; fail "lg-export --data-dir"; }
for c in 01_4k_rand_iops 02_4k_rand_lat_avg; do
    [ -s "$T/ownsite/$c.svg" ] || fail "lg-export --data-dir: no $c.svg"
done
[ ! -e "$T/ownsite/05_8k_seq_iops.svg" ] || fail "an empty chart for 8k-seq, which the campaign did not run"
grep -q "05_8k_seq_iops: no figures in campaign it-local-site: no chart" "$T/ownsite.log" ||
    fail "lg-export does not say 8k-seq had no figures"
grep -q "8k_seq" "$T/ownsite/index.html" && fail "index.html lists the chart with no figures"
url=$(env -u LG_DATABASE_URL "$LG_BIN/lgctl" --data-dir "$T/own" db url 2>/dev/null)
if psql "$url" -Atc "SELECT 1" >/dev/null 2>&1; then fail "lg-export --data-dir left the cluster up"; fi
shot "$(cd "$T/ownsite" && pwd)/index.html" "$PNG_DIR/local-site.png"
[ -s "$PNG_DIR/local-site.png" ] || { cat "$T/chrome.log" >&2; fail "chromium wrote no local-site.png"; }
not_blank "$PNG_DIR/local-site.png" || fail "the local-mode site renders blank"
echo "ok: lg-export --data-dir: $(grep -c '\.svg$' "$T/ownsite.txt") charts, no empty one, the cluster stopped again"
echo "PASS"
