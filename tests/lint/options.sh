#!/usr/bin/env bash
# options.sh BUILD SRC: lg-agent's, lg-controller's and lg-export's options are one table each
# (core/lg_opt.h), so --help, the parser, the built man page's OPTIONS, the bash completion
# (deploy/completion/lg-options) and the --config file's keys list the same options, each with or
# without a value alike; lgctl's commands and options are one table each too (lgctl/lgctl.c, the
# command level of lg_opt.h), so lgctl help COMMAND, lgctl.1, its completion and its parser agree
# command by command. Checked from the outside, as a user meets them: an option added to one and
# not the others, or a page whose OPTIONS were written by hand again, fails here.
set -euo pipefail
build=${1:?usage: options.sh BUILD SRC}
src=${2:?usage: options.sh BUILD SRC}
build=$(cd "$build" && pwd)
bin=$build/bin
T=$(mktemp -d)
mkdir "$T/folder"
trap 'rm -rf "$T"' EXIT
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0}
unset LG_DATABASE_URL LG_HOOK_TIMEOUT
fails=0
fail() {
    echo "FAIL: $*" >&2
    fails=$((fails + 1))
}

# completion WORDS...: what deploy/completion/lg-options offers for the last word
completion() {
    PATH="$bin:$PATH" bash -c '. "$0"; COMP_WORDS=("${@}"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1));
        _lg_program; printf "%s\n" "${COMPREPLY[@]}"' "$src/deploy/completion/lg-options" "$@"
}

for page in lg-agent:8 lg-controller:8 lg-export:1; do
    p=${page%%:*} sec=${page#*:}
    # "--name ARG" (ARG "-" for a flag) from each source, sorted
    "$bin/$p" --help | awk '/^  --[a-z]/ { print $1, ($2 ~ /^[A-Z][A-Z0-9_=.]*$/ ? $2 : "-") }' |
        sort >"$T/$p.help"
    [ "$(wc -l <"$T/$p.help")" -ge 5 ] || fail "$p --help lists only $(wc -l <"$T/$p.help") options"
    "$bin/$p" --man-options | sed -nE 's/^\*(--[a-z-]+)\*( _([^_]+)_)?$/\1 \3/p' |
        awk '{ print $1, ($2 == "" ? "-" : $2) }' | sort >"$T/$p.man-options"
    diff -u "$T/$p.help" "$T/$p.man-options" >&2 || fail "$p: --help and --man-options differ"

    # the built page: its OPTIONS section is the table's, options and values alike
    gz=$build/share/man/man$sec/$p.$sec.gz
    [ -s "$gz" ] || { fail "no built man page $gz"; continue; }
    MANWIDTH=200 man -l "$gz" 2>/dev/null | col -b |
        awk '/^[A-Z]/ { on = ($0 == "OPTIONS"); next } on && /^ {7}--[a-z]/ { print $1, ($2 == "" ? "-" : $2) }' |
        sort >"$T/$p.page"
    diff -u "$T/$p.help" "$T/$p.page" >&2 || fail "$p.$sec's OPTIONS differ from $p --help"
    grep -qx '@OPTIONS@' "$src/doc/$p.$sec.scd" || fail "doc/$p.$sec.scd: no @OPTIONS@ line"
    if awk '/^# OPTIONS/ { on = 1; next } /^# / { on = 0 } on && /^\*--/' "$src/doc/$p.$sec.scd" | grep -q .; then
        fail "doc/$p.$sec.scd writes options by hand: they come from $p --man-options"
    fi

    # the completion: every option (and --help), and a value of the right kind after each
    completion "$p" -- | grep -vx -- --help | sort >"$T/$p.comp"
    diff -u <(cut -d' ' -f1 "$T/$p.help") "$T/$p.comp" >&2 || fail "$p: the completion's options differ from --help"
    # the first word offered after each option with a value in a folder of files (one bash)
    PATH="$bin:$PATH" bash -c '. "$0"; while read -r o arg; do
            COMP_WORDS=("$1" "$o" "$2/"); COMP_CWORD=2; COMPREPLY=(); _lg_program
            printf "%s %s %s\n" "$o" "$arg" "${COMPREPLY[0]:-}"
        done' "$src/deploy/completion/lg-options" "$p" "$T" <"$T/$p.help" >"$T/$p.values"
    while read -r o arg got; do
        case $arg in
        FILE | PATH | KEY) [ -e "$got" ] || fail "$p $o $arg: the completion offers \"$got\", no file" ;;
        DIR) [ -d "$got" ] || fail "$p $o $arg: the completion offers \"$got\", no folder" ;;
        - | CMD) ;; # CMD: commands, a folder's included
        *) [ -z "$got" ] || fail "$p $o $arg: the completion offers \"$got\"" ;;
        esac
    done <"$T/$p.values"

    # the parser takes what --help lists: a value is wanted where --help names one, and a word
    # that is no option is refused as such
    while read -r o arg; do
        [ "$arg" != - ] || continue
        rc=0
        "$bin/$p" "$o" >"$T/out" 2>&1 || rc=$?
        [ "$rc" = 2 ] && grep -qF "option \"$o\" needs a value" "$T/out" ||
            fail "$p $o (no value): exit $rc, $(head -c 300 "$T/out")"
    done <"$T/$p.help"
    rc=0
    "$bin/$p" --no-such-option x >"$T/out" 2>&1 || rc=$?
    [ "$rc" = 2 ] && grep -qF 'unknown option "--no-such-option"' "$T/out" ||
        fail "$p --no-such-option: exit $rc, $(head -c 300 "$T/out")"

    # the --config file (lg-agent, lg-controller): every option but --config and --version is a
    # key, valued or true/false as on the command line
    what="--help, $p.$sec, the parser, the completion"
    [ "$p" != lg-export ] || { echo "ok: $p: $(wc -l <"$T/$p.help") options alike in $what"; continue; }
    while read -r o arg; do
        k=${o#--}
        case $k in
        config | version) want="unknown option \"$k\"" line="$k: true" ;;
        *) if [ "$arg" = - ]; then want="\"$k\" is true or false" line="$k: maybe"
           else want="\"$k\" needs a value" line="$k: 'x"; fi ;; # an unterminated quote
        esac
        printf '%s\n' "$line" >"$T/c.yaml"
        rc=0
        "$bin/$p" --config "$T/c.yaml" >"$T/out" 2>&1 || rc=$?
        [ "$rc" = 2 ] && grep -qF "c.yaml:1: $want" "$T/out" ||
            fail "$p --config with \"$line\": exit $rc, want '$want': $(head -c 300 "$T/out")"
    done <"$T/$p.help"
    echo "ok: $p: $(wc -l <"$T/$p.help") options alike in $what and --config"
