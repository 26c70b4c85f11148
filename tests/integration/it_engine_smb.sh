#!/usr/bin/env bash
# it_engine_smb: the lgsmb fio engine (agent/engines/lgsmb.c) against a real smbd on loopback:
# verified writes at queue depth 1 and 16, in processes and threads; data written through the
# engine is byte for byte what fio writes to a local file, as smbclient reads it back; a wrong
# password, a closed port, a missing share and a missing folder fail at setup with a message
# naming the target; random and sequential jobs report IOPS; a 4-job, iodepth-8 job keeps 32 SMB
# connections (one per in-flight I/O) busy at smbd at once; the layout step (layout=1) writes a
# missing or short file through once, with the data pattern, so that no run reads holes.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/smb.sh"

command -v fio >/dev/null || fail "fio is not installed"
command -v jq >/dev/null || fail "jq is not installed"
ENGINE=$(cd "$LG_BIN/../lib/lg/engines" 2>/dev/null && pwd)/lgsmb.so
[ -f "$ENGINE" ] || fail "no $LG_BIN/../lib/lg/engines/lgsmb.so: build with LG_ENGINES=ON"
smb_start
URL="smb://127.0.0.1:$SMB_PORT/$SMB_SHARE"
cd "$T" # a job that fio laid out locally would leave $T/smb:/...

# job NAME TARGET [OPTION...]: write $T/NAME.fio for the engine on TARGET with the options; ':' in
# the target is escaped as fio wants. CREDS (default $SMB_CREDS; empty: none) is the credentials.
job() {
    local name=$1 target=$2 creds=${CREDS-$SMB_CREDS}
    shift 2
    {
        printf '[global]\nioengine=external:%s\n' "$ENGINE"
        [ -z "$creds" ] || printf 'credentials=%s\n' "$creds"
        printf 'filename=%s\n' "${target//:/\\:}"
        printf '%s\n' "$@"
        printf '[%s]\n' "$name"
    } >"$T/$name.fio"
}

# run NAME: run $T/NAME.fio (JSON in $T/NAME.json); fio must succeed with no job error.
run() {
    fio --output-format=json --output="$T/$1.out" "$T/$1.fio" 2>"$T/$1.log" ||
        fail "$1: fio failed: $(tail -n 5 "$T/$1.log")"
    # fio puts warnings (e.g. about several writers on one file) before the JSON.
    sed -n '/^{/,$p' "$T/$1.out" >"$T/$1.json"
    local errs
    errs=$(jq '[.jobs[].error] | add' "$T/$1.json")
    expect_eq "$1: job errors" "$errs" 0
}

# bytes NAME DIR: bytes moved in direction DIR (read or write) by all jobs of NAME.
bytes() { jq "[.jobs[].$2.io_bytes] | add" "$T/$1.json"; }

# --- fio loads the engine (its FIO_IOOPS_VERSION matches) and it moves data ------------------
fio --enghelp="$ENGINE" >"$T/enghelp.txt" 2>&1 || fail "fio --enghelp: $(cat "$T/enghelp.txt")"
grep -q '^credentials ' "$T/enghelp.txt" || fail "the engine has no credentials option"
job load "$URL/load.bin" size=1M bs=64k rw=write
run load
expect_eq "load: bytes written through lgsmb" "$(bytes load write)" 1048576

# --- 1. verified writes -------------------------------------------------------------------------
# verify=crc32c writes every block with a checksummed header, then reads it all back and checks.
job v-qd1 "$URL/v-qd1.bin" size=16M bs=64k rw=write iodepth=1 verify=crc32c
run v-qd1
job v-qd16 "$URL/v-qd16.bin" size=8M bs=4k rw=randwrite iodepth=16 verify=crc32c
run v-qd16
# Two jobs on one file, each in its own 8 MiB (offset_increment), as lg-agent writes them.
job v-2jobs "$URL/v-2jobs.bin" size=8M offset_increment=8M numjobs=2 bs=16k rw=randwrite \
    iodepth=16 verify=crc32c
