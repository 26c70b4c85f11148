#!/usr/bin/env bash
# it_compare_noise: comparisons that know their noise (issue 18). Figures with known spread,
# imported with repeats: two configs drawn from the same values compare as "~" in every format, a
# 10% shift with 3 low-noise repeats as better, a small significant shift turns "~" under
# --threshold; every interval, p-value and verdict equals what noise_check.py computes with scipy
# (ttest_ind with equal_var=False, t.ppf). Single runs: synthetic two-agent runs stored through
# SQL (a -2.2% difference inside the noise of autocorrelated seconds is "~"), and a real local
# campaign, whose batch-means intervals and tests equal noise_check.py's own batching of
# lg.sample. The older SQL signatures return the same rows; lgctl plan says what repeats buy.
. "$(dirname "$0")/lib.sh"
PY=""
for p in /usr/bin/python3 python3; do
    if "$p" -c 'import scipy.stats' 2>/dev/null; then PY=$p; break; fi
done
[ -n "$PY" ] || fail "no python3 with scipy (deploy/install-deps.sh installs python3-scipy)"
CHECK="$LG_SRC/tests/integration/noise_check.py"
pg_start
L="$LG_BIN/lgctl"
# Comparisons and ranks get 120 s a statement, not lgctl's default 10: their SQL (batch means,
# t quantiles) takes about 2 s here, and four times that beside a busy neighbour; this test
# checks their figures, not their speed.
lg_compare() { "$L" compare --timeout 120 "$@"; }
lg_rank() { "$L" rank --timeout 120 "$@"; }
"$L" db migrate >/dev/null

# ---- 1. repeats with known spread ----
# same: b is a (10000 +-300) in another order; shift: b is 10% above a, ~1% noise; small: b is
# 2% above a with 0.2% noise (significant, but under a 5% threshold); lat: latency 10% higher
# (worse); single: b is one imported figure, so its side has no interval and the difference is
# not tested.
cat >"$T/rep.csv" <<'CSV'
build,case,profile,direction,metric,value,unit
a,same,4k-rand,read,iops,10000,IOPS
a,same,4k-rand,read,iops,10300,IOPS
a,same,4k-rand,read,iops,9700,IOPS
b,same,4k-rand,read,iops,9700,IOPS
b,same,4k-rand,read,iops,10300,IOPS
b,same,4k-rand,read,iops,10000,IOPS
a,shift,4k-rand,read,iops,10000,IOPS
a,shift,4k-rand,read,iops,10100,IOPS
a,shift,4k-rand,read,iops,9900,IOPS
b,shift,4k-rand,read,iops,11000,IOPS
b,shift,4k-rand,read,iops,11150,IOPS
b,shift,4k-rand,read,iops,10900,IOPS
a,small,4k-rand,read,iops,10000,IOPS
a,small,4k-rand,read,iops,10020,IOPS
a,small,4k-rand,read,iops,9980,IOPS
b,small,4k-rand,read,iops,10200,IOPS
b,small,4k-rand,read,iops,10215,IOPS
b,small,4k-rand,read,iops,10190,IOPS
a,lat,4k-rand,read,lat_avg_ms,1.00,ms
a,lat,4k-rand,read,lat_avg_ms,1.01,ms
a,lat,4k-rand,read,lat_avg_ms,0.99,ms
b,lat,4k-rand,read,lat_avg_ms,1.10,ms
b,lat,4k-rand,read,lat_avg_ms,1.12,ms
b,lat,4k-rand,read,lat_avg_ms,1.09,ms
a,single,4k-rand,read,iops,10000,IOPS
a,single,4k-rand,read,iops,10100,IOPS
a,single,4k-rand,read,iops,9900,IOPS
b,single,4k-rand,read,iops,9770,IOPS
CSV
"$L" import results "$T/rep.csv" --name repeats >/dev/null || fail "import results"
lg_compare --by build --baseline a --campaign repeats --metric iops,lat_avg_ms --format json \
    >"$T/rep.json" || fail "compare --format json"
