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
for f in bin/lgctl bin/lg-agent bin/lg-controller bin/lg-export share/lg/examples/quick.yaml \
    share/bash-completion/completions/lg-agent share/bash-completion/completions/lg-controller \
    share/bash-completion/completions/lg-export; do
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
installed_campaign it-install
if [ -s "$build/lib/lg/engines/lgsmb.so" ]; then # the agent found the installed engines
    grep -rqF "engines in $T/inst/bin/../lib/lg/engines: lgsmb yes, lgiscsi yes" "$T/d" ||
        { grep -rh "engines in" "$T/d" >&2; fail "the installed lg-agent did not find its engines"; }
fi
# The man pages, rendered from the installed paths; each lists every option of its program's
# tables and lg-spec(5) every spec key, so that the pages cannot fall behind.
for p in man1/lgctl.1.gz man1/lg-export.1.gz man5/lg-spec.5.gz man8/lg-agent.8.gz man8/lg-controller.8.gz; do
    [ -s "$T/inst/share/man/$p" ] || fail "no installed man page $p"
    # --nh: no word of the page hyphenated at a line's end ("con- firm" is no key)
    MANWIDTH=200 man --nh -l "$T/inst/share/man/$p" 2>/dev/null | col -b >"$T/$(basename "$p" .gz).txt"
    [ -s "$T/$(basename "$p" .gz).txt" ] || fail "man -l $p renders nothing"
done
missing=()
for c in $(lgctl help | awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 "_" $2 }'); do
    cmd=${c%%_*} w2=${c#*_}
    case $cmd in db | import) words="$cmd $w2" ;; *) words=$cmd ;; esac
    # shellcheck disable=SC2086
    for o in $(lgctl help $words | awk '/^options:/ { on = 1; next } on && /^  --/ { print $1 }'); do
        grep -qe "$o" "$T/lgctl.1.txt" || missing+=("lgctl.1: $o ($words)")
    done
    grep -q "^       $words" "$T/lgctl.1.txt" || missing+=("lgctl.1: the command $words")
done
for b in lg-agent:8 lg-controller:8 lg-export:1; do
    for o in $("$b" --help 2>&1 | grep -oE '^  --[a-z-]+' | sort -u); do
        grep -qe "$o" "$T/${b%%:*}.${b#*:}.txt" || missing+=("${b%%:*}.${b#*:}: $o")
    done
done
# Spec keys, from the parser's own tables and its "allowed in ..." lists.
keys=$( { grep -oE '\{"[a-z_]+", (true|false), s_get' "$LG_SRC/core/lg_spec_keys.c" | cut -d'"' -f2
          # the nested keys' lists (profiles, configs and targets, agents), adjacent string
          # literals joined, as the compiler joins them
          cat "$LG_SRC/core/lg_spec_keys.c" "$LG_SRC/core/lg_spec_profiles.c" \
              "$LG_SRC/core/lg_spec_configs.c" "$LG_SRC/core/lg_spec_agents.c" |
              sed -E ':a;N;$!ba;s/"\n[[:space:]]*"//g' |
              grep -hoE 'allowed (in|under) [^:]+: [a-z_, ()]+' |
              sed -E 's/.*: //; s/\(or|and|\)//g' | tr ', ' '\n\n'
        } | grep -E '^[a-z_]+$' | grep -vxE 'or|and' | sort -u)
[ "$(wc -w <<<"$keys")" -ge 35 ] || fail "found only $(wc -w <<<"$keys") spec keys in the parser's source: $keys"
for k in $keys; do
    grep -qw -e "$k" "$T/lg-spec.5.txt" || missing+=("lg-spec.5: key $k")
done
[ ${#missing[@]} -eq 0 ] || { printf '%s\n' "${missing[@]}" >&2; fail "man pages lack ${#missing[@]} options or keys"; }
echo "ok: 5 man pages render from the installed tree; every option and spec key is in its page ($(wc -w <<<"$keys") spec keys)"
echo "ok: installed tree: $(cd "$T/inst" && find . -type f | wc -l) files; a campaign and its site from it alone"
echo "PASS"
