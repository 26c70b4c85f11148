#!/usr/bin/env bash
# it_gates: a campaign either runs the controller's hook before every SUT config, the first
# included, and once after the last (with the config's labels and LG_PHASE=before|after in its
# environment; a failing hook stops the campaign before that config is measured, with its stderr
# in the message, and so does one still running at its deadline), then the operator's check that
# reads the settings back (a label read otherwise stops the campaign; the report shows what was
# read), or pauses between configs until a second lgctl says "resume" (the check then runs before
# config 1 and after each resume).
. "$(dirname "$0")/lib.sh"
pg_start

spec() { # NAME BETWEEN
    cat <<SPEC
name: $1
configs:
  - labels: {build: it, compression: lz4, dedup: "off"}
    target: "null"
  - labels: {build: it, compression: zstd, dedup: "on"}
    target: "null"
profiles: [{name: 4k-rand, sweep: none}]
threads: 1
qd: 1
runtime: 1s
precondition: none
between_configs: $2
SPEC
}

# 1. A hook that succeeds prepares every config, the first included, and runs once after the last.
spec hook-ok hook >"$T/hook-ok.yaml"
LG_HOOK="echo \"\$LG_PHASE \$LG_CONFIG \$LG_LABEL_COMPRESSION \$LG_LABEL_DEDUP\" >>$T/hook.out" \
    "$LG_BIN/lgctl" --data-dir "$T/d1" run "$T/hook-ok.yaml" >"$T/ok.txt" 2>"$T/ok.log" ||
    { cat "$T/ok.log" >&2; fail "campaign with a good hook failed"; }
expect_eq "hook ran before configs 1 and 2 and after the last, with their labels" \
    "$(tr '\n' ';' <"$T/hook.out")" "before 1 lz4 off;before 2 zstd on;after 2 zstd on;"
expect_eq "the hook before config 1 ran before its first run" "$(q "SELECT count(*) FROM lg.run r
    JOIN lg.campaign c USING (campaign_id) WHERE c.name = 'hook-ok' AND r.gate
    AND r.config_ordinal = 1 AND r.ordinal = 1")" 1
expect_eq "hook-ok runs done" "$(q "SELECT count(*) FILTER (WHERE r.state = 'done') || '/' || count(*)
    FROM lg.run r JOIN lg.campaign c USING (campaign_id) WHERE c.name = 'hook-ok'")" "4/4"

# 2. A hook that fails stops the campaign before config 2, with its stderr in the message.
spec hook-bad hook >"$T/hook-bad.yaml"
rc=0
LG_HOOK='[ "$LG_CONFIG" = 2 ] || exit 0; echo "zfs: cannot set property: pool is busy" >&2; exit 3' \
    "$LG_BIN/lgctl" --data-dir "$T/d2" run "$T/hook-bad.yaml" >"$T/bad.txt" 2>"$T/bad.log" || rc=$?
[ $rc -eq 1 ] || { cat "$T/bad.log" >&2; fail "failing hook: lgctl exit $rc, want 1"; }
expect_eq "campaign state" "$(q "SELECT state FROM lg.campaign WHERE name = 'hook-bad'")" failed
msg=$(q "SELECT message FROM lg.campaign WHERE name = 'hook-bad'")
echo "message: $msg"
grep -q "pool is busy" <<<"$msg" || fail "the hook's stderr is not in the message"
grep -q "status 3" <<<"$msg" || fail "the hook's exit status is not in the message"
grep -q "config 2" <<<"$msg" || fail "the message does not say which config was next"
grep -q "pool is busy" "$T/bad.log" || fail "lgctl did not show the hook's message"
expect_eq "runs by config and state" "$(q "SELECT string_agg(r.config_ordinal || ':' || r.state, ' '
    ORDER BY r.ordinal) FROM lg.run r JOIN lg.campaign c USING (campaign_id)
    WHERE c.name = 'hook-bad'")" "1:done 1:done 2:aborted 2:aborted"

# 2a. One that fails before config 1: nothing is measured on a NAS that was not prepared.
spec hook-first hook >"$T/hook-first.yaml"
rc=0
LG_HOOK='echo "zfs: no such dataset" >&2; exit 1' \
    "$LG_BIN/lgctl" --data-dir "$T/d2a" run "$T/hook-first.yaml" >"$T/first.txt" 2>"$T/first.log" ||
    rc=$?
[ $rc -eq 1 ] || { cat "$T/first.log" >&2; fail "failing first hook: lgctl exit $rc, want 1"; }
grep -q "before config 1" <<<"$(q "SELECT message FROM lg.campaign WHERE name = 'hook-first'")" ||
    fail "the message does not name config 1: $(q "SELECT message FROM lg.campaign WHERE name = 'hook-first'")"
