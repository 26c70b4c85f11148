#!/usr/bin/env bash
# it_search: the latency-bounded load search against a target whose latency really grows with
# load. A NAS host (a network namespace) serves SMB behind its veth shaped with tbf; two load
# hosts (two more namespaces) run agents; the controller runs in the root namespace.
#   1. One agent, vary threads: the search finds a knee. From the probes stored in the database
#      the test checks that the limit is crossed between the reported last-good and first-bad
#      loads (good passed, bad failed, adjacent), that every probe's value is the p99 of all its
#      I/Os computed here from the raw fio JSON (summed histograms), that the probes the search
#      did not need are skipped, that every trial over the limit was tried again at its load
#      (confirm: 1, the default) and the bracket holds for the trials that counted, and that the
#      curve point at 50% ran at half the best IOPS.
#   2. Two agents in two namespaces, the same search: every probe ran on both, its value is the
#      p99 of both agents' histograms summed (the merged figure, not an average), and their IOPS
#      at the knee together are about one agent's (the shaped link is the limit).
#   3. A rate search (offered IOPS, paced across both agents): unpaced first, then rates; the
#      paced probes' offered rate is split over the agents' threads and reached.
#   4. lgctl report shows the searches; compare shows iops_at_limit; lg-export draws the curve.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/smb.sh"
command -v tc >/dev/null || fail "tc is missing (iproute2)"
pg_start
lg_keys h2 h3
"$LG_BIN/lgctl" db migrate >/dev/null

make_hosts 3 s 233
NAS_NS=${HOST_NS[1]}
NAS_IP=$HOSTS_NET.2
# The NAS's link: 60 Mbit/s out of the NAS (what reads come back over), a queue of up to 400 ms.
# Past a few I/Os in flight the link is the bottleneck and latency grows with every one more.
ip netns exec "$NAS_NS" tc qdisc add dev "${HOST_IF[1]}" root tbf rate 60mbit burst 16kb \
    latency 400ms || fail "tc tbf on the NAS link"
SMB_ADDR=$NAS_IP SMB_NETNS=$NAS_NS smb_start
install -d -o "$SMB_USER" "$SMB_SHARE_DIR/lg"
SMB_BASE="smb://$NAS_IP:$SMB_PORT/$SMB_SHARE"

start_controller --tcp "$HOSTS_NET.1"
for i in 2 3; do
    start_agent "h$i" --wrap "ip netns exec ${HOST_NS[$i]}" \
        --smb-credentials "$SMB_CREDS" --allow "$SMB_BASE" --allow-destructive
done
expect_eq "agents on two hosts" "$(q "SELECT string_agg(name, ',' ORDER BY name) FROM lg.agent")" h2,h3

LIMIT=${LG_SEARCH_LIMIT:-4}
# submit NAME AGENTS SEARCH [EXTRA]: a campaign of one 4 KiB random read profile with that search
submit() {
    cat >"$T/$1.yaml" <<SPEC
name: $1
sut: {labels: {build: nas1}}
target: "$SMB_BASE/lg/$1.dat"
protocol: smb
size: 8M
runtime: 2s
ramp: 1s
precondition: none
agents: $2
profiles:
  - {name: r4k, bs: 4k, pattern: random, read: 100, search: $3 $4}
SPEC
    "$LG_BIN/lgctl" --controller "ipc://$T/ctl.sock" submit "$T/$1.yaml" >"$T/$1.submit" 2>&1 ||
        fail "submit $1: $(cat "$T/$1.submit")"
    local st=""
    for _ in $(seq 1 1800); do
        st=$(q "SELECT state FROM lg.campaign WHERE name = '$1'")
        [ "$st" = done ] || [ "$st" = failed ] && break
        sleep 0.2
    done
    expect_eq "campaign $1" "$st" done
    q "SELECT probe, r.state, threads, qd, rate_total, round(search_value::numeric, 3),
              round(search_iops::numeric) FROM lg.run r JOIN lg.campaign c USING (campaign_id)
       WHERE c.name = '$1' ORDER BY ordinal" | sed "s/^/  $1: /"
    q "SELECT s.state, s.message FROM lg.search s JOIN lg.campaign c USING (campaign_id)
       WHERE c.name = '$1'" | sed "s/^/  $1: /"
}

