#!/usr/bin/env bash
# it_db_partition: PostgreSQL on a host of its own (a network namespace), cut off from the
# controller mid-run, across the run's end (issue 32). Before, the controller's libpq calls waited
# on the silent link: it logged nothing, lgctl status timed out blaming the controller, and a run
# both agents had finished ended "failed" without a merged result.
#   1. The link is down LG_PARTITION_S seconds (default 25; the issue's 120: ctest -L soak),
#      longer than the controller's --db-timeout 10, from 5 s into a 10 s run of two agents.
#   2. Meanwhile the loop answers a probe agent's clock Pings (every 20 ms): p99 at most 50 ms,
#      no silence; lgctl status answers within 5 s naming the database; the controller says the
#      database stopped answering and, once the link is back, that it is back.
#   3. The run ends "done" with its merged result; every sample stored once, no gap; the
#      controller's RSS grows by less than 32 MB over the fault.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/dbnet.sh"
PARTITION_S=${LG_PARTITION_S:-25}
lg_keys a1 a2
dbnet_setup dp 238
start_controller --database "$DB_URL" --db-timeout 10
start_agents
spec cut 10
submit_file cut
wait_samples cut 2
probe_report >/dev/null # the Pongs of the run's start are not the baseline's
sleep 3
read -r _ base _ _ <<<"$(probe_report)"
rss0=$(rss_kb "$CTL")

# ---- 1 and 2: the link down across the run's end ----
link_down
t0=$(date +%s)
echo "the database's link is down (for ${PARTITION_S} s)"
sleep 12 # past the 10 s deadline of a statement that was under way
check_status cut "with the database cut off"
wait_line "$T/controller.log" "the database is unreachable" $((PARTITION_S - 12 > 1 ? PARTITION_S - 12 : 1)) ||
    fail "the controller did not say the database was unreachable: $(tail -n 20 "$T/controller.log")"
left=$((PARTITION_S - ($(date +%s) - t0)))
[ "$left" -gt 0 ] && sleep "$left"
pongs=$(probe_report)
rss1=$(rss_kb "$CTL")
link_up
t_up=$(date +%s)
echo "the link is up again after $((t_up - t0)) s"
check_pongs "during the partition" "$base" "$pongs"

# ---- 3. the run ends as it really did ----
check_campaign cut
echo "back: $(( $(date +%s) - t_up )) s after the link came up"
grep -E "did not answer within 10 s|did not take .* within 10 s|is unreachable" "$T/controller.log" | head -n 3 | sed 's/^/  /'
grep -q "the database is back after" "$T/controller.log" || fail "no 'database is back' logged"
grep -E "is back after|takes samples again" "$T/controller.log" | sed 's/^/  /'
late=$({ grep -o "the event loop was busy for [0-9]* ms" "$T/controller.log" || true; } |
       awk '{ if ($7 > m) m = $7 } END { print m + 0 }')
echo "the controller's loop was busy for at most $late ms at a time (as it logs ticks late by 40 ms)"
rss2=$(rss_kb "$CTL")
echo "controller RSS: $((rss0 / 1024)) MB before, $((rss1 / 1024)) MB at the end of the partition, $((rss2 / 1024)) MB after"
[ $((rss1 - rss0)) -lt 32768 ] && [ $((rss2 - rss0)) -lt 32768 ] ||
    fail "the controller's RSS grew by more than 32 MB over the partition"
# and the next campaign runs as usual
spec after 2
submit_file after
check_campaign after
echo "PASS"
