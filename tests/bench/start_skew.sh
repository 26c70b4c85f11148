#!/usr/bin/env bash
# start_skew: the spread of fio start instants (controller clock, corrected by each agent's
# measured offset) over 20 runs with 3 agents in network namespaces; prints median and max.
# Target: median < 2 ms. usage: tests/bench/start_skew.sh [BUILD_DIR] [RUNS]
set -euo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$src/build}
runs=${2:-20}
export LG_BIN=$build/bin LG_SRC=$src
. "$src/tests/integration/lib.sh"
pg_start
lg_keys host1 host2 host3
"$LG_BIN/lgctl" db migrate >/dev/null
make_hosts 3 s 232
port=$(( 20000 + $$ % 20000 ))
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
for _ in $(seq 1 $((runs * 50))); do
    [ "$(q "SELECT state FROM lg.campaign")" = done ] && break
    sleep 0.1
done
q "SELECT 'start_skew: ' || count(*) || ' runs x 3 agents in namespaces: median '
    || round((percentile_cont(0.5) WITHIN GROUP (ORDER BY start_skew_us))::numeric / 1000.0, 3)
    || ' ms, max ' || round(max(start_skew_us)::numeric / 1000.0, 3) || ' ms (target: median < 2 ms)'
   FROM lg.run WHERE state = 'done'"
