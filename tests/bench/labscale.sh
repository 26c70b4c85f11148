#!/usr/bin/env bash
# labscale: a lab's results database (issue 43 parts 1 and 2). A real campaign ("review": two
# compression configs, 4K random and 128K sequential, RUNTIME s each on the null target, local
# mode) is measured; then lgctl's per-campaign commands (report, compare, rank --campaign, status,
# watch, export-run) and lg-export are timed on it, the median of REPS calls each, and rank over
# all campaigns beside them (by compression, and by campaign: every campaign a value, a Welch
# test each; issue 43's goal: at most 2 s at 200,000 runs). Then the database grows to N samples: copies of the campaign's runs
# (samples, results, agents' rows, telemetry) in archive campaigns of about 120 runs each, as a
# lab's older reviews. The same commands are timed again and each is printed with its time at N divided by its
# time before: the goal is at most 1.5 at 20M samples.
# Each per-campaign command also runs once on each database with auto_explain logging every
# statement's plan with its row counts (nested ones too): a statement that reads more rows of
# lg.sample on the grown database than on the campaign alone read the archive's, and fails the
# bench, named.
# usage: tests/bench/labscale.sh [BUILD_DIR] [N_SAMPLES] [RUNTIME]   (REPS=3; 5,000,000 and 5 s by
# default; the suite's tiny form: a few thousand samples, 1 s runs)
set -euo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$src/build}
target=${2:-5000000}
runtime=${3:-5}
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

cat >"$T/spec.yaml" <<SPEC
name: review
configs:
  - labels: {build: bench, media: "null", compression: lz4}
    target: "null"
  - labels: {build: bench, media: "null", compression: zstd}
    target: "null"
between_configs: none
profiles:
  - {name: 4k-rand, sweep: none}
  - {name: 128k-seq, sweep: none}
threads: 2
qd: 2
ramp: 0s
runtime: ${runtime}s
precondition: none
SPEC
echo "labscale: measuring the campaign (runs of $runtime s) ..." >&2
"$L" --data-dir "$T/d" run "$T/spec.yaml" --quiet >"$T/run.txt" 2>"$T/run.log" ||
    { grep -v "^lgctl: detail" "$T/run.log" | head -20 >&2; fail "the campaign failed"; }
own=$(q "SELECT count(*) FROM lg.sample")
need_figure labscale "the campaign's samples" "$own" "$T/run.log"
# fio's JSON as stored (035_fio_json_lz4): its text's bytes against TOAST's lz4
read -r fj_how fj_raw fj_stored <<<"$(q "SELECT string_agg(DISTINCT pg_column_compression(fio_json), ','),
    sum(octet_length(fio_json)), sum(pg_column_size(fio_json)) FROM lg.run_agent" | tr '|' ' ')"
need_figure labscale "fio JSON bytes stored" "${fj_stored:-}"
echo "fio's JSON: $fj_raw bytes of text stored in $fj_stored ($fj_how; $(awk -v a="$fj_raw" -v b="$fj_stored" 'BEGIN { printf "%.1f", a / b }')x smaller)"
[ "$fj_how" = lz4 ] || fail "fio's JSON is stored with ${fj_how:-no} compression, not lz4"
run1=$(q "SELECT min(run_id) FROM lg.run r JOIN lg.campaign c USING (campaign_id)
          WHERE c.name = 'review' AND r.state = 'done'")
need_figure labscale "a run of the campaign" "$run1"

cmds=(report compare rank status watch export-run lg-export rank-all rank-camp)
run_cmd() { # NAME: one call
    case "$1" in
    report) "$L" report --campaign review ;;
    compare) "$L" compare --by compression --metric iops,lat_avg_ms,p99_ms --campaign review ;;
    rank) "$L" rank --by compression --metric iops --campaign review ;;
    status) "$L" status review ;;
    watch) "$L" watch review ;;
    export-run) "$L" export-run "$run1" ;;
    lg-export) rm -rf "$T/site" && "$bin/lg-export" --out "$T/site" --campaign review ;;
    rank-all) "$L" rank --by compression --metric iops ;;
    rank-camp) "$L" rank --by campaign --metric iops ;; # every campaign a value: a Welch test each
    esac >"$T/out.$1" 2>"$T/err.$1"
}
# plans PASS: each per-campaign command once with auto_explain logging every statement's plan with
# its rows (nested statements too) into $T/plans.PASS.COMMAND
plans() {
    local c
    for c in "${cmds[@]}"; do
        case $c in rank-all | rank-camp) continue ;; esac
        : >"$PG_DIR/server.log"
        run_cmd "$c" || { cat "$T/err.$c" >&2; fail "$c failed under auto_explain"; }
        cp "$PG_DIR/server.log" "$T/plans.$1.$c"
    done
}
explain() { # on|off
    if [ "$1" = on ]; then
        psql -qAt -v ON_ERROR_STOP=1 -c "LOAD 'auto_explain'" \
            -c "ALTER SYSTEM SET session_preload_libraries = 'auto_explain'" \
            -c "ALTER SYSTEM SET auto_explain.log_min_duration = 0" \
            -c "ALTER SYSTEM SET auto_explain.log_analyze = on" \
            -c "ALTER SYSTEM SET auto_explain.log_timing = off" \
            -c "ALTER SYSTEM SET auto_explain.log_nested_statements = on" \
            -c "ALTER SYSTEM SET auto_explain.log_format = json" >/dev/null
    else
        q "ALTER SYSTEM RESET session_preload_libraries" >/dev/null
    fi
    q "SELECT pg_reload_conf()" >/dev/null
    sleep 0.3
}
declare -A before
echo "the campaign alone: $own samples"
for c in "${cmds[@]}"; do
    before[$c]=$(time_cmd "$c")
    need_figure labscale "$c's time" "${before[$c]}"
