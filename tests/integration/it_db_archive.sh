#!/usr/bin/env bash
# it_db_archive: years of reviews (issue 43 part 3). lg.sample is partitioned by ranges of 10,000
# run ids (036). Two real local-mode campaigns, the old one's runs in a partition of their own
# (its run ids 10,000 below the new one's): "lgctl db archive --before DATE FILE" writes the old
# one, with every row of it, into FILE and deletes it, dropping its emptied partition and leaving
# the current campaign's partition untouched (no row deleted there); "lgctl db restore FILE"
# brings it back with every figure, sample and fio JSON as it was (a round trip of figures).
# Refused, with nothing changed: an existing FILE, a bad date, restoring a campaign that is
# there, a file cut short, a file that names a table or column lg does not have.
. "$(dirname "$0")/lib.sh"
pg_start
L="$LG_BIN/lgctl"
"$L" db migrate >/dev/null

spec() { # NAME
    cat >"$T/$1.yaml" <<SPEC
name: $1
configs:
  - labels: {build: arc, media: "null", compression: lz4}
    target: "null"
between_configs: none
profiles:
  - {name: 4k-rand, sweep: none}
  - {name: 128k-seq, sweep: none}
threads: 1
qd: 2
ramp: 0s
runtime: 1s
precondition: none
SPEC
    "$L" --data-dir "$T/d" run "$T/$1.yaml" --quiet >"$T/$1.run" 2>"$T/$1.log" ||
        { tail -20 "$T/$1.log"; fail "campaign $1 failed"; }
}
spec old-review
# the next campaign's runs start in the next partition
q "SELECT setval('lg.run_run_id_seq', (SELECT max(run_id) FROM lg.run) - (SELECT max(run_id) FROM lg.run) % 10000 + 10000)" >/dev/null
spec new-review
q "UPDATE lg.campaign SET created_at = '2026-01-10', started_at = '2026-01-10',
   finished_at = '2026-01-10 01:00' WHERE name = 'old-review'" >/dev/null

# everything of a campaign that a round trip must keep, as text
state() { # NAME
    q "SELECT c.campaign_id, c.name, c.state, c.finished_at, c.spec FROM lg.campaign c WHERE c.name = '$1'"
    q "SELECT r.run_id, r.profile, r.direction, r.state, r.started_at, r.sut_config_id FROM lg.run r
       JOIN lg.campaign c USING (campaign_id) WHERE c.name = '$1' ORDER BY 1"
    q "SELECT x.run_id, x.agent_id, x.direction, x.iops, x.bw_bytes, x.lat_mean, x.lat_stddev,
       x.percentiles FROM lg.result x JOIN lg.run r USING (run_id) JOIN lg.campaign c USING (campaign_id)
       WHERE c.name = '$1' ORDER BY 1, 2, 3"
    q "SELECT md5(string_agg(s::text, '|' ORDER BY s.run_id, s.agent_id, s.seq, s.direction)), count(*)
       FROM lg.sample s JOIN lg.run r USING (run_id) JOIN lg.campaign c USING (campaign_id) WHERE c.name = '$1'"
    q "SELECT md5(string_agg(ra.fio_json, '|' ORDER BY ra.run_id, ra.agent_id)) FROM lg.run_agent ra
       JOIN lg.run r USING (run_id) JOIN lg.campaign c USING (campaign_id) WHERE c.name = '$1'"
    "$L" report --campaign "$1" --format csv
}
state old-review >"$T/old.before"
state new-review >"$T/new.before"
osamples=$(q "SELECT count(*) FROM lg.sample s JOIN lg.run r USING (run_id) JOIN lg.campaign c USING (campaign_id) WHERE c.name = 'old-review'")
[ "$osamples" -gt 0 ] || fail "the old campaign has no samples"
olo=$(q "SELECT min(run_id) - min(run_id) % 10000 FROM lg.run r JOIN lg.campaign c USING (campaign_id) WHERE c.name = 'old-review'")
nlo=$(q "SELECT min(run_id) - min(run_id) % 10000 FROM lg.run r JOIN lg.campaign c USING (campaign_id) WHERE c.name = 'new-review'")
[ "$olo" != "$nlo" ] || fail "the two campaigns share a partition"
expect_eq "the old campaign's samples are in its partition" \
    "$(q "SELECT count(*) FROM lg.sample_runs_$olo")" "$osamples"
echo "ok: samples in partitions of 10,000 run ids (old: lg.sample_runs_$olo, new: lg.sample_runs_$nlo)"