expect_eq "hook-first: runs by config and state" "$(q "SELECT string_agg(r.config_ordinal || ':' ||
    r.state, ' ' ORDER BY r.ordinal) FROM lg.run r JOIN lg.campaign c USING (campaign_id)
    WHERE c.name = 'hook-first'")" "1:aborted 1:aborted 2:aborted 2:aborted"

# 2b. A hook still running at its deadline (LG_HOOK_TIMEOUT, the controller's --hook-timeout) is
# stopped, with what it started, and stops the campaign saying it timed out.
spec hook-slow hook >"$T/hook-slow.yaml"
rc=0
start=$(date +%s)
LG_HOOK_TIMEOUT=2 LG_HOOK="[ \"\$LG_CONFIG\" = 2 ] || exit 0; echo 'waiting for the pool' >&2; sleep 600 & echo \$! >$T/slow.pid; wait" \
    "$LG_BIN/lgctl" --data-dir "$T/d2b" run "$T/hook-slow.yaml" >"$T/slow.txt" 2>"$T/slow.log" ||
    rc=$?
took=$(($(date +%s) - start))
[ $rc -eq 1 ] || { cat "$T/slow.log" >&2; fail "slow hook: lgctl exit $rc, want 1"; }
[ "$took" -lt 120 ] || fail "the slow hook's campaign took ${took}s"
expect_eq "slow hook: campaign state" \
    "$(q "SELECT state FROM lg.campaign WHERE name = 'hook-slow'")" failed
msg=$(q "SELECT message FROM lg.campaign WHERE name = 'hook-slow'")
echo "message: $msg"
grep -q "timed out after 2 s" <<<"$msg" || fail "the message does not say the hook timed out"
grep -q "waiting for the pool" <<<"$msg" || fail "the slow hook's stderr is not in the message"
slow=$(cat "$T/slow.pid")
gone() { ! kill -0 "$1" 2>/dev/null || [ "$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null)" = Z ]; }
for _ in $(seq 1 50); do gone "$slow" && break; sleep 0.1; done
gone "$slow" || fail "the hook's sleep $slow outlived its deadline"
expect_eq "slow hook: runs by config and state" "$(q "SELECT string_agg(r.config_ordinal || ':' ||
    r.state, ' ' ORDER BY r.ordinal) FROM lg.run r JOIN lg.campaign c USING (campaign_id)
    WHERE c.name = 'hook-slow'")" "1:done 1:done 2:aborted 2:aborted"

# 2c. The operator's check (LG_READBACK, the controller's --readback) reads the settings back after the
# hook: the hook "sets" the NAS (a file standing for the dataset's properties), the check prints
# them as zfs get -H would. Every config read as labelled: the campaign runs, and the report
# shows what was read beside each config.
nas="$T/nas.props"
set_hook="printf 'compression\t%s\ndedup\t%s\natime\ton\n' \"\$LG_LABEL_COMPRESSION\" \"\$LG_LABEL_DEDUP\" >$nas"
spec check-ok hook >"$T/check-ok.yaml"
LG_HOOK="$set_hook" LG_READBACK="echo '# tank/it'; cat $nas" \
    "$LG_BIN/lgctl" --data-dir "$T/d2c" run "$T/check-ok.yaml" >"$T/cok.txt" 2>"$T/cok.log" ||
    { cat "$T/cok.log" >&2; fail "campaign with a good check failed"; }
expect_eq "check-ok runs done" "$(q "SELECT count(*) FILTER (WHERE r.state = 'done') || '/' ||
    count(*) FROM lg.run r JOIN lg.campaign c USING (campaign_id) WHERE c.name = 'check-ok'")" "4/4"
expect_eq "settings read back, by config" "$(q "SELECT string_agg(k.config_ordinal || ':' ||
    (k.read ->> 'compression') || ',' || (k.read ->> 'dedup') || ',' || (k.read ->> 'atime') ||
    ',' || coalesce(k.error, 'ok'), ' ' ORDER BY k.config_ordinal) FROM lg.config_check k
    JOIN lg.campaign c USING (campaign_id) WHERE c.name = 'check-ok'")" "1:lz4,off,on,ok 2:zstd,on,on,ok"
grep -qF "Read back before each config (lg-controller --readback):" "$T/cok.txt" ||
    { cat "$T/cok.txt"; fail "the report does not show what the check read"; }
grep -qE "^ +config 2 \(it zstd, dedup on\): atime=on, compression=zstd, dedup=on \(as labelled\)$" \
    "$T/cok.txt" || { cat "$T/cok.txt"; fail "the report's read-back line of config 2"; }

