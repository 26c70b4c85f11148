# wine.sh: the Windows agent under wine64 for it_windows and it_windows_skew, sourced after
# lib.sh once the cross build is there (it_windows_build's, or LG_WIN_BUILD).
# Sets WIN_BUILD, EXE, CACHE, WINE and WINESERVER; exports WINEPREFIX (LG_WIN_TEST_PREFIX, else
# $CACHE/wine-test) and WINEDEBUG. One test at a time in a prefix, from any build folder: its
# EXIT trap stops the prefix's wineserver, so the prefix is held by a flock. WDIR (C:\lg-$$) is
# this test's folder in it, WDIR_UNIX the same folder from Linux; the trap removes it.
WIN_BUILD=${LG_WIN_BUILD:-$LG_BIN/../windows}
EXE="$WIN_BUILD/bin/lg-agent.exe"
[ -f "$EXE" ] ||
    fail "no $EXE: the cross build (ctest's it_windows_build, or deploy/windows/build.sh) comes first"
CACHE=${LG_WIN_CACHE:-/var/cache/lg-windows}
WINE=/usr/lib/wine/wine64 WINESERVER=/usr/lib/wine/wineserver64
export WINEPREFIX="${LG_WIN_TEST_PREFIX:-$CACHE/wine-test}" WINEDEBUG=-all
exec 8>"$WINEPREFIX.lock"
flock -w 900 8 || fail "another run held $WINEPREFIX.lock for 900 s"
WDIR="C:\\lg-$$"
WDIR_UNIX="$WINEPREFIX/drive_c/lg-$$"
SERVICE_INSTALLED=""
wine_cleanup() {
    local rc=$?
    if [ -n "$SERVICE_INSTALLED" ]; then # else every later start of this prefix runs it
        "$WINE" "$EXE" --uninstall-service >/dev/null 2>&1 </dev/null || true
    fi
    "$WINESERVER" -k 2>/dev/null || true
    rm -rf "$WDIR_UNIX"
    cleanup "$rc"
}
trap wine_cleanup EXIT
mkdir -p "$WDIR_UNIX"

# win_agent NAME WORK LOG: lg-agent.exe --name NAME under wine in the background, to
# start_controller's TCP endpoint (CTL_PORT), with NAME's keys (lg_keys), fio.exe from the cache,
# WDIR allowed and WDIR\WORK its work folder, its output in LOG; until NAME is in lg.agent (60 s:
# wine may still be starting its services). Its PID in CLEANUP_PIDS.
win_agent() {
    local name=$1 work=$2 log=$3
    agent_key "$name"
    "$WINE" "$EXE" --controller "tcp://127.0.0.1:$CTL_PORT" --name "$name" \
        --key "Z:$T/keys/agents/$name.key" --controller-key "Z:$T/keys/controller.pub" \
        --fio "Z:$CACHE/prefix/bin/fio.exe" --allow "$WDIR" --work-dir "$WDIR\\$work" \
        >"$log" 2>&1 </dev/null &
    CLEANUP_PIDS+=("$!")
    for _ in $(seq 1 600); do
        [ "$(q "SELECT count(*) FROM lg.agent WHERE name = '$name'")" = 1 ] && return 0
        sleep 0.1
    done
    tr -d '\r' <"$log" | tail -n 20 >&2
    fail "lg-agent.exe $name did not register within 60 s (log: $log)"
}