run v-2jobs
# thread=1: the engine makes the jobs processes (libsmbclient is not thread-safe) ...
job v-thread "$URL/v-thread.bin" size=8M offset_increment=8M numjobs=2 thread=1 bs=16k \
    rw=randwrite iodepth=16 verify=crc32c
run v-thread
grep -q "jobs run as processes" "$T/v-thread.out" "$T/v-thread.log" || fail "v-thread: no note on processes"
# ... unless fio has started the threads before the engine's setup: then the threads, each with
# its own SMB context, take turns inside libsmbclient (and extend the file concurrently).
job v-threads-shared "$URL/v-threads-shared.bin" size=8M offset_increment=8M numjobs=4 \
    thread=1 create_serialize=0 bs=16k rw=randwrite iodepth=16 verify=crc32c
run v-threads-shared
for name in v-qd1 v-qd16 v-2jobs v-thread v-threads-shared; do
    w=$(bytes "$name" write)
    r=$(bytes "$name" read)
    [ "$r" = "$w" ] || fail "$name: verified $r bytes of the $w written"
    echo "ok: $name: $w bytes written and verified"
done
expect_eq "v-2jobs: size on the share" "$(stat -c %s "$SMB_SHARE_DIR/v-2jobs.bin")" 16777216
expect_eq "v-threads-shared: size on the share" \
    "$(stat -c %s "$SMB_SHARE_DIR/v-threads-shared.bin")" 33554432

# --- 1b. iodepth is on the wire: 4 jobs x 8 in flight are 32 connections at smbd ----------------
# Each I/O a job keeps in flight has its own worker, connection and SMB session (lgsmb.c), logged
# on at the job's init: while the job runs, smbd must serve 4 x 8 connections of the user, each
# an smbd child process (earlier jobs' that are still being torn down are not counted).
job qd-wire "$URL/qd-wire.bin" size=16M bs=4k rw=randrw numjobs=4 iodepth=8 time_based=1 runtime=8
fio --output-format=json --output="$T/qd-wire.out" "$T/qd-wire.fio" 2>"$T/qd-wire.log" &
fio_pid=$!
CLEANUP_PIDS+=("$fio_pid")
most=0
while kill -0 "$fio_pid" 2>/dev/null; do # sampled while the job runs (8 s: smbstatus takes seconds on a host busy with other tests)
    n=$(smbstatus -s "$SMB_CONF" -p 2>/dev/null | awk -v u="$SMB_USER" '$2 == u { print $1 }' |
        grep -cxF -f <(ps -o pid= --ppid "$SMB_PID" | tr -d ' ') || true)
    echo "qd-wire: $n connections" >>"$T/qd-wire.count"
    [ "$n" -le "$most" ] || most=$n
    [ "$most" -lt 32 ] || break
    sleep 0.1
done
rc=0
wait "$fio_pid" || rc=$?
[ $rc = 0 ] || fail "qd-wire: fio failed: $(tail -n 5 "$T/qd-wire.log")"
sed -n '/^{/,$p' "$T/qd-wire.out" >"$T/qd-wire.json"
expect_eq "qd-wire: job errors" "$(jq '[.jobs[].error] | add' "$T/qd-wire.json")" 0
[ "$most" -gt 4 ] || fail "qd-wire: smbd served at most $most connections of the job at once (want > 4)"
[ "$most" = 32 ] || echo "note: qd-wire: $most of the 32 connections seen at once (samples: $(wc -l <"$T/qd-wire.count"))"
echo "ok: qd-wire: $most SMB connections at once; $(jq '[.jobs[].read.iops, .jobs[].write.iops] |
    add | floor' "$T/qd-wire.json") IOPS"

# --- 2. what the engine writes is what smbclient reads ------------------------------------------
# refill_buffers with a fixed seed makes fio write the same bytes for the same job, so the file
# lgsmb wrote must equal the one psync writes locally; smbclient fetches the SMB one.
data_opts=(size=8M bs=64k rw=randwrite randseed=4242 refill_buffers=1)
job data-smb "$URL/data.bin" "${data_opts[@]}"
run data-smb
{
    printf '[global]\nioengine=psync\nfilename=%s\n' "$T/data-local.bin"
    printf '%s\n' "${data_opts[@]}"
    printf '[data-smb]\n'
} >"$T/data-local.fio"
run data-local
smb_client "get data.bin $T/data-fetched.bin" >"$T/get.log" 2>&1 ||
    fail "smbclient get data.bin: $(tail -n 2 "$T/get.log")"
