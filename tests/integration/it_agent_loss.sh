#!/usr/bin/env bash
# it_agent_loss: an agent goes silent in the middle of a run (SIGSTOP: a host that hangs or
# drops off the network). The run finishes with the other agent and is "partial", naming the
# lost agent and when; the campaign goes on (on_agent_loss: continue) or stops (stop). When the
# agent comes back, what it still held arrives, once.
. "$(dirname "$0")/lib.sh"
pg_start
lg_keys a1 a2
"$LG_BIN/lgctl" db migrate >/dev/null
start_controller --agent-timeout-ms 2000
# Heartbeats every 250 ms (default 1000): only a silence of 2 s makes an agent lost here, and a
# running agent beside busy neighbours (an event loop that waited half a second, a heartbeat
# late) must never come near it, or the run goes on without it too.
start_agent a1 --heartbeat-ms 250
start_agent a2 --heartbeat-ms 250

# campaign NAME POLICY RUNTIME: two runs on both agents; a2 stops for 4 s during the first,
# about 2 s in, so it is lost at about 4 s and comes back at about 6 s: before the end of an 8 s
# run (its result arrives while the run goes on) and after the end of a 5 s one.
campaign() {
    cat >"$T/$1.yaml" <<SPEC
name: $1
target: "null"
profiles: [{name: r, bs: 4k, pattern: random, read: 100, rate_iops: 2000, sweep: [1T1Q, 1T2Q]}]
runtime: $3
precondition: none
on_agent_loss: $2
SPEC
    "$LG_BIN/lgctl" --controller "ipc://$T/ctl.sock" submit "$T/$1.yaml" >/dev/null ||
        fail "submit $1"
    local run=""
    for _ in $(seq 1 100); do
        run=$(q "SELECT r.run_id FROM lg.run r JOIN lg.campaign c USING (campaign_id)
                 WHERE c.name = '$1' AND r.ordinal = 1 AND r.state = 'running'")
        [ -n "$run" ] && [ "$(q "SELECT count(*) FROM lg.sample WHERE run_id = $run")" -ge 2 ] && break
        sleep 0.1
    done
    kill -STOP "${AGENT_PIDS[a2]}"
    sleep 4
    kill -CONT "${AGENT_PIDS[a2]}"
    for _ in $(seq 1 300); do
        st=$(q "SELECT state FROM lg.campaign WHERE name = '$1'")
        [ "$st" = done ] || [ "$st" = failed ] && break
        sleep 0.2
    done
    RUN1=$run
}

campaign goes-on continue 8s
q "SELECT ordinal, state, error FROM lg.run ORDER BY run_id"
expect_eq "goes-on: campaign" "$(q "SELECT state FROM lg.campaign WHERE name = 'goes-on'")" done
expect_eq "goes-on: first run" "$(q "SELECT state FROM lg.run WHERE run_id = $RUN1")" partial
q "SELECT error FROM lg.run WHERE run_id = $RUN1" | grep -q 'agent "a2" lost at' ||
    fail "the partial run does not say which agent was lost"
expect_eq "goes-on: second run" "$(q "SELECT r.state FROM lg.run r JOIN lg.campaign c
    USING (campaign_id) WHERE c.name = 'goes-on' AND r.ordinal = 2")" done
expect_eq "a1's samples of the partial run have no gap" "$(q "SELECT max(seq) = count(*)
    FROM lg.sample s JOIN lg.agent a USING (agent_id) WHERE run_id = $RUN1 AND a.name = 'a1'")" t
# a2 came back: its unacknowledged samples and its result arrive, each once.
for _ in $(seq 1 100); do
    [ "$(q "SELECT count(*) FROM lg.result x JOIN lg.agent a USING (agent_id)
            WHERE run_id = $RUN1 AND a.name = 'a2'")" = 1 ] && break
    sleep 0.2
done
expect_eq "a2's result of the partial run, stored once" "$(q "SELECT count(*) FROM lg.result x
    JOIN lg.agent a USING (agent_id) WHERE run_id = $RUN1 AND a.name = 'a2'")" 1
# Resent samples (sample writer) and the result (store) may commit in either order: wait.
a2_ok() { q "SELECT max(seq) = count(*)
    AND sum(s.ios) = (SELECT ios FROM lg.result x WHERE x.run_id = $RUN1 AND x.agent_id = a.agent_id)
    FROM lg.sample s JOIN lg.agent a USING (agent_id) WHERE run_id = $RUN1 AND a.name = 'a2'
    GROUP BY a.agent_id"; }
for _ in $(seq 1 100); do [ "$(a2_ok)" = t ] && break; sleep 0.2; done
expect_eq "a2's samples: no gap, and they add up" "$(a2_ok)" t
expect_eq "goes-on: the merged result is a1's alone" "$(q "SELECT m.ios = x.ios FROM lg.result m
    JOIN lg.result x ON x.run_id = m.run_id AND x.direction = m.direction
    JOIN lg.agent a ON a.agent_id = x.agent_id
    WHERE m.run_id = $RUN1 AND m.agent_id IS NULL AND a.name = 'a1'")" t
expect_eq "lost_at recorded" "$(q "SELECT count(*) FROM lg.run_agent WHERE run_id = $RUN1
    AND lost_at IS NOT NULL")" 1
# The report says the partial run's figures are of one of the two load hosts; the next run's
# are of both (lg.v_run_agent: done and not lost).
"$LG_BIN/lgctl" report --campaign goes-on >"$T/goes-on.txt" 2>&1 || fail "report: $(cat "$T/goes-on.txt")"
grep -qE "^$RUN1 .* partial .*on 1 of 2 agents" "$T/goes-on.txt" ||
    { cat "$T/goes-on.txt"; fail "the report does not say run $RUN1 is of 1 of 2 agents"; }
[ "$(grep -c "of 2 agents" "$T/goes-on.txt")" = 1 ] ||
    { cat "$T/goes-on.txt"; fail "the report marks a run that had both agents"; }
"$LG_BIN/lgctl" report --campaign goes-on --format csv >"$T/goes-on.csv" || fail "report csv"
expect_eq "report csv: agents per run" "$(python3 -c 'import csv, sys
print(" ".join(r["agents"] for r in csv.DictReader(open(sys.argv[1]))))' "$T/goes-on.csv")" "1 2"
echo "ok: the report: run $RUN1 on 1 of 2 agents; $(grep -m1 "of 2 agents" "$T/goes-on.txt" | tr -s ' ')"

campaign halts stop 5s
expect_eq "halts: campaign" "$(q "SELECT state FROM lg.campaign WHERE name = 'halts'")" failed
q "SELECT message FROM lg.campaign WHERE name = 'halts'" | grep -q 'agent "a2" lost' ||
    fail "the campaign message does not name the lost agent"
expect_eq "halts: runs" "$(q "SELECT string_agg(r.state, ' ' ORDER BY r.ordinal) FROM lg.run r
    JOIN lg.campaign c USING (campaign_id) WHERE c.name = 'halts'")" "partial aborted"
for _ in $(seq 1 100); do
    [ "$(q "SELECT count(*) FROM lg.result x JOIN lg.agent a USING (agent_id)
            WHERE run_id = $RUN1 AND a.name = 'a2'")" = 1 ] && break
    sleep 0.2
done
expect_eq "halts: a2's late result, stored once" "$(q "SELECT count(*) FROM lg.result x
    JOIN lg.agent a USING (agent_id) WHERE run_id = $RUN1 AND a.name = 'a2'")" 1
expect_eq "halts: the merged result is a1's alone" "$(q "SELECT m.ios = x.ios FROM lg.result m
    JOIN lg.result x ON x.run_id = m.run_id AND x.direction = m.direction
    JOIN lg.agent a ON a.agent_id = x.agent_id
    WHERE m.run_id = $RUN1 AND m.agent_id IS NULL AND a.name = 'a1'")" t

# An agent killed and started again within the loss timeout (2 s) is a new incarnation on a new
# connection: what the old one ran is lost at once (the run ends partial, its row is closed),
# not found "did not finish in time" 100 s later with a row left running.
cat >"$T/restarts.yaml" <<SPEC
name: restarts
target: "null"
profiles: [{name: r, bs: 4k, pattern: random, read: 100, rate_iops: 2000, sweep: [1T1Q, 1T2Q]}]
runtime: 6s
precondition: none
SPEC
"$LG_BIN/lgctl" --controller "ipc://$T/ctl.sock" submit "$T/restarts.yaml" >/dev/null ||
    fail "submit restarts"
# (up to 60 s: on a loaded machine the run's Prepare alone took over 10 s, and a kill that came
# after the first run ended hit the second instead)
found=0
for _ in $(seq 1 600); do
    run=$(q "SELECT r.run_id FROM lg.run r JOIN lg.campaign c USING (campaign_id)
             WHERE c.name = 'restarts' AND r.ordinal = 1 AND r.state = 'running'")
    [ -n "$run" ] && [ "$(q "SELECT count(*) FROM lg.sample WHERE run_id = $run")" -ge 2 ] &&
        found=1 && break
    sleep 0.1
done
[ $found = 1 ] || fail "restarts: the first run was not seen running with two samples in 60 s" \
    "(runs: $(q "SELECT string_agg(r.state, ' ' ORDER BY r.ordinal) FROM lg.run r
              JOIN lg.campaign c USING (campaign_id) WHERE c.name = 'restarts'"))"
kill -9 "${AGENT_PIDS[a2]}"
t_kill=$(date +%s%N)
start_agent a2 --no-wait --log "$T/a2b.log" --work-dir "$T/a2b"
for _ in $(seq 1 200); do
    st=$(q "SELECT state FROM lg.campaign WHERE name = 'restarts'")
    [ "$st" = done ] || [ "$st" = failed ] && break
    sleep 0.2
done
took=$(( ($(date +%s%N) - t_kill) / 1000000000 ))
expect_eq "restarts: campaign" "$st" done
expect_eq "restarts: runs" "$(q "SELECT string_agg(r.state, ' ' ORDER BY r.ordinal) FROM lg.run r
    JOIN lg.campaign c USING (campaign_id) WHERE c.name = 'restarts'")" "partial done"
q "SELECT error FROM lg.run WHERE run_id = $run" | grep -q 'agent "a2" lost at' ||
    fail "the partial run does not say a2 was lost"
expect_eq "restarts: a2's row of the first run" "$(q "SELECT ra.state FROM lg.run_agent ra
    JOIN lg.agent a USING (agent_id) WHERE ra.run_id = $run AND a.name = 'a2'")" lost
expect_eq "run_agent rows left running" "$(q "SELECT count(*) FROM lg.run_agent WHERE state = 'running'")" 0
grep -q 'agent "a2" connected again from' "$T/controller.log" || fail "the controller did not see a2's new incarnation"
[ "$took" -lt 40 ] || fail "the campaign took $took s after the restart"
echo "ok: a2 killed and restarted mid-run: run partial at once, second run done with both, in $took s"
echo "PASS"