done
# ---- lgctl: one table of commands and one of options (lgctl/lgctl.c, lg_opt.h), whose help, the built
# page's COMMANDS (each command's "Options:" line) and OPTIONS, the completion
# (deploy/completion/lgctl) and the parser agree, command by command ----
# opt_arg: "--name ARG" (ARG "-" for a flag) from lines "  --name [ARG]   text" (two spaces end it)
opt_arg() { sed -nE 's/^[ \t]*(--[a-z][a-z-]*)( [^ ]+)?(  .*)?$/\1\2/p' | awk '{ print $1, ($2 == "" ? "-" : $2) }'; }
MANWIDTH=2000 man -l "$build/share/man/man1/lgctl.1.gz" 2>/dev/null | col -b >"$T/lgctl.page" ||
    fail "lgctl.1 does not render"
grep -qx '@OPTIONS@' "$src/doc/lgctl.1.scd" || fail "doc/lgctl.1.scd: no @OPTIONS@ line"
if grep -qE '^# (COMMANDS|OPTIONS)' "$src/doc/lgctl.1.scd"; then
    fail "doc/lgctl.1.scd writes COMMANDS or OPTIONS by hand: they come from lgctl --man-options"
fi
awk '/^[A-Z]/ { s = $0; next } s == "OPTIONS" && /^ {7}--[a-z]/' "$T/lgctl.page" | opt_arg |
    sort >"$T/lgctl.options"
