#!/usr/bin/env bash
# it_telemetry: the NAS side of a run, from real parts. A NAS host (a network namespace) serves
# an SMB share on btrfs mounted with compress=zstd on a loop device, and runs Debian's
# prometheus-node-exporter; a load host (another namespace) runs an agent; the controller in the
# root namespace scrapes the exporter every second of each run.
#   1. The stored NAS CPU busy (lg.v_sut_run, the measured window) is within 5 points of what this
#      test reads from /proc/stat itself over the same instants; the loop device's bytes written
#      between the baseline and the last scrape equal its /sys/block statistics read here at the
#      same instants; rates come from raw counters over the real elapsed time.
#   2. The config's reduction: probe (compsize -b on the share) stores logical and physical bytes
#      after the config's last run; the achieved ratio equals compsize's run by this test.
#   3. Bad sources: one that refuses connections, one that answers HTML, one whose answer is too
#      large: lgctl plan --check names each and why, the runs go on without them, the report warns.
#   4. The exporter killed in the middle of a run: that run ends done, its later scrapes are stored
#      missed (NULL figures, never filled in), the controller says so once.
#   5. lgctl report shows the NAS CPU column and the achieved ratio; lgctl compare takes
#      cpu_busy_pct and iops_per_cpu_pct.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/smb.sh"
EXPORTER=$(command -v prometheus-node-exporter || true)
[ -n "$EXPORTER" ] || fail "prometheus-node-exporter is not installed (deploy/install-deps.sh)"
command -v mkfs.btrfs >/dev/null || fail "btrfs-progs is not installed"
COMPSIZE=$(command -v compsize) || fail "btrfs-compsize is not installed"
[ "$(id -u)" = 0 ] || fail "needs root (loop devices, mounts, namespaces)"

MNT=$T/smb/share
SAMPLER_PID=""
# smbd first (smb.sh), then the sampler, the mount and its loop device, then lib.sh's cleanup
trap 'rc=$?; set +e; smb_stop; [ -n "$SAMPLER_PID" ] && kill "$SAMPLER_PID";
      mountpoint -q "$MNT" && umount "$MNT"; (exit $rc); cleanup' EXIT

pg_start
lg_keys h2
"$LG_BIN/lgctl" db migrate >/dev/null

