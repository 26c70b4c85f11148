#!/usr/bin/env bash
# it_secrets: no secret of lg's on a command line, which every user of the host reads in ps
# (/proc/PID/cmdline), nor in what its controller runs. The database is reached as a role that
# must give its password, in LG_DATABASE_URL:
#   1. local mode ("lgctl run" with no controller): no process's command line holds the password
#      while the campaign runs (before: lg-controller's --database), and the local agent's
#      environment does not hold it either;
#   2. its between-configs hook and a config's reduction probe get no LG_DATABASE_URL, PGPASSWORD
#      or other LG_* / PG* variable of the controller's, but LG_CAMPAIGN, LG_CONFIG, LG_LABELS and
#      LG_LABEL_* of the config (before: the controller's whole environment);
#   3. "lgctl db shell": psql connects with the password, which is not on its command line
#      (before: the URL was its first argument), with a URL and with a key=value string;
#   4. bash completion's campaign names, read through psql: the same (before: psql "$URL").
. "$(dirname "$0")/lib.sh"
pg_start

# The role, its password (with a ':' and a '\' that a password file escapes) and a line of
# pg_hba.conf that asks it for the password. PWID, in the password, is what no command line may
# hold; grep reads it from a file, so that grep's own command line does not.
PWID="pw-$$-$RANDOM$RANDOM"
PW="$PWID:a\\b"
echo "$PWID" >"$T/secret.pat"
printf "CREATE ROLE lgsecret LOGIN SUPERUSER PASSWORD '%s'" "$PW" | psql -qAt -d postgres >/dev/null
HBA="$PG_DIR/data/pg_hba.conf"
{ echo "local all lgsecret scram-sha-256"; cat "$HBA"; } >"$T/hba.new"
cat "$T/hba.new" >"$HBA"
psql -qAt -d postgres -c "SELECT pg_reload_conf()" >/dev/null
if env -u PGPASSWORD psql -w "host=$PG_DIR port=5432 user=lgsecret dbname=lg" -c "SELECT 1" \
    >"$T/nopw.out" 2>&1; then
    fail "the role connects without its password"
fi
grep -q "password" "$T/nopw.out" || fail "no password asked for: $(cat "$T/nopw.out")"
PW_ENC=$(sed -e 's/%/%25/g' -e 's/:/%3A/g' -e 's/\\/%5C/g' <<<"$PW")
SECRET_URL="postgresql://lgsecret:$PW_ENC@/lg?host=$PG_DIR&port=5432"
echo "ok: role lgsecret must give its password"

# Every process whose command line holds the password, appended to $1 as "PID: command line".
seen_secret() {
    local f
    while read -r f; do
        echo "${f//[!0-9]/}: $(tr '\0' ' ' <"$f" 2>/dev/null)" >>"$1"
    done < <(grep -lsF -f "$T/secret.pat" /proc/[0-9]*/cmdline)
    return 0
}
# The watch must see a secret when one is there: a process with it in its arguments.
sh -c 'sleep 5' "leak-$PWID" &
leak=$!
CLEANUP_PIDS+=("$leak")
sleep 0.2
seen_secret "$T/selftest.seen"
kill "$leak"
grep -q "^$leak: " "$T/selftest.seen" || fail "the watch does not see a command line's secret"
echo "ok: the watch sees a secret on a command line"

# 1 and 2: a campaign in local mode, two configs, a hook and a probe that keep their environment.
mkdir -p "$T/target"
cat >"$T/operator.yaml" <<OP
probes:
  - name: envdump
    argv: [/bin/sh, -c, "env >$T/probe.env; echo logical_bytes=2 physical_bytes=1"]
OP
chmod 600 "$T/operator.yaml"
cat >"$T/spec.yaml" <<SPEC
name: it-secrets
configs:
  - labels: {build: it, compression: lz4}
    target: $T/target/a.bin
    reduction: {probe: envdump}
  - labels: {build: it, compression: zstd}
    target: $T/target/b.bin
size: 16M
profiles: [{name: 4k-rand, sweep: none}]
threads: 1
qd: 1
runtime: 1s
precondition: none
between_configs: hook
SPEC
LG_DATABASE_URL="$SECRET_URL" PGPASSWORD="$PWID-pgpassword" LG_LABEL_STALE=old \
    LG_SOMETHING=x IT_SECRETS_KEEP=yes LG_HOOK="env >$T/hook.env" \
    "$LG_BIN/lgctl" --data-dir "$T/d" --operator "$T/operator.yaml" run "$T/spec.yaml" >"$T/run.txt" 2>"$T/run.log" &
run=$!
CLEANUP_PIDS+=("$run")
polls=0 agents=0
while kill -0 "$run" 2>/dev/null; do
    seen_secret "$T/run.seen"
    for p in $(pgrep -x lg-agent || true); do # ours: the one whose work folder is in $T/d
        tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null | grep -qF -- "$T/d/" || continue
        agents=$((agents + 1))
        if grep -qsF -f "$T/secret.pat" "/proc/$p/environ"; then
            echo "$p: lg-agent's environment" >>"$T/run.seen"
        fi
    done
    polls=$((polls + 1))
    sleep 0.05
