#!/usr/bin/env bash
# it_app_report: what lgctl report, compare, rank and lg-export make of application runs, on a
# synthetic campaign written with SQL (no agents, no pgbench): two SUT configs, each with one
# pgbench run and one sysbench oltp_read_write run of two agents. The report's applications
# section shows the merged figures (TPS summed, the average transaction-weighted, the worst
# agent's percentile named so, the data set's loading time, the TPS range over the seconds every
# agent reported) in table, Markdown, CSV and JSON; compare --metric tps gives the difference the
# script computes; lg-export draws both application charts with a line or bar per config; a
# fio-only campaign's report keeps its columns and has no applications section.
. "$(dirname "$0")/lib.sh"
pg_start
"$LG_BIN/lgctl" db migrate >/dev/null
L="$LG_BIN/lgctl"

# ---- the synthetic campaign ----
# pgbench, agent 1: 1000 + 10k TPS in second k (k = 1..10), agent 2: 900 + 20k; agent 2 also
# reported a second 11 alone (left out of the range). Totals: build a 1050 + 1010 TPS, averages
# 7.5 ms over 10000 transactions and 9 ms over 8000; build b 520 + 630 TPS.
# sysbench (profile oltp, p95): build a 300 + 320 TPS, 6000 + 6400 QPS, p95 20 and 25 ms;
# build b 400 + 410 TPS.
run_sql() { # ordinal config profile app
    echo "INSERT INTO lg.run (campaign_id, ordinal, sut_config_id, profile, direction, rw, bs,
        read_pct, threads, qd, ramp_s, runtime_s, target_kind, target, size_bytes, direct, state,
        app, app_params)
      SELECT c.campaign_id, $1, s.sut_config_id, '$3', 'txn', 'app', 0, 0, 8, 1, 0, 10, 'dir',
        '/srv/lg', 0, false, 'done', '$4', '{\"scale\": 10}'
      FROM lg.campaign c, lg.sut_config s
      WHERE c.name = 'apps' AND s.labels = '{\"build\": \"$2\", \"media\": \"ssd\"}'::jsonb;"
}
RUN="(SELECT run_id FROM lg.run r JOIN lg.campaign c USING (campaign_id) WHERE c.name = 'apps' AND r.ordinal ="
{
    echo "INSERT INTO lg.agent (name) VALUES ('app-1'), ('app-2');"
    echo "INSERT INTO lg.campaign (name, spec, state) VALUES ('apps', '-', 'done');"
    for b in a b; do
        echo "INSERT INTO lg.sut_config (labels) VALUES ('{\"build\": \"$b\", \"media\": \"ssd\"}')
              ON CONFLICT DO NOTHING;"
    done
    run_sql 1 a pgb pgbench
    run_sql 2 b pgb pgbench
    run_sql 3 a oltp sysbench-oltp
    run_sql 4 b oltp sysbench-oltp
    # per-second reports: (ordinal, agent, base, step, lat)
    for spec in "1 app-1 1000 10" "1 app-2 900 20" "2 app-1 500 5" "2 app-2 600 5" \
                "3 app-1 290 2" "3 app-2 310 2" "4 app-1 390 2" "4 app-2 400 2"; do
        set -- $spec
        for k in $(seq 1 10); do
            echo "INSERT INTO lg.app_sample (run_id, agent_id, seq, t_ms, interval_ms, tps, qps,
                    lat_avg_ms, lat_pct_ms, pct)
                  SELECT $RUN $1), agent_id, $k, $((1700000000000 + k * 1000)), 1000,
                    $(($3 + $4 * k)), CASE WHEN $1 > 2 THEN $(( ($3 + $4 * k) * 20 )) END,
                    CASE WHEN $1 <= 2 THEN 8 END, CASE WHEN $1 > 2 THEN 21 END,
                    CASE WHEN $1 > 2 THEN 95 END
                  FROM lg.agent WHERE name = '$2';"
        done
    done
    echo "INSERT INTO lg.app_sample (run_id, agent_id, seq, t_ms, interval_ms, tps)
          SELECT $RUN 1), agent_id, 11, 1700000011000, 1000, 5 FROM lg.agent WHERE name = 'app-2';"
    # final totals: (ordinal, agent, kind, tx, tps, qps, avg, stddev, pct_ms, pct, failed, prep)
    for spec in "1 app-1 pgbench 10000 1050 NULL 7.5 2 NULL NULL 0 12345" \
                "1 app-2 pgbench 8000 1010 NULL 9 3 NULL NULL 2 11000" \
                "2 app-1 pgbench 5000 520 NULL 15 4 NULL NULL 0 9000" \
                "2 app-2 pgbench 6000 630 NULL 12 4 NULL NULL 0 9500" \
                "3 app-1 sysbench-oltp 3000 300 6000 26 NULL 20 95 1 30000" \
                "3 app-2 sysbench-oltp 3200 320 6400 25 NULL 25 95 0 31000" \
                "4 app-1 sysbench-oltp 4000 400 8000 20 NULL 22 95 0 30000" \
                "4 app-2 sysbench-oltp 4100 410 8200 19 NULL 23 95 0 30500"; do
        set -- $spec
        echo "INSERT INTO lg.app_result (run_id, agent_id, kind, transactions, tps, qps, lat_avg_ms,
                lat_stddev_ms, lat_min_ms, lat_max_ms, lat_pct_ms, pct, failed, duration_s,
                threads, prepare_ms, output)
              SELECT $RUN $1), agent_id, '$3', $4, $5, $6, $7, $8, 1, 90, $9, ${10}, ${11}, 10, 8,
                ${12}, 'verbatim' FROM lg.agent WHERE name = '$2';"
    done
} >"$T/apps.sql"
psql -qX -v ON_ERROR_STOP=1 -f "$T/apps.sql" >/dev/null || fail "the synthetic campaign"

