#!/usr/bin/env bash
# agent_overhead: the same fio null-engine job (4k randread, 16 jobs x 16 QD) run bare and
# through lg local mode (agent, controller, PostgreSQL all on this machine), alternating, and
# the ratio IOPS through lg / IOPS bare. Target: >= 0.97. Both IOPS come from JSON (lgctl run
# --format json, fio --output-format=json); a missing or zero one stops the bench (exit 1).
# usage: tests/bench/agent_overhead.sh [BUILD_DIR] [RUNTIME_S] [ROUNDS]
#   (the suite runs it as bench_agent_overhead with RUNTIME_S 1 and ROUNDS 1)
set -euo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$src/build}
runtime=${2:-10}
rounds=${3:-3}
bin=$build/bin
[ -x "$bin/lgctl" ] || { echo "build lg first: deploy/build.sh $build" >&2; exit 1; }
command -v jq >/dev/null || { echo "jq is missing (apt-get install jq)" >&2; exit 1; }
. "$src/tests/bench/figure.sh"
T=$(mktemp -d /tmp/lg-bench.XXXXXX)
chmod 711 "$T"
cleanup() {
    local pidfile=$T/data/pg/data/postmaster.pid
    [ -f "$pidfile" ] && kill -INT "$(head -n 1 "$pidfile")" 2>/dev/null
    rm -rf "$T"
}
trap cleanup EXIT

cat >"$T/spec.yaml" <<SPEC
name: bench-overhead
sut:
  labels: {build: bench, media: "null"}
target: "null"
size: 1G
profiles:
  - {name: 4k-randread, bs: 4k, pattern: random, read: 100}
threads: 16
qd: 16
runtime: ${runtime}s
precondition: none
SPEC

# lg_once: one campaign through lg; its report (JSON) in $T/lg.json, its job file in $T/job.fio.
lg_once() {
    LG_KEEP_RUN_DIR=1 "$bin/lgctl" --quiet --data-dir "$T/data" run --format json "$T/spec.yaml" \
        >"$T/lg.json" 2>"$T/lg.err" || { cat "$T/lg.err" >&2; exit 1; }
    # The job file lg-agent wrote: the bare run uses exactly this file.
    job=$(ls -t "$T"/data/local-*/agent/run-*/job.fio | head -n 1)
    cp "$job" "$T/job.fio"
    rm -rf "$T"/data/local-*
}
# The report's figure by its name: the measured run's read IOPS (none when the run is not done).
lg_iops() {
    jq '[.[] | select(.profile == "4k-randread" and .direction == "read"
                      and .phase == "measure" and .state == "done") | .iops] | add' \
        "$T/lg.json" 2>&1 || true
}

bare_once() {
    fio --output-format=json "$T/job.fio" >"$T/bare.json"
}
bare_iops() { jq '[.jobs[].read.iops] | add' "$T/bare.json" 2>&1 || true; }

lg_once # warm up: creates the cluster and yields the job file
echo "job file (written by lg-agent, used for both):"
grep -v '^;' "$T/job.fio" | tr '\n' ' '
echo
lg_sum=0
bare_sum=0
ratios=()
for i in $(seq 1 "$rounds"); do
    bare_once
    b=$(bare_iops)
    need_figure agent_overhead "round $i: bare IOPS (.jobs[].read.iops of fio's JSON)" "$b" "$T/bare.json"
    lg_once
    l=$(lg_iops)
    need_figure agent_overhead "round $i: IOPS through lg (the done 4k-randread read run's iops in lgctl run --format json)" "$l" "$T/lg.json"
    awk -v i="$i" -v b="$b" -v l="$l" \
        'BEGIN { printf "round %d: bare %.0f IOPS, through lg %.0f IOPS, ratio %.4f\n", i, b, l, l / b }'
    ratios+=("$(awk -v b="$b" -v l="$l" 'BEGIN { printf "%.4f", l / b }')")
    lg_sum=$(awk -v a="$lg_sum" -v b="$l" 'BEGIN { printf "%.6f", a + b }')
    bare_sum=$(awk -v a="$bare_sum" -v b="$b" 'BEGIN { printf "%.6f", a + b }')
done
median=$(printf '%s\n' "${ratios[@]}" | sort -n | awk '{ v[NR] = $1 } END {
    print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }')
awk -v l="$lg_sum" -v b="$bare_sum" -v n="$rounds" -v t="$runtime" -v m="$median" 'BEGIN {
    printf "agent_overhead: IOPS through lg / IOPS bare = %.4f over %d alternating rounds of %ss (median round %.4f); target >= 0.97\n", l / b, n, t, m }'
