#!/usr/bin/env bash
# it_sql_definer: a database login cannot borrow the rights of the functions that run as their
# owner (SECURITY DEFINER). A reader plants a domain float8/text in pg_temp whose CHECK makes it
# superuser and calls the comparison functions; a writer hides pg_roles behind a temporary table,
# or plants the same domain, and rebuilds the views. The database is one that migrations up to
# 023 made and a campaign filled, migrated forward by lgctl db migrate (issue 30); the controller
# refuses it until then (issue 45).
. "$(dirname "$0")/lib.sh"
pg_start
lg_keys w1

# The database as it stood before 024: the older migrations, recorded as lgctl records them; 025
# to 026, and 028_claims with lg.run_seal_text and what follows (they do not touch 024's
# functions), not 027 (the move to schema/views). Filled below by a campaign.
q "CREATE TABLE public.lg_migration (name text PRIMARY KEY,
   applied_at timestamptz NOT NULL DEFAULT now())" >/dev/null
for f in "$LG_SRC"/schema/[0-9][0-9][0-9]_*.sql; do
    m=$(basename "$f" .sql)
    ((10#${m%%_*} < 24 || 10#${m%%_*} == 25 || 10#${m%%_*} == 26 || 10#${m%%_*} >= 28)) || continue
    psql -X -q -v ON_ERROR_STOP=1 -1 -f "$f" >"$T/migrate.out" 2>&1 ||
        fail "migration $m: $(cat "$T/migrate.out")"
    q "INSERT INTO public.lg_migration (name) VALUES ('$m')" >/dev/null
done
psql -X -q -v ON_ERROR_STOP=1 -1 -f "$LG_SRC/schema/views/run_seal_text.sql" >"$T/migrate.out" 2>&1 ||
    fail "run_seal_text: $(cat "$T/migrate.out")"
q "CREATE ROLE lgc LOGIN IN ROLE lg_writer; CREATE ROLE lgr LOGIN IN ROLE lg_reader" >/dev/null
WRITER="host=$PG_DIR port=5432 user=lgc dbname=lg"

# The controller refuses a schema older than its own, naming the first migration lgctl must
# apply: it has no fallback for a missing table, column or function.
"$LG_BIN/lg-controller" "${CTRL_SEC[@]}" --database "$WRITER" --agents "ipc://$T/agents.sock" \
    --control "ipc://$T/ctl.sock" >"$T/refused.log" 2>&1 &&
    fail "the controller started on a schema without 024_definer_search_path"
grep -q "the database's schema is older than this lg-controller: migration \"024_definer_search_path\" is not applied" \
    "$T/refused.log" || { cat "$T/refused.log" >&2; fail "the refusal does not name 024"; }
grep -q "lgctl db migrate" "$T/refused.log" || { cat "$T/refused.log" >&2; fail "the refusal does not say what to run"; }
echo "ok: the controller refuses the schema before 024: $(grep -o 'migration "[^"]*" is not applied' "$T/refused.log")"

# The campaign that fills it runs in a scratch database of today's schema (the controller takes
# no other) and is copied over, as it_views does (not lg.metric, which the migrations fill).
q "CREATE DATABASE scratch" >/dev/null
S="host=$PG_DIR port=5432 user=postgres dbname=scratch"
LG_DATABASE_URL=$S "$LG_BIN/lgctl" db migrate >/dev/null
start_controller --database "$S"
start_agent w1
cat >"$T/it-definer.yaml" <<'SPEC'
name: it-definer
target: "null"
profiles: [{name: r, bs: 4k, pattern: random, read: 100, sweep: [1T1Q, 2T1Q]}]
runtime: 2s
precondition: none
SPEC
submit_file it-definer
PGDATABASE=scratch wait_campaign it-definer
kill -TERM "$CTL"
wait_gone 30 "$CTL" || fail "the scratch database's controller did not stop"
pg_dump -d scratch --data-only --schema=lg --exclude-table-data=lg.metric --disable-triggers \
    --load-via-partition-root |
    sed -E 's/^(ALTER TABLE lg\.)sample_(runs_[0-9]+|default) /\1sample /' >"$T/data.sql"
psql -X -q -v ON_ERROR_STOP=1 -f "$T/data.sql" >"$T/load.out" 2>&1 ||
    fail "loading the campaign into the old schema: $(cat "$T/load.out")"
q "SELECT lg.refresh_views()" >/dev/null
expect_eq "campaign stored" "$(q "SELECT state FROM lg.campaign WHERE name = 'it-definer'")" "done"
run=$(q "SELECT min(run_id) FROM lg.run WHERE state = 'done'")
[ "$(q "SELECT count(*) FROM lg.sample WHERE run_id = $run AND interval_ms > 0")" -gt 0 ] ||
    fail "run $run has no samples for lg.batch_means to read"
results=$(q "SELECT count(*) FROM lg.v_result")
[ "$results" -gt 0 ] || fail "lg.v_result is empty"

as() { psql -X -qAt -v ON_ERROR_STOP=1 -U "$@"; } # ROLE [psql arguments]
super() { q "SELECT rolsuper FROM pg_roles WHERE rolname = '$1'"; }
# trap ROLE: SQL planting, in the session's pg_temp, types named like the catalog's whose CHECK
# makes ROLE superuser when it runs with a superuser's rights (and does nothing otherwise).
trap_sql() {
    cat <<SQL
CREATE FUNCTION pg_temp.evil() RETURNS boolean LANGUAGE plpgsql AS \$f\$
BEGIN
    EXECUTE 'ALTER ROLE $1 SUPERUSER';
    RETURN true;
EXCEPTION WHEN insufficient_privilege THEN
    RETURN true;
END
\$f\$;
CREATE DOMAIN pg_temp.float8 AS pg_catalog.float8 CHECK (pg_temp.evil());
CREATE DOMAIN pg_temp.text AS pg_catalog.text CHECK (pg_temp.evil());
SQL
}
# hide_roles: the writer's session with an empty pg_roles of its own rebuilds the views.
hide_roles() {
    as lgc -c "CREATE TEMP TABLE pg_roles (rolname name)" -c "SELECT lg.refresh_views()" \
        >"$T/hide.out" 2>&1 || fail "refresh_views with pg_roles hidden: $(cat "$T/hide.out")"
}

# Both attacks work against the schema before 024, so this test is a test of something.
{ trap_sql lgr; echo "SELECT count(*) FROM lg.batch_means($run, 'read', 'iops');"; } |
    as lgr >"$T/pre.out" 2>&1 || fail "trap before 024: $(cat "$T/pre.out")"
expect_eq "before 024, lg.batch_means made lgr superuser" "$(super lgr)" t
q "ALTER ROLE lgr NOSUPERUSER" >/dev/null
hide_roles
as lgr -c "SELECT count(*) FROM lg.v_result" >"$T/pre.out" 2>&1 &&
    fail "before 024, a hidden pg_roles kept lg_reader's grant"
grep -q "permission denied" "$T/pre.out" || fail "before 024: $(cat "$T/pre.out")"
q "SELECT lg.refresh_views()" >/dev/null
echo "ok: before 024 the reader's trap makes it superuser and the writer's pg_roles drops a grant"

# Forward: 024 (and whatever follows) on the filled database; again, nothing; 024 again, same.
out=$("$LG_BIN/lgctl" db migrate) || fail "lgctl db migrate: $out"
# (a migration applied: every file of schema/views is run again after it)
views="the $(grep -cv '^#\|^$' "$LG_SRC/schema/views/order.txt") views and functions of schema/views re-created"
[[ $out =~ ^[1-9][0-9]*\ migrations?\ applied\;\ $views$ ]] || fail "lgctl db migrate applied none: $out"
expect_eq "lgctl db migrate again" "$("$LG_BIN/lgctl" db migrate)" "0 migrations applied"
q "DELETE FROM public.lg_migration WHERE name = '024_definer_search_path'" >/dev/null
expect_eq "024 applied a second time" "$("$LG_BIN/lgctl" db migrate)" "1 migration applied; $views"
expect_eq "lg.v_result rebuilt with its rows" "$(q "SELECT count(*) FROM lg.v_result")" "$results"
echo "ok: 024 migrates a filled database forward and runs again unchanged"

# a. The reader calls every definer function it may with the trap planted: each answers as it
# does without the trap, and lgr stays what it is.
calls=("lg.batch_means($run, 'read', 'iops')" "lg.run_noise($run, 'read', 'iops')"
    "lg.compare('threads', NULL, 'iops')"
    "lg.compare('threads', NULL, 'iops', '{}', NULL, NULL::text[])"
    "lg.compare('threads', NULL, 'iops', '{}', NULL, NULL, 0)"
    "lg.rank('iops')" "lg.rank('iops', '{}', NULL, 'threads', 0)"
    "lg.metric_figures('threads', 'iops', '{}', NULL, NULL)"
    "lg.metric_points('threads', 'iops', '{}', NULL)"
    "lg.metric_points('threads', 'iops', '{}', NULL, NULL)"
    "lg.check_args('threads', 'iops', '{}')" "lg.dimensions()" "lg.sweep()")
escalated=()
for call in "${calls[@]}"; do
    want=$(as lgr -c "SELECT count(*) FROM $call" 2>&1) || fail "$call as lg_reader: $want"
    got=$({ trap_sql lgr; echo "SELECT count(*) FROM $call;"; } | as lgr 2>&1) ||
        fail "$call with the trap: $got"
    [ "$got" = "$want" ] || fail "$call with the trap planted: got '$got', want '$want'"
    if [ "$(super lgr)" != f ]; then
        escalated+=("$call")
        q "ALTER ROLE lgr NOSUPERUSER" >/dev/null
    fi
done
[ ${#escalated[@]} -eq 0 ] || fail "the reader's pg_temp trap made lgr superuser through: ${escalated[*]}"
echo "ok: a reader's types in pg_temp run in none of ${#calls[@]} definer calls; lgr is no superuser"

# b. The writer rebuilds the views with pg_roles hidden: the grants are made all the same.
hide_roles
expect_eq "lg_reader reads lg.v_result after a rebuild with pg_roles hidden" \
    "$(as lgr -c "SELECT count(*) FROM lg.v_result" 2>&1)" "$results"
expect_eq "lg_writer reads lg.v_result too" \
    "$(as lgc -c "SELECT count(*) FROM lg.v_result" 2>&1)" "$results"
# ... or with the trap planted: it stays a writer, and the views outlive its session.
{ trap_sql lgc; echo "SELECT lg.refresh_views();"; } | as lgc >"$T/wtrap.out" 2>&1 ||
    fail "refresh_views with the trap: $(cat "$T/wtrap.out")"
expect_eq "lgc after refresh_views with the trap" "$(super lgc)" f
expect_eq "lg.v_result after the writer's session" \
    "$(as lgr -c "SELECT count(*) FROM lg.v_result" 2>&1)" "$results"
expect_eq "lg.v_result built on no temporary type" "$(q "SELECT count(*) FROM pg_depend d
    JOIN pg_type t ON d.refclassid = 'pg_type'::regclass AND t.oid = d.refobjid
    JOIN pg_rewrite w ON d.classid = 'pg_rewrite'::regclass AND w.oid = d.objid
    WHERE w.ev_class IN ('lg.v_result'::regclass, 'lg.v_sample'::regclass)
      AND t.typnamespace::regnamespace::text LIKE 'pg\_temp\_%'")" 0
echo "ok: a writer's temporary pg_roles or types change neither the views' grants nor its rights"

# c. Every function that runs as its owner searches pg_temp last, whichever migration made it.
expect_eq "SECURITY DEFINER functions without search_path = pg_catalog, lg, pg_temp" \
    "$(q "SELECT string_agg(p.oid::regprocedure::text, ', ') FROM pg_proc p
          JOIN pg_namespace n ON n.oid = p.pronamespace
          WHERE p.prosecdef AND n.nspname NOT LIKE 'pg\_%' AND n.nspname <> 'information_schema'
            AND NOT coalesce('search_path=pg_catalog, lg, pg_temp' = ANY (p.proconfig), false)")" ""
ndef=$(q "SELECT count(*) FROM pg_proc WHERE prosecdef AND pronamespace = 'lg'::regnamespace")
[ "$ndef" -ge 14 ] || fail "only $ndef SECURITY DEFINER functions in lg"
expect_eq "lg_reader may still not rebuild the views" \
    "$(q "SELECT has_function_privilege('lgr', 'lg.refresh_views()', 'EXECUTE')")" f
echo "ok: all $ndef SECURITY DEFINER functions of lg set search_path = pg_catalog, lg, pg_temp"

# Migrated, the controller starts on the database, and stores the load hosts' CPU (026) with the
# samples of a campaign, as the scratch database's controller did.
start_controller --database "$WRITER"
sed 's/^name: it-definer$/name: it-definer-2/' "$T/it-definer.yaml" >"$T/it-definer-2.yaml"
submit_file it-definer-2
wait_campaign it-definer-2
expect_eq "it-definer-2 done" "$(q "SELECT state FROM lg.campaign WHERE name = 'it-definer-2'")" done
expect_eq "samples with the host CPU, per campaign" "$(q "SELECT string_agg(n::text, ' '
    ORDER BY c) FROM (SELECT c.name AS c, count(*) FILTER (WHERE s.host_cpus > 0
    AND s.cpu_busy_pct BETWEEN 0 AND 100) * 100 / count(*) AS n FROM lg.sample s
    JOIN lg.run r USING (run_id) JOIN lg.campaign c USING (campaign_id) GROUP BY c.name) x")" "100 100"
