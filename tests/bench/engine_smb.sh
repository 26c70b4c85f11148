#!/usr/bin/env bash
# engine_smb: 128 KiB sequential write then read of one file through the lgsmb fio engine (1 job,
# queue depth 1) against the same through a plain libsmbclient loop (bin/smbcopy), both on a
# private smbd on loopback, alternating which goes first. Prints MB/s of each, the ratio
# lgsmb / smbcopy (target: >= 0.8 in both directions, on the median of the rounds' ratios: the
# two runs of a round see the same machine) and the client CPU per 128 KiB call, which other
# load on the machine disturbs less than MB/s.
# Then 4 KiB random reads for SECONDS each, 1 job: lgsmb at iodepth 1 and 16, and smbcopy
# randread with 16 processes, each its own connection (what lgsmb's 16 workers are), in an order
# that turns each round, and smbcopy randread with 1 process: the same loop at depth 1. Prints IOPS
# of each, IOPS(QD16)/IOPS(QD1) (target >= 3), lgsmb QD16 / smbcopy x16 (target >= 0.8) and
# smbcopy x16 / smbcopy x1, what 16 connections gain a plain loop without fio's bookkeeping or
# lgsmb's hand-off: the ceiling of QD16/QD1 for any client of synchronous libsmbclient (one I/O
# per connection), as medians of the rounds' ratios. This runs twice:
#   loopback: smbd on 127.0.0.1, sharing the CPUs with the client. An I/O is a chain of CPU work
#     (smbd's and the client's), so queue depth can at most bring in the other CPUs.
#   lan: smbd in its own network namespace behind a veth and bridge, every byte held DELAY_US in
#     each direction by a relay (tests/bench/delayproxy.c; this kernel has no netem), so about
#     2 * DELAY_US more round trip, as to a NAS on its own box over a LAN: at queue depth 1 the
#     round trip bounds an I/O, so queue depth pays until the CPUs run out (here smbd and the
#     relay, whose wake-ups cost CPU too, still share them with the client).
# A report, not a test: it exits 0 whether the targets are met or not, and its figures are only
# comparable within a run; but a figure missing or zero in fio's JSON or in smbcopy's one line
# (MB/s and CPU seconds, or IOPS) stops it with exit 1, naming the figure.
# usage: tests/bench/engine_smb.sh [BUILD_DIR] [MIB] [ROUNDS] [PARTS] [SECONDS] [DELAY_US]
# Part lg runs lgsmb the way a review does, through lg: smbd and node_exporter in a NAS namespace,
# lg-controller with PostgreSQL, two agents in namespaces of their own, a 4 KiB random read at
# 4T4Q and a 128 KiB sequential write at 4T4Q, both agents at once, ramp 1 s, runtime SECONDS
# (at least 5). It prints per run the share of lg's per-second samples whose ios, bytes / bs and
# latency count agree within 1% (goal: 100%) and what the NAS sent or received on its network
# over the run's measured window divided by the bytes the agents moved (goal: 0.9 to 1.15), and
# the longest sample of an agent but its last (goal: at most 1.5 s; fio reports each second).
#   PARTS: seq, rand (random reads over loopback then the delayed link), rand-lo, rand-lan, lg or
#   all (default: seq and rand), or several joined by commas (seq,rand-lan); MIB is the
#   sequential size; the random file is 64 MiB; DELAY_US (default 100) is the one-way delay
#   added to the lan link. The suite runs it through engines.sh tiny: MIB 8, ROUNDS 1, PARTS
#   seq,rand-lan (rand-lo runs the same code on loopback), SECONDS 1.
set -euo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:-$src/build}" && pwd)
mib=${2:-256}
rounds=${3:-7}
parts=${4:-all}
secs=${5:-5}
delay_us=${6:-100}
do_seq=0 do_lo=0 do_lan=0 do_lg=0
for part in ${parts//,/ }; do
    case $part in
    seq) do_seq=1 ;;
    rand) do_lo=1 do_lan=1 ;;
    rand-lo) do_lo=1 ;;
    rand-lan) do_lan=1 ;;
    lg) do_lg=1 ;;
    all) do_seq=1 do_lo=1 do_lan=1 do_lg=1 ;;
    *) echo "PARTS is seq, rand, rand-lo, rand-lan, lg or all (or several, with commas), not \"$parts\"" >&2
       exit 2 ;;
    esac
