#!/usr/bin/env bash
# ingest: samples per second lg-controller stores in PostgreSQL from one synthetic agent (flood)
# sending N samples with 300-bin latency histograms as fast as ZeroMQ takes them, against psql
# \copy of the very same rows into lg.sample on the same cluster. Targets (issue 15): >= 50,000
# samples/s, ratio >= 0.8, <= 1,000 stored bytes per sample.
# Also prints the controller's peak RSS (VmHWM) over the flood. The flood speaks CURVE, as real
# agents do; PLAINTEXT=1 runs it without (to measure what the encryption costs).
# usage: tests/bench/ingest.sh [BUILD_DIR] [N]   (FLOOD=path overrides BUILD_DIR/bin/flood;
# PRELOAD=DUMP starts from that database: labscale.sh's grown one)
# FREEZE=S: the database frozen S s mid-flood (issue 32; see freeze_mode below): prints the
# catch-up rate against the rate before the freeze.
# RESEND=K BAD=1 (the short form ctest runs as it_ingest): K samples are sent again in a batch with
# K new ones, and two malformed samples come first; both must change nothing that is stored.
set -euo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$src/build}
n=${2:-200000}
bin=$build/bin
flood=${FLOOD:-$bin/flood}
[ -x "$bin/lgctl" ] && [ -x "$bin/lg-controller" ] ||
    { echo "build lg first: deploy/build.sh $build" >&2; exit 1; }
[ -x "$flood" ] || { echo "no flood tool at $flood (target flood in tests/CMakeLists.txt)" >&2; exit 1; }

# lib.sh: private PostgreSQL (pg_start), q, fail, and the trap that stops by PID what we start.
export LG_BIN=$bin LG_SRC=$src
. "$src/tests/integration/lib.sh"
. "$src/tests/bench/figure.sh" # need_figure: a figure missing or zero stops the bench
pg_start
lg_keys flood
export LG_AGENT_KEY="$T/keys/agents/flood.key" # flood registers as "flood": its own key
LGCTL_SEC=()
if [ "${PLAINTEXT:-0}" = 1 ]; then
    CTRL_SEC=(--plaintext) LGCTL_SEC=(--plaintext)
    unset LG_KEY LG_CONTROLLER_KEY LG_AGENT_KEY LG_AGENT_KEYS
fi
# PRELOAD=DUMP (labscale.sh): the database starts as that pg_dump -Fc of a grown lab database, so
# the rate is the rate into it (against an empty one's from another call)
if [ -n "${PRELOAD:-}" ]; then
    for r in lg_reader lg_writer lg_import; do
        q "DO \$\$ BEGIN CREATE ROLE $r; EXCEPTION WHEN duplicate_object THEN NULL; END \$\$" >/dev/null
    done
    pg_restore -d lg --no-owner "$PRELOAD" >"$T/restore.log" 2>&1 || true
    q "VACUUM ANALYZE" >/dev/null
    need_figure ingest "samples preloaded" "$(q "SELECT count(*) FROM lg.sample")" "$T/restore.log"
fi
"$bin/lgctl" db migrate >/dev/null