done

explain on
plans alone
explain off

# grow: copies of the campaign's runs into archive campaigns of about 120 runs each (a review's
# size; the planner then sees a lab's many campaigns, as it would there) until the database holds
# N samples
per=$((target / own - 1))
if [ "$per" -ge 1 ]; then
    nruns=$(q "SELECT count(*) FROM lg.run r JOIN lg.campaign c USING (campaign_id) WHERE c.name = 'review'")
    k=$(((120 + nruns - 1) / nruns))
    echo "labscale: copying the campaign's runs $per times ($((own * per)) samples), $k copies an archive campaign ..." >&2
    left=$per i=0
    while [ "$left" -gt 0 ]; do
        i=$((i + 1))
        copy_runs review "archive-$i" $((left < k ? left : k))
        left=$((left - k))
    done
    # Copies of one campaign are alike to the last digit: every configuration's repeats would
    # have no spread, and rank's Welch tests none of their cost (a zero variance answers at
    # once). A lab's reviews differ: each copy's figures (IOPS and bandwidth, as measured: the
    # merged result and each agent's) moved by up to 3% either way, a run's own amount.
    q "UPDATE lg.result x SET iops = x.iops * f, bw_bytes = x.bw_bytes * f
         FROM (SELECT r.run_id, 1 + 0.03 * sin(r.run_id * 12.9898) AS f FROM lg.run r
               JOIN lg.campaign c USING (campaign_id) WHERE c.name <> 'review') n
        WHERE n.run_id = x.run_id" >/dev/null
    q "VACUUM ANALYZE" >/dev/null
fi
# DUMP=FILE keeps the grown database (pg_dump -Fc) for EXPLAIN and the like
[ -z "${DUMP:-}" ] || pg_dump -Fc -f "$DUMP" lg
# INGEST=N: ingest.sh's rate of N samples into the grown database against an empty one (goal:
# at least 0.9), each the best of two calls (this machine is noisy)
if [ -n "${INGEST:-}" ]; then
    pg_dump -Fc -f "$T/grown.dump" lg
    rate() { # [PRELOAD]
        local best=0 r i
        for i in 1 2; do
            r=$(PRELOAD=${1:-} bash "$src/tests/bench/ingest.sh" "$build" "$INGEST" 2>/dev/null |
                sed -nE 's/^ingest: controller ([0-9.]+) samples\/s.*/\1/p' | head -n 1)
            need_figure labscale "ingest's rate${1:+ into the grown database}" "${r:-}"
            best=$(awk -v a="$r" -v b="$best" 'BEGIN { print (a > b) ? a : b }')
        done
        echo "$best"
    }
    empty=$(rate)
    grown=$(rate "$T/grown.dump")
    echo "labscale: ingest of $INGEST samples: $empty samples/s into an empty database, $grown into the grown one: ratio $(awk -v a="$grown" -v b="$empty" 'BEGIN { printf "%.2f", a / b }') (goal: at least 0.9)"
fi
total=$(q "SELECT count(*) FROM lg.sample")
echo "the database: $total samples ($(q "SELECT count(*) FROM lg.run") runs)"
printf '%-11s %9s %9s %7s\n' command alone grown ratio
worst=0
for c in "${cmds[@]}"; do
    t=$(time_cmd "$c")
    need_figure labscale "$c's time" "$t"
    r=$(awk -v a="$t" -v b="${before[$c]}" 'BEGIN { printf "%.2f", a / b }')
    printf '%-11s %8.3fs %8.3fs %6sx\n' "$c" "${before[$c]}" "$t" "$r"
    case $c in
    rank-all | rank-camp) ;; # over every campaign: their goal is an absolute time (below)
    *) worst=$(awk -v a="$r" -v b="$worst" 'BEGIN { print (a > b) ? a : b }') ;;
    esac
done
echo "labscale: the per-campaign commands at $total samples take at most ${worst}x their time on the campaign alone (goal at 20M: 1.5)"

# the same commands' plans on the grown database: no statement reads more of lg.sample than it
# did on the campaign alone
explain on
plans grown
explain off
bad=0
for c in "${cmds[@]}"; do
    case $c in rank-all | rank-camp) continue ;; esac
    for tb in ${PLAN_TABLES:-sample}; do
        python3 "$src/tests/bench/plan_reads.py" "$tb" "$c" "$T/plans.alone.$c" "$T/plans.grown.$c" || bad=1
    done
done
[ "$bad" = 0 ] || fail "a per-campaign command read the other campaign's samples (plans in $T/plans.*)"
echo "labscale: every per-campaign command's statements read as many samples as on the campaign alone"
