#!/usr/bin/env bash
# it_crash_flood: the controller's core under faults, with samples flooding in. Four simulated
# agents (scale_agents: lg-agent's wire behaviour, its resend of what is not acknowledged) send 50
# samples a second each with 300-bucket histograms.
#  1. Run 1: lg-controller is killed with SIGKILL mid-run and started again. Every sample sent is
#     stored exactly once (no gap, no duplicate), the run ends "done" once: one result row per agent
#     and one merged, every lg.run_agent row done.
#  2. Run 2: PostgreSQL is stopped for 20 s mid-run. No agent is taken for lost and none hears
#     nothing from the controller (its loop keeps answering heartbeats and clock Pings: their round
#     trip during the outage is printed against the one before it), and every sample is stored
#     once the database is back.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
pg_start
lg_keys
"$LG_BIN/lgctl" db migrate >/dev/null
AGENTS=4 RATE=50 RUNTIME=30

# sim_report: the agents' view of the controller since the last report: "p99 max silences".
sim_report() {
    local before after
    before=$(grep -c "since the last report" "$T/sim-out.log" || true)
    kill -USR1 "$SIM"
    for _ in $(seq 1 50); do
        after=$(grep -c "since the last report" "$T/sim-out.log" || true)
        [ "$after" -gt "$before" ] && break
        sleep 0.1
    done
    grep "since the last report" "$T/sim-out.log" | tail -n 1 | sed -E \
        's/.*p99 ([0-9]+) ms, max ([0-9.]+) ms; .* ([0-9]+) times an agent heard nothing.*/\1 \2 \3/'
}
# check_run R: every sample sent stored once, no gap; the run done once.
check_run() {
    local line run sent
    line=$(grep -E "^scale_agents: run $1 done" "$T/sim-out.log")
    sent=$(awk '{ print $7 }' <<<"$line")
    expect_eq "run $1: samples sent" "$sent" $((AGENTS * RATE * RUNTIME))
    expect_eq "run $1: samples stored" "$(q "SELECT count(*) FROM lg.sample WHERE run_id = $1")" "$sent"
    # The key forbids duplicates; gaps would show as a max seq above the count.
    expect_eq "run $1: agents with a gap in their samples" "$(q "SELECT count(*) FROM (
        SELECT agent_id FROM lg.sample WHERE run_id = $1 GROUP BY agent_id
        HAVING max(seq) <> count(*) OR count(*) <> $((RATE * RUNTIME))) g")" 0
    for _ in $(seq 1 300); do
        [ "$(q "SELECT state FROM lg.run WHERE run_id = $1")" = done ] && break
        sleep 0.1
    done
    expect_eq "run $1: state" "$(q "SELECT state FROM lg.run WHERE run_id = $1")" done
    expect_eq "run $1: run_agent rows done" \
        "$(q "SELECT count(*) FILTER (WHERE state = 'done') || '/' || count(*) FROM lg.run_agent WHERE run_id = $1")" \
        "$AGENTS/$AGENTS"
    expect_eq "run $1: result rows (per agent and merged)" \
        "$(q "SELECT count(*) FILTER (WHERE agent_id IS NOT NULL) || '+' || count(*) FILTER (WHERE agent_id IS NULL) FROM lg.result WHERE run_id = $1")" \
        "$AGENTS+1"
    expect_eq "run $1: merged ios = sum of the agents' samples" \
        "$(q "SELECT (SELECT ios FROM lg.result WHERE run_id = $1 AND agent_id IS NULL)
                   = (SELECT sum(ios) FROM lg.sample WHERE run_id = $1)")" t
}

start_controller
"$LG_BIN/scale_agents" --controller "ipc://$T/agents.sock" --agents "$AGENTS" --prefix fl \
    --rate "$RATE" --bins 300 --timeout 600 >"$T/sim-out.log" 2>"$T/sim.log" &
SIM=$!
CLEANUP_PIDS+=("$SIM")
wait_line "$T/sim-out.log" "^scale_agents: $AGENTS agents registered" 60 || fail "the agents did not register"

cat >"$T/spec.yaml" <<SPEC
name: crash-flood
sut:
  labels: {build: it, media: "null"}