cmp "$T/data-local.bin" "$T/data-fetched.bin" ||
    fail "data.bin fetched with smbclient differs from what fio wrote locally"
echo "ok: data.bin through lgsmb = fio's local bytes (sha256 $(sha256sum <"$T/data-fetched.bin" |
    cut -c1-16)...)"
# And the checksummed blocks of the verify run read back intact through smbclient.
smb_client "get v-qd1.bin $T/v-qd1.local" >>"$T/get.log" 2>&1 || fail "smbclient get v-qd1.bin"
{
    printf '[global]\nioengine=psync\nfilename=%s\n' "$T/v-qd1.local"
    printf '%s\n' size=16M bs=64k rw=write iodepth=1 verify=crc32c verify_only=1
    printf '[v-qd1]\n'
} >"$T/v-qd1-local.fio"
run v-qd1-local
expect_eq "v-qd1: bytes verified from the smbclient copy" "$(bytes v-qd1-local read)" 16777216

# --- 2b. lg's data reduction check reads an SMB target back ---------------------------------------
# A fill with compress_ratio 2 and dedup_ratio 2 through lgctl's local mode (the agent reads the
# file back with --smb-credentials): the ratios it stored are those of it_datareduce's file runs,
# and exactly what datacheck finds in the file on the share.
pg_start
fill_datacheck_spec dc "$URL/dc.bin"
"$LG_BIN/lgctl" --data-dir "$T/lgdata" --smb-credentials "$SMB_CREDS" run "$T/dc.yaml" \
    >"$T/dc.txt" 2>"$T/dc.log" || { cat "$T/dc.log" >&2; fail "dc: lgctl run failed"; }
check_fill_datacheck dc "$SMB_SHARE_DIR/dc.bin"

# --- 2c. the layout step writes an SMB file through once, as fio lays out a local file -----------
# holes FILE: bytes of FILE (on the share, seen by smbd's filesystem) that are holes.
holes() {
    python3 - "$1" <<'PY'
import os, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
size, at, hole = os.fstat(fd).st_size, 0, 0
while at < size:
    h = os.lseek(fd, at, os.SEEK_HOLE)
    if h >= size:
        break
    try:
        d = os.lseek(fd, h, os.SEEK_DATA)
    except OSError:
        d = size
    hole += d - h
    at = d
print(hole)
PY
}
# layout=1 on a missing file: written through (the engine's sparse extension is filled)
job lay "$URL/lay.bin" size=8M bs=1M rw=write layout=1 buffer_compress_percentage=50 \
    refill_buffers=1
run lay
expect_eq "layout of a missing file: bytes written" "$(bytes lay write)" 8388608
expect_eq "layout of a missing file: no holes left" "$(holes "$SMB_SHARE_DIR/lay.bin")" 0
# again, the file there at full size: not written, one block read (connect, log on, read)
touch -d '2001-01-01' "$SMB_SHARE_DIR/lay.bin"
run lay
expect_eq "layout of a full file: written, read" "$(bytes lay write) $(bytes lay read)" "0 1048576"
expect_eq "layout of a full file: untouched" "$(stat -c %Y "$SMB_SHARE_DIR/lay.bin")" \
    "$(date -d '2001-01-01' +%s)"
