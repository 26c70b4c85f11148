#!/usr/bin/env bash
# it_db_freeze: PostgreSQL frozen (SIGSTOP) in the middle of a run, across its end (issue 32).
# Before, a libpq call on a frozen server never returned: the controller said nothing, its run
# deadline ran on, and a run both agents had finished ended "failed" without a merged result.
#   1. Frozen $LG_FREEZE_S s (20 in the suite; the soak label runs it_db_freeze_90 with 90) across
#      the end of a run of two agents, the controller with a spool on disk: the controller's statement times out
#      (--db-timeout 10; 30 s by default), it says the database is unreachable (so run deadlines stop), and once the server
#      thaws the run ends "done" with its merged result; every sample stored once, no gap.
#   2. The controller's loop keeps its clock through the freeze: no tick 5 s late (a libpq call
#      on the loop would hold it 30 s; a busy machine delays a tick by a second at times).
#   3. SIGTERM during a freeze ends the controller within 5 s.
#   4. lgctl status through the controller answers during the freeze, naming the database as the
#      problem, with the run the controller knows from memory.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/dbnet.sh" # start_agents (a1, a2 and a Ping probe), probe_report, check_pongs
pg_start
lg_keys a1 a2
"$LG_BIN/lgctl" db migrate >/dev/null

start_controller --db-timeout 10 --spool-dir "$T/spool"
start_agents
cat >"$T/spec.yaml" <<'SPEC'
name: frozen
target: "null"
agents: [a1, a2]
profiles: [{name: r, bs: 4k, pattern: random, read: 100, rate_iops: 500, sweep: [1T1Q]}]
runtime: 6s
ramp: 0s
precondition: none
SPEC
"$LG_BIN/lgctl" --controller "ipc://$T/ctl.sock" submit "$T/spec.yaml" >/dev/null ||
    fail "submit failed"
for _ in $(seq 1 200); do
    [ "$(q "SELECT count(DISTINCT agent_id) FROM lg.sample")" = 2 ] && break
    sleep 0.1
done
[ "$(q "SELECT count(DISTINCT agent_id) FROM lg.sample")" = 2 ] || fail "no samples of both agents"

probe_report >/dev/null # the Pongs of the run's start are not the baseline's
sleep 2
read -r _ base _ _ <<<"$(probe_report)"
rss0=$(rss_kb "$CTL")

# ---- 1 and 2: frozen across the run's end ----
pg_freeze
echo "database frozen mid-run"
t0=$(date +%s)
sleep 6
# status through the controller answers at once, naming the database as the problem, with the
# run it knows from memory (its statement to the database has been waiting)
ts=$(date +%s%N)
"$LG_BIN/lgctl" --controller "ipc://$T/ctl.sock" status frozen >"$T/status.out" 2>&1 || true
took=$(( ($(date +%s%N) - ts) / 1000000 ))
cat "$T/status.out"
[ "$took" -lt 5000 ] || fail "lgctl status took ${took} ms with the database frozen"
grep -q "the database is unreachable" "$T/status.out" && grep -q "from memory: run 1" "$T/status.out" ||
    fail "lgctl status during the freeze: $(cat "$T/status.out")"
FREEZE_S=${LG_FREEZE_S:-20}
# once the store found the database away, a submission is refused at once, saying nothing was
# made (not queued to appear later, not lgctl's 30 s per try)
for _ in $(seq 1 60); do
    grep -q "the database is unreachable: .*did not answer" "$T/controller.log" && break
    sleep 0.2
done
ts=$(date +%s%N)
"$LG_BIN/lgctl" --controller "ipc://$T/ctl.sock" submit --submit-id frozen-1 "$T/spec.yaml" \
    >"$T/submit.out" 2>&1 && fail "a submit while the database is away succeeded"
took=$(( ($(date +%s%N) - ts) / 1000000 ))
grep -q "nothing was submitted; submit again once it answers" "$T/submit.out" ||
    fail "submit while the database is away: $(cat "$T/submit.out")"
[ "$took" -lt 5000 ] || fail "a submit while the database is away took $took ms"
echo "ok: a submit while the database is away is refused in $took ms"
# how long it has been away: since the statement that found it so began, not since that
# statement gave up (its deadline later); the controller's store writes every few seconds
away=$(sed -nE 's/.*unreachable \(for ([0-9]+) s\).*/\1/p' "$T/submit.out")
frozen=$(($(date +%s) - t0))
echo "the refusal says the database has been away for ${away:-?} s; frozen for $frozen s"
[ -n "$away" ] && [ "$away" -ge $((frozen - 5)) ] ||
    fail "the refusal understates the outage: ${away:-?} s of $frozen s"
