#!/usr/bin/env bash
# it_app_sysbench: sysbench OLTP against private MariaDB servers, on two load hosts at once, for
# two SUT configs. Two agents run in two network namespaces; each starts its own MariaDB (data in
# its own folder inside the config's dir: target, a Unix socket only, no networking), loads the
# tables, and runs sysbench oltp_read_write with 1-second reports; the run starts on both
# together. The test checks:
#   - every run ran on both agents, each with a report every second;
#   - each agent's stored totals equal sysbench's own summary in its archived output
#     (transactions, TPS, queries, QPS, average/min/max and p95 latency);
#   - the merged run: TPS and QPS are the two agents' sums, the average latency their
#     transaction-weighted mean, the p95 not merged (NULL) and the worst agent's kept beside it;
#     the merged per-second series sums both agents;
#   - no MariaDB process or data folder is left on either host;
#   - lgctl compare --metric tps compares the two configs; lg-export draws the TPS time series
#     and the bars per config, and Chromium renders the time series.
. "$(dirname "$0")/lib.sh"
command -v sysbench >/dev/null || fail "sysbench is missing (deploy/install-deps.sh installs it)"
command -v mariadbd >/dev/null || fail "mariadbd is missing (deploy/install-deps.sh installs it)"
pg_start
lg_keys h2 h3
"$LG_BIN/lgctl" db migrate >/dev/null

make_hosts 2 a 234
install -d -m 755 "$T/nas-lz4" "$T/nas-zstd"
APP_USER=nobody

start_controller --tcp "$HOSTS_NET.1"
for i in 1 2; do
    start_agent "h$((i + 1))" --wrap "ip netns exec ${HOST_NS[$i]}" \
        --allow "$T/nas-lz4" --allow "$T/nas-zstd" --app-user "$APP_USER"
done
expect_eq "agents on two hosts" "$(q "SELECT string_agg(name, ',' ORDER BY name) FROM lg.agent")" h2,h3

RUNTIME=5
cat >"$T/oltp.yaml" <<SPEC
name: oltp
configs:
  - {labels: {build: nas1, compression: lz4}, target: dir:$T/nas-lz4}
  - {labels: {build: nas1, compression: zstd}, target: dir:$T/nas-zstd}
between_configs: none
runtime: ${RUNTIME}s
profiles:
  - {name: oltp, app: sysbench-oltp, tables: 2, table_size: 2000, threads: 2}
SPEC
"$LG_BIN/lgctl" --controller "ipc://$T/ctl.sock" submit "$T/oltp.yaml" >"$T/submit.log" 2>&1 ||
    fail "submit: $(cat "$T/submit.log")"
st=""
for _ in $(seq 1 1200); do
    st=$(q "SELECT state FROM lg.campaign WHERE name = 'oltp'")
    [ "$st" = done ] || [ "$st" = failed ] && break
    sleep 0.2
done
q "SELECT run_id, state, error FROM lg.run ORDER BY run_id" | sed 's/^/  /'
expect_eq "campaign" "$st" done

# The tools started together on both hosts: each agent's start instant is stored.
q "SELECT run_id, start_skew_us FROM lg.run ORDER BY run_id" | sed 's/^/  start skew (us): /'
# How close together is judged alone, with nothing beside it (it_hosts, it_merge: under 20 ms);
# here, beside the suite's other tests, the start gate must only have held (well under a second).
expect_eq "start skew stored and below 500 ms" "$(q "SELECT bool_and(start_skew_us IS NOT NULL
    AND start_skew_us < 500000) FROM lg.run")" t

# num FILE REGEX: the first number after REGEX in sysbench's summary
num() { sed -n "s/^ *$2 *\([0-9.]*\).*/\1/p" "$1" | head -n 1; }
same() { awk -v a="$2" -v b="$3" 'BEGIN { exit !(a == b) }' || fail "$1: stored $2, sysbench says $3"; }

