#!/usr/bin/env bash
# it_plan_check: lgctl plan --check --controller has every agent a target's runs would pick log
# in to that target, as a run would, and look without I/O: against a live smbd and tgtd on
# loopback and a loop device, a share folder that is not there, a LUN 7 the target does not have,
# a LUN smaller than size: and a block device smaller than size: are each refused by name
# (target, agent and what was found), and lgctl exits 1; a good spec passes (exit 0) with what
# each agent found (the folder takes a new file, and is left as it was; the LUN's and the
# device's size); nothing was run or stored.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/smb.sh"
. "$(dirname "$0")/tgt.sh"
pg_start
lg_keys a1 a2 a3
smb_start
tgt_start 64M
install -d -o "$SMB_USER" "$SMB_SHARE_DIR/lg"
"$LG_BIN/lgctl" db migrate >/dev/null
start_controller
SMB_BASE="smb://127.0.0.1:$SMB_PORT/$SMB_SHARE"
ISCSI_BASE=${ISCSI_URL%/*}
truncate -s 16M "$T/blk.img"
DEV=$(losetup -f --show "$T/blk.img") || fail "losetup: a loop device is needed"
CLEANUP_LOOPS+=("$DEV")
for a in a1 a2; do
    start_agent "$a" --allow "$SMB_BASE" --allow "$ISCSI_BASE" --allow "$DEV" \
        --allow-destructive --smb-credentials "$SMB_CREDS"
done
start_agent a3 --allow "$DEV" # no consent to write to a device

# check NAME SMB_PATH LUN SIZE: lgctl plan --check of a spec with an SMB target (on both agents)
# and an iSCSI target (on a1); output in $T/NAME.out, exit status in RC.
check() {
    cat >"$T/$1.yaml" <<SPEC
name: $1
configs:
  - labels: {build: loopback}
    targets:
      - {target: "$SMB_BASE/$2/data.bin", agents: [a1, a2]}
      - {target: "$ISCSI_BASE/$3", agents: [a1]}
size: $4
profiles: [4k-rand]
runtime: 2s
precondition: none
SPEC
    RC=0
    "$LG_BIN/lgctl" --controller "ipc://$T/ctl.sock" plan --check "$T/$1.yaml" >"$T/$1.out" \
        2>"$T/$1.err" || RC=$?
    sed -n '/target/p' "$T/$1.out" | sed "s/^/  $1: /"
}

# ---- a good spec ----
check good lg 1 32M
expect_eq "good: exit status" "$RC" 0
grep -qF "target \"$SMB_BASE/lg/data.bin\" from agent \"a1\": folder \"$SMB_BASE/lg\" is there and takes a new file as user $SMB_USER" "$T/good.out" ||
    fail "good: a1's SMB check not said: $(cat "$T/good.out" "$T/good.err")"
grep -qF "target \"$SMB_BASE/lg/data.bin\" from agent \"a2\": folder" "$T/good.out" ||
    fail "good: a2 did not check the SMB target"
grep -qF "target \"$ISCSI_BASE/1\" from agent \"a1\": LUN 1 of \"$ISCSI_BASE/1\" holds 67108864 bytes (size: 33554432)" "$T/good.out" ||
    fail "good: the LUN's size not said: $(cat "$T/good.out")"
expect_eq "good: the iSCSI target from a1 only" "$(grep -c "target \"$ISCSI_BASE/1\" from agent" "$T/good.out")" 1
expect_eq "good: the share's folder as it was (the check's file removed)" \
    "$(find "$SMB_SHARE_DIR/lg" -mindepth 1 | wc -l)" 0
expect_eq "good: nothing run or stored" "$(q "SELECT count(*) FROM lg.campaign")" 0
grep -qE "^SMB sessions: lgsmb opens one per outstanding I/O, up to [0-9]+ per agent at once \([0-9]+T[0-9]+Q\) and [0-9]+ over the agents the spec names$" "$T/good.out" ||
    fail "good: the SMB session count not said: $(cat "$T/good.out")"

# ---- a share folder that is not there ----
check nofolder missing 1 32M
expect_eq "nofolder: exit status" "$RC" 1
grep -qF "REFUSED: target \"$SMB_BASE/missing/data.bin\" from agent \"a1\": the target's folder \"$SMB_BASE/missing\" is not there as user $SMB_USER: No such file or directory" "$T/nofolder.out" ||
    fail "nofolder: not refused by name: $(cat "$T/nofolder.out" "$T/nofolder.err")"
expect_eq "nofolder: refused from both agents" "$(grep -c "^REFUSED: target \"$SMB_BASE/missing" "$T/nofolder.out")" 2
expect_eq "nofolder: the LUN still passes" "$(grep -c "^REFUSED: target \"$ISCSI_BASE" "$T/nofolder.out")" 0

# ---- LUN 7, which the target does not have ----
check lun7 lg 7 32M
expect_eq "lun7: exit status" "$RC" 1
grep -qE "^REFUSED: target \"$ISCSI_BASE/7\" from agent \"a1\": LUN 7 of \"$ISCSI_BASE/7\" is not there" "$T/lun7.out" ||
    fail "lun7: not refused by name: $(cat "$T/lun7.out" "$T/lun7.err")"

# ---- a LUN smaller than size ----
check small lg 1 128M
expect_eq "small: exit status" "$RC" 1
grep -qF "REFUSED: target \"$ISCSI_BASE/1\" from agent \"a1\": LUN 1 of \"$ISCSI_BASE/1\" holds 67108864 bytes, less than size: 134217728" "$T/small.out" ||
    fail "small: not refused by name: $(cat "$T/small.out" "$T/small.err")"
expect_eq "small: the SMB target still passes" "$(grep -c "^REFUSED: target \"$SMB_BASE" "$T/small.out")" 0

# ---- a block device, under and over size, and from an agent that may not write to it ----
declare -A BRC=()
for size in 8M 32M; do
    cat >"$T/blk$size.yaml" <<SPEC
name: blk$size
target: "block:$DEV"
agents: [a2, a3]
size: $size
profiles: [4k-rand]
runtime: 2s
precondition: none
SPEC
    RC=0
    "$LG_BIN/lgctl" --controller "ipc://$T/ctl.sock" plan --check "$T/blk$size.yaml" \
        >"$T/blk$size.out" 2>"$T/blk$size.err" || RC=$?
    BRC[$size]=$RC
    sed -n '/target/p' "$T/blk$size.out" | sed "s/^/  blk$size: /"
done
expect_eq "block 8M, 32M: exit status (a3 refused either way)" "${BRC[8M]} ${BRC[32M]}" "1 1"
grep -qxF "target \"$DEV\" from agent \"a2\": block device \"$DEV\" holds 16777216 bytes (size: 8388608)" "$T/blk8M.out" ||
    fail "block 8M: $(cat "$T/blk8M.out" "$T/blk8M.err")"
grep -qF "REFUSED: target \"$DEV\" from agent \"a2\": block device \"$DEV\" holds 16777216 bytes, less than size: 33554432" "$T/blk32M.out" ||
    fail "block 32M: not refused by name: $(cat "$T/blk32M.out" "$T/blk32M.err")"
grep -qF "REFUSED: target \"$DEV\" from agent \"a3\": the spec writes to block device \"$DEV\": this agent was not started with --allow-destructive" "$T/blk8M.out" ||
    fail "block: a3's missing consent not said: $(cat "$T/blk8M.out")"
echo "ok: a missing folder, LUN 7, a LUN and a device under size are refused by name; a good spec passes"
