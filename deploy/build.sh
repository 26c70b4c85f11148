#!/usr/bin/env bash
# build.sh DIR [cmake options...]: configure and build lg into DIR.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
dir=$1
shift
cmake -S "$src" -B "$dir" "$@" >/dev/null
cmake --build "$dir" -j "$(nproc)"
