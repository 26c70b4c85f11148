#!/usr/bin/env bash
# it_windows_skew: two Windows agents (lg-agent.exe under wine64) released at one agreed instant.
# The agent creates fio.exe suspended behind its hold stage and resumes it at the instant, so
# three runs on both agents start under 5 ms apart, as the controller stores each run's skew (a
# run over it is confirmed on three more).
# Runs alone (RUN_SERIAL in tests/CMakeLists.txt): a neighbour on these 2 CPUs delays one wine
# process by more than that. The rest of the Windows agent is it_windows'.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/wine.sh"
pg_start
lg_keys win1 win2
"$LG_BIN/lgctl" db migrate >/dev/null
start_controller --tcp 127.0.0.1
win_agent win1 work1 "$T/agent1.log"
win_agent win2 work2 "$T/agent2.log"
spec() { # NAME
    cat >"$T/$1.yaml" <<SPEC
name: $1
target: 'null'
size: 16m
profiles: [{name: r, bs: 4k, pattern: random, read: 100, rate_iops: 2000, sweep: none}]
threads: 1
qd: 1
runtime: 2s
repeats: 3
precondition: none
SPEC
}
under() { # NAME: its runs done on both agents with a skew stored and under 5 ms
    q "SELECT r.run_id, r.state, r.start_skew_us FROM lg.run r JOIN lg.campaign c USING (campaign_id)
        WHERE c.name = '$1' ORDER BY r.run_id" | sed 's/^/  start skew (us): /' >&2
    q "SELECT count(*) FILTER (WHERE r.state = 'done' AND r.start_skew_us < 5000 AND
        (SELECT count(*) FROM lg.run_agent ra WHERE ra.run_id = r.run_id AND ra.state = 'done') = 2)
        FROM lg.run r JOIN lg.campaign c USING (campaign_id) WHERE c.name = '$1'"
}
spec winskew
submit_file winskew
wait_campaign winskew
got=$(under winskew)
# A run over the bar is confirmed on a campaign of three more, as it_sample_agree confirms its
# stalls: CI saw one run of three at 6.0 ms (the others 0.2 ms) with nothing beside it but the
# machine's own work. Both campaigns' skews are printed.
if [ "$got" != 3 ]; then
    echo "  one run or more over 5 ms: confirming on three more" >&2
    spec winskew2
    submit_file winskew2
    wait_campaign winskew2
    got=$(under winskew2)
fi
expect_eq "winskew: runs done on both Windows agents, skew stored and below 5 ms" "$got" 3
grep -h "started .* us after the agreed instant" "$T/agent1.log" "$T/agent2.log" | tail -n 2 |
    tr -d '\r' | sed 's/^/  /'
left=$(ps -eo args | grep -F "lg-$$" | grep -c "fio\.exe --thread" || true)
expect_eq "fio.exe processes left after the runs" "$left" 0
echo PASS
