#!/usr/bin/env bash
# engines: both engine benchmarks, each against a live server on loopback, and their ratios.
#   lgiscsi: 4k randread QD16 vs libiscsi's iscsi-perf on the same LUN (engine_iscsi.sh)
#   lgsmb: 128k sequential write and read vs a libsmbclient copy loop (engine_smb.sh)
# Targets: every ratio >= 0.8. usage: tests/bench/engines.sh [BUILD_DIR]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../../build}
bash "$here/engine_iscsi.sh" "$build" 6 3 | tee /dev/stderr | grep '^engine_iscsi:' >"${TMPDIR:-/tmp}/engines.$$" || true
bash "$here/engine_smb.sh" "$build" 256 5 | tee /dev/stderr | grep '^engine_smb' >>"${TMPDIR:-/tmp}/engines.$$" || true
echo "--- engines summary"
cat "${TMPDIR:-/tmp}/engines.$$"
rm -f "${TMPDIR:-/tmp}/engines.$$"
