#!/usr/bin/env bash
# it_agent_partition: an agent behind a network partition rejoins within 15 s of the link's
# return (issue 43 part 6: after a 120 s partition one took 105 s: its TCP connection retransmitted
# into the dead link with a backoff that had grown to a minute and more). The agent runs in a
# network namespace of its own, the controller on the bridge's address; the agent's link leaves
# the bridge for PART s (15 by default): its
# packets go out and vanish, as in a switch that failed (a link down would tell both ends'
# stacks, which then drop locally and resend at once when it is back). Both sides now ping
# under ZeroMQ (ZMTP heartbeats): a connection that stops answering is dropped and made anew,
# each attempt bounded, and the controller hands the agent's id over to the new connection.
. "$(dirname "$0")/lib.sh"
PART=${PART:-15}
pg_start
lg_keys p1
"$LG_BIN/lgctl" db migrate >/dev/null
make_hosts 1 ap 233
start_controller --tcp "$HOSTS_NET.1" --agent-timeout-ms 3000
start_agent p1 --wrap "ip netns exec ${HOST_NS[1]}"
link="app$$-1" br="apbr$$" # the bridge's end of the agent's link, the bridge (make_hosts)
n0=$(grep -c 'agent "p1" registered' "$T/controller.log" || true)
ip link set "$link" nomaster
echo "the agent's link is cut off for $PART s"
sleep "$PART"
ip link set "$link" master "$br"
up=$(date +%s%N)
echo "the link is up again"
for _ in $(seq 1 600); do
    [ "$(grep -c 'agent "p1" registered' "$T/controller.log" || true)" -gt "$n0" ] && break
    sleep 0.1
done
[ "$(grep -c 'agent "p1" registered' "$T/controller.log" || true)" -gt "$n0" ] ||
    fail "the agent did not rejoin within 60 s of the link's return"
ms=$((($(date +%s%N) - up) / 1000000))
echo "the agent rejoined $ms ms after the link came back"
[ "$ms" -le 15000 ] || fail "the agent took $ms ms to rejoin (at most 15 s)"
grep -q 'the controller is lost' "$T/p1.log" || fail "the agent never took the controller for lost"
grep -v "^ " "$T/p1.log" | tail -n 8
echo "PASS"
