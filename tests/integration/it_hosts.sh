#!/usr/bin/env bash
# it_hosts: three load hosts as one load. Three network namespaces with their own addresses on
# a bridge, an agent in each, the controller in the root namespace; a 2-profile campaign runs on
# all three together: every run has the three agents' samples, merged IOPS is the sum of theirs,
# and the start skew stored with each run is below 20 ms. Then one host's link goes down during
# a run: that run ends partial, the others' data is complete, and when the link comes back the
# agent's unacknowledged samples arrive with no duplicates.
. "$(dirname "$0")/lib.sh"
pg_start
lg_keys host1 host2 host3
"$LG_BIN/lgctl" db migrate >/dev/null

make_hosts 3 h 231
start_controller --tcp "$HOSTS_NET.1" --agent-timeout-ms 3000
for i in 1 2 3; do
    start_agent "host$i" --wrap "ip netns exec ${HOST_NS[$i]}"
done
expect_eq "agents registered from three hosts" "$(q "SELECT string_agg(name, ',' ORDER BY name)
    FROM lg.agent")" host1,host2,host3

cat >"$T/spec.yaml" <<'SPEC'
name: three-hosts
target: "null"
profiles:
  - {name: r4k, bs: 4k, pattern: random, read: 100, rate_iops: 5000, sweep: none}
  - {name: w64k, bs: 64k, pattern: sequential, read: 0, rate_iops: 2000, sweep: none}
threads: 2
qd: 4
runtime: 3s
precondition: none
SPEC
"$LG_BIN/lgctl" --controller "ipc://$T/ctl.sock" submit "$T/spec.yaml" >/dev/null || fail "submit"
for _ in $(seq 1 300); do
    [ "$(q "SELECT state FROM lg.campaign WHERE name = 'three-hosts'")" = done ] && break
    sleep 0.1
done
q "SELECT ordinal, state, start_skew_us FROM lg.run ORDER BY run_id"
expect_eq "runs" "$(q "SELECT string_agg(state, ' ' ORDER BY ordinal) FROM lg.run")" "done done"
expect_eq "runs with samples from all three agents" "$(q "SELECT count(*) FROM (SELECT run_id
    FROM lg.sample GROUP BY run_id HAVING count(DISTINCT agent_id) = 3) s")" 2
expect_eq "merged IOPS = sum of the three" "$(q "SELECT bool_and(abs(m.iops - s.iops) <= 1e-9 * s.iops
    AND s.n = 3) FROM lg.result m JOIN (SELECT run_id, direction, sum(iops) iops, count(*) n
    FROM lg.result WHERE agent_id IS NOT NULL GROUP BY 1, 2) s USING (run_id, direction)
    WHERE m.agent_id IS NULL")" t
expect_eq "start skew stored and below 20 ms" "$(q "SELECT bool_and(start_skew_us IS NOT NULL
    AND start_skew_us < 20000) FROM lg.run")" t
for r in $(q "SELECT run_id FROM lg.run"); do check_merged "$r" "$(q "SELECT direction FROM lg.result
    WHERE run_id = $r AND agent_id IS NULL")"; done

# Partition host3 during a run, then heal it.
cat >"$T/cut.yaml" <<'SPEC'
name: cut
target: "null"
profiles: [{name: r4k, bs: 4k, pattern: random, read: 100, rate_iops: 5000, sweep: none}]
threads: 2
qd: 4
runtime: 8s
precondition: none
SPEC
"$LG_BIN/lgctl" --controller "ipc://$T/ctl.sock" submit "$T/cut.yaml" >/dev/null || fail "submit"
run=""
for _ in $(seq 1 100); do
    run=$(q "SELECT r.run_id FROM lg.run r JOIN lg.campaign c USING (campaign_id)
             WHERE c.name = 'cut' AND r.state = 'running'")
    [ -n "$run" ] && [ "$(q "SELECT count(DISTINCT agent_id) FROM lg.sample WHERE run_id = $run")" = 3 ] && break
    sleep 0.1
done
ip -n "${HOST_NS[3]}" link set "${HOST_IF[3]}" down
echo "host3's link is down"
for _ in $(seq 1 200); do
    [ "$(q "SELECT state FROM lg.run WHERE run_id = $run")" != running ] && break
    sleep 0.1
done
expect_eq "the cut run" "$(q "SELECT state FROM lg.run WHERE run_id = $run")" partial
q "SELECT error FROM lg.run WHERE run_id = $run" | grep -q 'agent "host3" lost' ||
    fail "the partial run does not name host3"
expect_eq "the other hosts' results" "$(q "SELECT string_agg(a.name, ',' ORDER BY a.name)
    FROM lg.result x JOIN lg.agent a USING (agent_id) WHERE run_id = $run")" host1,host2
ip -n "${HOST_NS[3]}" link set "${HOST_IF[3]}" up
echo "host3's link is up again"
for _ in $(seq 1 150); do
    [ "$(q "SELECT count(*) FROM lg.result x JOIN lg.agent a USING (agent_id)
            WHERE run_id = $run AND a.name = 'host3'")" = 1 ] && break
    sleep 0.2
done
expect_eq "host3's result arrived once" "$(q "SELECT count(*) FROM lg.result x JOIN lg.agent a
    USING (agent_id) WHERE run_id = $run AND a.name = 'host3'")" 1
# Its resent samples go through the sample writer, its result through the store: they may
# commit in either order, so wait for the samples (the assertion is the same).
h3_ok() { q "SELECT max(seq) = count(*)
    AND sum(s.ios) = (SELECT ios FROM lg.result x WHERE x.run_id = $run AND x.agent_id = a.agent_id)
    FROM lg.sample s JOIN lg.agent a USING (agent_id) WHERE run_id = $run AND a.name = 'host3'
    GROUP BY a.agent_id"; }
for _ in $(seq 1 100); do [ "$(h3_ok)" = t ] && break; sleep 0.2; done
expect_eq "host3's samples: no gap, no duplicate, they add up" "$(h3_ok)" t
echo "PASS"
