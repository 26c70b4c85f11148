#!/usr/bin/env bash
# it_fs_attacks: an agent's limits hold against the filesystem it writes to, not only against
# the strings of a spec. A controller holding the real key (evil fscases) sends the agent
# targets that reach outside its allowed folder through links planted inside it, as any client
# of a share could plant them: a folder link, a file link, a dangling link, dir: through a link,
# "//" spellings, a hard link, a link swapped to point outside after Prepare and during the run,
# and a device by plain path and by link without consent. Every one is refused (or the run
# fails) with a clear error, and the outside file and device are byte-for-byte unchanged.
# Links that stay inside are followed, and a clean run writes what it should.
# Then local mode: exactly the target is allowed (never its folder), a device target needs
# --allow-destructive, and a data folder whose path is too long for a socket address still runs
# over ipc in a private folder (never TCP), with an endpoint file only its owner can read.
. "$(dirname "$0")/lib.sh"
lg_keys victim
A="$T/allowed" O="$T/outside"
mkdir -p "$A/sub" "$O"
head -c 16M /dev/urandom >"$O/outside.bin"
head -c 4M /dev/urandom >"$O/hardlinked.bin"
ln "$O/hardlinked.bin" "$A/hardlink.bin"
head -c 4M /dev/urandom >"$A/swapped.bin"
head -c 4M /dev/urandom >"$A/swapped2.bin"
ln -s "$O" "$A/dlink"                 # a folder link out
ln -s "$O/outside.bin" "$A/flink"     # a file link out
ln -s "$O/new.bin" "$A/dangle"        # a link out to a file that does not exist yet
ln -s "$A/sub" "$A/inlink"            # a link that stays inside: followed
ln -s "$A/swapped.bin" "$A/swap"      # inside at Prepare; swapped out before Start
ln -s "$A/swapped2.bin" "$A/swap2"    # inside at Start; swapped out during the run
truncate -s 64M "$T/lun.img"
dev=$(losetup -f --show "$T/lun.img" 2>"$T/losetup.err") ||
    fail "losetup: $(cat "$T/losetup.err"): a block device is needed for the device cases"
CLEANUP_LOOPS+=("$dev")
head -c 64M /dev/urandom | dd of="$dev" bs=1M oflag=direct status=none
ln -s "$dev" "$A/devlink"
sums() { sha256sum "$O/outside.bin" "$O/hardlinked.bin" "$T/lun.img" | cut -d' ' -f1 | tr '\n' ' '; }
before=$(sums)
swapped2_before=$(sha256sum <"$A/swapped2.bin")

cat >"$T/cases" <<CASES
dir-symlink file randwrite $A/dlink/x.bin
dir-symlink-existing file randwrite $A/dlink/outside.bin
file-symlink-write file randwrite $A/flink
file-symlink-read file randread $A/flink
dangling-symlink file randwrite $A/dangle
dir-through-link file randread $A/dlink/lg-data.bin
double-slash file randwrite $A//dlink//x.bin
hard-link file randwrite $A/hardlink.bin
device-plain file randwrite $dev
device-symlink file randwrite $A/devlink
device-block block randwrite $dev
swap-before-start file randwrite $A/swap prepared $A/swap $O/outside.bin
swap-during-run file randwrite $A/swap2 running $A/swap2 $O/outside.bin
inside-link file randwrite $A/inlink/f.bin
clean file randwrite $A/clean.bin
CASES
port=$(free_port)
EV="tcp://127.0.0.1:$port"
"$LG_BIN/evil" fscases "$EV" "$T/keys/controller.key" "$T/cases" >"$T/evil.out" 2>"$T/evil.log" &
EVIL_PID=$!
CLEANUP_PIDS+=("$EVIL_PID")
start_agent victim --no-wait --log "$T/agent.log" --controller "$EV" --work-dir "$T/work" \
    --allow "$A" --allow "$dev"
wait "$EVIL_PID" || { cat "$T/evil.out" "$T/evil.log"; fail "the hostile controller failed"; }
cat "$T/evil.out"
verdict() { grep "^case $1: " "$T/evil.out" || echo "case $1: missing"; }
expect() { # CASE VERDICT WORDS
    verdict "$1" | grep -q "^case $1: $2: .*$3" || fail "case $1: $(verdict "$1"), want $2 with \"$3\""
}
expect dir-symlink refused "would be created at \"$O/x.bin\", outside this agent.s allowed targets"
expect dir-symlink-existing refused "resolves to \"$O/outside.bin\", outside"
expect file-symlink-write refused "resolves to \"$O/outside.bin\", outside"
expect file-symlink-read refused "resolves to \"$O/outside.bin\", outside"
expect dangling-symlink refused "a symbolic link"
expect dir-through-link refused "outside this agent.s allowed targets"
expect double-slash refused "outside this agent.s allowed targets"
expect hard-link refused "has 2 hard links"
expect device-plain refused "not started with --allow-destructive"
expect device-symlink refused "write to block device \"$dev\" (target \"$A/devlink\"): this agent was not started with --allow-destructive"
expect device-block refused "not started with --allow-destructive"
expect swap-before-start failed "changed since it was checked: it was \"$A/swapped.bin\", now it is \"$O/outside.bin\""
expect swap-during-run failed "changed since it was checked: it was \"$A/swapped2.bin\", now it is \"$O/outside.bin\""
expect_eq "the inside link" "$(verdict inside-link)" "case inside-link: ran"
expect_eq "the clean case" "$(verdict clean)" "case clean: ran"
[ ! -e "$O/x.bin" ] && [ ! -e "$O/new.bin" ] || fail "a file was created outside: $(ls "$O")"
expect_eq "outside file, hard-linked file and device after the attacks (sha256)" "$(sums)" "$before"
# The runs that did run wrote what they held: the inside files, through links that stay inside.
[ "$(stat -c %s "$A/sub/f.bin")" = 4194304 ] && [ "$(stat -c %s "$A/clean.bin")" = 4194304 ] ||
    fail "the clean runs did not lay out their 4 MiB files"
