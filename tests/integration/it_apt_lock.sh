#!/usr/bin/env bash
# it_apt_lock: the install scripts' apt_get (deploy/apt.sh) waits for apt's locks, as a fresh
# cloud machine's unattended upgrades hold them, instead of failing the README's first command.
# On apt's and dpkg's own code with private state folders (Dir::State::Lists, Dir::State::status
# under $T: the machine's own locks are never taken), each lock held by another process for 4 s:
#   - apt_get update waits for the lists lock (which apt itself does not wait for), says so
#     once, and succeeds;
#   - apt_get check waits for dpkg's frontend lock (DPkg::Lock::Timeout) and succeeds;
#   - a failure that is not a lock (a package that does not exist) is said at once, not waited on.
. "$(dirname "$0")/lib.sh"
command -v apt-get >/dev/null || fail "apt-get is missing (a Debian machine is needed)"
command -v python3 >/dev/null || fail "python3 is missing"
. "$LG_SRC/deploy/apt.sh"
mkdir -p "$T/lists/partial" "$T/cache/archives/partial" "$T/dpkg/updates" "$T/dpkg/info" "$T/parts"
cp /var/lib/dpkg/status "$T/dpkg/status"
# the machine's own deb stanzas, read into private lists
for f in /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] && cp "$f" "$T/parts/"
done
[ -f /etc/apt/sources.list ] && cp /etc/apt/sources.list "$T/src.list" || : >"$T/src.list"
APT=(-o "Dir::State::Lists=$T/lists" -o "Dir::State::status=$T/dpkg/status"
     -o "Dir::Cache=$T/cache" -o "Dir::Etc::SourceList=$T/src.list" -o "Dir::Etc::SourceParts=$T/parts")

hold() { # FILE SECONDS: a process holds FILE's fcntl lock (as apt and dpkg take theirs)
    python3 -c '
import fcntl, sys, time
f = open(sys.argv[1], "w")
fcntl.lockf(f, fcntl.LOCK_EX)
print("held", flush=True)
time.sleep(float(sys.argv[2]))' "$1" "$2" >"$T/hold.out" &
    HOLD=$!
    CLEANUP_PIDS+=("$HOLD")
    for _ in $(seq 1 50); do
        grep -q held "$T/hold.out" 2>/dev/null && return 0
        sleep 0.1
    done
    fail "could not hold $1"
}
timed() { # LOG CMD...: runs CMD with stderr into LOG; sets RC and SECS
    local t0=$EPOCHREALTIME
    RC=0
    "${@:2}" >/dev/null 2>"$1" || RC=$?
    SECS=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')
}

# 1. the lists lock: apt-get update alone would fail at once
hold "$T/lists/lock" 4
timed "$T/raw.err" apt-get "${APT[@]}" -q update
[ "$RC" != 0 ] && grep -q "Could not get lock" "$T/raw.err" ||
    fail "plain apt-get update did not fail on the held lists lock (rc $RC): $(cat "$T/raw.err")"
APT_WAIT_STEP=1 timed "$T/update.err" apt_get "${APT[@]}" -q update
wait "$HOLD" || true
expect_eq "apt_get update under a held lists lock" "$RC" 0
awk -v s="$SECS" 'BEGIN { exit !(s >= 2.5) }' || fail "apt_get update took $SECS s: it did not wait"
expect_eq "said once that it waits" "$(grep -c "waiting for apt's lock" "$T/update.err")" 1
grep -q "waiting for apt's lock (Could not get lock $T/lists/lock" "$T/update.err" ||
    fail "the wait does not name the lock: $(cat "$T/update.err")"
compgen -G "$T/lists/*Packages*" >/dev/null || fail "no package lists after the update"
echo "ok: apt_get update waited $SECS s for the lists lock, then read the lists"

# 2. dpkg's frontend lock
hold "$T/dpkg/lock-frontend" 4
timed "$T/check.err" apt_get "${APT[@]}" check
wait "$HOLD" || true
expect_eq "apt_get check under a held dpkg frontend lock" "$RC" 0
awk -v s="$SECS" 'BEGIN { exit !(s >= 2.5) }' || fail "apt_get check took $SECS s: it did not wait"
echo "ok: apt_get check waited $SECS s for dpkg's frontend lock"

# 3. not a lock: at once
timed "$T/none.err" apt_get "${APT[@]}" -s install lg-no-such-package
[ "$RC" != 0 ] || fail "installing a package that does not exist succeeded"
grep -q "Unable to locate package lg-no-such-package" "$T/none.err" ||
    fail "the error is not apt's own: $(cat "$T/none.err")"
awk -v s="$SECS" 'BEGIN { exit !(s < 5) }' || fail "a failure that is not a lock took $SECS s"
echo "ok: a failure that is not a lock is said at once ($SECS s)"
