#!/usr/bin/env bash
# it_restart: kill -9 the controller in the middle of a campaign (mid-run), start it again: the
# campaign completes with every run exactly once, the interrupted run keeps its samples with no
# gap and no duplicate (the agent resends what was not committed), and its result is stored once.
# Then the same during a latency-bounded search: the probe under way is taken up, and the search
# goes on from the probes stored in the database (its next load, its outcome) as if nothing
# happened.
. "$(dirname "$0")/lib.sh"
pg_start
lg_keys it-agent
"$LG_BIN/lgctl" db migrate >/dev/null
mkdir -p "$T/target" "$T/work"

start_controller
# wait_done NAME: the campaign's state once it is done (or whatever it is after 2 minutes)
wait_done() {
    local st=""
    for _ in $(seq 1 600); do
        st=$(q "SELECT state FROM lg.campaign WHERE name = '$1'")
        [ "$st" = done ] && break
        sleep 0.2
    done
    echo "$st"
}
start_agent it-agent --log "$T/agent.log" --allow "$T/target" --work-dir "$T/work"

cat >"$T/spec.yaml" <<SPEC
name: it-restart
sut:
  labels: {build: it}
target: $T/target/data.bin
size: 16M
direct: false
profiles: [{name: 4k-rand, sweep: [1T1Q, 1T2Q, 2T2Q]}]
runtime: 6s
precondition: none
SPEC
"$LG_BIN/lgctl" --controller "ipc://$T/ctl.sock" submit "$T/spec.yaml" ||
    fail "lgctl submit failed"

# Wait until run 3 is running and has committed samples, then kill the controller. A run of 6 s
# leaves room on a loaded machine (in a cold suite's CI, run 3's first committed samples were
# seen only as it ended, and the kill came after "run 3 done").
for _ in $(seq 1 300); do
    read -r n st <<<"$(q "SELECT count(s.run_id), r.state FROM lg.run r
        LEFT JOIN lg.sample s USING (run_id) WHERE r.ordinal = 3 GROUP BY r.state" | tr '|' ' ')"
    [ "${st:-}" = done ] && fail "run 3 ended before it was seen running with samples"
    [ "${n:-0}" -ge 1 ] && [ "$st" = running ] && break
    sleep 0.1
done
[ "${n:-0}" -ge 1 ] || fail "run 3 never produced samples"
kill -9 "$CTL"
echo "killed the controller during run 3 ($n samples committed); 10 s without it"
expect_eq "run 3's state at the kill" "$(q "SELECT state FROM lg.run WHERE ordinal = 3")" running
sleep 10
start_controller
st=$(wait_done it-restart)
q "SELECT ordinal, state, error FROM lg.run ORDER BY ordinal"
expect_eq "campaign" "$st" done
expect_eq "runs done, once each" "$(q "SELECT count(*) || '/' || count(DISTINCT ordinal)
    FROM lg.run WHERE state = 'done'")" "6/6"
expect_eq "one result per agent and run" "$(q "SELECT count(*) FROM lg.run_agent
    WHERE state = 'done' AND fio_json IS NOT NULL")" 6
expect_eq "merged results" "$(q "SELECT count(*) FROM lg.result WHERE agent_id IS NULL")" 6
expect_eq "agent results" "$(q "SELECT count(*) FROM lg.result WHERE agent_id IS NOT NULL")" 6
# Samples: seq 1..N without a gap in every run, and their sum is the final count exactly.
expect_eq "runs with a gap in their samples" "$(q "
  SELECT count(*) FROM (SELECT run_id, max(seq) mx, count(*) n FROM lg.sample GROUP BY run_id) s
  WHERE mx <> n")" 0
expect_eq "runs whose samples do not add up" "$(q "
  SELECT count(*) FROM lg.result x WHERE x.agent_id IS NOT NULL
    AND x.ios <> (SELECT sum(s.ios) FROM lg.sample s WHERE s.run_id = x.run_id
                  AND s.agent_id = x.agent_id AND s.direction = x.direction)")" 0
grep -q "taking up run" "$T/controller.log" || fail "the new controller did not take up run 3"

# ---- a search: the controller dies during probe 2, whose load probe 1's end decided ----
cat >"$T/search.yaml" <<SPEC
name: it-restart-search
sut:
  labels: {build: it}
target: $T/target/data.bin
size: 16M
direct: false
threads: 1
profiles: [{name: r, bs: 4k, pattern: random, read: 100,
            search: {metric: p99_ms, limit: 1000, vary: qd, max: 4, steps: 5}}]
runtime: 4s
precondition: none
SPEC
"$LG_BIN/lgctl" --controller "ipc://$T/ctl.sock" submit "$T/search.yaml" >/dev/null ||
    fail "lgctl submit (search) failed"
for _ in $(seq 1 300); do
    n=$(q "SELECT count(*) FROM lg.sample s JOIN lg.run r USING (run_id) JOIN lg.campaign c
           USING (campaign_id) WHERE c.name = 'it-restart-search' AND r.probe = 2")
    [ "$n" -ge 1 ] && break
    sleep 0.1
done
[ "$n" -ge 1 ] || fail "probe 2 never produced samples"
expect_eq "probe 2's load, set when probe 1 ended" "$(q "SELECT qd FROM lg.run r JOIN lg.campaign c
    USING (campaign_id) WHERE c.name = 'it-restart-search' AND r.probe = 2")" 2
kill -9 "$CTL"
echo "killed the controller during probe 2 ($n samples committed)"
sleep 3
start_controller
st=$(wait_done it-restart-search)
expect_eq "search campaign" "$st" done
# (5 loads, each up to 2 trials: 10 planned; none was over the limit, so none was tried again)
expect_eq "probes after the restart" "$(q "SELECT string_agg(r.probe || ':' || r.state || ':' || r.qd,
    ' ' ORDER BY r.probe) FROM lg.run r JOIN lg.campaign c USING (campaign_id)
    WHERE c.name = 'it-restart-search'")" "1:done:1 2:done:2 3:done:4 4:skipped:1 5:skipped:1 6:skipped:1 7:skipped:1 8:skipped:1 9:skipped:1 10:skipped:1"
expect_eq "the search's outcome" "$(q "SELECT s.state || ' ' || s.good_load || ' ' || s.probes
    FROM lg.search s JOIN lg.campaign c USING (campaign_id) WHERE c.name = 'it-restart-search'")" \
    "not-reached 4 3"
echo "PASS"
