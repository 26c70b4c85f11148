#!/usr/bin/env bash
# it_local_interrupt: an interrupted local run never hands its campaign to the next one.
#  1. Ctrl-C (SIGINT) on "lgctl run A": campaign A ends "aborted" (its run in flight stopped and
#     kept as aborted, the rest aborted), and the next "lgctl run B" of another spec on the same
#     data folder runs all of B's runs at once, none of A's.
#  2. kill -9 of "lgctl run C" (no cleanup at all): the next "lgctl run B" marks C aborted, says
#     so, and again runs only its own runs.
. "$(dirname "$0")/lib.sh"
unset LG_DATABASE_URL # local mode's own private cluster
D="$T/data"
spec() { # NAME RUNTIME POINTS
    mkdir -p "$T/files-$1" # the target's folder: lgctl never makes it
    cat >"$T/$1.yaml" <<SPEC
name: $1
target: "dir:$T/files-$1"
size: 8m
profiles: [{name: r, bs: 4k, pattern: random, read: 100, sweep: [$3]}]
runtime: $2
precondition: none
SPEC
}
spec intr-a 30s "1T1Q, 1T2Q, 1T4Q"
spec intr-b 2s "1T1Q, 1T2Q"
spec intr-c 30s "1T1Q, 1T2Q"
run_started() { # OUT: lgctl's progress says a run is under way
    for _ in $(seq 1 300); do
        grep -q "0 of [0-9]* runs finished" "$1" 2>/dev/null && [ -s "$D/controller.endpoint" ] && return 0
        sleep 0.1
    done
    return 1
}
run_b() { # the second spec runs all its runs, promptly
    local t0 rc
    t0=$(date +%s)
    set +e
    timeout 120 "$LG_BIN/lgctl" run "$T/intr-b.yaml" --data-dir "$D" >"$T/b.out" 2>"$T/b.err"
    rc=$?
    set -e
    [ $rc -eq 0 ] || { cat "$T/b.out" "$T/b.err"; fail "lgctl run intr-b after $1: exit $rc"; }
    grep -q '"intr-b": done, created' "$T/b.out" || { cat "$T/b.out"; fail "intr-b is not done after $1"; }
    expect_eq "intr-b's runs done after $1" "$(grep -E " 1T[12]Q " "$T/b.out" | grep -c " done ")" 2
    local took=$(( $(date +%s) - t0 ))
    [ $took -lt 60 ] || fail "intr-b took $took s after $1: it waited for another campaign's run"
    grep -q "outside this agent" "$T/b.out" "$T/b.err" && fail "intr-b ran another campaign's run"
    echo "ok: after $1, intr-b ran its 2 runs in $took s"
}

# ---- 1. Ctrl-C ----
"$LG_BIN/lgctl" run "$T/intr-a.yaml" --data-dir "$D" >"$T/a.out" 2>"$T/a.err" &
APID=$!
CLEANUP_PIDS+=("$APID")
run_started "$T/a.err" || { cat "$T/a.err"; fail "intr-a did not start a run"; }
sleep 2
kill -INT "$APID"
set +e
wait "$APID"
rc=$?
set -e
[ $rc -ne 0 ] || fail "an interrupted lgctl run exited 0"
grep -q "campaign \"intr-a\" aborted" "$T/a.err" || { cat "$T/a.err"; fail "lgctl does not say it aborted intr-a"; }
echo "ok: $(grep -m1 "campaign \"intr-a\" aborted" "$T/a.err")"
run_b "Ctrl-C on intr-a"
"$LG_BIN/lgctl" report --campaign intr-a --data-dir "$D" >"$T/a-report.out" 2>&1 ||
    { cat "$T/a-report.out"; fail "report of intr-a"; }
grep -q '"intr-a": aborted, created' "$T/a-report.out" || { cat "$T/a-report.out"; fail "intr-a is not aborted"; }
expect_eq "intr-a's runs (1T1Q, 1T2Q, 1T4Q) that ended aborted" \
    "$(grep -E " 1T[124]Q " "$T/a-report.out" | grep -c " aborted ")" 3
echo "ok: intr-a ended aborted with its 3 runs aborted"

# ---- 2. kill -9 ----
"$LG_BIN/lgctl" run "$T/intr-c.yaml" --data-dir "$D" >"$T/c.out" 2>"$T/c.err" &
CPID=$!
CLEANUP_PIDS+=("$CPID")
run_started "$T/c.err" || { cat "$T/c.err"; fail "intr-c did not start a run"; }
sleep 1
# lgctl's children (controller, agent) would live on: stop them by PID after lgctl is gone.
kids=$(cat /proc/"$CPID"/task/*/children 2>/dev/null || true)
kill -9 "$CPID"
wait "$CPID" 2>/dev/null || true
for k in $kids; do kill -9 "$k" 2>/dev/null || true; done
pgpid=$(head -n 1 "$D/pg/data/postmaster.pid" 2>/dev/null || true)
[ -n "$pgpid" ] && { kill -INT "$pgpid"; for _ in $(seq 1 100); do kill -0 "$pgpid" 2>/dev/null || break; sleep 0.1; done; }
run_b "kill -9 of intr-c"
grep -q "campaign \"intr-c\" was interrupted earlier: marked aborted" "$T/b.err" ||
    { cat "$T/b.err"; fail "lgctl does not say it ended intr-c"; }
"$LG_BIN/lgctl" report --campaign intr-c --data-dir "$D" >"$T/c-report.out" 2>&1
grep -q '"intr-c": aborted, created' "$T/c-report.out" || { cat "$T/c-report.out"; fail "intr-c is not aborted"; }
grep -q " running " "$T/c-report.out" && fail "a run of intr-c is left running"
echo "ok: a killed local run's campaign is ended aborted by the next one, which runs its own runs"
