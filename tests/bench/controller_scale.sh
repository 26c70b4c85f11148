#!/usr/bin/env bash
# controller_scale: lg-controller with N simulated agents (scale_agents: a DEALER, a CURVE key and a
# name each, split over PROCS processes, each a slice of the names) registered and heartbeating
# while samples flow from those a run takes (at most LG_RUN_MAX_AGENTS): how long the N took to
# register (from the first simulator's sockets to the last Welcome, every agent connecting at once
# as after a controller restart), the controller's CPU share (CPU seconds / wall seconds) with
# heartbeats only and during the run, and its peak RSS, each against a baseline of BASE_N agents
# measured the same way in this script, and how quickly the controller answers the agents' clock
# Pings meanwhile. Targets (issue 43, for 10,000 agents): every agent registered within 30 s, Pong
# p99 at most 50 ms in every window, peak RSS at most 300 MB. Checks that every sample the run's
# agents sent is stored, that the run ends "done", and that "lgctl agents" lists every agent, none
# taken for lost.
# usage: tests/bench/controller_scale.sh [BUILD_DIR] [N]   (N defaults to 1000)
#   env: BASE_N (10) agents of the baseline, RUNTIME (25) seconds of the run, IDLE (5) seconds of
#   heartbeats only, BINS (300) histogram buckets per sample, SIM overrides BUILD_DIR/bin/scale_agents,
#   PROCS (one per SLICE agents) simulator processes, SLICE (2500) agents per process at most
#   (each holds 2 descriptors an agent, and one process here is held to 20,000), SIM_NICE (10)
#   the simulators' nice level, CONNECT_RATE (0: all at once) agents connecting a second over the
#   whole fleet, PROBES (4) probe agents, PING_MS (20) between their Pings,
#   TELEMETRY (4) NAS telemetry sources scraped at 1 Hz during each run (each a
#   prometheus-node-exporter of its own on loopback; 0: none): the controller's scraper thread
#   works beside the agents, and the stored bytes per source-second are printed (target: at most
#   2 KB), SETTLE (2) seconds between the last Welcome and the heartbeats-only window (the agents'
#   first clock pings)
# The Pong round trips that judge the controller are those of PROBES probe agents in a process of
# their own, registered before the others, that wake for every message and Ping every PING_MS, as
# an agent on its own host sees the controller. The N simulated agents stand for N hosts, yet share
# this machine's CPUs with the controller: they run at nice SIM_NICE, so that they take the CPU
# the controller leaves, as agents on hosts of their own would (the probes and the controller run
# at the usual priority). They handle what arrives in 10 ms slices, so their own round trips
# (shown too, the worst process's p99) hold their own queueing: thousands of CURVE handshakes and
# Welcomes in a few processes on the same cores as the controller.
# Figures come from SQL, /proc, the simulators' one-line reports and lgctl agents' columns found
# by their heading; one missing or zero (a report that changed its words, say) stops the bench
# with exit 1, naming it. The suite runs a tiny form as bench_controller_scale: N 20 in PROCS 2,
# BASE_N 2, RUNTIME 1, IDLE 1, SETTLE 1, PROBES 2, TELEMETRY 1.
set -euo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$src/build}
n=${2:-1000}
base_n=${BASE_N:-10}
runtime=${RUNTIME:-25}
idle=${IDLE:-5}
settle=${SETTLE:-2}
bins=${BINS:-300}
slice=${SLICE:-2500}
procs=${PROCS:-$(((n + slice - 1) / slice))}
sim_nice=${SIM_NICE:-10}
connect_rate=${CONNECT_RATE:-0}
target_mb=300
target_reg_s=30
target_pong_ms=50
probes=${PROBES:-4}
telemetry=${TELEMETRY:-4}
target_tel_bytes=2048
ping_ms=${PING_MS:-20}
bin=$build/bin
sim=${SIM:-$bin/scale_agents}
[ -x "$bin/lgctl" ] && [ -x "$bin/lg-controller" ] ||
    { echo "build lg first: deploy/build.sh $build" >&2; exit 1; }
[ -x "$sim" ] || { echo "no scale_agents at $sim (target scale_agents in tests/CMakeLists.txt)" >&2; exit 1; }

# lg-controller holds a descriptor per agent connection (it raises its own limit as far as the
# hard limit lets it; past the limit libzmq aborts the process (ipc) or stops accepting (tcp)), and
# each simulator process two per agent: raised here to the hard limit.
[ "$(ulimit -n)" = unlimited ] || ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
nofile=$(ulimit -n)
per_proc=$(((n + procs - 1) / procs))
if [ "$nofile" != unlimited ] && { [ "$nofile" -lt $((n + 128)) ] ||
    [ "$nofile" -lt $((2 * per_proc + 64)) ]; }; then
    echo "controller_scale: ulimit -n is $nofile (hard $(ulimit -Hn)): lg-controller needs more" \
        "than $((n + 128)) descriptors for $n agents, and each of $procs simulator processes" \
        "$((2 * per_proc + 64)) for its $per_proc" >&2
    echo "hint: raise the hard limit, or give more PROCS" >&2
    exit 1
