#!/usr/bin/env bash
# it_submit: submissions are idempotent and never block the controller's loop.
#  1. The same submit id twice is one campaign (the second submit answers with the first's id);
#     without one, lgctl picks its own per submission.
#  2. A large campaign (20,000 runs) is parsed and stored off the loop: while it is being stored
#     the controller answers other requests at once.
#  3. What the database could not store is refused by the parser, in plan and submit alike, with
#     file:line:key: a 128,020-run campaign.
. "$(dirname "$0")/lib.sh"
pg_start
lg_keys
"$LG_BIN/lgctl" db migrate >/dev/null
start_controller
C=(--controller "ipc://$T/ctl.sock")
cat >"$T/small.yaml" <<'SPEC'
name: small
target: "null"
profiles: [{name: r, bs: 4k, pattern: random, read: 100, sweep: [1T1Q]}]
runtime: 1s
precondition: none
SPEC
first=$("$LG_BIN/lgctl" "${C[@]}" submit "$T/small.yaml" --submit-id retry-7d1 2>"$T/s1.err") ||
    { cat "$T/s1.err"; fail "first submit"; }
second=$("$LG_BIN/lgctl" "${C[@]}" submit "$T/small.yaml" --submit-id retry-7d1 2>"$T/s2.err") ||
    { cat "$T/s2.err"; fail "second submit"; }
expect_eq "the same submit id twice" "$second" "$first"
grep -q "already submitted as campaign" "$T/s2.err" || fail "the second submit does not say so"
expect_eq "campaigns after two submits with one id" "$(q "SELECT count(*) FROM lg.campaign")" 1
"$LG_BIN/lgctl" "${C[@]}" submit "$T/small.yaml" >/dev/null || fail "a submit without an id"
expect_eq "campaigns after a submit without an id" "$(q "SELECT count(*) FROM lg.campaign")" 2
expect_eq "submit ids stored" "$(q "SELECT count(DISTINCT submit_id) FROM lg.campaign")" 2
echo "ok: a submit id makes one campaign however often it is submitted"

# 4 profiles x 64 load points x 78 repeats (+ 4 preconditioning runs) = 19,972 runs
{
    echo "name: large"
    echo 'target: "null"'
    echo "repeats: 78"
    echo "runtime: 1s"
    echo "profiles:"
    for p in 1 2 3 4; do
        echo "  - {name: p$p, bs: 4k, pattern: random, read: 100, sweep: {threads: [1, 2, 3, 4, 5, 6, 7, 8], qd: [1, 2, 3, 4, 5, 6, 7, 8]}}"
    done
} >"$T/large.yaml"
"$LG_BIN/lgctl" plan "$T/large.yaml" >"$T/plan.out" 2>&1 || { cat "$T/plan.out"; fail "plan large"; }
t0=$(date +%s%N)
"$LG_BIN/lgctl" "${C[@]}" submit "$T/large.yaml" >"$T/large.out" 2>&1 &
SPID=$!
sleep 0.3
worst=0
while kill -0 "$SPID" 2>/dev/null; do
    a0=$(date +%s%N)
    "$LG_BIN/lgctl" "${C[@]}" agents >/dev/null || fail "the controller did not answer during the submit"
    ms=$(( ($(date +%s%N) - a0) / 1000000 ))
    [ $ms -gt $worst ] && worst=$ms
    sleep 0.1
done
wait "$SPID" || { cat "$T/large.out"; fail "submit large"; }
took=$(( ($(date +%s%N) - t0) / 1000000 ))
expect_eq "runs of the large campaign" "$(q "SELECT count(*) FROM lg.run r JOIN lg.campaign c
    USING (campaign_id) WHERE c.name = 'large'")" 19972
echo "ok: 19,972 runs stored in $took ms; meanwhile lgctl agents answered within $worst ms (lgctl's own start included)"
[ $worst -lt 3000 ] || fail "the controller took $worst ms to answer while storing a submission"

{
    echo "name: huge"
    echo 'target: "null"'
    echo "repeats: 100"
    echo "runtime: 1s"
    echo "profiles:"
    for p in $(seq 1 20); do
        echo "  - {name: p$p, bs: 4k, pattern: random, read: 100, sweep: {threads: [1, 2, 3, 4, 5, 6, 7, 8], qd: [1, 2, 3, 4, 5, 6, 7, 8]}}"
    done
} >"$T/huge.yaml"
for cmd in plan submit; do
    set +e
    if [ $cmd = plan ]; then
        "$LG_BIN/lgctl" plan "$T/huge.yaml" >"$T/huge.out" 2>&1
    else
        "$LG_BIN/lgctl" "${C[@]}" submit "$T/huge.yaml" >"$T/huge.out" 2>&1
    fi
    rc=$?
    set -e
    [ $rc -eq 2 ] && grep -q 'huge.yaml:5:1: key "profiles": the campaign has 128020 runs' "$T/huge.out" ||
        { cat "$T/huge.out"; fail "$cmd of a 128,020-run campaign: exit $rc"; }
    echo "ok: $cmd refuses it: $(head -n 1 "$T/huge.out")"
done
expect_eq "campaigns named huge" "$(q "SELECT count(*) FROM lg.campaign WHERE name = 'huge'")" 0