target: "null"
size: 1G
profiles:
  - {name: one, bs: 4k, pattern: random, read: 100, sweep: none}
  - {name: two, bs: 8k, pattern: random, read: 100, sweep: none}
threads: 1
qd: 1
ramp: 0s
runtime: ${RUNTIME}s
precondition: none
SPEC
"$LG_BIN/lgctl" --controller "ipc://$T/ctl.sock" submit "$T/spec.yaml" >/dev/null

# 1. SIGKILL mid-run, then a new controller on the same database.
wait_line "$T/sim-out.log" "^scale_agents: run 1 started" 60 || fail "run 1 did not start"
for _ in $(seq 1 200); do
    [ "$(q "SELECT count(*) FROM lg.sample WHERE run_id = 1")" -ge $((AGENTS * RATE * 5)) ] && break
    sleep 0.1
done
kill -KILL "$CTL"
wait "$CTL" 2>/dev/null || true
echo "controller killed during run 1 ($(q "SELECT count(*) FROM lg.sample WHERE run_id = 1") samples stored)"
sleep 1
start_controller
echo "controller started again"
wait_line "$T/sim-out.log" "^scale_agents: run 1 done" 180 || fail "run 1's samples and results were not all acknowledged"
check_run 1

# 2. PostgreSQL away for 20 s during run 2.
wait_line "$T/sim-out.log" "^scale_agents: run 2 started" 120 || fail "run 2 did not start"
sim_report >/dev/null
sleep 4
read -r p99_before max_before _ < <(sim_report)
log_from=$(($(wc -l <"$T/controller.log") + 1))
runq_before=$(runq_ms "$CTL")
as_pg "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -m fast -w stop >/dev/null
echo "database stopped during run 2"
sleep 20
read -r p99_out max_out silences_out < <(sim_report)
runq_out=$(($(runq_ms "$CTL") - runq_before))
late_out=$(loop_late_ms "$T/controller.log" "$log_from")
as_pg "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -l "$PG_DIR/server2.log" -w \
    -o "-c listen_addresses='' -c unix_socket_directories='$PG_DIR' -p 5432" start >/dev/null
echo "database started again"
echo "Pong round trip: p99 $p99_before ms (max $max_before) before the outage," \
    "p99 $p99_out ms (max $max_out) during it"
expect_eq "times an agent heard nothing for 3 heartbeats during the outage" "$silences_out" 0
# Relative, as these machines are noisy: a loop waiting on the database would take seconds. A p99
# over the bar fails when the controller's loop was late that long itself (it logs each tick later
# than 40 ms) for more than its wait for a CPU over the outage explains; otherwise the Pongs
# waited on the host (the agents' process, zmq's threads, the other tests on 2 CPUs: CI saw p99
# 977 ms with the loop late 147 ms at most), which is told, not failed.
lim=$(awk -v b="$p99_before" 'BEGIN { print 10 * (b > 5 ? b : 5) }')
if ! awk -v a="$p99_out" -v l="$lim" 'BEGIN { exit !(a <= l) }'; then
    awk -v b="$late_out" -v l="$lim" -v q="$runq_out" 'BEGIN { exit !(b < l || b <= q) }' ||
        fail "Pong p99 during the outage ($p99_out ms) is over 10x the one before ($p99_before ms):" \
            "the loop was late $late_out ms ($runq_out ms waiting for a CPU over the outage)"
    echo "note: Pong p99 during the outage is over $lim ms: the controller's loop was late" \
        "$late_out ms at most and waited $runq_out ms for a CPU: the host was busy"
fi
wait_line "$T/sim-out.log" "^scale_agents: run 2 done" 240 || fail "run 2's samples and results were not all acknowledged"
check_run 2
expect_eq "agents taken for lost" "$(grep -c 'is lost' "$T/controller.log" || true)" 0
for _ in $(seq 1 100); do
    [ "$(q "SELECT state FROM lg.campaign WHERE name = 'crash-flood'")" = done ] && break
    sleep 0.1
done
expect_eq "campaign state" "$(q "SELECT state FROM lg.campaign WHERE name = 'crash-flood'")" done
echo "PASS"
