#!/usr/bin/env bash
# it_windows_skew: two Windows agents (lg-agent.exe under wine64) released at one agreed instant.
# The agent creates fio.exe suspended behind its hold stage and resumes it at the instant, so
# three runs on both agents start under 5 ms apart, as the controller stores each run's skew.
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
cat >"$T/winskew.yaml" <<SPEC
name: winskew
target: 'null'
size: 16m
profiles: [{name: r, bs: 4k, pattern: random, read: 100, rate_iops: 2000, sweep: none}]
threads: 1
qd: 1
runtime: 2s
repeats: 3
precondition: none
SPEC
submit_file winskew
wait_campaign winskew
q "SELECT r.run_id, r.state, r.start_skew_us FROM lg.run r JOIN lg.campaign c USING (campaign_id)
    WHERE c.name = 'winskew' ORDER BY r.run_id" | sed 's/^/  start skew (us): /'
expect_eq "winskew: runs done on both Windows agents, skew stored and below 5 ms" "$(q "SELECT
    count(*) FILTER (WHERE r.state = 'done' AND r.start_skew_us < 5000 AND
    (SELECT count(*) FROM lg.run_agent ra WHERE ra.run_id = r.run_id AND ra.state = 'done') = 2)
    FROM lg.run r JOIN lg.campaign c USING (campaign_id) WHERE c.name = 'winskew'")" 3
grep -h "started .* us after the agreed instant" "$T/agent1.log" "$T/agent2.log" | tail -n 2 |
    tr -d '\r' | sed 's/^/  /'
left=$(ps -eo args | grep -F "lg-$$" | grep -c "fio\.exe --thread" || true)
expect_eq "fio.exe processes left after the runs" "$left" 0
echo PASS
