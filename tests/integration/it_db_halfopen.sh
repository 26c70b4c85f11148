#!/usr/bin/env bash
# it_db_halfopen: the controller's connection left half-open (issue 32): a reply pending when a
# partition hits, and the server restarted meanwhile, so its state (and its FIN) is lost and the
# controller's socket stays "established" with nothing to send. Before, the controller was wedged
# for good: status timed out, a submit never reached lg.campaign, SIGTERM did not stop it.
# PostgreSQL runs on a host of its own (a network namespace); the controller keeps its default
# --db-timeout (30 s), so what finds the dead connection first is TCP: keepalives (a probe after
# 10 s idle draws the restarted server's RST), or tcp_user_timeout for data sent into the cut.
#   1. Mid-run, a session holds lg.sample so the controller's COPY of samples waits on the server;
#      the link goes down, PostgreSQL restarts (-m immediate), the link comes back LG_HALFOPEN_S (6)
#      seconds later. lgctl status answers during the cut naming the database; the loop answers
#      a probe agent's clock Pings throughout (p99 at most 50 ms, no silence); samples are stored
#      again within 30 s of the link being back; the run ends "done" with its merged result, every
#      sample stored once, no gap; the controller's RSS grows by less than 32 MB.
#   2. A new submit works and its campaign runs to done.
#   3. The same half-open state again (link back, the dead connection not found yet): SIGTERM
#      ends the controller within 5 s.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/dbnet.sh"
HALFOPEN_S=${LG_HALFOPEN_S:-6}
lg_keys a1 a2
dbnet_setup dh 239
start_controller --database "$DB_URL"
start_agents

# hold_lock: a session (through the socket folder, beside the cut) holds lg.sample until the
# server restarts; returns once a statement of the controller waits on it: its reply pending.
hold_lock() {
    psql -qAt -c "BEGIN; LOCK TABLE lg.sample IN ACCESS EXCLUSIVE MODE; SELECT pg_sleep(120)" \
        >>"$T/lock.out" 2>&1 &
    CLEANUP_PIDS+=("$!")
    for _ in $(seq 1 100); do
        [ "$(q "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'lg-controller'
                AND wait_event_type = 'Lock'")" -gt 0 ] && return 0
        sleep 0.1
    done
    fail "no statement of the controller waited on the lock"
}
# half_open: the link down, the server restarted behind it (its sessions, and their FINs, lost)
half_open() {
    link_down
    db_pg_ctl restart -m immediate
    echo "the link is down and PostgreSQL restarted behind it"
}
stored() { q "SELECT count(*) FROM lg.sample"; }

# ---- 1. a reply pending when the cut comes, the server restarted behind it ----
spec half 10
submit_file half
wait_samples half 2
probe_report >/dev/null
sleep 2
read -r _ base _ _ <<<"$(probe_report)"
rss0=$(rss_kb "$CTL")
n0=$(stored) # before the lock: a count of lg.sample would wait on it
hold_lock
half_open
t0=$(date +%s)
check_status half "with the database cut off"
left=$((HALFOPEN_S - ($(date +%s) - t0)))
[ "$left" -gt 0 ] && sleep "$left"
link_up
t_up=$(date +%s%N)
echo "the link is up again after $(($(date +%s) - t0)) s"
back=""
for _ in $(seq 1 300); do
    [ "$(stored)" -gt "$n0" ] && { back=$(( ($(date +%s%N) - t_up) / 1000000 )); break; }
    sleep 0.1
done
[ -n "$back" ] || fail "no sample stored within 30 s of the link being back: $(tail -n 15 "$T/controller.log")"
echo "samples stored again ${back} ms after the link came back"
ts=$(date +%s%N)
"$LG_BIN/lgctl" --controller "ipc://$T/ctl.sock" status half >"$T/status2.out" 2>&1 || true
took=$(( ($(date +%s%N) - ts) / 1000000 ))
[ "$took" -lt 5000 ] || fail "lgctl status took ${took} ms after the link came back"
echo "ok: lgctl status answered in ${took} ms after the link came back"
pongs=$(probe_report)
check_pongs "during the cut and the recovery" "$base" "$pongs"
check_campaign half
grep -E "could not store|unreachable|is back|takes samples again" "$T/controller.log" | head -n 8 | sed 's/^/  /'
rss1=$(rss_kb "$CTL")
echo "controller RSS: $((rss0 / 1024)) MB before, $((rss1 / 1024)) MB after"
[ $((rss1 - rss0)) -lt 32768 ] || fail "the controller's RSS grew by more than 32 MB"

# ---- 2. a new submit works ----
spec again 3
submit_file again
check_campaign again

# ---- 3. SIGTERM with the connection half-open ----
spec last 30
submit_file last
wait_samples last 2
hold_lock
half_open
sleep 2
link_up
sleep 2
t0=$(date +%s%N)
kill -TERM "$CTL"
for _ in $(seq 1 100); do kill -0 "$CTL" 2>/dev/null || break; sleep 0.1; done
took=$(( ($(date +%s%N) - t0) / 1000000 ))
kill -0 "$CTL" 2>/dev/null && fail "the controller still runs ${took} ms after SIGTERM"
echo "the controller ended ${took} ms after SIGTERM, its connection half-open"
[ "$took" -le 5000 ] || fail "SIGTERM took ${took} ms with the connection half-open"
echo "PASS"
