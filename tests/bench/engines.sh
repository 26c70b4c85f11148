#!/usr/bin/env bash
# engines: both engine benchmarks, each against a live server on loopback, and their ratios.
#   lgiscsi: 4k randread QD16 vs libiscsi's iscsi-perf on the same LUN (engine_iscsi.sh)
#   lgsmb: 128k sequential write and read vs a libsmbclient copy loop (engine_smb.sh)
# Targets: every ratio >= 0.8. Both run even when one fails; the exit is 1 when either failed (a
# figure missing or zero, a server that did not start) or printed no summary line.
# usage: tests/bench/engines.sh [BUILD_DIR] [tiny]
#   tiny: each bench once, in seconds (the suite runs this as bench_engines)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../../build}
if [ "${2:-}" = tiny ]; then
    iscsi_args=(1 1 32) smb_args=(8 1 "seq,rand-lan" 1)
else
    iscsi_args=(6 3) smb_args=(256 5)
fi
out=$(mktemp "${TMPDIR:-/tmp}/engines.XXXXXX")
trap 'rm -f "$out" "$out.sum"' EXIT
failed=()
# bench NAME SUMMARY-REGEX ARGS...: run tests/bench/NAME.sh, its output shown on stderr as it
# comes and its summary lines kept for the end.
bench() {
    local name=$1 re=$2 rc=0
    shift 2
    bash "$here/$name.sh" "$build" "$@" | tee "$out" >&2 || rc=$?
    if [ "$rc" != 0 ]; then
        failed+=("$name.sh failed (exit $rc)")
    else
        grep "$re" "$out" >>"$out.sum" || failed+=("$name.sh printed no line matching $re")
    fi
}
bench engine_iscsi '^engine_iscsi:' "${iscsi_args[@]}"
bench engine_smb '^engine_smb' "${smb_args[@]}"
echo "--- engines summary"
cat "$out.sum" 2>/dev/null || true
if [ ${#failed[@]} -gt 0 ]; then
    printf 'engines: FAIL: %s\n' "${failed[@]}" >&2
    exit 1
fi
