#!/usr/bin/env bash
# it_smb_logons: how the lgsmb engine logs its worker pool on (agent/engines/smbpool.c,
# smblogon.c), against a real smbd whose share takes at most 20 connections ("max connections"):
# 1. with 16 of them held by smbclient sessions, a job of iodepth 16 gets 4 sessions, is refused
#    the others (NT_STATUS_INSUFFICIENT_RESOURCES, which libsmbclient says as EINVAL), tries them
#    again with a growing pause, and has all 16 once the holders let go 2 s later;
# 2. with none let go, a job of iodepth 24 and smb_connect_timeout=3 fails after about 3 s naming
#    20 (or, as smbd counts, a few more) of 24 sessions, the last failure and the server;
# 3. the jobs of one fio run share the logon locks in their working folder (made 0600 there; none
#    in a folder others may write to, which is said once);
# 4. at "max smbd processes" smbd drops further connections (ENETRESET or ECONNABORTED): tried
#    again as well, and named at the deadline;
# 5. a wrong password fails at once and is not tried again.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/smb.sh"

command -v fio >/dev/null || fail "fio is not installed"
command -v jq >/dev/null || fail "jq is not installed"
ENGINE=$(cd "$LG_BIN/../lib/lg/engines" 2>/dev/null && pwd)/lgsmb.so
[ -f "$ENGINE" ] || fail "no $LG_BIN/../lib/lg/engines/lgsmb.so: build with LG_ENGINES=ON"
SMB_SHARE_EXTRA="    max connections = 20" smb_start
SERVER="127.0.0.1:$SMB_PORT"
URL="smb://$SERVER/$SMB_SHARE"
head -c $((4 << 20)) /dev/urandom >"$SMB_SHARE_DIR/f.bin"
chown "$SMB_USER" "$SMB_SHARE_DIR/f.bin"
install -d -m 700 "$T/run" # where lg-agent starts fio: a folder of its own
cd "$T/run" || exit

# job NAME [OPTION...]: $T/NAME.fio, 4k random reads of f.bin for 1 s with the options.
job() {
    local name=$1
    shift
    {
        printf '[global]\nioengine=external:%s\ncredentials=%s\n' "$ENGINE" "${CREDS:-$SMB_CREDS}"
        printf 'filename=%s\n' "${URL//:/\\:}/f.bin"
        printf '%s\n' rw=randread bs=4k size=4M time_based=1 runtime=1 "$@"
        printf '[%s]\n' "$name"
    } >"$T/$name.fio"
}
# fio_run NAME: fio on $T/NAME.fio; its JSON in $T/NAME.json, stderr in $T/NAME.log, exit status
# in RC and seconds in SECS.
fio_run() {
    local t0=$EPOCHREALTIME
    RC=0
    fio --output-format=json --output="$T/$1.out" "$T/$1.fio" 2>"$T/$1.log" || RC=$?
    SECS=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')
    sed -n '/^{/,$p' "$T/$1.out" >"$T/$1.json"
}
# share_conns: connections smbd has to the share now.
share_conns() {
    smbstatus -s "$SMB_CONF" -S 2>/dev/null | awk -v s="$SMB_SHARE" '$1 == s' | wc -l
}

# --- 1. refused for the server's load, tried again, all up once sessions are let go ------------
mkfifo "$T/hold"
for _ in $(seq 1 16); do
    smbclient "//127.0.0.1/$SMB_SHARE" -p "$SMB_PORT" -A "$SMB_CREDS" -m SMB3 <"$T/hold" \
        >>"$T/holders.log" 2>&1 &
    CLEANUP_PIDS+=("$!")
done
exec 7>"$T/hold" # the holders read commands from it until it is closed
for _ in $(seq 1 200); do
    [ "$(share_conns)" -ge 16 ] && break
    sleep 0.1
done
expect_eq "connections the holders keep to the share" "$(share_conns)" 16
job retry iodepth=16
fio_run retry 7>&- & # (fio must not keep the holders' pipe open)
fio_pid=$!
sleep 2
exec 7>&- # the holders end: their 16 connections go
wait "$fio_pid" || fail "retry: the test's wait for fio failed"
fio_run_rc=$(jq '[.jobs[].error] | add' "$T/retry.json" 2>/dev/null || echo none)
expect_eq "retry: job errors" "$fio_run_rc" 0
grep -E "lgsmb: 16 SMB sessions to $SERVER up in [0-9.]+ s; [0-9]+ connects were tried again" \
    "$T/retry.log" || fail "retry: no note of connects tried again: $(cat "$T/retry.log")"
grep -q "the last failure: Invalid argument (the server refused a further session" "$T/retry.log" ||
    fail "retry: smbd's refusal at \"max connections\" is not EINVAL: $(cat "$T/retry.log")"
