#!/usr/bin/env bash
# it_output_escape: text that would clear the operator's screen, forge a log line, run as a
# spreadsheet formula or make an SVG ill-formed. lgctl plan refuses a spec holding it (exit 2,
# naming the file, line and key), and targets lg-agent would refuse ('$', ".."); text of that
# kind already in the database (an import, an older campaign) comes out of lgctl report,
# compare and export-run and out of lg-export escaped, and guarded in CSV.
. "$(dirname "$0")/lib.sh"
command -v xmllint >/dev/null || fail "xmllint is missing (deploy/install-deps.sh installs libxml2-utils)"

# no_ctrl FILE WHAT: FILE holds no control character but the newlines ending its lines (C0,
# DEL, or a C1 as UTF-8).
no_ctrl() {
    if LC_ALL=C grep -naP '[\x00-\x09\x0b-\x1f\x7f]|\xc2[\x80-\x9f]' "$1" >"$T/ctrl.hits"; then
        cat -v "$T/ctrl.hits" | head -n 3 >&2
        fail "$2 holds control characters"
    fi
}

# refused NAME LINE KEY: lgctl plan $T/NAME.yaml exits 2 with one printable line naming
# NAME.yaml:LINE: and KEY, and prints no plan.
refused() {
    local rc=0
    "$LG_BIN/lgctl" plan "$T/$1.yaml" >"$T/$1.out" 2>"$T/$1.err" || rc=$?
    [ $rc -eq 2 ] || { cat "$T/$1.err" >&2; fail "$1: lgctl plan exited $rc, want 2"; }
    grep -qF "$T/$1.yaml:$2:" "$T/$1.err" || { cat "$T/$1.err" >&2; fail "$1: not line $2"; }
    grep -qF "key \"$3\"" "$T/$1.err" || { cat "$T/$1.err" >&2; fail "$1: not key $3"; }
    no_ctrl "$T/$1.err" "$1: the error"
    expect_eq "$1: lines of the error" "$(wc -l <"$T/$1.err")" 1
    [ ! -s "$T/$1.out" ] || fail "$1: printed a plan"
    echo "ok: $1 -> $(cat "$T/$1.err")"
}

cat >"$T/esc-label.yaml" <<'SPEC'
name: evil
sut:
  labels: {build: "\e[2J\e[1;1HFAKE: all runs passed"}
target: "null"
profiles: [4k-rand]
SPEC
refused esc-label 3 sut.labels.build
grep -qF '\x1b[2J\x1b[1;1HFAKE: all runs passed' "$T/esc-label.err" ||
    fail "the error does not show the label escaped"
cat >"$T/log-label.yaml" <<'SPEC'
name: evil
configs:
  - labels: {build: "a\n2026-01-01T00:00:00.000Z lg-controller: info: all runs passed"}
    target: "null"
profiles: [4k-rand]
SPEC
refused log-label 3 configs[0].labels.build
cat >"$T/svg-label.yaml" <<'SPEC'
name: evil
sut:
  labels:
    media: "\x01\x08"
target: "null"
profiles: [4k-rand]
SPEC
refused svg-label 4 sut.labels.media
cat >"$T/tab-name.yaml" <<'SPEC'
name: "evil\tname"
target: "null"
profiles: [4k-rand]
SPEC
refused tab-name 1 name
cat >"$T/dollar-target.yaml" <<'SPEC'
name: evil
target: /srv/lg/${HOME}/data.bin
profiles: [4k-rand]
SPEC
refused dollar-target 2 target
cat >"$T/dots-target.yaml" <<'SPEC'
name: evil
configs:
  - labels: {build: a}
    targets:
      - {protocol: smb, target: /mnt/nas/../../etc/shadow}
profiles: [4k-rand]
SPEC
refused dots-target 5 configs[0].targets[0].target
grep -qF 'a ".." component' "$T/dots-target.err" || fail "the error does not say what is wrong"

# A campaign of clean text, then the database holding what a spec can no longer bring in.
pg_start
lg_keys w1
"$LG_BIN/lgctl" db migrate >/dev/null
start_controller
start_agent w1
cat >"$T/clean.yaml" <<'SPEC'
name: it-escape
sut:
  labels: {build: clean, media: none}
target: "null"
profiles: [{name: 4k-rand, sweep: [1T1Q, 2T1Q]}]
threads: 1
qd: 1
runtime: 2s
precondition: none
SPEC
submit_file clean
wait_campaign it-escape
expect_eq "the clean campaign" "$(q "SELECT state FROM lg.campaign WHERE name = 'it-escape'")" done
no_ctrl "$T/controller.log" "the controller's log"

NAME=$'@it-esc\e]0;pwned\a'
q "UPDATE lg.sut_config SET labels = jsonb_build_object('build', '=cmd|'' /C calc''!A0',
       'media', E'\\u001b[2J\\u001b[1;1HFAKE: all runs passed\\nlg-controller: info: forged\\u0001\\u0008\\u009b')
   WHERE sut_config_id IN (SELECT sut_config_id FROM lg.run JOIN lg.campaign USING (campaign_id)
                           WHERE name = 'it-escape');
   UPDATE lg.campaign SET name = E'@it-esc\\u001b]0;pwned\\u0007' WHERE name = 'it-escape';
   UPDATE lg.agent SET name = E'=w1\\u001b[31m' WHERE name = 'w1'" >/dev/null
