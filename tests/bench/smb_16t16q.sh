#!/usr/bin/env bash
# smb_16t16q: the reviews' heaviest SMB load point as a user runs it: smbd in a NAS network
# namespace, two lg-agents each in a namespace of its own, lg-controller and PostgreSQL, and an
# lgctl campaign of 4k random reads at THREADS x QD over smb:// on both agents at once. Each agent
# opens THREADS x QD SMB sessions (lgsmb: one per I/O in flight), 512 at 16T16Q, all logging on as
# the run starts; lgsmb paces them (at most 8 connects in flight per agent, refused ones tried
# again) where they used to arrive all at once and time out. Prints how long the logons took at
# smbd (from the first of the run's sessions to the last, as smbd's children appear) and each
# agent's IOPS. A report: it exits non-zero when the run is not done or an agent's I/O is missing.
# What smbd needs for 512 sessions: nothing in smb.sh's smb.conf ("max connections" and "max smbd
# processes" are unlimited by default; the parent keeps no descriptor per child; its limits here
# are 16464 files, 96367 processes). Its listen backlog is 50 whatever net.core.somaxconn says:
# 512 connects at once overflowed it (TcpExtListenOverflows 3151) and 21 of 32 jobs timed out,
# which lgsmb's pacing avoids (no overflow, 514 children at once).
# usage: tests/bench/smb_16t16q.sh [BUILD_DIR] [THREADS] [QD] [RUNTIME_S]
#   The suite runs it as bench_smb_16t16q with RUNTIME_S 2; by hand 16 x 16 for 5 s.
set -euo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:-$src/build}" && pwd)
threads=${2:-16}
qd=${3:-16}
runtime=${4:-5}
export LG_BIN=$build/bin LG_SRC=$src
. "$src/tests/integration/lib.sh"
. "$src/tests/integration/smb.sh"
. "$src/tests/bench/figure.sh"
sessions=$((2 * threads * qd))
t_start=$(date +%s.%N)
pg_start
lg_keys h1 h2
"$LG_BIN/lgctl" db migrate >/dev/null
make_hosts 3 q 241 # 1: the NAS, 2 and 3: the load hosts
SMB_ADDR=$HOSTS_NET.2 SMB_NETNS=${HOST_NS[1]} smb_start
SMB_BASE="smb://$HOSTS_NET.2:$SMB_PORT/$SMB_SHARE"
start_controller --tcp "$HOSTS_NET.1"
for i in 1 2; do
    start_agent "h$i" --wrap "ip netns exec ${HOST_NS[$((i + 1))]}" \
        --smb-credentials "$SMB_CREDS" --allow "$SMB_BASE" --allow-destructive
done

# smbd forks a child per connection: the first time each child is seen, every 100 ms (the
# sampler is starved of a CPU now and then on a loaded machine: the times are to about that), and
# which agent each one serves (the peer address of its connection).
(
    declare -A seen=()
    fresh=0 last_ss=0
    while :; do
        now=$EPOCHREALTIME
        # the new children's connections, established by now; at most once a second (ss -p reads
        # every process's descriptors: over a thousand processes here)
        if [ $fresh = 1 ] && [ "${now%.*}" -gt "$last_ss" ]; then
            ip netns exec "${HOST_NS[1]}" ss -tnpH state established "( sport = :$SMB_PORT )" |
                sed -n 's/.* \([0-9.]*\):[0-9]* *users:(("smbd",pid=\([0-9]*\),.*/\2 \1/p' \
                >>"$T/peers.txt"
            fresh=0 last_ss=${now%.*}
        fi
        for pid in $(pgrep -P "$SMB_PID"); do
            [ -n "${seen[$pid]:-}" ] || { seen[$pid]=1; fresh=1; echo "$now $pid"; }
        done
        sleep 0.1
    done
) >"$T/children.txt" &
CLEANUP_PIDS+=("$!")

cat >"$T/load.yaml" <<SPEC
name: load
target: "$SMB_BASE/load.dat"
size: 64M
profiles: [{name: r4k, bs: 4k, pattern: random, read: 100, sweep: none}]
threads: $threads
qd: $qd
ramp: 1s
runtime: ${runtime}s
precondition: none
SPEC
t0=$EPOCHREALTIME
submit_file load
wait_campaign load
t1=$EPOCHREALTIME
q "SELECT run_id, state, error FROM lg.run"
state=$(q "SELECT state FROM lg.run ORDER BY run_id DESC LIMIT 1")
run=$(q "SELECT run_id FROM lg.run ORDER BY run_id DESC LIMIT 1")
[ "$state" = "done" ] || fail "smb_16t16q: the run is \"$state\": $(q "SELECT error FROM lg.run
    WHERE run_id = ${run:-0}")"
agents=$(q "SELECT count(*) FROM lg.result WHERE run_id = $run AND agent_id IS NOT NULL
    AND direction = 'read' AND ios > 0")
[ "$agents" = 2 ] || fail "smb_16t16q: $agents of 2 agents have read I/O in the run's results"
per_agent=$(q "SELECT string_agg(a.name || ' ' || round(x.iops) || ' IOPS', ', ' ORDER BY a.name)
    FROM lg.result x JOIN lg.agent a USING (agent_id) WHERE run_id = $run AND direction = 'read'")
samples=$(q "SELECT count(DISTINCT agent_id) FROM lg.sample WHERE run_id = $run AND ios > 0")
[ "$samples" = 2 ] || fail "smb_16t16q: samples with I/O from $samples of 2 agents"
# The run's sessions are the last $sessions children smbd forked (the layout's came before); per
# agent, from its first to its last (by the peer address, h1 at .3, h2 at .4; "?" where the
# sampler missed it).
tail -n "$sessions" "$T/children.txt" >"$T/run-children.txt"
read -r n first last < <(awk 'NR == 1 { f = $1 } { l = $1 } END { print NR, f, l }' "$T/run-children.txt")
[ "$n" = "$sessions" ] || echo "smb_16t16q: note: the sampler saw $n of smbd's children in all"
logon=$(awk -v a="$first" -v b="$last" 'BEGIN { printf "%.1f", b - a }')
per_logon=$(awk -v net="$HOSTS_NET" 'FNR == NR { ip[$1] = $2; next }
    { a = ip[$2] == net ".3" ? "h1" : ip[$2] == net ".4" ? "h2" : "?"; n[a]++
      if (!(a in f)) f[a] = $1; l[a] = $1 }
    END { for (a in n) { printf "%s%s %d in %.1f s", sep, a, n[a], l[a] - f[a]; sep = ", " } }' \
    "$T/peers.txt" "$T/run-children.txt")
need_figure smb_16t16q "the IOPS of the run" "$(q "SELECT round(iops) FROM lg.result
    WHERE run_id = $run AND agent_id IS NULL AND direction = 'read'")"
printf 'smb_16t16q: %dT%dQ x 2 agents: run done, %s; %d sessions logged on in %s s at smbd (%s); ' \
    "$threads" "$qd" "$per_agent" "$n" "$logon" "$per_logon"
printf 'campaign %.1f s, whole bench %.1f s\n' "$(bc <<<"$t1 - $t0")" "$(bc <<<"$t1 - $t_start")"
