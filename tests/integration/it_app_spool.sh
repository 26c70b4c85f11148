#!/usr/bin/env bash
# it_app_spool: an application run's per-second reports take the fio samples' one path (issue 45
# part 4): the controller's writer stores them with binary COPY into lg.app_sample, and while the
# results database is frozen it appends them to its spool on disk (a record of their own kind)
# and acknowledges them, so the agent drops its copies; thawed, the spool is written first.
# A real agent runs pgbench against its private PostgreSQL for 10 s; the results database
# (not pgbench's) is frozen (SIGSTOP) from the second report stored for about 5 s. The test
# checks:
#   - the controller said the reports went to the spool, and the spool held bytes while frozen;
#   - afterwards every report 1..n is stored once (n about the runtime), each with its figures,
#     and their transactions add up to the run's (pgbench's own summary);
#   - the spool is emptied (its 16-byte header only) and the run ends done.
. "$(dirname "$0")/lib.sh"
[ -x "$PG_BIN/initdb" ] || fail "PostgreSQL's initdb is missing ($PG_BIN)"
pg_start
lg_keys h1
"$LG_BIN/lgctl" db migrate >/dev/null
install -d -m 755 "$T/share"
APP_USER=nobody
[ "$(id -u)" = 0 ] || APP_USER=$(id -un)
SPOOL="$T/spool"
FILE="$SPOOL/samples.spool"
start_controller --tcp 127.0.0.1 --db-timeout 2 --spool-dir "$SPOOL"
start_agent h1 --allow "$T/share" --app-user "$APP_USER"

RUNTIME=10
cat >"$T/tpcb.yaml" <<SPEC
name: tpcb
sut: {labels: {build: nas1}}
target: dir:$T/share
runtime: ${RUNTIME}s
profiles:
  - {name: tpcb, app: pgbench, scale: 1, clients: 2}
SPEC
submit_file tpcb
RUN=$(wait_reports true 2)

pg_freeze
max=16
for _ in $(seq 1 60); do # about 6 s frozen: the writer's 2 s deadline, then reports to the spool
    s=$(stat -c %s "$FILE" 2>/dev/null || echo 0)
    [ "$s" -gt "$max" ] && max=$s
    sleep 0.1
done
pg_thaw
grep -q "samples go to the spool until the database takes them" "$T/controller.log" ||
    fail "the controller did not say the reports go to the spool: $(tail -n 5 "$T/controller.log")"
[ "$max" -gt 16 ] || fail "the spool held nothing while the database was frozen"
echo "ok: while frozen the spool held up to $max bytes"

wait_campaign tpcb
expect_eq "campaign" "$(q "SELECT state FROM lg.campaign WHERE name = 'tpcb'")" done
read -r n first last bad < <(q "SELECT count(*), min(seq), max(seq),
    count(*) FILTER (WHERE tps IS NULL OR tps <= 0 OR lat_avg_ms IS NULL OR interval_ms <= 0
                     OR qps IS NOT NULL OR threads IS NOT NULL)
    FROM lg.app_sample WHERE run_id = $RUN" | tr '|' ' ')
[ "$n" -ge $((RUNTIME - 1)) ] && [ "$n" -le $((RUNTIME + 1)) ] ||
    fail "$n reports stored for a ${RUNTIME}s run"
expect_eq "reports 1..n, each once" "$first-$last" "1-$n"
expect_eq "reports with pgbench's figures (and NULL for what it has not)" "$bad" 0
read -r tx stx < <(q "SELECT a.transactions, round(sum(s.tps * s.interval_ms / 1000.0))
    FROM lg.app_result a JOIN lg.app_sample s USING (run_id, agent_id)
    WHERE a.run_id = $RUN GROUP BY a.transactions" | tr '|' ' ')
[ -n "$tx" ] || fail "no result stored for run $RUN"
awk -v s="$stx" -v t="$tx" 'BEGIN { exit !(s >= 0.85 * t && s <= 1.02 * t) }' ||
    fail "the reports add up to $stx transactions; pgbench's summary says $tx"
expect_eq "spool size once stored" "$(stat -c %s "$FILE")" 16
grep -q "the database takes samples again; writing the spool's first" "$T/controller.log" ||
    fail "the controller did not say it writes the spool first"
echo "ok: $n reports stored once after the freeze, adding up to $stx of pgbench's $tx transactions"
