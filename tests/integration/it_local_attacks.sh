#!/usr/bin/env bash
# it_local_attacks: what an unprivileged local user (made here with useradd) can do to lg running
# as root on the same machine, tried as the attacker would:
# - the agent's work folder: made first by the attacker (0777, with run-N folders) while a loop of
#   theirs rewrites every job.fio it sees with an exec_prerun= line; or a folder inside one the
#   attacker owns. The agent refuses both at start, naming the folder, and no command runs as
#   root. Without --work-dir, root's agent works in /run/lg-agent/NAME (0700), job files 0600.
# - lgctl run --data-dir D where D is the attacker's, with controller.endpoint and pg links to
#   root's file and folder; and a root folder others can write: refused, the file and folder
#   untouched. lg-export --out O where O is the attacker's, with an index.html link: refused.
#   A link in a site folder of our own is replaced, not followed; a pg/run link the postgres
#   user planted in the cluster's folder makes lgctl refuse, not chown root's folder.
# - root's default local-mode folder is not /var/lib/lg (the lg daemons' state folder).
. "$(dirname "$0")/lib.sh"
[ "$(id -u)" = 0 ] || fail "the attacks need root to be attacked (the CI runs as root)"
ATK="lgatk$$"
useradd -M -s /usr/sbin/nologin "$ATK" || fail "useradd $ATK"
# The user's processes are stopped by PID (listed by the uid made here) before it goes.
atk_gone() {
    local p
    for p in $(ps -o pid= -u "$ATK" 2>/dev/null); do kill "$p" 2>/dev/null || true; done
    sleep 0.2
    userdel "$ATK" 2>/dev/null || true
    rm -rf "/run/lg-agent/def-$$" "/var/tmp/lg-agent-atk-$$"
}
trap 'rc=$?; atk_gone; cleanup $rc' EXIT
as_atk() { runuser -u "$ATK" -- "$@"; }
pg_start
"$LG_BIN/lgctl" db migrate >/dev/null
lg_keys "atk-$$" "def-$$"
start_controller
cat >"$T/null.yaml" <<'SPEC'
name: NAME
target: "null"
profiles: [{name: r, bs: 4k, pattern: random, read: 100, sweep: none}]
threads: 1
qd: 1
runtime: 1s
precondition: none
SPEC