[ "$(sha256sum <"$A/swapped2.bin")" != "$swapped2_before" ] ||
    fail "swapped2.bin was not written: the run swapped during its course wrote nowhere we know"
echo "ok: every escape refused or failed, nothing outside written; links inside are followed"

# ---- local mode ----
pg_start
expect_local_fail() { # WANT_RC WORDS lgctl-args...
    local want=$1 words=$2
    shift 2
    set +e
    "$LG_BIN/lgctl" "$@" >"$T/local.out" 2>&1
    local rc=$?
    set -e
    [ $rc -eq "$want" ] && grep -q "$words" "$T/local.out" ||
        { cat "$T/local.out"; fail "lgctl $*: exit $rc, want $want with \"$words\""; }
    echo "ok: $(grep -m1 "$words" "$T/local.out")"
}
cat >"$T/dev.yaml" <<SPEC
name: local-dev
target: "$dev"
size: 4m
profiles: [{name: w, bs: 4k, pattern: random, read: 0}]
threads: 1
qd: 1
runtime: 1s
precondition: none
SPEC
expect_local_fail 2 "is a device and would be overwritten" run "$T/dev.yaml" --data-dir "$T/d1"
expect_eq "device after the refused local run (sha256)" "$(sums)" "$before"

# A data folder whose path does not fit in a socket address (108 bytes).
long="$T/data-$(printf 'x%.0s' $(seq 1 110))"
mkdir -p "$T/localdata" # a target's folder: lgctl never makes it
cat >"$T/local.yaml" <<SPEC
name: local-long
target: "dir:$T/localdata"
size: 4m
profiles: [{name: r, bs: 4k, pattern: random, read: 100}]
threads: 1
qd: 1
runtime: 3s
precondition: none
SPEC
# Its own private PostgreSQL too, whose socket cannot live there either.
env -u LG_DATABASE_URL "$LG_BIN/lgctl" run "$T/local.yaml" --data-dir "$long" >"$T/local-run.out" 2>&1 &
LPID=$!
CLEANUP_PIDS+=("$LPID")
for _ in $(seq 1 200); do [ -s "$long/controller.endpoint" ] && break; sleep 0.05; done
[ -s "$long/controller.endpoint" ] || fail "no endpoint file in the long data folder"
ep=$(cat "$long/controller.endpoint")
case "$ep" in ipc:///tmp/lg-*/control) ;; *) fail "local mode's endpoint is \"$ep\", want ipc in a private folder" ;; esac
expect_eq "the endpoint file's mode" "$(stat -c %a "$long/controller.endpoint")" 600
sockdir=$(dirname "${ep#ipc://}")
expect_eq "the socket folder's mode" "$(stat -c %a "$sockdir")" 700
wait "$LPID" || { cat "$T/local-run.out"; fail "local run with a long data folder"; }
grep -q "local-long" "$T/local-run.out" || fail "no report after the local run"
[ ! -e "$sockdir" ] || fail "the private socket folder $sockdir was left behind"
echo "ok: a long data folder runs over $ep (0600 endpoint file, 0700 folder, removed after)"
# Its folder by name (lgctl db url), not the newest /tmp/lg-pg-*: a test beside this one may
# have made one too.
pgsock=/tmp/$(env -u LG_DATABASE_URL "$LG_BIN/lgctl" db url --data-dir "$long" 2>/dev/null |
    grep -oE 'lg-pg-[0-9a-f]{16}' || true)
[ "$pgsock" != /tmp/ ] && [ -d "$pgsock" ] && [ -n "$(find "$pgsock" -maxdepth 0 -newer "$T/local.yaml")" ] ||
    fail "the private cluster of the long data folder listened in no /tmp/lg-pg-* folder"
expect_eq "the private cluster's short socket folder mode" "$(stat -c %a "$pgsock")" 700
rm -rf "$pgsock"

# With LG_DATABASE_URL the local run's agent is stored there: it was allowed exactly its file.
"$LG_BIN/lgctl" db migrate >/dev/null
"$LG_BIN/lgctl" run "$T/local.yaml" --data-dir "$T/d2" >"$T/local2.out" 2>&1 ||
    { cat "$T/local2.out"; fail "local run into LG_DATABASE_URL"; }
expect_eq "the local agent's allowed targets" \
    "$(q "SELECT facts -> 'allowed_targets' FROM lg.agent WHERE name = 'local'")" \
    "[\"$T/localdata/lg-data.bin\"]"