"$PY" "$CHECK" repeats "$T/rep.csv" "$T/rep.json" || fail "repeats differ from scipy's"
verdicts() { # the json's case:status:change of build b
    jq -r '[.rows[] | .labels.case + ":" + .cells.b.status + ":" + .cells.b.change] | join(" ")' "$1"
}
expect_eq "verdicts" "$(verdicts "$T/rep.json")" \
    "same:same:~ shift:better:+10.2% single:untested:-2.3% small:better:+2.0% lat:worse:+10.3%"
lg_compare --by build --baseline a --campaign repeats --metric iops,lat_avg_ms --threshold 5 \
    --format json >"$T/thr.json" || fail "compare --threshold 5"
"$PY" "$CHECK" repeats "$T/rep.csv" "$T/thr.json" 5 || fail "--threshold 5 differs from scipy's"
expect_eq "verdicts with --threshold 5" "$(verdicts "$T/thr.json")" \
    "same:same:~ shift:better:+10.2% single:same:~ small:same:~ lat:worse:+10.3%"

# "~" in every format, for the same case and for the small one under --threshold 5.
for f in table csv markdown; do
    for thr in 0 5; do
        lg_compare --by build --baseline a --campaign repeats --threshold $thr --format $f \
            >"$T/rep.$f.$thr" || fail "compare --format $f --threshold $thr"
    done
done
cat "$T/rep.table.0"
grep -qE '^4k-rand +read +- +- +same +10000\.0 ±745\.2 \(n=3\) +10000\.0 ±745\.2 \(n=3\) +~ \(\+0\.0%\)$' \
    "$T/rep.table.0" || fail "table: the same case is not ~ with both intervals"
grep -qE '^4k-rand +read +- +- +shift .* \+10\.2% 1\.10x better$' "$T/rep.table.0" ||
    fail "table: the 10% shift is not better"
grep -qE '^4k-rand +read +- +- +single .* -2\.3% 0\.98x untested \*$' "$T/rep.table.0" ||
    fail "table: an untested difference is not marked"
grep -q '^\* not tested against noise' "$T/rep.table.0" || fail "table: no note on the *"
grep -qE '^4k-rand +read +- +- +small .* ~ \(\+2\.0%\)$' "$T/rep.table.5" ||
    fail "table: --threshold 5 leaves the small shift"
grep -q '~: a difference within the noise (its 95% CI includes 0), or under 5%' "$T/rep.table.5" ||
    fail "table: the heading does not give the threshold"
head -n 1 "$T/rep.csv.0" | tr ',' '\n' | grep -qx b_change || fail "csv: no b_change column"
csvcol() { # FILE CASE COLUMN
    awk -F, -v c="$2" -v col="$3" 'NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
        $0 ~ "," c "," { print $h[col] }' "$1"
}
expect_eq "csv: same case" "$(csvcol "$T/rep.csv.0" same b_status):$(csvcol "$T/rep.csv.0" same b_change)" "same:~"
expect_eq "csv: p-value of the shift" "$(csvcol "$T/rep.csv.0" shift b_p_value | cut -c1-8)" "0.000512"
expect_eq "csv: small case under --threshold 5" "$(csvcol "$T/rep.csv.5" small b_change)" "~"
grep -qE '^\| 4k-rand \| read \| - \| - \| same \| 10000\.0 ±745\.2 \(n=3\) \| 10000\.0 ±745\.2 \(n=3\) \| ~ \(\+0\.0%\) \\\[95% CI -6\.8% to \+6\.8%, p=1\\\] \|$' \
    "$T/rep.markdown.0" || { cat "$T/rep.markdown.0"; fail "markdown: the same case"; }
# (Markdown writes [ and ] behind a backslash, so that no text becomes a link: rendered, \[ is [)
grep -qE '^\| 4k-rand \| read \| - \| - \| small \| .* \| ~ \(\+2\.0%\) \\\[95% CI \+1\.[0-9]% to \+2\.[0-9]%, p=' \
    "$T/rep.markdown.5" || { cat "$T/rep.markdown.5"; fail "markdown: the small case under --threshold 5"; }
echo "ok: ~ in table, csv, json and markdown; markdown and csv carry the interval and p-value"

# rank: the same ideas against the leader (the synthetic single runs below give one within the
# noise)
lg_rank --metric iops --by build --campaign repeats --where case=shift --format json >"$T/rank.json" ||
    fail "rank json"
