#!/usr/bin/env bash
# it_app_pgbench: an application workload end to end. A campaign with a pgbench profile runs on
# a real agent: the agent creates a private PostgreSQL whose data folder is inside the dir:
# target, loads the data set (the preparation phase, timed), runs pgbench with 1-second reports
# and removes the server and its data afterwards. The test checks:
#   - a report every second stored in lg.app_sample, in order, about 1 s apart;
#   - the stored totals equal pgbench's own summary in the archived output (transactions, tps,
#     average and stddev of latency), and the per-second TPS agree with the total;
#   - while it runs the server listens on no TCP port (a private Unix socket only); afterwards no
#     process of it is left, its socket is gone and its data folder removed;
#   - a second profile with keep: true leaves its data folder (the server stopped);
#   - a profile aimed at a folder outside the agent's --allow fails with a clear error and
#     creates nothing there;
#   - a Stop (lgctl abort) mid-run stores pgbench's summary over the seconds it ran (SIGALRM,
#     its own -T timer) and the run's error says so;
#   - lgctl report shows the run, compare/rank take --metric tps.
. "$(dirname "$0")/lib.sh"
command -v ss >/dev/null || fail "ss is missing (iproute2)"
[ -x "$PG_BIN/initdb" ] || fail "PostgreSQL's initdb is missing ($PG_BIN)"
pg_start
lg_keys h1
"$LG_BIN/lgctl" db migrate >/dev/null

# The NAS's mounted share stands in as a plain folder here (it_app_sysbench uses two hosts).
install -d -m 755 "$T/share" "$T/outside"
APP_USER=nobody
[ "$(id -u)" = 0 ] || APP_USER=$(id -un)

start_controller --tcp 127.0.0.1
# The agent's own environment points libpq elsewhere (issue 32): the measured pgbench must get
# the clean environment its load step has, or every run fails connecting to the wrong server.
PGPORT=1 PGHOST=/nonexistent PGDATABASE=nope PGUSER=nobody \
    start_agent h1 --allow "$T/share" --app-user "$APP_USER"
expect_eq "agent registered" "$(q "SELECT name FROM lg.agent")" h1

RUNTIME=8
cat >"$T/tpcb.yaml" <<SPEC
name: tpcb
sut: {labels: {build: nas1, compression: lz4}}
target: dir:$T/share
runtime: ${RUNTIME}s
profiles:
  - {name: tpcb, app: pgbench, scale: 2, clients: 4, jobs: 2}
  - {name: tpcb-kept, app: pgbench, scale: 1, clients: 2, runtime: 2s, keep: true}
SPEC
"$LG_BIN/lgctl" plan "$T/tpcb.yaml" >"$T/plan.txt" || fail "plan: $(cat "$T/plan.txt")"
grep -q "4 clients.*pgbench on a private PostgreSQL; loads scale 2" "$T/plan.txt" ||
    fail "plan does not say what the run loads: $(cat "$T/plan.txt")"
submit_file tpcb
# lgctl watch, piped: a line per second, which counts transactions here (it ends with the campaign)
"$LG_BIN/lgctl" --controller "ipc://$T/ctl.sock" watch tpcb >"$T/watch.out" 2>&1 &
WATCH=$!
CLEANUP_PIDS+=("$WATCH")

# While the first run measures: its server is a child of the agent's, reached by a Unix socket
# only. Found by its data folder on its command line.
RUN=$(q "SELECT min(run_id) FROM lg.run")
DATA="$T/share/lg-pgbench-$RUN-h1"
server=""
for _ in $(seq 1 600); do
    if [ "$(q "SELECT count(*) FROM lg.app_sample WHERE run_id = $RUN")" -ge 1 ]; then
        # pgrep reads every command line in one process: a shell loop over /proc took seconds
        # on a loaded machine, and the measured phase could end before the client was found
        server=$(pgrep -f -- "postgres -D $DATA" | head -n 1 || true)
        break
    fi
    sleep 0.1
