# apt.sh: sourced by lg's install scripts (install-deps.sh, windows/deps.sh). apt_get is apt-get
# that waits for apt's and dpkg's locks instead of failing on them: a fresh cloud machine's
# unattended upgrades hold them for minutes after its first boot, which would fail a first
# "./deploy/test.sh" for no fault of its own.
#  - dpkg's frontend lock (install, remove, check): apt waits for it itself, with
#    DPkg::Lock::Timeout;
#  - the lists lock (update): apt does not wait for it (apt 2.6), so the call is made again every
#    APT_WAIT_STEP seconds (10) while it fails on a lock and only then.
# Up to APT_WAIT_MAX seconds (900) in all; then the last error stands.
apt_get() {
    local max=${APT_WAIT_MAX:-900} step=${APT_WAIT_STEP:-10} start=$SECONDS rc err said=""
    err=$(mktemp) || return 1
    while :; do
        rc=0
        apt-get -o "DPkg::Lock::Timeout=$max" "$@" 2>"$err" || rc=$?
        if [ $rc = 0 ] || ! grep -q "Could not get lock\|Unable to lock" "$err" ||
            [ $((SECONDS - start)) -ge "$max" ]; then
            cat "$err" >&2
            rm -f "$err"
            return $rc
        fi
        if [ -z "$said" ]; then
            echo "apt-get $*: waiting for apt's lock ($(grep -m 1 "Could not get lock" "$err" |
                sed 's/^E: //')), up to ${max} s" >&2
            said=1
        fi
        sleep "$step"
    done
}
