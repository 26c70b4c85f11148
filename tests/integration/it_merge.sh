#!/usr/bin/env bash
# it_merge: one run on two agents with 4 fio jobs each. The merged result equals what the test
# computes itself from the raw fio JSON of both agents (sums, pooled mean and stddev, percentiles
# of the summed histograms); each agent's own row is kept too; the interval samples of each
# agent add up to its final I/O count.
. "$(dirname "$0")/lib.sh"
pg_start
lg_keys a1 a2
"$LG_BIN/lgctl" db migrate >/dev/null
start_controller
start_agent a1
start_agent a2
expect_eq "agents registered" "$(q "SELECT string_agg(name, ',' ORDER BY name) FROM lg.agent")" a1,a2
sleep 2.2 # a heartbeat each, after a clock exchange
"$LG_BIN/lgctl" --controller "ipc://$T/ctl.sock" agents >"$T/agents.txt" || fail "lgctl agents"
cat "$T/agents.txt"
expect_eq "lgctl agents" "$(awk 'NR > 1 { print $1 ":" $3 }' "$T/agents.txt" | sort | tr '\n' ' ')" \
    "a1:idle a2:idle "
grep -q "fio-3" "$T/agents.txt" || fail "lgctl agents does not show the fio version"
# Same host, same clock: the measured offset is within a millisecond and a round trip was seen.
awk 'NR > 1 { o = $7 < 0 ? -$7 : $7; if (o > 1.0 || $8 <= 0) bad = 1 } END { exit bad }' \
    "$T/agents.txt" || fail "clock offset or round trip out of range"
echo "ok: clock offsets within 1 ms, round trips measured"
cat >"$T/spec.yaml" <<'SPEC'
name: it-merge
target: "null"
profiles: [{name: mix, bs: 4k, pattern: random, read: 70}]
threads: 4
qd: 8
runtime: 3s
precondition: none
SPEC
"$LG_BIN/lgctl" --controller "ipc://$T/ctl.sock" submit "$T/spec.yaml" >/dev/null ||
    fail "submit failed"
for _ in $(seq 1 300); do
    [ "$(q "SELECT state FROM lg.campaign")" = done ] && break
    sleep 0.1
done
expect_eq "campaign" "$(q "SELECT state FROM lg.campaign")" done
run=$(q "SELECT run_id FROM lg.run")
expect_eq "agents in the run, 4 jobs each" "$(q "SELECT string_agg(a.name || ':' || njobs, ','
    ORDER BY a.name) FROM lg.run_agent JOIN lg.agent a USING (agent_id) WHERE run_id = $run")" \
    "a1:4,a2:4"
check_merged "$run" read
check_merged "$run" write
# Both agents started fio at the agreed instant: the spread, in the controller's clock, is small.
skew=$(q "SELECT start_skew_us FROM lg.run WHERE run_id = $run")
[ -n "$skew" ] && [ "$skew" -ge 0 ] && [ "$skew" -lt 20000 ] || fail "start skew $skew us"
echo "ok: start skew ${skew} us between the two agents"
expect_eq "per-agent rows" "$(q "SELECT count(*) FROM lg.result WHERE run_id = $run
    AND agent_id IS NOT NULL")" 4
# Merged IOPS is the sum of the agents' IOPS.
expect_eq "merged IOPS = sum of agents' IOPS" "$(q "SELECT bool_and(abs(m.iops - s.iops) <= 1e-9 * s.iops)
    FROM lg.result m JOIN (SELECT direction, sum(iops) iops FROM lg.result WHERE run_id = $run
    AND agent_id IS NOT NULL GROUP BY 1) s USING (direction)
    WHERE m.run_id = $run AND m.agent_id IS NULL")" t
expect_eq "agents whose samples do not add up" "$(q "
  SELECT count(*) FROM lg.result x WHERE x.run_id = $run AND x.agent_id IS NOT NULL
    AND x.ios <> (SELECT sum(s.ios) FROM lg.sample s WHERE s.run_id = x.run_id
                  AND s.agent_id = x.agent_id AND s.direction = x.direction)")" 0
# The interval histograms add up to the final histogram, bucket by bucket.
expect_eq "buckets where samples and result disagree" "$(q "
  WITH s AS (SELECT agent_id, direction, b.bucket::text AS key, sum(b.count) c FROM lg.sample,
             lg.hist_unpack(hist) b WHERE run_id = $run GROUP BY 1, 2, 3),
       r AS (SELECT agent_id, direction, b.key, b.value::bigint c FROM lg.result,
             jsonb_each_text(hist) b WHERE run_id = $run AND agent_id IS NOT NULL)
  SELECT count(*) FROM s FULL JOIN r USING (agent_id, direction, key)
  WHERE s.c IS DISTINCT FROM r.c")" 0
# The compact sample histograms (schema 011): what the migration's SQL packs is byte for byte what
# the controller's C packs, and unpacking gives back the jsonb form.
expect_eq "samples whose histogram SQL would pack differently" "$(q "SELECT count(*) FROM lg.sample
    WHERE run_id = $run AND hist IS DISTINCT FROM lg.hist_pack(lg.hist_json(hist))")" 0
expect_eq "jsonb -> compact -> jsonb" "$(q "SELECT lg.hist_json(lg.hist_pack(
    '{\"0\": 1, \"3\": 127, \"700\": 128, \"1855\": 1099511627776}'::jsonb))::text")" \
    '{"0": 1, "3": 127, "700": 128, "1855": 1099511627776}'
expect_eq "bytes of that" "$(q "SELECT encode(lg.hist_pack('{\"0\": 1, \"3\": 127}'::jsonb), 'hex')")" 0108fa07
echo "PASS"
