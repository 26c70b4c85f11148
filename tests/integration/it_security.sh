#!/usr/bin/env bash
# it_security: the control plane as an attacker on the lab network meets it.
#  1. CURVE: an agent whose key is not listed cannot register (the controller logs its key and
#     address), nor one that pins the wrong controller key, nor a plaintext one; an lgctl with
#     an unlisted key cannot submit; plaintext is refused off loopback.
#  2. The wire: a capture of a campaign on loopback holds none of its spec's text under CURVE,
#     while the same campaign in plaintext shows it (so the capture would catch a leak).
#  3. The agent: a controller holding the real key sends Prepares that reach outside the
#     agent's allow-list, write a block device without consent, or smuggle fio options
#     (exec_prerun) into text fields: each is refused with a clear error and nothing runs (the
#     canary those options would create never appears; fio itself does create it, checked).
#  4. A peer with a listed key that sends garbage is dropped.
#  5. An agent is its key: a listed key claiming another agent's name is refused (and logged with
#     both names and the key), samples it injects into another agent's run are dropped, the real
#     agent registers at once after an impostor left, and a second process with the same key
#     replaces the first cleanly.
. "$(dirname "$0")/lib.sh"
command -v tcpdump >/dev/null || fail "tcpdump is needed (deploy/install-deps.sh installs it)"
pg_start
lg_keys good victim noisy flood mallory dup
"$LG_BIN/lgctl" db migrate >/dev/null
base=$(free_port 6) # base .. base + 5
AG="tcp://127.0.0.1:$base" CT="tcp://127.0.0.1:$((base + 1))"
DATA="$T/data-secretpath-91c2"
mkdir -p "$DATA"
wait_for() { # TRIES COMMAND...: retry every 0.1 s
    local n=$1
    shift
    for _ in $(seq 1 "$n"); do "$@" && return 0; sleep 0.1; done
    return 1
}
registered() { [ "$(q "SELECT count(*) FROM lg.agent WHERE name = '$1'")" = 1 ]; }

# ---- 1. keys ----
start_controller --agents "$AG" --control "$CT"
CTL_PID=$CTL
wait_for 100 grep -q "listening" "$T/controller.log" || fail "controller did not start"
grep -qF "CURVE: public key $(cut -c1-40 "$T/keys/controller.pub")" "$T/controller.log" ||
    fail "controller does not say its public key"

start_agent good --no-wait --allow "$DATA"
wait_for 100 registered good || fail "the agent with a listed key did not register"
echo "ok: an agent with a listed key registers"

mkdir -p "$T/other"
"$LG_BIN/lgctl" keygen intruder --dir "$T/other" >/dev/null
"$LG_BIN/lgctl" keygen fakectl --dir "$T/other" >/dev/null
intruder_pub=$(cut -c1-40 "$T/other/intruder.pub")
start_agent intruder --no-wait --key "$T/other/intruder.key" \
    --controller-key "$T/keys/controller.pub" --allow "$DATA"
agent_key wrongpin
start_agent wrongpin --no-wait --key "$T/keys/agents/wrongpin.key" \
    --controller-key "$T/other/fakectl.pub" --allow "$DATA"
start_agent plain --no-wait --plaintext --allow "$DATA"
wait_for 100 grep -qF "refused a peer of the agents endpoint at 127.0.0.1: CURVE key $intruder_pub" \
    "$T/controller.log" || fail "the controller did not log the intruder's key and address"
echo "ok: controller logged: $(grep -m1 "refused a peer" "$T/controller.log")"
wait_for 50 grep -q "refused our key" "$T/intruder.log" ||
    fail "the intruder agent does not say it was refused"
echo "ok: intruder says: $(grep -m1 "refused our key" "$T/intruder.log")"
wait_for 50 grep -q "cannot talk to the controller" "$T/wrongpin.log" ||
    fail "the agent pinning the wrong key does not say the handshake failed"
sleep 2
for a in intruder wrongpin plain; do
    registered "$a" && fail "agent $a registered"
done
echo "ok: intruder (unlisted key), wrongpin (wrong controller key), plain (no CURVE) never registered"

