#!/usr/bin/env bash
# it_deb: the Debian packages as a site installs them. A release build for /usr, "cpack -G DEB":
# lg-agent (with the engines, Depends fio), lg-controller (with lgctl), lg-export; lintian finds
# nothing; dpkg -i installs them into this machine, which then has the lg user and a private
# /etc/lg; a local-mode campaign, lg-export and "man -l" of every page run from the installed
# paths only (PATH without any build folder); dpkg -L lists the engines, units, queries and pages;
# purging removes them again (also when the test fails).
. "$(dirname "$0")/lib.sh"
[ "$(id -u)" = 0 ] || fail "installing packages needs root (the CI runs as root)"
unset LG_DATABASE_URL LG_CONTROLLER
PKGS=(lg-agent lg-controller lg-export)
purge() { dpkg -P "${PKGS[@]}" >/dev/null 2>&1 || true; }
# One run of this test at a time on this machine (from any build folder): each installs and
# purges the same packages.
exec 8>/run/lock/lg-it-deb.lock
flock -w 500 8 || fail "another it_deb held /run/lock/lg-it-deb.lock for 500 s"
if dpkg-query -W -f='${Status}\n' "${PKGS[@]}" 2>/dev/null | grep -q "ok installed"; then
    fail "lg packages are already installed on this machine: not touching them"
fi
trap 'rc=$?; purge; cleanup $rc' EXIT # only once the packages are this run's to purge

"$LG_SRC/deploy/build.sh" "$T/pkgb" -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX=/usr \
    -DLG_TESTS=OFF >"$T/build.log" 2>&1 || { tail -30 "$T/build.log"; fail "release build for the packages"; }
(cd "$T/pkgb" && cpack -G DEB) >"$T/cpack.log" 2>&1 || { cat "$T/cpack.log"; fail "cpack -G DEB"; }
version=$(sed -nE 's/^project\(lg VERSION ([0-9.]+).*/\1/p' "$LG_SRC/CMakeLists.txt")
for p in "${PKGS[@]}"; do
    [ -s "$T/pkgb/${p}_${version}_amd64.deb" ] || fail "no package ${p}_${version}_amd64.deb"
done
dpkg-deb -f "$T/pkgb/lg-agent_${version}_amd64.deb" Depends | grep -q "fio" || fail "lg-agent does not depend on fio"
dpkg-deb -f "$T/pkgb/lg-controller_${version}_amd64.deb" Depends | grep -q "libpq5" ||
    fail "lg-controller's Depends were not computed from its binaries (no libpq5)"
if command -v lintian >/dev/null; then
    lintian "$T/pkgb"/*.deb >"$T/lintian.txt" 2>&1 || true
    grep -E "^[EW]: " "$T/lintian.txt" && fail "lintian has errors or warnings (above)"
    echo "ok: lintian: $(grep -cE '^[EWIP]: ' "$T/lintian.txt") findings"
else
    fail "lintian is missing (deploy/install-deps.sh installs it)"
fi

dpkg -i "$T/pkgb"/*.deb >"$T/dpkg.log" 2>&1 || { cat "$T/dpkg.log"; fail "dpkg -i"; }
getent passwd lg >/dev/null || fail "the packages did not create the lg user"
expect_eq "/etc/lg: owner, group, mode" "$(stat -c '%U:%G %a' /etc/lg)" "root:lg 750"
for want in /usr/lib/lg/engines/lgsmb.so /usr/lib/lg/engines/lgiscsi.so \
    /usr/lib/systemd/system/lg-agent.service /usr/share/man/man8/lg-agent.8.gz \
    /usr/share/bash-completion/completions/lg-agent; do
    dpkg -L lg-agent | grep -qx "$want" || fail "dpkg -L lg-agent lacks $want"
done
for want in /usr/bin/lgctl /usr/bin/lg-controller /usr/lib/systemd/system/lg-controller.service \
    /usr/share/man/man1/lgctl.1.gz /usr/share/man/man5/lg-spec.5.gz /usr/share/man/man8/lg-controller.8.gz \
    /usr/share/bash-completion/completions/lgctl /usr/share/bash-completion/completions/lg-controller; do
    dpkg -L lg-controller | grep -qx "$want" || fail "dpkg -L lg-controller lacks $want"
done
for want in /usr/share/lg/queries/01_4k_rand_iops.sql /usr/share/man/man1/lg-export.1.gz \
    /usr/share/bash-completion/completions/lg-export; do
    dpkg -L lg-export | grep -qx "$want" || fail "dpkg -L lg-export lacks $want"
done

# From the installed paths only.
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
installed_campaign it-deb
for p in man1/lgctl.1.gz man1/lg-export.1.gz man5/lg-spec.5.gz man8/lg-agent.8.gz man8/lg-controller.8.gz; do
    [ -n "$(MANWIDTH=120 man -l "/usr/share/man/$p" 2>/dev/null | head -n 5)" ] || fail "man -l /usr/share/man/$p"
done
echo "ok: packages installed; a campaign, its site and every man page from /usr alone"
purge
getent passwd lg >/dev/null && fail "purging left the lg user"
[ ! -e /etc/lg ] || fail "purging left an empty /etc/lg"
[ ! -e /usr/bin/lgctl ] || fail "purging left /usr/bin/lgctl"
echo "ok: purged: no lg user, no /etc/lg, no binaries"
echo "PASS"