# p99_from_json RUN: the p99 (ms) of all I/Os of a run, from the raw fio JSON of every agent:
# lat_ns bins of every job and direction summed, the first bucket whose cumulative count reaches
# 99% (as fio computes it).
p99_from_json() {
    q "WITH ra AS (SELECT fio_json::jsonb AS j FROM lg.run_agent WHERE run_id = $1),
       jobs AS (SELECT e AS job FROM ra, jsonb_array_elements(coalesce(j->'jobs', j->'client_stats')) e
                WHERE e->>'jobname' <> 'All clients'),
       bins AS (SELECT b.key::numeric AS v, sum(b.value::numeric) AS c FROM jobs,
                unnest(ARRAY['read', 'write', 'trim']) d, jsonb_each_text(job->d->'lat_ns'->'bins') b
                GROUP BY 1),
       cum AS (SELECT v, sum(c) OVER (ORDER BY v) AS cum FROM bins),
       tot AS (SELECT sum(c) AS t FROM bins)
       SELECT v / 1e6 FROM cum, tot WHERE cum >= 0.99 * t ORDER BY v LIMIT 1"
}

# search NAME AGENTS SEARCH [EXTRA]: submit; sets CAMP to the campaign to check. A first probe
# over the limit at one thread is the machine, not the link: at one I/O in flight the link gives
# about 1,700 IOPS at under 1 ms p99, and a stall of this 2-core machine (a CI run alone: 968
# IOPS at 9.8 ms) can take that probe over the limit. The search tries a probe over the limit
# once more before it acts on it (confirm: 1, the default), so only a stall of both trials ends
# it "first-over". The search said so truthfully, which is checked here (every trial ran at the
# first load, every stored value is fio's p99 and over the limit); then the campaign is
# submitted once more, and that one must find the knee.
search() {
    local name=$1
    shift
    submit "$name" "$@"
    CAMP=$name
    local st
    st=$(q "SELECT s.state FROM lg.search s JOIN lg.campaign c USING (campaign_id) WHERE c.name = '$name'")
    [ "$st" = first-over ] || return 0
    local run v want l
    l=$(q "SELECT s.limit_ms FROM lg.search s JOIN lg.campaign c USING (campaign_id) WHERE c.name = '$name'")
    expect_eq "$name: first-over: every trial at the first load" "$(q "SELECT count(DISTINCT load)
        || ',' || count(*) FROM lg.v_search_probe p JOIN lg.search s USING (search_id)
        JOIN lg.campaign c USING (campaign_id) WHERE c.name = '$name'")" "1,2"
    for run in $(q "SELECT run_id FROM lg.run r JOIN lg.campaign c USING (campaign_id)
                    WHERE c.name = '$name' AND probe IS NOT NULL AND r.state <> 'skipped'"); do
        v=$(q "SELECT search_value FROM lg.run WHERE run_id = $run")
        want=$(p99_from_json "$run")
        awk -v a="$v" -v b="$want" -v l="$l" 'BEGIN { exit !(a == b && a > l) }' ||
            fail "$name: first-over, but run $run's p99 $v ms (fio: $want ms) is not over the limit"
    done
    echo "note: $name: the machine stalled both trials of the first probe; submitted again as $name-again"
    submit "$name-again" "$@"
    CAMP=$name-again
}

# check_search NAME NAGENTS: the knee's bracket holds and every probe's value is its fio p99.
check_search() {
    local name=$1 n=$2 sid
    sid=$(q "SELECT search_id FROM lg.search s JOIN lg.campaign c USING (campaign_id)
             WHERE c.name = '$name'")
    expect_eq "$name: outcome" "$(q "SELECT state FROM lg.search WHERE search_id = $sid")" knee
    local ok
    ok=$(q "SELECT g.value_ms <= s.limit_ms AND b.value_ms > s.limit_ms
              AND b.load = g.load + 1 AND g.load = s.good_load AND b.load = s.bad_load
              AND abs(s.iops_at_limit - g.iops) < 1e-6 * g.iops
            FROM lg.search s JOIN lg.v_search_probe g ON g.run_id = s.good_run_id
            JOIN lg.v_search_probe b ON b.run_id = s.bad_run_id WHERE s.search_id = $sid")
    expect_eq "$name: good load passed, the next load up failed" "$ok" t
    # No probe below the good load failed and none at or above the bad load passed (of the trials
    # the search acted on: one over the limit and tried again is followed by the one that counts).
    expect_eq "$name: probes on the right side of the knee" "$(q "SELECT count(*) FROM
        lg.v_search_probe p JOIN lg.search s USING (search_id) WHERE p.search_id = $sid AND
        p.counts AND ((p.load <= s.good_load AND p.over_limit)
                      OR (p.load >= s.bad_load AND NOT p.over_limit))")" 0
    # Every trial over the limit was tried again at its load (confirm: 1), and the repeat is the
    # next probe; with confirm: 0 none was.
    expect_eq "$name: trials over the limit tried again" "$(q "SELECT count(*) FROM
        lg.v_search_probe p JOIN lg.search s USING (search_id) WHERE p.search_id = $sid AND
        p.over_limit AND p.trial = 1 AND (s.confirm > 0) = NOT EXISTS (SELECT 1 FROM
        lg.v_search_probe n WHERE n.search_id = p.search_id AND n.probe = p.probe + 1
        AND n.load = p.load AND n.trial = 2)")" 0
    local run v want nag
    for run in $(q "SELECT run_id FROM lg.v_search_probe WHERE search_id = $sid"); do
        nag=$(q "SELECT count(*) FROM lg.run_agent WHERE run_id = $run AND state = 'done'")
        expect_eq "$name: run $run ran on" "$nag" "$n"
        v=$(q "SELECT search_value FROM lg.run WHERE run_id = $run")
        want=$(p99_from_json "$run")
        awk -v a="$v" -v b="$want" 'BEGIN { exit !(a == b) }' ||
            fail "$name: run $run: stored p99 $v ms, fio's histograms say $want ms"
        check_merged "$run" read >/dev/null
    done
    echo "ok: $name: every probe's value is the p99 of its agents' summed fio histograms"
    expect_eq "$name: probes not needed are skipped" "$(q "SELECT count(*) FROM lg.run
        WHERE search_id = $sid AND probe IS NOT NULL AND state = 'pending'")" 0
}

# ---- 1. one agent ----
search one "[{name: h2}]" "{metric: p99_ms, limit: $LIMIT, vary: threads, qd: 1, max: 32, steps: 10}" ", curve: [50]"
ONE=$CAMP
check_search "$ONE" 1
good1=$(q "SELECT good_load FROM lg.search s JOIN lg.campaign c USING (campaign_id) WHERE c.name = '$ONE'")
best1=$(q "SELECT iops_at_limit FROM lg.search s JOIN lg.campaign c USING (campaign_id) WHERE c.name = '$ONE'")
# The curve point: 50% of the best IOPS, at the knee's load, offered and reached.
read -r cthreads crate ciops < <(q "SELECT r.threads, r.rate_total, x.iops FROM lg.run r
    JOIN lg.campaign c USING (campaign_id) JOIN lg.result x ON x.run_id = r.run_id
    AND x.agent_id IS NULL WHERE c.name = '$ONE' AND r.curve_pct = 50" | tr '|' ' ')
expect_eq "curve: at the knee's threads" "$cthreads" "$good1"
awk -v r="$crate" -v b="$best1" 'BEGIN { exit !(r == int(b / 2 + 0.5)) }' ||
    fail "curve: offered $crate IOPS, want half of $best1"
awk -v i="$ciops" -v r="$crate" 'BEGIN { exit !(i > 0.9 * r && i < 1.1 * r) }' ||
    fail "curve: reached $ciops IOPS of the $crate offered"
echo "ok: curve at 50%: $crate IOPS offered at ${cthreads}T, $ciops reached"

# ---- 2. two agents, the same search: the merged figure ----
# Its limit is 2.5 times one agent's: two agents start at two I/Os in flight on the shaped link,
# where one stall of this 2-core machine put the first probe's p99 at 9 ms against 4 (a CI run
# beside nothing else: "first-over"); the knee still lies a few threads up, where the link is full.
# It checks the merged figure, not the confirmation (sections 1 and 3 and it_search_confirm do):
# confirm: 0 keeps it at the probes it took before the search confirmed (the knee's first load
# over the limit is always tried twice otherwise, and near the knee p99 often is).
LIMIT2=${LG_SEARCH_LIMIT2:-10}
search two "[{name: h2}, {name: h3}]" "{metric: p99_ms, limit: $LIMIT2, vary: threads, qd: 1, max: 32, steps: 10, confirm: 0}" ""
TWO=$CAMP
check_search "$TWO" 2
good2=$(q "SELECT good_load FROM lg.search s JOIN lg.campaign c USING (campaign_id) WHERE c.name = '$TWO'")
best2=$(q "SELECT iops_at_limit FROM lg.search s JOIN lg.campaign c USING (campaign_id) WHERE c.name = '$TWO'")
# The link is the limit, so both agents together get about what one got at its knee: the merged
# figure is of both (per agent, each would show half). Which threads count the knee falls on is
# left unchecked: p99 near the limit moves a load point either way on this 2-core machine (seen:
# one agent's knee at 2 threads, two agents' at 3 each, with the same IOPS).
awk -v a="$best2" -v b="$best1" 'BEGIN { exit !(a > 0.75 * b && a < 1.25 * b) }' ||
    fail "two agents' IOPS at the knee ($best2) is not about one agent's ($best1): not merged?"
echo "ok: the knee at $good2 threads per agent with two agents ($best2 IOPS in all), $good1 with one ($best1 IOPS)"

# ---- 3. a rate search over both agents ----
# (its own metric, limit and probe runtime: at a low paced rate a short probe has a few hundred
# I/Os and its p99 is one of its slowest few, a stall of the 2-core machine; p95 over 3 s probes
# from 800 IOPS is steady, well under 6 ms when paced below the link's rate, and over it unpaced,
# where 16 I/Os queue on the link; unpaced and over the limit, that probe is tried twice, and the
# resolution of 10% ends the search a probe earlier, as before)
submit rate "[{name: h2}, {name: h3}]" "{metric: p95_ms, limit: 6, vary: rate, min: 800, steps: 6, resolution: 10, runtime: 3s, threads: 8, qd: 1}" ""
expect_eq "rate: first probe unpaced" "$(q "SELECT rate_total FROM lg.run r JOIN lg.campaign c
    USING (campaign_id) WHERE c.name = 'rate' AND probe = 1")" 0
# The unpaced probe is over the limit (16 I/Os queue on the link): it is tried again, unpaced.
expect_eq "rate: an unpaced probe over the limit is tried again" "$(q "SELECT count(*) FROM
    lg.v_search_probe p JOIN lg.search s USING (search_id) JOIN lg.campaign c USING (campaign_id)
    WHERE c.name = 'rate' AND p.probe = 1 AND p.over_limit AND NOT EXISTS (SELECT 1 FROM
    lg.v_search_probe n WHERE n.search_id = p.search_id AND n.probe = 2 AND n.rate_total = 0
    AND n.trial = 2)")" 0
expect_eq "rate: probes run the search's own runtime" "$(q "SELECT string_agg(DISTINCT
    r.runtime_s::text, ',') FROM lg.run r JOIN lg.campaign c USING (campaign_id)
    WHERE c.name = 'rate' AND probe IS NOT NULL")" 3
# Every paced probe: 8 threads on each of 2 agents share the rate; they reach it within 10%.
q "SELECT r.run_id, r.rate_total, x.iops FROM lg.run r JOIN lg.campaign c USING (campaign_id)
   JOIN lg.result x ON x.run_id = r.run_id AND x.agent_id IS NULL
   WHERE c.name = 'rate' AND r.probe IS NOT NULL AND r.rate_total > 0 AND r.state = 'done'
     AND r.search_value <= (SELECT limit_ms FROM lg.search s WHERE s.search_id = r.search_id)" |
while IFS='|' read -r run rate iops; do
    awk -v i="$iops" -v r="$rate" 'BEGIN { exit !(i > 0.9 * r && i < 1.1 * r) }' ||
        fail "rate: run $run reached $iops IOPS of the $rate offered"
    per=$(q "SELECT string_agg(DISTINCT e->'job options'->>'rate_iops', ',') FROM lg.run_agent,
        jsonb_array_elements(fio_json::jsonb->'jobs') e WHERE run_id = $run")
    [ -n "$per" ] || per=$(q "SELECT string_agg(DISTINCT fio_json::jsonb->'global options'->>'rate_iops', ',')
        FROM lg.run_agent WHERE run_id = $run")
    expect_eq "rate: run $run: fio's rate_iops per thread for $rate over 16 threads" "$per" \
        "$(( (rate + 8) / 16 ))"
done
st=$(q "SELECT s.state FROM lg.search s JOIN lg.campaign c USING (campaign_id) WHERE c.name = 'rate'")
case "$st" in knee | steps) ;; *) fail "rate: outcome $st" ;; esac
echo "ok: rate search: $st"

# ---- 4. what the reviewer sees ----
"$LG_BIN/lgctl" report --campaign "$TWO" >"$T/report.txt" || fail "report"
cat "$T/report.txt"
grep -q "^searches" "$T/report.txt" || fail "report: no searches table"
grep -qE "p99_ms passed $LIMIT2 ms between threads $good2 .* and threads $((good2 + 1))" "$T/report.txt" ||
    fail "report: the knee is not named"
# (their searches differ in limit: --ignore search compares across it, as a reviewer would)
"$LG_BIN/lgctl" compare --by campaign --metric iops_at_limit --campaign "$ONE,$TWO" --ignore search \
    --format csv >"$T/cmp.csv" 2>"$T/cmp.err" || fail "compare iops_at_limit: $(cat "$T/cmp.err")"
cat "$T/cmp.csv"
grep -q ",$(echo "$best1" | cut -d. -f1)\." "$T/cmp.csv" || fail "compare: no iops_at_limit of one"
"$LG_BIN/lg-export" --out "$T/site" --campaign "$TWO" >"$T/export.log" 2>&1 || true
[ -s "$T/site/09_search_latency_curve.svg" ] || fail "lg-export: no search curve: $(cat "$T/export.log")"
grep -q 'class="limit"' "$T/site/09_search_latency_curve.svg" || fail "curve: no limit line"
expect_eq "curve: one knee ringed" "$(grep -c 'class="mark"' "$T/site/09_search_latency_curve.svg")" 1
PNG_DIR=$(cd "$LG_BIN/.." && pwd)/export-test
chrome_shot "$T/site/09_search_latency_curve.svg" "$PNG_DIR/search_curve.png"
[ -s "$PNG_DIR/search_curve.png" ] || fail "chromium wrote no search_curve.png"
echo "ok: chromium rendered the search curve: $PNG_DIR/search_curve.png"
