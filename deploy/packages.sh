#!/usr/bin/env bash
# packages.sh [DIR]: the Debian packages lg-agent, lg-controller and lg-export (a release build
# for /usr in DIR, default build-deb; then cpack). Run deploy/install-deps.sh first.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-$src/build-deb}
"$src/deploy/build.sh" "$dir" -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX=/usr -DLG_TESTS=OFF
(cd "$dir" && cpack -G DEB >/dev/null)
ls "$dir"/*.deb