fi

# lib.sh: private PostgreSQL (pg_start), q, fail, and the trap that stops by PID what we start.
export LG_BIN=$bin LG_SRC=$src
. "$src/tests/integration/lib.sh"
. "$src/tests/bench/figure.sh"
pg_start
lg_keys
"$bin/lgctl" db migrate >/dev/null

# The NAS telemetry sources: node_exporters on loopback, scraped once a second in every run
tel_spec=""
if [ "$telemetry" -gt 0 ]; then
    exporter=$(command -v prometheus-node-exporter) ||
        { echo "controller_scale: TELEMETRY needs prometheus-node-exporter" >&2; exit 1; }
    tel_spec="telemetry:"
    tport=$((29100 + $$ % 500))
    for i in $(seq 1 "$telemetry"); do
        while (exec 3<>"/dev/tcp/127.0.0.1/$tport") 2>/dev/null; do tport=$((tport + 1)); done
        "$exporter" --web.listen-address="127.0.0.1:$tport" >"$T/exporter$i.log" 2>&1 &
        CLEANUP_PIDS+=("$!")
        for _ in $(seq 1 100); do (exec 3<>"/dev/tcp/127.0.0.1/$tport") 2>/dev/null && break; sleep 0.05; done
        tel_spec="$tel_spec
  - {name: nas$i, url: \"http://127.0.0.1:$tport/metrics\", interval: 1s}"
        tport=$((tport + 1))
    done
fi

hz=$(getconf CLK_TCK)
problems=()

# CPU time of all threads in ns: the scheduler's own account (schedstat) when the kernel keeps
# one, for short windows of light load; else utime + stime (fields 14, 15) in clock ticks.
cpu_ns() {
    if [ -r "/proc/$1/schedstat" ]; then
        cat "/proc/$1"/task/*/schedstat 2>/dev/null | awk '{ s += $1 } END { printf "%.0f", s }'
    else
        awk -v hz="$hz" '{ printf "%.0f", ($14 + $15) * 1e9 / hz }' "/proc/$1/stat"
    fi
}
status_kb() { awk -v k="$2:" '$1 == k { print $2 }' "/proc/$1/status"; }
share() { # cpu_ns0 cpu_ns1 wall_ns0 wall_ns1: CPU seconds per wall second, in % of one CPU
    awk -v a="$1" -v b="$2" -v t0="$3" -v t1="$4" 'BEGIN { printf "%.2f", 100 * (b - a) / (t1 - t0) }'
}
# sim_report PID FILE [PID FILE...]: the simulators' view of the controller since their last
# report (SIGUSR1, to all of them at once): prints "mean p99 max late silences pongs" (ms, ms, ms,
# ms, count, count): of several processes, the mean over all their Pongs, the worst p99, max and
# lateness, the sum of silences and Pongs.
sim_report() {
    local -a pids=() files=() before=()
    local i after
    while [ $# -ge 2 ]; do
        pids+=("$1") files+=("$2")
        before+=("$(grep -c "since the last report" "$2" || true)")
        shift 2
    done
    kill -USR1 "${pids[@]}"
    for i in "${!files[@]}"; do
        for _ in $(seq 1 50); do
            after=$(grep -c "since the last report" "${files[$i]}" || true)
            [ "$after" -gt "${before[$i]}" ] && break
            sleep 0.1
        done
    done
    for i in "${!files[@]}"; do
        grep "since the last report" "${files[$i]}" | tail -n 1 | sed -nE \
            's/.*: ([0-9]+) Pongs, round trip mean ([0-9.]+) ms, p50 [0-9]+ ms, p99 ([0-9]+) ms, max ([0-9.]+) ms; heartbeats up to ([0-9]+) ms late; ([0-9]+) times.*/\2 \3 \4 \5 \6 \1/p'
    done | awk 'NF == 6 { n++; sum += $1 * $6; if ($2 > p) p = $2; if ($3 > mx) mx = $3
                           if ($4 > late) late = $4; sil += $5; pongs += $6 }
        END { if (n == '"${#files[@]}"') printf "%.1f %d %.1f %d %d %d\n",
                  pongs ? sum / pongs : 0, p, mx, late, sil, pongs }'
}
# The simulators of a round: SIMS holds "PID FILE" pairs, SIMPIDS and SIMOUTS the same apart.
sims_cpu_ns() {
    local p t=0
    for p in "${SIMPIDS[@]}"; do t=$((t + $(cpu_ns "$p"))); done
    echo "$t"
}
# need_seen KEY WHO [PONGS]: RES[KEY] holds a whole sim_report of WHO's output (else the report's
# words changed and every figure of it would be read wrong); with PONGS, some Pongs came back.
need_seen() {
    [[ ${RES[$1]} =~ ^[0-9.]+\ [0-9]+\ [0-9.]+\ [0-9]+\ [0-9]+\ [0-9]+$ ]] ||
        fail "controller_scale: $1: no report of round trips in the output of $2 (read \"${RES[$1]}\")"
    [ -z "${3:-}" ] || need_figure controller_scale "$1: Pongs to $2's Pings" "${RES[$1]##* }" "$4"
}
stop_pid() {
    kill -TERM "$1" 2>/dev/null || true
    for _ in $(seq 1 100); do kill -0 "$1" 2>/dev/null || return 0; sleep 0.1; done
    kill -KILL "$1" 2>/dev/null || true
}

