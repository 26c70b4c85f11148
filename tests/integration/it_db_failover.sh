#!/usr/bin/env bash
# it_db_failover: a lab's database on a primary and a streaming standby (issue 43 part 4), both
# started here: the standby made with pg_basebackup -R, replication synchronous (a sample the
# controller acknowledged is on both). The controller is given both hosts with
# target_session_attrs=read-write. Four simulated agents (scale_agents) send 20 samples a second.
#  1. While run 2 goes on, lgctl status, report and compare and lg-export read from the standby
#     (target_session_attrs=prefer-standby: its log shows their sessions) and answer.
#  2. The primary is killed (immediate stop) in the middle of run 2 and the standby promoted 3 s
#     later: the campaign goes on on the new primary, and every sample sent is stored exactly
#     once, the three runs done with their merged results.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
pg_start
SB="$T/sb"
trap 'rc=$?; set +e; [ -f "$SB/data/postmaster.pid" ] &&
      kill -INT "$(head -n 1 "$SB/data/postmaster.pid")"; (exit $rc); cleanup' EXIT
lg_keys
"$LG_BIN/lgctl" db migrate >/dev/null
install -d -m 700 "$SB"
chown postgres:postgres "$SB"
as_pg "$PG_BIN/pg_basebackup" -h "$PG_DIR" -p 5432 -U postgres -D "$SB/data" -R -X stream -c fast \
    >"$T/basebackup.log" 2>&1 || fail "pg_basebackup: $(tail -n 3 "$T/basebackup.log")"
as_pg "$PG_BIN/pg_ctl" -D "$SB/data" -l "$SB/server.log" -w -o "-c listen_addresses='' \
    -c unix_socket_directories='$SB' -p 5433 -c log_connections=on \
    -c primary_conninfo='host=$PG_DIR port=5432 user=postgres application_name=sb'" \
    start >/dev/null || fail "the standby did not start: $(tail -n 5 "$SB/server.log")"
q "ALTER SYSTEM SET synchronous_standby_names = 'sb'" >/dev/null
q "SELECT pg_reload_conf()" >/dev/null
for _ in $(seq 1 100); do
    [ "$(q "SELECT sync_state FROM pg_stat_replication WHERE application_name = 'sb'")" = sync ] && break
    sleep 0.1
done
expect_eq "the standby's replication" \
    "$(q "SELECT sync_state FROM pg_stat_replication WHERE application_name = 'sb'")" sync
BOTH="host=$PG_DIR,$SB port=5432,5433 user=postgres dbname=lg"
start_controller --database "$BOTH target_session_attrs=read-write"

AGENTS=4 RATE=20 RUNTIME=10
"$LG_BIN/scale_agents" --controller "ipc://$T/agents.sock" --agents "$AGENTS" --prefix fo \
    --rate "$RATE" --bins 50 --timeout 600 >"$T/sim-out.log" 2>"$T/sim.log" &
SIM=$!
CLEANUP_PIDS+=("$SIM")
wait_line "$T/sim-out.log" "^scale_agents: $AGENTS agents registered" 60 || fail "the agents did not register"
cat >"$T/spec.yaml" <<SPEC
name: failover
configs:
  - labels: {build: it, media: "null", compression: lz4}
    target: "null"
between_configs: none
profiles:
  - {name: one, bs: 4k, pattern: random, read: 100, sweep: none}
  - {name: two, bs: 8k, pattern: random, read: 100, sweep: none}
  - {name: three, bs: 16k, pattern: random, read: 100, sweep: none}
threads: 1
qd: 1
ramp: 0s
runtime: ${RUNTIME}s
precondition: none
SPEC
"$LG_BIN/lgctl" --controller "ipc://$T/ctl.sock" submit "$T/spec.yaml" >/dev/null
wait_line "$T/sim-out.log" "^scale_agents: run 2 started" 120 || fail "run 2 did not start"

# 1. the readers on the standby
READ="$BOTH target_session_attrs=prefer-standby"
n0=$(grep -c "connection authorized: user=postgres database=lg application_name=lgctl" "$SB/server.log" || true)
LG_DATABASE_URL="$READ" "$LG_BIN/lgctl" status failover >"$T/status.out" 2>&1 ||
    [ $? = 1 ] || fail "lgctl status on the standby: $(cat "$T/status.out")"
