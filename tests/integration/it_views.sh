#!/usr/bin/env bash
# it_views: the views and functions of schema/views (re-created by lgctl db migrate when a file
# changed: schema/README.md). A database made by the numbered migrations 001-026 as they stood
# before schema/views existed, and filled, migrates forward with its data, every view's rows
# and every view's and function's definition, owner, privileges and comments the same; a new
# database gets the same objects, and so does one whose views and functions were all dropped (the
# files alone, grants included); a second migrate changes nothing, also for a reader login; a
# changed file (its checksum recorded differs) is re-created on the next migrate, and so is
# everything after a numbered migration.
. "$(dirname "$0")/lib.sh"
pg_start
L="$LG_BIN/lgctl"
CATALOG="$LG_SRC/tests/integration/schema_catalog.sql"
# what lgctl db migrate adds when it ran every file of schema/views
VIEWS="; the $(grep -cv '^#\|^$' "$LG_SRC/schema/views/order.txt") views and functions of schema/views re-created"
qd() { psql -qAt -v ON_ERROR_STOP=1 -d "$1" -c "$2"; }

# ---- the database as it stood: migrations 001-026 (they are not changed), recorded, and 028_claims
# with its function lg.run_seal_text (schema/views), which do not depend on 027: what this test
# checks is that 027 (the move to schema/views) changes nothing ----
old_schema() { # DB (pg_start made it)
    qd "$1" "CREATE TABLE public.lg_migration (name text PRIMARY KEY,
             applied_at timestamptz NOT NULL DEFAULT now())" >/dev/null
    local f m
    for f in "$LG_SRC"/schema/[0-9][0-9][0-9]_*.sql; do
        m=$(basename "$f" .sql)
        ((10#${m%%_*} <= 26 || 10#${m%%_*} >= 28)) || continue
        psql -X -q -v ON_ERROR_STOP=1 -1 -d "$1" -f "$f" >"$T/migrate.out" 2>&1 ||
            fail "migration $m: $(cat "$T/migrate.out")"
        qd "$1" "INSERT INTO public.lg_migration (name) VALUES ('$m')" >/dev/null
    done
    psql -X -q -v ON_ERROR_STOP=1 -1 -d "$1" -f "$LG_SRC/schema/views/run_seal_text.sql" \
        >"$T/migrate.out" 2>&1 || fail "run_seal_text: $(cat "$T/migrate.out")"
}
old_schema lg
qd lg "SELECT lg.refresh_views()" >/dev/null
# every numbered migration but 027 (the files, so that a new migration needs no edit here)
NMIG=$(find "$LG_SRC/schema" -maxdepth 1 -name '[0-9][0-9][0-9]_*.sql' | wc -l)
qd lg "SELECT count(*) FROM public.lg_migration" | grep -qx $((NMIG - 1)) ||
    fail "$((NMIG - 1)) migrations recorded"

# ---- data: imports made in a scratch database (its tables are today's), then copied over (not
# lg.metric, which the migrations fill) ----
qd postgres "CREATE DATABASE scratch" >/dev/null
S="host=$PG_DIR port=5432 user=postgres dbname=scratch"
LG_DATABASE_URL=$S "$L" import fio-json "$LG_SRC/tests/unit/data/fio_3jobs.json" \
    --labels build=b1,media=ssd,dedup=off --name one >/dev/null 2>"$T/imp.err" ||
    fail "import: $(cat "$T/imp.err")"
LG_DATABASE_URL=$S "$L" import fio-json "$LG_SRC/tests/unit/data/fio_client.json" \
    --labels build=b2,media=ssd,dedup=on,pool=p1 --name two >/dev/null 2>"$T/imp.err" ||
    fail "import: $(cat "$T/imp.err")"
cat >"$T/fig.csv" <<'CSV'
profile,direction,metric,value,unit,protocol,threads,qd,build,media
4k-rand,read,iops,1000,IOPS,smb,1,8,b1,hdd
4k-rand,read,iops,1100,IOPS,smb,1,8,b1,hdd
4k-rand,read,iops,1500,IOPS,smb,1,8,b2,hdd
4k-rand,read,lat_avg_ms,800,us,smb,1,8,b1,hdd
4k-rand,read,lat_avg_ms,0.6,ms,smb,1,8,b2,hdd
4k-rand,read,iops,2000,IOPS,smb,1,16,b1,hdd
4k-rand,read,iops,2600,IOPS,smb,1,16,b2,hdd
CSV
LG_DATABASE_URL=$S "$L" import results "$T/fig.csv" --name figs >/dev/null 2>"$T/imp.err" ||
    fail "import results: $(cat "$T/imp.err")"
# per-second samples (with histograms and the hosts' CPU), telemetry scrapes, a reduction probe
qd scratch "
  INSERT INTO lg.sample (run_id, agent_id, seq, direction, t_ms, interval_ms, ios, bytes, lat_n,
                         lat_sum, lat_sumsq, lat_min, lat_max, hist, cpu_busy_pct, fio_cpu_pct,
                         host_cpus)
  SELECT r.run_id, ra.agent_id, s, 'read', 1700000000000 + s * 1000, 1000, 1000 + s * 7,
         (1000 + s * 7) * 4096, 1000 + s * 7, 1e8 + s * 1e6, 1e13, 50000, 900000 + s,
         lg.hist_pack(jsonb_build_object('120', 3 + s, '140', 5)), 40 + s, 12.5, 4
  FROM lg.run r JOIN lg.run_agent ra USING (run_id), generate_series(1, 25) s;
  INSERT INTO lg.sut_series (key) VALUES ('cpu.idle'), ('cpu.user'), ('cpu.iowait'),
                                         ('mem.avail'), ('disk.busy.sda');
  INSERT INTO lg.sut_scrape (run_id, source, seq, kind, t_send, t_recv, series, vals)
  SELECT r.run_id, 'nas:9100', s, CASE WHEN s = 0 THEN 'before' ELSE 'during' END,
         coalesce(r.started_at, now()) + s * interval '1 s',
         coalesce(r.started_at, now()) + s * interval '1 s' + interval '5 ms',
         lg.sut_series_ids(ARRAY['cpu.idle', 'cpu.user', 'cpu.iowait', 'mem.avail', 'disk.busy.sda']),
         ARRAY[100 + s * 1.5, 10 + s * 0.4, 1 + s * 0.1, 1e9 - s, s * 0.6]
  FROM lg.run r, generate_series(0, 12) s;
  INSERT INTO lg.reduction (campaign_id, config_ordinal, phase, logical_bytes, physical_bytes)
  SELECT campaign_id, 1, p, 1000000 * (2 + (p = 'after')::int), 400000 * (2 + (p = 'after')::int)
  FROM lg.campaign, unnest(ARRAY['before', 'after']) p" >/dev/null
# (lg.sample's partitions, 036, are loaded through lg.sample: its triggers are the ones to hold)
pg_dump -d scratch --data-only --schema=lg --exclude-table-data=lg.metric --disable-triggers \
    --load-via-partition-root |
    sed -E 's/^(ALTER TABLE lg\.)sample_(runs_[0-9]+|default) /\1sample /' >"$T/data.sql"
psql -X -q -v ON_ERROR_STOP=1 -d lg -f "$T/data.sql" >"$T/load.out" 2>&1 ||
    fail "loading the data into the old schema: $(cat "$T/load.out")"
qd lg "SELECT lg.refresh_views()" >/dev/null
expect_eq "filled: runs, samples, scrapes, figures" "$(qd lg "SELECT (SELECT count(*) FROM lg.run) > 0
    AND (SELECT count(*) FROM lg.sample) > 0 AND (SELECT count(*) FROM lg.sut_scrape) > 0
    AND (SELECT count(*) FROM lg.imported_figure) = 7")" t

# ---- what readers see: every view's rows, some functions' answers, every table's rows ----
snapshot() { # DB OUT
    : >"$2"
    local v
    for v in $(qd "$1" "SELECT relname FROM pg_class WHERE relnamespace = 'lg'::regnamespace
                         AND relkind IN ('v', 'r') ORDER BY relname"); do
        echo "== lg.$v" >>"$2"
        qd "$1" "SELECT t::text FROM lg.$v t ORDER BY 1" >>"$2"
    done
    local call
    for call in "lg.compare('build', NULL, 'iops')" "lg.compare('media', 'ssd', 'iops', '{}', NULL, NULL, 1)" \
        "lg.rank('iops')" "lg.rank('iops', '{}', NULL, 'build', 2)" "lg.sweep()" "lg.dimensions()" \
        "lg.metric_points('build', 'iops')"; do
        echo "== $call" >>"$2"
        qd "$1" "SELECT t::text FROM $call t ORDER BY 1" >>"$2"
    done
}
# Files of schema/views changed on purpose since 027, and what shows it: their definitions and
# rows (and the rows of views built on them) are not as 001-026 left them; the rest must be. The
# changed ones are checked below as every other: the same from a migrated, a new and a bare
# database. v_run_window (029: the agents' measured I/O), v_sut_run (a scrape counts for its time
# inside the window; v_metric's NAS CPU comes from it), v_reduction (error_before), compare and
# rank (untested differences; rank by a dimension never pools other labels; a configuration
# missing at a load point has a row of its own, 030_attempts); v_run_agent, whose ra.* now has
# run_agent's two new columns; v_search, whose s.* has lg.search's confirm, and
# v_search_probe, with each probe's trial at its load and whether it counts (031_search_confirm);
# config_check and v_config_check, new in 033 (the operator's read-back check); v_point and
# caveat_json, new (every measured point with its caveats, for lg-export's charts); inc_beta,
# which says 0 or 1 far in the tails where exp() underflowed; v_run (attempt, first_run, retries:
# 030_attempts), v_failed_point and run_attempt (new in 030: the measured points without figures;
# a new attempt's row); metric_figures, the same figures planned at each call for its own
# campaigns (plpgsql's EXECUTE: a lab's database, issue 43), its answers compared through
# lg.metric_points, and a qd_short column; metric_groups, new (the figures summed up per
# configuration and point, for rank: issue 43's rank over a lab's database); t_quantile, which
# starts Newton near the answer for p = 0.975 (the same quantile within 1e-12); sample_partition,
# run_sample_partitions and sample_drop_empty, new (lg.sample's partitions: 036); v_result_all,
# with lg.result's clat_percentiles (037); t_quantile at p = 0.975 a polynomial in 1/df (exact
# where Newton on t_cdf was 5e-11 off) and ln_gamma Lanczos' (one expression).
CHANGED="v_run_window v_sut_run v_metric v_reduction compare rank v_run_agent v_search v_search_probe
         config_check v_config_check v_point caveat_json inc_beta v_run v_failed_point run_attempt
         metric_figures metric_groups t_quantile sample_partition run_sample_partitions
         sample_drop_empty v_result_all ln_gamma"
unchanged() { # FILE: without the sections and catalog entries of $CHANGED
    awk -v ch="$CHANGED" 'BEGIN { n = split(ch, a, " "); for (i = 1; i <= n; i++) c[a[i]] = 1 }
        /^== / || /^view / || /^function / {
            name = $2; sub(/^lg\./, "", name); sub(/[(].*/, "", name); skip = (name in c) }
        !skip' "$1"
}
snapshot lg "$T/rows.before"
psql -X -qAt -v ON_ERROR_STOP=1 -d lg -f "$CATALOG" >"$T/catalog.before"
[ "$(grep -c '^== ' "$T/rows.before")" -ge 40 ] || fail "too few views and tables snapshotted"
[ "$(grep -c '^view ' "$T/catalog.before")" -eq 26 ] || fail "26 views before: $(grep '^view ' "$T/catalog.before" | tr "\n" " ")"
[ "$(grep -c '^function ' "$T/catalog.before")" -eq 33 ] || fail "33 functions before"
for v in v_result v_metric v_sut_sample v_sut_run v_host_run v_reduction v_sample_all v_sweep; do
    [ "$(sed -n "/^== lg.$v\$/,/^== /p" "$T/rows.before" | grep -vc '^== ')" -gt 0 ] ||
        fail "lg.$v has no rows to compare"
done

# ---- forward: the new code on the filled database ----
expect_eq "forward" "$("$L" db migrate)" "1 migration applied$VIEWS"
snapshot lg "$T/rows.after"
psql -X -qAt -v ON_ERROR_STOP=1 -d lg -f "$CATALOG" >"$T/catalog.after"
diff <(unchanged "$T/rows.before") <(unchanged "$T/rows.after") >"$T/rows.diff" ||
    fail "rows changed: $(head -20 "$T/rows.diff")"
echo "ok: every table's and view's rows, and the functions' answers, as before (but $CHANGED)"
diff <(unchanged "$T/catalog.before") <(unchanged "$T/catalog.after") >"$T/cat.diff" ||
    fail "definitions changed: $(head -40 "$T/cat.diff")"
echo "ok: every view and function defined as before (definition, columns, owner, grants, comments)"
expect_eq "recorded files" "$(qd lg "SELECT count(*) FROM public.lg_repeatable")" \
    "$(grep -cv '^#\|^$' "$LG_SRC/schema/views/order.txt")"

# ---- a new database: the same objects ----
qd postgres "CREATE DATABASE fresh" >/dev/null
expect_eq "fresh" "$(LG_DATABASE_URL="host=$PG_DIR port=5432 user=postgres dbname=fresh" "$L" db migrate)" \
    "$NMIG migrations applied$VIEWS"
psql -X -qAt -v ON_ERROR_STOP=1 -d fresh -f "$CATALOG" >"$T/catalog.fresh"
diff "$T/catalog.after" "$T/catalog.fresh" >"$T/cat.diff" ||
    fail "a new database differs: $(head -40 "$T/cat.diff")"
echo "ok: a new database has the same views and functions"

# ---- the files alone: a database of 001-026 with every view and function of lg dropped ----
qd postgres "CREATE DATABASE bare" >/dev/null
old_schema bare
qd bare "DO \$\$ DECLARE r record; BEGIN
    DROP TRIGGER IF EXISTS run_sample_partitions ON lg.run; -- (its function's file makes it)
    FOR r IN SELECT relname FROM pg_class WHERE relnamespace = 'lg'::regnamespace AND relkind = 'v'
    LOOP EXECUTE format('DROP VIEW IF EXISTS lg.%I CASCADE', r.relname); END LOOP;
    FOR r IN SELECT oid::regprocedure AS p FROM pg_proc WHERE pronamespace = 'lg'::regnamespace
    LOOP EXECUTE format('DROP FUNCTION %s', r.p); END LOOP; END \$\$" >/dev/null 2>&1
expect_eq "bare: nothing left" "$(qd bare "SELECT count(*) FROM pg_proc WHERE pronamespace =
    'lg'::regnamespace")" 0
expect_eq "bare" "$(LG_DATABASE_URL="host=$PG_DIR port=5432 user=postgres dbname=bare" "$L" db migrate)" \
    "1 migration applied$VIEWS"
psql -X -qAt -v ON_ERROR_STOP=1 -d bare -f "$CATALOG" >"$T/catalog.bare"
diff "$T/catalog.after" "$T/catalog.bare" >"$T/cat.diff" ||
    fail "the files alone differ: $(head -40 "$T/cat.diff")"
echo "ok: the files alone make every view and function, grants included, in their order"

# ---- again: nothing; a reader checks without DDL ----
# (the views' oids and row versions, the records' checksums and row versions, as an md5)
ids() { qd lg "SELECT md5(string_agg(c.oid || ':' || c.xmin, ' ' ORDER BY c.relname)) FROM pg_class c
               WHERE c.relnamespace = 'lg'::regnamespace AND c.relkind = 'v'
               AND c.relname NOT IN ('v_result', 'v_sample')"; }
rec() { qd lg "SELECT md5(string_agg(name || ':' || checksum || ':' || xmin, ' ' ORDER BY name))
               FROM public.lg_repeatable"; }
before=$(ids) brec=$(rec)
expect_eq "again" "$("$L" db migrate)" "0 migrations applied"
expect_eq "views not re-created" "$(ids)" "$before"
expect_eq "records untouched" "$(rec)" "$brec"
qd lg "CREATE ROLE lgr LOGIN IN ROLE lg_reader; CREATE ROLE lgc LOGIN IN ROLE lg_writer" >/dev/null
for who in lgr lgc; do
    expect_eq "$who: up to date" \
        "$(LG_DATABASE_URL="host=$PG_DIR port=5432 user=$who dbname=lg" "$L" db migrate)" \
        "0 migrations applied"
done
expect_eq "views not re-created by the logins" "$(ids)" "$before"

# ---- a changed file: its recorded checksum differs; the views are made from the files ----
# (lg.v_point reads lg.v_host_run: it goes first, and comes back from its file.)
qd lg "UPDATE public.lg_repeatable SET checksum = 'changed' WHERE name = 'v_host_run';
       DROP VIEW lg.v_point; DROP VIEW lg.v_host_run; CREATE VIEW lg.v_host_run AS SELECT 1 AS stale;
       GRANT SELECT ON lg.v_host_run TO lg_reader" >/dev/null
LG_DATABASE_URL="host=$PG_DIR port=5432 user=lgr dbname=lg" "$L" db migrate >"$T/r.out" 2>&1 &&
    fail "a reader re-created the views: $(cat "$T/r.out")"
expect_eq "changed file" "$("$L" db migrate)" "0 migrations applied$VIEWS"
psql -X -qAt -v ON_ERROR_STOP=1 -d lg -f "$CATALOG" >"$T/catalog.changed"
diff "$T/catalog.after" "$T/catalog.changed" >"$T/cat.diff" ||
    fail "not re-created from the files: $(head -40 "$T/cat.diff")"
[ "$(ids)" != "$before" ] || fail "the views were not re-created"
expect_eq "checksum recorded again" "$(qd lg "SELECT checksum <> 'changed' FROM public.lg_repeatable
    WHERE name = 'v_host_run'")" t
snapshot lg "$T/rows.changed"
diff "$T/rows.after" "$T/rows.changed" >/dev/null || fail "rows changed after the re-creation"
echo "ok: a changed file re-creates the views, rows as before"

# ---- a numbered migration applied: everything re-created after it (it may drop a view) ----
before=$(ids)
qd lg "DELETE FROM public.lg_migration WHERE name = '027_repeatable'; DROP VIEW lg.v_point;
       DROP VIEW lg.v_host_run" \
    >/dev/null
expect_eq "a migration again" "$("$L" db migrate)" "1 migration applied$VIEWS"
psql -X -qAt -v ON_ERROR_STOP=1 -d lg -f "$CATALOG" >"$T/catalog.mig"
diff "$T/catalog.after" "$T/catalog.mig" >"$T/cat.diff" ||
    fail "not re-created after a migration: $(head -40 "$T/cat.diff")"
[ "$(ids)" != "$before" ] || fail "the views were not re-created after a migration"
echo "ok: a migration re-creates the views after it"

# ---- an object outside schema/views that depends on a view: refused, nothing changed ----
qd lg "CREATE VIEW public.mine AS SELECT run_id FROM lg.v_run;
       UPDATE public.lg_repeatable SET checksum = 'changed' WHERE name = 'v_run'" >/dev/null
before=$(ids)
"$L" db migrate >"$T/dep.out" 2>&1 && fail "migrated over a dependent view: $(cat "$T/dep.out")"
grep -q 'could not drop view "lg.v_run"' "$T/dep.out" || fail "dependent view: $(cat "$T/dep.out")"
expect_eq "nothing changed" "$(ids)" "$before"
qd lg "DROP VIEW public.mine" >/dev/null
expect_eq "then" "$("$L" db migrate)" "0 migrations applied$VIEWS"
echo "ok: a view that another object needs is refused with a hint, in one transaction"