# a short file (4 of 8 MiB): written through whole, as a local one
truncate -s 4M "$SMB_SHARE_DIR/lay.bin"
run lay
expect_eq "layout of a short file: bytes written" "$(bytes lay write)" 8388608
expect_eq "layout of a short file: no holes left" "$(holes "$SMB_SHARE_DIR/lay.bin")" 0
# Through lg: a campaign whose first run reads a fresh smb:// file reads laid-out data, never
# holes (which a NAS answers with zeros without touching its disks).
cat >"$T/lay.yaml" <<SPEC
name: lay
target: "$URL/lay-lg.bin"
size: 16M
profiles: [{name: r, bs: 4k, pattern: random, read: 100, sweep: [1T1Q]}]
runtime: 1s
precondition: none
data: {compress_ratio: 2.0}
SPEC
"$LG_BIN/lgctl" --data-dir "$T/lgdata" --smb-credentials "$SMB_CREDS" run "$T/lay.yaml" \
    >"$T/lay.txt" 2>"$T/lay.log" || { cat "$T/lay.log" >&2; fail "lay: lgctl run failed"; }
expect_eq "lg: a fresh smb:// file is laid out before its first (read) run" \
    "$(stat -c %s "$SMB_SHARE_DIR/lay-lg.bin") $(holes "$SMB_SHARE_DIR/lay-lg.bin")" "16777216 0"
out=$("$LG_BIN/datacheck" "$SMB_SHARE_DIR/lay-lg.bin" 131072) || fail "datacheck lay-lg.bin"
zstd_lay=$(sed -n 's/.* zstd=\([0-9.]*\).*/\1/p' <<<"$out")
awk -v z="$zstd_lay" 'BEGIN { exit !(z >= 1.7 && z <= 2.3) }' ||
    fail "lg: the laid-out file does not carry the data pattern (compress 2): $out"
echo "ok: smb:// layout: written through once, with the data pattern (zstd $zstd_lay), no holes"

# --- 3. failures at setup name the target and say why -------------------------------------------
# refused NAME PATTERN...: $T/NAME.fio must fail, its stderr naming the target and each PATTERN.
refused() {
    local name=$1 rc=0 target
    shift
    target=$(sed -n 's/^filename=//p' "$T/$name.fio" | sed 's/\\:/:/g')
    fio --output="$T/$name.out" "$T/$name.fio" 2>"$T/$name.log" || rc=$?
    [ $rc -ne 0 ] || fail "$name: fio succeeded"
    grep -qF "could not open \"$target\"" "$T/$name.log" ||
        fail "$name: the message does not name $target: $(cat "$T/$name.log")"
    for p in "$@"; do
        grep -qF -- "$p" "$T/$name.log" || fail "$name: no \"$p\" in: $(cat "$T/$name.log")"
    done
    echo "ok: $name -> $(grep -m 1 '^lgsmb:' "$T/$name.log")"
}
printf 'username = %s\npassword = %s\n' "$SMB_USER" "not-$SMB_PASS" >"$T/wrong.creds"
chmod 600 "$T/wrong.creds"
CREDS=$T/wrong.creds job bad-password "$URL/f.bin" size=1M rw=write
refused bad-password "Permission denied" "refused for user $SMB_USER"
closed=$(smb_free_port $((SMB_PORT + 1)))
job closed-port "smb://127.0.0.1:$closed/$SMB_SHARE/f.bin" size=1M rw=write
refused closed-port "Connection refused" "127.0.0.1:$closed"
job no-share "smb://127.0.0.1:$SMB_PORT/nosuch/f.bin" size=1M rw=write
refused no-share "No such file or directory" "no share \"nosuch\""
job no-folder "$URL/nodir/sub/f.bin" size=1M rw=write
refused no-folder "No such file or directory" "folder \"/nodir/sub\" does not exist"
# A password in the target is refused and never printed.
job url-password "smb://$SMB_USER:$SMB_PASS@127.0.0.1:$SMB_PORT/$SMB_SHARE/f.bin" size=1M rw=write
rc=0
fio --output="$T/url-password.out" "$T/url-password.fio" 2>"$T/url-password.log" || rc=$?
[ $rc -ne 0 ] || fail "url-password: fio accepted a password in the target"
grep -qF "password in the target is refused" "$T/url-password.log" ||
    fail "url-password: $(cat "$T/url-password.log")"
