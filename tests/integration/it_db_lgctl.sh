#!/usr/bin/env bash
# it_db_lgctl: lgctl and lg-export against a database that does not answer (issue 32, part 4).
#   1. A statement that never gets its answer (the campaign table held by another session's
#      lock): lgctl report --timeout 2 and lg-export --timeout 2 give up after about 2 s, naming
#      the database (its socket folder) and what timed out.
#   2. Ctrl-C (SIGINT) while lgctl waits for that answer ends it within a second.
#   3. A frozen server (SIGSTOP): a new connection is given up after connect_timeout (the
#      connection string's, else 10 s), naming the database; Ctrl-C ends that wait within a
#      second too.
#   4. The connections lg makes carry their application_name.
. "$(dirname "$0")/lib.sh"
pg_start
"$LG_BIN/lgctl" db migrate >/dev/null
q "INSERT INTO lg.campaign (name, spec) VALUES ('held', 'name: held')"

PGPID=$(head -n 1 "$PG_DIR/data/postmaster.pid")
LOCKER=""
# ms since the epoch
now_ms() { echo $(( $(date +%s%N) / 1000000 )); }
# elapsed_between LO HI NAME START: the time since START is within [LO, HI] ms
elapsed_between() {
    local t=$(( $(now_ms) - $4 ))
    echo "$3: ${t} ms"
    [ "$t" -ge "$1" ] && [ "$t" -le "$2" ] || fail "$3 took ${t} ms, not within $1..$2 ms"
}

# ---- 1. a statement that is never answered ----
# another session holds the campaign table; every read of it waits
( psql -qAt -v ON_ERROR_STOP=1 <<'SQL'
BEGIN;
LOCK TABLE lg.campaign IN ACCESS EXCLUSIVE MODE;
SELECT pg_sleep(300);
SQL
) >"$T/locker.log" 2>&1 &
LOCKER=$!
CLEANUP_PIDS+=("$LOCKER")
for _ in $(seq 1 100); do
    [ "$(q "SELECT count(*) FROM pg_locks WHERE relation = 'lg.campaign'::regclass
            AND mode = 'AccessExclusiveLock' AND granted")" = 1 ] && break
    sleep 0.1
done

t0=$(now_ms)
"$LG_BIN/lgctl" report --campaign held --timeout 2 >"$T/r1.out" 2>"$T/r1.err" &&
    fail "report answered through a held table"
elapsed_between 1500 5000 "lgctl report --timeout 2" "$t0"
cat "$T/r1.err"
grep -q "the database at socket folder $PG_DIR (port 5432) did not answer within 2 s" "$T/r1.err" ||
    fail "report: the message does not name the database and the time: $(cat "$T/r1.err")"

t0=$(now_ms)
"$LG_BIN/lg-export" --db "$LG_DATABASE_URL" --out "$T/site" --campaign held --timeout 2 \
    >"$T/e1.out" 2>"$T/e1.err" && fail "lg-export answered through a held table"
elapsed_between 1500 5000 "lg-export --timeout 2" "$t0"
grep -q "did not answer within 2 s" "$T/e1.err" || fail "lg-export: $(cat "$T/e1.err")"

t0=$(now_ms)
"$LG_BIN/lgctl" report --campaign held --timeout 4 >"$T/r2.out" 2>"$T/r2.err" &
LP=$!
# 4. while it waits, the server knows who it is
seen=""
for _ in $(seq 1 50); do
    seen=$(q "SELECT application_name FROM pg_stat_activity WHERE application_name = 'lgctl'
              AND wait_event_type = 'Lock'")
    [ -n "$seen" ] && break
    sleep 0.1
done
expect_eq "lgctl's connection named" "$seen" lgctl
wait "$LP" && fail "report answered through a held table"
elapsed_between 3500 8000 "lgctl report --timeout 4" "$t0"
grep -q "did not answer within 4 s" "$T/r2.err" || fail "report: $(cat "$T/r2.err")"

# ---- 2. Ctrl-C while waiting ----
"$LG_BIN/lgctl" report --campaign held >"$T/r3.out" 2>"$T/r3.err" &
LP=$!
sleep 1
t0=$(now_ms)
kill -INT "$LP"
wait "$LP" && fail "an interrupted report succeeded"
elapsed_between 0 1000 "lgctl report after SIGINT" "$t0"

# the holder's backend sleeps on (pg_sleep does not notice its client go): ended by its pid
q "SELECT pg_terminate_backend(pid) FROM pg_locks WHERE relation = 'lg.campaign'::regclass
   AND mode = 'AccessExclusiveLock' AND granted" >/dev/null
wait "$LOCKER" 2>/dev/null || true
expect_eq "the report answers once the table is free" \
    "$("$LG_BIN/lgctl" report --campaign held --format csv >/dev/null 2>&1 && echo ok)" ok
# --db names the database over LG_DATABASE_URL (issue 45: lgctl's start-up is lg-export's)
expect_eq "lgctl report --db (LG_DATABASE_URL a socket folder that is not)" \
    "$(LG_DATABASE_URL="host=$T/none dbname=lg" "$LG_BIN/lgctl" report --db "$LG_DATABASE_URL" \
        --campaign held --format csv >/dev/null 2>&1 && echo ok)" ok
LG_DATABASE_URL="$LG_DATABASE_URL" "$LG_BIN/lgctl" report --db "host=$T/none dbname=lg" \
    --campaign held >/dev/null 2>"$T/db.err" && fail "lgctl report --db on no server answered"
grep -q "$T/none" "$T/db.err" || fail "lgctl report --db: the error does not name it: $(cat "$T/db.err")"
expect_eq "lgctl db url --db" "$("$LG_BIN/lgctl" db url --db "host=$T/x")" "host=$T/x"

# ---- 3. a frozen server ----
kill -STOP "$PGPID"
t0=$(now_ms)
LG_DATABASE_URL="$LG_DATABASE_URL connect_timeout=3" "$LG_BIN/lgctl" report --campaign held \
    >"$T/f1.out" 2>"$T/f1.err" && fail "report answered from a frozen server"
elapsed_between 2500 6000 "lgctl report against a frozen server (connect_timeout=3)" "$t0"
cat "$T/f1.err"
grep -q "the database at socket folder $PG_DIR (port 5432): no answer to the connection within its connect_timeout" "$T/f1.err" ||
    fail "frozen: $(cat "$T/f1.err")"
"$LG_BIN/lgctl" report --campaign held >"$T/f2.out" 2>"$T/f2.err" &
LP=$!
sleep 1
t0=$(now_ms)
kill -INT "$LP"
wait "$LP" && fail "an interrupted report succeeded"
elapsed_between 0 1000 "lgctl report after SIGINT, connecting to a frozen server" "$t0"
kill -CONT "$PGPID"
expect_eq "the server answers again" "$(q "SELECT 1")" 1
echo "PASS"