# round LABEL AGENTS PREFIX NPROC: a controller of its own, AGENTS simulated agents in NPROC
# processes, IDLE seconds of heartbeats, then one run of RUNTIME seconds. Results in
# RES[LABEL.key].
declare -A RES
round() {
    local label=$1 agents=$2 prefix=$3 nproc=$4 dir="$T/$1"
    mkdir -p "$dir"
    "$bin/lg-controller" "${CTRL_SEC[@]}" --database "$LG_DATABASE_URL" --agents "ipc://$dir/agents.sock" \
        --control "ipc://$dir/ctl.sock" --ready-file "$dir/ready" >"$dir/controller.log" 2>&1 &
    local ctl=$!
    CLEANUP_PIDS+=("$ctl")
    for _ in $(seq 1 100); do [ -f "$dir/ready" ] && break; sleep 0.1; done
    [ -f "$dir/ready" ] || fail "$label: lg-controller did not start"

    # The probe agents first, so that they watch the others register.
    "$sim" --controller "ipc://$dir/agents.sock" --agents "$probes" --prefix "probe-$prefix" \
        --bins "$bins" --timeout 900 --ping-ms "$ping_ms" --loop-ms 0 \
        >"$dir/probe.out" 2>"$dir/probe.log" &
    local probepid=$!
    CLEANUP_PIDS+=("$probepid")
    wait_line "$dir/probe.out" "^scale_agents: $probes agents registered" 60 ||
        fail "$label: the $probes probe agents were not welcomed within 60 s"
    sleep 1
    sim_report "$probepid" "$dir/probe.out" >/dev/null

    # The fleet: PROCS processes, each a slice of the names, all connecting at once.
    local per first i cnt
    [ "$nproc" -le "$agents" ] || nproc=$agents
    per=$(((agents + nproc - 1) / nproc))
    SIMS=() SIMPIDS=() SIMOUTS=()
    for ((i = 0; i < nproc; i++)); do
        first=$((i * per + 1))
        cnt=$((agents - i * per < per ? agents - i * per : per))
        [ "$cnt" -gt 0 ] || break
        nice -n "$sim_nice" "$sim" --controller "ipc://$dir/agents.sock" --agents "$cnt" \
            --first "$first" --prefix "$prefix" --bins "$bins" --timeout 900 \
            --connect-rate $(((connect_rate + nproc - 1) / nproc)) \
            >"$dir/sim$i.out" 2>"$dir/sim$i.log" &
        SIMPIDS+=("$!") SIMOUTS+=("$dir/sim$i.out")
        SIMS+=("$!" "$dir/sim$i.out")
        CLEANUP_PIDS+=("$!")
    done
    local wait_s=$((120 + agents / 100)) f
    for i in "${!SIMOUTS[@]}"; do
        wait_line "${SIMOUTS[$i]}" "^scale_agents: [0-9]+ agents registered" "$wait_s" ||
            fail "$label: not all $agents agents were welcomed within $wait_s s (simulator $i)"
    done
    # "scale_agents: M agents registered in S s (at T)": from the first process's sockets (T - S)
    # to the last one's last Welcome (T)
    local reg_re='^scale_agents: ([0-9]+) agents registered in ([0-9.]+) s \(at ([0-9.]+)\)$'
    RES[$label.reg_s]=$(for f in "${SIMOUTS[@]}"; do
        grep -E "^scale_agents: [0-9]+ agents registered" "$f" | head -n 1; done |
        sed -nE "s/$reg_re/\\2 \\3/p" |
        awk '{ s = $2 - $1; if (!n++ || s < t0) t0 = s; if ($2 > t1) t1 = $2 }
             END { if (n == '"${#SIMOUTS[@]}"') printf "%.3f", t1 - t0 }')
    need_figure controller_scale "$label: the registration time (scale_agents: N agents registered in S s (at T))" \
        "${RES[$label.reg_s]}" "${SIMOUTS[0]}"
    RES[$label.db_agents]=$(q "SELECT count(*) FROM lg.agent WHERE name LIKE '$prefix%'")

    # Heartbeats only (and their clock pings), once the first pings after Welcome are over.
    sleep "$settle"
    local c0 s0 t0 c1 s1 t1
    RES[$label.reg_seen]=$(sim_report "${SIMS[@]}")
    RES[$label.reg_probe]=$(sim_report "$probepid" "$dir/probe.out")
    need_seen "$label.reg_seen" "the simulated agents"
    need_seen "$label.reg_probe" "the probe agents" pongs "$dir/probe.out"
    c0=$(cpu_ns "$ctl"); s0=$(sims_cpu_ns); t0=$(date +%s%N)
    sleep "$idle"
    c1=$(cpu_ns "$ctl"); s1=$(sims_cpu_ns); t1=$(date +%s%N)
    RES[$label.idle_seen]=$(sim_report "${SIMS[@]}")
    RES[$label.idle_probe]=$(sim_report "$probepid" "$dir/probe.out")
    RES[$label.idle]=$(share "$c0" "$c1" "$t0" "$t1")
    RES[$label.idle_sim]=$(share "$s0" "$s1" "$t0" "$t1")
    RES[$label.idle_rss]=$(status_kb "$ctl" VmRSS)
    need_seen "$label.idle_seen" "the simulated agents"
    need_seen "$label.idle_probe" "the probe agents" pongs "$dir/probe.out"
    need_figure controller_scale "$label: the controller's CPU share with heartbeats only (/proc)" "${RES[$label.idle]}"
    need_figure controller_scale "$label: the controller's RSS with heartbeats only (VmRSS)" "${RES[$label.idle_rss]}"

    cat >"$dir/spec.yaml" <<SPEC
name: scale-$label
sut:
  labels: {build: bench, media: "null"}
target: "null"
size: 1G
profiles:
  - {name: scale, bs: 4k, pattern: random, read: 100, sweep: none}
threads: 1
qd: 1
ramp: 0s
runtime: ${runtime}s
precondition: none
$tel_spec
SPEC
    "$bin/lgctl" --controller "ipc://$dir/ctl.sock" submit "$dir/spec.yaml" >"$dir/submit.log" 2>&1 ||
        { cat "$dir/submit.log" >&2; fail "$label: lgctl submit failed"; }
    local started=""
    for _ in $(seq 1 1200); do
        started=$(cat "${SIMOUTS[@]}" | grep -E "^scale_agents: run [0-9]+ (started|done)" | head -n 1 || true)
        [ -n "$started" ] && break
        sleep 0.1
    done
    [ -n "$started" ] || fail "$label: the run did not start within 120 s"

    # The run: from the Start to every result acknowledged; RSS sampled twice a second.
    local rss max_rss=0
    # the simulators that take part: those that print the run's start (looked for again until
    # the end: a busy process may print its start after another's)
    local run_no in_sims=() done_all
    run_no=$(sed -nE 's/^scale_agents: run ([0-9]+) .*/\1/p' <<<"$started")
    sim_report "${SIMS[@]}" >/dev/null
    sim_report "$probepid" "$dir/probe.out" >/dev/null
    c0=$(cpu_ns "$ctl"); s0=$(sims_cpu_ns); t0=$(date +%s%N)
    for _ in $(seq 1 $(((runtime + 180) * 2))); do
        rss=$(status_kb "$ctl" VmRSS)
        [ "$rss" -gt "$max_rss" ] && max_rss=$rss
        done_all=1 in_sims=()
        for f in "${SIMOUTS[@]}"; do
            grep -qE "^scale_agents: run $run_no (started|done)" "$f" || continue
            in_sims+=("$f")
            grep -qE "^scale_agents: run $run_no done" "$f" || done_all=0
        done
        [ "$done_all" = 1 ] && break
        sleep 0.5
    done
    c1=$(cpu_ns "$ctl"); s1=$(sims_cpu_ns); t1=$(date +%s%N)
    RES[$label.run_seen]=$(sim_report "${SIMS[@]}")
    RES[$label.run_probe]=$(sim_report "$probepid" "$dir/probe.out")
    need_seen "$label.run_seen" "the simulated agents"
    need_seen "$label.run_probe" "the probe agents" pongs "$dir/probe.out"
    local done_line probe_line
    [ "$done_all" = 1 ] || fail "$label: the run's samples and results were not all acknowledged"
    # one line for the fleet: the agents and samples of every simulator that took part, added
    done_line=$(for f in "${in_sims[@]}"; do grep -E "^scale_agents: run $run_no done" "$f"; done |
        awk '{ a += $5; s += $7 } END { printf "scale_agents: run '"$run_no"' done: %d agents, %d samples sent\n", a, s }')
    # The run may have taken probe agents too: their samples count with the others'.
    if grep -qE "^scale_agents: run [0-9]+ (started|done)" "$dir/probe.out"; then
        wait_line "$dir/probe.out" "^scale_agents: run [0-9]+ done" 60 ||
            fail "$label: the probe agents' samples and results were not all acknowledged"
        probe_line=$(grep -E "^scale_agents: run [0-9]+ done" "$dir/probe.out")
    fi
    RES[$label.run]=$(share "$c0" "$c1" "$t0" "$t1")
    RES[$label.run_sim]=$(share "$s0" "$s1" "$t0" "$t1")
    RES[$label.run_s]=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", (b - a) / 1e9 }')
    RES[$label.max_rss]=$max_rss
    need_figure controller_scale "$label: the controller's CPU share during the run (/proc)" "${RES[$label.run]}"
    need_figure controller_scale "$label: the controller's RSS during the run (VmRSS)" "$max_rss"

    # "scale_agents: run R done: A agents, S samples sent, K acknowledged, A results acknowledged"
    local run_id in_run sent
    local done_re='^scale_agents: run ([0-9]+) done: ([0-9]+) agents, ([0-9]+) samples sent'
    [[ $done_line =~ $done_re ]] || fail "controller_scale: $label: the simulator's end of run reads \"$done_line\""
    run_id=${BASH_REMATCH[1]} in_run=${BASH_REMATCH[2]} sent=${BASH_REMATCH[3]}
    if [ -n "${probe_line:-}" ]; then
        local p_run p_in p_sent
        [[ $probe_line =~ $done_re ]] ||
            fail "controller_scale: $label: the probe agents' end of run reads \"$probe_line\""
        p_run=${BASH_REMATCH[1]} p_in=${BASH_REMATCH[2]} p_sent=${BASH_REMATCH[3]}
        [ "$p_run" = "$run_id" ] || fail "$label: the probe agents ran run $p_run, the others $run_id"
        in_run=$((in_run + p_in))
        sent=$((sent + p_sent))
    fi
    for _ in $(seq 1 300); do
        [ "$(q "SELECT state FROM lg.campaign WHERE name = 'scale-$label'")" = done ] && break
        sleep 0.2
    done
    RES[$label.run_state]=$(q "SELECT state FROM lg.run WHERE run_id = $run_id")
    # What the NAS telemetry of the run stored: row bytes (and with the key's index) per
    # source-second over the scrapes' span, and how many scrapes were missed.
    if [ "$telemetry" -gt 0 ]; then
        RES[$label.tel]=$(q "SELECT count(*), count(*) FILTER (WHERE t_recv IS NULL),
            round(sum(pg_column_size(s.*)) / nullif(extract(epoch FROM max(t_send) - min(t_send))
                  * count(DISTINCT source), 0)),
            count(DISTINCT source)
            FROM lg.sut_scrape s WHERE run_id = $run_id" | tr '|' ' ')
        local tel
        read -r -a tel <<<"${RES[$label.tel]}"
        need_figure controller_scale "$label: NAS telemetry scrapes stored (lg.sut_scrape)" "${tel[0]:-}"
        need_figure controller_scale "$label: NAS telemetry bytes per source-second (lg.sut_scrape)" "${tel[2]:-}"
    fi
    RES[$label.in_run]=$in_run
    need_figure controller_scale "$label: the agents in run $run_id" "$in_run" "${SIMOUTS[0]}"
    need_figure controller_scale "$label: the samples sent in run $run_id" "$sent" "${SIMOUTS[0]}"
    RES[$label.ra_done]=$(q "SELECT count(*) FROM lg.run_agent WHERE run_id = $run_id AND state = 'done'")
    RES[$label.sent]=$sent
    RES[$label.stored]=$(q "SELECT count(*) FROM lg.sample WHERE run_id = $run_id")
    "$bin/lgctl" --controller "ipc://$dir/ctl.sock" agents >"$dir/agents.txt"
    # lgctl agents prints a table: its columns found by their headings "agent" and "state"
    local acol scol
    read -r acol scol < <(awk 'NR == 1 { for (i = 1; i <= NF; i++) { if ($i == "agent") a = i
        if ($i == "state") s = i }; print a + 0, s + 0 }' "$dir/agents.txt")
    [ "${acol:-0}" -gt 0 ] && [ "${scol:-0}" -gt 0 ] ||
        fail "controller_scale: $label: lgctl agents printed no \"agent\" and \"state\" headings: $(head -n 1 "$dir/agents.txt")"
    RES[$label.listed]=$(awk -v p="$prefix" -v a="$acol" 'NR > 1 && index($a, p) == 1' "$dir/agents.txt" | wc -l)
    RES[$label.listed_lost]=$(awk -v p="$prefix" -v a="$acol" -v s="$scol" \
        'NR > 1 && index($a, p) == 1 && $s == "lost"' "$dir/agents.txt" | wc -l)
    RES[$label.lost_log]=$(grep -c "is lost" "$dir/controller.log" || true)
    # the controller's own view: ticks more than 40 ms late (its loop was busy), and the longest
    RES[$label.busy]=$(awk '/event loop was busy for [0-9]+ ms \(/ { n++ } END { printf "%d", n }' \
        "$dir/controller.log")
    # VmHWM is kept lazily by the kernel: the peak is the larger of it and what was sampled.
    RES[$label.hwm]=$(status_kb "$ctl" VmHWM)
    need_figure controller_scale "$label: the controller's peak RSS (VmHWM)" "${RES[$label.hwm]}"
    [ "${RES[$label.hwm]}" -ge "$max_rss" ] || RES[$label.hwm]=$max_rss

    for f in "${SIMPIDS[@]}"; do kill -TERM "$f" 2>/dev/null || true; done
    for f in "${SIMPIDS[@]}"; do stop_pid "$f"; done
    stop_pid "$probepid"
    stop_pid "$ctl"
    RES[$label.busy]+=/$(sed -nE 's/.*event loop was busy for at most ([0-9]+) ms.*/\1/p' \
        "$dir/controller.log")
    # the processes' summaries, added: "N agents, R registered; M messages sent (H Hellos, X
    # samples resent), K received (U unexpected), E send errors"
    RES[$label.sim_line]=$(cat "${SIMOUTS[@]}" | grep -E "^scale_agents: [0-9]+ agents, " |
        awk '{ gsub(/[(),;]/, " "); n++; for (i = 2; i <= NF; i++) if ($i ~ /^[0-9]+$/) v[i] += $i }
             END { if (n == '"${#SIMOUTS[@]}"') printf "%d agents, %d registered; %d messages sent (%d Hellos, %d samples resent), %d received (%d unexpected), %d send errors in %d processes\n",
                   v[2], v[4], v[6], v[9], v[11], v[14], v[16], v[18], n }')
    RES[$label.silences]=$(cat "${SIMOUTS[@]}" |
        sed -nE 's/^scale_agents: overall: .* ([0-9]+) times an agent heard nothing.*/\1/p' |
        awk '{ n++; s += $1 } END { if (n == '"${#SIMOUTS[@]}"') print s }')
    # (0 is a figure here: no agent went unheard, and the controller's loop was never busy)
    [[ ${RES[$label.busy]} =~ ^[0-9]+/[0-9]+$ ]] ||
        fail "controller_scale: $label: the controller's log has no \"event loop was busy for at most N ms\" (read \"${RES[$label.busy]}\")"
    [[ ${RES[$label.silences]} =~ ^[0-9]+$ ]] && [ -n "${RES[$label.sim_line]}" ] ||
        fail "controller_scale: $label: the simulator printed no summary (\"scale_agents: N agents, ...\" and \"overall: ... times an agent heard nothing\")"

    local want=$((in_run * runtime))
    [ "${RES[$label.db_agents]}" = "$agents" ] ||
        problems+=("$label: lg.agent holds ${RES[$label.db_agents]} of the $agents agents")
    [ "${RES[$label.stored]}" = "$sent" ] ||
        problems+=("$label: run $run_id: ${RES[$label.stored]} samples stored of $sent sent")
    [ "$sent" = "$want" ] ||
        problems+=("$label: run $run_id: $sent samples sent, expected $in_run agents x $runtime s = $want")
    [ "${RES[$label.ra_done]}" = "$in_run" ] ||
        problems+=("$label: run $run_id: ${RES[$label.ra_done]} run_agent rows done of $in_run")
    [ "${RES[$label.run_state]}" = done ] ||
        problems+=("$label: run $run_id ended \"${RES[$label.run_state]}\"")
    [ "${RES[$label.listed]}" = "$agents" ] ||
        problems+=("$label: lgctl agents lists ${RES[$label.listed]} of the $agents agents")
    [ "${RES[$label.listed_lost]}" = 0 ] && [ "${RES[$label.lost_log]}" = 0 ] ||
        problems+=("$label: agents taken for lost: ${RES[$label.listed_lost]} listed lost, ${RES[$label.lost_log]} \"is lost\" in the log")
    return 0
}

round base "$base_n" base 1
round scale "$n" sim "$procs"

mb() { awk -v k="$1" 'BEGIN { printf "%.1f", k / 1024 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }'; }
row() { printf "  %-46s %14s %14s %8s\n" "$@"; }
echo "controller_scale: $n agents in $procs simulator processes vs a baseline of $base_n in one" \
    "(at nice $sim_nice; connecting $([ "$connect_rate" = 0 ] && echo "all at once" ||
        echo "$connect_rate a second"); runs of ${runtime} s, one sample a second per run" \
    "agent, ${bins}-bucket histograms)"