expect_eq "rank: the shift" "$(jq -r '.[1] | [.config, .status, .change, (.p_value < 0.001)] | map(tostring) | join(" ")' "$T/rank.json")" \
    "a behind -9.2% true"
lg_rank --metric iops --by build --campaign repeats --where case=small --threshold 5 >"$T/rank.txt" ||
    fail "rank --threshold 5"
cat "$T/rank.txt"
grep -qE ' 2 +a +10000\.0 ±49\.7 \(n=3\) +~ \(2\.0% behind\)$' "$T/rank.txt" || fail "rank: ~ under --threshold 5"

# refusals
rc=0
lg_compare --by build --threshold -1 >/dev/null 2>"$T/u.err" || rc=$?
expect_eq "exit code for a bad --threshold" $rc 2
grep -qF -- '--threshold: "-1" is not a percentage from 0 to 100' "$T/u.err" || { cat "$T/u.err"; fail "bad --threshold message"; }

# ---- 2. SQL: the older signatures return the same rows and columns as the new ones ----
same_rows() { # name sql-a sql-b
    expect_eq "$1" "$(q "SELECT (SELECT count(*) FROM ($2 EXCEPT ALL $3) x) + (SELECT count(*) FROM ($3 EXCEPT ALL $2) y)")" 0
}
same_rows "lg.compare, 3 and 7 arguments" "SELECT * FROM lg.compare('build', 'a', 'iops')" \
    "SELECT * FROM lg.compare('build', 'a', 'iops', '{}', NULL, NULL, 0)"
same_rows "lg.compare, 6 and 7 arguments" "SELECT * FROM lg.compare('build', 'a', 'iops', '{}', '{repeats}', '{case}')" \
    "SELECT * FROM lg.compare('build', 'a', 'iops', '{}', '{repeats}', '{case}', 0)"
same_rows "lg.rank, 4 and 5 arguments" "SELECT * FROM lg.rank('iops', '{}', NULL, 'build')" \
    "SELECT * FROM lg.rank('iops', '{}', NULL, 'build', 0)"
columns() { # the result columns of a function
    q "SELECT string_agg(n, ',' ORDER BY o) FROM pg_proc p,
       unnest(p.proargnames, p.proargmodes) WITH ORDINALITY u(n, m, o)
       WHERE p.oid = '$1'::regprocedure AND u.m = 't'"
}
expect_eq "lg.compare's columns, 5 arguments" "$(columns 'lg.compare(text,text,text,jsonb,text[])')" \
    "profile,direction,protocol,threads,qd,labels,dim_value,value,n,baseline_value,pct,ratio,status,key,ci_low,ci_high,ci_method,p_value,diff_ci_low_pct,diff_ci_high_pct,change"
expect_eq "lg.compare's columns, 6 and 7 arguments" \
    "$(columns 'lg.compare(text,text,text,jsonb,text[],text[])') $(columns 'lg.compare(text,text,text,jsonb,text[],text[],float8)')" \
    "$(columns 'lg.compare(text,text,text,jsonb,text[])') $(columns 'lg.compare(text,text,text,jsonb,text[])')"
expect_eq "lg.rank's columns, 4 and 5 arguments" \
    "$(columns 'lg.rank(text,jsonb,text[],text)') $(columns 'lg.rank(text,jsonb,text[],text,float8)')" \
    "$(columns 'lg.rank(text,jsonb,text[],text,float8)') profile,direction,protocol,threads,qd,rank,config,value,n,leader_value,gap_pct,ratio,ci_low,ci_high,ci_method,p_value,gap_ci_low_pct,gap_ci_high_pct,status,change,qd_short"
expect_eq "threshold refused by SQL" "$(psql -qAt -c "SELECT 1 FROM lg.compare('build', 'a', 'iops', '{}', NULL, NULL, -1)" 2>&1 | grep -o 'threshold -1 is not a percentage')" \
    "threshold -1 is not a percentage"
expect_eq "t quantiles in SQL" "$(q "SELECT round(lg.t_quantile(0.975, 2)::numeric, 6) || ' ' || round(lg.t_quantile(0.975, 9)::numeric, 6)
    || ' ' || round(lg.t_quantile(0.975, 30)::numeric, 6)")" "4.302653 2.262157 2.042272"
