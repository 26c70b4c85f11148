#!/usr/bin/env bash
# it_windows: the Windows agent. Cross-built with mingw-w64 (deploy/windows/build.sh; its
# dependencies come from a cache, so only a machine's first run builds them), a PE32+ exe; its
# unit tests pass under wine64; and lg-agent.exe under wine registers with this (Linux)
# controller over CURVE, reports Windows host facts, and completes a run of fio.exe with
# windowsaio against a file, whose figures in the database are fio's own. Then the same agent as
# a Windows service (--install-service --config FILE) that the service control manager starts
# and stops. Two agents' start skew is it_windows_skew's, which runs alone.
. "$(dirname "$0")/lib.sh"
t0=$(date +%s)
"$LG_SRC/deploy/windows/build.sh" "${LG_WIN_BUILD:-$LG_BIN/../windows}" >"$T/winbuild.log" 2>&1 ||
    { tail -n 40 "$T/winbuild.log"; fail "the Windows cross build failed"; }
grep "^deps.sh: done" "$T/winbuild.log" || true
echo "ok: cross build (dependencies cached) in $(( $(date +%s) - t0 )) s"
. "$(dirname "$0")/wine.sh"
file "$EXE" | grep -q "PE32+ executable (console) x86-64, for MS Windows" ||
    fail "lg-agent.exe is not PE32+: $(file "$EXE")"
echo "ok: $(file -b "$EXE")"
for t in test_agent test_stats test_wire test_fio test_auth test_datacheck test_cpu test_opt; do
    # A run that printed nothing at all never reached the test's main (wine did not start it,
    # and WINEDEBUG=-all keeps wine quiet: seen once in CI, test_opt.exe): tried once more.
    if ! timeout 300 "$WINE" "$WIN_BUILD/bin/$t.exe" >"$T/$t.log" 2>&1 </dev/null; then
        { [ ! -s "$T/$t.log" ] &&
            echo "note: $t.exe printed nothing under wine (not started): running it again" &&
            timeout 300 "$WINE" "$WIN_BUILD/bin/$t.exe" >"$T/$t.log" 2>&1 </dev/null; } ||
            { cat "$T/$t.log"; fail "$t.exe failed under wine"; }
    fi
    echo "ok: $t.exe under wine: $(tr -d '\r' <"$T/$t.log" | grep -E '^\[  PASSED  \]')"
done

pg_start
lg_keys win1 winsvc
"$LG_BIN/lgctl" db migrate >/dev/null
start_controller --tcp 127.0.0.1
port=$CTL_PORT
win_agent win1 work "$T/agent.log"
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

# ---- the work folder is the agent's own (lg_owndir): the one it made grants others nothing;
# one that others may write, or that is inside a folder others may rename things in, or that
# belongs to someone else, is refused before the agent connects. Wine keeps no ACLs: it gives a
# folder's owner from its Unix owner (another uid: ANONYMOUS LOGON) and its DACL from the Unix
# mode (o+w: Everyone may write, add and delete), so chmod and chown make those folders. ----
grep -qF "work folder: $WDIR\\work" "$T/agent.log" ||
    { cat "$T/agent.log"; fail "no \"work folder: $WDIR\\work\" in the agent's log"; }