left=$(( FREEZE_S - ($(date +%s) - t0) ))
[ "$left" -gt 0 ] && sleep "$left"
pongs=$(probe_report)
rss1=$(rss_kb "$CTL")
pg_thaw
check_pongs "during the freeze" "$base" "$pongs"
echo "controller RSS: $((rss0 / 1024)) MB before the freeze, $((rss1 / 1024)) MB at its end"
[ $((rss1 - rss0)) -lt 32768 ] || fail "the controller's RSS grew by more than 32 MB over the freeze"
echo "database thawed after $(( $(date +%s) - t0 )) s"
for _ in $(seq 1 300); do
    st=$(q "SELECT state FROM lg.campaign")
    [ "$st" = done ] || [ "$st" = failed ] && break
    sleep 0.2
done
q "SELECT run_id, state, coalesce(error, '') FROM lg.run" | sed 's/^/  run: /'
expect_eq "the run that ended during the freeze" "$(q "SELECT state FROM lg.run")" done
grep -q "did not answer within 10 s" "$T/controller.log" ||
    fail "no statement of the controller gave up after its --db-timeout"
expect_eq "its merged result" "$(q "SELECT count(*) FROM lg.result WHERE agent_id IS NULL")" 1
expect_eq "campaigns of the refused submit" \
    "$(q "SELECT count(*) FROM lg.campaign WHERE submit_id = 'frozen-1'")" 0
expect_eq "per-agent results" "$(q "SELECT count(*) FROM lg.result WHERE agent_id IS NOT NULL")" 2
expect_eq "agents with a sample gap" "$(q "SELECT count(*) FROM (SELECT agent_id, max(seq) m,
    count(*) n FROM lg.sample GROUP BY 1) s WHERE m <> n")" 0
expect_eq "agents whose samples do not add up to their result" "$(q "
  SELECT count(*) FROM lg.result x WHERE x.agent_id IS NOT NULL
    AND x.ios <> (SELECT sum(s.ios) FROM lg.sample s WHERE s.run_id = x.run_id
                  AND s.agent_id = x.agent_id AND s.direction = x.direction)")" 0
grep -q "the database is unreachable" "$T/controller.log" ||
    fail "the controller did not say the database was unreachable: $(tail -n 20 "$T/controller.log")"
grep "did not answer within" "$T/controller.log" | head -n 2
grep -q "the database is back after" "$T/controller.log" || fail "no 'database is back' logged"
grep -q "samples go to the spool" "$T/controller.log" || fail "no samples went to the spool"
expect_eq "the spool once all is stored" "$(stat -c %s "$T/spool/samples.spool")" 16
# the loop kept its clock while the server was frozen
late=$({ grep -o "the event loop was busy for [0-9]* ms" "$T/controller.log" || true; } |
       awk '{ if ($7 > m) m = $7 } END { print m + 0 }')
echo "the controller's loop was busy for at most $late ms at a time"
[ "$late" -lt 5000 ] || fail "the controller's loop waited ${late} ms during the freeze"

# ---- 3. SIGTERM while frozen ----
"$LG_BIN/lgctl" --controller "ipc://$T/ctl.sock" submit "$T/spec.yaml" >/dev/null ||
    fail "second submit failed"
for _ in $(seq 1 200); do
    [ "$(q "SELECT count(*) FROM lg.run WHERE state = 'running'")" = 1 ] && break
    sleep 0.1
done
pg_freeze
sleep 3
t0=$(date +%s%N)
kill -TERM "$CTL"
for _ in $(seq 1 100); do kill -0 "$CTL" 2>/dev/null || break; sleep 0.1; done
took=$(( ($(date +%s%N) - t0) / 1000000 ))
pg_thaw
kill -0 "$CTL" 2>/dev/null && fail "the controller still runs ${took} ms after SIGTERM"
echo "the controller ended ${took} ms after SIGTERM, the database frozen"
[ "$took" -le 5000 ] || fail "SIGTERM took ${took} ms with the database frozen"
echo "PASS"
