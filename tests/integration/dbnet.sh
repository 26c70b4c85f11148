# dbnet.sh: PostgreSQL on a host of its own (a network namespace on a veth link) for the tests of
# the controller's database connection under network faults (it_db_partition, it_db_halfopen),
# with the controller, two agents and a probe agent outside it. Sourced after lib.sh.

# dbnet_setup TAG OCTET: the cluster of pg_start, migrated, then started again inside a namespace
# of its own at $DB_ADDR (TCP, trusting that /24), its socket folder kept for the test's own psql
# (a socket's path is reachable from every namespace, so q works through a partition). Sets
# DB_NS, DB_IF (the server's side of the link: down is a partition), DB_ADDR and DB_URL.
dbnet_setup() {
    make_hosts 1 "$1" "$2"
    DB_NS=${HOST_NS[1]} DB_IF=${HOST_IF[1]} DB_ADDR="$HOSTS_NET.2"
    pg_start
    "$LG_BIN/lgctl" db migrate >/dev/null
    as_pg "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -m fast -w stop >/dev/null
    echo "host all all $HOSTS_NET.0/24 trust" >>"$PG_DIR/data/pg_hba.conf"
    db_pg_ctl start
    DB_URL="host=$DB_ADDR port=5432 user=postgres dbname=lg"
    psql "$DB_URL" -qAt -c "SELECT 1" >/dev/null || fail "PostgreSQL is not reachable at $DB_ADDR"
}

# db_pg_ctl ARGS...: pg_ctl of the cluster inside its namespace (start, restart -m immediate ...)
db_pg_ctl() {
    ip netns exec "$DB_NS" runuser -u postgres -- "$PG_BIN/pg_ctl" -D "$PG_DIR/data" \
        -l "$PG_DIR/server.log" -w \
        -o "-c listen_addresses='$DB_ADDR' -c unix_socket_directories='$PG_DIR' -p 5432" "$@" \
        >/dev/null
}

link_down() { ip -n "$DB_NS" link set "$DB_IF" down; }
link_up() { ip -n "$DB_NS" link set "$DB_IF" up; }

# start_agents: lg-agents a1 and a2, and a probe (scale_agents: one agent that takes no run,
# wakes for every message and sends a clock Ping every 20 ms, as an agent on its own host sees
# the controller); until all three are registered.
start_agents() {
    local a
    for a in a1 a2; do start_agent $a; done
    "$LG_BIN/scale_agents" --controller "ipc://$T/agents.sock" --agents 1 --prefix probe \
        --ping-ms 20 --loop-ms 0 --timeout 600 >"$T/probe.out" 2>"$T/probe.log" &
    PROBE=$!
    CLEANUP_PIDS+=("$PROBE")
    wait_line "$T/probe.out" "^scale_agents: 1 agents registered" 30 || fail "the probe did not register"
    for _ in $(seq 1 100); do
        [ "$(q "SELECT count(*) FROM lg.agent")" = 3 ] && return 0
        sleep 0.1
    done
    fail "the agents did not register"
}

# probe_report: the probe's view of the controller since the last report:
# "pongs p99_ms max_ms silences".
RUNQ_PREV=0
RUNQ_CUR=0
probe_report() {
    local before after
    RUNQ_PREV=$RUNQ_CUR
    RUNQ_CUR=$(runq_ms "$CTL")
    before=$(grep -c "since the last report" "$T/probe.out" || true)
    kill -USR1 "$PROBE"
    for _ in $(seq 1 50); do
        after=$(grep -c "since the last report" "$T/probe.out" || true)
        [ "$after" -gt "$before" ] && break
        sleep 0.1
    done
    grep "since the last report" "$T/probe.out" | tail -n 1 | sed -E 's/.*: ([0-9]+) Pongs, .* p99 ([0-9]+) ms, max ([0-9.]+) ms; .* ([0-9]+) times an agent heard nothing.*/\1 \2 \3 \4/'
}