# ---- report: table ----
"$L" report --campaign apps >"$T/report.txt" 2>"$T/report.err" || { cat "$T/report.err"; fail "report"; }
cat "$T/report.txt"
sed -n '/^applications/,$p' "$T/report.txt" >"$T/apps.txt"
[ -s "$T/apps.txt" ] || fail "no applications section"
row() { grep -E "^$1 " "$T/apps.txt" || fail "no row of run $1"; }
r1=$(row "$(q "SELECT run_id FROM lg.run WHERE ordinal = 1")")
r3=$(row "$(q "SELECT run_id FROM lg.run WHERE ordinal = 3")")
# TPS 1050 + 1010; average (10000 * 7.5 + 8000 * 9) / 18000 = 8.167; 2 failed; loading 12.3 s
# (the slower agent); seconds 1..10 of both agents: 1930 .. 2200 TPS.
for want in "a ssd" pgbench "8 x 2 agents" "2,060.0" "8.167" \
            "loading the data set took 12.3 s" "TPS varied from 1,930 to 2,200 over 10 s"; do
    grep -qF -- "$want" <<<"$r1" || fail "run 1 row lacks \"$want\": $r1"
done
echo "ok: pgbench row: TPS summed, average transaction-weighted, loading time, TPS range"
for want in sysbench-oltp "620.0" "12,400.0" "p95 worst 25.000" "TPS varied from 604 to 640"; do
    grep -qF -- "$want" <<<"$r3" || fail "run 3 row lacks \"$want\": $r3"
done
grep -q "the worst agent's, not a percentile of all transactions" "$T/apps.txt" ||
    fail "the report does not say the percentile is the worst agent's"
grep -E "^$(q "SELECT run_id FROM lg.run WHERE ordinal = 1") " "$T/report.txt" | head -1 |
    grep -q "8 clients" || fail "the runs table does not show pgbench's clients"
echo "ok: sysbench row: QPS, the worst agent's p95 named so"

