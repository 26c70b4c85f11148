#!/usr/bin/env bash
# it_cli: what a new user types first. Every binary answers --version with its name and lg's
# version (the project's, from CMakeLists.txt) and exit 0; lgctl keygen --dir makes a missing
# key folder (and its parents) private, mode 0700, and never overwrites a key. lgctl's commands
# each take their own options: help for one (lgctl help CMD, lgctl CMD --help) lists exactly its
# options; an option a command does not take, a missing spec file, an unknown command or option
# exits 2 naming it.
. "$(dirname "$0")/lib.sh"
version=$(sed -nE 's/^project\(lg VERSION ([0-9.]+).*/\1/p' "$LG_SRC/CMakeLists.txt")
[ -n "$version" ] || fail "no project version in CMakeLists.txt"
for b in lgctl lg-agent lg-controller lg-export; do
    expect_eq "$b --version" "$("$LG_BIN/$b" --version)" "$b $version"
done
expect_eq "lgctl version" "$("$LG_BIN/lgctl" version)" "lgctl $version"

"$LG_BIN/lgctl" keygen host-a --dir "$T/keys/new/deeper" >/dev/null
expect_eq "new key folder mode" "$(stat -c %a "$T/keys/new/deeper")" 700
expect_eq "its parent's mode" "$(stat -c %a "$T/keys/new")" 700
expect_eq "secret key mode" "$(stat -c %a "$T/keys/new/deeper/host-a.key")" 600
[ -s "$T/keys/new/deeper/host-a.pub" ] || fail "no public key written"
before=$(sha256sum <"$T/keys/new/deeper/host-a.key")
rc=0
"$LG_BIN/lgctl" keygen host-a --dir "$T/keys/new/deeper" >/dev/null 2>"$T/again.err" || rc=$?
[ "$rc" -ne 0 ] || fail "keygen overwrote an existing key"
expect_eq "the existing key is untouched (sha256)" "$(sha256sum <"$T/keys/new/deeper/host-a.key")" "$before"
grep -q "host-a.key" "$T/again.err" || { cat "$T/again.err" >&2; fail "the refusal does not name the key"; }

# run_rc EXPECTED NAME ARGS...: lgctl ARGS exits EXPECTED; its stderr in $T/err
run_rc() {
    local want=$1 what=$2 rc=0
    shift 2
    "$LG_BIN/lgctl" "$@" >"$T/out" 2>"$T/err" || rc=$?
    [ "$rc" = "$want" ] || { cat "$T/out" "$T/err" >&2; fail "$what: exit $rc, expected $want"; }
}
run_rc 0 "lgctl run --help" run --help
grep -q "^usage: lgctl run SPEC.yaml" "$T/out" || fail "lgctl run --help: no usage line"
for opt in --quiet --allow-destructive --smb-credentials --iscsi-chap --data-dir --controller; do
    grep -q -- "^  $opt" "$T/out" || fail "lgctl run --help does not list $opt"
done
for opt in --baseline --campaign --where --dir; do
    if grep -q -- "^  $opt" "$T/out"; then fail "lgctl run --help lists $opt, which run does not take"; fi
done
cp "$T/out" "$T/run-help"
run_rc 0 "lgctl help run" help run
cmp -s "$T/out" "$T/run-help" || fail "lgctl help run and lgctl run --help differ"
run_rc 0 "lgctl help import fio-json" help import fio-json
grep -q -- "--labels" "$T/out" || fail "lgctl help import fio-json does not list --labels"

run_rc 2 "lgctl report --baseline x" report --baseline x
grep -q "option --baseline does not apply to report" "$T/err" || { cat "$T/err" >&2; fail "no reason given"; }
grep -q "^usage: lgctl report" "$T/err" || fail "report's usage does not follow the refusal"
run_rc 2 "lgctl keygen with --format" keygen k --format csv --dir "$T/k2"
[ ! -e "$T/k2" ] || fail "keygen acted on a refused command line"
run_rc 2 "a missing spec file" run "$T/no-such-spec.yaml"
grep -q "no-such-spec.yaml" "$T/err" || fail "the missing spec is not named"
run_rc 2 "plan of a missing spec file" plan "$T/no-such-spec.yaml"
run_rc 2 "an unknown command" frobnicate
grep -q 'unknown command "frobnicate"' "$T/err" || fail "the unknown command is not named"
run_rc 2 "an unknown option" report --frob
grep -q -- '--frob' "$T/err" || fail "the unknown option is not named"
run_rc 2 "an option without its value" report --campaign
run_rc 2 "run without a spec" run
grep -q "needs SPEC.yaml" "$T/err" || fail "run without a spec does not say what it needs"
# --opt=value is the same as --opt value
run_rc 0 "keygen --dir=DIR" keygen eq --dir="$T/keys/eq"
[ -s "$T/keys/eq/eq.pub" ] || fail "keygen --dir=DIR wrote no key there"

# bash completion (deploy/completion/lgctl): commands, a command's own options (from lgctl's
# tables), the second word of db and import, spec files.
comp() { # WORDS...: the completions of the last word
    PATH="$LG_BIN:$PATH" bash -c '. "$0"; COMP_WORDS=("${@}"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1));
        _lgctl; printf "%s\n" "${COMPREPLY[@]}"' "$LG_SRC/deploy/completion/lgctl" "$@" | sort | tr '\n' ' '
}
expect_eq "completion: lgctl re" "$(comp lgctl re)" "report rerun resume "
expect_eq "completion: lgctl db s" "$(comp lgctl db s)" "shell start stop "
expect_eq "completion: lgctl report --f" "$(comp lgctl report --f)" "--format "
expect_eq "completion: lgctl compare --i" "$(comp lgctl compare --i)" "--ignore "
expect_eq "completion: lgctl run --form" "$(comp lgctl run --form)" "--format "
expect_eq "completion: lgctl report --format m" "$(comp lgctl report --format m)" "markdown "
touch "$T/c-spec.yaml" "$T/c-other.txt"
expect_eq "completion: lgctl run SPEC" "$(comp lgctl run "$T/c-")" "$T/c-spec.yaml "
echo "PASS"
