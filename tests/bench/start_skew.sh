#!/usr/bin/env bash
# start_skew: the spread of fio start instants (controller clock, corrected by each agent's
# measured offset) over 20 runs with 3 agents in network namespaces; prints median and max.
# Target: median < 2 ms. The figures come from SQL (lg.run.start_skew_us); the bench fails when a
# run did not end done with a skew of its 3 agents, or the largest skew is zero (one clock).
# usage: tests/bench/start_skew.sh [BUILD_DIR] [RUNS]   (the suite runs it with RUNS 2)
set -euo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$src/build}
runs=${2:-20}
export LG_BIN=$build/bin LG_SRC=$src
. "$src/tests/integration/lib.sh"
. "$src/tests/bench/figure.sh"
pg_start
lg_keys host1 host2 host3
"$LG_BIN/lgctl" db migrate >/dev/null
make_hosts 3 s 232
port=$(free_port)
"$LG_BIN/lg-controller" "${CTRL_SEC[@]}" --database "$LG_DATABASE_URL" --agents "tcp://$HOSTS_NET.1:$port" \
    --control "ipc://$T/ctl.sock" >"$T/controller.log" 2>&1 &
CLEANUP_PIDS+=("$!")
for i in 1 2 3; do
    ip netns exec "${HOST_NS[$i]}" "$LG_BIN/lg-agent" $(agent_sec "host$i") --controller "tcp://$HOSTS_NET.1:$port" \
        --name "host$i" --work-dir "$T/host$i" >"$T/host$i.log" 2>&1 &
    CLEANUP_PIDS+=("$!")
done
for _ in $(seq 1 100); do [ "$(q "SELECT count(*) FROM lg.agent")" = 3 ] && break; sleep 0.1; done
sleep 2 # clock exchanges
loads=$(for i in $(seq 1 "$runs"); do printf '1T%dQ, ' "$i"; done)
cat >"$T/spec.yaml" <<SPEC
name: skew
target: "null"
profiles: [{name: r, bs: 4k, pattern: random, read: 100, sweep: [${loads%, }]}]
runtime: 1s
precondition: none
SPEC
"$LG_BIN/lgctl" --controller "ipc://$T/ctl.sock" submit "$T/spec.yaml" >/dev/null
for _ in $(seq 1 $((runs * 50 + 600))); do
    [ "$(q "SELECT state FROM lg.campaign")" = done ] && break
    sleep 0.1
done
state=$(q "SELECT state FROM lg.campaign")
[ "$state" = done ] || fail "start_skew: the campaign is \"$state\", not done, after $((runs * 5 + 60)) s"
# runs with a skew over all 3 agents, median and max in ms, as fields by name
IFS='|' read -r n median max < <(q "SELECT count(*),
    round((percentile_cont(0.5) WITHIN GROUP (ORDER BY start_skew_us))::numeric / 1000.0, 3),
    round(max(start_skew_us)::numeric / 1000.0, 3)
    FROM lg.run r WHERE state = 'done' AND start_skew_us IS NOT NULL
    AND (SELECT count(*) FROM lg.run_agent a WHERE a.run_id = r.run_id AND a.started_us IS NOT NULL) = 3")
[ "$n" = "$runs" ] ||
    fail "start_skew: $n of $runs runs are done with a start skew of 3 agents:
$(q "SELECT run_id, state, start_skew_us FROM lg.run ORDER BY run_id")"
[[ $median =~ ^[0-9]+(\.[0-9]+)?$ ]] || fail "start_skew: the median start skew is missing (read \"$median\")"
need_figure start_skew "the largest start skew (lg.run.start_skew_us; 0 is one clock, not three)" "$max"
echo "start_skew: $n runs x 3 agents in namespaces: median $median ms, max $max ms (target: median < 2 ms)"
