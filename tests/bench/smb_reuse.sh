#!/usr/bin/env bash
# smb_reuse: what keeping SMB sessions between runs saves a sweep (lg-agent --smb-keep-sessions,
# agent/engines/smbpark.c). smbd in a NAS network namespace, one lg-agent in a namespace of its
# own, lg-controller and PostgreSQL; two campaigns of 4k random reads at THREADS x QD over smb://
# back to back, with sessions kept (the default) and, after the agent is started again, with
# --smb-keep-sessions 0. For each: how long the second run's fio took from its start to every job
# logged on and waiting at the start gate (the agent's "logged in ... in N ms": the part of Prepare
# that logons take), how long its whole Prepare took (the controller's start of the run to the
# agent's Prepared, the layout step included), and smbd's logons meanwhile. A report: it exits
# non-zero when a run is not done or a figure is missing. Here at 4T16Q, 2 s runs, three times:
# kept, the jobs logged on in 483 to 501 ms, Prepare 856 to 878 ms, 3 logons; not kept, 1225 to
# 1397 ms, 1568 to 1729 ms, 67 logons.
# usage: tests/bench/smb_reuse.sh [BUILD_DIR] [THREADS] [QD] [RUNTIME_S]
#   The suite runs it as bench_smb_reuse with 2 x 4 for 1 s; by hand 4 x 16 for 2 s.
set -euo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:-$src/build}" && pwd)
threads=${2:-4}
qd=${3:-16}
runtime=${4:-2}
export LG_BIN=$build/bin LG_SRC=$src
. "$src/tests/integration/lib.sh"
. "$src/tests/integration/smb.sh"
. "$src/tests/bench/figure.sh"
pg_start
lg_keys h1
"$LG_BIN/lgctl" db migrate >/dev/null
make_hosts 2 r 243 # 1: the NAS, 2: the load host
SMB_DEBUG="1 auth_audit:3" SMB_ADDR=$HOSTS_NET.2 SMB_NETNS=${HOST_NS[1]} smb_start >/dev/null
SMB_BASE="smb://$HOSTS_NET.2:$SMB_PORT/$SMB_SHARE"
start_controller --tcp "$HOSTS_NET.1" >/dev/null
agent() { # lg-agent h1 with --smb-keep-sessions $1
    start_agent h1 --wrap "ip netns exec ${HOST_NS[2]}" --smb-credentials "$SMB_CREDS" \
        --allow "$SMB_BASE" --smb-keep-sessions "$1" >/dev/null
}
logons() { grep -c 'Auth: .*status \[NT_STATUS_OK\]' "$T/smb/smbd.log" || true; }

# campaign NAME: one run to its end; sets READY (ms from fio's start to its jobs all logged on),
# PREP (ms from the Prepare to Prepared, by the agent's log) and LOGONS (smbd's meanwhile)
campaign() {
    cat >"$T/$1.yaml" <<SPEC
name: $1
target: "$SMB_BASE/reuse.dat"
size: 64M
profiles: [{name: r4k, bs: 4k, pattern: random, read: 100, sweep: none}]
threads: $threads
qd: $qd
runtime: ${runtime}s
precondition: none
SPEC
    local before run
    before=$(logons)
    submit_file "$1"
    wait_campaign "$1"
    [ "$(q "SELECT state FROM lg.campaign WHERE name = '$1'")" = done ] ||
        fail "smb_reuse: campaign $1 is not done: $(q "SELECT error FROM lg.run r JOIN
            lg.campaign c USING (campaign_id) WHERE c.name = '$1'")"
    run=$(q "SELECT r.run_id FROM lg.run r JOIN lg.campaign c USING (campaign_id)
             WHERE c.name = '$1'")
    LOGONS=$(($(logons) - before))
    READY=$(sed -n "s/.*run $run prepared: fio's $threads jobs logged in to .* in \([0-9]*\) ms.*/\1/p" \
        "$T/h1.log" | tail -n 1)
    need_figure smb_reuse "the time run $run's jobs took to log on" "$READY" "$T/h1.log"
    # from the controller's start of the run (its Prepare) to the agent's Prepared, by their logs'
    # wall-clock times (one machine)
    PREP=$(awk -v r="$run" '
        function ms(s,   a) { split(substr(s, 12, 12), a, /[:.]/); return ((a[1] * 60 + a[2]) * 60 + a[3]) * 1000 + a[4] }
        $0 ~ "info: run " r ": r4k read" { t0 = ms($0) }
        $0 ~ "info: run " r " prepared: fio" { t1 = ms($0) }
        END { if (t0 && t1) print t1 - t0 }' "$T/controller.log" "$T/h1.log")
    need_figure smb_reuse "run $run's Prepare" "$PREP" "$T/h1.log"
}

agent 60
campaign kept1
campaign kept2
kept="jobs logged on in $READY ms, Prepare $PREP ms, $LOGONS logons"
kill "${AGENT_PIDS[h1]}"
for _ in $(seq 1 100); do kill -0 "${AGENT_PIDS[h1]}" 2>/dev/null || break; sleep 0.1; done
agent 0
campaign off1
campaign off2
off="jobs logged on in $READY ms, Prepare $PREP ms, $LOGONS logons"
printf 'smb_reuse: %dT%dQ, one agent: the second run with sessions kept: %s; with ' \
    "$threads" "$qd" "$kept"
printf -- '--smb-keep-sessions 0: %s\n' "$off"