# A hook that did not set config 2 (compression stays lz4): the check reads it back, and the
# campaign stops before config 2 is measured, naming the setting, the label and what was read.
spec check-bad hook >"$T/check-bad.yaml"
rc=0
LG_HOOK="printf 'compression=lz4\ndedup=%s\n' \"\$LG_LABEL_DEDUP\" >$nas" LG_READBACK="cat $nas" \
    "$LG_BIN/lgctl" --data-dir "$T/d2d" run "$T/check-bad.yaml" >"$T/cbad.txt" 2>"$T/cbad.log" ||
    rc=$?
[ $rc -eq 1 ] || { cat "$T/cbad.log" >&2; fail "mismatching check: lgctl exit $rc, want 1"; }
msg=$(q "SELECT message FROM lg.campaign WHERE name = 'check-bad'")
echo "message: $msg"
grep -qF 'compression reads "lz4" where the config'"'"'s label says "zstd"' <<<"$msg" ||
    fail "the message does not name the mismatch"
grep -q "before config 2" <<<"$msg" || fail "the message does not name config 2"
expect_eq "check-bad: runs by config and state" "$(q "SELECT string_agg(r.config_ordinal || ':' ||
    r.state, ' ' ORDER BY r.ordinal) FROM lg.run r JOIN lg.campaign c USING (campaign_id)
    WHERE c.name = 'check-bad'")" "1:done 1:done 2:aborted 2:aborted"
"$LG_BIN/lgctl" --data-dir "$T/d2d" report --campaign check-bad >"$T/cbad-report.txt" 2>&1 || true
grep -qE "^ +config 2 \(it zstd, dedup on\): compression=lz4, dedup=on; compression reads" \
    "$T/cbad-report.txt" || { cat "$T/cbad-report.txt"; fail "the report's mismatch line"; }

# A check that reads none of the labels checked nothing: the campaign stops before config 1.
spec check-none hook >"$T/check-none.yaml"
rc=0
LG_HOOK=true LG_READBACK="echo recordsize=128K" \
    "$LG_BIN/lgctl" --data-dir "$T/d2e" run "$T/check-none.yaml" >"$T/cnone.txt" 2>"$T/cnone.log" ||
    rc=$?
[ $rc -eq 1 ] || { cat "$T/cnone.log" >&2; fail "a check of no label: lgctl exit $rc, want 1"; }
grep -q "it read recordsize, none of them a label of the config" \
    <<<"$(q "SELECT message FROM lg.campaign WHERE name = 'check-none'")" ||
    fail "no-label check: $(q "SELECT message FROM lg.campaign WHERE name = 'check-none'")"
expect_eq "check-none: runs measured" "$(q "SELECT count(*) FROM lg.run r JOIN lg.campaign c
    USING (campaign_id) WHERE c.name = 'check-none' AND r.state = 'done'")" 0

# 3. Pause between configs; a second lgctl resumes. The operator sets the NAS up by hand (the
# file standing for it), and the check reads it back before config 1 and after the resume, before
# config 2 (034_gate_resumed).
spec paused pause >"$T/paused.yaml"
printf 'compression=lz4\ndedup=off\n' >"$nas"
LG_READBACK="cat $nas" "$LG_BIN/lgctl" --data-dir "$T/d3" run "$T/paused.yaml" >"$T/p.txt" 2>"$T/p.log" &
run_pid=$!
CLEANUP_PIDS+=("$run_pid")
for _ in $(seq 1 300); do
    st=$("$LG_BIN/lgctl" --data-dir "$T/d3" status paused 2>/dev/null || true)
    grep -q "paused" <<<"$st" && grep -q "waiting before config 2" <<<"$st" && break
    sleep 0.2
done
echo "$st"
grep -q "waiting before config 2" <<<"$st" || fail "the campaign did not pause before config 2"
grep -q "lgctl resume paused" <<<"$st" || fail "the pause message does not say how to go on"
sleep 1.5 # paused means paused: nothing of config 2 starts
expect_eq "while paused" "$(q "SELECT string_agg(r.config_ordinal || ':' || r.state, ' '
    ORDER BY r.ordinal) FROM lg.run r JOIN lg.campaign c USING (campaign_id)
    WHERE c.name = 'paused'")" "1:done 1:done 2:pending 2:pending"
printf 'compression=zstd\ndedup=on\n' >"$nas"
"$LG_BIN/lgctl" --data-dir "$T/d3" resume paused || fail "lgctl resume failed"
wait "$run_pid" || { cat "$T/p.log" >&2; fail "the resumed campaign failed"; }
expect_eq "after resume" "$(q "SELECT string_agg(r.config_ordinal || ':' || r.state, ' '
    ORDER BY r.ordinal) FROM lg.run r JOIN lg.campaign c USING (campaign_id)
    WHERE c.name = 'paused'")" "1:done 1:done 2:done 2:done"
