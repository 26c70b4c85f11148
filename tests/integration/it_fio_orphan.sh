#!/usr/bin/env bash
# it_fio_orphan: an agent killed (kill -9) in the middle of a run does not leave its fio writing
# beside the next run's (issue 41). fio itself dies with the agent (PR_SET_PDEATHSIG on the hold
# stage it became); the job processes fio forked (each in a session of its own, so no kill of
# fio's group reaches them) are ended by the restarted agent, which finds them through the record
# of fio it kept in the work folder, before it registers. The next run then starts with nothing
# of the old fio alive, and its own record is gone when it ends.
. "$(dirname "$0")/lib.sh"
pg_start
lg_keys fa
"$LG_BIN/lgctl" db migrate >/dev/null
mkdir -p "$T/target"
start_controller --agent-timeout-ms 3000
start_agent fa --allow "$T/target"

spec() { # NAME RUNTIME
    cat >"$T/$1.yaml" <<SPEC
name: $1
target: $T/target/data.bin
size: 16M
direct: false
profiles: [{name: w, bs: 4k, pattern: random, read: 0, rate_iops: 500, sweep: [1T1Q]}]
runtime: $2
precondition: none
SPEC
}

spec orphan 30s
submit_file orphan
run=""
for _ in $(seq 1 300); do
    run=$(q "SELECT r.run_id FROM lg.run r JOIN lg.campaign c USING (campaign_id)
             WHERE c.name = 'orphan' AND r.state = 'running'")
    [ -n "$run" ] && [ "$(q "SELECT count(*) FROM lg.sample WHERE run_id = $run")" -ge 2 ] && break
    sleep 0.1
done
[ -n "$run" ] || fail "run of campaign orphan never ran"
agent=${AGENT_PIDS[fa]}
fio=$(pgrep -P "$agent" -x fio | head -n 1) || true
[ -n "$fio" ] || fail "no fio among the children of the agent (pid $agent)"
pgid=$(ps -o pgid= -p "$fio" | tr -d ' ')
expect_eq "fio leads its own process group" "$pgid" "$fio"
mapfile -t jobs < <(pgrep -P "$fio")
[ "${#jobs[@]}" -ge 1 ] || fail "fio (pid $fio) has no job process"
rec="$T/fa/fio-$run.rec"
[ -f "$rec" ] || fail "no record \"$rec\" of the running fio"
grep -qx "pgid $pgid" "$rec" || fail "the record does not name pgid $pgid: $(cat "$rec")"
grep -q "^job /.*/run-$run/job.fio$" "$rec" || fail "the record does not name the job file"
echo "run $run: fio pid $fio (its process group) with job processes ${jobs[*]}; record $rec"

kill -9 "$agent"
# (a) fio itself dies with its agent at once (before too, if later: at its next report, on the
# closed pipe). Its job processes do not: before, they wrote on to the end of the 30 s.
gone=0
for _ in $(seq 1 50); do
    [ -z "$(alive "$fio")" ] && { gone=1; break; }
    sleep 0.1
done
[ $gone = 1 ] || fail "fio (pid $fio) still runs 5 s after its agent was killed"
sleep 0.5
left=$(alive "${jobs[@]}" | wc -l)
echo "fio (pid $fio) ended with its agent; $left of its ${#jobs[@]} job processes outlived it"

# (b) the restarted agent (same name, same work folder) ends what is left before it registers
# (this is what failed before: nothing ended the job processes).
start_agent fa --allow "$T/target"
grep -E "the fio \(pgid|fio's record" "$T/fa.log" || true
if [ "$left" -gt 0 ]; then
    grep -q "killed the fio (pgid $pgid) that a previous agent left running for run $run" \
        "$T/fa.log" || fail "the restarted agent did not say it killed the old fio's processes"
fi
# (a SIGKILLed process is gone once the kernel has torn it down: CI on a loaded machine saw one
# still in ps as the agent registered, and gone the next instant; 2 s for that, no more)
if ! wait_gone 2 "$fio" "${jobs[@]}"; then
    ps -o pid,ppid,pgid,sid,stat,args -p "$(alive "$fio" "${jobs[@]}" | paste -sd,)" >&2 || true
    fail "a process of the old fio is alive once the restarted agent registered"
fi
[ ! -e "$rec" ] || fail "the record of the ended fio is still there"

wait_campaign orphan
echo "campaign orphan: $(q "SELECT state FROM lg.campaign WHERE name = 'orphan'")"
spec after 3s
submit_file after
# While the next run runs: no process of the old group, only the new fio's.
seen=0
for _ in $(seq 1 300); do
    st=$(q "SELECT state FROM lg.campaign WHERE name = 'after'")
    case $st in done | failed) break ;; esac
    [ -n "$(alive "$fio" "${jobs[@]}")" ] && fail "a process of the old fio runs beside the next run"
    pgrep -P "${AGENT_PIDS[fa]}" -x fio >/dev/null && seen=1
    sleep 0.1
done
expect_eq "campaign after" "$(q "SELECT state FROM lg.campaign WHERE name = 'after'")" "done"
[ $seen = 1 ] || echo "note: the next run's fio was not seen running (a short run)"
ls "$T/fa"/fio-*.rec >/dev/null 2>&1 && fail "a record is left after the next run: $(ls "$T/fa")"
echo "PASS"
