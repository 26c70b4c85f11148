#!/usr/bin/env bash
# it_outside_text: text from outside is stored whatever bytes it holds (local mode, fio on a file).
#   1. An exporter (python3 -m http.server on 127.0.0.1 serving a file of this test's) names a disk
#      by 100 "é" (200 bytes: lg's 183-byte cut of a label value lands inside a character) and
#      another by a name with a byte that is not UTF-8 (\xff): every scrape of the run is stored
#      with its figures, the keys in lg.sut_series are valid UTF-8, the long one cut on a
#      character boundary (91 "é"), the bad byte U+FFFD; each row's error column, the
#      controller's log and the report say what was changed. Before, PostgreSQL refused every
#      INSERT of the scrape: no row, and no word of it.
#   2. The config's reduction: probe prints a byte that is not UTF-8 with its figures (stored,
#      U+FFFD in lg.reduction.output), then fails with one in its stderr (stored in its error).
#   3. A between-configs hook that fails with such bytes in its stderr: the campaign's message
#      is stored, U+FFFD in it, and says that lg replaced them.
. "$(dirname "$0")/lib.sh"
pg_start
"$LG_BIN/lgctl" db migrate >/dev/null

# ---- the exporter: a file served over HTTP on 127.0.0.1, started and stopped by PID ----
mkdir -p "$T/web" "$T/target"
E100=$(printf '\303\251%.0s' $(seq 1 100))
{
    printf '# TYPE node_disk_read_bytes_total counter\n'
    printf 'node_disk_read_bytes_total{device="%s"} 1000\n' "$E100"
    printf 'node_disk_read_bytes_total{device="sd\377b"} 2000\n'
    printf 'node_disk_read_bytes_total{device="sda"} 3000\n'
    printf '# TYPE node_cpu_seconds_total counter\n'
    printf 'node_cpu_seconds_total{cpu="0",mode="idle"} 10\n'
    printf 'node_cpu_seconds_total{cpu="0",mode="user"} 5\n'
} >"$T/web/metrics"
WEB_PORT=$(free_port 1)
(cd "$T/web" && exec python3 -m http.server --bind 127.0.0.1 "$WEB_PORT") >"$T/web.log" 2>&1 &
CLEANUP_PIDS+=("$!")
for _ in $(seq 1 100); do
    curl -sf "http://127.0.0.1:$WEB_PORT/metrics" >/dev/null 2>&1 && break
    sleep 0.1
done
curl -sf "http://127.0.0.1:$WEB_PORT/metrics" | cmp -s - "$T/web/metrics" ||
    fail "python3 -m http.server does not serve the exposition: $(tail -n 3 "$T/web.log")"

# ---- the probe: figures with a bad byte the first time, a failure with one the second ----
cat >"$T/probe.sh" <<'EOF'
#!/bin/sh
n=$(cat "$0.count" 2>/dev/null || echo 0)
echo $((n + 1)) >"$0.count"
if [ "$n" = 0 ]; then
    printf 'host=nas\377 logical_bytes=3000 physical_bytes=1000\n'
    exit 0
fi
printf 'zfs: dataset \376 is busy\n' >&2
exit 2
EOF
chmod 755 "$T/probe.sh"
cat >"$T/operator.yaml" <<OP
probes:
  - {name: mark, argv: ["$T/probe.sh"]}
OP
chmod 600 "$T/operator.yaml"

cat >"$T/text.yaml" <<SPEC
name: text
configs:
  - labels: {build: t, compression: lz4}
    target: $T/target/data.bin
    reduction: {probe: mark}
size: 16M
profiles: [{name: r4k, bs: 4k, pattern: random, read: 100}]
threads: 1
qd: 2
ramp: 0s
runtime: 3s
precondition: none
telemetry:
  - {name: nas, url: "http://127.0.0.1:$WEB_PORT/metrics"}
SPEC
LG_KEEP_RUN_DIR=1 timeout 150 "$LG_BIN/lgctl" --data-dir "$T/d" --operator "$T/operator.yaml" \
    run "$T/text.yaml" \
    >"$T/run.txt" 2>"$T/run.log" || { cat "$T/run.log" >&2; fail "lgctl run exited $?"; }
logs=("$T"/d/local-*/controller.log) # the run folder LG_KEEP_RUN_DIR kept
CTL_LOG=${logs[0]}

# 1. every scrape stored, with its figures
RUN=$(q "SELECT run_id FROM lg.run r JOIN lg.campaign c USING (campaign_id) WHERE c.name = 'text'")
q "SELECT seq, kind, t_recv IS NOT NULL, cardinality(series), error FROM lg.sut_scrape
   WHERE run_id = $RUN ORDER BY seq" | sed 's/^/  scrape: /'