done
export LG_BIN=$build/bin LG_SRC=$src
engine=$build/lib/lg/engines/lgsmb.so
[ -f "$engine" ] && [ -x "$LG_BIN/smbcopy" ] ||
    { echo "build lg with its engines first: deploy/build.sh $build" >&2; exit 1; }
command -v jq >/dev/null || { echo "jq is needed" >&2; exit 1; }
. "$src/tests/integration/lib.sh"
. "$src/tests/integration/smb.sh"
. "$src/tests/bench/figure.sh"
smb_start >/dev/null
cd "$T" # whatever fio leaves in its working folder goes with $T
url="smb://127.0.0.1:$SMB_PORT/$SMB_SHARE"
bytes=$((mib * 1024 * 1024))
calls=$((bytes / 131072))

# fio_run RW FILE: "MB/s CPU-seconds" of a 128k sequential RW of FILE through lgsmb (the job's
# own CPU over its I/O time, from fio's usr_cpu/sys_cpu).
fio_run() {
    cat >"$T/bench.fio" <<JOB
[global]
ioengine=external:$engine
credentials=$SMB_CREDS
filename=${url//:/\\:}/$2
size=$bytes
bs=128k
rw=$1
numjobs=1
iodepth=1
[bench]
JOB
    fio --output-format=json --output="$T/bench.out" "$T/bench.fio" 2>"$T/bench.log" ||
        fail "fio: $(tail -n 3 "$T/bench.log")"
    sed -n '/^{/,$p' "$T/bench.out" | jq -r --arg d "$1" '.jobs[0] |
        "\(.[$d].bw_bytes / 1e6) \((.usr_cpu + .sys_cpu) / 100 * .[$d].runtime / 1000)"' || true
}

# smbcopy, in a sanitized build without the report of libsmbclient's own lasting allocation
smbcopy() {
    LSAN_OPTIONS="suppressions=$src/tests/bench/smbcopy.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}" \
        "$LG_BIN/smbcopy" "$@"
}

# copy_run RW FILE: the same through smbcopy.
copy_run() {
    smbcopy "$1" "$url/$2" "$bytes" "$SMB_CREDS" 2>"$T/copy.log" ||
        fail "smbcopy: $(cat "$T/copy.log")"
}

cpu_re='^[^ ]+ [0-9.]+([eE][-+]?[0-9]+)?$' # "MB/s CPU-seconds"
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

if [ "$do_seq" = 1 ]; then
echo "128 KiB sequential, $mib MiB, 1 job, queue depth 1, smbd on 127.0.0.1:$SMB_PORT," \
    "$(nproc) CPUs, load $(cut -d' ' -f1 /proc/loadavg)"
printf '%-5s %-5s %12s %12s %7s %16s %16s\n' round dir "lgsmb MB/s" "smbcopy MB/s" ratio \
    "lgsmb CPU/call" "smbcopy CPU/call"
for i in $(seq 1 "$rounds"); do
    rm -f "$SMB_SHARE_DIR/fio.bin" "$SMB_SHARE_DIR/copy.bin"
    for d in write read; do
        if [ $((i % 2)) = 1 ]; then
            f=$(fio_run "$d" fio.bin)
            c=$(copy_run "$d" copy.bin)
        else
            c=$(copy_run "$d" copy.bin)
            f=$(fio_run "$d" fio.bin)
        fi
        # "MB/s CPU-seconds" each: MB/s must be there and above 0, the CPU seconds a number
        need_figure engine_smb "round $i: lgsmb $d MB/s (.jobs[0].$d.bw_bytes of fio's JSON)" "${f%% *}" "$T/bench.out"
        need_figure engine_smb "round $i: smbcopy $d MB/s" "${c%% *}" "$T/copy.log"
        [[ $f =~ $cpu_re && $c =~ $cpu_re ]] ||
            fail "engine_smb: round $i: $d: no CPU seconds in \"$f\" (lgsmb) or \"$c\" (smbcopy)"
        echo "$d $f $c" >>"$T/rounds"
        awk -v i="$i" -v d="$d" -v n="$calls" -v f="$f" -v c="$c" 'BEGIN {
            split(f, F, " "); split(c, C, " ")
            printf "%-5s %-5s %12.1f %12.1f %7.3f %13.1f us %13.1f us\n", i, d, F[1], C[1],
                F[1] / C[1], F[2] / n * 1e6, C[2] / n * 1e6 }'
    done