# FREEZE=S (issue 32): once a tenth of the samples are stored, PostgreSQL is frozen (SIGSTOP, the
# server and its backends) for S seconds while the flood goes on into the controller's spool;
# prints the rate samples were stored at before the freeze (over 2 s) and the catch-up rate from
# the thaw until all N are stored (target: at least 0.8 of the normal rate).
stored_now() { q "SELECT count(*) FROM lg.sample"; }
freeze_mode() {
    for _ in $(seq 1 600); do [ "$(stored_now)" -ge $((n / 10)) ] && break; sleep 0.1; done
    local c0 t0 c1 t1 c2 t2
    c0=$(stored_now); t0=$(date +%s%N)
    sleep 2
    c1=$(stored_now); t1=$(date +%s%N)
    pg_freeze
    sleep "$FREEZE"
    local spooled
    spooled=$(stat -c %s "$T/spool/samples.spool")
    pg_thaw
    t2=$(date +%s%N); c2=$(stored_now)
    for _ in $(seq 1 6000); do [ "$(stored_now)" -ge "$n" ] && break; sleep 0.1; done
    local c3 t3
    c3=$(stored_now); t3=$(date +%s%N)
    [ "$c3" -ge "$n" ] || fail "only $c3 of $n samples stored after the freeze"
    [ "$c1" -gt "$c0" ] || fail "no samples stored in the 2 s before the freeze"
    [ "$c2" -lt "$n" ] || fail "all $n samples were stored before the freeze ended: give a larger N"
    awk -v c0="$c0" -v c1="$c1" -v t0="$t0" -v t1="$t1" -v c2="$c2" -v t2="$t2" -v c3="$c3" \
        -v t3="$t3" -v f="$FREEZE" -v sp="$spooled" 'BEGIN {
        r0 = (c1 - c0) / ((t1 - t0) / 1e9); r1 = (c3 - c2) / ((t3 - t2) / 1e9)
        printf "ingest freeze: stored %.0f samples/s before a %d s freeze, %.0f samples/s catching up after it (%d samples in %.1f s; the spool held %.0f MiB), ratio %.3f (target >= 0.8)\n",
            r0, f, r1, c3 - c2, (t3 - t2) / 1e9, sp / 1048576, r1 / r0 }'
}

"$bin/lg-controller" "${CTRL_SEC[@]}" --database "$LG_DATABASE_URL" --agents "ipc://$T/agents.sock" \
    --control "ipc://$T/ctl.sock" --ready-file "$T/ready" --spool-dir "$T/spool" \
    ${FREEZE:+--db-timeout 5} >"$T/controller.log" 2>&1 &
CTL_PID=$!
CLEANUP_PIDS+=("$CTL_PID")
for _ in $(seq 1 100); do [ -f "$T/ready" ] && break; sleep 0.1; done
[ -f "$T/ready" ] || fail "lg-controller did not start"

"$flood" --controller "ipc://$T/agents.sock" --name flood --samples "$n" \
    ${RESEND:+--resend "$RESEND"} --bad "${BAD:-0}" \
    >"$T/flood.out" 2>"$T/flood.log" &
FLOOD_PID=$!
CLEANUP_PIDS+=("$FLOOD_PID")
for _ in $(seq 1 100); do
    [ "$(q "SELECT count(*) FROM lg.agent WHERE name = 'flood'")" = 1 ] && break
    sleep 0.1
done

# One run on the null target, long enough never to time out; flood's RunResult ends it.
cat >"$T/spec.yaml" <<SPEC
name: bench-ingest
sut:
  labels: {build: bench, media: "null"}
target: "null"
size: 1G
profiles:
  - {name: flood, bs: 4k, pattern: random, read: 100, sweep: none}
threads: 1
qd: 1
runtime: 3600s
precondition: none
SPEC
q "CHECKPOINT" >/dev/null
"$bin/lgctl" "${LGCTL_SEC[@]}" --controller "ipc://$T/ctl.sock" submit "$T/spec.yaml" >"$T/submit.log" 2>&1 ||
    { cat "$T/submit.log" >&2; fail "lgctl submit failed"; }
if [ -n "${FREEZE:-}" ]; then
    freeze_mode
fi
wait "$FLOOD_PID" || { cat "$T/flood.log" >&2; fail "flood failed"; }
cat "$T/flood.log" >&2
r1=$(awk '/^flood: .* samples\/s$/ { print $(NF - 1) }' "$T/flood.out")
need_figure ingest "the controller's rate (flood: N samples acked in S s: R samples/s)" "$r1" "$T/flood.out"

for _ in $(seq 1 300); do
    [ "$(q "SELECT state FROM lg.campaign WHERE name = 'bench-ingest'")" = done ] && break
    sleep 0.1
