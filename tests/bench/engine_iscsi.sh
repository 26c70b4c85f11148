#!/usr/bin/env bash
# engine_iscsi: 4k random reads at 16 outstanding against one LUN of a private tgtd on loopback,
# through fio with the lgiscsi engine (numjobs 1, iodepth 16) and through libiscsi's own
# iscsi-perf (-m 16 -b 8 -r), alternating, and the ratio IOPS lgiscsi / IOPS iscsi-perf.
# Target: >= 0.8. Both use the same libiscsi; the gap is fio's own per-I/O work plus the engine's.
# IOPS come from fio's JSON and iscsi-perf's "iops average N" line; a missing or zero one stops
# the bench (exit 1).
# usage: tests/bench/engine_iscsi.sh [BUILD_DIR] [RUNTIME_S] [ROUNDS] [LUN_MIB]
#   LUN_MIB (default 256): the LUN's size. The suite runs it as bench_engine_iscsi: 1 1 32.
set -euo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$src/build}
runtime=${2:-6}
rounds=${3:-3}
lun_mib=${4:-256}
engine=$build/lib/lg/engines/lgiscsi.so
[ -f "$engine" ] || { echo "build lg with its engines first: deploy/build.sh $build" >&2; exit 1; }
engine=$(cd "$(dirname "$engine")" && pwd)/lgiscsi.so
command -v iscsi-perf >/dev/null ||
    { echo "iscsi-perf is missing (apt-get install libiscsi-bin)" >&2; exit 1; }
command -v jq >/dev/null || { echo "jq is missing (apt-get install jq)" >&2; exit 1; }

# The integration fixtures: a folder $T, an EXIT trap, and tgtd stopped through tgtadm.
export LG_BIN=$build/bin LG_SRC=$src
. "$src/tests/integration/lib.sh"
. "$src/tests/integration/tgt.sh"
. "$src/tests/bench/figure.sh"
tgt_start "${lun_mib}M" >/dev/null
cd "$T" # whatever fio leaves in its working folder goes with $T
# Data rather than holes, so the target reads what a real LUN would (from its page cache).
dd if=/dev/urandom of="$ISCSI_LUN_FILE" bs=1M count="$lun_mib" conv=notrunc status=none
echo "target: $ISCSI_URL ($lun_mib MiB, tgtd $TGT_PID); ${rounds} alternating rounds of ${runtime}s"

fio_once() {
    fio --output-format=json --output="$T/fio.json" --name=randread \
        --ioengine="external:$engine" --filename="$ISCSI_FIO_URL" --rw=randread --bs=4k \
        --iodepth=16 --numjobs=1 --time_based --runtime="$runtime" 2>"$T/fio.log" ||
        { cat "$T/fio.log" >&2; exit 1; }
}
fio_iops() { sed -n '/^{/,$p' "$T/fio.json" | jq '.jobs[0].read.iops' 2>&1 || true; }

# iscsi-perf prints "iops average N" at the end (progress lines are separated by \r).
perf_once() {
    iscsi-perf -t "$runtime" -m 16 -b 8 -r "$ISCSI_URL" >"$T/perf.log" 2>&1 ||
        { cat "$T/perf.log" >&2; exit 1; }
}
perf_iops() { tr '\r' '\n' <"$T/perf.log" | sed -n 's/^iops average \([0-9]*\).*/\1/p' | tail -n 1; }

fio_once # warm up: first login, page cache
fio_all=()
perf_all=()
for i in $(seq 1 "$rounds"); do
    fio_once
    f=$(fio_iops)
    need_figure engine_iscsi "round $i: lgiscsi IOPS (.jobs[0].read.iops of fio's JSON)" "$f" "$T/fio.json"
    perf_once
    p=$(perf_iops)
    need_figure engine_iscsi "round $i: iscsi-perf IOPS (its \"iops average N\" line)" "$p" "$T/perf.log"
    fio_all+=("$f")
    perf_all+=("$p")
    awk -v i="$i" -v f="$f" -v p="$p" 'BEGIN {
        printf "round %d: lgiscsi %.0f IOPS, iscsi-perf %.0f IOPS, ratio %.3f\n", i, f, p, f / p }'
done
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END {
    print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
fm=$(median "${fio_all[@]}")
pm=$(median "${perf_all[@]}")
awk -v f="$fm" -v p="$pm" -v n="$rounds" -v t="$runtime" 'BEGIN {
    printf "engine_iscsi: 4k randread QD16: lgiscsi %.0f IOPS, iscsi-perf %.0f IOPS ", f, p
    printf "(medians of %d rounds of %ss), ratio %.3f; target >= 0.8\n", n, t, f / p }'