done
[ -n "$server" ] || fail "no PostgreSQL server running on $DATA while the run measured"
expect_eq "the server runs as" "$(stat -c %U "/proc/$server")" "$APP_USER"
[ -z "$(ss -Hltnp | grep "pid=$server,")" ] || fail "the private server listens on TCP: $(ss -ltnp | grep "pid=$server,")"
sock=$(ss -Hlxp | grep "pid=$server," | awk '{print $5}' | head -n 1)
[ -n "$sock" ] || fail "the private server has no Unix socket"
echo "ok: the private server (pid $server) listens on $sock only"
client=$(pgrep -f -- "pgbench -h $(dirname "$sock") " | head -n 1 || true) # connected to it
[ -n "$client" ] || fail "no pgbench client running against $(dirname "$sock")"
expect_eq "the pgbench client runs as" "$(stat -c %U "/proc/$client")" "$APP_USER"

st=""
for _ in $(seq 1 900); do
    st=$(q "SELECT state FROM lg.campaign WHERE name = 'tpcb'")
    [ "$st" = done ] || [ "$st" = failed ] && break
    sleep 0.2
done
expect_eq "campaign" "$st" done
wait "$WATCH" || fail "lgctl watch: $(tail -n 3 "$T/watch.out")"
grep -E ' TPS [0-9.]+ lat [0-9.]+ ms ' "$T/watch.out" | awk '$0 ~ / TPS [1-9]/' | grep -q . ||
    fail "lgctl watch shows no TPS while pgbench runs: $(tail -n 5 "$T/watch.out")"
if grep -q ' IOPS ' "$T/watch.out"; then
    fail "lgctl watch calls an app run's TPS IOPS: $(grep ' IOPS ' "$T/watch.out" | head -n 3)"
fi
echo "ok: lgctl watch: $(grep -m 1 -E ' TPS [1-9]' "$T/watch.out")"
q "SELECT run_id, profile, state, error FROM lg.run ORDER BY run_id" | sed 's/^/  /'
expect_eq "runs done" "$(q "SELECT count(*) FROM lg.run WHERE state = 'done'")" 2

