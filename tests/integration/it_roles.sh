#!/usr/bin/env bash
# it_roles: the database roles as a deployment uses them. The controller logs in as a member of
# lg_writer and stores a campaign; reports, comparisons, run exports and lg-export work as a
# member of lg_reader, who can read the views and nothing else, and write nothing.
. "$(dirname "$0")/lib.sh"
pg_start
lg_keys w1
"$LG_BIN/lgctl" db migrate >/dev/null
q "CREATE ROLE lgc LOGIN IN ROLE lg_writer; CREATE ROLE lgr LOGIN IN ROLE lg_reader" >/dev/null
WRITER="host=$PG_DIR port=5432 user=lgc dbname=lg"
READER="host=$PG_DIR port=5432 user=lgr dbname=lg"
start_controller --database "$WRITER"
start_agent w1
cat >"$T/spec.yaml" <<'SPEC'
name: it-roles
target: "null"
profiles: [{name: r, bs: 4k, pattern: random, read: 100, sweep: [1T1Q, 2T1Q]}]
runtime: 2s
precondition: none
SPEC
"$LG_BIN/lgctl" --controller "ipc://$T/ctl.sock" submit "$T/spec.yaml" >/dev/null ||
    fail "submit"
for _ in $(seq 1 300); do
    [ "$(q "SELECT state FROM lg.campaign WHERE name = 'it-roles'")" = done ] && break
    sleep 0.1
done
expect_eq "campaign stored by the lg_writer controller" \
    "$(q "SELECT state FROM lg.campaign WHERE name = 'it-roles'")" done
grep -q "permission denied" "$T/controller.log" && fail "the controller hit a permission error"

as_reader() { LG_DATABASE_URL="$READER" "$@"; }
as_reader "$LG_BIN/lgctl" report --campaign it-roles >"$T/report.txt" ||
    fail "lgctl report as lg_reader: $(cat "$T/report.txt")"
iops=$(q "SELECT to_char(iops, 'FM999,999,999,990.0') FROM lg.v_result WHERE campaign = 'it-roles'
    AND threads = 2")
grep -qE " 2T1Q .* $iops " "$T/report.txt" || { cat "$T/report.txt"; fail "report lacks IOPS $iops"; }
as_reader "$LG_BIN/lgctl" compare --by threads --campaign it-roles >"$T/compare.txt" 2>&1 ||
    { cat "$T/compare.txt"; fail "lgctl compare as lg_reader"; }
grep -q "r" "$T/compare.txt" || fail "empty comparison"
as_reader "$LG_BIN/lgctl" rank --metric iops --campaign it-roles >/dev/null 2>"$T/rank.err" ||
    fail "lgctl rank as lg_reader: $(cat "$T/rank.err")"
run=$(q "SELECT min(run_id) FROM lg.run")
as_reader "$LG_BIN/lgctl" export-run "$run" --format json >"$T/run.json" ||
    fail "lgctl export-run as lg_reader"
expect_eq "exported samples" "$(jq '.samples | length' "$T/run.json")" \
    "$(q "SELECT count(*) FROM lg.sample WHERE run_id = $run")"
# The campaign's own profile "r" is in none of the default charts (lg-export would exit 1 with
# nothing to chart): one query of its own, through the reader's views.
cat >"$T/r.sql" <<'SQL'
-- chart: bar
-- title: IOPS of profile r
-- x: load
-- y: iops
-- unit: IOPS
SELECT threads || 'T' || qd || 'Q' AS load, iops FROM lg.v_result
WHERE campaign = :campaign AND profile = 'r' ORDER BY threads;
SQL
as_reader "$LG_BIN/lg-export" --out "$T/site" --campaign it-roles "$T/r.sql" >/dev/null 2>"$T/export.log" ||
    { cat "$T/export.log"; fail "lg-export as lg_reader"; }
[ -s "$T/site/r.svg" ] || fail "lg-export as lg_reader wrote no chart"
[ -f "$T/site/index.html" ] || fail "lg-export wrote no index.html"
echo "ok: report, compare, rank, export-run and lg-export work as lg_reader"

denied() { # ROLE SQL
    if psql -qAt -U "$1" -d lg -c "$2" >"$T/denied.out" 2>&1; then
        fail "$1 may: $2"
    fi
    grep -q "permission denied\|must be owner" "$T/denied.out" || fail "$1: $2: $(cat "$T/denied.out")"
}
denied lgr "SELECT count(*) FROM lg.run"
denied lgr "SELECT count(*) FROM lg.sample"
denied lgr "INSERT INTO lg.sut_config (labels) VALUES ('[]')"
denied lgr "DELETE FROM lg.v_run"
denied lgr "SELECT lg.refresh_views()" # drops and recreates the views as their owner
expect_eq "lg_writer may rebuild the views" "$(psql -qAt -U lgc -d lg -c "SELECT lg.refresh_views()")" ""
denied lgc "DROP TABLE lg.sample"
denied lgc "CREATE TABLE lg.evil (x int)"
expect_eq "lg_reader reads the views" "$(psql -qAt -U lgr -d lg -c "SELECT count(*) FROM lg.v_run")" 2
echo "ok: lg_reader reads views only and writes nothing; lg_writer cannot change the schema"
