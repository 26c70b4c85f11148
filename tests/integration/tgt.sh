# shellcheck shell=bash
# tgt.sh: a private iSCSI target (tgtd) on loopback for tests, sourced after lib.sh. tgt_start
# creates a file-backed LUN in $T, starts tgtd in the foreground with its own control number and
# portal port (both derived from $$, never 3260), lets only 127.0.0.1 in and waits until
# iscsi-inq answers. tgtd ignores SIGTERM, so the EXIT trap deletes its system through tgtadm
# and kills the PID only if it is still alive after that.
#
# tgt_start [SIZE]: target $ISCSI_IQN with LUN 1 of SIZE (default 256M). Exports ISCSI_PORT,
#   ISCSI_IQN, ISCSI_URL (iscsi://127.0.0.1:PORT/IQN/1), ISCSI_FIO_URL (the same with every ':'
#   escaped as fio's filename= wants it), ISCSI_LUN_FILE and TGT_CTL (the control number).
# tgt_add_lun LUN SIZE [BLOCKSIZE]: one more LUN on that target; prints its backing file.
# tgt_add_chap [SIZE]: a second target whose LUN 1 needs CHAP. Exports ISCSI_CHAP_URL,
#   ISCSI_CHAP_FIO_URL, ISCSI_CHAP_USER, ISCSI_CHAP_PASS and ISCSI_CHAP_CREDS (a file with
#   "username = ..." and "password = ..." lines, mode 600).
# fio_escape STRING: STRING with each ':' written as '\:'.

TGT_PID=""
TGT_CTL=""
TGT_DIR=""

fio_escape() { printf '%s' "${1//:/\\:}"; }