row "" "baseline" "scale" "ratio"
row "agents registered (lg.agent)" "${RES[base.db_agents]}" "${RES[scale.db_agents]}" \
    "$(ratio "${RES[scale.db_agents]}" "${RES[base.db_agents]}")"
row "agents listed by lgctl agents (lost)" "${RES[base.listed]} (${RES[base.listed_lost]})" \
    "${RES[scale.listed]} (${RES[scale.listed_lost]})" ""
row "registration time, s" "${RES[base.reg_s]}" "${RES[scale.reg_s]}" \
    "$(ratio "${RES[scale.reg_s]}" "${RES[base.reg_s]}")"
row "agents in the run" "${RES[base.in_run]}" "${RES[scale.in_run]}" \
    "$(ratio "${RES[scale.in_run]}" "${RES[base.in_run]}")"
row "samples sent / stored" "${RES[base.sent]}/${RES[base.stored]}" \
    "${RES[scale.sent]}/${RES[scale.stored]}" "$(ratio "${RES[scale.stored]}" "${RES[base.stored]}")"
row "controller CPU, heartbeats only, %" "${RES[base.idle]}" "${RES[scale.idle]}" \
    "$(ratio "${RES[scale.idle]}" "${RES[base.idle]}")"
per_agent() { awk -v p="$1" -v n="$2" 'BEGIN { printf "%.1f", p * 1e4 / n }'; }
row "  per agent, CPU us per second" "$(per_agent "${RES[base.idle]}" "$base_n")" \
    "$(per_agent "${RES[scale.idle]}" "$n")" \
    "$(ratio "$(per_agent "${RES[scale.idle]}" "$n")" "$(per_agent "${RES[base.idle]}" "$base_n")")"