done
run_id=$(q "SELECT run_id FROM lg.run r JOIN lg.campaign c USING (campaign_id)
            WHERE c.name = 'bench-ingest'")
agent_id=$(q "SELECT agent_id FROM lg.agent WHERE name = 'flood'")
stored=$(q "SELECT count(*) FROM lg.sample WHERE run_id = $run_id")
# A run is done only once its samples are stored: no waiting here.
[ "$stored" = "$n" ] || fail "the controller stored $stored samples of $n when the run was done"

if [ "${BAD:-0}" = 1 ]; then
    dropped=$(grep -c 'dropped .*sample.* "flood"' "$T/controller.log" || true)
    [ "$dropped" = 2 ] || { cat "$T/controller.log" >&2; fail "the controller dropped $dropped malformed samples, want 2"; }
fi
dups=$(q "SELECT count(*) - count(DISTINCT seq) FROM lg.sample WHERE run_id = $run_id")
[ "$dups" = 0 ] || fail "$dups samples stored twice"

# What a stored sample costs: table, indexes and TOAST over the rows (the flood's only).
q "VACUUM ANALYZE lg.sample" >/dev/null
# (lg.sample is partitioned, 036: its size is its partitions')
bps=$(q "SELECT (SELECT sum(pg_total_relation_size(relid)) FROM pg_partition_tree('lg.sample'))
         / count(*) FROM lg.sample")
hwm_kb=$(awk '/^VmHWM:/ { print $2 }' "/proc/$CTL_PID/status")
need_figure ingest "stored bytes per sample (SQL)" "$bps"
need_figure ingest "the controller's peak RSS (VmHWM)" "$hwm_kb"
# utime + stime of the controller (fields 14, 15; the name in field 2 has no spaces).
cpu_s=$(awk -v hz="$(getconf CLK_TCK)" '{ printf "%.1f", ($14 + $15) / hz }' "/proc/$CTL_PID/stat")
kill -TERM "$CTL_PID"
for _ in $(seq 1 200); do kill -0 "$CTL_PID" 2>/dev/null || break; sleep 0.1; done

# Baseline: the same rows, as COPY text, into the same table after the flood's are gone.
"$flood" --rows "$T/rows.txt" --run-id "$run_id" --agent-id "$agent_id" --samples "$n"
sum_ctl=$(q "SELECT sum(hashtext(s::text)::bigint) FROM lg.sample s WHERE run_id = $run_id")
q "DELETE FROM lg.sample WHERE run_id = $run_id" >/dev/null
q "VACUUM lg.sample" >/dev/null
q "CHECKPOINT" >/dev/null
t0=$(date +%s%N)
psql -qAt -v ON_ERROR_STOP=1 -c "\\copy lg.sample FROM '$T/rows.txt'" >/dev/null
t1=$(date +%s%N)
sum_copy=$(q "SELECT sum(hashtext(s::text)::bigint) FROM lg.sample s WHERE run_id = $run_id")
[ "$sum_ctl" = "$sum_copy" ] || fail "the \\copy rows differ from what the controller stored"

awk -v n="$n" -v r1="$r1" -v ns=$((t1 - t0)) -v kb="$hwm_kb" -v cpu="$cpu_s" -v bytes="$(stat -c %s "$T/rows.txt")" 'BEGIN {
    r2 = n / (ns / 1e9)
    printf "psql \\copy: %d rows (%.0f MiB of COPY text) in %.3f s; controller used %s s of CPU\n", n, bytes / 1048576, ns / 1e9, cpu
    printf "ingest: controller %.0f samples/s (%d samples, 300-bin histograms), psql \\copy %.0f samples/s, ratio R1/R2 = %.3f (target >= 0.8); controller peak RSS %.0f MiB\n",
        r1, n, r2, r1 / r2, kb / 1024 }'
echo "ingest: stored bytes per sample (table + indexes + TOAST / rows, 300-bucket histograms): $bps"