# ---- the NAS: btrfs (zstd) on a loop device, shared over SMB, with node_exporter ----
truncate -s 2G "$T/btrfs.img"
LOOP=$(losetup -f --show "$T/btrfs.img") || fail "losetup"
CLEANUP_LOOPS+=("$LOOP")
LOOPDEV=${LOOP#/dev/}
mkfs.btrfs -q "$LOOP" >/dev/null || fail "mkfs.btrfs"
mkdir -p "$MNT"
mount -o compress=zstd "$LOOP" "$MNT" || fail "mount btrfs"
make_hosts 2 tm 236
NAS_NS=${HOST_NS[1]}
NAS_IP=$HOSTS_NET.2
# every write reaches the disk before it is answered: the loop device's counters (and the
# extents compsize reads) are current when a scrape or the probe looks
SMB_SHARE_EXTRA="    strict sync = yes
    sync always = yes" SMB_ADDR=$NAS_IP SMB_NETNS=$NAS_NS smb_start
install -d -o "$SMB_USER" "$MNT/lg"
# what the dataset held before (compsize refuses an empty folder): 1 MiB that does not compress
head -c 1048576 /dev/urandom >"$MNT/lg/seed.bin"
sync
SMB_BASE="smb://$NAS_IP:$SMB_PORT/$SMB_SHARE"

# a port nothing listens on in the NAS namespace (smbd is there already)
ns_free_port() {
    local p=$1
    while ip netns exec "$NAS_NS" bash -c "exec 3<>/dev/tcp/$NAS_IP/$p" 2>/dev/null ||
        [ "$p" = "$SMB_PORT" ]; do
        p=$((p + 1))
    done
    echo "$p"
}
EXP_PORT=$(ns_free_port $((30000 + $$ % 1000)))
start_exporter() {
    ip netns exec "$NAS_NS" "$EXPORTER" --web.listen-address="$NAS_IP:$EXP_PORT" \
        --collector.disable-defaults --collector.cpu --collector.meminfo --collector.diskstats \
        --collector.netdev --collector.diskstats.device-exclude='^(ram|fd)[0-9]+$' \
        >>"$T/exporter.log" 2>&1 &
    EXP_PID=$!
    CLEANUP_PIDS+=("$EXP_PID")
    for _ in $(seq 1 100); do
        ip netns exec "$NAS_NS" bash -c "exec 3<>/dev/tcp/$NAS_IP/$EXP_PORT" 2>/dev/null && return
        sleep 0.1
    done
    fail "node_exporter does not listen on $NAS_IP:$EXP_PORT: $(tail -n 3 "$T/exporter.log")"
}
start_exporter
NAS_URL="http://$NAS_IP:$EXP_PORT/metrics"

# Sources that are not right: nothing listening, an HTML page, an answer over 16 MiB.
WEB_PORT=$(ns_free_port $((EXP_PORT + 1)))
mkdir -p "$T/web"
printf '<!DOCTYPE html>\n<html><body><h1>TrueNAS</h1> please log in</body></html>\n' \
    >"$T/web/index.html"
head -c $((17 * 1024 * 1024)) /dev/zero | tr '\0' 'x' >"$T/web/big"
(cd "$T/web" && exec ip netns exec "$NAS_NS" python3 -m http.server --bind "$NAS_IP" "$WEB_PORT") \
    >"$T/web.log" 2>&1 &
CLEANUP_PIDS+=("$!")
web=0
for _ in $(seq 1 100); do
    ip netns exec "$NAS_NS" bash -c "exec 3<>/dev/tcp/$NAS_IP/$WEB_PORT" 2>/dev/null && web=1 && break
    sleep 0.1
done
[ $web = 1 ] || fail "python3 -m http.server does not listen: $(tail -n 3 "$T/web.log")"
DEAD_PORT=$(ns_free_port $((WEB_PORT + 1)))

# ---- the operator's probes and credentials ----
printf 'secret-token-%s\n' "$$" >"$T/token.ok"
chmod 600 "$T/token.ok"
printf 'secret-token-%s\n' "$$" >"$T/token.open"
chmod 644 "$T/token.open"
NAS_ORIGIN=${NAS_URL%/metrics}
cat >"$T/operator.yaml" <<OP
probes:
  - {name: compsize, argv: ["$COMPSIZE", -b, "{folder}"], params: {folder: path}}
credentials:
  - {name: good, origin: "$NAS_ORIGIN", token_file: "$T/token.ok"}
  - {name: open, origin: "$NAS_ORIGIN", token_file: "$T/token.open"}
OP

# ---- the controller and a load host ----
start_controller --tcp "$HOSTS_NET.1" --operator "$T/operator.yaml"
start_agent h2 --wrap "ip netns exec ${HOST_NS[2]}" \
    --smb-credentials "$SMB_CREDS" --allow "$SMB_BASE" --allow-destructive

# ---- this test's own readings: /proc/stat's cpu line and the loop device, every 50 ms ----
# "EPOCH_S user nice system idle iowait irq softirq steal ... | sectors_read sectors_written"
(
    while :; do
        read -r _ u n s i w x y z _ </proc/stat
        read -r _ _ sr _ _ _ sw _ </sys/block/"$LOOPDEV"/stat
        echo "$(date +%s.%N) $u $n $s $i $w $x $y $z $sr $sw"
        sleep 0.05
    done
) >"$T/samples" &
SAMPLER_PID=$!

cat >"$T/tel.yaml" <<SPEC
name: tel
configs:
  - labels: {build: nas1, compression: zstd}
    target: "$SMB_BASE/lg/tel.dat"
    protocol: smb
    reduction: {probe: compsize, folder: "$MNT/lg"}
size: 96M
data: {compress_ratio: 3}
runtime: 5s
ramp: 1s
precondition: none
threads: 2
qd: 4
profiles:
  - {name: w128k, bs: 128k, pattern: sequential, read: 0}
telemetry:
  - {name: nas, url: "$NAS_URL", metrics: [node_memory_Dirty_bytes]}
  - {name: dead, url: "http://$NAS_IP:$DEAD_PORT/metrics"}
  - {name: html, url: "http://$NAS_IP:$WEB_PORT/", interval: 2s}
  - {name: huge, url: "http://$NAS_IP:$WEB_PORT/big", interval: 2s, timeout: 1500ms}
SPEC

# 3. plan --check: each bad source named with its reason, the good one answers
"$LG_BIN/lgctl" plan --check "$T/tel.yaml" >"$T/check.out" 2>"$T/check.err" &&
    fail "plan --check passed with three bad sources"
cat "$T/check.out" "$T/check.err" | grep telemetry
grep -q "telemetry source \"nas\" ($NAS_URL): answered" "$T/check.out" ||
    fail "plan --check: the exporter did not answer: $(cat "$T/check.out" "$T/check.err")"
grep -q 'telemetry source "dead".*[Cc]ouldn.t connect' "$T/check.err" || fail "no warning for dead"
grep -q 'telemetry source "html".*not a Prometheus text exposition' "$T/check.err" ||
    fail "no warning for html"
grep -q 'telemetry source "huge".*larger than 16 MiB' "$T/check.err" || fail "no warning for huge"

# a bearer token: the operator's credential, read from a file only its owner may read, refused
# otherwise (never stored)
cat >"$T/token.yaml" <<SPEC
name: token
target: /tmp/unused.dat
profiles: [4k-rand]
telemetry:
  - {name: good, url: "$NAS_URL", credential: good}
  - {name: open, url: "$NAS_URL", credential: open}
SPEC
"$LG_BIN/lgctl" plan --check --operator "$T/operator.yaml" "$T/token.yaml" >"$T/token.out" 2>"$T/token.err" &&
    fail "plan --check passed with a token file others may read"
grep -q 'telemetry source "good" .*answered' "$T/token.out" || fail "token: $(cat "$T/token.err")"
grep -q 'telemetry source "open" .*token_file .*mode 0644 lets others read it' "$T/token.err" ||
    fail "token file of mode 0644 not refused: $(cat "$T/token.err")"

submit_wait() {
    "$LG_BIN/lgctl" --controller "ipc://$T/ctl.sock" submit "$T/$1.yaml" >"$T/$1.submit" 2>&1 ||
        fail "submit $1: $(cat "$T/$1.submit")"
    local st=""
    for _ in $(seq 1 1500); do
        st=$(q "SELECT state FROM lg.campaign WHERE name = '$1'")
        [ "$st" = done ] || [ "$st" = failed ] && break
        sleep 0.2
    done
    expect_eq "campaign $1" "$st" done
}
rss0=$(rss_kb "$CTL")
submit_wait tel
sleep 1 # the scraper ends the run's sessions once their last scrape is in
rss1=$(rss_kb "$CTL")
echo "controller RSS: $((rss0 / 1024)) MB before the run, $((rss1 / 1024)) MB after it (the huge source's answer reached 16 MiB)"
[ $((rss1 - rss0)) -le 8192 ] ||
    fail "the controller kept $(((rss1 - rss0) / 1024)) MB after the run: the huge source's buffer"
RUN=$(q "SELECT run_id FROM lg.run r JOIN lg.campaign c USING (campaign_id) WHERE c.name = 'tel'")
q "SELECT source, kind, count(*), count(t_recv) FROM lg.sut_scrape WHERE run_id = $RUN
   GROUP BY 1, 2 ORDER BY 1, 2" | sed 's/^/  scrapes: /'
# (a scrape may time out when the 2-core machine is at its limit: at most two, stored as gaps)
[ "$(q "SELECT count(*) FILTER (WHERE t_recv IS NULL) FROM lg.sut_scrape WHERE run_id = $RUN
        AND source = 'nas'")" -le 2 ] || fail "the exporter missed more than 2 scrapes of the run"
[ "$(q "SELECT count(*) FROM lg.sut_scrape WHERE run_id = $RUN AND source = 'nas'
        AND kind = 'during'")" -ge 5 ] || fail "fewer than 5 scrapes of a 6 s run at 1 Hz"
# the bad sources' scrapes are stored missed, with the reason
for s in dead html huge; do
    [ "$(q "SELECT count(*) FROM lg.sut_scrape WHERE run_id = $RUN AND source = '$s'
            AND t_recv IS NULL AND error <> '' AND series IS NULL")" -ge 3 ] ||
        fail "source $s: no missed scrapes with a reason stored"
done

# 1a. NAS CPU: the test's /proc/stat over exactly the measured window (lg.v_sut_run counts each
# scrape for the part of its time inside the window)
read -r W0 W1 CPU <<<"$(q "SELECT extract(epoch FROM w.w_start), extract(epoch FROM w.w_end),
           (SELECT cpu_busy_pct_mean FROM lg.v_sut_run WHERE run_id = $RUN AND source = 'nas')
    FROM lg.v_run_window w WHERE w.run_id = $RUN" | tr '|' ' ')"
[ -n "$CPU" ] || fail "no NAS CPU figure for run $RUN"
OWN=$(awk -v a="$W0" -v b="$W1" '
    function busy(f) { return f[2] + f[3] + f[4] + f[7] + f[8] + f[9] }
    { t = $1 }
    t <= a { split($0, A, " ") }
    t <= b { split($0, B, " ") }
    END {
        tot = (busy(B) + B[5] + B[6]) - (busy(A) + A[5] + A[6])
        printf "%.2f", 100 * (busy(B) - busy(A)) / tot
    }' "$T/samples")
echo "NAS CPU busy over [$W0, $W1]: stored $CPU %, read here $OWN %"
awk -v s="$CPU" -v o="$OWN" 'BEGIN { d = s - o; if (d < 0) d = -d; exit !(d <= 5) }' ||
    fail "stored NAS CPU $CPU % is more than 5 points from /proc/stat's $OWN %"

# 1b. the loop device's bytes written from the baseline scrape to the after scrape: the raw
# counters stored, against /sys/block read here at those instants (each scrape's middle)
read -r T0 T1 STORED RATES <<<"$(q "WITH d AS (SELECT * FROM lg.v_sut_delta WHERE run_id = $RUN
          AND source = 'nas' AND key = 'disk.written.$LOOPDEV')
    SELECT extract(epoch FROM (SELECT t FROM d ORDER BY seq LIMIT 1)),
           extract(epoch FROM (SELECT t FROM d ORDER BY seq DESC LIMIT 1)),
           (SELECT val FROM d ORDER BY seq DESC LIMIT 1) - (SELECT val FROM d ORDER BY seq LIMIT 1),
           (SELECT sum(delta) FROM d)" | tr '|' ' ')"
[ -n "$STORED" ] || fail "no bytes written stored for $LOOPDEV"
OWNB=$(awk -v a="$T0" -v b="$T1" '$1 <= a { x = $11 } $1 <= b { y = $11 }
    END { printf "%.0f", (y - x) * 512 }' "$T/samples")
echo "$LOOPDEV written between the first and last scrape: stored $STORED, read here $OWNB, summed deltas $RATES"
[ "$OWNB" -gt $((20 * 1024 * 1024)) ] || fail "the run wrote under 20 MiB to the disk ($OWNB)"
awk -v s="$STORED" -v o="$OWNB" -v r="$RATES" 'BEGIN {
    d = s - o; if (d < 0) d = -d
    e = r - s; if (e < 0) e = -e
    exit !(d <= 0.05 * o + 2 * 1048576 && e <= 0.001 * s + 1) }' ||
    fail "bytes written: stored $STORED, /sys/block $OWNB, deltas summed $RATES disagree"
# and the view's write rate of the scrapes covers the loop device's (other disks add to it)
[ "$(q "SELECT count(*) FROM lg.v_sut_sample s JOIN lg.v_sut_delta d USING (run_id, source, seq)
        WHERE s.run_id = $RUN AND s.source = 'nas' AND d.key = 'disk.written.$LOOPDEV'
        AND s.disk_write_bytes_s + 1 < d.delta / d.elapsed_s")" = 0 ] ||
    fail "v_sut_sample's disk write rate is below the loop device's alone"

# 2. achieved reduction: the probe's after figures against compsize run here
sync
read -r C_DISK C_UNC <<<"$(compsize -b "$MNT/lg" | awk '$1 == "TOTAL" { print $3, $4 }')"
q "SELECT config, logical_bytes, physical_bytes, round(achieved_ratio::numeric, 3),
          round(written_ratio::numeric, 3), error FROM lg.v_reduction" | sed 's/^/  reduction: /'
ACH=$(q "SELECT achieved_ratio FROM lg.v_reduction WHERE campaign = 'tel' AND config = 1")
[ -n "$ACH" ] || fail "no achieved ratio stored: $(q "SELECT * FROM lg.reduction")"
echo "achieved: stored $ACH, compsize here $C_UNC / $C_DISK"
awk -v a="$ACH" -v u="$C_UNC" -v d="$C_DISK" 'BEGIN { c = u / d; x = a - c; if (x < 0) x = -x
    exit !(c > 1.5 && x <= 0.02 * c) }' ||
    fail "achieved ratio $ACH is not compsize's $C_UNC / $C_DISK"
expect_eq "a probe before the config's first run" \
    "$(q "SELECT count(*) FROM lg.reduction WHERE phase = 'before' AND error IS NULL")" 1

# 5. the report and compare
"$LG_BIN/lgctl" report --campaign tel >"$T/report.txt" 2>&1 || fail "report: $(cat "$T/report.txt")"
cat "$T/report.txt"
grep -q "NAS CPU %" "$T/report.txt" || fail "report: no NAS CPU column"
grep -q 'warning: telemetry source "dead" answered none' "$T/report.txt" || fail "report: dead"
grep -q "data reduction the NAS achieved" "$T/report.txt" || fail "report: no reduction section"

# 4. the exporter killed mid-run: the run ends done, the rest of its scrapes missed
sed -e 's/^name: tel$/name: tel2/' -e 's/^runtime: 5s$/runtime: 7s/' -e 's/zstd}/lz4}/' \
    -e '/name: dead/d; /name: html/d; /name: huge/d' -e '/reduction:/d' "$T/tel.yaml" >"$T/tel2.yaml"
"$LG_BIN/lgctl" --controller "ipc://$T/ctl.sock" submit "$T/tel2.yaml" >"$T/tel2.submit" 2>&1 ||
    fail "submit tel2"
for _ in $(seq 1 300); do
    n=$(q "SELECT count(*) FROM lg.sut_scrape s JOIN lg.run r USING (run_id) JOIN lg.campaign c
           USING (campaign_id) WHERE c.name = 'tel2' AND s.kind = 'during' AND s.t_recv IS NOT NULL")
    [ "$n" -ge 3 ] && break
    sleep 0.1
done
kill "$EXP_PID"
wait "$EXP_PID" 2>/dev/null || true
R2=$(q "SELECT min(run_id) FROM lg.run r JOIN lg.campaign c USING (campaign_id) WHERE c.name = 'tel2'")
# two scrapes missed, then the exporter back for the rest (and the write run after it)
for _ in $(seq 1 100); do
    [ "$(q "SELECT count(*) FROM lg.sut_scrape WHERE run_id = $R2 AND t_recv IS NULL")" -ge 2 ] && break
    sleep 0.1
done
start_exporter
for _ in $(seq 1 600); do
    st=$(q "SELECT state FROM lg.campaign WHERE name = 'tel2'")
    [ "$st" = done ] || [ "$st" = failed ] && break
    sleep 0.2
done
expect_eq "campaign tel2 with its exporter killed" "$st" done
expect_eq "the run with its exporter killed" "$(q "SELECT state FROM lg.run WHERE run_id = $R2")" done
q "SELECT seq, kind, t_recv IS NOT NULL, left(coalesce(error, ''), 60) FROM lg.sut_scrape
   WHERE run_id = $R2 ORDER BY seq" | sed 's/^/  killed: /'
[ "$(q "SELECT count(*) FROM lg.v_sut_sample WHERE run_id = $R2 AND missed
        AND cpu_busy_pct IS NULL AND disk_write_bytes_s IS NULL")" -ge 2 ] ||
    fail "no missed (NULL) scrapes after the exporter was killed"
[ "$(q "SELECT count(*) FROM lg.v_sut_sample WHERE run_id = $R2 AND NOT missed")" -ge 2 ] ||
    fail "no answered scrapes before the exporter was killed"
grep -q "telemetry source \"nas\" .* stopped answering" "$T/controller.log" ||
    fail "the controller did not say the exporter stopped answering"
# (said once while it stays down; a scrape that timed out on this busy machine earlier in the
# run is said too, and so is its recovery)
[ "$(grep -c "run $R2: telemetry source \"nas\" .* stopped answering: Failed to connect" \
     "$T/controller.log")" = 1 ] ||
    fail "the controller said it more than once: $(grep "run $R2: telemetry" "$T/controller.log")"
grep -q "run $R2: telemetry source \"nas\" answers again" "$T/controller.log" ||
    fail "the controller did not say the exporter answers again"
# compare: the NAS CPU metrics, tel2 (its exporter killed mid-run) against tel
"$LG_BIN/lgctl" compare --by compression --baseline zstd --metric cpu_busy_pct,iops_per_cpu_pct \
    --where direction=write --format csv >"$T/compare.csv" 2>&1 ||
    fail "compare: $(cat "$T/compare.csv")"
cat "$T/compare.csv"
grep -q "^cpu_busy_pct," "$T/compare.csv" && grep -q "^iops_per_cpu_pct," "$T/compare.csv" ||
    fail "compare has no NAS CPU metrics: $(cat "$T/compare.csv")"
# as a table each change names its metric: NAS CPU is no latency (issue 42 part 3)
"$LG_BIN/lgctl" compare --by compression --baseline zstd --metric cpu_busy_pct \
    --where direction=write >"$T/compare.txt" 2>&1 || fail "compare: $(cat "$T/compare.txt")"
cat "$T/compare.txt"
grep -q "% [a-z]* latency " "$T/compare.txt" && fail "compare calls NAS CPU a latency: $(cat "$T/compare.txt")"
grep -qE "(~ \(|% (lower|higher) cpu_busy_pct )" "$T/compare.txt" ||
    fail "compare shows no change of cpu_busy_pct: $(cat "$T/compare.txt")"
# the token is nowhere in the database
[ "$(q "SELECT count(*) FROM lg.campaign WHERE spec LIKE '%secret-token%'")" = 0 ] || fail "token stored"
echo "PASS"