row "controller CPU, during the run, %" "${RES[base.run]}" "${RES[scale.run]}" \
    "$(ratio "${RES[scale.run]}" "${RES[base.run]}")"
row "  (run window, s)" "${RES[base.run_s]}" "${RES[scale.run_s]}" ""
row "simulator CPU, heartbeats / run, %" "${RES[base.idle_sim]}/${RES[base.run_sim]}" \
    "${RES[scale.idle_sim]}/${RES[scale.run_sim]}" ""
pong_met=() pong_missed=()
seen() { # label.window field(1 mean, 2 p99, 3 max, 4 late)
    awk -v f="$2" '{ print $f }' <<<"${RES[$1]}"
}
for w in reg idle run; do
    case $w in
    reg) what="registration" ;; idle) what="heartbeats only" ;; run) what="during the run" ;;
    esac
    row "Pong round trip, $what, mean/p99/max ms" \
        "$(seen base.${w}_probe 1)/$(seen base.${w}_probe 2)/$(seen base.${w}_probe 3)" \
        "$(seen scale.${w}_probe 1)/$(seen scale.${w}_probe 2)/$(seen scale.${w}_probe 3)" \
        "$(ratio "$(seen scale.${w}_probe 2)" "$(seen base.${w}_probe 2)")"
    row "  as the simulated agents see it" \
        "$(seen base.${w}_seen 1)/$(seen base.${w}_seen 2)/$(seen base.${w}_seen 3)" \
        "$(seen scale.${w}_seen 1)/$(seen scale.${w}_seen 2)/$(seen scale.${w}_seen 3)" \
        "$(ratio "$(seen scale.${w}_seen 2)" "$(seen base.${w}_seen 2)")"
    # the simulator's own loop: how late its heartbeats went out (part of every round trip)
    row "  simulator's heartbeats late by up to, ms" "$(seen base.${w}_seen 4)" \
        "$(seen scale.${w}_seen 4)" ""
    # the bar: p99 <= 50 ms and <= 5x the baseline's. The probes' baseline is 0-4 ms, the
    # whole-ms resolution of their histogram; a baseline under 10 ms counts as 10 ms (the
    # 10-agent figure the bar was set against), so that 5x is not a ratio of rounding noise.
    p99=$(seen scale.${w}_probe 2) b99=$(seen base.${w}_probe 2)
    if awk -v p="$p99" -v b="$b99" -v t="$target_pong_ms" \
        'BEGIN { if (b < 10) b = 10; exit !(p <= t && p <= 5 * b) }'; then
        pong_met+=("$what ${p99} ms")
    else
        pong_missed+=("$what ${p99} ms (baseline ${b99} ms)")
    fi