echo "ok: url-password -> $(grep -m 1 '^lgsmb:' "$T/url-password.log")"
if grep -rqF -- "$SMB_PASS" "$T"/*.log "$T"/*.out "$T"/*.json; then
    fail "the SMB password appears in fio's output"
fi
echo "ok: the password appears in no output"
[ ! -e "$SMB_SHARE_DIR/f.bin" ] || fail "a refused job created f.bin"

# --- 3b. an I/O error comes back through fio, with the SMB status ----------------------------------
# The smbd processes serving the job's connection are stopped mid-run, by PID: those smbstatus
# lists for the user that are alive children of our smbd (earlier jobs' may still be listed).
job io-error "$URL/io-error.bin" size=8M bs=128k rw=read time_based=1 runtime=5
fio --output-format=json --output="$T/io-error.out" "$T/io-error.fio" 2>"$T/io-error.log" &
fio_pid=$!
CLEANUP_PIDS+=("$fio_pid")
sleep 1 # past the engine's setup, which connects on its own
conns=""
for _ in $(seq 1 50); do
    listed=$(smbstatus -s "$SMB_CONF" -p 2>/dev/null | awk -v u="$SMB_USER" '$2 == u { print $1 }')
    for pid in $listed; do
        if [ "$(ps -o ppid= -p "$pid" 2>/dev/null | tr -d ' ')" = "$SMB_PID" ]; then
            conns="$conns $pid"
        fi
    done
    [ -n "$conns" ] && break
    sleep 0.1
done
[ -n "$conns" ] || fail "io-error: smbstatus shows no connection of the job"
kill $conns 2>/dev/null || true
rc=0
wait "$fio_pid" || rc=$?
[ $rc -ne 0 ] || fail "io-error: fio succeeded although its connection was cut"
grep -qF "lgsmb: I/O error on \"$URL/io-error.bin\": read at offset" "$T/io-error.log" ||
    fail "io-error: no I/O error naming the file in: $(cat "$T/io-error.log")"
grep -q "NT_STATUS_" "$T/io-error.log" || fail "io-error: no SMB status in: $(cat "$T/io-error.log")"
sed -n '/^{/,$p' "$T/io-error.out" >"$T/io-error.json"
errno=$(jq '.jobs[0].error' "$T/io-error.json")
[ "$errno" != 0 ] || fail "io-error: fio's JSON shows no job error"
echo "ok: io-error (job error $errno) -> $(grep -m 1 '^lgsmb: I/O error' "$T/io-error.log")"

# --- 4. throughput jobs report IOPS -------------------------------------------------------------
# A read job on a missing file: the engine creates it on the share at size= (no local layout).
job randread-4k "$URL/perf.bin" size=64M bs=4k rw=randread iodepth=16 time_based=1 runtime=2
run randread-4k
expect_eq "perf.bin created at size= on the share" "$(stat -c %s "$SMB_SHARE_DIR/perf.bin")" \
    67108864
[ ! -e "$T/smb:" ] || fail "fio laid out a local file under $T/smb:"
# fsync=32: completes, with a note that libsmbclient cannot send an SMB2 FLUSH.
job seqwrite-128k "$URL/perf.bin" size=64M bs=128k rw=write time_based=1 runtime=2 fsync=32
run seqwrite-128k
grep -q "without an SMB2 FLUSH" "$T/seqwrite-128k.out" "$T/seqwrite-128k.log" ||
    fail "seqwrite-128k: no note on fsync"
job seqread-128k "$URL/perf.bin" size=64M bs=128k rw=read time_based=1 runtime=2
run seqread-128k
for case in randread-4k:read seqwrite-128k:write seqread-128k:read; do
    name=${case%%:*}
    d=${case#*:}
    iops=$(jq "[.jobs[].$d.iops] | add" "$T/$name.json")
    awk -v v="$iops" 'BEGIN { exit !(v > 0) }' || fail "$name: $d IOPS $iops"
    echo "ok: $name: $d IOPS $iops ($(jq "[.jobs[].$d.bw_bytes] | add / 1048576 | floor" \
        "$T/$name.json") MiB/s)"
done
echo "PASS it_engine_smb"
