#!/usr/bin/env bash
# it_spec_errors: a broken spec is refused with exit code 2 and a message naming the file, the
# line and the key, and nothing reaches the database.
. "$(dirname "$0")/lib.sh"
pg_start
"$LG_BIN/lgctl" db migrate >/dev/null

# check NAME LINE KEY: run lgctl on $T/NAME.yaml; expect exit 2 and "NAME.yaml:LINE:" and KEY.
check() {
    local name=$1 line=$2 key=$3 rc=0
    "$LG_BIN/lgctl" --data-dir "$T/lgdata" run "$T/$name.yaml" >"$T/$name.out" 2>"$T/$name.err" ||
        rc=$?
    [ $rc -eq 2 ] || { cat "$T/$name.err" >&2; fail "$name: exit $rc, want 2"; }
    grep -q "$T/$name.yaml:$line:" "$T/$name.err" ||
        { cat "$T/$name.err" >&2; fail "$name: message does not name $name.yaml line $line"; }
    grep -q "$key" "$T/$name.err" ||
        { cat "$T/$name.err" >&2; fail "$name: message does not name key $key"; }
    [ ! -s "$T/$name.out" ] || fail "$name: printed a report"
    echo "ok: $name -> $(head -n 1 "$T/$name.err")"
}

cat >"$T/unknown-profile.yaml" <<'SPEC'
name: broken
target: /tmp/lg-broken/data.bin
profiles:
  - 4k-rand
  - 4k-random
SPEC
check unknown-profile 5 profiles

cat >"$T/missing-target.yaml" <<'SPEC'
name: broken
profiles: [4k-rand]
qd: 4
SPEC
check missing-target 1 target

cat >"$T/negative-qd.yaml" <<'SPEC'
name: broken
target: /tmp/lg-broken/data.bin
profiles: [4k-rand]
threads: 2
qd: -4
SPEC
check negative-qd 5 qd

cat >"$T/bad-yaml.yaml" <<'SPEC'
name: broken
target: /tmp/lg-broken/data.bin
profiles: [4k-rand
threads: 2
SPEC
check bad-yaml 4 ""

cat >"$T/unknown-key.yaml" <<'SPEC'
name: broken
target: /tmp/lg-broken/data.bin
profiles: [4k-rand]
queue_depth: 4
SPEC
check unknown-key 4 queue_depth

expect_eq "campaigns stored" "$(q "SELECT count(*) FROM lg.campaign")" 0
expect_eq "runs stored" "$(q "SELECT count(*) FROM lg.run")" 0
[ ! -e "$T/lgdata" ] || fail "a broken spec created the local data folder"
[ ! -e /tmp/lg-broken ] || fail "a broken spec created the target folder"
echo "PASS"
