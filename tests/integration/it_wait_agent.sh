#!/usr/bin/env bash
# it_wait_agent: a campaign waiting for an agent it names that is not there says so (issue 43
# part 6). Before, lgctl status showed only "pending". Its spec names a1 and a2; only a1 runs:
# lgctl status, through the controller and from the database, names a2 as not connected; once a2
# registers the run starts, the message goes, and the campaign ends done on both agents.
. "$(dirname "$0")/lib.sh"
pg_start
lg_keys a1 a2
"$LG_BIN/lgctl" db migrate >/dev/null
start_controller
start_agent a1
cat >"$T/spec.yaml" <<'SPEC'
name: waits
target: "null"
agents: [a1, a2]
profiles: [{name: r, bs: 4k, pattern: random, read: 100, sweep: none}]
threads: 1
qd: 1
ramp: 0s
runtime: 2s
precondition: none
SPEC
submit_file spec
st=""
for _ in $(seq 1 100); do
    st=$("$LG_BIN/lgctl" --controller "ipc://$T/ctl.sock" status waits 2>&1 || true)
    grep -q 'agent "a2" is not connected' <<<"$st" && break
    sleep 0.1
done
echo "$st"
grep -q 'agent "a2" is not connected' <<<"$st" ||
    fail "lgctl status through the controller does not name the missing agent: $st"
db=$("$LG_BIN/lgctl" status waits 2>&1 || true)
grep -q 'is waiting: agent "a2" is not connected' <<<"$db" ||
    fail "lgctl status from the database does not name the missing agent: $db"
echo "ok: lgctl status names the agent the campaign waits for"
start_agent a2
wait_campaign waits
expect_eq "campaign waits" "$(q "SELECT state || ' ' || coalesce(message, '-') FROM lg.campaign
    WHERE name = 'waits'")" "done -"
expect_eq "agents of its run" "$(q "SELECT count(*) FROM lg.run_agent ra JOIN lg.run r USING (run_id)
    JOIN lg.campaign c USING (campaign_id) WHERE c.name = 'waits' AND ra.state = 'done'")" 2
echo "PASS"
