#!/usr/bin/env bash
# it_select: a campaign names the agents that drive a target together (by name or by label),
# gives one of them its own threads x QD (at the campaign's load point only: a sweep's other
# points run every agent at the point's load), and shares the target without overlap: each agent its
# own file (file target) or its own slice (block device). Host facts (labels, NICs) are
# registered; a run that names an absent agent waits for it. Heartbeats both ways: an agent
# tells when the controller went silent and when it is back.
. "$(dirname "$0")/lib.sh"
pg_start
lg_keys a1 a2 a3
"$LG_BIN/lgctl" db migrate >/dev/null
truncate -s 64M "$T/lun.img"
dev=$(losetup -f --show "$T/lun.img" 2>"$T/losetup.err") ||
    fail "losetup: $(cat "$T/losetup.err"): a block device is needed for the range share"
CLEANUP_LOOPS+=("$dev")
start_controller
mkdir -p "$T/data"
agent() { # NAME RACK
    start_agent "$1" --allow "$T/data" --allow "$dev" --label "rack=$2" --label "site=lab" \
        --controller-timeout-ms 1500
}
agent a1 a
agent a2 a
agent a3 b
expect_eq "labels registered" "$(q "SELECT facts -> 'labels' ->> 'rack' FROM lg.agent
    WHERE name = 'a3'")" b
expect_eq "NICs registered" "$(q "SELECT jsonb_typeof(facts -> 'nics') FROM lg.agent
    WHERE name = 'a1'")" array
"$LG_BIN/lgctl" --controller "ipc://$T/ctl.sock" agents >"$T/agents.txt" || fail "lgctl agents"
grep -E '^a3 .*rack=b,site=lab' "$T/agents.txt" >/dev/null ||
    { cat "$T/agents.txt"; fail "lgctl agents does not show a3's labels"; }
# the same as JSON: one object an agent, its labels an object, its facts as the database has them
"$LG_BIN/lgctl" --controller "ipc://$T/ctl.sock" agents --format json >"$T/agents.json" ||
    fail "lgctl agents --format json"
expect_eq "lgctl agents --format json: a3" "$(jq -c '.[] | select(.name == "a3") |
    [.labels, .state, .run_id, .cpus > 0, .mem_bytes > 0, (.fio_version | startswith("fio-")), .heard_s < 10]' \
    "$T/agents.json")" '[{"rack":"b","site":"lab"},"idle",null,true,true,true,true]'
expect_eq "lgctl agents --format json: names and ids as lg.agent has them" \
    "$(jq -r 'sort_by(.name) | map("\(.name):\(.id):\(.cpus)") | join(",")' "$T/agents.json")" \
    "$(q "SELECT string_agg(name || ':' || agent_id || ':' || cpu_count, ',' ORDER BY name) FROM lg.agent")"

submit() { # NAME (spec on stdin); waits for the campaign to end
    cat >"$T/$1.yaml"
    "$LG_BIN/lgctl" --controller "ipc://$T/ctl.sock" submit "$T/$1.yaml" >/dev/null ||
        fail "submit $1"
    for _ in $(seq 1 300); do
        st=$(q "SELECT state FROM lg.campaign WHERE name = '$1'")
        [ "$st" = done ] || [ "$st" = failed ] && break
        sleep 0.2
    done
    expect_eq "$1: campaign" "$st" done
}
# The fio options each agent really ran with: fio's own JSON, "global options".
opt() { # CAMPAIGN AGENT OPTION
    q "SELECT ra.fio_json::jsonb -> 'global options' ->> '$3' FROM lg.run_agent ra
       JOIN lg.run r USING (run_id) JOIN lg.campaign c USING (campaign_id)
       JOIN lg.agent a USING (agent_id) WHERE c.name = '$1' AND a.name = '$2'"
}

# 1. Rack a (a1, a2) on a file: each its own file, half the size each; a1 at 2T4Q.
submit files <<SPEC
name: files
target: $T/data/f.bin
size: 64M
threads: 1
qd: 1
profiles: [{name: r, bs: 4k, pattern: random, read: 100, rate_iops: 500, sweep: [1T1Q]}]
agents: [{name: a1, threads: 2, qd: 4}, {labels: {rack: a}}]
runtime: 2s
precondition: none
SPEC
expect_eq "files: agents of the run" "$(q "SELECT string_agg(a.name, ',' ORDER BY a.name)
    FROM lg.run_agent ra JOIN lg.agent a USING (agent_id) JOIN lg.run r USING (run_id)
    JOIN lg.campaign c USING (campaign_id) WHERE c.name = 'files'")" a1,a2
# fio writes through the file each agent resolved and holds (fd 4), never through a path: each
# agent laid out its own file, half the size, and nothing used the shared name.
expect_eq "files: fio's file (the held descriptor)" "$(opt files a1 filename),$(opt files a2 filename)" \
    /proc/self/fd/4,/proc/self/fd/4
expect_eq "files: a1's and a2's own files" "$(stat -c %s "$T/data/f.bin.a1" "$T/data/f.bin.a2" | tr '\n' ' ')" \
    "33554432 33554432 "