LG_DATABASE_URL="$READ" "$LG_BIN/lgctl" report --campaign failover >"$T/report.out" 2>&1 ||
    fail "lgctl report on the standby: $(tail -n 5 "$T/report.out")"
LG_DATABASE_URL="$READ" "$LG_BIN/lgctl" compare --by compression --metric iops >"$T/compare.out" 2>&1 ||
    [ $? = 1 ] || fail "lgctl compare on the standby: $(tail -n 5 "$T/compare.out")"
"$LG_BIN/lg-export" --db "$READ" --out "$T/site" --campaign failover >"$T/export.out" 2>&1 ||
    fail "lg-export on the standby: $(tail -n 5 "$T/export.out")"
[ -f "$T/site/index.html" ] || fail "lg-export wrote no index.html"
n1=$(grep -c "connection authorized: user=postgres database=lg application_name=lgctl" "$SB/server.log" || true)
[ "$n1" -ge $((n0 + 3)) ] || fail "lgctl's sessions did not go to the standby ($((n1 - n0)) there)"
grep -q "connection authorized: user=postgres database=lg application_name=lg-export" "$SB/server.log" ||
    fail "lg-export's session did not go to the standby"
echo "ok: status, report, compare and lg-export read from the standby ($((n1 - n0)) lgctl sessions there)"

# 2. the primary killed mid-run, the standby promoted
for _ in $(seq 1 100); do
    [ "$(q "SELECT count(*) FROM lg.sample WHERE run_id = 2")" -ge $((AGENTS * RATE * 4)) ] && break
    sleep 0.1
done
stored=$(q "SELECT count(*) FROM lg.sample WHERE run_id = 2")
as_pg "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -m immediate -w stop >/dev/null
echo "primary killed mid-run ($stored samples of run 2 stored)"
sleep 3
as_pg "$PG_BIN/pg_ctl" -D "$SB/data" -w promote >/dev/null || fail "the standby was not promoted"
echo "standby promoted"
export PGHOST="$SB" PGPORT=5433
wait_line "$T/sim-out.log" "^scale_agents: run 3 done" 240 ||
    fail "the runs' samples and results were not all acknowledged: $(tail -n 5 "$T/controller.log")"
for run in 1 2 3; do
    line=$(grep -E "^scale_agents: run $run done" "$T/sim-out.log")
    sent=$(awk '{ print $7 }' <<<"$line")
    expect_eq "run $run: samples sent" "$sent" $((AGENTS * RATE * RUNTIME))
    expect_eq "run $run: samples stored once, no gap" "$(q "SELECT count(*) || ' ' || count(DISTINCT (agent_id, seq))
        || ' ' || bool_and(n = $((RATE * RUNTIME)) AND m = n) FROM (SELECT agent_id, seq, count(*) OVER (PARTITION BY agent_id) AS n,
        max(seq) OVER (PARTITION BY agent_id) AS m FROM lg.sample WHERE run_id = $run) s")" "$sent $sent true"
    for _ in $(seq 1 300); do
        [ "$(q "SELECT state FROM lg.run WHERE run_id = $run")" = done ] && break
        sleep 0.1
    done
    expect_eq "run $run: state" "$(q "SELECT state FROM lg.run WHERE run_id = $run")" done
    expect_eq "run $run: merged ios = sum of the samples" \
        "$(q "SELECT (SELECT ios FROM lg.result WHERE run_id = $run AND agent_id IS NULL)
                   = (SELECT sum(ios) FROM lg.sample WHERE run_id = $run)")" t
done
for _ in $(seq 1 100); do
    [ "$(q "SELECT state FROM lg.campaign WHERE name = 'failover'")" = done ] && break
    sleep 0.1
done
expect_eq "campaign state" "$(q "SELECT state FROM lg.campaign WHERE name = 'failover'")" done
grep -E "unreachable|is back|takes samples" "$T/controller.log" | sed 's/^/  /' | head -n 6
echo "PASS"
