#!/bin/sh
# man-page.sh SRC OUT SCDOC [LINE PROGRAM ARG]: the man page from its scdoc source SRC, gzipped to
# OUT. With LINE, the source's line LINE becomes what "PROGRAM ARG" prints from the table its
# --help and parser come from: PROGRAM --man-options for @OPTIONS@ (lg-agent's, lg-controller's
# and lg-export's OPTIONS; lgctl's COMMANDS and OPTIONS sections).
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
