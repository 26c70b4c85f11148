#!/usr/bin/env bash
# it_db_spool: the controller's spool on disk (--spool-dir, --spool-max; issue 32). A synthetic
# agent (tests/bench/flood.c) sends samples as fast as they are taken while PostgreSQL is frozen
# (SIGSTOP):
#   1. The controller goes on taking samples: it appends them to its spool (checksummed,
#      fsynced) and acknowledges them, up to --spool-max; past it, it says the spool is full once
#      and samples wait in the agent. Thawed, every sample is stored exactly once (the run is
#      done with all N), and the spool file is emptied.
#   2. Killed (-9) while frozen, with the agent killed too (so nothing but the spool holds what
#      was acknowledged): the next controller on the same spool stores what the spool held, with
#      no gap from the first sample to the last stored.
#   3. A second controller on the same spool folder is refused, naming it.
#   4. The spool's filesystem full (a 256 KiB tmpfs: ENOSPC, not --spool-max) is said as such,
#      with samples waiting in the agent, and every sample is stored once the database is back.
. "$(dirname "$0")/lib.sh"
pg_start
lg_keys flood
export LG_AGENT_KEY="$T/keys/agents/flood.key"
"$LG_BIN/lgctl" db migrate >/dev/null
SPOOL="$T/spool"
FILE="$SPOOL/samples.spool"

