#!/usr/bin/env bash
# test.sh: install what lg needs, build it with ASan+UBSan and warnings as errors, and run every
# unit and integration test (real PostgreSQL and fio) through ctest.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
"$src/deploy/install-deps.sh"
"$src/deploy/build.sh" "$src/build-test" -DCMAKE_BUILD_TYPE=Debug -DLG_SANITIZE=ON -DLG_WERROR=ON
cd "$src/build-test"
# Three tests at a time on this 2-core machine: most integration tests wait on sleeps, deadlines
# and fio runtimes, and those that must not overlap are locked in tests/CMakeLists.txt. A -j
# given here (./deploy/test.sh -j1: one at a time) comes later and wins.
exec ctest --output-on-failure -L 'unit|integration' -j3 "$@"
