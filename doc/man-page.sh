#!/bin/sh
# man-page.sh SRC OUT SCDOC [LINE PROGRAM ARG]: the man page from its scdoc source SRC, gzipped to
# OUT. With LINE, the source's line LINE becomes what "PROGRAM ARG" prints from the tables its
# --help and parser come from: lgctl --man-sections for @LGCTL_COMMANDS_AND_OPTIONS@ (lgctl(1)'s
# COMMANDS and OPTIONS), PROGRAM --man-options for @OPTIONS@ (lg-agent, lg-controller, lg-export).
set -eu
src=$1 out=$2 scdoc=$3
if [ $# -eq 3 ]; then
    "$scdoc" <"$src" | gzip -9n >"$out"
    exit 0
fi
line=$4 prog=$5 arg=$6
"$prog" "$arg" >"$out.part"
grep -qx "$line" "$src" || { echo "$src: no $line line" >&2; exit 1; }
sed -e "/^$line\$/{" -e "r $out.part" -e 'd' -e '}' "$src" | "$scdoc" | gzip -9n >"$out"
rm -f "$out.part"