# tgt_free_port FIRST: the first port from FIRST on that nothing on 127.0.0.1 accepts.
tgt_free_port() {
    local p=$1
    while (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; do
        p=$((p + 1))
    done
    echo "$p"
}

# A hung tgtd never answers its control socket: no tgtadm call may wait for it forever.
tgt_adm() { timeout 10 tgtadm -C "$TGT_CTL" --lld iscsi "$@"; }

# tgt_stop: delete the targets (forced: sessions may be open) and then the tgtd system, which
# tgt refuses while any target exists; tgtd exits about 2 s later. Kill the PID if it is still
# there after 10 s; remove the control socket files tgtd leaves in /var/run/tgtd.
tgt_stop() {
    [ -n "$TGT_PID" ] || return 0
    if kill -0 "$TGT_PID" 2>/dev/null; then
        local tid
        kill -CONT "$TGT_PID" 2>/dev/null || true # a test may have frozen it
        for tid in $(tgt_adm --op show --mode target 2>/dev/null |
            sed -n 's/^Target \([0-9]*\):.*/\1/p'); do
            tgt_adm --op delete --force --mode target --tid "$tid" >/dev/null 2>&1 || true
        done
        timeout 10 tgtadm -C "$TGT_CTL" --op delete --mode system >/dev/null 2>&1 || true
        for _ in $(seq 1 100); do
            kill -0 "$TGT_PID" 2>/dev/null || break
            sleep 0.1
        done
        if kill -0 "$TGT_PID" 2>/dev/null; then
            echo "tgt_stop: tgtd $TGT_PID did not exit after 'delete system'; killing it" >&2
            kill -KILL "$TGT_PID" 2>/dev/null || true
        fi
    fi
    wait "$TGT_PID" 2>/dev/null || true
    rm -f "/var/run/tgtd/socket.$TGT_CTL" "/var/run/tgtd/socket.$TGT_CTL.lock"
    TGT_PID=""
}

# Runs before whatever EXIT trap was there (lib.sh's cleanup, another fixture's), handing it the
# exit status. set +e first: under errexit, the `(exit N)` that restores a failing status
# would end the shell right there and skip the rest of the cleanup.
tgt__install_trap() {
    local prev words=()
    prev=$(trap -p EXIT) # "trap -- 'COMMAND' EXIT", quoted for the shell to read back
    [ -z "$prev" ] || eval "words=($prev)"
    prev=${words[2]:-}
    # shellcheck disable=SC2154,SC2064 # tgt_rc is set when the trap runs; prev expands now
    trap "tgt_rc=\$?; set +e; tgt_stop; (exit \$tgt_rc); ${prev:-exit \$tgt_rc}" EXIT
    # A test stopped by a signal would skip the EXIT trap and leave tgtd (which ignores SIGTERM)
    # running: make INT and TERM an ordinary exit, unless the test handles them itself.
    [ -n "$(trap -p INT)" ] || trap 'exit 130' INT
    [ -n "$(trap -p TERM)" ] || trap 'exit 143' TERM
}
tgt__install_trap

tgt_start() {
    local size=${1:-256M}
    command -v tgtd >/dev/null || fail "tgtd is not installed (apt-get install tgt)"
    command -v iscsi-inq >/dev/null ||
        fail "iscsi-inq is not installed (apt-get install libiscsi-bin)"
    [ "$(id -u)" = 0 ] ||
        fail "the tgt fixture needs root (tgtd's control socket is in /var/run/tgtd)"
    [ -z "$TGT_PID" ] || fail "tgt_start: tgtd $TGT_PID is already running"
    TGT_DIR=$T/tgt
    install -d -m 755 "$TGT_DIR"
    # A control number no live tgtd answers on: tgtd refuses one whose lock another holds.
    TGT_CTL=$((1000 + $$ % 30000))
    while timeout 10 tgtadm -C "$TGT_CTL" --op show --mode system >/dev/null 2>&1; do
        TGT_CTL=$((TGT_CTL + 1))
    done
    ISCSI_PORT=$(tgt_free_port $((13300 + $$ % 10000)))
    ISCSI_IQN=iqn.2026-11.test.lg:lun0
    ISCSI_LUN_FILE=$TGT_DIR/lun0.img
    truncate -s "$size" "$ISCSI_LUN_FILE"
    tgtd -f -C "$TGT_CTL" --iscsi "portal=127.0.0.1:$ISCSI_PORT" >"$TGT_DIR/tgtd.log" 2>&1 &
    TGT_PID=$!
    local ok=0
    for _ in $(seq 1 100); do
        kill -0 "$TGT_PID" 2>/dev/null || fail "tgtd exited: $(tail -n 5 "$TGT_DIR/tgtd.log")"
        if timeout 10 tgtadm -C "$TGT_CTL" --op show --mode system >/dev/null 2>&1; then
            ok=1
            break
        fi
        sleep 0.1
    done
    [ $ok = 1 ] || fail "tgtd -C $TGT_CTL does not answer on its control socket"
    tgt_adm --op new --mode target --tid 1 -T "$ISCSI_IQN" >>"$TGT_DIR/tgtadm.log" 2>&1 ||
        fail "tgtadm: new target: $(tail -n 2 "$TGT_DIR/tgtadm.log")"
    tgt_adm --op new --mode logicalunit --tid 1 --lun 1 -b "$ISCSI_LUN_FILE" \
        >>"$TGT_DIR/tgtadm.log" 2>&1 || fail "tgtadm: new LUN: $(tail -n 2 "$TGT_DIR/tgtadm.log")"
    tgt_adm --op bind --mode target --tid 1 -I 127.0.0.1 >>"$TGT_DIR/tgtadm.log" 2>&1 ||
        fail "tgtadm: bind: $(tail -n 2 "$TGT_DIR/tgtadm.log")"
    ISCSI_URL="iscsi://127.0.0.1:$ISCSI_PORT/$ISCSI_IQN/1"
    ISCSI_FIO_URL=$(fio_escape "$ISCSI_URL")
    ok=0
    for _ in $(seq 1 100); do
        if iscsi-inq "$ISCSI_URL" >"$TGT_DIR/inq.log" 2>&1; then
            ok=1
            break
        fi
        sleep 0.1
    done
    [ $ok = 1 ] || fail "iscsi-inq $ISCSI_URL does not answer: $(tail -n 2 "$TGT_DIR/inq.log")"
    export ISCSI_PORT ISCSI_IQN ISCSI_URL ISCSI_FIO_URL ISCSI_LUN_FILE TGT_CTL
    echo "tgtd $TGT_PID (control $TGT_CTL) serves $ISCSI_URL ($size, $ISCSI_LUN_FILE)"
}

tgt_add_lun() {
    local lun=$1 size=$2 bsz=${3:-} f
    f=$TGT_DIR/lun$lun.img
    truncate -s "$size" "$f"
    tgt_adm --op new --mode logicalunit --tid 1 --lun "$lun" -b "$f" ${bsz:+--blocksize "$bsz"} \
        >>"$TGT_DIR/tgtadm.log" 2>&1 ||
        fail "tgtadm: new LUN $lun: $(tail -n 2 "$TGT_DIR/tgtadm.log")"
    echo "$f"
}

tgt_add_chap() {
    local size=${1:-16M} iqn=iqn.2026-11.test.lg:chap
    [ -n "$TGT_PID" ] || fail "tgt_add_chap: call tgt_start first"
    truncate -s "$size" "$TGT_DIR/chap.img"
    ISCSI_CHAP_USER=lgchap
    # tgt takes CHAP secrets of any length; 16+ characters is what RFC 7143 asks of secrets.
    ISCSI_CHAP_PASS="pw$$x$RANDOM$RANDOM$RANDOM"
    ISCSI_CHAP_PASS=${ISCSI_CHAP_PASS:0:16}
    local log=$TGT_DIR/tgtadm.log
    tgt_adm --op new --mode target --tid 2 -T "$iqn" >>"$log" 2>&1 ||
        fail "tgtadm: new CHAP target: $(tail -n 2 "$log")"
    tgt_adm --op new --mode logicalunit --tid 2 --lun 1 -b "$TGT_DIR/chap.img" >>"$log" 2>&1 ||
        fail "tgtadm: new CHAP LUN: $(tail -n 2 "$log")"
    tgt_adm --op new --mode account --user "$ISCSI_CHAP_USER" --password "$ISCSI_CHAP_PASS" \
        >>"$log" 2>&1 || fail "tgtadm: new account: $(tail -n 2 "$log")"
    tgt_adm --op bind --mode account --tid 2 --user "$ISCSI_CHAP_USER" >>"$log" 2>&1 ||
        fail "tgtadm: bind account: $(tail -n 2 "$log")"
    tgt_adm --op bind --mode target --tid 2 -I 127.0.0.1 >>"$log" 2>&1 ||
        fail "tgtadm: bind CHAP target: $(tail -n 2 "$log")"
    ISCSI_CHAP_CREDS=$TGT_DIR/chap.creds
    (umask 077 && printf 'username = %s\npassword = %s\n' "$ISCSI_CHAP_USER" "$ISCSI_CHAP_PASS" \
        >"$ISCSI_CHAP_CREDS")
    ISCSI_CHAP_URL="iscsi://127.0.0.1:$ISCSI_PORT/$iqn/1"
    ISCSI_CHAP_FIO_URL=$(fio_escape "$ISCSI_CHAP_URL")
    export ISCSI_CHAP_URL ISCSI_CHAP_FIO_URL ISCSI_CHAP_USER ISCSI_CHAP_PASS ISCSI_CHAP_CREDS
}