wmode=$(stat -c %a "$WDIR_UNIX/work")
[ $(( 8#$wmode & 7 )) = 0 ] || fail "the work folder the agent made is open to others (mode $wmode)"
mkdir -m 0777 "$WDIR_UNIX/open" "$WDIR_UNIX/shared"
mkdir "$WDIR_UNIX/theirs" && chown nobody "$WDIR_UNIX/theirs"
for c in "open|\"$WDIR\\open\" grants write access to Everyone (S-1-1-0)" \
    "shared\\w|\"$WDIR\\shared\\w\" is inside \"$WDIR\\shared\", which grants Everyone (S-1-1-0) the right" \
    "theirs|\"$WDIR\\theirs\" belongs to NT AUTHORITY\\ANONYMOUS LOGON (S-1-5-7), not to "; do
    wd=${c%%|*} want=${c#*|}
    rc=0
    timeout 120 "$WINE" "$EXE" --controller "tcp://127.0.0.1:$port" --name win1 \
        --key "Z:$T/keys/agents/win1.key" --controller-key "Z:$T/keys/controller.pub" \
        --fio "Z:$CACHE/prefix/bin/fio.exe" --allow "$WDIR" --work-dir "$WDIR\\$wd" \
        >"$T/refused.log" 2>&1 </dev/null || rc=$?
    got=$(tr -d '\r' <"$T/refused.log" | grep "work folder: " || true)
    [ "$rc" = 1 ] && grep -qF "$want" <<<"$got" ||
        { cat "$T/refused.log"; fail "work folder $WDIR\\$wd: exit $rc, want a refusal: $want"; }
    echo "ok: refused (exit $rc): ${got#*work folder: }"
done

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
    submit_file "$1"
    wait_campaign "$1"
}
procstat_start # this test's own reading of the CPUs, for the agent's host CPU figures (lib.sh)
submit win "dir:$WDIR"
expect_eq "campaign on the Windows agent" "$(q "SELECT state FROM lg.campaign WHERE name = 'win'")" done
run=$(q "SELECT r.run_id FROM lg.run r JOIN lg.campaign c USING (campaign_id) WHERE c.name = 'win'")
job="$WDIR_UNIX/work/run-$run/job.fio"
[ -f "$job" ] || job=$(ls "$WDIR_UNIX/work/run-$run/"*.fio | head -n 1)
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
# The load host's own CPU (GetSystemTimes, all processors; under wine fed from /proc/stat) against
# this test's reading of all CPUs over the same window: within 10 points, as wine makes its idle,
# kernel and user times from its own choice of /proc/stat's fields (lg counts iowait as idle and
# irq, softirq and steal as busy). fio's CPU (the hold stage's and fio.exe's, SystemProcessInformation)
# is there, above 0 and within the host's busy; the Stop below checks it against fio.exe's own.
read -r from to busy fio cpus nh <<<"$(q "SELECT min(s.t_ms - s.interval_ms) * 1000,
    max(s.t_ms) * 1000, round(r.cpu_busy_pct_mean::numeric, 1),
    round(r.fio_cpu_pct_mean::numeric, 2), r.cpus, r.samples
    FROM lg.v_host_run r JOIN lg.v_host_sample s USING (run_id, agent)
    WHERE run_id = $run AND agent = 'win1'
    GROUP BY r.cpu_busy_pct_mean, r.fio_cpu_pct_mean, r.cpus, r.samples" | tr '|' ' ')"
[ -n "$busy" ] && [ -n "$fio" ] ||
    fail "no host CPU figures from the Windows agent: $(q "SELECT * FROM lg.v_host_run WHERE run_id = $run")"
expect_eq "the Windows agent's host CPU in every sample, counting every CPU" "$nh $cpus" \
    "$(q "SELECT count(DISTINCT seq) FROM lg.sample WHERE run_id = $run") $(nproc --all)"
own=$(own_busy all "$from" "$to")
awk -v s="$busy" -v o="$own" -v f="$fio" \
    'BEGIN { d = s - o; exit !(o != "none" && d <= 10 && d >= -10 && f > 0 && f <= s + 1) }' ||
    fail "the Windows agent's host CPU $busy% (this test read $own%), fio's $fio%"
echo "ok: the Windows agent's host CPU $busy% (this test read $own% of all CPUs), fio.exe's $fio% of $cpus CPUs"

# The data reduction check on Windows (zstd, lz4, SHA-256 by CNG): a fill of 2:1 compressible,
# 2:1 dedupable 128 KiB records, then only reads, so the file ends as the fill left it. The
# ratios the agent stored for the fill are in it_datareduce's bounds and what Linux's datacheck
# finds in the same file. 128 MiB as there: fio picks duplicates at random, and with fewer
# records the dedup ratio strays out of those bounds more often.
mkdir -p "$WDIR_UNIX/dc"
cat >"$T/windc.yaml" <<SPEC
name: windc
target: 'dir:$WDIR\\dc'
size: 128m
profiles: [{name: seq-r, bs: 128k, pattern: sequential, read: 100}]
runtime: 1s
precondition: fill
data: {compress_ratio: 2.0, dedup_ratio: 2.0, dedup_unit: 128k}
SPEC
submit_file windc
wait_campaign windc
read -r dz dl dd drec duq derr <<<"$(q "SELECT datacheck->>'zstd', datacheck->>'lz4',
    datacheck->>'dedup', datacheck->>'records', datacheck->>'unique', coalesce(datacheck->>'error',
    '-') FROM lg.run_agent JOIN lg.run r USING (run_id) JOIN lg.campaign c USING (campaign_id)
    WHERE c.name = 'windc' AND r.phase = 'fill'" | tr '|' ' ')"
[ -n "$dz" ] && [ "$derr" = - ] ||
    { tail -n 5 "$T/agent.log"; fail "windc: the fill's check: ${dz:-none} $derr"; }
out=$("$LG_BIN/datacheck" "$WDIR_UNIX/dc/lg-data.bin" 131072) || fail "datacheck"
# (the dedup band as in it_datareduce: fio picks duplicates at random, 1,024 records)
for k in "zstd $dz 1.70 2.30" "lz4 $dl 1.70 2.30" "dedup $dd 1.75 2.30"; do
    read -r name got lo hi <<<"$k"
    want=$(sed -n "s/.* $name=\([0-9.]*\).*/\1/p" <<<"$out")
    awk -v v="$got" -v w="$want" -v lo="$lo" -v hi="$hi" \
        'BEGIN { d = v - w; exit !(v >= lo && v <= hi && d < 0.0001 && d > -0.0001) }' ||
        fail "windc: the Windows agent's $name $got, want $lo .. $hi and Linux's $want"
done
expect_eq "windc: records and unique, Windows against Linux" "records=$drec unique=$duq" \
    "$(grep -o 'records=[0-9]* unique=[0-9]*' <<<"$out")"
echo "ok: windc: the Windows agent's fill check zstd $dz, lz4 $dl, dedup $dd = Linux's ($out)"

submit outside 'dir:C:\elsewhere'
err=$(q "SELECT r.state || ': ' || r.error FROM lg.run r JOIN lg.campaign c USING (campaign_id)
    WHERE c.name = 'outside'")
case $err in
"failed: "*"C:\elsewhere\lg-data.bin"*"outside this agent's allowed targets"*) ;;
*) fail "a target outside the Windows agent's allow-list: $err" ;;
esac
echo "ok: refused by the Windows agent: $err"

# ---- a Stop mid-run: fio ends on its trigger file, and its final report is what is stored ----
cat >"$T/winstop.yaml" <<SPEC
name: winstop
target: 'dir:$WDIR'
size: 16m
profiles: [{name: r, bs: 4k, pattern: random, read: 100}]
threads: 2
qd: 4
runtime: 60s
precondition: none
SPEC
submit_file winstop
for _ in $(seq 1 600); do # two interval samples: fio is well into its jobs
    [ "$(q "SELECT count(DISTINCT s.seq) FROM lg.sample s JOIN lg.run r USING (run_id)
        JOIN lg.campaign c USING (campaign_id) WHERE c.name = 'winstop'")" -ge 2 ] && break
    sleep 0.1
done
# fio's own CPU over 3 s of the run, from the wine processes of fio.exe and of the hold stage
# above it (its command line holds fio's) by their /proc/PID/stat (utime + stime, all threads),
# against what the agent stored for the samples of those seconds.
run=$(q "SELECT r.run_id FROM lg.run r JOIN lg.campaign c USING (campaign_id) WHERE c.name = 'winstop'")
fpids=$(ps -eo pid,args | grep -F "run-$run" | grep "fio\.exe --thread" | grep -v grep | awk '{print $1}')
[ "$(wc -w <<<"$fpids")" = 2 ] || fail "winstop: want fio.exe and its hold stage of run $run: $fpids"
fio_ticks() { for p in $fpids; do sed 's/.*) //' "/proc/$p/stat"; done | awk '{ t += $12 + $13 } END { print t }'; }
f0=$(fio_ticks) w0=${EPOCHREALTIME/./}
sleep 3
f1=$(fio_ticks) w1=${EPOCHREALTIME/./}
t0=$(date +%s%N)
"$LG_BIN/lgctl" --controller "ipc://$T/ctl.sock" abort winstop >/dev/null || fail "lgctl abort"
wait_run "$run"
took_ms=$(( ($(date +%s%N) - t0) / 1000000 ))
own_fio=$(awk -v d=$((f1 - f0)) -v hz="$(getconf CLK_TCK)" -v us=$((w1 - w0)) -v n="$(nproc --all)" \
    'BEGIN { printf "%.1f\n", 100 * d / hz / (us / 1e6 * n) }')
got_fio=$(q "SELECT round((sum(fio_cpu_pct * interval_ms) / sum(interval_ms))::numeric, 1)
    FROM lg.v_host_sample WHERE run_id = $run AND agent = 'win1'
    AND (t_ms - interval_ms) * 1000 >= $w0 - 300000 AND t_ms * 1000 <= $w1 + 300000")
awk -v g="$got_fio" -v o="$own_fio" 'BEGIN { d = g - o; if (d < 0) d = -d
    exit !(g != "" && d <= 3 + 0.3 * o) }' ||
    fail "winstop: the agent's fio CPU $got_fio%, fio.exe's own $own_fio% (of all CPUs, $((w1 - w0)) us)"
echo "ok: winstop: the agent's fio CPU $got_fio% of all CPUs; fio.exe's and its hold stage's own (/proc/PID/stat) $own_fio%"
q "SELECT state, error FROM lg.run WHERE run_id = $run" | sed 's/^/  stopped run: /'
case $(q "SELECT error FROM lg.run WHERE run_id = $run") in
*'agent "win1": fio ended on its trigger file'*'wrote its final report'*) ;;
*) tail -n 5 "$T/agent.log"; fail "the stopped run's error does not say how fio ended" ;;
esac
json=$(q "SELECT fio_json FROM lg.run_agent WHERE run_id = $run")
rt=$(jq -r '[.jobs[].job_runtime] | max' <<<"$json") || fail "no final fio report stored"
[ "$rt" -gt 1000 ] && [ "$rt" -lt 30000 ] || fail "fio's job_runtime $rt ms: not a run stopped early"
got=$(q "SELECT ios || ' ' || bytes FROM lg.result WHERE run_id = $run AND agent_id IS NULL
    AND direction = 'read'")
expect_eq "the stopped run's figures against its final fio report" "$got" \
    "$(jq -r '[.jobs[].read] | "\(map(.total_ios) | add) \(map(.io_bytes) | add)"' <<<"$json")"
[ "$took_ms" -lt 15000 ] || fail "the Stop took $took_ms ms"
echo "ok: stopped after $rt ms of fio's 60 s; its final report stored; Stop to the end $took_ms ms"

# ---- a fio that does not answer its trigger file (frozen: SIGSTOP to wine's process for it) is
# ended with TerminateProcess after the agent's 10 s, and the run's error says so ----
sed 's/^name: winstop$/name: winhang/' "$T/winstop.yaml" >"$T/winhang.yaml"
submit_file winhang
run=
for _ in $(seq 1 600); do
    run=$(q "SELECT r.run_id FROM lg.run r JOIN lg.campaign c USING (campaign_id)
        WHERE c.name = 'winhang' AND r.state = 'running'")
    [ -n "$run" ] && [ "$(q "SELECT count(*) FROM lg.sample WHERE run_id = $run")" -ge 1 ] && break
    sleep 0.1
done
fpid=$(ps -eo pid,args | grep -F "run-$run" | grep "fio\.exe --thread" | awk '{print $1}' | head -n 1)
[ -n "$fpid" ] || fail "winhang: no fio.exe process of run $run"
kill -STOP "$fpid"
t0=$(date +%s%N)
"$LG_BIN/lgctl" --controller "ipc://$T/ctl.sock" abort winhang >/dev/null || fail "lgctl abort"
# Wine ends a process by signalling its threads, which a stopped process only takes once it
# runs again (Windows' TerminateProcess needs no such help): let it run once the agent asked.
for _ in $(seq 1 300); do
    grep -q "ending it with TerminateProcess" "$T/agent.log" && break
    sleep 0.1
done
kill -CONT "$fpid" 2>/dev/null || true
wait_run "$run"
took_ms=$(( ($(date +%s%N) - t0) / 1000000 ))
err=$(q "SELECT error FROM lg.run WHERE run_id = $run")
case $err in
*'agent "win1": stopped: fio did not end within 10 s of its trigger file and was ended with TerminateProcess'*) ;;
*) tail -n 5 "$T/agent.log"; fail "winhang: the run's error: $err" ;;
esac
[ "$took_ms" -ge 9000 ] && [ "$took_ms" -lt 25000 ] || fail "winhang: ended $took_ms ms after the Stop"
expect_eq "winhang: no final report stored" "$(q "SELECT count(*) FROM lg.run_agent WHERE run_id = $run
    AND fio_json IS NOT NULL AND fio_json <> ''")" 0