done
row "agents taken for lost (controller log)" "${RES[base.lost_log]}" "${RES[scale.lost_log]}" ""
row "controller loop busy > 40 ms: times / longest, ms" "${RES[base.busy]}" "${RES[scale.busy]}" ""
row "state of the run" "${RES[base.run_state]}" "${RES[scale.run_state]}" ""
row "agents hearing nothing for 3 heartbeats" "${RES[base.silences]}" "${RES[scale.silences]}" ""
row "controller RSS, heartbeats only, MB" "$(mb "${RES[base.idle_rss]}")" \
    "$(mb "${RES[scale.idle_rss]}")" "$(ratio "${RES[scale.idle_rss]}" "${RES[base.idle_rss]}")"
row "controller RSS, max during the run, MB" "$(mb "${RES[base.max_rss]}")" \
    "$(mb "${RES[scale.max_rss]}")" "$(ratio "${RES[scale.max_rss]}" "${RES[base.max_rss]}")"
row "controller peak RSS (VmHWM or sampled), MB" "$(mb "${RES[base.hwm]}")" "$(mb "${RES[scale.hwm]}")" \
    "$(ratio "${RES[scale.hwm]}" "${RES[base.hwm]}")"
echo "  (CPU in % of one CPU: CPU seconds / wall seconds of the window; MB = 2^20 bytes; round"
echo "   trips as $probes probe agents in their own process see them, a Ping every $ping_ms ms each;"
echo "   the simulated agents' own, below each, hold up to ~10 ms of their process's polling)"
echo "  simulator: ${RES[scale.sim_line]#scale_agents: }"
if [ "$telemetry" -gt 0 ]; then
    read -r bs bm bb bn <<<"${RES[base.tel]}"
    read -r ss sm sb sn <<<"${RES[scale.tel]}"
    row "NAS telemetry: scrapes / missed" "$bs / $bm" "$ss / $sm" ""
    row "NAS telemetry: stored bytes per source-second" "$bb" "$sb" "$(ratio "$sb" "$bb")"
    if [ -n "$sb" ] && [ "$sb" -le "$target_tel_bytes" ] && [ "$sn" = "$telemetry" ]; then
        echo "target: stored telemetry <= $target_tel_bytes bytes per source-second ($telemetry sources at 1 Hz): met ($sb bytes)"
    else
        echo "target: stored telemetry <= $target_tel_bytes bytes per source-second ($telemetry sources at 1 Hz): NOT met (${sb:-none} bytes, $sn sources)"
        problems+=("telemetry: ${sb:-no} bytes per source-second from $sn sources")
    fi