done
for d in write read; do
    f=$(awk -v d="$d" '$1 == d { print $2 }' "$T/rounds" | median)
    c=$(awk -v d="$d" '$1 == d { print $4 }' "$T/rounds" | median)
    r=$(awk -v d="$d" '$1 == d { print $2 / $4 }' "$T/rounds" | median)
    fc=$(awk -v d="$d" -v n="$calls" '$1 == d { print $3 / n * 1e6 }' "$T/rounds" | median)
    cc=$(awk -v d="$d" -v n="$calls" '$1 == d { print $5 / n * 1e6 }' "$T/rounds" | median)
    ok=$(awk -v r="$r" 'BEGIN { print (r >= 0.8) ? "ok" : "BELOW TARGET" }')
    printf 'engine_smb %-5s: lgsmb %.1f MB/s, smbcopy %.1f MB/s (medians); lgsmb/smbcopy %.3f (median of %d rounds; target >= 0.8: %s); client CPU per call %.1f us vs %.1f us\n' \
        "$d" "$f" "$c" "$r" "$rounds" "$ok" "$fc" "$cc"
done
fi
[ "$do_lo" = 1 ] || [ "$do_lan" = 1 ] || [ "$do_lg" = 1 ] || exit 0

# --- 4 KiB random reads: queue depth ----------------------------------------------------------
rand_bytes=$((64 * 1024 * 1024))

# fio_rand QD: read IOPS of 4k random reads of $url/rand.bin through lgsmb at iodepth QD.
fio_rand() {
    cat >"$T/rand.fio" <<JOB
[global]
ioengine=external:$engine
credentials=$SMB_CREDS
filename=${url//:/\\:}/rand.bin
size=$rand_bytes
bs=4k
rw=randread
numjobs=1
iodepth=$1
time_based=1
runtime=$secs
[rand]
JOB
    fio --output-format=json --output="$T/rand.out" "$T/rand.fio" 2>"$T/rand.log" ||
        fail "fio: $(tail -n 3 "$T/rand.log")"
    sed -n '/^{/,$p' "$T/rand.out" | jq -r '.jobs[0].read.iops' || true
}

# rand_mode MODE WHERE: the rounds of QD1, QD16 and smbcopy x16 against $url, a table of them,
# and a line "MODE QD1 QD16 LOOP QD16/QD1 QD16/LOOP LOOP1 LOOP/LOOP1" (medians) in $T/summary.
rand_mode() {
    local mode=$1 where=$2 i k q1 q16 c16 c1 rq rc rl
    [ -f "$SMB_SHARE_DIR/rand.bin" ] ||
        smbcopy write "$url/rand.bin" "$rand_bytes" "$SMB_CREDS" >/dev/null \
            2>"$T/copy.log" || fail "smbcopy write rand.bin: $(cat "$T/copy.log")"
    rm -f "$T/rand-rounds"
    echo
    echo "$mode: 4 KiB random reads of a 64 MiB file, 1 job, ${secs} s each, $where," \
        "$(nproc) CPUs, load $(cut -d' ' -f1 /proc/loadavg)"
    printf '%-5s %12s %12s %14s %9s %14s %13s %10s\n' round "lgsmb QD1" "lgsmb QD16" \
        "smbcopy x16" "QD16/QD1" "QD16/smbcopy" "smbcopy x1" "x16/x1"
    for i in $(seq 1 "$rounds"); do
        # four runs in a turning order, so that none always runs first
        for k in 0 1 2 3; do
            case $(((i + k) % 4)) in
            0) q1=$(fio_rand 1) ;;
            1) q16=$(fio_rand 16) ;;
            2) c16=$(copy_rand 16) ;;
            3) c1=$(copy_rand 1) ;;
            esac
        done
        need_figure engine_smb "$mode round $i: lgsmb QD1 IOPS (.jobs[0].read.iops of fio's JSON)" "$q1"
        need_figure engine_smb "$mode round $i: lgsmb QD16 IOPS (.jobs[0].read.iops of fio's JSON)" "$q16"
        need_figure engine_smb "$mode round $i: smbcopy x16 IOPS" "$c16"
        need_figure engine_smb "$mode round $i: smbcopy x1 IOPS" "$c1"
        echo "$q1 $q16 $c16 $c1" >>"$T/rand-rounds"
        awk -v i="$i" -v a="$q1" -v b="$q16" -v c="$c16" -v d="$c1" 'BEGIN {
            printf "%-5s %12.0f %12.0f %14.0f %9.2f %14.3f %13.0f %10.2f\n", i, a, b, c, b / a,
                b / c, d, c / d }'
    done
    q1=$(awk '{ print $1 }' "$T/rand-rounds" | median)
    q16=$(awk '{ print $2 }' "$T/rand-rounds" | median)
    c16=$(awk '{ print $3 }' "$T/rand-rounds" | median)
    c1=$(awk '{ print $4 }' "$T/rand-rounds" | median)
    rq=$(awk '{ print $2 / $1 }' "$T/rand-rounds" | median)
    rc=$(awk '{ print $2 / $3 }' "$T/rand-rounds" | median)
    rl=$(awk '{ print $3 / $4 }' "$T/rand-rounds" | median)
    echo "$mode $q1 $q16 $c16 $rq $rc $c1 $rl" >>"$T/summary"
}