echo "ok: winhang: a frozen fio ended $took_ms ms after the Stop: $err"

# fio's own command lines (the agents' name fio.exe too, after --fio)
left=$(ps -eo args | grep -F "lg-$$" | grep -c "fio\.exe --thread" || true)
expect_eq "fio.exe processes left after the runs and the Stop" "$left" 0

# ---- the service ----
cat >"$WDIR_UNIX/agent.yaml" <<CFG
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
SERVICE_INSTALLED=1 # wine.sh's trap removes it
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
    echo "--- the service's log:"; tr -d '\r' <"$WDIR_UNIX/agent.log" 2>&1 || true
    echo "--- sc query:"; "$WINE" sc query lg-agent </dev/null 2>&1 | tr -d '\r' || true
    echo "--- the controller's log:"; tail -n 5 "$T/controller.log"
fi
expect_eq "the service registered" "$(q "SELECT os LIKE 'Windows %' FROM lg.agent WHERE name = 'winsvc'")" t
"$WINE" sc query lg-agent </dev/null | tr -d '\r' | grep -q "STATE *: 4 *RUNNING" ||
    fail "sc query does not say RUNNING"
"$WINE" net stop lg-agent </dev/null >"$T/stop.out" 2>&1 || { cat "$T/stop.out"; fail "net stop"; }
log="$WDIR_UNIX/agent.log"
for _ in $(seq 1 100); do grep -q "service stopped (0)" "$log" && break; sleep 0.1; done
tr -d '\r' <"$log" | grep -E "asks us to stop|service stopped" || true
grep -q "the service control manager asks us to stop" "$log" || fail "the agent did not hear the stop"
grep -q "service stopped (0)" "$log" || fail "the service did not stop cleanly"
"$WINE" "$EXE" --uninstall-service </dev/null >"$T/uninstall.out" 2>&1 ||
    { cat "$T/uninstall.out"; fail "--uninstall-service failed"; }
SERVICE_INSTALLED=
if "$WINE" sc query lg-agent </dev/null >/dev/null 2>&1; then fail "the service is still there"; fi
echo "ok: installed, started and stopped by the service control manager, removed"