ANSWERED=$(q "SELECT count(*) FROM lg.sut_scrape WHERE run_id = $RUN AND t_recv IS NOT NULL
              AND cardinality(series) = 6 AND cardinality(vals) = 6")
[ "$ANSWERED" -ge 3 ] || fail "only $ANSWERED answered scrapes with their 6 figures stored"
expect_eq "scrapes stored answered (a missed one: the machine is slow)" \
    "$(q "SELECT count(*) FILTER (WHERE t_recv IS NULL) <= 1 FROM lg.sut_scrape
          WHERE run_id = $RUN")" t
# the keys: valid UTF-8 (PostgreSQL holds no other), the long one cut between characters
q "SELECT key, octet_length(key) FROM lg.sut_series ORDER BY key" | sed 's/^/  key: /'
expect_eq "the long device name cut on a character boundary (91 of its 100 characters)" \
    "$(q "SELECT count(*) FROM lg.sut_series WHERE key = 'disk.read.' || repeat('é', 91)")" 1
expect_eq "the byte that is not UTF-8 replaced by U+FFFD" \
    "$(q "SELECT count(*) FROM lg.sut_series WHERE key = U&'disk.read.sd\\FFFDb'")" 1
expect_eq "every key is valid UTF-8 in normal form" \
    "$(q "SELECT bool_and(key IS NFC NORMALIZED) FROM lg.sut_series")" t
expect_eq "the figures stored under those keys" \
    "$(q "SELECT string_agg(d.val::text, ' ' ORDER BY d.val) FROM lg.v_sut_delta d
          WHERE d.run_id = $RUN AND d.seq = 0 AND d.key LIKE 'disk.read.%'")" "1000 2000 3000"
NOTE="label values changed to be stored: 1 invalid byte replaced by U+FFFD; 1 cut on a character boundary at 183 bytes"
expect_eq "each answered scrape's row says what lg changed" \
    "$(q "SELECT count(*) FROM lg.sut_scrape WHERE run_id = $RUN AND t_recv IS NOT NULL
          AND error = '$NOTE'")" \
    "$(q "SELECT count(*) FROM lg.sut_scrape WHERE run_id = $RUN AND t_recv IS NOT NULL")"
grep -q "run $RUN: telemetry source \"nas\" (scrape 0): label values: 1 invalid byte replaced by U+FFFD; 1 cut on a character boundary at 183 bytes" \
    "$CTL_LOG" || fail "the controller did not warn: $(grep -i telemetry "$CTL_LOG")"
[ "$(grep -c 'telemetry source "nas" (scrape' "$CTL_LOG")" = 1 ] || fail "warned more than once a run"
grep -q "warning: telemetry source \"nas\" ([0-9]* of [0-9]* scrapes): $NOTE" "$T/run.txt" ||
    fail "the report does not say it: $(cat "$T/run.txt")"

# 2. the probe: its output with U+FFFD and its figures; its failure with its stderr
q "SELECT phase, logical_bytes, physical_bytes, output, error FROM lg.reduction" |
    sed 's/^/  reduction: /'
expect_eq "the probe's figures, its output stored with U+FFFD" \
    "$(q "SELECT logical_bytes || ' ' || physical_bytes || ' ' ||
                 (output = U&'host=nas\\FFFD logical_bytes=3000 physical_bytes=1000\\000a')
          FROM lg.reduction WHERE phase = 'before'")" "3000 1000 true"
expect_eq "the probe's failure stored with its stderr" \
    "$(q "SELECT error LIKE '%probe.sh exited with status 2: zfs: dataset ' || U&'\\FFFD' || ' is busy'
          FROM lg.reduction WHERE phase = 'after'")" t
grep -q "config 1: the reduction probe's output: 1 invalid byte replaced by U+FFFD" "$CTL_LOG" ||
    fail "no warning for the probe's output"
grep -q "config 1: the reduction probe's stderr: 1 invalid byte replaced by U+FFFD" "$CTL_LOG" ||
    fail "no warning for the probe's stderr"

# 3. a hook that fails with bytes that are not UTF-8 in its stderr
cat >"$T/hook.yaml" <<SPEC
name: hook
configs:
  - labels: {build: t, compression: lz4}
    target: "null"
  - labels: {build: t, compression: zstd}
    target: "null"
profiles: [{name: 4k-rand, sweep: none}]
threads: 1
qd: 1
runtime: 1s
precondition: none
between_configs: hook
SPEC
rc=0
LG_KEEP_RUN_DIR=1 LG_HOOK='printf "zfs: cannot set \377\376 on pool\n" >&2; exit 3' \
    timeout 120 "$LG_BIN/lgctl" --data-dir "$T/d2" run "$T/hook.yaml" >"$T/hook.txt" \
    2>"$T/hook.log" || rc=$?
[ $rc -eq 1 ] || { cat "$T/hook.log" >&2; fail "failing hook: lgctl exit $rc, want 1"; }
msg=$(q "SELECT message FROM lg.campaign WHERE name = 'hook'")
echo "message: $msg"
expect_eq "the hook's campaign" "$(q "SELECT state FROM lg.campaign WHERE name = 'hook'")" failed
expect_eq "the hook's stderr in the message, U+FFFD for what was not UTF-8, and said" \
    "$(q "SELECT message LIKE '%campaign stopped: zfs: cannot set ' || U&'\\FFFD\\FFFD' ||
                 ' on pool (as stored: 2 invalid bytes replaced by U+FFFD)'
          FROM lg.campaign WHERE name = 'hook'")" t
logs=("$T"/d2/local-*/controller.log)
grep -q "the hook \".*\"'s stderr: 2 invalid bytes replaced by U+FFFD" "${logs[0]}" ||
    fail "no warning for the hook's stderr"
echo "PASS"