# copy_rand N: IOPS of smbcopy randread with N processes (connections) against $url/rand.bin.
copy_rand() {
    smbcopy randread "$url/rand.bin" "$rand_bytes" "$SMB_CREDS" "$1" "$secs" \
        2>"$T/copy.log" || fail "smbcopy randread x$1: $(cat "$T/copy.log")"
}

if [ "$do_lo" = 1 ]; then
    url="smb://127.0.0.1:$SMB_PORT/$SMB_SHARE"
    rand_mode loopback "smbd on 127.0.0.1:$SMB_PORT"
fi

if [ "$do_lan" = 1 ]; then
    # The NAS: smbd in its own namespace at $NAS_IP, reached through the relay in front of it.
    smb_stop
    [ -x "$LG_BIN/delayproxy" ] || fail "no $LG_BIN/delayproxy: build the tree first"
    make_hosts 1 b 237
    NAS_NS=${HOST_NS[1]}
    NAS_IP=$HOSTS_NET.2
    SMB_ADDR=$NAS_IP SMB_NETNS=$NAS_NS smb_start >/dev/null
    relay_port=$(smb_free_port $((SMB_PORT + 1)))
    # (ip netns exec execs the relay: $! is its PID, stopped by the trap)
    ip netns exec "$NAS_NS" "$LG_BIN/delayproxy" "$NAS_IP" "$relay_port" "$NAS_IP" "$SMB_PORT" \
        "$delay_us" >"$T/relay.out" 2>"$T/relay.log" &
    CLEANUP_PIDS+=("$!")
    wait_line "$T/relay.out" '^ready' 10 || fail "delayproxy: $(cat "$T/relay.log")"
    url="smb://$NAS_IP:$relay_port/$SMB_SHARE"
    rand_mode lan "smbd on $NAS_IP in netns $NAS_NS (veth + bridge) through a relay adding ${delay_us} us each way"
fi

if [ "$do_lo" = 1 ] || [ "$do_lan" = 1 ]; then
echo
echo "engine_smb randread, medians of $rounds rounds (targets: QD16/QD1 >= 3, QD16/smbcopy >= 0.8;"
echo "x16/x1: the plain loop's own gain from 16 connections, the most QD16/QD1 can be here)"
printf '%-9s %11s %11s %13s %9s %13s %12s %8s\n' mode "QD1 IOPS" "QD16 IOPS" "smbcopy x16" \
    QD16/QD1 QD16/smbcopy "smbcopy x1" x16/x1
awk '{ printf "%-9s %11.0f %11.0f %13.0f %9.2f %13.3f %12.0f %8.2f\n", $1, $2, $3, $4, $5, $6,
    $7, $8 }' "$T/summary"

