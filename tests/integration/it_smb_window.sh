#!/usr/bin/env bash
# it_smb_window: the measured window of an SMB run is when the NAS served the run's I/O (issue
# 41 part 3). A NAS host (a network namespace) serves a share with smbd and runs Debian's
# prometheus-node-exporter; two load hosts (namespaces of their own) each run an agent whose
# lgsmb jobs log in 4 x 8 sessions before any I/O. For a 4 KiB random read and a 128 KiB
# sequential write, both agents at once:
#   1. each agent reports when its measured I/O began and ended (lg.run_agent.io_start_us,
#      io_end_us): the span is at least the runtime (more when its jobs began apart), after fio
#      started and ending by the agent's last sample;
#   2. lg.v_run_window runs from the first agent's start to the last one's end, and the run's
#      start_skew_us is the spread of the agents' first I/Os (behind the start gate: under 250 ms);
#   3. what the NAS sent (read) or received (write) on its network over the scrapes the window
#      counts (lg.v_sut_sample, 500 ms apart) is 0.9 to 1.15 of the bytes the agents moved. The
#      old window (fio's start plus the ramp) held the logins: 0.27 to 0.67, and 0.0 once.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/smb.sh"
. "$(dirname "$0")/nasrig.sh"
nas_rig 2 sw 237

cat >"$T/win.yaml" <<SPEC
name: win
target: "$SMB_BASE/lg/win.dat"
protocol: smb
agents: [h2, h3]
size: 64M
runtime: 5s
ramp: 1s
precondition: none
threads: 4
qd: 8
profiles:
  - {name: r4k, bs: 4k, pattern: random, read: 100}
  - {name: w128k, bs: 128k, pattern: sequential, read: 0}
telemetry:
  - {name: nas, url: "$NAS_METRICS", interval: 500ms, timeout: 400ms}
SPEC
submit_file win
wait_campaign win
expect_eq "campaign win" "$(q "SELECT state FROM lg.campaign WHERE name = 'win'")" done

for prof in r4k w128k; do
    RUN=$(q "SELECT r.run_id FROM lg.run r JOIN lg.campaign c USING (campaign_id)
             WHERE c.name = 'win' AND r.profile = '$prof'")
    [ -n "$RUN" ] || fail "no run of $prof"
    # 1. each agent's window: the runtime long, inside its samples (t_ms is the controller's
    # clock as the agent knows it, like io_*_us)
    q "SELECT a.name, ra.started_us, ra.io_start_us, ra.io_end_us,
              (SELECT min(s.t_ms - s.interval_ms) FROM lg.sample s
               WHERE s.run_id = ra.run_id AND s.agent_id = ra.agent_id),
              (SELECT max(s.t_ms) FROM lg.sample s
               WHERE s.run_id = ra.run_id AND s.agent_id = ra.agent_id)
       FROM lg.run_agent ra JOIN lg.agent a USING (agent_id) WHERE ra.run_id = $RUN
       ORDER BY a.name" >"$T/agents.$prof"
    [ "$(wc -l <"$T/agents.$prof")" = 2 ] || fail "$prof: not two agents: $(cat "$T/agents.$prof")"
    q "SELECT a.name, s.seq, s.t_ms, s.interval_ms, s.ios FROM lg.sample s JOIN lg.agent a
       USING (agent_id) WHERE s.run_id = $RUN ORDER BY 1, 2" | tr '\n' ' ' | sed 's/^/samples: /'
    echo
    while IFS='|' read -r name st s e s0 s1; do
        [ -n "$s" ] && [ -n "$e" ] || fail "$prof: agent $name reported no measured window"
        # samples are in the agent's clock, io_*_us in the controller's: the agent's offset
        off=$(sed -n "s/.*run $RUN started.*(clock offset \(-\{0,1\}[0-9]*\) us).*/\1/p" \
            "$T/$name.log" | tail -n 1)
        [ -n "$off" ] || fail "$prof: agent $name did not log its clock offset"
        s0=$((s0 + off / 1000)) s1=$((s1 + off / 1000))
        echo "$prof $name: clock offset $off us"
        echo "$prof $name: fio started $st, I/O $s .. $e us ($(( (e - s) / 1000 )) ms; login and" \
            "ramp $(( (s - st) / 1000 )) ms), samples $s0 .. $s1 ms"
        # (the first sample's start is an estimate of its own: fio's runtime at a report that may
        # have waited for a job's answer; the window takes the earliest over all reports)
        awk -v st="$st" -v s="$s" -v e="$e" -v b="$s1" 'BEGIN {
            d = (e - s) / 1e6; if (d < 4.5) exit 1
            if (s < st || e / 1000 > b + 150) exit 1 }' ||
            fail "$prof: agent $name's window $s .. $e is under 4.5 s, or begins before fio" \
                "($st) or ends after its last sample ($s1 ms)"
    done <"$T/agents.$prof"
    # the first sample closes a second past the ramp's planned end: each agent asked fio for a
    # report then, from its first job (fio's own first report comes a second past its *last*
    # job's ramp end)
    for name in h2 h3; do
        grep -q "run $RUN: its first job asked fio for its first report after the ramp" \
            "$T/$name.log" || fail "$prof: agent $name's fio was not asked for its first report" \
            "after the ramp"
    done
    # 2. the run's window and skew
    expect_eq "$prof window" "$(q "SELECT w.w_start = to_timestamp(min(ra.io_start_us) / 1e6)
            AND w.w_end = to_timestamp(max(ra.io_end_us) / 1e6)
        FROM lg.v_run_window w JOIN lg.run_agent ra USING (run_id)
        WHERE w.run_id = $RUN GROUP BY w.w_start, w.w_end")" t
    # the agents' first I/Os (the engines' own instants, behind the start gate) within 250 ms
    expect_eq "$prof skew" "$(q "SELECT r.start_skew_us = (SELECT max(started_us) - min(started_us)
        FROM lg.run_agent WHERE run_id = $RUN) AND r.start_skew_us < 250000
        FROM lg.run r WHERE r.run_id = $RUN")" t
    # 3. the NAS's network bytes over the scrapes the window counts, against the agents' bytes
    RATIO=$(nas_bytes_ratio "$RUN")
    [ -n "$RATIO" ] || fail "$prof: no NAS bytes or no agents' bytes"
    echo "$prof: the NAS's bytes over the window / the agents': $RATIO" \
        "(skew $(q "SELECT start_skew_us FROM lg.run WHERE run_id = $RUN") us)"
    awk -v r="$RATIO" 'BEGIN { exit !(r >= 0.9 && r <= 1.15) }' ||
        fail "$prof: the NAS's bytes over the window are $RATIO of the agents' (want 0.9 .. 1.15)"
done
echo "PASS"
