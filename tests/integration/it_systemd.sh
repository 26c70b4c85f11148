#!/usr/bin/env bash
# it_systemd: the systemd units deploy/systemd/lg-{controller,agent}.service pass
# systemd-analyze verify, and their ExecStart lines work with config files like /etc/lg's
# (controller.yaml, agent.yaml, CURVE keys). This sandbox does not run systemd as PID 1, so the
# ExecStart lines run here directly, as systemd would start them. And "systemctl stop" (SIGTERM)
# of an agent during a run ends fio as a Stop does: the run's result reaches the database before
# the agent exits.
. "$(dirname "$0")/lib.sh"
command -v systemd-analyze >/dev/null || fail "systemd-analyze is missing (deploy/install-deps.sh installs systemd)"
pg_start
"$LG_BIN/lgctl" db migrate >/dev/null
lg_keys unit-agent
mkdir -p "$T/etc" "$T/target" "$T/work"
# The units as installed, with this build's binaries and this test's /etc/lg.
for u in lg-controller lg-agent; do
    sed -e "s|/usr/bin/|$LG_BIN/|g" -e "s|/etc/lg/|$T/etc/|g" "$LG_SRC/deploy/systemd/$u.service" >"$T/$u.service"
done
systemd-analyze verify "$T/lg-controller.service" "$T/lg-agent.service" >"$T/verify.log" 2>&1 ||
    { cat "$T/verify.log"; fail "systemd-analyze verify"; }
for u in lg-controller lg-agent; do
    grep -q "^Restart=on-failure$" "$T/$u.service" && grep -q "^NoNewPrivileges=yes$" "$T/$u.service" &&
        grep -q "^ProtectSystem=strict$" "$T/$u.service" && grep -q "^User=lg$" "$T/$u.service" ||
        fail "$u.service lacks its restart policy, hardening or user"
done
echo "ok: systemd-analyze verify passes for both units"

cat >"$T/etc/controller.yaml" <<YAML
# lg-controller's options, without their --
database: "$LG_DATABASE_URL"
agents: ipc://$T/agents.sock
control: ipc://$T/ctl.sock
ready-file: $T/ready
key: $T/keys/controller.key
agent-keys: $T/keys/agents
control-keys: $T/keys/ops.pub
YAML
cat >"$T/etc/agent.yaml" <<YAML
controller: ipc://$T/agents.sock
name: unit-agent
key: $T/keys/agents/unit-agent.key
controller-key: $T/keys/controller.pub
work-dir: $T/work
allow:
  - $T/target
YAML
exec_start() { sed -n 's/^ExecStart=//p' "$T/$1.service"; }
# shellcheck disable=SC2046 # the ExecStart line is words, as systemd splits it
$(exec_start lg-controller) >"$T/controller.log" 2>&1 &
CTL=$!
CLEANUP_PIDS+=("$CTL")
for _ in $(seq 1 100); do [ -f "$T/ready" ] && break; sleep 0.1; done
[ -f "$T/ready" ] || { cat "$T/controller.log"; fail "the controller's ExecStart did not start it"; }
# shellcheck disable=SC2046
$(exec_start lg-agent) >"$T/agent.log" 2>&1 &
AGENT=$!
CLEANUP_PIDS+=("$AGENT")
wait_line "$T/agent.log" "registered with the controller" 30 || { cat "$T/agent.log"; fail "the agent's ExecStart did not register"; }
echo "ok: both ExecStart lines run from their config files, the agent registered over CURVE"

cat >"$T/spec.yaml" <<SPEC
name: it-systemd
sut:
  labels: {build: unit}
target: $T/target/data.bin
size: 16M
profiles: [{name: r, bs: 4k, pattern: random, read: 100, sweep: none}]
threads: 1
qd: 1
ramp: 0s
runtime: 30s
precondition: none
SPEC
"$LG_BIN/lgctl" --controller "ipc://$T/ctl.sock" submit "$T/spec.yaml" >/dev/null || fail "submit"
wait_line "$T/agent.log" "run [0-9]+ .*(started|fio started|running)" 30 ||
    wait_line "$T/agent.log" "held for fio" 30 || { cat "$T/agent.log"; fail "the run did not start"; }
sleep 4
t0=$(date +%s)
kill -TERM "$AGENT" # what systemctl stop does (KillSignal=SIGTERM)
for _ in $(seq 1 600); do kill -0 "$AGENT" 2>/dev/null || break; sleep 0.1; done
kill -0 "$AGENT" 2>/dev/null && fail "the agent did not stop within 60 s of SIGTERM"
took=$(( $(date +%s) - t0 ))
grep -q "ending run [0-9]* as a Stop does" "$T/agent.log" || { cat "$T/agent.log"; fail "SIGTERM did not end the run as a Stop"; }
grep -q "the run's result is acknowledged" "$T/agent.log" || { cat "$T/agent.log"; fail "the agent stopped before its result was acknowledged"; }
run=$(q "SELECT run_id FROM lg.run r JOIN lg.campaign c USING (campaign_id) WHERE c.name = 'it-systemd'")
expect_eq "the agent's result of the stopped run is stored" \
    "$(q "SELECT count(*) > 0 FROM lg.result WHERE run_id = $run AND agent_id IS NOT NULL")" t
expect_eq "its final report (fio's JSON) is archived" \
    "$(q "SELECT fio_json IS NOT NULL AND fio_json LIKE '%\"jobs\"%' FROM lg.run_agent WHERE run_id = $run")" t
echo "ok: SIGTERM mid-run: fio ended with its report, the result stored, the agent gone in $took s"
echo "PASS"