fi
# what each agent adds: the scale round's peak over the baseline's, per agent more
per_kb=$(awk -v a="${RES[scale.hwm]}" -v b="${RES[base.hwm]}" -v n="$n" -v m="$base_n" \
    'BEGIN { printf "%.1f", (n > m) ? (a - b) / (n - m) : 0 }')
echo "  controller peak RSS per agent over the baseline: $per_kb KB"
if awk -v s="${RES[scale.reg_s]}" -v t="$target_reg_s" 'BEGIN { exit !(s <= t) }'; then
    echo "target: $n agents registered within $target_reg_s s: met (${RES[scale.reg_s]} s)"
else
    echo "target: $n agents registered within $target_reg_s s: NOT met (${RES[scale.reg_s]} s)"
fi
if awk -v k="${RES[scale.hwm]}" -v t="$target_mb" 'BEGIN { exit !(k / 1024 <= t) }'; then
    echo "target: peak RSS <= $target_mb MB with $n agents: met ($(mb "${RES[scale.hwm]}") MB)"
else
    echo "target: peak RSS <= $target_mb MB with $n agents: NOT met ($(mb "${RES[scale.hwm]}") MB)"
fi
if [ ${#pong_missed[@]} -eq 0 ]; then
    echo "target: Pong p99 <= $target_pong_ms ms and <= 5x the baseline's (10 ms at least) in every window: met" \
        "($(IFS=,; echo "${pong_met[*]}"))"
else
    echo "target: Pong p99 <= $target_pong_ms ms and <= 5x the baseline's (10 ms at least) in every window: NOT met" \
        "($(IFS=,; echo "${pong_missed[*]}"))"
fi
if [ ${#problems[@]} -gt 0 ]; then
    printf 'FAIL: %s\n' "${problems[@]}" >&2
    exit 1
fi
echo "ok: every sample sent was stored; every agent registered and listed, none lost"
