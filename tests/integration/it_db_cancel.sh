#!/usr/bin/env bash
# it_db_cancel: a statement of the controller that waits on a lock past its deadline is cancelled
# on the server (issue 32). A backend waiting on a lock does not notice its client going, so
# shutting the connection alone would leave it in the lock's queue until the lock came (or the
# server's statement_timeout, a second past our deadline, ended it).
#   1. A session holds lg.sample (ACCESS EXCLUSIVE) for 14 s mid-run; the controller's COPY of
#      samples waits on it. With --db-timeout 3 the waiting backend is gone within 3.8 s of its
#      statement's start, while the lock is still held, and the server logs it as cancelled by
#      user request (PQcancel), not by statement_timeout.
#   2. The controller tries again with growing pauses (the gaps between the server's cancels grow),
#      says samples are stored again and the database is back, and
#      the run ends "done" with its merged result and every sample stored once, no gap.
. "$(dirname "$0")/lib.sh"
pg_start
lg_keys a1
"$LG_BIN/lgctl" db migrate >/dev/null
HOLD_S=14

start_controller --db-timeout 3
start_agent a1
cat >"$T/locked.yaml" <<'SPEC'
name: locked
target: "null"
profiles: [{name: r, bs: 4k, pattern: random, read: 100, rate_iops: 500, sweep: [1T1Q]}]
runtime: 8s
ramp: 0s
precondition: none
SPEC
submit_file locked
for _ in $(seq 1 200); do
    [ "$(q "SELECT count(*) FROM lg.sample")" -gt 0 ] && break
    sleep 0.1
done
[ "$(q "SELECT count(*) FROM lg.sample")" -gt 0 ] || fail "no samples stored"

# ---- 1. the COPY waits on the lock, past its deadline ----
psql -qAt -v ON_ERROR_STOP=1 -c "BEGIN; LOCK TABLE lg.sample IN ACCESS EXCLUSIVE MODE;
    SELECT pg_sleep($HOLD_S); COMMIT" >"$T/lock.out" 2>&1 &
LOCKER=$!
CLEANUP_PIDS+=("$LOCKER")
t_lock=$(date +%s%N)
waiting="application_name = 'lg-controller' AND wait_event_type = 'Lock'
         AND query LIKE 'COPY lg.sample%'"
pid=""
for _ in $(seq 1 50); do
    pid=$(q "SELECT pid FROM pg_stat_activity WHERE $waiting ORDER BY query_start LIMIT 1")
    [ -n "$pid" ] && break
    sleep 0.1
done
[ -n "$pid" ] || fail "no statement of the controller waited on the lock"
echo "backend $pid (the controller's COPY of samples) waits on the lock"
gone_after=""
for _ in $(seq 1 100); do
    # seconds since the statement started while it still waits; empty once it is gone
    age=$(q "SELECT round(extract(epoch FROM clock_timestamp() - query_start)::numeric, 2)
             FROM pg_stat_activity WHERE pid = $pid AND wait_event_type = 'Lock'")
    [ -z "$age" ] && break
    gone_after=$age
    sleep 0.05
done
[ -z "$age" ] || fail "backend $pid still waits on the lock after 5 s (last seen ${gone_after} s into its statement)"
held=$(( ($(date +%s%N) - t_lock) / 1000000 ))
kill -0 "$LOCKER" 2>/dev/null || fail "the lock was released before the backend went (${held} ms)"
echo "backend $pid stopped waiting after about ${gone_after} s (deadline 3 s), the lock held for ${held} ms so far"
awk -v a="$gone_after" 'BEGIN { exit !(a < 3.8) }' ||
    fail "backend $pid waited ${gone_after} s: not cancelled at the deadline (3 s)"
for _ in $(seq 1 20); do
    [ "$(q "SELECT count(*) FROM pg_stat_activity WHERE pid = $pid")" = 0 ] && break
    sleep 0.05
done
expect_eq "backend $pid in pg_stat_activity a second later" \
    "$(q "SELECT count(*) FROM pg_stat_activity WHERE pid = $pid")" 0
wait_line "$PG_DIR/server.log" "canceling statement due to user request" 5 ||
    fail "the server logged no cancel by user request: $(grep -i cancel "$PG_DIR/server.log" | tail -n 3)"
grep -m 1 "canceling statement due to user request" "$PG_DIR/server.log" | sed 's/^/  server: /'
if grep -q "canceling statement due to statement timeout" "$PG_DIR/server.log"; then
    fail "a statement was ended by the server's statement_timeout, not by the controller's cancel"
fi

# ---- 2. tried again with growing pauses; back once the lock is released ----
wait "$LOCKER" || true
for _ in $(seq 1 300); do
    st=$(q "SELECT state FROM lg.campaign")
    [ "$st" = done ] || [ "$st" = failed ] && break
    sleep 0.2
done
expect_eq "the run that waited on the lock" "$(q "SELECT state FROM lg.run")" done
expect_eq "its merged result" "$(q "SELECT count(*) FROM lg.result WHERE agent_id IS NULL")" 1
expect_eq "agents with a sample gap" "$(q "SELECT count(*) FROM (SELECT agent_id, max(seq) m,
    count(*) n FROM lg.sample GROUP BY 1) s WHERE m <> n")" 0
expect_eq "agents whose samples do not add up to their result" "$(q "
  SELECT count(*) FROM lg.result x WHERE x.agent_id IS NOT NULL
    AND x.ios <> (SELECT sum(s.ios) FROM lg.sample s WHERE s.run_id = x.run_id
                  AND s.agent_id = x.agent_id AND s.direction = x.direction)")" 0
# each try waited out its deadline and was cancelled: the pauses between tries grow (0.5, 1, 2 s),
# so the gaps between cancels do too (3 s + the pause; a try every tick would give 3.1 s each)
cancels=$(grep "canceling statement due to user request" "$PG_DIR/server.log" |
          awk '{ split($2, t, ":"); print t[1] * 3600 + t[2] * 60 + t[3] }')
echo "cancels at (s of the day): $(echo $cancels)"
read -r n grew <<<"$(awk 'NR > 1 { g = $1 - p; if (NR > 2 && g < last + 0.25) bad = 1; last = g }
                          { p = $1 } END { print NR, (NR >= 3 && !bad) ? "yes" : "no" }' <<<"$cancels")"
[ "$n" -ge 2 ] && [ "$n" -le 3 ] && { [ "$n" = 2 ] || [ "$grew" = yes ]; } ||
    fail "$n cancels in ${HOLD_S} s (gaps growing: $grew): the writer did not pause longer between tries"
grep -q "the database takes samples again" "$T/controller.log" ||
    fail "the controller did not say that samples are stored again"
grep "takes samples again\|database is back" "$T/controller.log" | sed 's/^/  /'
echo "PASS"