# ---- refusals that change nothing ----
: >"$T/exists.arc"
rc=0; "$L" db archive --before 2026-06-01 "$T/exists.arc" >/dev/null 2>"$T/e1" || rc=$?
expect_eq "exit code for an existing FILE" $rc 1
grep -q "never overwritten" "$T/e1" || { cat "$T/e1"; fail "the message for an existing FILE"; }
rc=0; "$L" db archive --before 'not a date' "$T/x.arc" >/dev/null 2>"$T/e2" || rc=$?
expect_eq "exit code for a bad date" $rc 2
grep -q -- '--before "not a date" is not a date' "$T/e2" || { cat "$T/e2"; fail "the message for a bad date"; }
[ ! -e "$T/x.arc" ] || fail "a file was made for a bad date"
"$L" db archive --before 2025-01-01 "$T/none.arc" >"$T/none.out"
grep -q "nothing archived, no file made" "$T/none.out" || fail "archive of nothing: $(cat "$T/none.out")"
[ ! -e "$T/none.arc" ] || fail "a file was made for nothing"
state old-review | diff - "$T/old.before" >/dev/null || fail "a refusal changed the old campaign"
echo "ok: an existing file, a bad date and no campaign change nothing"

# ---- archive ----
del_before=$(q "SELECT coalesce(n_tup_del, 0) FROM pg_stat_user_tables WHERE relname = 'sample_runs_$nlo'")
"$L" db archive --before 2026-06-01 "$T/2026-h1.arc" >"$T/arc.out" || fail "archive failed"
cat "$T/arc.out"
grep -q "archived 1 campaign (4 runs, $osamples samples)" "$T/arc.out" || fail "the archive's summary"
expect_eq "the archive's mode" "$(stat -c %a "$T/2026-h1.arc")" 600
expect_eq "the old campaign is gone" "$(q "SELECT count(*) FROM lg.campaign WHERE name = 'old-review'")" 0
expect_eq "its runs and samples are gone" \
    "$(q "SELECT (SELECT count(*) FROM lg.run WHERE run_id >= $olo AND run_id < $olo + 10000) + (SELECT count(*) FROM lg.sample WHERE run_id >= $olo AND run_id < $olo + 10000)")" 0
expect_eq "its emptied partition is dropped" "$(q "SELECT to_regclass('lg.sample_runs_$olo') IS NULL")" t
sleep 1 # the statistics collector's counts arrive with a delay
expect_eq "no row of the current partition deleted" \
    "$(q "SELECT coalesce(n_tup_del, 0) FROM pg_stat_user_tables WHERE relname = 'sample_runs_$nlo'")" "$del_before"
state new-review | diff - "$T/new.before" || fail "archiving changed the current campaign"
echo "ok: archived the old review; its partition dropped, the current one untouched"

# ---- restore ----
head -c "$(($(stat -c %s "$T/2026-h1.arc") * 2 / 3))" "$T/2026-h1.arc" >"$T/cut.arc"
rc=0; "$L" db restore "$T/cut.arc" >/dev/null 2>"$T/e3" || rc=$?
expect_eq "exit code for a cut file" $rc 1
grep -q "is not a whole lg archive" "$T/e3" || { cat "$T/e3"; fail "the message for a cut file"; }
expect_eq "nothing restored from a cut file" "$(q "SELECT count(*) FROM lg.campaign WHERE name = 'old-review'")" 0
sed 's/^table run_agent /table pg_authid /' "$T/2026-h1.arc" >"$T/evil1.arc"
sed 's/^table run_agent run_id,/table run_agent run_id);DROP TABLE lg.sample;--,/' "$T/2026-h1.arc" >"$T/evil2.arc"
for f in evil1 evil2; do
    rc=0; "$L" db restore "$T/$f.arc" >/dev/null 2>"$T/$f.err" || rc=$?
    expect_eq "exit code for $f" $rc 1
    grep -q "nothing restored" "$T/$f.err" || { cat "$T/$f.err"; fail "the message for $f"; }
done
expect_eq "lg.sample still there" "$(q "SELECT to_regclass('lg.sample') IS NOT NULL")" t
"$L" db restore "$T/2026-h1.arc" >"$T/res.out" || fail "restore failed"
cat "$T/res.out"
grep -q "restored 1 campaign (4 runs, $osamples samples)" "$T/res.out" || fail "the restore's summary"
state old-review | diff - "$T/old.before" || fail "the restored campaign differs from the archived one"
state new-review | diff - "$T/new.before" || fail "restoring changed the current campaign"
rc=0; "$L" db restore "$T/2026-h1.arc" >/dev/null 2>"$T/e4" || rc=$?
expect_eq "exit code for restoring twice" $rc 1
grep -q 'campaign [0-9]* "old-review" is in the database already' "$T/e4" || { cat "$T/e4"; fail "the message for restoring twice"; }
echo "ok: restored: every row, sample, fio JSON and report figure as before; twice refused"