# ---- samples every second ----
# pgbench times its progress reports itself; on a loaded machine one comes late and the next
# early (seen: 1.3 s then 0.7 s at load 15), so each gap may be 0.5 .. 1.5 s, but together they
# must keep to the second: the mean interval is within 5% of 1 s.
read -r n first last bad mean < <(q "SELECT count(*), min(seq), max(seq),
    count(*) FILTER (WHERE interval_ms NOT BETWEEN 500 AND 1500 OR tps IS NULL OR tps <= 0
                     OR lat_avg_ms IS NULL OR qps IS NOT NULL),
    round(avg(interval_ms))
    FROM lg.app_sample WHERE run_id = $RUN" | tr '|' ' ')
[ "$n" -ge $((RUNTIME - 1)) ] && [ "$n" -le $((RUNTIME + 1)) ] ||
    fail "$n per-second reports for a ${RUNTIME}s run"
expect_eq "reports numbered 1..n" "$first-$last" "1-$n"
expect_eq "reports ~1 s apart with tps and latency" "$bad" 0
[ "$mean" -ge 950 ] && [ "$mean" -le 1050 ] || fail "reports $mean ms apart on average, not ~1000"
gaps=$(q "SELECT count(*) FROM (SELECT t_ms - lag(t_ms) OVER (ORDER BY seq) AS d
          FROM lg.app_sample WHERE run_id = $RUN) x WHERE d NOT BETWEEN 500 AND 1500")
expect_eq "report times ~1 s apart" "$gaps" 0
echo "ok: reports $mean ms apart on average"

# ---- the totals are pgbench's own ----
q "SELECT output FROM lg.app_result WHERE run_id = $RUN" >"$T/pgbench.out"
grep -q "^progress: " "$T/pgbench.out" || fail "the archived output has no progress lines"
own_tx=$(sed -n 's/^number of transactions actually processed: \([0-9]*\).*/\1/p' "$T/pgbench.out")
own_tps=$(sed -n 's/^tps = \([0-9.]*\) (without initial connection time)/\1/p' "$T/pgbench.out")
own_avg=$(sed -n 's/^latency average = \([0-9.]*\) ms/\1/p' "$T/pgbench.out")
own_sd=$(sed -n 's/^latency stddev = \([0-9.]*\) ms/\1/p' "$T/pgbench.out")
own_scale=$(sed -n 's/^scaling factor: \([0-9]*\)/\1/p' "$T/pgbench.out")
[ -n "$own_tx" ] && [ -n "$own_tps" ] && [ -n "$own_avg" ] || fail "no pgbench summary in the output"
read -r tx tps avg sd scale clients prep < <(q "SELECT transactions, tps, lat_avg_ms, lat_stddev_ms,
    scale, threads, prepare_ms FROM lg.app_result WHERE run_id = $RUN" | tr '|' ' ')
expect_eq "transactions" "$tx" "$own_tx"
awk -v a="$tps" -v b="$own_tps" 'BEGIN { exit !(a == b) }' || fail "tps $tps, pgbench says $own_tps"
awk -v a="$avg" -v b="$own_avg" 'BEGIN { exit !(a == b) }' || fail "latency $avg, pgbench says $own_avg"
awk -v a="$sd" -v b="$own_sd" 'BEGIN { exit !(a == b) }' || fail "stddev $sd, pgbench says $own_sd"
expect_eq "scale" "$scale" "$own_scale"
expect_eq "clients" "$clients" 4
[ "$prep" -gt 0 ] || fail "no preparation time"
echo "ok: totals equal pgbench's own: $tx transactions, $tps tps, $avg ms avg; loading took $prep ms"
# The per-second reports describe the run: they never count more transactions than it had, and
# their mean TPS is near its TPS (pgbench may not report the last, partial second).
q "SELECT sum(tps * interval_ms / 1000.0) || ' ' || sum(tps * interval_ms) / sum(interval_ms)
   FROM lg.app_sample WHERE run_id = $RUN" >"$T/sum"
read -r stx stps <"$T/sum"
awk -v s="$stx" -v t="$tx" -v m="$stps" -v a="$tps" \
    'BEGIN { exit !(s <= 1.02 * t && m > 0.75 * a && m < 1.25 * a) }' ||
    fail "the reports add up to $stx transactions at $stps tps; the run had $tx at $tps tps"
# export-run carries the tool's totals and its reports (JSON), and its own CSV columns.
"$LG_BIN/lgctl" export-run "$RUN" --format json >"$T/run.json" || fail "export-run json"
expect_eq "export-run JSON: totals, reports, no output" "$(jq -r '"\(.app_results[0].transactions)
\(.app_results[0].tps) \(.app_samples | length) \(.app_results[0] | has("output"))"' "$T/run.json" |
    paste -sd ' ')" "$tx $tps $n false"
"$LG_BIN/lgctl" export-run "$RUN" --format csv >"$T/run.csv" || fail "export-run csv"
expect_eq "export-run CSV: header, report rows, the agent's and the merged totals" "$(head -n 1 \
    "$T/run.csv" | cut -d, -f1-7) $(grep -c '^app_sample,h1,' "$T/run.csv") $(grep -c \
    "^app_result,h1,,,,$tx,$tps," "$T/run.csv") $(grep -c "^app_result,(merged),,,,$tx," \
    "$T/run.csv")" "record,agent,seq,t_ms,interval_ms,transactions,tps $n 1 1"
# Merged over its one agent: the run's figures.
expect_eq "v_app_result" "$(q "SELECT transactions = $tx AND tps = $tps AND lat_pct_ms IS NULL
    FROM lg.v_app_result WHERE run_id = $RUN")" t
expect_eq "v_metric tps" "$(q "SELECT value = $tps FROM lg.v_metric WHERE run_id = $RUN
    AND metric = 'tps' AND direction = 'txn'")" t

# ---- the server is gone ----
kill -0 "$server" 2>/dev/null && fail "the server (pid $server) still runs"
[ ! -e "$DATA" ] || fail "the data folder $DATA is still there"
[ -z "$(ss -Hlx | awk '{print $5}' | grep -xF "$sock")" ] || fail "its socket $sock still listens"
left=$(pgrep -a -f "$T/share/lg-pgbench" || true)
[ -z "$left" ] || fail "a process of the runs is left: $left"
echo "ok: no server process, socket or data folder left of run $RUN"
RUN2=$(q "SELECT run_id FROM lg.run WHERE profile = 'tpcb-kept'")
[ -f "$T/share/lg-pgbench-$RUN2-h1/PG_VERSION" ] || fail "keep: true: the data folder is gone"
echo "ok: keep: true left $T/share/lg-pgbench-$RUN2-h1 (its server stopped)"

# ---- a folder outside the agent's allow-list ----
cat >"$T/outside.yaml" <<SPEC
name: outside
sut: {labels: {build: nas1, compression: lz4}}
target: dir:$T/outside
runtime: 2s
profiles:
  - {name: tpcb, app: pgbench, scale: 1, clients: 1}
SPEC
submit_file outside
wait_campaign outside
err=$(q "SELECT r.error FROM lg.run r JOIN lg.campaign c USING (campaign_id) WHERE c.name = 'outside'")
grep -q "outside this agent's allowed targets" <<<"$err" || fail "outside: error '$err'"
[ -z "$(ls -A "$T/outside")" ] || fail "outside: something was created: $(ls -A "$T/outside")"
echo "ok: a folder outside --allow is refused: $err"

# ---- a Stop mid-run keeps pgbench's summary ----
# lgctl abort after 3 reports of a 60 s run: pgbench gets SIGALRM, its own -T timer, ends its
# clients and prints its summary over the seconds it ran; that is stored as the run's result and
# the run's error says how it ended.
cat >"$T/stop.yaml" <<SPEC
name: stop
sut: {labels: {build: nas1, compression: lz4}}
target: dir:$T/share
runtime: 60s
profiles:
  - {name: tpcb-stop, app: pgbench, scale: 1, clients: 2}
SPEC
submit_file stop
SRUN=$(wait_reports "r.profile = 'tpcb-stop'" 3)
"$LG_BIN/lgctl" --controller "ipc://$T/ctl.sock" abort stop >"$T/abort.log" 2>&1 ||
    fail "abort: $(cat "$T/abort.log")"
wait_run "$SRUN" # the run ends (with the server stopped and its folder removed)
read -r sstate stx stps sns < <(q "SELECT r.state, coalesce(a.transactions, 0), coalesce(a.tps, 0),
    (SELECT count(*) FROM lg.app_sample s WHERE s.run_id = r.run_id)
    FROM lg.run r LEFT JOIN lg.app_result a USING (run_id) WHERE r.run_id = $SRUN" | tr '|' ' ')
serr=$(q "SELECT error FROM lg.run WHERE run_id = $SRUN")
echo "stopped run $SRUN: $sstate, $stx transactions at $stps tps, $sns reports; error: $serr"
expect_eq "stop: the run is aborted" "$sstate" aborted
[ -n "$stx" ] && [ "$stx" -gt 0 ] || fail "stop: no result stored for run $SRUN"
q "SELECT output FROM lg.app_result WHERE run_id = $SRUN" >"$T/stop.out"
expect_eq "stop: transactions are pgbench's own" "$stx" \
    "$(sed -n 's/^number of transactions actually processed: \([0-9]*\).*/\1/p' "$T/stop.out")"
# ~3-4 s of a 60 s run: its reports account for (nearly) all of its transactions
rtx=$(q "SELECT round(sum(tps * interval_ms / 1000.0)) FROM lg.app_sample WHERE run_id = $SRUN")
awk -v t="$stx" -v r="$rtx" -v p="$stps" 'BEGIN { exit !(t >= 0.95 * r && t <= 0.95 * r + 2 * p) }' ||
    fail "stop: $stx transactions, but its $sns reports add up to $rtx at $stps tps"
grep -q "pgbench ended on SIGALRM, its own -T timer (the Stop)" <<<"$serr" ||
    fail "stop: the error does not say how pgbench ended: $serr"
echo "ok: a Stop after $sns reports kept pgbench's summary: $stx transactions (reports: $rtx)"

# ---- what the reviewer reads ----
"$LG_BIN/lgctl" report --campaign tpcb >"$T/report.txt" 2>&1 || fail "report: $(cat "$T/report.txt")"
cat "$T/report.txt"
grep -q "tpcb" "$T/report.txt" || fail "report: no tpcb run"
grep -q "^applications" "$T/report.txt" || fail "report: no applications section"
grep -qE "^$RUN +.*tpcb +pgbench +4 +done .*loading the data set took" "$T/report.txt" ||
    fail "report: run $RUN is not in the applications section with its loading time"
"$LG_BIN/lgctl" rank --metric tps --campaign tpcb --format csv >"$T/rank.csv" 2>&1 ||
    fail "rank --metric tps: $(cat "$T/rank.csv")"
grep -q "tpcb" "$T/rank.csv" || fail "rank: no tpcb row: $(cat "$T/rank.csv")"
echo "ok: report and rank --metric tps"
