#!/usr/bin/env bash
# it_install: "cmake --install" gives everything a user runs, and the installed tree works on its
# own: the four binaries, the fio engines where lg-agent looks (BIN/../lib/lg/engines), the
# default chart queries where lg-export looks (BIN/../share/lg/queries), the example specs. A
# local-mode campaign and lg-export run from the installed paths only (PATH without the build
# folder), and lg-export has no source path compiled in.
. "$(dirname "$0")/lib.sh"
unset LG_DATABASE_URL LG_CONTROLLER LG_CONTROLLER_BIN LG_AGENT_BIN
build=$(cd "$LG_BIN/.." && pwd)
cmake --install "$build" --prefix "$T/inst" >"$T/install.log" 2>&1 || { cat "$T/install.log"; fail "cmake --install"; }
for f in bin/lgctl bin/lg-agent bin/lg-controller bin/lg-export share/lg/examples/quick.yaml; do
    [ -s "$T/inst/$f" ] || fail "cmake --install did not install $f"
done
for e in lgsmb lgiscsi; do
    [ -s "$build/lib/lg/engines/$e.so" ] || continue # built without the engines
    [ -s "$T/inst/lib/lg/engines/$e.so" ] || fail "cmake --install did not install the $e engine"
done
expect_eq "default queries installed" "$(ls "$T/inst/share/lg/queries"/*.sql | wc -l)" \
    "$(ls "$LG_SRC/web-export/queries"/*.sql | wc -l)"
if grep -qaF "$LG_SRC/web-export/queries" "$T/inst/bin/lg-export"; then
    fail "lg-export has the source tree's query folder compiled in"
fi

# From the installed paths only.
export PATH="$T/inst/bin:/usr/sbin:/usr/bin:/sbin:/bin"
[ "$(command -v lgctl)" = "$T/inst/bin/lgctl" ] || fail "PATH does not lead to the installed lgctl"
mkdir -p "$T/target"
cat >"$T/spec.yaml" <<SPEC
name: it-install
sut:
  labels: {build: installed, media: file}
target: $T/target/data.bin
size: 16M
profiles: [{name: 4k-rand, sweep: none}]
threads: 1
qd: 2
ramp: 0s
runtime: 1s
precondition: none
SPEC
LG_KEEP_RUN_DIR=1 lgctl run "$T/spec.yaml" --data-dir "$T/d" --quiet >"$T/report.txt" 2>"$T/run.err" ||
    { cat "$T/run.err"; fail "lgctl run from the installed tree"; }
grep -q '"it-install": done' "$T/report.txt" || { cat "$T/report.txt"; fail "no report"; }
if [ -s "$build/lib/lg/engines/lgsmb.so" ]; then # the agent found the installed engines
    grep -rqF "engines in $T/inst/bin/../lib/lg/engines: lgsmb yes, lgiscsi yes" "$T/d" ||
        { grep -rh "engines in" "$T/d" >&2; fail "the installed lg-agent did not find its engines"; }
fi
lg-export --data-dir "$T/d" --out "$T/site" --campaign it-install >"$T/export.txt" 2>"$T/export.err" ||
    { cat "$T/export.err"; fail "lg-export from the installed tree"; }
grep -q "01_4k_rand_iops.svg" "$T/export.txt" || fail "the installed lg-export did not find its queries"
echo "ok: installed tree: $(cd "$T/inst" && find . -type f | wc -l) files; a campaign and its site from it alone"
echo "PASS"
