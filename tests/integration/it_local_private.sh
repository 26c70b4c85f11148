#!/usr/bin/env bash
# it_local_private: local mode with nothing configured: lgctl creates its own PostgreSQL cluster
# in the data folder, runs the campaign with a controller and an agent on loopback, prints the
# report from the database, and stops everything it started.
. "$(dirname "$0")/lib.sh"
unset LG_DATABASE_URL LG_CONTROLLER
D="$T/lgdata"
mkdir -p "$T/target" # the target's folder: lgctl never makes it
cat >"$T/spec.yaml" <<SPEC
name: it-private
sut:
  labels: {build: it, media: file}
target: $T/target/data.bin
size: 32M
profiles: [128k-seq]
threads: 2
qd: 2
runtime: 2s
precondition: none
SPEC
"$LG_BIN/lgctl" --data-dir "$D" run "$T/spec.yaml" >"$T/report.txt" 2>"$T/lgctl.log" ||
    { cat "$T/lgctl.log" >&2; fail "lgctl run failed"; }
cat "$T/report.txt"
grep -q '^campaign 1 "it-private": done, created' "$T/report.txt" || fail "no campaign header"
[ "$(grep -cE '^[0-9]+ +it file +local +measure +128k-seq +(read|write) +2T2Q +[0-9.]+ +done +[0-9,]+\.[0-9]' "$T/report.txt")" = 2 ] ||
    fail "the report lacks the two 128k-seq rows"
echo "ok: report with two runs"
PGD="$D/pg/data"
[ -f "$PGD/PG_VERSION" ] || fail "no cluster in $D/pg"
[ ! -f "$PGD/postmaster.pid" ] || fail "lgctl left PostgreSQL running"
echo "ok: cluster created and stopped again"
# The report comes from the database: a second lgctl reads the same rows back.
"$LG_BIN/lgctl" --data-dir "$D" report --campaign it-private >"$T/report2.txt" 2>"$T/lgctl2.log" ||
    { cat "$T/lgctl2.log" >&2; fail "lgctl report failed"; }
diff <(tail -n +4 "$T/report.txt") <(tail -n +4 "$T/report2.txt") || fail "reports differ"
echo "ok: lgctl report reads the same rows"
# Migrations are idempotent.
"$LG_BIN/lgctl" --data-dir "$D" db migrate >"$T/m.txt" 2>&1 || { cat "$T/m.txt"; fail "migrate"; }
expect_eq "second migrate" "$(cat "$T/m.txt")" "0 migrations applied"
[ ! -f "$PGD/postmaster.pid" ] || fail "lgctl report/migrate left PostgreSQL running"
# No child of ours survives: the controller and agent were stopped by PID.
leftover=$(pgrep -f -- "--data-dir $D" || true)
[ -z "$leftover" ] || fail "processes left behind: $leftover"
echo "PASS"
