#!/usr/bin/env bash
# it_plan: "lgctl plan" on a review campaign (2 SUT configs x 2 protocols x the four profiles at
# 16T16Q plus the 8k-7030 sweep, with steady-state preconditioning) prints the run matrix, the
# exact run count and the longest duration, computed here independently; it runs nothing.
. "$(dirname "$0")/lib.sh"
cat >"$T/review.yaml" <<'SPEC'
name: review
configs:
  - labels: {build: a, pool: raidz1, compression: lz4, dedup: "off"}
    targets:
      - {protocol: smb, target: /mnt/smb/lg.bin}
      - {protocol: iscsi, target: /mnt/iscsi/lg.bin}
  - labels: {build: a, pool: raidz1, compression: zstd, dedup: "on"}
    targets:
      - {protocol: smb, target: /mnt/smb/lg.bin}
      - {protocol: iscsi, target: /mnt/iscsi/lg.bin}
profiles: [4k-rand, 8k-7030, 8k-seq, 128k-seq]
ramp: 10s
runtime: 60s
precondition: {mode: steady-state, round: 60s, max: 30m}
SPEC
"$LG_BIN/lgctl" plan "$T/review.yaml" >"$T/plan.txt" || fail "lgctl plan failed"
head -n 8 "$T/plan.txt"; echo ...; tail -n 2 "$T/plan.txt"

# Independently: workloads per target = 4k-rand r+w, 8k-7030 mixed, 8k-seq r+w, 128k-seq r+w;
# load points: 1 each, 8k-7030 the 4x4 grid; one preconditioning run per workload.
configs=2 protocols=2
measured_per_target=$(( 2*1 + 1*16 + 2*1 + 2*1 ))
precond_per_target=$(( 2 + 1 + 2 + 2 ))
measured=$(( configs * protocols * measured_per_target ))
precond=$(( configs * protocols * precond_per_target ))
total=$(( measured + precond ))
secs=$(( measured * (10 + 60) + precond * 1800 ))
want=$(printf '%d runs (%d measured, %d preconditioning); at most %dh%02dm%02ds of I/O' \
    $total $measured $precond $((secs / 3600)) $((secs / 60 % 60)) $((secs % 60)))
expect_eq "summary" "$(tail -n 1 "$T/plan.txt")" "$want"
expect_eq "rows" "$(grep -cE '^[0-9]+ +[0-9]+ ' "$T/plan.txt")" $total
expect_eq "8k-7030 load points per target" \
    "$(grep -E '^[0-9]+ +1 +[^ ]+ +smb +measure +8k-7030 ' "$T/plan.txt" | awk '{print $8}' | tr '\n' ' ')" \
    "2T2Q 2T4Q 2T8Q 2T16Q 4T2Q 4T4Q 4T8Q 4T16Q 8T2Q 8T4Q 8T8Q 8T16Q 16T2Q 16T4Q 16T8Q 16T16Q "
expect_eq "gates" "$(grep -c -- 'gate before it: pause for lgctl resume' "$T/plan.txt")" 1
# before config 1 (set up before the submit) no pause: the read-back check only (034_gate_resumed)
grep -qE -- '^1 +1 .* gate before it: the controller.s --readback check, no pause' "$T/plan.txt" ||
    fail "the first run's gate is not the read-back check alone"
grep -qE -- '^[0-9]+ +2 +build=a,pool=raidz1,compression=zstd,dedup=on .* gate before it: pause for lgctl resume' \
    "$T/plan.txt" || fail "the gate is not on the first run of config 2"
# Each measured run of a workload comes after its preconditioning at 16T16Q.
awk '$5 == "steady-state" && $8 != "16T16Q" { bad = 1 } END { exit bad }' "$T/plan.txt" ||
    fail "preconditioning not at 16T16Q"
# What the repeats buy: one repeat of 60 s, so the interval of a figure is its run's 10 batch
# means of 6 s (it_compare_noise checks the figures for several repeats against scipy).
grep -q "^precision: repeats 1: a figure's 95% CI comes from 10 batch means (6 s each) of its run's" \
    "$T/plan.txt" || { grep '^precision' "$T/plan.txt"; fail "no precision line"; }
# SMB sessions: lgsmb opens one per outstanding I/O; the plan says how many, and warns past 64
cat >"$T/smb.yaml" <<'SPEC'
name: smb
target: smb://nas/share/lg.dat
profiles: [{name: r, bs: 4k, pattern: random, read: 100, sweep: [2T2Q, 16T16Q]}]
runtime: 5s
precondition: none
agents: [{name: a1}, {name: a2}]
SPEC
"$LG_BIN/lgctl" plan "$T/smb.yaml" >"$T/smb.out" 2>"$T/smb.err" || fail "plan smb: $(cat "$T/smb.err")"
grep -q "^SMB sessions: lgsmb opens one per outstanding I/O, up to 256 per agent at once (16T16Q) and 512 over" \
    "$T/smb.out" || fail "no SMB sessions line: $(cat "$T/smb.out")"
grep -q "warning: 512 SMB sessions at once are more than a NAS is likely to take.*mount:" "$T/smb.err" ||
    fail "no warning for 512 sessions: $(cat "$T/smb.err")"
sed -i 's/sweep: \[2T2Q, 16T16Q\]/sweep: [2T2Q, 4T4Q]/' "$T/smb.yaml"
"$LG_BIN/lgctl" plan "$T/smb.yaml" >"$T/smb.out" 2>"$T/smb.err" || fail "plan smb 4T4Q"
grep -q "up to 16 per agent at once (4T4Q) and 32 over" "$T/smb.out" || fail "$(cat "$T/smb.out")"
[ ! -s "$T/smb.err" ] || fail "a warning for 32 sessions: $(cat "$T/smb.err")"
echo "ok: plan says how many SMB sessions lgsmb opens, and warns past 64"
# A broken spec is refused the same way as by lgctl run.
printf 'name: x\ntarget: /x\nprofiles: [4k-rand]\nprecondition: {round: 60s, max: 2m}\n' >"$T/bad.yaml"
rc=0
"$LG_BIN/lgctl" plan "$T/bad.yaml" 2>"$T/bad.err" || rc=$?
expect_eq "exit code for a broken plan" $rc 2
grep -q "bad.yaml:4:.*precondition" "$T/bad.err" || { cat "$T/bad.err"; fail "no file:line:key"; }
echo "PASS"
