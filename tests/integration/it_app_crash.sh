#!/usr/bin/env bash
# it_app_crash: an agent killed (-9) during a pgbench run leaves its private PostgreSQL running
# under init, its data folder in the target's folder and its socket folder in /tmp. The agent
# started again on the same work folder finds them by the run's record and its server's pid
# file, stops the server, removes both folders and says so in its log; nothing of the run is
# left. On the way: the server and the measured pgbench have none of the agent's PG*, MYSQL_* or
# LD_* variables (the agent is started with them set).
. "$(dirname "$0")/lib.sh"
[ -x "$PG_BIN/initdb" ] || fail "PostgreSQL's initdb is missing ($PG_BIN)"
pg_start
lg_keys h1
"$LG_BIN/lgctl" db migrate >/dev/null
install -d -m 755 "$T/share"
APP_USER=nobody
[ "$(id -u)" = 0 ] || APP_USER=$(id -un)

# If the test fails before the restarted agent cleaned up, the server it left is stopped here by
# its PID (fast shutdown), and its socket folder removed.
SERVER="" SOCK=""
on_exit() {
    local rc=$?
    if [ -n "$SERVER" ] && kill -0 "$SERVER" 2>/dev/null; then
        kill -INT "$SERVER" 2>/dev/null || true
        for _ in $(seq 1 50); do kill -0 "$SERVER" 2>/dev/null || break; sleep 0.1; done
    fi
    case $SOCK in /tmp/lg-app-*) rm -rf "$SOCK" ;; esac
    cleanup "$rc"
}
trap on_exit EXIT

# A process that runs (a zombie, waiting for init to reap it, does not).
alive() { [ -e "/proc/$1" ] && ! grep -q '^[0-9]* (.*) Z' "/proc/$1/stat" 2>/dev/null; }

start_controller --tcp 127.0.0.1
h1() { # HELPER OPTIONS: agent h1, with variables that would send libpq, MariaDB or ld.so elsewhere
    PGPORT=1 PGHOST=/nonexistent PGDATABASE=nope PGUSER=nobody PGOPTIONS=-cwork_mem=1 \
    MYSQL_HOST=nope MYSQL_UNIX_PORT=/nonexistent MYSQL_PWD=x LD_LIBRARY_PATH="$T/nolib" \
        start_agent h1 "$@" --allow "$T/share" --app-user "$APP_USER"
}
h1

cat >"$T/crash.yaml" <<SPEC
name: crash
sut: {labels: {build: nas1}}
target: dir:$T/share
runtime: 60s
profiles:
  - {name: tpcb, app: pgbench, scale: 1, clients: 2, jobs: 1}
SPEC
submit_file crash
RUN=$(wait_reports true 1 30)
DATA="$T/share/lg-pgbench-$RUN-h1"
[ -f "$DATA/postmaster.pid" ] || fail "no server's pid file in $DATA: $(tail -n 5 "$T/h1.log")"
SERVER=$(sed -n 1p "$DATA/postmaster.pid")
SOCK=$(sed -n 5p "$DATA/postmaster.pid")
alive "$SERVER" || fail "the private server $SERVER is not running"
# pgrep reads /proc itself (a loop forking tr and grep per process is slow beside other tests).
client=$(pgrep -o -f "pgbench -h $SOCK .* -T 60 " || true)
[ -n "$client" ] || fail "pgbench is not running against $SOCK"
for p in "$SERVER" "$client"; do
    bad=$(tr '\0' '\n' <"/proc/$p/environ" | grep -E '^(PG|MYSQL|LD_)' || true)
    [ -z "$bad" ] || fail "$(tr '\0' ' ' <"/proc/$p/cmdline" | cut -c 1-40) inherited: $bad"
done
echo "ok: server $SERVER and pgbench $client run with none of the agent's PG*, MYSQL_*, LD_*"

kill -9 "$AGENT"
wait "$AGENT" 2>/dev/null || true
sleep 0.5
# What the killed agent left: the test would fail here if there were nothing to clean up.
alive "$SERVER" || fail "the server died with the agent: nothing left to clean up"
[ -d "$DATA" ] && [ -d "$SOCK" ] || fail "the data or socket folder went with the agent"
[ -f "$T/h1/app-$RUN.rec" ] || fail "no record of run $RUN in the work folder: $(ls "$T/h1")"
echo "ok: killed the agent; its server $SERVER, $DATA and $SOCK are left"

t0=$(date +%s%N)
h1 --log "$T/h1-again.log" --no-wait
wait_line "$T/h1-again.log" "pgbench run $RUN cleaned up" 30 ||
    fail "the restarted agent did not clean up: $(cat "$T/h1-again.log")"
line=$(grep "pgbench run $RUN cleaned up" "$T/h1-again.log")
found=$(grep "pgbench run $RUN: an agent ended during it without cleaning up" "$T/h1-again.log") ||
    fail "the log does not say what the restarted agent found"
echo "agent: $found"
echo "agent: $line ($(( ($(date +%s%N) - t0) / 1000000 )) ms after the start)"
grep -qF "stopped its PostgreSQL server (pid $SERVER, from its pid file) with SIGINT" <<<"$line" ||
    fail "the log does not say the server was stopped: $line"
grep -qF "removed its data folder \"$DATA\"" <<<"$line" || fail "the log names no data folder"
grep -qF "removed its socket folder \"$SOCK\"" <<<"$line" || fail "the log names no socket folder"
alive "$SERVER" && fail "the server $SERVER still runs"
alive "$client" && fail "pgbench $client still runs"
[ ! -e "$DATA" ] || fail "$DATA is still there"
[ ! -e "$SOCK" ] || fail "$SOCK is still there"
[ ! -e "$T/h1/app-$RUN.rec" ] || fail "the record is still there"
for p in $(pgrep -f "$DATA|$SOCK" || true); do
    alive "$p" && fail "a process of the run is left: $(tr '\0' ' ' <"/proc/$p/cmdline")"
done
alive "$AGENT" || fail "the restarted agent did not stay up: $(tail -n 5 "$T/h1-again.log")"
echo "ok: no server, pgbench, data folder, socket folder or record left of run $RUN"
