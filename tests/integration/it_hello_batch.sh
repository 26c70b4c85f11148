#!/usr/bin/env bash
# it_hello_batch: the controller stores agents' Hellos in batches (controller/hello.c), one
# statement and one commit for every Hello that arrived while the last batch was written. 300
# simulated agents register at once; one of them says it has 4,000,000,000 CPUs, which lg.agent's
# integer column refuses. Only that agent fails, with the database's words, and asks again; the
# other 299 are welcomed and stored once each, and a Hello repeated before its Welcome arrived is
# not stored again.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
pg_start
lg_keys
"$LG_BIN/lgctl" db migrate >/dev/null
AGENTS=300 BAD=hb0150

start_controller
"$LG_BIN/scale_agents" --controller "$CTL_AGENTS" --agents "$AGENTS" --prefix hb \
    --bad-hello "$BAD" --timeout 120 >"$T/sim-out.log" 2>"$T/sim.log" &
SIM=$!
CLEANUP_PIDS+=("$SIM")
ok=0
for _ in $(seq 1 600); do
    n=$(grep -c 'registered (id' "$T/controller.log" || true)
    [ "$n" -ge $((AGENTS - 1)) ] && grep -q "could not register agent \"$BAD\"" "$T/controller.log" &&
        { ok=1; break; }
    sleep 0.1
done
[ "$ok" = 1 ] || fail "$((AGENTS - 1)) agents were not registered within 60 s beside the refused one" \
    "($(grep -c 'registered (id' "$T/controller.log" || true) were)"
sleep 3 # the refused agent's next Hello, and any late repeat of the others'
expect_eq "agents stored" "$(q "SELECT count(*) FROM lg.agent WHERE name LIKE 'hb%'")" $((AGENTS - 1))
expect_eq "the refused agent stored" "$(q "SELECT count(*) FROM lg.agent WHERE name = '$BAD'")" 0
expect_eq "agents registered (once each)" \
    "$(grep 'registered (id' "$T/controller.log" | sed -nE 's/.*agent "([^"]+)" registered.*/\1/p' |
        sort | uniq -d | wc -l)" 0
grep -q "could not register agent \"$BAD\": .*out of range for type integer" "$T/controller.log" ||
    fail "the refusal does not carry the database's words: $(grep "could not register" "$T/controller.log" | head -n 1)"
expect_eq "times the refused agent asked again" \
    "$(awk -v b="$BAD" 'index($0, "could not register agent \"" b "\"") { n++ } END { print (n >= 2) }' \
        "$T/controller.log")" 1
expect_eq "other registrations refused" \
    "$(grep 'could not register' "$T/controller.log" | grep -vc "\"$BAD\"" || true)" 0
echo "PASS"
