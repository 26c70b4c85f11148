#!/usr/bin/env bash
# it_db_outage: PostgreSQL goes away in the middle of a campaign and comes back. The controller
# says so, keeps what it received, reconnects; agents keep what was not acknowledged and send it
# again. Every run completes once, with no sample lost or doubled.
. "$(dirname "$0")/lib.sh"
pg_start
lg_keys a1
"$LG_BIN/lgctl" db migrate >/dev/null
start_controller
start_agent a1
cat >"$T/spec.yaml" <<'SPEC'
name: dbdown
target: "null"
profiles: [{name: r, bs: 4k, pattern: random, read: 100, sweep: [1T1Q, 1T2Q, 1T4Q]}]
runtime: 4s
precondition: none
SPEC
"$LG_BIN/lgctl" --controller "ipc://$T/ctl.sock" submit "$T/spec.yaml" >/dev/null ||
    fail "submit failed"
for _ in $(seq 1 200); do
    [ "$(q "SELECT count(*) FROM lg.sample s JOIN lg.run r USING (run_id) WHERE r.ordinal = 2")" -ge 1 ] && break
    sleep 0.1
done
as_pg "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -m fast -w stop >/dev/null
echo "database stopped during run 2"
sleep 6
as_pg "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -l "$PG_DIR/server2.log" -w \
    -o "-c listen_addresses='' -c unix_socket_directories='$PG_DIR' -p 5432" start >/dev/null
echo "database started again"
for _ in $(seq 1 300); do
    [ "$(q "SELECT state FROM lg.campaign")" = done ] && break
    sleep 0.2
done
expect_eq "runs" "$(q "SELECT string_agg(state, ' ' ORDER BY ordinal) FROM lg.run")" "done done done"
expect_eq "runs with a sample gap" "$(q "SELECT count(*) FROM (SELECT run_id, max(seq) m,
    count(*) n FROM lg.sample GROUP BY 1) s WHERE m <> n")" 0
expect_eq "runs whose samples do not add up" "$(q "
  SELECT count(*) FROM lg.result x WHERE x.agent_id IS NOT NULL
    AND x.ios <> (SELECT sum(s.ios) FROM lg.sample s WHERE s.run_id = x.run_id
                  AND s.agent_id = x.agent_id AND s.direction = x.direction)")" 0
expect_eq "results stored once" "$(q "SELECT count(*) FROM lg.result")" 6
grep -q "could not store .* samples" "$T/controller.log" || fail "no error about the outage"
grep -q "the database is back after" "$T/controller.log" || fail "no reconnection logged"
grep "error" "$T/controller.log" | head -n 3

# PostgreSQL away across a run's end, longer than the run's deadline (ramp + runtime + 60 s):
# the run ends "done" once its samples and result are stored, and is in lg.v_result; meanwhile
# lgctl status says the database is away, not that the campaign does not exist.
cat >"$T/spec2.yaml" <<'SPEC'
name: dbdown-long
target: "null"
profiles: [{name: r, bs: 4k, pattern: random, read: 100, sweep: [1T1Q]}]
runtime: 4s
precondition: none
SPEC
"$LG_BIN/lgctl" --controller "ipc://$T/ctl.sock" submit "$T/spec2.yaml" >/dev/null ||
    fail "submit dbdown-long failed"
for _ in $(seq 1 200); do
    [ "$(q "SELECT count(*) FROM lg.sample s JOIN lg.run r USING (run_id)
            JOIN lg.campaign c USING (campaign_id) WHERE c.name = 'dbdown-long'")" -ge 1 ] && break
    sleep 0.1
done
as_pg "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -m fast -w stop >/dev/null
echo "database stopped for 70 s, across the end of the run"
sleep 3
set +e
"$LG_BIN/lgctl" --controller "ipc://$T/ctl.sock" status dbdown-long >"$T/status.out" 2>&1
set -e
grep -q "the database is unreachable" "$T/status.out" ||
    { cat "$T/status.out"; fail "lgctl status during the outage"; }
echo "ok: during the outage: $(head -n 1 "$T/status.out")"
sleep 67
as_pg "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -l "$PG_DIR/server3.log" -w \
    -o "-c listen_addresses='' -c unix_socket_directories='$PG_DIR' -p 5432" start >/dev/null
for _ in $(seq 1 300); do
    st=$(q "SELECT state FROM lg.campaign WHERE name = 'dbdown-long'")
    [ "$st" = done ] || [ "$st" = failed ] && break
    sleep 0.2
done
expect_eq "dbdown-long: campaign" "$st" done
expect_eq "dbdown-long: run" "$(q "SELECT r.state FROM lg.run r JOIN lg.campaign c USING (campaign_id)
    WHERE c.name = 'dbdown-long'")" done
expect_eq "dbdown-long: in lg.v_result" "$(q "SELECT count(*) FROM lg.v_result WHERE campaign = 'dbdown-long'")" 1
expect_eq "agents taken for lost" "$(grep -c "is lost" "$T/controller.log" || true)" 0
grep -q "the database is back after" "$T/controller.log" || fail "the controller did not say the database was back"
echo "ok: $(grep -m1 "the database is back after 6" "$T/controller.log" || grep -m1 "the database is back" "$T/controller.log")"
echo "PASS"
