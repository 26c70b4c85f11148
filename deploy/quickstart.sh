#!/usr/bin/env bash
# quickstart.sh: install what lg needs, build it, and run examples/quick.yaml in local mode: a
# private PostgreSQL cluster, a controller and an agent on this machine, then the report.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
"$src/deploy/install-deps.sh"
"$src/deploy/build.sh" "$src/build" -DCMAKE_BUILD_TYPE=RelWithDebInfo
exec "$src/build/bin/lgctl" run "$src/examples/quick.yaml"
