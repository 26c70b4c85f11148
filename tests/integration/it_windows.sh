#!/usr/bin/env bash
# it_windows: the Windows agent. Cross-built with mingw-w64 (deploy/windows/build.sh; its
# dependencies come from a cache, so only a machine's first run builds them), a PE32+ exe; its
# unit tests pass under wine64; and lg-agent.exe under wine registers with this (Linux)
# controller over CURVE, reports Windows host facts, and completes a run of fio.exe with
# windowsaio against a file, whose figures in the database are fio's own. Then the same agent as
# a Windows service (--install-service --config FILE) that the service control manager starts
# and stops.
. "$(dirname "$0")/lib.sh"
WIN_BUILD=${LG_WIN_BUILD:-$LG_BIN/../windows}
t0=$(date +%s)
"$LG_SRC/deploy/windows/build.sh" "$WIN_BUILD" >"$T/winbuild.log" 2>&1 ||
    { tail -n 40 "$T/winbuild.log"; fail "the Windows cross build failed"; }
grep "^deps.sh: done" "$T/winbuild.log" || true
echo "ok: cross build (dependencies cached) in $(( $(date +%s) - t0 )) s"
EXE="$WIN_BUILD/bin/lg-agent.exe"
file "$EXE" | grep -q "PE32+ executable (console) x86-64, for MS Windows" ||
    fail "lg-agent.exe is not PE32+: $(file "$EXE")"
echo "ok: $(file -b "$EXE")"

CACHE=${LG_WIN_CACHE:-/var/cache/lg-windows}
WINE=/usr/lib/wine/wine64 WINESERVER=/usr/lib/wine/wineserver64
# LG_WIN_TEST_PREFIX: another wine prefix, so that two runs of this test (whose cleanup stops
# its prefix's wineserver) can go on at once.
export WINEPREFIX="${LG_WIN_TEST_PREFIX:-$CACHE/wine-test}" WINEDEBUG=-all
wine_cleanup() {
    local rc=$?
    if [ -n "${SERVICE_INSTALLED:-}" ]; then # else every later start of this prefix runs it
        "$WINE" "$EXE" --uninstall-service >/dev/null 2>&1 </dev/null || true
    fi
    "$WINESERVER" -k 2>/dev/null || true
    rm -rf "$WINEPREFIX/drive_c/lg-$$"
    cleanup "$rc"
}
trap wine_cleanup EXIT
for t in test_agent test_stats test_wire test_fio test_auth; do
    timeout 300 "$WINE" "$WIN_BUILD/bin/$t.exe" >"$T/$t.log" 2>&1 </dev/null ||
        { cat "$T/$t.log"; fail "$t.exe failed under wine"; }
    echo "ok: $t.exe under wine: $(tr -d '\r' <"$T/$t.log" | grep -E '^\[  PASSED  \]')"
done

pg_start
lg_keys win1 winsvc
"$LG_BIN/lgctl" db migrate >/dev/null
port=$(( 20000 + $$ % 20000 ))
"$LG_BIN/lg-controller" "${CTRL_SEC[@]}" --database "$LG_DATABASE_URL" \
    --agents "tcp://127.0.0.1:$port" --control "ipc://$T/ctl.sock" >"$T/controller.log" 2>&1 &
CLEANUP_PIDS+=("$!")
WDIR="C:\\lg-$$"
mkdir -p "$WINEPREFIX/drive_c/lg-$$"
"$WINE" "$EXE" --controller "tcp://127.0.0.1:$port" --name win1 \
    --key "Z:$T/keys/agents/win1.key" --controller-key "Z:$T/keys/controller.pub" \
    --fio "Z:$CACHE/prefix/bin/fio.exe" --allow "$WDIR" --work-dir "$WDIR\\work" \
    >"$T/agent.log" 2>&1 </dev/null &
CLEANUP_PIDS+=("$!")
for _ in $(seq 1 600); do # wine may still be starting its services
    [ "$(q "SELECT count(*) FROM lg.agent WHERE name = 'win1'")" = 1 ] && break
    sleep 0.1