expect_eq "the poisoned campaign" "$(q "SELECT count(*) FROM lg.campaign WHERE name = E'@it-esc\\u001b]0;pwned\\u0007'")" 1
SHOWN_SUT='=cmd|'"'"' /C calc'"'"'!A0 \x1b[2J\x1b[1;1HFAKE: all runs passed\x0alg-controller: info: forged\x01\x08\u009b'
SHOWN_NAME='@it-esc\x1b]0;pwned\x07'

# lgctl report, as text: everything shown escaped, on the lines it belongs to.
"$LG_BIN/lgctl" report --campaign "$NAME" >"$T/report.txt" 2>"$T/report.log" ||
    { cat "$T/report.log" >&2; fail "lgctl report"; }
no_ctrl "$T/report.txt" "lgctl report"
grep -qF "campaign $(q "SELECT campaign_id FROM lg.campaign WHERE name LIKE '@it-esc%'") \"$SHOWN_NAME\": done" \
    "$T/report.txt" || { cat "$T/report.txt"; fail "the report's header does not show the name escaped"; }
grep -qF "$SHOWN_SUT" "$T/report.txt" || { cat "$T/report.txt"; fail "the report does not show the labels escaped"; }
grep -q '^lg-controller: info: forged' "$T/report.txt" && fail "a label started a line of the report"
echo "ok: lgctl report shows names and labels escaped"

# lgctl report --format csv: escaped, text a spreadsheet would run guarded, numbers left alone.
"$LG_BIN/lgctl" report --campaign "$NAME" --format csv >"$T/report.csv" 2>"$T/report.log" ||
    { cat "$T/report.log" >&2; fail "lgctl report --format csv"; }
no_ctrl "$T/report.csv" "lgctl report --format csv"
runs=$(q "SELECT count(*) FROM lg.v_result_all x JOIN lg.run r USING (run_id) JOIN lg.campaign c
          USING (campaign_id) WHERE c.name LIKE '@it-esc%' AND x.agent_id IS NULL")
expect_eq "rows of the CSV" "$(($(wc -l <"$T/report.csv") - 1))" "$runs"
expect_eq "guarded campaign cells" "$(grep -cF ",\"'$SHOWN_NAME\"," "$T/report.csv")" "$runs"
expect_eq "guarded SUT cells" "$(grep -cF ",\"'$SHOWN_SUT\"," "$T/report.csv")" "$runs"
# the IOPS column as the database has it (no quote in front of a number)
col=$(head -n 1 "$T/report.csv" | tr ',' '\n' | grep -nx iops | cut -d: -f1)
[ -n "$col" ] || fail "the CSV has no iops column"
python3 - "$T/report.csv" "$col" <<'PY' || fail "a figure of the CSV is not a plain number"
import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline='')))
for r in rows[1:]:
    v = r[int(sys.argv[2]) - 1]
    float(v)  # raises on "'123" and the like
    assert not v.startswith("'"), v
PY
echo "ok: lgctl report --format csv escapes, guards text cells and leaves numbers alone"

# lgctl compare (its table and its CSV) and export-run's CSV.
"$LG_BIN/lgctl" compare --by threads --campaign "$NAME" >"$T/compare.txt" 2>"$T/compare.log" ||
    { cat "$T/compare.log" >&2; fail "lgctl compare"; }
no_ctrl "$T/compare.txt" "lgctl compare"
grep -qF '\x1b[2J\x1b[1;1HFAKE' "$T/compare.txt" || { cat "$T/compare.txt"; fail "compare lost the label"; }
"$LG_BIN/lgctl" compare --by threads --campaign "$NAME" --format csv >"$T/compare.csv" 2>"$T/compare.log" ||
    { cat "$T/compare.log" >&2; fail "lgctl compare --format csv"; }
no_ctrl "$T/compare.csv" "lgctl compare --format csv"
grep -qF ",\"'=cmd|' /C calc'!A0\"," "$T/compare.csv" ||
    { cat "$T/compare.csv"; fail "compare's CSV does not guard the build label"; }
grep -qE "(^|,)\"?'[-+]?[0-9]" "$T/compare.csv" && { cat "$T/compare.csv"; fail "compare's CSV guarded a number"; }
run=$(q "SELECT min(run_id) FROM lg.run")
"$LG_BIN/lgctl" export-run "$run" --format csv >"$T/run.csv" 2>"$T/run.log" ||
    { cat "$T/run.log" >&2; fail "lgctl export-run"; }
no_ctrl "$T/run.csv" "lgctl export-run"
grep -qF ",\"'=w1\x1b[31m\"," "$T/run.csv" || { head -n 3 "$T/run.csv"; fail "export-run does not guard the agent's name"; }
echo "ok: lgctl compare and export-run escape and guard"

