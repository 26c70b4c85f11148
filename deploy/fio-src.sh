#!/usr/bin/env bash
# fio-src.sh DIR: Debian's source of the installed fio, unpacked and configured in DIR/fio-<ver>
# (prints that path). External fio engines must be compiled against exactly these headers
# (FIO_IOOPS_VERSION); nothing of fio is committed to this repository. Reuses a configured tree.
set -euo pipefail
dir=$1
ver=$(dpkg-query -W -f='${Version}' fio)
up=${ver%%-*}
tree="$dir/fio-$up"
if [ -f "$tree/config-host.h" ] && [ -f "$tree/.lg-version" ] && [ "$(cat "$tree/.lg-version")" = "$ver" ]; then
    echo "$tree"
    exit 0
fi
mkdir -p "$dir/apt/parts" "$dir/apt/lists/partial" "$dir/apt/archives/partial"
# deb-src stanzas of the system's own sources, without touching /etc.
for f in /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] && sed 's/^Types: deb$/Types: deb-src/' "$f"
done >"$dir/apt/parts/src.sources"
if [ -f /etc/apt/sources.list ]; then
    grep -E '^deb ' /etc/apt/sources.list | sed 's/^deb /deb-src /' >"$dir/apt/src.list" || true
else
    : >"$dir/apt/src.list"
fi
APT=(-o "Dir::Etc::SourceList=$dir/apt/src.list" -o "Dir::Etc::SourceParts=$dir/apt/parts"
     -o "Dir::State::Lists=$dir/apt/lists" -o "Dir::Cache::Archives=$dir/apt/archives")
apt-get "${APT[@]}" -q update >"$dir/apt/update.log" 2>&1 ||
    { cat "$dir/apt/update.log" >&2; echo "fio-src.sh: apt-get update (deb-src) failed" >&2; exit 1; }
rm -rf "$tree"
(cd "$dir" && apt-get "${APT[@]}" -q source --download-only "fio=$ver" >"$dir/apt/source.log" 2>&1) ||
    { cat "$dir/apt/source.log" >&2; echo "fio-src.sh: apt-get source fio=$ver failed" >&2; exit 1; }
(cd "$dir" && dpkg-source -x --no-check "fio_$ver.dsc" "fio-$up" >"$dir/apt/extract.log" 2>&1) ||
    { cat "$dir/apt/extract.log" >&2; echo "fio-src.sh: unpacking fio $ver failed" >&2; exit 1; }
(cd "$tree" && ./configure --disable-native >"$dir/apt/configure.log" 2>&1) ||
    { cat "$dir/apt/configure.log" >&2; echo "fio-src.sh: fio's configure failed" >&2; exit 1; }
echo "$ver" >"$tree/.lg-version"
echo "$tree"