# the commands: the leading lower-case words of each line under "commands:" (db url, import
# fio-json, ...)
"$bin/lgctl" help | awk '/^commands:/ { on = 1; next } on && !/^  / { on = 0 } on {
    sub(/^  /, ""); sub(/  .*/, ""); n = split($0, w, " "); c = ""
    for (i = 1; i <= n && w[i] ~ /^[a-z][a-z-]*$/; i++) c = c (c == "" ? "" : " ") w[i]; print c }' \
    >"$T/lgctl.commands"
[ "$(wc -l <"$T/lgctl.commands")" -ge 20 ] || fail "lgctl help lists $(wc -l <"$T/lgctl.commands") commands"
: >"$T/lgctl.all"
ncmd=0 nopt=0
while read -r -a cmd; do
    c="${cmd[*]}"
    [ "$c" != help ] && [ "$c" != version ] || continue
    "$bin/lgctl" help "${cmd[@]}" | awk '/^options:/ { on = 1; next } on' | opt_arg |
        grep -v '^--help -$' | sort >"$T/c.help" || true
    cat "$T/c.help" >>"$T/lgctl.all"
    # its "Options: --a X, --b." line in the page's COMMANDS
    awk -v want="$c" '/^[A-Z]/ { s = $0; next } s == "COMMANDS" && /^ {7}[a-z]/ { n = ""
            for (i = 1; i <= NF && $i ~ /^[a-z][a-z-]*$/; i++) n = n (n == "" ? "" : " ") $i; cur = n }
        s == "COMMANDS" && cur == want && /^[ \t]+Options: / { sub(/^[ \t]+Options: /, ""); sub(/\.$/, "")
            n = split($0, o, /, /); for (i = 1; i <= n; i++) print o[i] }' "$T/lgctl.page" |
        opt_arg | sort >"$T/c.page"
    diff -u "$T/c.help" "$T/c.page" >&2 || fail "lgctl $c: lgctl.1's Options differ from lgctl help $c"
    completion_lgctl() {
        PATH="$bin:$PATH" bash -c '. "$0"; COMP_WORDS=("${@}"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1));
            _lgctl; printf "%s\n" "${COMPREPLY[@]}"' "$src/deploy/completion/lgctl" "$@"
    }
    completion_lgctl lgctl "${cmd[@]}" -- | grep -vx -- --help | sort >"$T/c.comp"
    diff -u <(cut -d' ' -f1 "$T/c.help") "$T/c.comp" >&2 ||
        fail "lgctl $c: the completion's options differ from lgctl help $c"
    # the parser: a value wanted where help names one (nothing runs: the words are refused
    # first); an option of no command refused as such
    while read -r o arg; do
        [ "$arg" != - ] || continue
        rc=0
        "$bin/lgctl" "${cmd[@]}" "$o" >"$T/out" 2>&1 || rc=$?
        [ "$rc" = 2 ] && grep -qF "option $o needs a value" "$T/out" ||
            fail "lgctl $c $o (no value): exit $rc, $(head -c 300 "$T/out")"
    done <"$T/c.help"
    rc=0
    "$bin/lgctl" "${cmd[@]}" --no-such-option >"$T/out" 2>&1 || rc=$?
    [ "$rc" = 2 ] && grep -qF 'unknown option "--no-such-option"' "$T/out" ||
        fail "lgctl $c --no-such-option: exit $rc, $(head -c 300 "$T/out")"
    ncmd=$((ncmd + 1)) nopt=$((nopt + $(wc -l <"$T/c.help")))
done <"$T/lgctl.commands"
# OPTIONS: every option of a command once, with the same value, and --help and --version
{ sort -u "$T/lgctl.all"; printf '%s\n' '--help -' '--version -'; } | sort >"$T/lgctl.union"
diff -u "$T/lgctl.union" "$T/lgctl.options" >&2 || fail "lgctl.1's OPTIONS differ from the commands' options"
if [ "$(cut -d' ' -f1 "$T/lgctl.union" | sort | uniq -d)" != "" ]; then
    fail "lgctl: an option takes a value in one command and none in another: $(cut -d' ' -f1 "$T/lgctl.union" | sort | uniq -d)"
fi
echo "ok: lgctl: $ncmd commands, $nopt command options alike in lgctl help, lgctl.1, the parser, the completion"
[ "$fails" = 0 ] || { echo "$fails failures" >&2; exit 1; }
echo "PASS"