done
facts=$(q "SELECT os || '|' || cpu_count || '|' || (mem_bytes > 0)::text || '|' || fio_version || '|' ||
    (facts -> 'engines')::text || '|' || jsonb_typeof(facts -> 'nics') || '|' ||
    (facts -> 'allowed_targets' ->> 0) FROM lg.agent WHERE name = 'win1'")
[ -n "$facts" ] || { cat "$T/agent.log"; fail "lg-agent.exe did not register"; }
echo "ok: lg-agent.exe registered over CURVE: $facts"
IFS='|' read -r os ncpu mem fiov engines nics allowed <<<"$facts"
[[ $os == "Windows "*" x86_64" ]] || fail "OS \"$os\" is not Windows"
[ "$ncpu" -ge 1 ] && [ "$mem" = true ] || fail "CPU count $ncpu, memory known: $mem"
expect_eq "fio version" "$fiov" fio-3.33
expect_eq "engines" "$engines" '["windowsaio", "null"]'
expect_eq "NICs" "$nics" array
expect_eq "allowed target" "$allowed" "$WDIR"

submit() { # NAME TARGET
    cat >"$T/$1.yaml" <<SPEC
name: $1
target: '$2'
size: 16m
profiles: [{name: r, bs: 4k, pattern: random, read: 70}]
threads: 2
qd: 4
runtime: 3s
precondition: none
SPEC
    "$LG_BIN/lgctl" --controller "ipc://$T/ctl.sock" submit "$T/$1.yaml" >/dev/null ||
        fail "submit $1"
    for _ in $(seq 1 600); do
        case $(q "SELECT state FROM lg.campaign WHERE name = '$1'") in done | failed) break ;; esac
        sleep 0.1
    done
}
submit win "dir:$WDIR"
expect_eq "campaign on the Windows agent" "$(q "SELECT state FROM lg.campaign WHERE name = 'win'")" done
run=$(q "SELECT r.run_id FROM lg.run r JOIN lg.campaign c USING (campaign_id) WHERE c.name = 'win'")
job="$WINEPREFIX/drive_c/lg-$$/work/run-$run/job.fio"
[ -f "$job" ] || job=$(ls "$WINEPREFIX/drive_c/lg-$$/work/run-$run/"*.fio | head -n 1)
grep -q "^ioengine=windowsaio$" "$job" || { cat "$job"; fail "the job does not use windowsaio"; }
grep -q '^filename=C\\:\\lg-[0-9]*\\lg-data.bin$' "$job" || { cat "$job"; fail "filename line"; }
echo "ok: job file uses windowsaio on $(grep ^filename= "$job")"
# lg's figures are fio's: the stored result against the fio JSON the agent sent verbatim.
for d in read write; do
    got=$(q "SELECT ios || ' ' || bytes || ' ' || lat_max FROM lg.result
        WHERE run_id = $run AND agent_id IS NULL AND direction = '$d'")
    want=$(q "SELECT fio_json FROM lg.run_agent WHERE run_id = $run" |
        jq -r --arg d "$d" '[.jobs[] | .[$d]] | "\(map(.total_ios) | add) \(map(.io_bytes) | add) \(map(.lat_ns.max) | max)"')
    expect_eq "$d ios, bytes and max latency against fio's JSON" "$got" "$want"
done
iops=$(q "SELECT round(iops) FROM lg.result WHERE run_id = $run AND agent_id IS NULL
    AND direction = 'read'")
[ "$iops" -gt 0 ] || fail "no read IOPS"
samples=$(q "SELECT count(*) FROM lg.sample WHERE run_id = $run")
[ "$samples" -ge 2 ] || fail "only $samples interval samples"
echo "ok: run $run on fio.exe: $iops read IOPS, $samples interval samples"

submit outside 'dir:C:\elsewhere'
err=$(q "SELECT r.state || ': ' || r.error FROM lg.run r JOIN lg.campaign c USING (campaign_id)
    WHERE c.name = 'outside'")
case $err in
"failed: "*"C:\elsewhere\lg-data.bin"*"outside this agent's allowed targets"*) ;;
*) fail "a target outside the Windows agent's allow-list: $err" ;;
esac
echo "ok: refused by the Windows agent: $err"

# ---- the service ----
cat >"$WINEPREFIX/drive_c/lg-$$/agent.yaml" <<CFG
# lg-agent as a service on a Windows load host
controller: tcp://127.0.0.1:$port
name: winsvc
key: Z:$T/keys/agents/winsvc.key
controller-key: Z:$T/keys/controller.pub
fio: Z:$CACHE/prefix/bin/fio.exe
allow:
  - $WDIR
work-dir: $WDIR\\svc
log-file: $WDIR\\agent.log
CFG
"$WINE" "$EXE" --uninstall-service >/dev/null 2>&1 </dev/null || true # a leftover
SERVICE_INSTALLED=1
"$WINE" "$EXE" --install-service --config "$WDIR\\agent.yaml" </dev/null >"$T/install.out" 2>&1 ||
    { cat "$T/install.out"; fail "--install-service failed"; }
grep -q 'service "lg-agent" installed' "$T/install.out" || fail "install: $(cat "$T/install.out")"
"$WINE" net start lg-agent </dev/null >"$T/start.out" 2>&1 ||
    { cat "$T/start.out"; fail "the service control manager could not start lg-agent"; }
for _ in $(seq 1 300); do
    [ "$(q "SELECT count(*) FROM lg.agent WHERE name = 'winsvc'")" = 1 ] && break
    sleep 0.1
done
if [ "$(q "SELECT os LIKE 'Windows %' FROM lg.agent WHERE name = 'winsvc'")" != t ]; then
    echo "--- the service's log:"; tr -d '\r' <"$WINEPREFIX/drive_c/lg-$$/agent.log" 2>&1 || true
    echo "--- sc query:"; "$WINE" sc query lg-agent </dev/null 2>&1 | tr -d '\r' || true
    echo "--- the controller's log:"; tail -n 5 "$T/controller.log"
fi
expect_eq "the service registered" "$(q "SELECT os LIKE 'Windows %' FROM lg.agent WHERE name = 'winsvc'")" t
"$WINE" sc query lg-agent </dev/null | tr -d '\r' | grep -q "STATE *: 4 *RUNNING" ||
    fail "sc query does not say RUNNING"
"$WINE" net stop lg-agent </dev/null >"$T/stop.out" 2>&1 || { cat "$T/stop.out"; fail "net stop"; }
log="$WINEPREFIX/drive_c/lg-$$/agent.log"
for _ in $(seq 1 100); do grep -q "service stopped (0)" "$log" && break; sleep 0.1; done
tr -d '\r' <"$log" | grep -E "asks us to stop|service stopped" || true
grep -q "the service control manager asks us to stop" "$log" || fail "the agent did not hear the stop"
grep -q "service stopped (0)" "$log" || fail "the service did not stop cleanly"
"$WINE" "$EXE" --uninstall-service </dev/null >"$T/uninstall.out" 2>&1 ||
    { cat "$T/uninstall.out"; fail "--uninstall-service failed"; }
SERVICE_INSTALLED=
if "$WINE" sc query lg-agent </dev/null >/dev/null 2>&1; then fail "the service is still there"; fi
echo "ok: installed, started and stopped by the service control manager, removed"