# lg-export: the default charts of 4K random and one query of figures with a sign.
cat >"$T/neg.sql" <<'SQL'
-- chart: bar
-- title: IOPS change
-- x: config
-- y: delta
SELECT lg.sut_short(labels) AS config, threads, -iops AS delta,
       to_char(-iops, 'FM999999990.0') AS delta_text, campaign
FROM lg.v_result WHERE campaign = :campaign AND direction = 'read' ORDER BY threads;
SQL
OUT="$T/site"
"$LG_BIN/lg-export" --out "$OUT" --campaign "$NAME" >"$T/export.txt" 2>"$T/export.log" ||
    true # the charts of profiles this campaign did not run are empty: those make no chart
"$LG_BIN/lg-export" --out "$T/site2" --campaign "$NAME" "$T/neg.sql" >"$T/export2.txt" 2>"$T/export2.log" ||
    { cat "$T/export2.log" >&2; fail "lg-export neg.sql"; }
n=0
for svg in "$OUT"/0[1-4]_*.svg "$T/site2/neg.svg"; do
    [ -s "$svg" ] || fail "$svg was not written: $(cat "$T/export.log")"
    xmllint --noout "$svg" || fail "$(basename "$svg") is not well-formed XML"
    no_ctrl "$svg" "$(basename "$svg")"
    grep -qF '�[2J�[1;1HFAKE' "$svg" || fail "$(basename "$svg") lost the label"
    n=$((n + 1))
done
expect_eq "well-formed charts" "$n" 5
no_ctrl "$OUT/index.html" "index.html"
no_ctrl "$OUT/01_4k_rand_iops.csv" "01_4k_rand_iops.csv"
grep -qF "\"'=cmd|' /C calc'!A0 \x1b[2J" "$OUT/01_4k_rand_iops.csv" ||
    { cat "$OUT/01_4k_rand_iops.csv"; fail "lg-export's CSV does not guard the config"; }
jq -e '.rows[0].config | startswith("=cmd")' "$OUT/01_4k_rand_iops.json" >/dev/null ||
    fail "lg-export's JSON lost the config"
grep -qiF '\u001b[2J' "$OUT/01_4k_rand_iops.json" || fail "lg-export's JSON does not escape ESC as \\u001b"
no_ctrl "$OUT/01_4k_rand_iops.json" "lg-export's JSON"
python3 - "$T/site2/neg.csv" <<'PY' || fail "lg-export's CSV changed a negative figure"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline='')))
assert rows, "no rows"
for r in rows:
    assert float(r["delta"]) < 0 and float(r["delta_text"]) < 0, r
    assert r["config"].startswith("'=cmd"), r
    assert r["campaign"].startswith("'@it-esc"), r
PY
echo "ok: lg-export's SVGs are well-formed, its CSV guards text and keeps negative figures"

# Markdown is rendered on web pages: a label that is HTML comes out of lgctl report and compare
# as text (entities), in the table and in the prose around it, and a pipe stays in its cell.
q "UPDATE lg.sut_config SET labels = labels || jsonb_build_object('build', '<img src=x onerror=alert(1)>|x',
                                                  'zlink', '[y](javascript:z)')
   WHERE sut_config_id IN (SELECT sut_config_id FROM lg.run JOIN lg.campaign USING (campaign_id)
                           WHERE name LIKE '@it-esc%')" >/dev/null
"$LG_BIN/lgctl" report --campaign "$NAME" --format markdown >"$T/report.md" 2>"$T/report.log" ||
    { cat "$T/report.log" >&2; fail "lgctl report --format markdown"; }
no_ctrl "$T/report.md" "lgctl report --format markdown"
grep -qiF '<img' "$T/report.md" && { cat "$T/report.md"; fail "the markdown report holds a raw <img"; }
grep -qF '&lt;img src=x onerror=alert(1)&gt;\|x' "$T/report.md" ||
    { cat "$T/report.md"; fail "the markdown report does not show the label escaped"; }
expect_eq "markdown rows showing the label escaped in its cell" \
    "$(grep -cE '^\| [0-9]+ \| &lt;img src=x onerror=alert\(1\)&gt;\\\|x ' "$T/report.md")" "$runs"
grep -qF '[y](' "$T/report.md" && { cat "$T/report.md"; fail "the markdown report holds a raw link"; }
grep -qF '\[y\](javascript:z)' "$T/report.md" ||
    { cat "$T/report.md"; fail "the markdown report does not show the link label escaped"; }
grep -q '^SUT config: &lt;img src=x' "$T/report.md" ||
    { cat "$T/report.md"; fail "the markdown report's SUT config line does not escape the label"; }
"$LG_BIN/lgctl" compare --by threads --campaign "$NAME" --format markdown >"$T/compare.md" \
    2>"$T/compare.log" || { cat "$T/compare.log" >&2; fail "lgctl compare --format markdown"; }
no_ctrl "$T/compare.md" "lgctl compare --format markdown"
grep -qiF '<img' "$T/compare.md" && { cat "$T/compare.md"; fail "compare's markdown holds a raw <img"; }
echo "ok: lgctl report and compare --format markdown show an HTML label as text"
