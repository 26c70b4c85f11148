#!/usr/bin/env bash
# it_cli: what a new user types first. Every binary answers --version with its name and lg's
# version (the project's, from CMakeLists.txt) and exit 0; lgctl keygen --dir makes a missing
# key folder (and its parents) private, mode 0700, and never overwrites a key.
. "$(dirname "$0")/lib.sh"
version=$(sed -nE 's/^project\(lg VERSION ([0-9.]+).*/\1/p' "$LG_SRC/CMakeLists.txt")
[ -n "$version" ] || fail "no project version in CMakeLists.txt"
for b in lgctl lg-agent lg-controller lg-export; do
    expect_eq "$b --version" "$("$LG_BIN/$b" --version)" "$b $version"
done
expect_eq "lgctl version" "$("$LG_BIN/lgctl" version)" "lgctl $version"

"$LG_BIN/lgctl" keygen host-a --dir "$T/keys/new/deeper" >/dev/null
expect_eq "new key folder mode" "$(stat -c %a "$T/keys/new/deeper")" 700
expect_eq "its parent's mode" "$(stat -c %a "$T/keys/new")" 700
expect_eq "secret key mode" "$(stat -c %a "$T/keys/new/deeper/host-a.key")" 600
[ -s "$T/keys/new/deeper/host-a.pub" ] || fail "no public key written"
before=$(sha256sum <"$T/keys/new/deeper/host-a.key")
rc=0
"$LG_BIN/lgctl" keygen host-a --dir "$T/keys/new/deeper" >/dev/null 2>"$T/again.err" || rc=$?
[ "$rc" -ne 0 ] || fail "keygen overwrote an existing key"
expect_eq "the existing key is untouched (sha256)" "$(sha256sum <"$T/keys/new/deeper/host-a.key")" "$before"
grep -q "host-a.key" "$T/again.err" || { cat "$T/again.err" >&2; fail "the refusal does not name the key"; }
echo "PASS"
