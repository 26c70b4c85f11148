#!/usr/bin/env bash
# it_unit_security: the sandbox of deploy/systemd/lg-{agent,controller}.service, as
# "systemd-analyze security --offline=true" rates it: an overall exposure of at most 5.0 for the
# agent and 3.5 for the controller (both were MEDIUM, 7.3 and 6.6, before issue 30). The agent is
# rated with the block-device drop-in its comment documents as well, and it must keep nothing that
# would stop that drop-in from reaching the devices, or its application runs (sysbench's LuaJIT)
# from generating code. The units are analysed in a root of their own (--root), so that drop-ins of
# this host's /etc/systemd do not count. LG_UNITS=DIR rates the units in DIR instead.
. "$(dirname "$0")/lib.sh"
command -v systemd-analyze >/dev/null || fail "systemd-analyze is missing (deploy/install-deps.sh installs systemd)"
systemd-analyze security --help 2>&1 | grep -q -- '--offline' ||
    fail "this systemd-analyze has no security --offline (systemd 250 or later has it)"
UNITS=${LG_UNITS:-$LG_SRC/deploy/systemd}
R="$T/root"
mkdir -p "$R/etc/systemd/system"
for u in lg-agent lg-controller; do
    cp "$UNITS/$u.service" "$R/etc/systemd/system/$u.service"
done

# exposure UNIT: the overall exposure level of UNIT (the report in $T/UNIT.security.log).
exposure() {
    local log="$T/$1.security.log"
    systemd-analyze security --offline=true --root="$R" "$1.service" >"$log" 2>&1 ||
        { cat "$log" >&2; fail "systemd-analyze security $1"; }
    sed -n 's/.*Overall exposure level for [^:]*: \([0-9][0-9]*\.[0-9]\).*/\1/p' "$log" | tail -n 1
}
# at_most FIGURE LIMIT: FIGURE <= LIMIT (decimals).
at_most() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a + 0 <= b + 0) }'; }

agent=$(exposure lg-agent)
controller=$(exposure lg-controller)
[ -n "$agent" ] || { cat "$T/lg-agent.security.log"; fail "no overall exposure level for lg-agent"; }
[ -n "$controller" ] || { cat "$T/lg-controller.security.log"; fail "no overall exposure level for lg-controller"; }
echo "exposure: lg-agent.service $agent (at most 5.0), lg-controller.service $controller (at most 3.5)"
bad=0
at_most "$agent" 5.0 || { grep '✗' "$T/lg-agent.security.log"; echo "lg-agent.service: $agent > 5.0" >&2; bad=1; }
at_most "$controller" 3.5 ||
    { grep '✗' "$T/lg-controller.security.log"; echo "lg-controller.service: $controller > 3.5" >&2; bad=1; }
[ $bad = 0 ] || fail "a unit's exposure is over its limit"
echo "ok: both units are within their limits"

# The block-device drop-in, as the agent's comment gives it ("#   " lines).
d="$R/etc/systemd/system/lg-agent.service.d"
mkdir -p "$d"
sed -n 's/^#   //p' "$R/etc/systemd/system/lg-agent.service" >"$d/block.conf"
if ! grep -q '^SupplementaryGroups=disk$' "$d/block.conf" || ! grep -q '^PrivateDevices=no$' "$d/block.conf"; then
    cat "$d/block.conf"
    fail "the agent's comment no longer gives the block-device drop-in"
fi
blk=$(exposure lg-agent)
grep -q '✗ PrivateDevices=' "$T/lg-agent.security.log" || fail "the drop-in did not take effect"
echo "exposure: lg-agent.service with the block-device drop-in $blk (at most 5.0)"
at_most "$blk" 5.0 || fail "lg-agent.service with the block-device drop-in: $blk > 5.0"
# A DeviceAllow= or DevicePolicy= of the unit's own makes the device cgroup an allow-list that
# PrivateDevices=no does not lift: the drop-in would give the disk group but no device. So does
# ProtectClock=yes on a systemd without the fix of its issue 18142 (DeviceAllow=char-rtc r).
# systemd-analyze does not see that, hence the look at the unit itself.
if grep -E '^(DeviceAllow=|DevicePolicy=|ProtectClock=(yes|true|on|1)$)' "$UNITS/lg-agent.service"; then
    fail "lg-agent.service sets a device allow-list: the block-device drop-in would not reach the devices"
fi
# sysbench (LuaJIT) aborts and PostgreSQL's JIT fails under MemoryDenyWriteExecute=.
if grep -E '^MemoryDenyWriteExecute=(yes|true|on|1)$' "$UNITS/lg-agent.service"; then
    fail "lg-agent.service denies write+execute memory: sysbench's LuaJIT and PostgreSQL's JIT need it"
fi
for want in RuntimeDirectory=lg-agent RuntimeDirectoryMode=0700 StateDirectory=lg \
    ConfigurationDirectory=lg PrivateTmp=yes; do
    grep -q "^$want\$" "$UNITS/lg-agent.service" || fail "lg-agent.service lacks $want"
done
echo "ok: the block-device drop-in still reaches the devices; application runs may generate code"
echo "PASS"