fi
[ "$do_lg" = 1 ] || exit 0
# ---- through lg: samples that agree, and the NAS's bytes over the measured window ----
smb_stop
. "$src/tests/integration/nasrig.sh"
nas_rig 2 bl 238
lg_secs=$((secs < 5 ? 5 : secs))
cat >"$T/lgbench.yaml" <<SPEC
name: lgbench
target: "$SMB_BASE/lg/bench.dat"
protocol: smb
agents: [h2, h3]
size: 64M
runtime: ${lg_secs}s
ramp: 1s
precondition: none
threads: 4
qd: 4
profiles:
  - {name: 4k-rand-read, bs: 4k, pattern: random, read: 100}
  - {name: 128k-seq-write, bs: 128k, pattern: sequential, read: 0}
telemetry:
  - {name: nas, url: "$NAS_METRICS", interval: 500ms, timeout: 400ms}
SPEC
submit_file lgbench
wait_campaign lgbench
st=$(q "SELECT state FROM lg.campaign WHERE name = 'lgbench'")
[ "$st" = done ] || fail "engine_smb lg: the campaign ended $st: $(q "SELECT string_agg(error, '; ')
    FROM lg.run WHERE error IS NOT NULL")"
echo
echo "engine_smb through lg: 2 agents x 4T4Q over lgsmb, smbd in netns $NAS_NS, runtime ${lg_secs} s"
while IFS='|' read -r run prof; do
    read -r pct n <<<"$(sample_agree_pct "$run")"
    ratio=$(nas_bytes_ratio "$run")
    [[ $pct =~ ^[0-9.]+$ ]] || fail "engine_smb lg $prof: no samples with I/O (\"$pct\")"
    need_figure engine_smb "lg $prof: NAS bytes / agents' bytes" "$ratio" "$T/controller.log"
    # the longest sample of an agent but its last (fio's report each second; issue 41 part 2)
    longest=$(q "SELECT coalesce(max(interval_ms), 0) FROM (SELECT s.interval_ms,
                 s.seq < max(s.seq) OVER (PARTITION BY s.agent_id) AS inner_one
                 FROM lg.sample s WHERE s.run_id = $run) x WHERE inner_one")
    echo "engine_smb lg $prof: samples' lengths (ms) by agent: $(q "SELECT string_agg(x.a || ': ' ||
        x.l, '; ') FROM (SELECT a.name AS a, string_agg(s.interval_ms::text, ' ' ORDER BY s.seq) AS l
        FROM (SELECT DISTINCT run_id, agent_id, seq, interval_ms FROM lg.sample) s
        JOIN lg.agent a USING (agent_id) WHERE s.run_id = $run GROUP BY a.name) x")"
    printf 'engine_smb lg %-15s: samples whose ios, bytes/bs and lat_n agree within 1%%: %s%% of %s (goal 100%%); NAS bytes over the window / agents'"'"' bytes %s (goal 0.9 .. 1.15); start skew %s us; longest sample but the last %s ms (goal <= 1500)\n' \
        "$prof" "$pct" "$n" "$ratio" "$(q "SELECT start_skew_us FROM lg.run WHERE run_id = $run")" "$longest"
    # the samples that do not agree, if any: agent, seq, length, ios, bytes / bs, lat_n
    off=$(q "SELECT string_agg(a.name || ' #' || s.seq || ' ' || s.interval_ms || ' ms: ios ' || s.ios ||
                 ', bytes/bs ' || round(s.bytes::numeric / r.bs, 1) || ', lat_n ' || s.lat_n, '; '
                 ORDER BY a.name, s.seq)
             FROM lg.sample s JOIN lg.run r USING (run_id) JOIN lg.agent a USING (agent_id)
             WHERE s.run_id = $run AND s.ios > 0 AND NOT (abs(s.bytes::float8 / r.bs - s.ios) <= 0.01 * s.ios
                   AND abs(s.lat_n - s.ios) <= 0.01 * s.ios)")
    [ -z "$off" ] || echo "engine_smb lg $prof: samples that do not agree: $off"
done < <(q "SELECT r.run_id, r.profile FROM lg.run r JOIN lg.campaign c USING (campaign_id)
            WHERE c.name = 'lgbench' ORDER BY r.run_id")