# --- 1. the agent's work folder, made first by the attacker ---
D="/var/tmp/lg-agent-atk-$$"
as_atk mkdir -m 0777 "$D"
for i in $(seq 1 40); do as_atk mkdir -m 0777 "$D/run-$i"; done
# The attacker's loop: every job.fio that appears gets a command fio runs before the job
# (setpriv execs it: $! is the loop itself, stopped by its PID).
setpriv --reuid="$ATK" --regid="$ATK" --clear-groups bash -c "while :; do for f in $D/run-*/job.fio; do
    [ -f \"\$f\" ] && ! grep -q exec_prerun \"\$f\" &&
        sed '/^\\[global\\]/a exec_prerun=id >$T/pwned' \"\$f\" >\"\$f.t\" && mv -f \"\$f.t\" \"\$f\"
    done; sleep 0.01; done" >/dev/null 2>&1 &
racer=$!
CLEANUP_PIDS+=("$racer")
start_agent "atk-$$" --no-wait --log "$T/atk-agent.log" --work-dir "$D"
agent=$AGENT
sleep 2
if kill -0 "$agent" 2>/dev/null; then
    # The agent took the folder: run a campaign as the operator would, and see what ran.
    sed "s/NAME/atk-run/" "$T/null.yaml" >"$T/atk-run.yaml"
    submit_file atk-run
    wait_campaign atk-run
fi
kill "$racer" 2>/dev/null || true
[ -e "$T/pwned" ] && fail "the attacker's exec_prerun ran: $T/pwned made by $(stat -c %U "$T/pwned")"
wait "$agent" && fail "the agent started in a work folder the attacker made"
grep -q "work folder: \"$D\" belongs to uid [0-9]* ($ATK), not to uid 0 (root): refused" \
    "$T/atk-agent.log" || { cat "$T/atk-agent.log"; fail "the agent's refusal does not name the folder and its owner"; }
echo "ok: an agent refuses a work folder another user made (no command of theirs ran)"

# Inside a folder the attacker owns (which they could rename away and replace), though root
# made the work folder itself.
install -d -m 0755 -o "$ATK" "$T/atkhome"
install -d -m 0700 "$T/atkhome/work"
"$LG_BIN/lg-agent" $(agent_sec "atk-$$") --controller "ipc://$T/agents.sock" --name "atk-$$" \
    --work-dir "$T/atkhome/work" >"$T/atk-agent2.log" 2>&1 && fail "the agent used a folder inside the attacker's"
grep -q "is inside \"$T/atkhome\", which belongs to uid [0-9]* ($ATK): refused" "$T/atk-agent2.log" ||
    { cat "$T/atk-agent2.log"; fail "no refusal naming the attacker's folder above the work folder"; }
# A folder of root's that others can write.
install -d -m 0777 "$T/open-work"
"$LG_BIN/lg-agent" $(agent_sec "atk-$$") --controller "ipc://$T/agents.sock" --name "atk-$$" \
    --work-dir "$T/open-work" >"$T/atk-agent3.log" 2>&1 && fail "the agent used a folder others can write"
grep -q "\"$T/open-work\" is writable by others (mode 0777): refused" "$T/atk-agent3.log" ||
    { cat "$T/atk-agent3.log"; fail "no refusal of the world-writable work folder"; }
# A key file the attacker owns (0600, but theirs to read and replace): no secret of ours.
cp "$T/keys/agents/atk-$$.key" "$T/atk.key"
chown "$ATK" "$T/atk.key"
"$LG_BIN/lg-agent" --key "$T/atk.key" --controller-key "$T/keys/controller.pub" \
    --controller "ipc://$T/agents.sock" --name "atk-$$" --work-dir "$T/keywork" >"$T/atk-agent4.log" 2>&1 &&
    fail "the agent used a key file the attacker owns"
grep -q "key file \"$T/atk.key\" belongs to uid [0-9]*, not to uid 0 (us) or root" "$T/atk-agent4.log" ||
    { cat "$T/atk-agent4.log"; fail "no refusal of the attacker's key file"; }
echo "ok: a work folder inside another user's folder, or writable by others, and a key file another user owns are refused"

# Root's default: /run/lg-agent/NAME, made 0700 by the agent; the job file 0600, and only the
# newest run's folder kept.
start_agent "def-$$" --no-wait --no-work-dir --log "$T/def-agent.log" \
    --wrap "env -u RUNTIME_DIRECTORY -u XDG_RUNTIME_DIR"
wait_line "$T/def-agent.log" "work folder: /run/lg-agent/def-$$\$" 10 ||
    { cat "$T/def-agent.log"; fail "root's agent does not default to /run/lg-agent/NAME"; }
expect_eq "/run/lg-agent and its folder" \
    "$(stat -c '%U %a' /run/lg-agent "/run/lg-agent/def-$$" | tr '\n' ' ')" "root 700 root 700 "
for c in def-a def-b; do
    sed -e "s/NAME/$c/" "$T/null.yaml" >"$T/$c.yaml"
    submit_file "$c"
    wait_campaign "$c"
    expect_eq "campaign $c on the default work folder" \
        "$(q "SELECT state FROM lg.campaign WHERE name = '$c'")" done
done
run=$(q "SELECT max(run_id) FROM lg.run r JOIN lg.campaign c USING (campaign_id) WHERE c.name = 'def-b'")
expect_eq "the newest run's job file" "$(stat -c '%U %a' "/run/lg-agent/def-$$/run-$run/job.fio")" "root 600"
expect_eq "run folders kept (beside smb-park, where SMB sessions wait)" \
    "$(ls "/run/lg-agent/def-$$" | grep -vx smb-park)" "run-$run"
echo "ok: root's agent works in /run/lg-agent/def-$$ (0700), job files 0600, the newest run kept"

# --- 2. local mode's data folder and lg-export's output folder ---
mkdir -m 0700 "$T/root"
echo "root's own file" >"$T/root/file"
chmod 0644 "$T/root/file"
mkdir -m 0755 "$T/root/dir"
sum_before=$(sha256sum <"$T/root/file")
AD="$T/atkdata"
install -d -m 0755 -o "$ATK" "$AD"
as_atk ln -s "$T/root/file" "$AD/controller.endpoint"
as_atk ln -s "$T/root/dir" "$AD/pg"
mkdir -p "$T/target"
cat >"$T/local.yaml" <<SPEC
name: local-atk
target: $T/target/data.bin
size: 8M
profiles: [{name: 4k-rand, sweep: none}]
threads: 1
qd: 1
ramp: 0s
runtime: 1s
precondition: none
SPEC
unset LG_DATABASE_URL
"$LG_BIN/lgctl" run "$T/local.yaml" --data-dir "$AD" --quiet >"$T/atkdata.out" 2>&1 &&
    fail "lgctl run used the attacker's data folder"
grep -q "data folder: \"$AD\" belongs to uid [0-9]* ($ATK), not to uid 0 (root): refused" "$T/atkdata.out" ||
    { cat "$T/atkdata.out"; fail "lgctl's refusal does not name the data folder and its owner"; }
expect_eq "root's file after lgctl run --data-dir (attacker's)" "$(sha256sum <"$T/root/file") $(stat -c '%a' "$T/root/file")" "$sum_before 644"
expect_eq "root's folder after lgctl run --data-dir (attacker's)" "$(stat -c '%U %a' "$T/root/dir")" "root 755"
install -d -m 0777 "$T/opendata"
"$LG_BIN/lgctl" run "$T/local.yaml" --data-dir "$T/opendata" --quiet >"$T/opendata.out" 2>&1 &&
    fail "lgctl run used a data folder others can write"
grep -q "\"$T/opendata\" is writable by others (mode 0777): refused" "$T/opendata.out" ||
    { cat "$T/opendata.out"; fail "no refusal of the world-writable data folder"; }
"$LG_BIN/lgctl" db start --data-dir "$AD" >"$T/atkdb.out" 2>&1 && fail "lgctl db start used the attacker's data folder"
expect_eq "root's folder after lgctl db start (attacker's)" "$(stat -c '%U %a' "$T/root/dir")" "root 755"
echo "ok: lgctl refuses a data folder another user owns or others can write (root's file and folder untouched)"

AO="$T/atksite"
install -d -m 0755 -o "$ATK" "$AO"
as_atk ln -s "$T/root/file" "$AO/index.html"
"$LG_BIN/lg-export" --data-dir "$T/d" --out "$AO" >"$T/atksite.out" 2>&1 && fail "lg-export wrote into the attacker's folder"
grep -q -- "--out: \"$AO\" belongs to uid [0-9]* ($ATK), not to uid 0 (root): refused" "$T/atksite.out" ||
    { cat "$T/atksite.out"; fail "lg-export's refusal does not name the output folder"; }
expect_eq "root's file after lg-export --out (attacker's)" "$(sha256sum <"$T/root/file") $(stat -c '%a' "$T/root/file")" "$sum_before 644"
echo "ok: lg-export refuses an output folder another user owns"

# Our own folders: a campaign, then its site into a folder holding a link (replaced, not followed).
"$LG_BIN/lgctl" run "$T/local.yaml" --data-dir "$T/d" --quiet >"$T/local.out" 2>"$T/local.err" ||
    { cat "$T/local.err"; fail "lgctl run in a data folder of root's"; }
expect_eq "data folder" "$(stat -c '%U %a' "$T/d")" "root 711"
mkdir "$T/site"
ln -s "$T/root/file" "$T/site/index.html"
"$LG_BIN/lg-export" --data-dir "$T/d" --out "$T/site" --campaign local-atk >"$T/site.out" 2>&1 ||
    { cat "$T/site.out"; fail "lg-export into a site folder of root's"; }
[ -L "$T/site/index.html" ] && fail "lg-export left the link at index.html"
grep -q "<html" "$T/site/index.html" || fail "index.html is not the site's page"
expect_eq "root's file after lg-export (link in our folder)" "$(sha256sum <"$T/root/file")" "$sum_before"
# The postgres user owns pg/: a pg/run link of its own to a folder of root's.
runuser -u postgres -- bash -c "rm -rf '$T/d/pg/run' && ln -s '$T/root/dir' '$T/d/pg/run'"
"$LG_BIN/lgctl" db start --data-dir "$T/d" >"$T/pglink.out" 2>&1 && fail "lgctl db start followed pg/run"
grep -q "could not prepare \"$T/d/pg\"" "$T/pglink.out" || { cat "$T/pglink.out"; fail "no refusal of the pg/run link"; }
expect_eq "root's folder after lgctl db start (pg/run link)" "$(stat -c '%U %a' "$T/root/dir")" "root 755"
echo "ok: files in our own folders are made anew (a link there is replaced); a pg/run link is refused"

# --- 3. root's local-mode folder is not the daemons' ---
url=$(env -u XDG_DATA_HOME "$LG_BIN/lgctl" db url 2>/dev/null)
case $url in
*%2Fvar%2Flib%2Flg-local%2Fpg%2Frun*) ;;
*) fail "root's default local-mode folder is not /var/lib/lg-local: $url" ;;
esac
grep -qE '^[[:space:]]*install .*/var/lib/lg' "$LG_SRC/deploy/debian/postinst" &&
    fail "the package's postinst still makes /var/lib/lg"
echo "ok: root's local mode uses /var/lib/lg-local, not the daemons' /var/lib/lg"
echo "PASS"
