#!/usr/bin/env bash
# report_speed: how long lgctl's per-campaign commands take on a review-sized campaign (issue 42
# part 4). A local-mode campaign of N runs (two SUT configs, a 4K random sweep of reads and
# writes, 1 s each on the null target, samples and results as any run stores them) is measured;
# then lgctl report, a 3-metric compare, rank and sweep are timed on it (the median of REPS
# calls each) and printed with their ratio to the report. Goal: each under 1 s at N = 100.
# Then SCALE copies of its runs (with their samples, results and agents' rows, without the
# fio JSON) are added to one campaign of N x SCALE runs, 96,000 by default, and the same
# commands are timed on that with their default timeout (10 s): each must finish within it.
# usage: tests/bench/report_speed.sh [BUILD_DIR] [N] [SCALE]   (REPS=3)
set -euo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$src/build}
n=${2:-100}
scale=${3:-960}
reps=${REPS:-3}
bin=$build/bin
[ -x "$bin/lgctl" ] || { echo "build lg first: deploy/build.sh $build" >&2; exit 1; }
export LG_BIN=$bin LG_SRC=$src
. "$src/tests/integration/lib.sh"
. "$src/tests/bench/figure.sh"
. "$src/tests/bench/copyruns.sh"
pg_start
L="$bin/lgctl"
"$L" db migrate >/dev/null

# N runs: 2 configs x 2 directions x N/4 load points (threads 1..4 x qd 1..N/16 or so)
points=$(((n + 3) / 4))
sweep=""
k=0
for t in 1 2 3 4 5 6 7 8; do
    for qd in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16; do
        [ "$k" -lt "$points" ] || break 2
        sweep+="${sweep:+, }${t}T${qd}Q"
        k=$((k + 1))
    done
done
cat >"$T/spec.yaml" <<SPEC
name: speed
configs:
  - labels: {build: bench, media: "null", dedup: "off"}
    target: "null"
  - labels: {build: bench, media: "null", dedup: "on"}
    target: "null"
between_configs: none
profiles: [{name: 4k-rand, sweep: [$sweep]}]
ramp: 0s
runtime: 1s
precondition: none
SPEC
echo "report_speed: measuring a campaign of $((points * 4)) runs (1 s each) ..." >&2
"$L" --data-dir "$T/d" run "$T/spec.yaml" --quiet >"$T/run.txt" 2>"$T/run.log" ||
    { grep -v "^lgctl: detail" "$T/run.log" | head -20 >&2; fail "the campaign failed"; }
runs=$(q "SELECT count(*) FROM lg.run WHERE state = 'done'")
samples=$(q "SELECT count(*) FROM lg.sample")
need_figure report_speed "runs done" "$runs" "$T/run.log"
# DUMP=FILE keeps the measured database (pg_dump -Fc) for EXPLAIN and the like
[ -z "${DUMP:-}" ] || pg_dump -Fc -f "$DUMP" lg

cmds=(report compare rank sweep)
run_cmd() { # NAME: one call, its exit status kept in $T/rc
    case "$1" in
    report) "$L" report --campaign speed ;;
    compare) "$L" compare --by dedup --metric iops,lat_avg_ms,p99_ms --campaign speed ;;
    rank) "$L" rank --by dedup --metric iops --campaign speed ;;
    sweep) "$L" compare --by dedup --sweep --campaign speed ;;
    esac >"$T/out.$1" 2>"$T/err.$1"
}
measure() { # LABEL
    local base
    base=$(time_cmd report)
    need_figure report_speed "report's time" "$base"
    for c in "${cmds[@]}"; do
        local s
        s=$([ "$c" = report ] && echo "$base" || time_cmd "$c")
        need_figure report_speed "$c's time" "$s"
        printf '%-8s %-7s %8.3f s  %5.2fx report\n' "$1" "$c" "$s" \
            "$(awk -v a="$s" -v b="$base" 'BEGIN { print a / b }')"
    done
}
# statements over 100 ms go to the server's log: the slowest are printed after each measure
q "ALTER SYSTEM SET log_min_duration_statement = 100" >/dev/null
q "SELECT pg_reload_conf()" >/dev/null
slowest() {
    echo "statements over 100 ms, the slowest first:"
    { grep -o 'duration: [0-9.]* ms  [a-z]*: .*' "$PG_DIR/server.log" 2>/dev/null || echo "  none"; } |
        sort -t' ' -k2 -rn | head -"${SLOWEST:-5}" | cut -c1-220
    : >"$PG_DIR/server.log"
}
echo "campaign of $runs runs, $samples samples:"
: >"$PG_DIR/server.log"
measure "$runs"
slowest

# SCALE copies of every run of the campaign into it, with all the rows that name a run (the fio
# JSON left out: 34 KB a run and agent that no command here reads).
[ "$scale" -gt 1 ] || exit 0
echo "report_speed: copying the campaign's runs $scale times ..." >&2
copy_runs speed speed $((scale - 1))
q "ANALYZE" >/dev/null
runs=$(q "SELECT count(*) FROM lg.run WHERE state = 'done'")
samples=$(q "SELECT count(*) FROM lg.sample")
echo "campaign of $runs runs, $samples samples (default timeouts):"
reps=1
: >"$PG_DIR/server.log"
measure "$runs"
slowest