# check_pongs WHAT BASE_P99 "pongs p99 max silences": the loop answered the probe's Pings during
# the fault: p99 at most 50 ms (issue 32's bar), or 5x the p99 before it on a machine so busy
# that its own baseline is past 10 ms; no silence of 3 heartbeats. A p99 over the bar fails when
# the controller's loop was busy that long (it logs each tick later than 40 ms) for more than its
# wait for a CPU over the report's window explains (a loop that waited on the database sleeps,
# it does not queue for a CPU). Otherwise the Pongs waited on the host: the probe, zmq's threads
# or the loop kept from a CPU by the other tests beside this one on 2 CPUs (CI saw p99 482 ms with
# the loop late 121 ms at most); that is told, not failed.
check_pongs() {
    local what=$1 base=$2 pongs p99 max sil lim busy runq
    read -r pongs p99 max sil <<<"$3"
    echo "Pong round trips $what: $pongs Pongs, p99 $p99 ms, max $max ms (p99 before: $base ms)"
    [ "${pongs:-0}" -gt 0 ] || fail "no Pong $what"
    expect_eq "times the probe heard nothing for 3 heartbeats $what" "$sil" 0
    lim=$(awk -v b="$base" 'BEGIN { lim = 5 * b; if (lim < 50) lim = 50; print lim }')
    awk -v p="$p99" -v l="$lim" 'BEGIN { exit !(p <= l) }' && return 0
    busy=$(loop_late_ms "$T/controller.log")
    runq=$((RUNQ_CUR - RUNQ_PREV))
    awk -v b="$busy" -v l="$lim" -v q="$runq" 'BEGIN { exit !(b < l || b <= q) }' ||
        fail "Pong p99 $what is $p99 ms (before: $base ms): the loop waited ($busy ms at most;" \
            "$runq ms for a CPU in all over the window)"
    echo "note: Pong p99 $what is $p99 ms, over $lim ms: the controller's loop was late $busy ms" \
        "at most and waited $runq ms for a CPU over the window: the host was busy"
}


# check_status NAME WHAT: lgctl status NAME through the controller answers within 5 s naming the
# database as the problem.
check_status() {
    local ts took
    ts=$(date +%s%N)
    "$LG_BIN/lgctl" --controller "ipc://$T/ctl.sock" status "$1" >"$T/status.out" 2>&1 || true
    shift
    took=$(( ($(date +%s%N) - ts) / 1000000 ))
    sed 's/^/  status: /' "$T/status.out" | head -n 8
    [ "$took" -lt 5000 ] || fail "lgctl status took ${took} ms $1"
    grep -q "the database is unreachable" "$T/status.out" ||
        fail "lgctl status $1 did not name the database: $(cat "$T/status.out")"
    echo "ok: lgctl status $1 answered in ${took} ms, naming the database"
}

# check_campaign NAME: its newest run ended "done" with its merged and per-agent results, every
# sample of its agents stored once with no gap, adding up to their results.
check_campaign() {
    local run
    for _ in $(seq 1 600); do
        case $(q "SELECT state FROM lg.campaign WHERE name = '$1'") in done | failed | aborted) break ;; esac
        sleep 0.1
    done
    run=$(q "SELECT max(run_id) FROM lg.run JOIN lg.campaign USING (campaign_id) WHERE name = '$1'")
    q "SELECT run_id, state, coalesce(error, '') FROM lg.run WHERE run_id = $run" | sed 's/^/  run: /'
    expect_eq "$1: run $run" "$(q "SELECT state FROM lg.run WHERE run_id = $run")" done
    expect_eq "$1: merged result" "$(q "SELECT count(*) FROM lg.result WHERE run_id = $run AND agent_id IS NULL")" 1
    expect_eq "$1: per-agent results" "$(q "SELECT count(*) FROM lg.result WHERE run_id = $run AND agent_id IS NOT NULL")" 2
    expect_eq "$1: agents with a sample gap" "$(q "SELECT count(*) FROM (SELECT agent_id, max(seq) m,
        count(*) n FROM lg.sample WHERE run_id = $run GROUP BY 1) s WHERE m <> n")" 0
    expect_eq "$1: agents whose samples do not add up to their result" "$(q "
      SELECT count(*) FROM lg.result x WHERE x.run_id = $run AND x.agent_id IS NOT NULL
        AND x.ios <> (SELECT sum(s.ios) FROM lg.sample s WHERE s.run_id = x.run_id
                      AND s.agent_id = x.agent_id AND s.direction = x.direction)")" 0
}

# spec NAME RUNTIME_S: $T/NAME.yaml, a run of a1 and a2 only (not the probe) on the null engine.
spec() {
    cat >"$T/$1.yaml" <<SPEC
name: $1
target: "null"
agents: [a1, a2]
profiles: [{name: r, bs: 4k, pattern: random, read: 100, rate_iops: 500, sweep: [1T1Q]}]
runtime: ${2}s
ramp: 0s
precondition: none
SPEC
}

# wait_samples NAME N: until run of NAME has samples of both agents, N each at least (20 s).
wait_samples() {
    for _ in $(seq 1 200); do
        [ "$(q "SELECT count(*) FROM (SELECT agent_id FROM lg.sample s JOIN lg.run USING (run_id)
               JOIN lg.campaign c USING (campaign_id) WHERE c.name = '$1' GROUP BY 1
               HAVING count(*) >= $2) a")" = 2 ] && return 0
        sleep 0.1
    done
    fail "$1: no samples of both agents"
}