for RUN in $(q "SELECT run_id FROM lg.run ORDER BY run_id"); do
    expect_eq "run $RUN on both agents" "$(q "SELECT count(*) FROM lg.app_result WHERE run_id = $RUN")" 2
    for AG in $(q "SELECT agent_id FROM lg.app_result WHERE run_id = $RUN"); do
        # Every report has its figures; sysbench times them itself, and on a loaded machine one
        # comes late and the next early, so together they keep to the second: their mean
        # interval is within 5% of 1 s (as it_app_pgbench).
        read -r n mean < <(q "SELECT count(*), round(avg(interval_ms)) FROM lg.app_sample
               WHERE run_id = $RUN AND agent_id = $AG
               AND interval_ms > 0 AND tps > 0 AND qps > 0 AND pct = 95 AND lat_pct_ms > 0" |
            tr '|' ' ')
        [ "$n" -ge $((RUNTIME - 1)) ] && [ "$n" -le $((RUNTIME + 1)) ] ||
            fail "run $RUN agent $AG: $n per-second reports with tps, qps and p95: $(q "SELECT
                string_agg(seq || ':' || interval_ms || 'ms/' || coalesce(tps, -1) || 'tps',
                ' ' ORDER BY seq) FROM lg.app_sample WHERE run_id = $RUN AND agent_id = $AG")"
        [ "$mean" -ge 950 ] && [ "$mean" -le 1050 ] ||
            fail "run $RUN agent $AG: reports $mean ms apart on average, not ~1000"
        q "SELECT output FROM lg.app_result WHERE run_id = $RUN AND agent_id = $AG" >"$T/sb.out"
        grep -q "^\[ 1s \] thds: 2" "$T/sb.out" || fail "run $RUN: no 1-second reports in the output"
        read -r tx tps q_ qps avg mn mx p95 pct < <(q "SELECT transactions, tps, queries, qps,
            lat_avg_ms, lat_min_ms, lat_max_ms, lat_pct_ms, pct FROM lg.app_result
            WHERE run_id = $RUN AND agent_id = $AG" | tr '|' ' ')
        same "transactions" "$tx" "$(num "$T/sb.out" 'transactions:')"
        same "tps" "$tps" "$(sed -n 's/^ *transactions: *[0-9]* *(\([0-9.]*\) per sec.)/\1/p' "$T/sb.out")"
        same "queries" "$q_" "$(num "$T/sb.out" 'queries:')"
        same "qps" "$qps" "$(sed -n 's/^ *queries: *[0-9]* *(\([0-9.]*\) per sec.)/\1/p' "$T/sb.out")"
        same "avg" "$avg" "$(num "$T/sb.out" 'avg:')"
        same "min" "$mn" "$(num "$T/sb.out" 'min:')"
        same "max" "$mx" "$(num "$T/sb.out" 'max:')"
        same "p95" "$p95" "$(num "$T/sb.out" '95th percentile:')"
        expect_eq "percentile" "$pct" 95
    done
    # merged: sums, the transaction-weighted mean, no merged percentile
    expect_eq "run $RUN merged" "$(q "SELECT m.tps = s.tps AND m.qps = s.qps
        AND m.transactions = s.tx AND abs(m.lat_avg_ms - s.wavg) < 1e-9
        AND m.lat_pct_ms IS NULL AND m.lat_pct_max_ms = s.pmax AND m.agents = 2
        FROM lg.v_app_result m, (SELECT sum(tps) AS tps, sum(qps) AS qps, sum(transactions) AS tx,
            sum(transactions * lat_avg_ms) / sum(transactions) AS wavg, max(lat_pct_ms) AS pmax
            FROM lg.app_result WHERE run_id = $RUN) s WHERE m.run_id = $RUN")" t
    expect_eq "run $RUN merged series" "$(q "SELECT bool_and(v.tps = s.tps) FROM lg.v_app_series v
        JOIN (SELECT seq, sum(tps) AS tps FROM lg.app_sample WHERE run_id = $RUN GROUP BY seq) s
        USING (seq) WHERE v.run_id = $RUN")" t
    echo "ok: run $RUN: merged $(q "SELECT round(tps::numeric, 1) FROM lg.v_app_result
        WHERE run_id = $RUN") tps = $(q "SELECT string_agg(round(tps::numeric, 1)::text, ' + '
        ORDER BY agent_id) FROM lg.app_result WHERE run_id = $RUN")"
done

# nothing of the servers is left on either host
left=$(find "$T/nas-lz4" "$T/nas-zstd" -mindepth 1 -maxdepth 1 | head -n 3)
[ -z "$left" ] || fail "data folders left: $left"
left=$(pgrep -f "mariadbd.*$T/nas-" || true)
[ -z "$left" ] || fail "a MariaDB of the runs is left: pid $left"
# Their sockets (each in a private folder, named in the agents' logs) are gone and none listens.
socks=$(sed -n 's/.*server [0-9]* started on .* (socket in "\(.*\)").*/\1/p' "$T/h2.log" "$T/h3.log")
expect_eq "servers started (2 runs x 2 hosts)" "$(echo "$socks" | grep -c .)" 4
for d in $socks; do
    [ ! -e "$d" ] || fail "the socket folder $d is still there"
    for ns in "${HOST_NS[1]}" "${HOST_NS[2]}"; do
        ip netns exec "$ns" ss -Hlx | grep -qF "$d/" && fail "a socket in $d still listens"
    done
done
echo "ok: no MariaDB process, socket or data folder left"

# ---- compare the two configs, and the charts ----
"$LG_BIN/lgctl" compare --by compression --baseline lz4 --metric tps --campaign oltp \
    --format csv >"$T/cmp.csv" 2>"$T/cmp.err" || fail "compare --metric tps: $(cat "$T/cmp.err")"
cat "$T/cmp.csv"
grep -q "zstd" "$T/cmp.csv" || fail "compare: no zstd row"
"$LG_BIN/lgctl" report --campaign oltp >"$T/report.txt" 2>&1 || fail "report: $(cat "$T/report.txt")"
cat "$T/report.txt"
# Two agents: the p95 is named as the worst agent's, never as a merged percentile.
expect_eq "report: runs with the worst agent's p95" "$(grep -cE "sysbench-oltp +2 x 2 agents +done .* p95 worst" "$T/report.txt")" 2
"$LG_BIN/lg-export" --out "$T/site" --campaign oltp >"$T/export.log" 2>&1 || true
for f in 10_app_tps_series 11_app_tps_bars; do
    [ -s "$T/site/$f.svg" ] || fail "lg-export: no $f.svg: $(cat "$T/export.log")"
done
grep -q "zstd" "$T/site/10_app_tps_series.svg" || fail "the TPS series has no zstd line"
PNG_DIR=$(cd "$LG_BIN/.." && pwd)/export-test
chrome_shot "$T/site/10_app_tps_series.svg" "$PNG_DIR/app_tps_series.png"
[ -s "$PNG_DIR/app_tps_series.png" ] || fail "chromium wrote no app_tps_series.png"
echo "ok: chromium rendered the TPS time series: $PNG_DIR/app_tps_series.png"
