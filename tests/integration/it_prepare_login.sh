#!/usr/bin/env bash
# it_prepare_login: failed SMB logins fail a run at Prepare, before the start, with the login
# error in the run's error (issue 41 part 3; moved out of it_start_gate, whose timing checks run
# alone, as this takes lgsmb's 45 s smb_connect_timeout). One agent, smbd on loopback:
#  - a share that takes 8 sessions: the layout's (up to 3: its setup's and its layout's) log in,
#    the run's 4 x 8 cannot all; the run fails at Prepare with the job's own login error;
#  - a wrong password: every login fails, the layout step's first; the run's error names the
#    refused login.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/smb.sh"

[ -f "$LG_BIN/../lib/lg/engines/lgsmb.so" ] || fail "no lgsmb engine: build with LG_ENGINES=ON"
pg_start
lg_keys a1
"$LG_BIN/lgctl" db migrate >/dev/null
install -d -m 755 "$T/smb" && install -d -m 755 -o daemon "$T/smb/limited"
SMB_SHARE_EXTRA=$'[limited]\n    path = '"$T/smb/limited"$'\n    read only = no\n    force user = daemon\n    max connections = 8' \
    smb_start
BASE="smb://127.0.0.1:$SMB_PORT"
for d in "$SMB_SHARE_DIR" "$T/smb/limited"; do
    head -c 16M /dev/zero >"$d/login.bin"
    chown daemon "$d/login.bin"
done
install -m 600 "$SMB_CREDS" "$T/agent.creds"
start_controller
start_agent a1 --smb-credentials "$T/agent.creds" --allow "$BASE/$SMB_SHARE" \
    --allow "$BASE/limited" --smb-keep-sessions 0

spec() { # NAME TARGET: a 4T8Q 4k random read, tried once
    cat >"$T/$1.yaml" <<SPEC
name: $1
target: "$2"
size: 16M
profiles: [{name: r, bs: 4k, pattern: random, read: 100, sweep: none}]
threads: 4
qd: 8
ramp: 0s
runtime: 5s
precondition: none
retries: 0
SPEC
}
run_error() { # NAME: the error of campaign NAME's run, which must have failed
    expect_eq "$1: the run" "$(q "SELECT r.state FROM lg.run r JOIN lg.campaign c USING (campaign_id)
        WHERE c.name = '$1'")" failed
    q "SELECT error FROM lg.run r JOIN lg.campaign c USING (campaign_id) WHERE c.name = '$1'"
}

spec limited "$BASE/limited/login.bin"
submit_file limited
wait_campaign limited
err=$(run_error limited)
echo "limited: $err"
[[ $err == *"failed at Prepare, before the start"* ]] || fail "limited: not a failed login at Prepare: $err"
[[ $err == *"connect to: "* ]] || fail "limited: not the job's own error: $err"

printf 'username = %s\npassword = %s\n' "$SMB_USER" "not-$SMB_PASS" >"$T/agent.creds"
spec badpw "$BASE/$SMB_SHARE/login.bin"
submit_file badpw
wait_campaign badpw
err=$(run_error badpw)
echo "badpw: $err"
[[ $err == *"refused for user $SMB_USER"* || $err == *LOGON_FAILURE* ]] ||
    fail "badpw: the login error is not in the run's error: $err"
echo "ok: failed logins fail the run at Prepare, saying why"
echo "PASS"