[ ! -e "$T/data/f.bin" ] || fail "files: the shared name f.bin was created"
expect_eq "files: a1's size (half)" "$(opt files a1 size)" 33554432
expect_eq "files: a1's load" "$(opt files a1 numjobs)x$(opt files a1 iodepth)" 2x4
expect_eq "files: a2's load (the run's)" "$(opt files a2 numjobs)x$(opt files a2 iodepth)" 1x1
expect_eq "files: per-agent load recorded" "$(q "SELECT string_agg(a.name || ':' || ra.threads
    || 'x' || ra.qd || ':' || ra.njobs, ' ' ORDER BY a.name) FROM lg.run_agent ra
    JOIN lg.agent a USING (agent_id) JOIN lg.run r USING (run_id)
    JOIN lg.campaign c USING (campaign_id) WHERE c.name = 'files'")" "a1:2x4:2 a2:1x1:1"
[ -f "$T/data/f.bin.a1" ] && [ -f "$T/data/f.bin.a2" ] && [ ! -e "$T/data/f.bin.a3" ] &&
    [ ! -e "$T/data/f.bin" ] || fail "files: not one file per chosen agent: $(ls "$T/data")"
RUN=$(q "SELECT run_id FROM lg.run r JOIN lg.campaign c USING (campaign_id) WHERE c.name = 'files'")
check_merged "$RUN" read

# 1b. a1's own load stands for the campaign's load point (2T4Q): at a sweep's other point (4T2Q)
# both agents run that point's load, as the run's label says.
submit sweep <<SPEC
name: sweep
target: "null"
threads: 2
qd: 4
profiles: [{name: r, bs: 4k, pattern: random, read: 100, rate_iops: 200, sweep: [2T4Q, 4T2Q]}]
agents: [{name: a1, threads: 1, qd: 8}, a2]
runtime: 1s
precondition: none
SPEC
expect_eq "sweep: per-agent load at each point" "$(q "SELECT string_agg(r.threads || 'T' || r.qd
    || 'Q ' || a.name || ':' || ra.threads || 'x' || ra.qd || ':' || ra.njobs, ', '
    ORDER BY r.ordinal, a.name) FROM lg.run_agent ra JOIN lg.agent a USING (agent_id)
    JOIN lg.run r USING (run_id) JOIN lg.campaign c USING (campaign_id) WHERE c.name = 'sweep'")" \
    "2T4Q a1:1x8:1, 2T4Q a2:2x4:2, 4T2Q a1:4x2:4, 4T2Q a2:4x2:4"

# 2. a1 and a3 by name on a block device: each its own half (read-only: no consent needed).
submit range <<SPEC
name: range
target: block:$dev
size: 64M
profiles: [{name: r, bs: 4k, pattern: random, read: 100, rate_iops: 500, sweep: [1T2Q]}]
agents: [a3, a1]
share: range
runtime: 2s
precondition: none
SPEC
o=$(opt range a1 offset)
expect_eq "range: a1's slice (no offset: 0)" "${o:-0}:$(opt range a1 size)" "0:33554432"
expect_eq "range: a3's slice" "$(opt range a3 offset):$(opt range a3 size)" "33554432:33554432"
expect_eq "range: slices recorded" "$(q "SELECT string_agg(a.name || '@' || ra.offset_bytes,
    ' ' ORDER BY a.name) FROM lg.run_agent ra JOIN lg.agent a USING (agent_id)
    JOIN lg.run r USING (run_id) JOIN lg.campaign c USING (campaign_id)
    WHERE c.name = 'range'")" "a1@0 a3@33554432"

# 3. A run naming an agent that is not there waits (and says so) until it is aborted.
cat >"$T/absent.yaml" <<SPEC
name: absent
target: "null"
profiles: [{name: r, bs: 4k, pattern: random, read: 100}]
agents: [a1, nosuch]
runtime: 1s
precondition: none
SPEC
"$LG_BIN/lgctl" --controller "ipc://$T/ctl.sock" submit "$T/absent.yaml" >/dev/null ||
    fail "submit absent"
for _ in $(seq 1 50); do
    grep -q 'waiting: agent "nosuch" is not connected' "$T/controller.log" && break
    sleep 0.1
done
grep -q 'waiting: agent "nosuch" is not connected' "$T/controller.log" ||
    fail "the controller does not say why the run waits"
expect_eq "absent: nothing started" "$(q "SELECT count(*) FROM lg.run r JOIN lg.campaign c
    USING (campaign_id) WHERE c.name = 'absent' AND r.state <> 'pending'")" 0
"$LG_BIN/lgctl" --controller "ipc://$T/ctl.sock" abort absent >/dev/null || fail "abort absent"

# 4. The controller goes silent for 3 s: agents tell, and tell when it is back.
kill -STOP "$CTL"
sleep 3
kill -CONT "$CTL"
for _ in $(seq 1 50); do
    grep -q "the controller is back" "$T/a2.log" && break
    sleep 0.1
done
grep -q "the controller is lost: nothing heard for 1500 ms" "$T/a2.log" ||
    fail "agent a2 did not notice the silent controller"
grep -q "the controller is back" "$T/a2.log" || fail "agent a2 did not notice the controller back"
echo "PASS"