# lgctl: an unlisted key cannot submit; no key at all is refused before connecting
cat >"$T/spec.yaml" <<SPEC
name: capture-marker-7f3a
target: "dir:$DATA"
size: 4m
profiles: [{name: r, bs: 4k, pattern: random, read: 100}]
threads: 1
qd: 1
runtime: 2s
precondition: none
SPEC
set +e
LG_KEY="$T/other/intruder.key" "$LG_BIN/lgctl" --controller "$CT" submit "$T/spec.yaml" \
    >"$T/bad-submit.out" 2>&1
rc=$?
set -e
[ $rc -ne 0 ] || fail "lgctl with an unlisted key could submit"
grep -q "refused our key" "$T/bad-submit.out" ||
    { cat "$T/bad-submit.out"; fail "lgctl does not say its key was refused"; }
expect_eq "campaigns after the refused submit" "$(q "SELECT count(*) FROM lg.campaign")" 0
echo "ok: unlisted lgctl says: $(grep -m1 "refused our key" "$T/bad-submit.out")"
set +e
LG_KEY= "$LG_BIN/lgctl" --controller "$CT" agents >"$T/nokey.out" 2>&1
rc=$?
set -e
[ $rc -ne 0 ] && grep -q "no key pair" "$T/nokey.out" ||
    { cat "$T/nokey.out"; fail "lgctl without a key pair"; }
set +e
"$LG_BIN/lg-controller" --plaintext --database "$LG_DATABASE_URL" --agents "tcp://0.0.0.0:$((base + 5))" \
    --control "ipc://$T/p.sock" >"$T/plain-ctl.out" 2>&1
rc=$?
"$LG_BIN/lg-agent" --plaintext --controller "tcp://10.1.2.3:5601" --name x >"$T/plain-agent.out" 2>&1
rc2=$?
set -e
[ $rc -ne 0 ] && grep -q "is not a loopback or ipc endpoint" "$T/plain-ctl.out" ||
    { cat "$T/plain-ctl.out"; fail "plaintext controller on 0.0.0.0"; }
[ $rc2 -ne 0 ] && grep -q "plaintext is only for loopback" "$T/plain-agent.out" ||
    { cat "$T/plain-agent.out"; fail "plaintext agent to a remote controller"; }
echo "ok: plaintext refused off loopback (controller and agent)"
chmod 644 "$T/keys/ops.key"
set +e
"$LG_BIN/lgctl" --controller "$CT" agents >"$T/mode.out" 2>&1
rc=$?
set -e
chmod 600 "$T/keys/ops.key"
[ $rc -ne 0 ] && grep -q "ops.key\" has mode 0644" "$T/mode.out" ||
    { cat "$T/mode.out"; fail "a world-readable key was used"; }
echo "ok: $(head -n 1 "$T/mode.out")"

# ---- 2. the wire ----
capture() { # PCAP PORT1 PORT2: starts tcpdump on lo, sets CAP_PID
    tcpdump -i lo -U -n -s 0 -w "$1" "tcp port $2 or tcp port $3" >"$1.log" 2>&1 &
    CAP_PID=$!
    CLEANUP_PIDS+=("$CAP_PID")
    wait_for 100 grep -q "listening on" "$1.log" || fail "tcpdump did not start: $(cat "$1.log")"
}
capture_end() { kill -INT "$CAP_PID"; wait "$CAP_PID" 2>/dev/null || true; }
wait_done() { wait_for 300 eval "[ \"\$(q \"SELECT state FROM lg.campaign WHERE name = '$1'
    ORDER BY campaign_id DESC LIMIT 1\")\" = done ]" || fail "campaign $1 did not finish"; }

capture "$T/curve.pcap" "$base" "$((base + 1))"
"$LG_BIN/lgctl" --controller "$CT" submit "$T/spec.yaml" >/dev/null || fail "submit under CURVE"
wait_done capture-marker-7f3a
capture_end
packets=$(tcpdump -r "$T/curve.pcap" -n 2>/dev/null | wc -l)
[ "$packets" -gt 20 ] || fail "only $packets packets captured"
for marker in capture-marker-7f3a secretpath-91c2 randread; do
    if grep -a -q "$marker" "$T/curve.pcap"; then fail "\"$marker\" is on the wire under CURVE"; fi
done
echo "ok: $packets packets of a CURVE campaign, no spec text in them"

