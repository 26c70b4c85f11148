#!/bin/sh
# man-options.sh SRC OUT PROGRAM SCDOC: the man page of lg-agent, lg-controller or lg-export from
# its scdoc source SRC, whose line @OPTIONS@ becomes the OPTIONS entries the program prints from
# the option table its --help and parser come from (PROGRAM --man-options); gzipped to OUT.
set -eu
src=$1 out=$2 prog=$3 scdoc=$4
"$prog" --man-options >"$out.options"
grep -q '^@OPTIONS@$' "$src" || { echo "$src: no @OPTIONS@ line" >&2; exit 1; }
sed -e '/^@OPTIONS@$/{' -e "r $out.options" -e 'd' -e '}' "$src" | "$scdoc" | gzip -9n >"$out"
rm -f "$out.options"
