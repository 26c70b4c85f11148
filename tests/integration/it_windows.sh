#!/usr/bin/env bash
# it_windows: the Windows agent. Cross-built with mingw-w64 (deploy/windows/build.sh; its
# dependencies come from a cache, so only a machine's first run builds them), a PE32+ exe; its
# unit tests pass under wine64; and lg-agent.exe under wine registers with this (Linux)
# controller over CURVE, reports Windows host facts, and completes a run of fio.exe with
# windowsaio against a file, whose figures in the database are fio's own.
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
export WINEPREFIX="$CACHE/wine-test" WINEDEBUG=-all
wine_cleanup() { "$WINESERVER" -k 2>/dev/null || true; rm -rf "$WINEPREFIX/drive_c/lg-$$"; cleanup; }
trap wine_cleanup EXIT
for t in test_agent test_stats test_wire test_fio; do
    timeout 300 "$WINE" "$WIN_BUILD/bin/$t.exe" >"$T/$t.log" 2>&1 </dev/null ||
        { cat "$T/$t.log"; fail "$t.exe failed under wine"; }
    echo "ok: $t.exe under wine: $(tr -d '\r' <"$T/$t.log" | grep -E '^\[  PASSED  \]')"
done

pg_start
lg_keys
"$LG_BIN/lgctl" db migrate >/dev/null
port=$(( 20000 + $$ % 20000 ))
"$LG_BIN/lg-controller" "${CTRL_SEC[@]}" --database "$LG_DATABASE_URL" \
    --agents "tcp://127.0.0.1:$port" --control "ipc://$T/ctl.sock" >"$T/controller.log" 2>&1 &
CLEANUP_PIDS+=("$!")
WDIR="C:\\lg-$$"
mkdir -p "$WINEPREFIX/drive_c/lg-$$"
"$WINE" "$EXE" --controller "tcp://127.0.0.1:$port" --name win1 \
    --key "Z:$T/keys/agents/agent.key" --controller-key "Z:$T/keys/controller.pub" \
    --fio "Z:$CACHE/prefix/bin/fio.exe" --allow "$WDIR" --work-dir "$WDIR\\work" \
    >"$T/agent.log" 2>&1 </dev/null &
CLEANUP_PIDS+=("$!")
for _ in $(seq 1 300); do
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