# The same campaign in plaintext (loopback, explicitly asked for) leaks it: the check works.
PAG="tcp://127.0.0.1:$((base + 2))" PCT="tcp://127.0.0.1:$((base + 3))"
start_controller --log "$T/controller-plain.log" --plaintext --agents "$PAG" --control "$PCT"
PCTL_PID=$CTL
wait_for 100 grep -q "listening" "$T/controller-plain.log" || fail "plaintext controller"
kill "$CTL_PID" # one controller per database
start_agent good --no-wait --log "$T/good2.log" --plaintext --work-dir "$T/good2" --allow "$DATA"
sleep 1
capture "$T/plain.pcap" "$((base + 2))" "$((base + 3))"
"$LG_BIN/lgctl" --plaintext --controller "$PCT" submit "$T/spec.yaml" >/dev/null ||
    fail "submit in plaintext"
sleep 4
capture_end
grep -a -q "capture-marker-7f3a" "$T/plain.pcap" || fail "the plaintext capture lacks the spec"
grep -a -q "secretpath-91c2" "$T/plain.pcap" || fail "the plaintext capture lacks the target"
echo "ok: in plaintext the same campaign's name and target are on the wire"
kill "$PCTL_PID"

# ---- 3. the agent against a controller with the real key ----
CANARY="$T/canary-$$"
truncate -s 64M "$T/lun.img"
dev=$(losetup -f --show "$T/lun.img" 2>"$T/losetup.err") ||
    fail "losetup: $(cat "$T/losetup.err"): a block device is needed for the consent case"
CLEANUP_LOOPS+=("$dev")
EV="tcp://127.0.0.1:$((base + 4))"
"$LG_BIN/evil" controller "$EV" "$T/keys/controller.key" "$DATA" "$CANARY" "$dev" \
    >"$T/evil.out" 2>"$T/evil.log" &
EVIL_PID=$!
CLEANUP_PIDS+=("$EVIL_PID")
start_agent victim --no-wait --controller "$EV" --allow "$DATA" --allow "$dev"
wait "$EVIL_PID" || { cat "$T/evil.out" "$T/evil.log"; fail "the hostile controller failed"; }
cat "$T/evil.out"
verdict() { grep "^case $1: " "$T/evil.out" || echo "case $1: missing"; }
expect_refused() { # CASE WORDS
    verdict "$1" | grep -q "^case $1: refused: .*$2" ||
        fail "case $1: $(verdict "$1"), want refused with \"$2\""
}
expect_refused outside-allow-list "outside this agent.s allowed targets"
expect_refused block-without-consent "not started with --allow-destructive"
expect_refused option-in-rw "rw \""
expect_refused option-in-target "not a clean absolute path"
expect_refused section-in-target "not a clean absolute path"
expect_refused variable-in-target "not a clean absolute path"
expect_refused dotdot-in-target "not a clean absolute path"
expect_refused option-in-smb-url "not a clean smb:// URL"
expect_eq "the clean case" "$(verdict clean)" "case clean: prepared"
[ ! -e "$CANARY" ] || fail "the canary exists: something ran exec_prerun"
if grep -rlq "exec" "$T/victim" 2>/dev/null; then fail "a job file mentions exec"; fi
echo "ok: every hostile Prepare refused, no canary, no exec in any job file"
# The canary check can fail: fio does run exec_prerun when a job file has it.
printf '[c]\nioengine=null\nsize=1m\nexec_prerun=touch %s\n' "$CANARY.fio" >"$T/canary.fio"
fio --output-format=terse "$T/canary.fio" >/dev/null 2>&1 || true
[ -e "$CANARY.fio" ] || fail "fio did not create the canary through exec_prerun"
echo "ok: fio itself creates the canary through exec_prerun (the check would catch it)"

# ---- 4. garbage ----
start_controller --log "$T/controller2.log" --agents "$AG" --control "$CT"
wait_for 100 grep -q "listening" "$T/controller2.log" || fail "controller did not restart"
expect_eq "a listed peer that sends 10 bad messages" \
    "$(LG_AGENT_KEY="$T/keys/agents/noisy.key" "$LG_BIN/evil" garbage "$AG" noisy 10)" welcomed