# far in the tails (a clear difference between many repeats): 0 and 1, not an underflow error
# p = 0.975 from 3 degrees of freedom is a polynomial in 1/df (schema/t975_fit.py): exact to 1e-13
# against 40-digit values (mpmath), where Newton on lg.t_cdf was 5e-11 off at 65,000 df; the
# bracketed Newton below 3 df and for other p agrees with it within 1e-9
expect_eq "t 0.975-quantiles to 1e-13" "$(q "SELECT string_agg(round(lg.t_quantile(0.975, d)::numeric, 13)::text, ' '
    ORDER BY d) FROM unnest(ARRAY[3, 4.37, 65204.1864581854923201]::float8[]) d")" \
    "3.1824463052837 2.6861481000409 1.9600003673959"
expect_eq "the polynomial against Newton (p a double above 0.975)" "$(q "SELECT max(abs(
    lg.t_quantile(0.975, d) - lg.t_quantile(0.9750000000000001, d))) < 1e-9
    FROM (SELECT 3 * exp(i / 20.0) AS d FROM generate_series(0, 150) i) x")" t
expect_eq "t far in the tails in SQL" "$(q "SELECT lg.t_cdf(500, 959) || ' ' || lg.t_cdf(-500, 959)
    || ' ' || (lg.welch(100, 0.01, 959, 0.01, 959)).p_value")" "1 0 0"

# ---- 3. single runs: batch means of their seconds ----
"$PY" "$CHECK" gen "$T/syn.sql" || fail "synthetic runs"
psql -qAt -v ON_ERROR_STOP=1 -f "$T/syn.sql" >/dev/null || fail "storing the synthetic runs"
export_samples() { # CAMPAIGN PREFIX
    psql -qAt -v ON_ERROR_STOP=1 -c "\copy (SELECT s.run_id, s.agent_id, s.seq, s.direction,
        s.interval_ms, s.ios, s.bytes, s.lat_n, s.lat_sum FROM lg.sample s JOIN lg.run r USING (run_id)
        JOIN lg.campaign c USING (campaign_id) WHERE c.name = '$1') TO '$2.samples.csv' CSV HEADER"
    psql -qAt -v ON_ERROR_STOP=1 -c "\copy (SELECT run_id, direction, labels ->> 'build' AS build,
        metric, value FROM lg.v_metric WHERE campaign = '$1') TO '$2.results.csv' CSV HEADER"
}
export_samples synthetic "$T/syn"
lg_compare --by build --baseline s1 --campaign synthetic --metric iops,mbps,lat_avg_ms \
    --format json >"$T/syn.json" || fail "compare the synthetic runs"
"$PY" "$CHECK" batches "$T/syn.samples.csv" "$T/syn.json" "$T/syn.results.csv" ||
    fail "synthetic runs differ from noise_check.py's batching"
expect_eq "synthetic verdicts" "$(jq -r '[.rows[] | .metric + ":" + .cells.s2.change + ":" + .cells.s3.status] | join(" ")' "$T/syn.json")" \
    "iops:~:worse mbps:~:worse lat_avg_ms:~:worse"
lg_rank --metric iops --by build --campaign synthetic >"$T/rank.syn.txt" || fail "rank the synthetic runs"
cat "$T/rank.syn.txt"
grep -qE ' 2 +s2 +9775\.7 ±152\.3 +~ \(2\.2% behind\)$' "$T/rank.syn.txt" || fail "rank: ~ within the noise"
grep -qE ' 3 +s3 +8997\.4 ±19\.5 +10\.0% behind \(0\.90x\)$' "$T/rank.syn.txt" || fail "rank: behind"
# A search's iops_at_limit knows the noise of its best probe: searches whose best probes are
# these runs compare with the same intervals and p-values as the runs' IOPS.
q "INSERT INTO lg.search (campaign_id, sut_config_id, config_ordinal, protocol, profile,
       direction, metric, limit_ms, vary, min_load, max_load, steps, resolution_pct, threads, qd,
       state, probes, good_run_id, good_load, iops_at_limit)
   SELECT r.campaign_id, r.sut_config_id, r.config_ordinal, r.protocol, r.profile, x.direction,
          'p99_ms', 5, 'qd', 1, 256, 10, 5, r.threads, r.qd, 'knee', 1, r.run_id, r.qd, x.iops
   FROM lg.run r JOIN lg.campaign c USING (campaign_id)
   JOIN lg.result x ON x.run_id = r.run_id AND x.agent_id IS NULL
   WHERE c.name = 'synthetic'" >/dev/null
