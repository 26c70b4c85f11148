#!/bin/sh
# lgctl-man.sh SRC OUT LGCTL SCDOC: lgctl(1) from its scdoc source SRC, whose line
# @LGCTL_COMMANDS_AND_OPTIONS@ becomes the COMMANDS and OPTIONS sections lgctl prints from the
# tables its --help comes from (lgctl --man-sections); written gzipped to OUT.
set -eu
src=$1 out=$2 lgctl=$3 scdoc=$4
"$lgctl" --man-sections >"$out.sections"
grep -q '^@LGCTL_COMMANDS_AND_OPTIONS@$' "$src" || { echo "$src: no @LGCTL_COMMANDS_AND_OPTIONS@ line" >&2; exit 1; }
sed -e '/^@LGCTL_COMMANDS_AND_OPTIONS@$/{' -e "r $out.sections" -e 'd' -e '}' "$src" | "$scdoc" | gzip -9n >"$out"
rm -f "$out.sections"