grep -q "waiting before config 2" "$T/p.log" || fail "lgctl run did not say why it waited"
expect_eq "paused: settings read back, by config" "$(q "SELECT string_agg(k.config_ordinal || ':' ||
    (k.read ->> 'compression') || ',' || (k.read ->> 'dedup') || ',' || coalesce(k.error, 'ok'), ' '
    ORDER BY k.config_ordinal) FROM lg.config_check k JOIN lg.campaign c USING (campaign_id)
    WHERE c.name = 'paused'")" "1:lz4,off,ok 2:zstd,on,ok"

# 3a. The operator resumes without setting config 2 up: the check stops the campaign before it.
sed 's/^name: paused$/name: paused-unset/' "$T/paused.yaml" >"$T/paused-unset.yaml"
printf 'compression=lz4\ndedup=off\n' >"$nas"
LG_READBACK="cat $nas" "$LG_BIN/lgctl" --data-dir "$T/d3a" run "$T/paused-unset.yaml" \
    >"$T/pu.txt" 2>"$T/pu.log" &
run_pid=$!
CLEANUP_PIDS+=("$run_pid")
for _ in $(seq 1 300); do
    st=$("$LG_BIN/lgctl" --data-dir "$T/d3a" status paused-unset 2>/dev/null || true)
    grep -q "waiting before config 2" <<<"$st" && break
    sleep 0.2
done
grep -q "waiting before config 2" <<<"$st" || fail "paused-unset did not pause before config 2: $st"
"$LG_BIN/lgctl" --data-dir "$T/d3a" resume paused-unset || fail "lgctl resume paused-unset failed"
rc=0
wait "$run_pid" || rc=$?
[ $rc -eq 1 ] || { cat "$T/pu.log" >&2; fail "resumed unset config: lgctl exit $rc, want 1"; }
msg=$(q "SELECT message FROM lg.campaign WHERE name = 'paused-unset'")
echo "message: $msg"
grep -qE '(compression reads "lz4"|dedup reads "off") where the config.s label says "(zstd|on)"' \
    <<<"$msg" || fail "paused-unset: the message does not name the mismatch"
grep -q "before config 2 .*(resumed)" <<<"$msg" || fail "paused-unset: the message does not name config 2"
expect_eq "paused-unset: runs by config and state" "$(q "SELECT string_agg(r.config_ordinal || ':' ||
    r.state, ' ' ORDER BY r.ordinal) FROM lg.run r JOIN lg.campaign c USING (campaign_id)
    WHERE c.name = 'paused-unset'")" "1:done 1:done 2:aborted 2:aborted"

# 4. pause/resume mid-config from a second lgctl, and abort.
cat >"$T/long.yaml" <<SPEC
name: long
target: "null"
profiles: [{name: 4k-rand, sweep: [1T1Q, 1T2Q, 1T4Q, 1T8Q]}]
runtime: 1s
precondition: none
SPEC
"$LG_BIN/lgctl" --data-dir "$T/d4" run "$T/long.yaml" >"$T/l.txt" 2>"$T/l.log" &
run_pid=$!
CLEANUP_PIDS+=("$run_pid")
for _ in $(seq 1 100); do
    "$LG_BIN/lgctl" --data-dir "$T/d4" pause long >/dev/null 2>&1 && break
    sleep 0.1
done
for _ in $(seq 1 100); do
    st=$("$LG_BIN/lgctl" --data-dir "$T/d4" status long 2>/dev/null || true)
    grep -q '": paused' <<<"$st" && break
    sleep 0.2
done
grep -q '": paused' <<<"$st" || fail "lgctl pause did not pause: $st"
done_at_pause=$(q "SELECT count(*) FROM lg.run r JOIN lg.campaign c USING (campaign_id)
    WHERE c.name = 'long' AND r.state = 'done'")
sleep 1.5
expect_eq "no run starts while paused" "$(q "SELECT count(*) FROM lg.run r JOIN lg.campaign c
    USING (campaign_id) WHERE c.name = 'long' AND r.state <> 'pending'")" "$done_at_pause"
"$LG_BIN/lgctl" --data-dir "$T/d4" abort long || fail "lgctl abort failed"
rc=0
wait "$run_pid" || rc=$?
[ $rc -eq 1 ] || fail "aborted campaign: lgctl run exit $rc, want 1"
expect_eq "aborted campaign" "$(q "SELECT state FROM lg.campaign WHERE name = 'long'")" aborted
expect_eq "its pending runs" "$(q "SELECT count(*) FROM lg.run r JOIN lg.campaign c USING
    (campaign_id) WHERE c.name = 'long' AND r.state = 'pending'")" 0
echo "PASS"