echo "ok: retry: $(grep -o '16 SMB sessions.*tried again' "$T/retry.log")"
[ "$(jq '.jobs[0].read.io_bytes' "$T/retry.json")" -gt 0 ] || fail "retry: no bytes read"

# --- 2. the deadline passes: the error names the counts, the last failure and the server --------
for _ in $(seq 1 100); do [ "$(share_conns)" = 0 ] && break; sleep 0.1; done
job deadline iodepth=24 smb_connect_timeout=3
fio_run deadline
[ "$RC" != 0 ] || fail "deadline: fio succeeded with 24 sessions on a share of 20"
# smbd counts a share's connections racily: a tree connect beside another may pass at 20.
want="could not connect to \"$URL/f.bin\": 2[0-3] of 24 SMB sessions to $SERVER came up within 3 s"
want+=" \(smb_connect_timeout; the last failure: Invalid argument \(the server refused a further session"
grep -qE "$want" "$T/deadline.log" || fail "deadline: want /$want/, got: $(cat "$T/deadline.log")"
awk -v s="$SECS" 'BEGIN { exit !(s >= 3 && s < 15) }' || fail "deadline: fio ended after $SECS s"
echo "ok: deadline: fio failed after $SECS s: $(grep -o '[0-9]* of 24.*' "$T/deadline.log" | head -n 1)"

# --- 3. the jobs of a run share the logon locks of their folder ---------------------------------
for _ in $(seq 1 100); do [ "$(share_conns)" = 0 ] && break; sleep 0.1; done
rm -f lgsmb-logon.*
job jobs iodepth=8 numjobs=2
fio_run jobs
expect_eq "jobs: fio's exit status" "$RC" 0
for f in lgsmb-logon.lock lgsmb-logon.busy; do
    expect_eq "jobs: $f" "$(stat -c '%a %U' "$f" 2>/dev/null)" "600 root"
done
! grep -q "bounded per job only" "$T/jobs.log" || fail "jobs: $(cat "$T/jobs.log")"
install -d -m 770 "$T/shared"
job jobs-shared-dir iodepth=8 numjobs=2
cd "$T/shared" || exit
fio_run jobs-shared-dir
cd "$T/run" || exit
expect_eq "jobs in a group-writable folder: fio's exit status" "$RC" 0
[ -z "$(ls -A "$T/shared")" ] || fail "lock files in a group-writable folder: $(ls -A "$T/shared")"
expect_eq "the note on a folder that is not ours alone, once" \
    "$(grep -c "SMB logons are bounded per job only, not across this fio run's jobs: no lock in the working folder (the working folder is not this user's alone)" "$T/jobs-shared-dir.log")" 1

# --- 4. smbd at "max smbd processes" drops further connections: ENETRESET or ECONNABORTED ------
for _ in $(seq 1 100); do [ "$(share_conns)" = 0 ] && break; sleep 0.1; done
sed -i 's/^\[global\]$/[global]\n    max smbd processes = 10/' "$SMB_CONF"
kill -HUP "$SMB_PID" # smbd reads its configuration again
sleep 1
job processes iodepth=16 smb_connect_timeout=3
fio_run processes
[ "$RC" != 0 ] || fail "processes: fio succeeded with 16 sessions on an smbd of 10 processes"
want="[0-9]+ of 16 SMB sessions to $SERVER came up within 3 s \(smb_connect_timeout; the last"
want+=" failure: (Network dropped connection on reset|Software caused connection abort) \(the server"
want+=" dropped a further connection, as smbd does past \"max smbd processes\"\)\)"
grep -qE "$want" "$T/processes.log" || fail "processes: want /$want/, got: $(cat "$T/processes.log")"
echo "ok: processes: $(grep -oE '[0-9]+ of 16 .*' "$T/processes.log" | head -n 1)"
sed -i '/max smbd processes = 10/d' "$SMB_CONF"
kill -HUP "$SMB_PID"
sleep 1

# --- 5. a wrong password fails at once and is not tried again ---------------------------------
printf 'username = %s\npassword = wrong-%s\n' "$SMB_USER" "$SMB_PASS" >"$T/badcreds"
chmod 600 "$T/badcreds"
CREDS=$T/badcreds job badpw iodepth=16
fio_run badpw
[ "$RC" != 0 ] || fail "badpw: fio succeeded with a wrong password"
grep -q "logon to 127.0.0.1:$SMB_PORT refused for user $SMB_USER" "$T/badpw.log" ||
    fail "badpw: $(cat "$T/badpw.log")"
! grep -q "tried again\|SMB sessions to" "$T/badpw.log" || fail "badpw: tried again: $(cat "$T/badpw.log")"
awk -v s="$SECS" 'BEGIN { exit !(s < 10) }' || fail "badpw: fio took $SECS s"
echo "ok: badpw: refused at once ($SECS s): $(grep -o 'logon to.*' "$T/badpw.log" | head -n 1)"
echo "PASS"
