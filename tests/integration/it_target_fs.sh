#!/usr/bin/env bash
# it_target_fs: a target is what its spec says, or nothing runs on it. lgctl and the agent never
# create a file target's folder (an absent /mnt/nas-smb must not become a local folder); a target
# labelled smb that sits on a local filesystem (an empty mount point) is refused before fio
# touches it, the error naming where it really is, and nothing is left behind; fs: any says it is
# meant; mount: names the mount point it must be on.
. "$(dirname "$0")/lib.sh"
pg_start

# 1. A folder that is not there: lgctl refuses before starting anything, and makes nothing.
cat >"$T/missing.yaml" <<SPEC
name: it-missing
configs:
  - labels: {build: it}
    targets: [{protocol: smb, target: $T/mnt/nas-smb/lg.bin}]
size: 16M
profiles: [{name: r, bs: 4k, pattern: random, read: 100, sweep: none}]
runtime: 1s
threads: 1
qd: 1
precondition: none
SPEC
rc=0
"$LG_BIN/lgctl" --data-dir "$T/lgdata" run "$T/missing.yaml" >"$T/missing.out" 2>"$T/missing.err" || rc=$?
expect_eq "a missing target folder: exit" "$rc" 1
grep -q "the folder \"$T/mnt/nas-smb\" of target \"$T/mnt/nas-smb/lg.bin\" does not exist" "$T/missing.err" ||
    { cat "$T/missing.err" >&2; fail "the refusal does not name the missing folder"; }
[ ! -e "$T/mnt" ] || fail "lgctl created $T/mnt"
echo "ok: a missing target folder is refused and not created"

# 2. The folder is there but local (a share not mounted): smb is refused, fs: any runs, a wrong
#    mount: is refused, protocol local needs nothing.
mkdir -p "$T/mnt/nas-smb"
fstype=$(stat -f -c %T "$T/mnt/nas-smb")
cat >"$T/fs.yaml" <<SPEC
name: it-fs
configs:
  - labels: {build: it, case: smb-on-local}
    targets: [{protocol: smb, target: $T/mnt/nas-smb/lg.bin}]
  - labels: {build: it, case: any}
    targets: [{protocol: smb, target: $T/mnt/nas-smb/any.bin, fs: any}]
  - labels: {build: it, case: wrong-mount}
    targets: [{protocol: local, target: $T/mnt/nas-smb/m.bin, mount: /mnt/nas-smb}]
  - labels: {build: it, case: local}
    targets: [{protocol: local, target: $T/mnt/nas-smb/local.bin, fs: local}]
between_configs: none
size: 16M
profiles: [{name: r, bs: 4k, pattern: random, read: 100, sweep: none}]
runtime: 1s
threads: 1
qd: 1
precondition: none
SPEC
rc=0
"$LG_BIN/lgctl" --data-dir "$T/lgdata" run "$T/fs.yaml" >"$T/fs.out" 2>"$T/fs.err" || rc=$?
cat "$T/fs.out"
expect_eq "a campaign with refused runs: exit" "$rc" 1
rc=0 # a report of a campaign with failed points names them and exits 1
"$LG_BIN/lgctl" --data-dir "$T/lgdata" report --campaign it-fs --format json >"$T/fs.json" || rc=$?
expect_eq "the report of a campaign with failed points: exit" "$rc" 1
state_of() { python3 -c "import json,sys
rows=[r for r in json.load(open('$T/fs.json')) if r['sut'] == 'it $1']
print(rows[0]['state'] + '|' + (rows[0]['error'] or ''))"; }
smb=$(state_of smb-on-local)
case "$smb" in
failed\|*"(protocol smb) must be on an SMB share, but it is on"*"mounted at"*"is the share mounted?"*) ;;
*) fail "smb on a local folder: \"$smb\"" ;;
esac
echo "ok: refused: ${smb#failed|}"
ls "$T/mnt/nas-smb" >"$T/left.txt"
! grep -q "^lg.bin" "$T/left.txt" || fail "the refused run left $(cat "$T/left.txt") on the local disk"
expect_eq "fs: any" "$(state_of any)" "done|"
wrong=$(state_of wrong-mount)
case "$wrong" in
failed\|*"not on the mount point /mnt/nas-smb the spec asks for"*) ;;
*) fail "mount: /mnt/nas-smb: \"$wrong\"" ;;
esac
expect_eq "protocol local, fs: local" "$(state_of local)" "done|"
echo "ok: fs: any and fs: local run on $fstype; a wrong mount: is refused"

# An smb:// target that names a user, and no --smb-credentials: refused, never a guest login.
sed -e "s|target: $T/mnt/nas-smb/lg.bin|target: smb://alice@127.0.0.1/share/lg.bin|" "$T/missing.yaml" >"$T/user.yaml"
rc=0
"$LG_BIN/lgctl" --data-dir "$T/lgdata" run "$T/user.yaml" >/dev/null 2>"$T/user.err" || rc=$?
expect_eq "smb:// user without --smb-credentials: exit" "$rc" 2
grep -q 'names the user "alice" and no --smb-credentials FILE gives the password' "$T/user.err" ||
    { cat "$T/user.err" >&2; fail "the refusal does not name the user and the missing credentials"; }

# 3. The README's own example spec, run in local mode on a host without the share mounted: refused
#    before anything runs, naming the share's mount point.
sed -n '/^```yaml/,/^```/p' "$LG_SRC/README.md" | sed '1d;$d' >"$T/readme.yaml"
"$LG_BIN/lgctl" plan "$T/readme.yaml" >/dev/null || fail "the README's example spec does not pass plan"
if [ -d /mnt/nas-smb ]; then
    echo "note: /mnt/nas-smb exists on this host: the README spec's refusal is not checked"
else
    rc=0
    "$LG_BIN/lgctl" --data-dir "$T/lgdata2" run "$T/readme.yaml" >/dev/null 2>"$T/readme.err" || rc=$?
    expect_eq "the README's spec without its share: exit" "$rc" 1
    grep -q 'the folder "/mnt/nas-smb" of target "/mnt/nas-smb/lg.bin" does not exist' "$T/readme.err" ||
        { cat "$T/readme.err" >&2; fail "the refusal does not name /mnt/nas-smb"; }
    [ ! -e /mnt/nas-smb ] || fail "lgctl created /mnt/nas-smb"
    [ ! -e "$T/lgdata2/pg" ] || fail "lgctl started its database before refusing"
    echo "ok: the README's example spec is refused: $(cat "$T/readme.err")"
fi
echo "PASS"
