#!/usr/bin/env bash
# it_smb_reuse: lg-agent keeps lgsmb's SMB sessions between runs of the same target (issue 41
# part 4; agent/engines/smbpark.c). A real smbd logs every logon (auth_audit); one agent runs
# campaigns of 2 threads x 8 outstanding I/Os through a real controller, back to back:
#   1. the first logs on 16 pool sessions; the second logs none of them on again (the same 16
#      worker processes, parked in between, serve it), its results are fio's own, and its jobs
#      are ready sooner (both printed);
#   2. a run against another share gets sessions of its own;
#   3. kill -9 of the agent mid-run ends every worker it had parked, and those a run adopted
#      (each watches the agent's pidfd); a connection that is no job's adopts nothing;
#   4. parked workers log off after the agent's --smb-keep-sessions, and their names go;
#   5. --smb-keep-sessions 0 keeps nothing: every run logs all its sessions on;
#   6. an agent that is PID 1 (a container's init) reaps its parked workers, orphaned to it.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/smb.sh"

command -v jq >/dev/null || fail "jq is not installed"
[ -f "$LG_BIN/../lib/lg/engines/lgsmb.so" ] || fail "no lgsmb engine: build with LG_ENGINES=ON"
pg_start
lg_keys h1
"$LG_BIN/lgctl" db migrate >/dev/null
install -d -m 755 "$T/smb" && install -d -m 755 -o daemon "$T/smb/other"
SMB_DEBUG="1 auth_audit:3" SMB_SHARE_EXTRA="[other]
    path = $T/smb/other
    read only = no
    force user = daemon" smb_start
BASE="smb://127.0.0.1:$SMB_PORT"
start_controller
agent() { # the agent h1 with --smb-keep-sessions $1
    start_agent h1 --smb-credentials "$SMB_CREDS" --allow "$BASE/$SMB_SHARE" --allow "$BASE/other" \
        --smb-keep-sessions "$1"
}
agent 600 # long enough that no parked worker times out while a loaded machine runs the steps below

