#!/usr/bin/env bash
# build.sh DIR [cmake options...]: lg-agent.exe and the unit tests of the code it is made of,
# cross-built for 64-bit Windows with mingw-w64 into DIR, against what deps.sh builds (and
# caches) from Debian's sources. As root on Debian 12 (deps.sh installs mingw-w64 and wine64).
set -euo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
dir=${1:?usage: build.sh DIR [cmake options...]}
shift
"$src/deploy/windows/deps.sh"
cmake -S "$src" -B "$dir" -DCMAKE_TOOLCHAIN_FILE="$src/deploy/windows/mingw-w64.cmake" \
    -DCMAKE_BUILD_TYPE=Release -DLG_WERROR=ON "$@" >/dev/null
cmake --build "$dir" -j "$(nproc)"