done
wait "$run" || { cat "$T/run.log" >&2; fail "lgctl run failed"; }
[ ! -s "$T/run.seen" ] || fail "the password was seen: $(cat "$T/run.seen")"
[ "$agents" -gt 0 ] || fail "the watch never saw the local agent ($polls polls)"
grep -q "^campaign 1 \"it-secrets\": done" "$T/run.txt" || fail "no report: $(cat "$T/run.txt")"
expect_eq "runs done" "$(q "SELECT count(*) FILTER (WHERE state = 'done') || '/' ||
    count(*) FROM lg.run")" "4/4"
expect_eq "lg's tables made by" "$(q "SELECT tableowner FROM pg_tables
    WHERE schemaname = 'lg' AND tablename = 'run'")" lgsecret
echo "ok: local mode ran as lgsecret; $polls looks at every command line, no password on any"

# What the hook and the probe got.
env_check() { # NAME FILE CONFIG COMPRESSION
    [ -s "$2" ] || fail "$1: it did not run (no $2)"
    ! grep -qF -f "$T/secret.pat" "$2" || fail "$1: its environment holds the password"
    local lgpg
    lgpg=$(grep -E '^(LG|PG)[A-Za-z0-9_]*=' "$2" | cut -d= -f1 | sort | tr '\n' ' ')
    expect_eq "$1: its LG_* and PG* variables" "$lgpg" \
        "LG_CAMPAIGN LG_CONFIG LG_LABELS LG_LABEL_BUILD LG_LABEL_COMPRESSION LG_PHASE "
    grep -qx "LG_CONFIG=$3" "$2" || fail "$1: not LG_CONFIG=$3"
    grep -qx "LG_LABEL_COMPRESSION=$4" "$2" || fail "$1: not LG_LABEL_COMPRESSION=$4"
    grep -qx "LG_CAMPAIGN=it-secrets" "$2" || fail "$1: no LG_CAMPAIGN"
    grep -qx "IT_SECRETS_KEEP=yes" "$2" || fail "$1: the controller's other variables are missing"
}
env_check hook "$T/hook.env" 2 zstd
env_check probe "$T/probe.env" 1 lz4
echo "ok: the hook and the probe got lg's variables and none of the controller's LG_* and PG*"

# 3. db shell: psql says who it is and where its command line is; a PGPASSWORD in lgctl's
# environment does not win over the URL's password.
cat >"$T/shell.sql" <<SQL
\\! tr '\\0' ' ' </proc/\$PPID/cmdline >$T/psql.cmdline
SELECT current_user;
SQL
shell() { # CONNINFO NAME
    rm -f "$T/psql.cmdline"
    LG_DATABASE_URL="$1" PGPASSWORD=wrong "$LG_BIN/lgctl" --data-dir "$T/d" db shell -- \
        -At -f "$T/shell.sql" >"$T/shell-$2.out" 2>&1 || fail "db shell ($2): $(cat "$T/shell-$2.out")"
    expect_eq "db shell ($2): psql's user" "$(cat "$T/shell-$2.out")" lgsecret
    grep -q psql "$T/psql.cmdline" || fail "db shell ($2): psql's command line not read"
    echo "psql's command line: $(cat "$T/psql.cmdline")"
    ! grep -qF -f "$T/secret.pat" "$T/psql.cmdline" || fail "db shell ($2): the password is in argv"
}
shell "$SECRET_URL" url
PW_KV=${PW//\\/\\\\}
shell "host=$PG_DIR port=5432 user=lgsecret dbname=lg password='$PW_KV'" keywords
echo "ok: db shell connects with the password, not on psql's command line"

# 4. The bash completion of campaign names (deploy/completion/lgctl) asks the database through
# psql; a psql first in PATH writes down its arguments.
mkdir -p "$T/shim"
cat >"$T/shim/psql" <<SHIM
#!/bin/sh
printf '%s\n' "\$*" >>"$T/shim.argv"
PATH="\${PATH#$T/shim:}" exec psql "\$@"
SHIM
chmod +x "$T/shim/psql"
comp() { # WORDS...: the completions of the last word
    LG_DATABASE_URL="$SECRET_URL" PATH="$T/shim:$LG_BIN:$PATH" bash -c '. "$0"
        COMP_WORDS=("${@}"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
        _lgctl; printf "%s\n" "${COMPREPLY[@]}"' "$LG_SRC/deploy/completion/lgctl" "$@" | tr '\n' ' '
}
expect_eq "completion: lgctl report --campaign it-" "$(comp lgctl report --campaign it-)" \
    "it-secrets "
grep -q "SELECT DISTINCT name" "$T/shim.argv" || fail "the completion did not run psql"
! grep -qF -f "$T/secret.pat" "$T/shim.argv" || fail "the completion gave psql the password"
echo "ok: the completion of campaign names keeps the password off psql's command line"
echo "PASS"