# logons: the successful authentications smbd has logged so far (one per SMB session set up)
logons() { grep -c 'Auth: .*status \[NT_STATUS_OK\]' "$T/smb/smbd.log" || true; }
# ours: PIDs of lgsmb's workers of this test's agent (their environment names its park
# folder), live (not zombies), named lgsmb-worker or lgsmb-parked, one a line
ours() {
    local pid
    for pid in $(pgrep '^lgsmb-'); do
        tr '\0' '\n' <"/proc/$pid/environ" 2>/dev/null |
            grep -qxE "LG_SMB_PARK=[0-9:]*:$T/h1/smb-park" || continue
        alive "$pid"
    done
}
# campaign NAME SHARE: a 2T8Q 4k random read of SHARE/lg-reuse.dat run to its end; sets RUN,
# LOGONS (smbd's logons meanwhile) and READY_MS (how long its fio's jobs took to be ready: the
# agent's "logged in ... in N ms")
campaign() {
    cat >"$T/$1.yaml" <<SPEC
name: $1
target: "$BASE/$2/lg-reuse.dat"
size: 16M
profiles: [{name: r4k, bs: 4k, pattern: random, read: 100, sweep: none}]
threads: 2
qd: 8
runtime: 2s
precondition: none
SPEC
    local before
    before=$(logons)
    submit_file "$1"
    wait_campaign "$1"
    expect_eq "campaign $1" "$(q "SELECT state FROM lg.campaign WHERE name = '$1'")" done
    RUN=$(q "SELECT r.run_id FROM lg.run r JOIN lg.campaign c USING (campaign_id)
             WHERE c.name = '$1'")
    LOGONS=$(($(logons) - before))
    READY_MS=$(sed -n "s/.*run $RUN prepared: fio's 2 jobs logged in to .* in \([0-9]*\) ms.*/\1/p" \
        "$T/h1.log" | tail -n 1)
    [ -n "$READY_MS" ] || fail "$1: the agent did not say when run $RUN's jobs were ready"
    echo "$1 (run $RUN, //$2): $LOGONS logons at smbd, jobs ready in $READY_MS ms"
}
# fio_agrees RUN: the agent's stored result is fio's own (its final JSON, kept verbatim)
fio_agrees() {
    local fio lg
    fio=$(q "SELECT fio_json FROM lg.run_agent WHERE run_id = $1" |
        jq '[.jobs[].read.total_ios] | add')
    lg=$(q "SELECT ios FROM lg.result WHERE run_id = $1 AND agent_id IS NOT NULL
            AND direction = 'read'")
    [ -n "$fio" ] && [ "$fio" -gt 1000 ] || fail "run $1: fio read ${fio:-nothing}"
    expect_eq "run $1: the I/Os stored, against fio's" "$lg" "$fio"
    expect_eq "run $1: bytes of 4 KiB I/Os" "$(q "SELECT bytes = 4096 * ios FROM lg.result
        WHERE run_id = $1 AND agent_id IS NOT NULL AND direction = 'read'")" t
    expect_eq "run $1: errors" "$(q "SELECT coalesce(error, '') FROM lg.run WHERE run_id = $1")" ""
}

# --- 1. the second run of a target takes the first's sessions ---------------------------------
campaign first "$SMB_SHARE"
first_logons=$LOGONS first_ms=$READY_MS
fio_agrees "$RUN"
mapfile -t parked1 < <(ours | sort)
expect_eq "workers parked after the first run" "${#parked1[@]}" 16
[ "$first_logons" -ge 16 ] || fail "the first run logged on $first_logons sessions (want >= 16)"
campaign second "$SMB_SHARE"
fio_agrees "$RUN"
mapfile -t parked2 < <(ours | sort)
expect_eq "the second run's workers are the first's" "${parked2[*]}" "${parked1[*]}"
# its other logons: the jobs' ->setup (one context for all) and the layout step's, which have no
# pool
[ "$LOGONS" -le $((first_logons - 16)) ] ||
    fail "the second run logged on $LOGONS sessions, the first $first_logons (want 16 fewer)"
echo "ok: reused: the second run logged on $LOGONS sessions (the first $first_logons); its jobs" \
    "were ready in $READY_MS ms (the first's in $first_ms ms)"
awk -v a="$READY_MS" -v b="$first_ms" 'BEGIN { exit !(a < b) }' ||
    echo "note: the second run's jobs were not ready sooner ($READY_MS ms against $first_ms ms)"

# --- 2. another share: sessions of its own ----------------------------------------------------
campaign third other
fio_agrees "$RUN"
[ "$LOGONS" -ge 16 ] || fail "the run on another share logged on $LOGONS sessions (want >= 16)"
mapfile -t parked3 < <(ours | sort)
expect_eq "workers parked for two shares" "${#parked3[@]}" 32
echo "ok: another share: $LOGONS logons, ${#parked3[@]} workers parked"

# --- 2b. a connection that is no job's: another user cannot make one; one of ours that does not
# send a job's adoption (here 40 bytes of junk) is refused, and that worker logs off and ends ---
poke() { # SOCKET: connect, send junk, print how long the answer was
    python3 -c 'import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
try:
    s.connect(sys.argv[1])
except OSError as e:
    print("refused:", e.strerror); sys.exit(0)
s.send(b"x" * 40); s.settimeout(5); print("answer:", len(s.recv(100)), "then", len(s.recv(100)))' "$1"
}
victim=$(cd "$T/h1/smb-park" && ls -d p-* | head -n 1)
expect_eq "another user's connect to $victim" "$(runuser -u nobody -- bash -c "$(declare -f poke)
    poke '$T/h1/smb-park/$victim'")" "refused: Permission denied"
expect_eq "junk to $victim" "$(poke "$T/h1/smb-park/$victim")" "answer: 16 then 0"
wait_gone 5 "${victim##*-}" || fail "worker ${victim##*-} lives on after a connection of junk"
[ ! -e "$T/h1/smb-park/$victim" ] || fail "$victim is still in the park"
echo "ok: junk ended worker ${victim##*-}; another user could not connect"

# --- 3. kill -9 of the agent mid-run: the workers a run adopted, and those parked, end with it ---
mapfile -t parked3 < <(ours | sort)
expect_eq "workers parked, less the one junk ended" "${#parked3[@]}" 31
# (retries: 0: the controller would run the killed agent's point again, 60 s, on the next agent
# before the next campaign)
sed -e 's/^name: third/name: long/' -e 's/^runtime: 2s/runtime: 60s/' \
    -e "s|/other/|/$SMB_SHARE/|" "$T/third.yaml" >"$T/long.yaml"
echo "retries: 0" >>"$T/long.yaml"
logons_before_long=$(logons)
submit_file long
for _ in $(seq 1 300); do
    RUN=$(q "SELECT r.run_id FROM lg.run r JOIN lg.campaign c USING (campaign_id)
             WHERE c.name = 'long' AND r.state = 'running'")
    [ -n "$RUN" ] && [ "$(q "SELECT count(*) FROM lg.sample WHERE run_id = $RUN")" -ge 1 ] && break
    sleep 0.1
done
[ -n "$RUN" ] || fail "the long run never ran"
# the parked workers that serve the run: looked at until 15 do, for at most 20 s (a loaded machine
# may show the run's first sample while its jobs are still taking their workers)
for _ in $(seq 1 40); do
    serving=$(for p in $(ours 2>/dev/null); do
        [ "$(cat "/proc/$p/comm" 2>/dev/null)" = lgsmb-worker ] && echo "$p"
    done | grep -cxF -f <(printf '%s\n' "${parked3[@]}") || true)
    [ "$serving" -ge 15 ] && break
    sleep 0.5
done
# smbd's log says it too: a run that serves on the parked workers logs on at most the one session
# the junk ended and its layout's (CI twice saw 0 serving by their names, cause unknown: the run's
# logons are then the judge, and the names are printed)
long_logons=$(($(logons) - logons_before_long))
if [ "$serving" -lt 15 ]; then
    for p in "${parked3[@]}"; do echo "  parked $p: $(cat "/proc/$p/comm" 2>/dev/null || echo gone)"; done
    ls -la "$T/h1/smb-park" || true
    [ "$long_logons" -le 4 ] ||
        fail "the long run serves on $serving of the parked workers (want >= 15); it logged on" \
            "$long_logons sessions"
    echo "note: the long run serves on $serving parked workers by their names, but logged on" \
        "$long_logons sessions: it took the parked ones"
fi
kill -9 "${AGENT_PIDS[h1]}"
wait_gone 5 "${parked3[@]}" ||
    fail "workers outlived the killed agent: $(alive "${parked3[@]}" | tr '\n' ' ')"
echo "ok: kill -9 of the agent mid-run ended the $serving workers its run had adopted and the" \
    "$((${#parked3[@]} - serving)) still parked"

# --- 4. the idle time ends them -----------------------------------------------------------------
agent 2
campaign idle "$SMB_SHARE"
[ "$LOGONS" -ge 16 ] || fail "a new agent adopted another's sessions ($LOGONS logons)"
mapfile -t parked4 < <(ours)
expect_eq "workers parked by the new agent" "${#parked4[@]}" 16
wait_gone 8 "${parked4[@]}" ||
    fail "parked workers outlived --smb-keep-sessions 2: $(alive "${parked4[@]}" | tr '\n' ' ')"
[ -z "$(ls -A "$T/h1/smb-park")" ] || fail "names left in the park: $(ls -A "$T/h1/smb-park")"
echo "ok: parked workers logged off after the idle time"

# --- 5. --smb-keep-sessions 0: nothing kept -------------------------------------------------------
kill "${AGENT_PIDS[h1]}"
for _ in $(seq 1 100); do kill -0 "${AGENT_PIDS[h1]}" 2>/dev/null || break; sleep 0.1; done
agent 0
campaign off1 "$SMB_SHARE"
expect_eq "workers parked with --smb-keep-sessions 0" "$(ours | wc -l)" 0
campaign off2 "$SMB_SHARE"
[ "$LOGONS" -ge 16 ] || fail "with --smb-keep-sessions 0 the next run logged on $LOGONS sessions"
echo "ok: --smb-keep-sessions 0: $LOGONS logons for the second run"

# --- 6. an agent that is PID 1 (a container's init): its parked workers, orphaned to it, are
# reaped once they end -------------------------------------------------------------------------------
kill "${AGENT_PIDS[h1]}"
for _ in $(seq 1 100); do kill -0 "${AGENT_PIDS[h1]}" 2>/dev/null || break; sleep 0.1; done
start_agent h1 --wrap "unshare --pid --fork --mount-proc" --smb-credentials "$SMB_CREDS" \
    --allow "$BASE/$SMB_SHARE" --smb-keep-sessions 2
init=$(pgrep -P "${AGENT_PIDS[h1]}" -x lg-agent)
CLEANUP_PIDS+=("$init") # (unshare --fork ignores SIGTERM: the agent itself is stopped)
expect_eq "the agent's PID in its namespace" "$(awk '/^NSpid:/ { print $3 }' "/proc/$init/status")" 1
campaign init "$SMB_SHARE"
kids() { ps -o comm= --ppid "$init" | grep -c '^lgsmb-' || true; } # zombies too
[ "$(kids)" -ge 16 ] || fail "the agent that is PID 1 has $(kids) parked workers (want >= 16)"
for _ in $(seq 1 80); do [ "$(kids)" = 0 ] && break; sleep 0.1; done
expect_eq "workers (zombies too) of the agent that is PID 1, after the idle time" "$(kids)" 0
kill "$init"
for _ in $(seq 1 100); do kill -0 "${AGENT_PIDS[h1]}" 2>/dev/null || break; sleep 0.1; done
[ -z "$(alive "$init" "${AGENT_PIDS[h1]}")" ] || fail "the agent that is PID 1 did not stop"
echo "PASS"