# ---- report: markdown, csv, json ----
"$L" report --campaign apps --format markdown >"$T/report.md" || fail "report markdown"
grep -q '^\*\*applications\*\*' "$T/report.md" || fail "markdown: no applications heading"
grep -qF '| 2,060.0 |' "$T/report.md" || fail "markdown: no TPS cell"
"$L" report --campaign apps --format json >"$T/report.json" || fail "report json"
expect_eq "json: pgbench a" "$(jq -c '[.[] | select(.app == "pgbench" and (.sut | startswith("a")))][0]
    | [.app_tps, (.app_lat_avg_ms * 1000 | round), .app_agents, .app_failed, .app_prepare_s,
       .app_tps_min, .app_tps_max, .app_seconds]' "$T/report.json")" "[2060,8167,2,2,12.345,1930,2200,10]"
expect_eq "json: sysbench a" "$(jq -c '[.[] | select(.app == "sysbench-oltp" and (.sut | startswith("a")))][0]
    | [.app_qps, .app_pct, .app_lat_pct_ms, .app_lat_pct_max_ms]' "$T/report.json")" "[12400,95,null,25]"
"$L" report --campaign apps --format csv >"$T/report.csv" || fail "report csv"
head -1 "$T/report.csv" | grep -q ',app,app_agents,app_transactions,app_tps,' || fail "csv: no app columns"
expect_eq "csv rows" "$(($(wc -l <"$T/report.csv") - 1))" 4

# ---- compare and rank ----
"$L" compare --by build --baseline a --metric tps --format json >"$T/cmp.json" 2>"$T/cmp.err" ||
    { cat "$T/cmp.err"; fail "compare --metric tps"; }
expect_eq "compare tps pgb: b vs a %" \
    "$(jq -r '.rows[] | select(.profile == "pgb") | .cells.b.pct * 100 | round / 100' "$T/cmp.json")" \
    "$(awk 'BEGIN { printf "%.2f", (1150 - 2060) / 2060 * 100 }')"
expect_eq "compare tps: unit and direction" \
    "$(jq -r '[.rows[0].unit, .rows[0].direction] | join(" ")' "$T/cmp.json")" "tx/s txn"
"$L" compare --by build --baseline a --metric tps,qps,lat_avg_ms >"$T/cmp.txt" 2>"$T/cmp.err" ||
    { cat "$T/cmp.err"; fail "compare --metric tps,qps,lat_avg_ms"; }
cat "$T/cmp.txt"
grep -q '^tps (tx/s, higher is better)' "$T/cmp.txt" || fail "compare: no tps section in tx/s"
grep -qE '^oltp +txn +file +8 clients' "$T/cmp.txt" || fail "compare: the load of a txn row is not its clients"
grep -qE '^pgb .* -44\.2%' "$T/cmp.txt" || fail "compare table: pgb b vs a is not -44.2%"
"$L" rank --metric tps --format json >"$T/rank.json" || fail "rank --metric tps"
expect_eq "rank tps pgb leader" \
    "$(jq -r '.[] | select(.profile == "pgb" and .rank == 1) | .config' "$T/rank.json")" "build=a,media=ssd"
"$L" rank --metric tps >"$T/rank.txt" || fail "rank table"
grep -q "8 clients" "$T/rank.txt" || fail "rank: the load of a txn row is not its clients"
echo "ok: compare and rank of tps"

# ---- lg-export ----
QDIR="$LG_SRC/web-export/queries"
"$LG_BIN/lg-export" --db "$LG_DATABASE_URL" --out "$T/site" --campaign apps \
    "$QDIR/10_app_tps_series.sql" "$QDIR/11_app_tps_bars.sql" >"$T/export.txt" 2>"$T/export.log" ||
    { cat "$T/export.log"; fail "lg-export"; }
for c in 10_app_tps_series 11_app_tps_bars; do
    [ -s "$T/site/$c.svg" ] || fail "no $c.svg"
    xmllint --noout "$T/site/$c.svg" || fail "$c.svg is not XML"
done
expect_eq "series: one line per config and profile" "$(grep -c '<polyline' "$T/site/10_app_tps_series.svg")" 4
expect_eq "series: a point per second all agents reported" \
    "$(grep -c '<circle' "$T/site/10_app_tps_series.svg")" 40