lg_compare --by build --baseline s1 --campaign synthetic --metric iops_at_limit \
    --format json >"$T/syn.lim.json" || fail "compare the synthetic searches"
noise() { jq -c '[.rows[] | .cells[] | [.ci_low, .ci_high, .p_value, .status]]' "$1"; }
expect_eq "iops_at_limit: the intervals and tests of its best probe's IOPS" "$(noise "$T/syn.lim.json")" \
    "$(jq '.rows |= map(select(.metric == "iops"))' "$T/syn.json" >"$T/syn.iops.json"; noise "$T/syn.iops.json")"
# readers see the batches (through the function, not the samples table)
expect_eq "lg.batch_means as lg_reader" "$(psql -qAt -v ON_ERROR_STOP=1 -c "SET ROLE lg_reader" -c "
    SELECT count(*) || ' ' || sum(b.seconds) FROM lg.v_run r JOIN lg.v_campaign c USING (campaign_id),
    lg.batch_means(r.run_id, 'read', 'iops') b WHERE c.name = 'synthetic' AND r.ordinal = 1")" "10 30"

# A real local campaign: two configs, one 13 s read run each (13 seconds: 6 batches of 2, the
# first second left out).
mkdir -p "$T/target"
cat >"$T/spec.yaml" <<SPEC
name: it-noise
configs:
  - labels: {build: x}
    target: $T/target/data.bin
  - labels: {build: y}
    target: $T/target/data.bin
between_configs: none
size: 32M
profiles: [{name: r4k, bs: 4k, pattern: random, read: 100, sweep: none}]
threads: 1
qd: 2
ramp: 0s
runtime: 13s
precondition: none
SPEC
"$L" plan "$T/spec.yaml" >"$T/plan1.txt" || fail "plan"
grep -q "^precision: repeats 1: a figure's 95% CI comes from 6 batch means (2 s each)" "$T/plan1.txt" ||
    { cat "$T/plan1.txt"; fail "plan: the precision of one repeat"; }
"$L" --data-dir "$T/lgdata" run "$T/spec.yaml" >"$T/run.txt" 2>"$T/run.log" ||
    { cat "$T/run.log" >&2; fail "lgctl run exited $?"; }
export_samples it-noise "$T/real"
lg_compare --by build --baseline x --campaign it-noise --metric iops,mbps,lat_avg_ms,p99_ms \
    --format json >"$T/real.json" || fail "compare the real runs"
"$PY" "$CHECK" batches "$T/real.samples.csv" "$T/real.json" "$T/real.results.csv" ||
    fail "the real runs differ from noise_check.py's batching"
expect_eq "real runs: how each interval was made" \
    "$(jq -r '[.rows[] | .metric + ":" + (.cells.y.ci_method // "none")] | join(" ")' "$T/real.json")" \
    "iops:batch means mbps:batch means lat_avg_ms:batch means p99_ms:none"
lg_compare --by build --baseline x --campaign it-noise --metric iops,p99_ms
echo "ok: real runs: batch-means intervals for IOPS, MB/s and average latency; p99 untested"

# ---- 4. lgctl plan: what repeats buy ----
sed 's/^precondition: none$/precondition: none\nrepeats: 3/' "$T/spec.yaml" >"$T/spec3.yaml"
"$L" plan "$T/spec3.yaml" >"$T/plan3.txt" || fail "plan, repeats 3"
grep '^precision:' "$T/plan3.txt"
"$PY" "$CHECK" plan 3 "$T/plan3.txt" || fail "plan, repeats 3"
sed 's/^precondition: none$/precondition: none\nrepeats: 10/' "$T/spec.yaml" >"$T/spec10.yaml"
"$L" plan "$T/spec10.yaml" >"$T/plan10.txt" || fail "plan, repeats 10"
"$PY" "$CHECK" plan 10 "$T/plan10.txt" || fail "plan, repeats 10"
echo "PASS"