spool_controller() { # extra options
    start_controller --db-timeout 3 --spool-dir "$SPOOL" "$@"
}
start_flood() { # samples
    local n0
    n0=$(grep -c "registered as agent" "$T/flood.log" 2>/dev/null || true)
    "$LG_BIN/flood" --controller "ipc://$T/agents.sock" --name flood --samples "$1" \
        --timeout 120 >"$T/flood.out" 2>>"$T/flood.log" &
    FLOOD=$!
    CLEANUP_PIDS+=("$FLOOD")
    for _ in $(seq 1 100); do
        [ "$(grep -c "registered as agent" "$T/flood.log" || true)" -gt "${n0:-0}" ] && break
        sleep 0.1
    done
}
submit() { # name
    cat >"$T/$1.yaml" <<SPEC
name: $1
target: "null"
profiles: [{name: flood, bs: 4k, pattern: random, read: 100, sweep: none}]
runtime: 3600s
precondition: none
SPEC
    "$LG_BIN/lgctl" --controller "ipc://$T/ctl.sock" submit "$T/$1.yaml" >/dev/null ||
        fail "submit $1 failed"
}
run_of() { q "SELECT run_id FROM lg.run JOIN lg.campaign USING (campaign_id) WHERE name = '$1'"; }
stored() { q "SELECT count(*) FROM lg.sample s JOIN lg.run USING (run_id)
              JOIN lg.campaign c USING (campaign_id) WHERE c.name = '$1'"; }

# ---- 1. frozen: to the spool, full, then all stored once ----
N=60000
spool_controller --spool-max 16M
start_flood $N
submit spool1
for _ in $(seq 1 200); do
    [ "$(stored spool1)" -ge 2000 ] 2>/dev/null && break
    sleep 0.1
done
[ "$(stored spool1)" -ge 2000 ] || fail "no samples stored before the freeze"
pg_freeze
for _ in $(seq 1 300); do
    grep -q "the spool .* is full" "$T/controller.log" && break
    sleep 0.1
done
grep -q "samples go to the spool until the database takes them" "$T/controller.log" ||
    fail "the controller did not say samples go to the spool"
grep -q "the spool $SPOOL/samples.spool is full (16777216 bytes, --spool-max)" "$T/controller.log" ||
    fail "the controller did not say its spool is full"
size=$(stat -c %s "$FILE")
[ "$size" -gt 16 ] && [ "$size" -le 16777216 ] ||
    fail "the spool holds $size bytes while full (limit 16777216)"
[ "$(stat -c %a "$FILE")" = 600 ] || fail "the spool file has mode $(stat -c %a "$FILE")"
kill -0 "$CTL" || fail "the controller died with a full spool"
pg_thaw
wait "$FLOOD" || { cat "$T/flood.log" >&2; fail "flood failed"; }
for _ in $(seq 1 300); do
    [ "$(q "SELECT state FROM lg.campaign WHERE name = 'spool1'")" = done ] && break
    sleep 0.1
done
[ "$(q "SELECT state FROM lg.campaign WHERE name = 'spool1'")" = done ] ||
    fail "campaign spool1 is $(q "SELECT state FROM lg.campaign WHERE name = 'spool1'")"
r1=$(run_of spool1)
expect_eq "samples stored" "$(q "SELECT count(*) FROM lg.sample WHERE run_id = $r1")" $N
expect_eq "distinct seqs 1..N" \
    "$(q "SELECT count(DISTINCT seq) || ' ' || min(seq) || ' ' || max(seq) FROM lg.sample WHERE run_id = $r1")" \
    "$N 1 $N"
for _ in $(seq 1 50); do [ "$(stat -c %s "$FILE")" = 16 ] && break; sleep 0.1; done
expect_eq "spool size once stored" "$(stat -c %s "$FILE")" 16
grep -q "the database takes samples again; writing the spool's first" "$T/controller.log" ||
    fail "the controller did not say it writes the spool first"

# ---- 3. one spool, one controller ----
"$LG_BIN/lg-controller" "${CTRL_SEC[@]}" --database "$LG_DATABASE_URL" \
    --agents "ipc://$T/agents2.sock" --control "ipc://$T/ctl2.sock" --spool-dir "$SPOOL" \
    >"$T/second.log" 2>&1 && fail "a second controller started on the same spool"
grep -q "spool $FILE is in use by another lg-controller" "$T/second.log" ||
    { cat "$T/second.log" >&2; fail "the second controller did not name the spool in use"; }

# ---- 2. killed with a spool: the next controller stores it ----
start_flood 400000
submit spool2
for _ in $(seq 1 200); do
    [ "$(stored spool2)" -ge 1000 ] 2>/dev/null && break
    sleep 0.1
done
r2=$(run_of spool2)
pg_freeze
# the batch that failed is spooled first (it may yet be committed by the thawed server: its COMMIT
# was sent); wait for records after it, which only the spool can hold once the agent is gone
for _ in $(seq 1 100); do
    [ "$(stat -c %s "$FILE")" -gt 16 ] && break
    sleep 0.1
done
first=$(stat -c %s "$FILE")
for _ in $(seq 1 100); do
    [ "$(stat -c %s "$FILE")" -gt $((first + 100000)) ] && break
    sleep 0.1
done
[ "$(stat -c %s "$FILE")" -gt $((first + 100000)) ] ||
    fail "the spool did not grow past its first record while frozen ($first bytes)"
kill -9 "$FLOOD" "$CTL"
wait "$FLOOD" "$CTL" 2>/dev/null || true
pg_thaw
before=$(q "SELECT coalesce(max(seq), 0) FROM lg.sample WHERE run_id = $r2")
spool_controller
for _ in $(seq 1 200); do
    [ "$(stat -c %s "$FILE")" = 16 ] && break
    sleep 0.1
done
expect_eq "spool size once stored after a restart" "$(stat -c %s "$FILE")" 16
left=$(sed -n "s|.*spool $FILE: \([0-9]*\) samples' rows a previous controller left.*|\1|p" \
    "$T/controller.log" | tail -n 1)
[ -n "$left" ] && [ "$left" -gt 0 ] ||
    fail "the restarted controller did not say what the spool held: $(tail -n 5 "$T/controller.log")"
after=$(q "SELECT max(seq) FROM lg.sample WHERE run_id = $r2")
[ "$after" -gt "$before" ] ||
    fail "the last sample stored is $before before the restart and $after after; the spool held $left"
expect_eq "no gap from the first sample to the last" \
    "$(q "SELECT count(DISTINCT seq) = max(seq) AND min(seq) = 1 FROM lg.sample WHERE run_id = $r2")" t

# ---- 4. the spool's filesystem full (ENOSPC), not --spool-max: said as such, nothing lost ----
"$LG_BIN/lgctl" --controller "ipc://$T/ctl.sock" abort spool2 >/dev/null || fail "abort spool2"
kill "$CTL"
wait "$CTL" 2>/dev/null || true
SMALL="$T/small"
install -d -m 700 "$SMALL"
mount -t tmpfs -o size=256k,mode=0700 lg-spool-test "$SMALL" || fail "cannot mount a tmpfs"
CLEANUP_MOUNTS+=("$SMALL")
start_controller --db-timeout 3 --spool-dir "$SMALL"
N4=20000
start_flood $N4
submit spool4
for _ in $(seq 1 200); do
    [ "$(stored spool4)" -ge 1000 ] 2>/dev/null && break
    sleep 0.1
done
pg_freeze
for _ in $(seq 1 300); do
    grep -q "No space left on device: samples now wait in the agents' own spools" \
        "$T/controller.log" && break
    sleep 0.1
done
grep -q "spool $SMALL/samples.spool: cannot write at offset [0-9]*: No space left on device: samples now wait in the agents' own spools" \
    "$T/controller.log" ||
    fail "the controller did not say that a full filesystem leaves samples in the agents"
echo "ok: $(grep -o "spool $SMALL/samples.spool: cannot write.*" "$T/controller.log" | head -n 1)"
pg_thaw
wait "$FLOOD" || { cat "$T/flood.log" >&2; fail "flood failed"; }
r4=$(run_of spool4)
for _ in $(seq 1 300); do
    [ "$(q "SELECT count(*) FROM lg.sample WHERE run_id = $r4")" = $N4 ] && break
    sleep 0.1
done
expect_eq "samples stored after the spool's filesystem was full" \
    "$(q "SELECT count(DISTINCT seq) || ' ' || min(seq) || ' ' || max(seq) FROM lg.sample WHERE run_id = $r4")" \
    "$N4 1 $N4"
echo "it_db_spool: full at $size bytes, $N stored once; killed with $left rows spooled: samples up to $before stored before the restart, up to $after after"
echo "PASS it_db_spool"
