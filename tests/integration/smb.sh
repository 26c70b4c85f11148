# smb.sh: a private Samba server on loopback for tests, sourced after lib.sh. smb_start writes
# an smb.conf with every state folder under $T, adds one password user, starts smbd in the
# foreground and waits until it serves the share; the EXIT trap stops it by PID (and waits).
# Exports SMB_PORT, SMB_USER, SMB_PASS, SMB_SHARE (share name), SMB_SHARE_DIR (its folder),
# SMB_CREDS (an smbclient authentication file for the user) and SMB_CONF.
# SMB_ADDR (default 127.0.0.1) and SMB_NETNS (default none) set before smb_start put smbd on
# that address inside that network namespace (a NAS on its own host, e.g. behind a shaped link).
# SMB_SHARE_EXTRA (default none): more lines for the share's section (e.g. "sync always = yes").

SMB_PID=""

# smb_free_port FIRST: the first port from FIRST on that nothing on 127.0.0.1 accepts.
smb_free_port() {
    local p=$1
    while (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; do
        p=$((p + 1))
    done
    echo "$p"
}

# smb_stop: stop smbd and wait for it and the per-connection children it forked.
smb_stop() {
    [ -n "$SMB_PID" ] || return 0
    local kids
    kids=$(pgrep -P "$SMB_PID" 2>/dev/null || true)
    kill "$SMB_PID" 2>/dev/null || true
    for _ in $(seq 1 100); do
        kill -0 "$SMB_PID" 2>/dev/null || break
        sleep 0.05
    done
    kill -KILL "$SMB_PID" 2>/dev/null || true
    # Children exit when their parent does; any that did not are ours, stopped by PID.
    for pid in $kids; do
        for _ in $(seq 1 40); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
        kill -KILL "$pid" 2>/dev/null || true
    done
    SMB_PID=""
}

# smbd is stopped first, then lib.sh's cleanup runs with the script's exit status in $? (and
# without errexit, which would end the trap at that `exit`).
trap 'smb_rc=$?; set +e; smb_stop; (exit $smb_rc); cleanup' EXIT

# smb_start: needs root (smbpasswd and `force user`); fails the test when smbd cannot start.
smb_start() {
    command -v smbd >/dev/null || fail "smbd is not installed (apt-get install samba smbclient)"
    command -v smbclient >/dev/null || fail "smbclient is not installed (apt-get install smbclient)"
    [ "$(id -u)" = 0 ] || fail "the SMB fixture needs root (smbpasswd, force user)"
    local d=$T/smb
    SMB_SHARE=lgshare
    SMB_SHARE_DIR=$d/share
    # A local account that is not the guest account (smbd logs the guest account in as guest
    # whatever the password, and refuses it as `force user`); daemon exists on every Debian and
    # owns the share folder and the files created in it.
    SMB_USER=daemon
    SMB_PASS="pw-$$-$RANDOM"
    SMB_PORT=$(smb_free_port $((14000 + $$ % 10000)))
    SMB_CONF=$d/smb.conf
    SMB_CREDS=$d/creds
    install -d -m 755 "$d" "$d/lock" "$d/state" "$d/cache" "$d/private" "$d/pid" "$d/ncalrpc" \
        "$d/log"
    install -d -m 755 -o "$SMB_USER" "$SMB_SHARE_DIR"
    cat >"$SMB_CONF" <<EOF
[global]
    server role = standalone server
    workgroup = LGTEST
    interfaces = ${SMB_ADDR:-127.0.0.1}
    bind interfaces only = yes
    smb ports = $SMB_PORT
    disable netbios = yes
    server min protocol = SMB2_02
    lock directory = $d/lock
    state directory = $d/state
    cache directory = $d/cache
    private dir = $d/private
    pid directory = $d/pid
    ncalrpc dir = $d/ncalrpc
    log file = $d/log/log.%m
    passdb backend = tdbsam:$d/private/passdb.tdb
    load printers = no
    printcap name = /dev/null
    disable spoolss = yes
    map to guest = never
    guest account = nobody
[$SMB_SHARE]
    path = $SMB_SHARE_DIR
    read only = no
    guest ok = yes
    force user = $SMB_USER
${SMB_SHARE_EXTRA:-}
EOF
    (echo "$SMB_PASS"; echo "$SMB_PASS") | smbpasswd -c "$SMB_CONF" -s -a "$SMB_USER" \
        >"$d/smbpasswd.log" 2>&1 || fail "smbpasswd -a $SMB_USER: $(tail -n 2 "$d/smbpasswd.log")"
    printf 'username = %s\npassword = %s\n' "$SMB_USER" "$SMB_PASS" >"$SMB_CREDS"
    chmod 600 "$SMB_CREDS"
    # Its own process group: smbd signals its whole group when it exits, which must not reach
    # this script or ctest (so no --no-process-group).
    local inns=()
    [ -z "${SMB_NETNS:-}" ] || inns=(ip netns exec "$SMB_NETNS")
    # (ip netns exec execs smbd: $! is smbd's PID)
    "${inns[@]}" smbd --foreground --debug-stdout -d "${SMB_DEBUG:-1}" -s "$SMB_CONF" >"$d/smbd.log" 2>&1 &
    SMB_PID=$!
    CLEANUP_PIDS+=("$SMB_PID")
    local ok=0
    for _ in $(seq 1 100); do
        kill -0 "$SMB_PID" 2>/dev/null || fail "smbd exited: $(tail -n 5 "$d/smbd.log")"
        if "${inns[@]}" smbclient "//${SMB_ADDR:-127.0.0.1}/$SMB_SHARE" -p "$SMB_PORT" \
            -A "$SMB_CREDS" -m SMB3 \
            -c 'ls' >/dev/null 2>&1; then
            ok=1
            break
        fi
        sleep 0.1
    done
    [ $ok = 1 ] || fail "smbd on ${SMB_ADDR:-127.0.0.1}:$SMB_PORT does not serve $SMB_SHARE"
    export SMB_PORT SMB_USER SMB_PASS SMB_SHARE SMB_SHARE_DIR SMB_CREDS SMB_CONF
    echo "smbd $SMB_PID serves //${SMB_ADDR:-127.0.0.1}:$SMB_PORT/$SMB_SHARE ($SMB_SHARE_DIR) for $SMB_USER"
}

# smb_client CMD...: smbclient on the test share as SMB_USER, commands as one -c string.
smb_client() {
    smbclient "//127.0.0.1/$SMB_SHARE" -p "$SMB_PORT" -A "$SMB_CREDS" -m SMB3 -c "$*"
}