grep -q 'a ssd · pgb, second = 10: 2,200' "$T/site/10_app_tps_series.svg" || fail "series: no 2,200 TPS at second 10 of a"
expect_eq "series csv rows" "$(($(wc -l <"$T/site/10_app_tps_series.csv") - 1))" 40
expect_eq "bars: rows" "$(jq -c '[.rows[] | [.profile, .config, .tps]]' "$T/site/11_app_tps_bars.json")" \
    '[["oltp","a ssd",620],["oltp","b ssd",810],["pgb","a ssd",2060],["pgb","b ssd",1150]]'
grep -q 'sysbench-oltp 8 threads, pgbench 8 clients per agent' "$T/site/index.html" || fail "no workload in the subtitle"
echo "ok: lg-export: both application charts"

# ---- a fio-only campaign: as before ----
psql -qX -v ON_ERROR_STOP=1 >/dev/null <<'SQL' || fail "the fio campaign"
INSERT INTO lg.campaign (name, spec, state) VALUES ('fio-only', '-', 'done');
INSERT INTO lg.run (campaign_id, ordinal, sut_config_id, profile, direction, rw, bs, read_pct,
                    threads, qd, ramp_s, runtime_s, target_kind, target, size_bytes, direct, state)
SELECT c.campaign_id, 1, s.sut_config_id, '4k-rand', 'read', 'randread', 4096, 100, 1, 2, 0, 10,
       'file', '/x', 1048576, true, 'done'
FROM lg.campaign c, lg.sut_config s WHERE c.name = 'fio-only' AND s.labels->>'build' = 'a';
INSERT INTO lg.result (run_id, agent_id, direction, ios, bytes, runtime_ms, iops, bw_bytes, lat_n,
                       lat_min, lat_max, lat_mean, lat_stddev, lat_sum, lat_sumsq)
SELECT r.run_id, NULL, 'read', 1000, 4096000, 10000, 100, 409600, 1000, 1, 1, 1e6, 0, 1e9, 0
FROM lg.run r JOIN lg.campaign c USING (campaign_id) WHERE c.name = 'fio-only';
SQL
"$L" report --campaign fio-only >"$T/fio.txt" || fail "fio-only report"
grep -q "applications" "$T/fio.txt" && fail "a fio-only report has an applications section"
"$L" report --campaign fio-only --format csv >"$T/fio.csv" || fail "fio-only csv"
expect_eq "fio-only csv header" "$(head -1 "$T/fio.csv")" \
    "campaign_id,campaign,run,sut,protocol,target,phase,profile,direction,threads,qd,repeat,state,agents,iops,mb_s,lat_avg_ms,lat_max_ms,lat_stddev_ms,p99_ms,clat_p99_ms,steady_state_reached,steady_state_rounds,error,rate_iops,curve_pct,probe,probe_value_ms,probe_trial,probe_counts,qd_achieved,qd_inflight,qd_short,nas_cpu_pct,host_saturated,host_cpu_pct"
# The default set: the fio charts as before (exit 0), the application ones left out.
"$LG_BIN/lg-export" --db "$LG_DATABASE_URL" --out "$T/fiosite" --campaign fio-only \
    >/dev/null 2>"$T/fioexport.log" || { cat "$T/fioexport.log"; fail "lg-export of a fio-only campaign"; }
[ -s "$T/fiosite/01_4k_rand_iops.svg" ] || fail "lg-export of a fio-only campaign: no 4K chart"
[ ! -e "$T/fiosite/10_app_tps_series.svg" ] && [ ! -e "$T/fiosite/11_app_tps_bars.svg" ] ||
    fail "empty application charts for a fio-only campaign"
grep -q "10_app_tps_series: no figures" "$T/fioexport.log" || fail "lg-export does not say why there is no chart"
echo "ok: a fio-only campaign: no applications section, the same CSV columns, no application charts"