expect_eq "a listed peer that sends 200 bad messages" \
    "$(LG_AGENT_KEY="$T/keys/agents/flood.key" "$LG_BIN/evil" garbage "$AG" flood 200)" ignored
grep -q 'dropped peer "flood": 64 malformed messages' "$T/controller2.log" ||
    fail "the controller does not say it dropped the garbage peer"
registered flood && fail "the garbage peer registered"
kill -0 "$CTL" || fail "the controller died"
echo "ok: a garbage peer is dropped after 64 malformed messages; the controller carries on"

# ---- 5. identity is the key ----
mallory_pub=$(cut -c1-40 "$T/keys/agents/mallory.pub")
expect_eq "mallory's key saying Hello as \"victim\"" \
    "$(LG_AGENT_KEY="$T/keys/agents/mallory.key" "$LG_BIN/evil" impostor "$AG" victim)" ignored
wait_for 50 grep -qF "it says it is agent \"victim\", but its CURVE key $mallory_pub is agent \"mallory\"'s" \
    "$T/controller2.log" || fail "the controller did not log the impostor with both names and its key"
echo "ok: controller logged: $(grep -m1 "it says it is agent" "$T/controller2.log")"
registered victim && fail "the impostor registered as victim"
# The real victim, right after the impostor left: registered at once.
t0=$(date +%s%N)
start_agent victim --no-wait --log "$T/victim2.log" --work-dir "$T/victim2" --allow "$DATA"
wait_for 50 registered victim || fail "the real agent did not register after the impostor left"
echo "ok: the real agent registered $(( ($(date +%s%N) - t0) / 1000000 )) ms after it started"

# Samples injected into victim's running run by mallory (under its own name) are dropped.
cat >"$T/inject.yaml" <<SPEC
name: inject-target
target: "dir:$DATA"
size: 4m
agents: [{name: victim}]
profiles: [{name: r, bs: 4k, pattern: random, read: 100}]
threads: 1
qd: 1
runtime: 6s
precondition: none
SPEC
"$LG_BIN/lgctl" --controller "$CT" submit "$T/inject.yaml" >/dev/null || fail "submit inject-target"
wait_for 150 eval '[ "$(q "SELECT count(*) FROM lg.run WHERE state = '"'"'running'"'"'")" = 1 ]' ||
    fail "the victim's run did not start"
run=$(q "SELECT run_id FROM lg.run WHERE state = 'running'")
expect_eq "mallory injecting 5 samples into run $run" \
    "$(LG_AGENT_KEY="$T/keys/agents/mallory.key" "$LG_BIN/evil" inject "$AG" mallory "$run" 5)" sent
wait_done inject-target
expect_eq "samples of run $run from anyone but victim" \
    "$(q "SELECT count(*) FROM lg.sample s JOIN lg.agent a USING (agent_id) WHERE s.run_id = $run AND a.name <> 'victim'")" 0
expect_eq "samples of run $run with a million I/Os" \
    "$(q "SELECT count(*) FROM lg.sample WHERE run_id = $run AND ios >= 1000000")" 0
grep -q "dropped a sample of unknown run $run from \"mallory\"" "$T/controller2.log" ||
    fail "the controller did not say it dropped mallory's samples"
echo "ok: samples injected into another agent's run are dropped"

# A second process with dup's key: it replaces the first, which is told and stops.
start_agent dup --no-wait --log "$T/dup1.log" --work-dir "$T/dup1" --allow "$DATA"
DUP1=$AGENT
wait_for 50 registered dup || fail "dup did not register"
start_agent dup --no-wait --log "$T/dup2.log" --work-dir "$T/dup2" --allow "$DATA"
for _ in $(seq 1 100); do kill -0 "$DUP1" 2>/dev/null || break; sleep 0.1; done
kill -0 "$DUP1" 2>/dev/null && fail "the replaced agent process is still running"
grep -q "replaced this one: stopping" "$T/dup1.log" || fail "the replaced agent does not say why it stopped"
grep -q "agent \"dup\" connected again from" "$T/controller2.log" || fail "the controller does not log the replacement"
expect_eq "dup in lgctl agents" "$("$LG_BIN/lgctl" --controller "$CT" agents | grep -c '^dup ')" 1
echo "ok: a second connection with the same key replaces the first; the first stops"
