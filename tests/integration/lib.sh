# lib.sh: shared helpers for integration tests. Each test gets its own folder, its own
# PostgreSQL cluster on a private Unix socket, and a trap that stops what it started by PID.
# ctest runs tests side by side: a port comes from free_port, a name of the machine's (user,
# namespace, link) carries $$, and what cannot be private is locked in tests/CMakeLists.txt.
set -euo pipefail

: "${LG_BIN:?LG_BIN must point at the bin folder of the build}"
: "${LG_SRC:?LG_SRC must point at the source tree}"

T=$(mktemp -d /tmp/lg-it.XXXXXX)
chmod 711 "$T"
PG_BIN=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)
PG_DIR=""
CLEANUP_PIDS=()
CLEANUP_LOOPS=()
CLEANUP_MOUNTS=()
CLEANUP_NETNS=()
CLEANUP_LINKS=()

as_pg() {
    if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

cleanup() {
    local rc=${1:-$?}
    pg_thaw # a server a failing test froze is let go before it is stopped
    for pid in "${CLEANUP_PIDS[@]}"; do
        kill "$pid" 2>/dev/null || true
    done
    for m in "${CLEANUP_MOUNTS[@]}"; do
        umount -l "$m" 2>/dev/null || true
    done
    for dev in "${CLEANUP_LOOPS[@]}"; do
        losetup -d "$dev" 2>/dev/null || true
    done
    for ns in "${CLEANUP_NETNS[@]}"; do
        ip netns del "$ns" 2>/dev/null || true
    done
    for link in "${CLEANUP_LINKS[@]}"; do
        ip link del "$link" 2>/dev/null || true
    done
    if [ -n "$PG_DIR" ] && [ -f "$PG_DIR/data/postmaster.pid" ]; then
        local pgpid
        pgpid=$(head -n 1 "$PG_DIR/data/postmaster.pid")
        kill -INT "$pgpid" 2>/dev/null || true
        for _ in $(seq 1 100); do kill -0 "$pgpid" 2>/dev/null || break; sleep 0.1; done
    fi
    # A private cluster lgctl left running (it should not) is stopped by its PID too.
    for pidfile in "$T"/*/pg/data/postmaster.pid; do
        [ -f "$pidfile" ] || continue
        echo "cleanup: a PostgreSQL was still running in ${pidfile%/data/postmaster.pid}" >&2
        kill -INT "$(head -n 1 "$pidfile")" 2>/dev/null || true
        sleep 1
    done
    if [ $rc -ne 0 ]; then
        echo "--- test failed (exit $rc); logs in $T:" >&2
        find "$T" -name '*.log' -size -200k 2>/dev/null | while read -r f; do
            echo "--- $f" >&2; tail -n 30 "$f" >&2
        done
    fi
    rm -rf "$T"
    exit $rc
}
trap cleanup EXIT

# Start a throwaway cluster listening only on a socket in $T/pg; sets PGHOST and LG_DATABASE_URL.
pg_start() {
    PG_DIR="$T/pg"
    install -d -m 700 "$PG_DIR"
    [ "$(id -u)" = 0 ] && chown postgres:postgres "$PG_DIR"
    as_pg "$PG_BIN/initdb" -D "$PG_DIR/data" -U postgres --auth=trust -E UTF8 \
        --locale=C.UTF-8 --no-sync >"$T/initdb.log" 2>&1
    as_pg "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -l "$PG_DIR/server.log" -w \
        -o "-c listen_addresses='' -c unix_socket_directories='$PG_DIR' -p 5432" start >/dev/null
    export PGHOST="$PG_DIR" PGPORT=5432 PGUSER=postgres
    psql -qAt -d postgres -c "CREATE DATABASE lg" >/dev/null
    export PGDATABASE=lg
    export LG_DATABASE_URL="host=$PG_DIR port=5432 user=postgres dbname=lg"
}

# pg_freeze / pg_thaw: the whole server of pg_start (the postmaster and every process it started:
# backends, writer, ...) stopped with SIGSTOP, as a hung database host, and let go again; cleanup
# lets it go too, so a failing test never leaves a frozen server behind.
PG_FROZEN=""
pg_freeze() {
    local pm
    pm=$(head -n 1 "$PG_DIR/data/postmaster.pid")
    PG_FROZEN="$pm $(pgrep -P "$pm" | tr '\n' ' ')"
    kill -STOP $PG_FROZEN 2>/dev/null || true # a backend that just ended is not there to stop
}
pg_thaw() {
    [ -n "$PG_FROZEN" ] && kill -CONT $PG_FROZEN 2>/dev/null
    PG_FROZEN=""
    return 0
}

# CURVE keys as a deployment has them (lgctl keygen): the controller's pair, the operator's pair
# for lgctl, and a pair per agent (agent_sec), whose .pub files make up the folder that is the
# controller's agent allow-list. Sets CTRL_SEC (options of lg-controller) and exports LG_KEY and
# LG_CONTROLLER_KEY for lgctl, and LG_AGENT_KEYS (the allow-list folder, where the simulated
# agents of tests/bench/ put their own keys).
lg_keys() {
    local k="$T/keys"
    mkdir -p "$k/agents"
    "$LG_BIN/lgctl" keygen controller --dir "$k" >/dev/null
    "$LG_BIN/lgctl" keygen ops --dir "$k" >/dev/null
    CTRL_SEC=(--key "$k/controller.key" --agent-keys "$k/agents" --control-keys "$k/ops.pub")
    export LG_KEY="$k/ops.key" LG_CONTROLLER_KEY="$k/controller.pub"
    export LG_AGENT_KEYS="$k/agents"
    local n
    for n in "$@"; do agent_key "$n"; done
}

# agent_key NAME: NAME's key pair in the allow-list folder (made once). An agent's key is its
# identity: the controller lets it register as NAME only. Make the keys before the controller
# starts where you can; a key added later is found when it first knocks (the controller reads
# the folder again, at most once a second).
agent_key() {
    [ -f "$T/keys/agents/$1.key" ] || "$LG_BIN/lgctl" keygen "$1" --dir "$T/keys/agents" >/dev/null
}

# agent_sec NAME: the security options of lg-agent --name NAME (its own key, the controller's).
agent_sec() {
    agent_key "$1"
    echo --key "$T/keys/agents/$1.key" --controller-key "$T/keys/controller.pub"
}

# free_port [COUNT]: the first of COUNT (default 1) consecutive TCP ports that no socket of this
# machine uses (listening or connected, any address), from a random start in 20000..31999: below
# the kernel's ephemeral range (32768 on), and different for tests that ctest runs side by side.
free_port() {
    local n=${1:-1} p i used
    used=" $(ss -Htan 2>/dev/null | awk '{ n = split($4, a, ":"); printf "%s ", a[n] }') "
    p=$(( 20000 + (RANDOM * 32768 + RANDOM + $$) % 12000 ))
    for _ in $(seq 1 12000); do
        for ((i = 0; i < n; i++)); do
            [[ $used == *" $((p + i)) "* ]] && break
        done
        [ "$i" = "$n" ] && { echo "$p"; return 0; }
        p=$(( p + i + 1 > 31999 - n ? 20000 : p + i + 1 ))
    done
    fail "free_port: no $n free ports in 20000..31999"
}

q() { psql -qAt -v ON_ERROR_STOP=1 -c "$1"; }

# wait_line FILE REGEX SECONDS: until a line of FILE matches REGEX (1 when time runs out).
wait_line() {
    local i
    for i in $(seq 1 $(($3 * 10))); do
        grep -qE "$2" "$1" 2>/dev/null && return 0
        sleep 0.1
    done
    return 1
}

fail() { echo "FAIL: $*" >&2; exit 1; }

# alive PID...: those of the PIDs that are live processes (not zombies), one a line
alive() {
    local p
    for p in "$@"; do
        ps -o stat= -p "$p" 2>/dev/null | grep -qv '^Z' && echo "$p"
    done
    return 0
}
# wait_gone SECONDS PID...: until none of the PIDs is alive (1 when time runs out)
wait_gone() {
    local s=$1 i
    shift
    for i in $(seq 1 $((s * 10))); do
        [ -z "$(alive "$@")" ] && return 0
        sleep 0.1
    done
    [ -z "$(alive "$@")" ]
}

# ---- The controller and its agents: every test starts them through these two ----
# What starts them another way, and why:
#   it_systemd        the controller and the agent as the units' ExecStart= lines say (--config)
#   it_windows(_skew) lg-agent.exe under wine (wine.sh), to start_controller's controller
#   refused starts    run in the foreground, the test checks the exit and the message:
#                     it_db_spool (a second controller on a spool in use), it_security
#                     (plaintext off loopback), it_local_attacks (an attacker's work folder or key),
#                     it_sql_definer (a schema older than the controller's)
#   no controller     it_deb, it_install, it_unit_security, it_cli (packages, an installed tree's
#                     local mode, unit files, --help); lgctl run's local mode starts its own
# Agents that talk to tests/tools' hostile controller (evil) are start_agent's, with --no-wait.

# _lg_has OPTION ARGS...: whether OPTION (or OPTION=...) is among ARGS.
_lg_has() {
    local o=$1 a
    shift
    for a in "$@"; do [[ $a == "$o" || $a == "$o="* ]] && return 0; done
    return 1
}
# _lg_count REGEX FILE: how many lines of FILE match (0 without FILE).
_lg_count() {
    local n
    n=$(grep -cE "$1" "$2" 2>/dev/null) || true
    echo "${n:-0}"
}
# _lg_alive PID LOG WHAT: fail, with the last lines of LOG, if PID is gone.
_lg_alive() {
    kill -0 "$1" 2>/dev/null && return 0
    tail -n 20 "$2" >&2
    fail "$3 exited at start (log: $2)"
}

# start_controller [HELPER OPTIONS] [lg-controller OPTIONS]: an lg-controller in the background
# until it listens (its --ready-file names its endpoints; 30 s), its PID in CTL and CLEANUP_PIDS.
# It gets, unless the options give their own: --database $LG_DATABASE_URL, --agents
# ipc://$T/agents.sock, --control ipc://$T/ctl.sock (where submit_file and wait_campaign's
# campaigns go), lg_keys' --key, --agent-keys and --control-keys (none with --plaintext), and
# --ready-file. Helper options, first:
#   --log FILE   its output, appended (default $T/controller.log: a controller started again
#                goes on in its predecessor's log)
#   --tcp ADDR   agents at tcp://ADDR:PORT, PORT from free_port (CTL_PORT)
#   --wrap CMD   run under CMD, split at spaces ("taskset -c 1", "ip netns exec NS")
#   --no-wait    return once started
# Sets CTL and CTL_AGENTS (the agents' endpoint: start_agent's default).
# runq_ms PID: how long the process's main thread (the controller's loop) has waited for a CPU,
# in ms (/proc/PID/task/PID/schedstat: its second field, ns on a runqueue)
runq_ms() { awk '{ printf "%d", $2 / 1e6 }' "/proc/$1/task/$1/schedstat" 2>/dev/null || echo 0; }
# rss_kb PID: the process's resident memory, in KiB
rss_kb() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status"; }
# loop_late_ms LOG [FROM_LINE]: the longest tick the controller logged as late ("the event loop
# was busy for N ms") in LOG, from line FROM_LINE on (1 when not given); 0 when none was.
loop_late_ms() {
    tail -n "+${2:-1}" "$1" | { grep -o 'the event loop was busy for [0-9]* ms' || true; } |
        awk '{ if ($7 > m) m = $7 } END { print m + 0 }'
}
start_controller() {
    local log="$T/controller.log" wrap=() wait=1 ready
    CTL_PORT=""
    while [ $# -gt 0 ]; do
        case $1 in
        --log) log=$2; shift 2 ;;
        --tcp) CTL_PORT=$(free_port); CTL_AGENTS="tcp://$2:$CTL_PORT"; shift 2 ;;
        --wrap) read -ra wrap <<<"$2"; shift 2 ;;
        --no-wait) wait=0; shift ;;
        *) break ;;
        esac
    done
    local def=()
    _lg_has --database "$@" || def+=(--database "$LG_DATABASE_URL")
    if ! _lg_has --agents "$@"; then
        [ -n "$CTL_PORT" ] || CTL_AGENTS="ipc://$T/agents.sock"
        def+=(--agents "$CTL_AGENTS")
    fi
    _lg_has --control "$@" || def+=(--control "ipc://$T/ctl.sock")
    _lg_has --plaintext "$@" || _lg_has --key "$@" || def+=("${CTRL_SEC[@]}")
    ready="${log%.log}.ready"
    _lg_has --ready-file "$@" || { rm -f "$ready"; def+=(--ready-file "$ready"); }
    "${wrap[@]}" "$LG_BIN/lg-controller" "${def[@]}" "$@" >>"$log" 2>&1 &
    CTL=$!
    CLEANUP_PIDS+=("$CTL")
    local a prev=""
    for a in "$@"; do # the agents' endpoint the options gave
        [ "$prev" = --agents ] && CTL_AGENTS=$a
        case $a in --agents=*) CTL_AGENTS=${a#*=} ;; esac
        prev=$a
    done
    echo "lg-controller (pid $CTL): agents at $CTL_AGENTS, log $log"
    [ $wait = 1 ] || return 0
    for _ in $(seq 1 300); do
        grep -q "^ctl=" "$ready" 2>/dev/null && return 0
        _lg_alive "$CTL" "$log" lg-controller
        sleep 0.1
    done
    tail -n 20 "$log" >&2
    fail "lg-controller did not start within 30 s (log: $log)"
}

# start_agent NAME [HELPER OPTIONS] [lg-agent OPTIONS]: lg-agent --name NAME in the background
# until its log says it registered (30 s), its PID in AGENT, AGENT_PIDS[NAME] and CLEANUP_PIDS.
# It gets, unless the options give their own: NAME's key pair of the allow-list and the
# controller's key (agent_sec; none with --plaintext), --controller $CTL_AGENTS and --work-dir
# $T/NAME. Variables set on the call (PGHOST=/x start_agent h1) are the agent's environment.
# Helper options, first: --log FILE (default $T/NAME.log, appended), --wrap CMD, --no-wait (as
# start_controller's), --no-work-dir (the agent's own
# default folder).
declare -A AGENT_PIDS=()
start_agent() {
    local name=$1 log="$T/$1.log" wrap=() wait=1 workdir=1 n0
    shift
    while [ $# -gt 0 ]; do
        case $1 in
        --log) log=$2; shift 2 ;;
        --wrap) read -ra wrap <<<"$2"; shift 2 ;;
        --no-wait) wait=0; shift ;;
        --no-work-dir) workdir=0; shift ;;
        *) break ;;
        esac
    done
    local def=() sec
    if ! _lg_has --plaintext "$@" && ! _lg_has --key "$@"; then
        read -ra sec <<<"$(agent_sec "$name")"
        def+=("${sec[@]}")
    fi
    _lg_has --controller "$@" || def+=(--controller "$CTL_AGENTS")
    _lg_has --work-dir "$@" || [ $workdir = 0 ] || def+=(--work-dir "$T/$name")
    n0=$(_lg_count "registered with the controller" "$log")
    "${wrap[@]}" "$LG_BIN/lg-agent" "${def[@]}" --name "$name" "$@" >>"$log" 2>&1 &
    AGENT=$!
    # shellcheck disable=SC2034 # read by the tests (it_agent_loss)
    AGENT_PIDS[$name]=$AGENT
    CLEANUP_PIDS+=("$AGENT")
    echo "lg-agent $name (pid $AGENT): log $log"
    [ $wait = 1 ] || return 0
    for _ in $(seq 1 300); do
        [ "$(_lg_count "registered with the controller" "$log")" -gt "$n0" ] && return 0
        _lg_alive "$AGENT" "$log" "lg-agent $name"
        sleep 0.1
    done
    tail -n 20 "$log" >&2
    fail "lg-agent $name did not register within 30 s (log: $log)"
}

# Campaigns through a controller whose control socket is ipc://$T/ctl.sock.
# submit_file NAME: submit $T/NAME.yaml (what lgctl said is in $T/submit-NAME.log).
submit_file() {
    "$LG_BIN/lgctl" --controller "ipc://$T/ctl.sock" submit "$T/$1.yaml" >"$T/submit-$1.log" 2>&1 ||
        fail "submit $1: $(cat "$T/submit-$1.log")"
}
# wait_campaign NAME: until the newest campaign NAME has ended (done, failed or aborted), at most
# 120 s; the caller checks which.
wait_campaign() {
    for _ in $(seq 1 1200); do
        case $(q "SELECT state FROM lg.campaign WHERE name = '$1' ORDER BY campaign_id DESC
                  LIMIT 1") in done | failed | aborted) break ;; esac
        sleep 0.1
    done
}
# wait_run RUN_ID: until the run is no longer pending or running (an aborted campaign ends at
# once, its run once the agents' outcome is in), at most 60 s.
# wait_reports WHERE N [SECONDS]: prints the first run matching WHERE (SQL on lg.run r) once N of
# its application reports are stored (lg.app_sample); fails naming it after SECONDS (60).
wait_reports() {
    local run="" _i
    for _i in $(seq 1 $((${3:-60} * 10))); do
        run=$(q "SELECT min(run_id) FROM lg.run r WHERE $1")
        if [ -n "$run" ] &&
            [ "$(q "SELECT count(*) FROM lg.app_sample WHERE run_id = $run")" -ge "$2" ]; then
            echo "$run"
            return 0
        fi
        sleep 0.1
    done
    fail "no $2 reports stored of run ${run:-(none)} ($1) in ${3:-60} s"
}
wait_run() {
    for _ in $(seq 1 600); do
        case $(q "SELECT state FROM lg.run WHERE run_id = $1") in pending | running) ;; *) break ;; esac
        sleep 0.1
    done
}

# fill_datacheck_spec NAME TARGET: $T/NAME.yaml, the campaign check_fill_datacheck expects: a
# 128 MiB fill and a 1 s sequential write, with compress_ratio 2 and dedup_ratio 2 in 128 KiB
# records.
fill_datacheck_spec() {
    cat >"$T/$1.yaml" <<SPEC
name: $1
target: "$2"
size: 128M
profiles: [{name: seq-w, bs: 128k, pattern: sequential, read: 0}]
threads: 1
qd: 4
runtime: 1s
precondition: fill
data: {compress_ratio: 2.0, dedup_ratio: 2.0, dedup_unit: 128k}
SPEC
}

# check_fill_datacheck NAME BACKING: after a campaign of a fill and a measured run written with
# compress_ratio 2 and dedup_ratio 2 in 128 KiB records, the ratios the agent stored for the fill
# are in it_datareduce's bounds, and those of the measured run are exactly what datacheck finds in
# BACKING (the bytes the target holds: a file on the share, a LUN's backing file).
check_fill_datacheck() {
    local name=$1 backing=$2 az al ad au aerr mz md merr out k want got
    _dc_of() { # PHASE: "zstd lz4 dedup unit error" of the run of that phase
        q "SELECT datacheck->>'zstd', datacheck->>'lz4', datacheck->>'dedup',
            datacheck->>'unit', coalesce(datacheck->>'error', '-') FROM lg.run_agent
            JOIN lg.run r USING (run_id) WHERE r.phase = '$1'" | tr '|' ' '
    }
    _dc_in() { # WHAT VALUE LO HI
        awk -v v="$2" -v lo="$3" -v hi="$4" 'BEGIN { exit !(v >= lo && v <= hi) }' ||
            fail "$name: $1 = $2, want $3 .. $4"
        echo "ok: $name: $1 = $2 (in $3 .. $4)"
    }
    read -r az al ad au aerr <<<"$(_dc_of fill)"
    [ "$aerr" = - ] || fail "$name: the agent's check failed: $(q "SELECT datacheck FROM lg.run_agent")"
    expect_eq "$name: the agent's check unit" "$au" 131072
    _dc_in "fill's zstd" "$az" 1.70 2.30
    _dc_in "fill's lz4" "$al" 1.70 2.30
    _dc_in "fill's dedup" "$ad" 1.75 2.30 # as in it_datareduce: fio's random duplicates
    read -r mz _ md _ merr <<<"$(_dc_of measure)"
    [ "$merr" = - ] && [ -n "$mz" ] || fail "$name: no check of the measured run: $(_dc_of measure)"
    out=$("$LG_BIN/datacheck" "$backing" 131072) || fail "$name: datacheck of $backing failed"
    for k in zstd dedup; do
        want=$(sed -n "s/.* $k=\([0-9.]*\).*/\1/p" <<<"$out")
        got=$([ $k = zstd ] && echo "$mz" || echo "$md")
        awk -v a="$got" -v b="$want" 'BEGIN { d = a - b; exit !(d < 0.0001 && d > -0.0001) }' ||
            fail "$name: the agent's $k $got, $backing's $want"
    done
    echo "ok: $name: the measured run's check (zstd $mz, dedup $md) = datacheck of $backing"
}

# chrome_shot FILE PNG [WxH]: headless Chromium renders FILE (an absolute path) into PNG, at WxH
# (default 820,560, a chart's size); the caller checks what came out.
chrome_shot() {
    local chrome
    chrome=$(command -v chromium || command -v chromium-browser || true)
    [ -n "$chrome" ] || fail "chromium is missing (deploy/install-deps.sh installs it)"
    mkdir -p "$(dirname "$2")"
    timeout 60 "$chrome" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
        --disable-background-networking --disable-component-update --disable-sync \
        --user-data-dir="$(mktemp -d "$T/chrome.XXXX")" --hide-scrollbars \
        --screenshot="$2" --window-size="${3:-820,560}" "file://$1" >"$T/chrome.log" 2>&1 || true
}

expect_eq() { # name got want
    [ "$2" = "$3" ] || fail "$1: got '$2', want '$3'"
    echo "ok: $1 = $3"
}

# check_merged RUN_ID DIRECTION: the merged result of a run equals what the test computes itself
# from the raw fio JSON archived for each agent of the run: counts and bytes add, IOPS and
# bandwidth add, mean and standard deviation pooled from (N, mean, stddev) of every job, max the
# max, and every percentile from the summed histograms the way fio computes them (the first
# bucket whose cumulative count reaches p/100 x N; at an exact tie fio's long double arithmetic
# may take the next bucket, which is accepted). Prints the failing checks; exits on failure.
# check_merged RUN_ID DIRECTION import: the run was imported (lgctl import fio-json), whose rule
# for IOPS and bandwidth is fio's for a group when one host's jobs ran for clearly different
# lengths (longest over shortest above 1%): the total over the longest runtime, not the sum of
# the jobs' rates; a live run's merge is always the sum of each fio's own.
check_merged() {
    local run=$1 d=$2 mode=${3:-live} out
    out=$(q "
WITH ra AS (SELECT fio_json::jsonb AS j, row_number() OVER () AS rk FROM lg.run_agent WHERE run_id = $run),
jobs AS (SELECT rk, coalesce(e->>'hostname', '') AS host, e AS job
         FROM ra, jsonb_array_elements(coalesce(j->'jobs', j->'client_stats')) e
         WHERE e->>'jobname' <> 'All clients'),
d AS (SELECT rk, host, job->'$d' AS x FROM jobs),
grp AS (SELECT sum((x->>'iops')::float8) AS iops, sum((x->>'bw_bytes')::float8) AS bw,
               sum((x->>'total_ios')::float8) AS ios, sum((x->>'io_bytes')::float8) AS bytes,
               max((x->>'runtime')::float8) AS rt_max, min((x->>'runtime')::float8) AS rt_min,
               count(*) AS n
        FROM d GROUP BY rk, host),
rate AS (SELECT sum(CASE WHEN long THEN ios * 1000.0 / rt_max ELSE iops END) AS iops,
                sum(CASE WHEN long THEN bytes * 1000.0 / rt_max ELSE bw END) AS bw
         FROM (SELECT *, '$mode' = 'import' AND n > 1 AND rt_max > 0
                         AND (rt_max - rt_min) * 100 > rt_max AS long FROM grp) g),
agg AS (SELECT sum((x->>'total_ios')::numeric) AS ios, sum((x->>'io_bytes')::numeric) AS bytes,
               sum((x->>'iops')::float8) AS iops, sum((x->>'bw_bytes')::float8) AS bw,
               sum((x->'lat_ns'->>'N')::float8) AS n,
               max((x->'lat_ns'->>'max')::numeric) AS mx,
               min((x->'lat_ns'->>'min')::numeric) FILTER (WHERE (x->'lat_ns'->>'N')::int > 0) AS mn,
               sum((x->'lat_ns'->>'mean')::float8 * (x->'lat_ns'->>'N')::float8) AS s,
               sum(power((x->'lat_ns'->>'stddev')::float8, 2) * ((x->'lat_ns'->>'N')::float8 - 1)
                   + (x->'lat_ns'->>'N')::float8 * power((x->'lat_ns'->>'mean')::float8, 2)) AS ss,
               count(*) AS njobs
        FROM d),
pooled AS (SELECT *, s / n AS mean, sqrt(greatest((ss - n * power(s / n, 2)) / (n - 1), 0)) AS sd
           FROM agg),
bins AS (SELECT b.key::numeric AS v, sum(b.value::numeric) AS c
         FROM d, jsonb_each_text(x->'lat_ns'->'bins') b GROUP BY 1),
cum AS (SELECT v, sum(c) OVER (ORDER BY v) AS cum, lead(v) OVER (ORDER BY v) AS nextv FROM bins),
tot AS (SELECT sum(c) AS t FROM bins),
m AS (SELECT * FROM lg.result WHERE run_id = $run AND agent_id IS NULL AND direction = '$d'),
pct AS (SELECT p.key,
               (p.value)::numeric AS lg_v,
               (SELECT v FROM cum, tot WHERE cum >= p.key::numeric / 100 * t ORDER BY v LIMIT 1) AS want
        FROM m, jsonb_each_text(m.percentiles) p),
pct_ok AS (SELECT key, lg_v, want,
                  lg_v = want OR EXISTS (SELECT 1 FROM cum, tot WHERE cum.v = pct.want
                      AND cum.cum = pct.key::numeric / 100 * t AND cum.nextv = pct.lg_v) AS ok
           FROM pct)
SELECT concat_ws(' ',
  CASE WHEN (SELECT count(*) FROM m) <> 1 THEN 'no-merged-row' END,
  CASE WHEN m.ios <> a.ios THEN 'ios:' || m.ios || '<>' || a.ios END,
  CASE WHEN m.bytes <> a.bytes THEN 'bytes' END,
  CASE WHEN abs(m.iops - r.iops) > 1e-9 * r.iops THEN 'iops:' || m.iops || '<>' || r.iops END,
  CASE WHEN abs(m.bw_bytes - r.bw) > 1e-9 * r.bw THEN 'bw' END,
  CASE WHEN m.lat_n <> a.n THEN 'lat_n' END,
  CASE WHEN m.lat_max <> a.mx THEN 'lat_max' END,
  CASE WHEN m.lat_min <> a.mn THEN 'lat_min' END,
  CASE WHEN abs(m.lat_mean - a.mean) > 1e-9 * a.mean THEN 'mean:' || m.lat_mean || '<>' || a.mean END,
  CASE WHEN abs(m.lat_stddev - a.sd) > 1e-9 * a.sd THEN 'stddev:' || m.lat_stddev || '<>' || a.sd END,
  (SELECT string_agg('p' || key || ':' || lg_v || '<>' || coalesce(want::text, 'null'), ' ')
     FROM pct_ok WHERE NOT ok),
  CASE WHEN (SELECT count(*) FROM pct_ok) <> 17 THEN 'percentile-count' END)
  || '|' || a.njobs || '|' || (SELECT count(*) FROM pct_ok)
FROM m, pooled a, rate r")
    local bad=${out%%|*} rest=${out#*|}
    [ -z "$bad" ] || fail "run $run $d: merged figures differ from the raw fio JSON: $bad"
    echo "ok: run $run $d: merged figures equal the pooled/summed raw JSON of ${rest%%|*} jobs (${rest#*|} percentiles)"
}

# procstat_start: this test's own reading of the CPUs, to check the load hosts' CPU figures
# against: every 50 ms a line "microseconds | cpu fields | cpu0 fields | cpu1 fields ..." of
# /proc/stat in $T/procstat.txt (no fork but sleep: it adds next to nothing to what it measures).
procstat_start() {
    (
        while :; do
            line=${EPOCHREALTIME/./}
            while read -r l; do
                case $l in cpu*) line+=" | ${l#* }" ;; *) break ;; esac
            done </proc/stat
            echo "$line"
            sleep 0.05
        done
    ) >"$T/procstat.txt" &
    CLEANUP_PIDS+=("$!")
}
# own_busy COLUMN FROM_US TO_US: the busy percent of COLUMN (all: the "cpu" line of all CPUs;
# N: cpuN) between the readings nearest FROM_US and TO_US (within 100 ms), as lg computes it
# (iowait is idle); "none" without such readings.
own_busy() {
    local col=$([ "$1" = all ] && echo 2 || echo $(($1 + 3)))
    awk -F' [|] ' -v c="$col" -v a="$2" -v b="$3" '
        function parse(s, t) { split(s, f, " "); t = 0; for (i = 1; i <= 8; i++) t += f[i];
                               tot = t; idl = f[4] + f[5] }
        function dist(x, y) { return x > y ? x - y : y - x }
        { if (!have0 || dist($1, a) < d0) { parse($c); t0 = tot; i0 = idl; d0 = dist($1, a); have0 = 1 }
          if (!have1 || dist($1, b) < d1) { parse($c); t1 = tot; i1 = idl; d1 = dist($1, b); have1 = 1 } }
        END { if (!have0 || !have1 || d0 > 100000 || d1 > 100000 || t1 <= t0) { print "none"; exit }
              printf "%.1f\n", 100 * ((t1 - t0) - (i1 - i0)) / (t1 - t0) }' "$T/procstat.txt"
}

# make_hosts N TAG OCTET: N "hosts" as network namespaces on a bridge in 10.OCTET.x.0/24 (x from
# this shell's PID), the root namespace at .1 and host i at .(i+1). Sets HOSTS_NET (e.g.
# 10.231.57), HOST_NS[i] and HOST_IF[i] (the host's interface, for cutting its link). All is
# deleted by the trap.
HOST_NS=()
HOST_IF=()
make_hosts() {
    local n=$1 tag=$2 octet=$3 br="${2}br$$" i
    HOSTS_NET="10.$octet.$(( ($$ % 200) + 20 ))"
    ip link add "$br" type bridge || fail "cannot create a bridge (network namespaces are needed)"
    CLEANUP_LINKS+=("$br")
    ip addr add "$HOSTS_NET.1/24" dev "$br"
    ip link set "$br" up
    for i in $(seq 1 "$n"); do
        HOST_NS[$i]="lg$tag$$-$i"
        HOST_IF[$i]="${tag}v$$-$i"
        ip netns add "${HOST_NS[$i]}"
        CLEANUP_NETNS+=("${HOST_NS[$i]}")
        ip link add "${HOST_IF[$i]}" type veth peer name "${tag}p$$-$i"
        CLEANUP_LINKS+=("${tag}p$$-$i")
        ip link set "${HOST_IF[$i]}" netns "${HOST_NS[$i]}"
        ip -n "${HOST_NS[$i]}" addr add "$HOSTS_NET.$((i + 1))/24" dev "${HOST_IF[$i]}"
        ip -n "${HOST_NS[$i]}" link set "${HOST_IF[$i]}" up
        ip -n "${HOST_NS[$i]}" link set lo up
        ip link set "${tag}p$$-$i" master "$br"
        ip link set "${tag}p$$-$i" up
    done
}

# installed_campaign NAME: with lgctl and lg-export from PATH (an installed tree), a one-run
# local-mode campaign NAME in $T/d (its run folder kept), its report checked, and its site from
# lg-export --data-dir in $T/site with the default queries found.
installed_campaign() {
    mkdir -p "$T/target"
    cat >"$T/spec.yaml" <<SPEC
name: $1
sut:
  labels: {build: installed, media: file}
target: $T/target/data.bin
size: 16M
profiles: [{name: 4k-rand, sweep: none}]
threads: 1
qd: 2
ramp: 0s
runtime: 1s
precondition: none
SPEC
    LG_KEEP_RUN_DIR=1 lgctl run "$T/spec.yaml" --data-dir "$T/d" --quiet >"$T/report.txt" 2>"$T/run.err" ||
        { cat "$T/run.err"; fail "lgctl run from $(command -v lgctl)"; }
    grep -q "\"$1\": done" "$T/report.txt" || { cat "$T/report.txt"; fail "no report of $1"; }
    lg-export --data-dir "$T/d" --out "$T/site" --campaign "$1" >"$T/export.txt" 2>"$T/export.err" ||
        { cat "$T/export.err"; fail "lg-export from $(command -v lg-export)"; }
    grep -q "01_4k_rand_iops.svg" "$T/export.txt" || fail "$(command -v lg-export) found no queries"
}
