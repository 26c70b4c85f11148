#!/usr/bin/env bash
# it_engine_iscsi: the lgiscsi fio engine (agent/engines/lgiscsi.c) against a real tgtd on
# loopback: write+verify at QD 1 and 16 and with two jobs (processes and threads), data that an
# independent reader (fio's psync engine on the LUN's backing file) finds byte for byte in both
# directions, clear failures naming the target for a closed port, a missing IQN, a missing LUN,
# missing and wrong CHAP and a bs the LUN cannot take, nonzero IOPS for 4k random and 128k
# sequential jobs, which cover the whole LUN when size= is left out, a job that ends with EIO
# after io_timeout when the target freezes, and lg's data reduction check: a run through lg with
# a data pattern on a CHAP LUN stores the ratios the agent measured by reading the LUN back.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/tgt.sh"

command -v fio >/dev/null || fail "fio is not installed (deploy/install-deps.sh installs it)"
command -v jq >/dev/null || fail "jq is not installed (apt-get install jq)"
ENGINE=$LG_BIN/../lib/lg/engines/lgiscsi.so
[ -f "$ENGINE" ] || fail "no $ENGINE: build lg with -DLG_ENGINES=ON (the default)"
ENGINE=$(cd "$(dirname "$ENGINE")" && pwd)/lgiscsi.so
# fio leaves <job>-verify.state files in its working folder: that is $T, not the caller's.
cd "$T"

# fio loads it and knows its options.
fio --enghelp="$ENGINE" >"$T/enghelp.log" 2>&1 ||
    fail "fio cannot load $ENGINE: $(cat "$T/enghelp.log")"
for opt in initiator chap_credentials io_timeout; do
    grep -q "^$opt " "$T/enghelp.log" ||
        fail "fio --enghelp does not list the engine's option $opt: $(cat "$T/enghelp.log")"
done
echo "ok: fio loads $ENGINE"

tgt_start 256M
LUN4K_FILE=$(tgt_add_lun 2 16M 4096)
tgt_add_chap 16M

# fio_iscsi NAME OPTIONS...: fio with the engine; JSON in $T/NAME.json, stderr in $T/NAME.log.
# fio writes some warnings (e.g. about numjobs with verify) into --output before the JSON.
fio_iscsi() {
    local name=$1 rc=0
    shift
    fio --output-format=json --output="$T/$name.out" --name="$name" \
        --ioengine="external:$ENGINE" "$@" 2>"$T/$name.log" || rc=$?
    sed -n '/^{/,$p' "$T/$name.out" >"$T/$name.json"
    return $rc
}

# fio_ok NAME OPTIONS...: fio_iscsi must succeed with no job error.
fio_ok() {
    fio_iscsi "$@" || fail "$1: fio failed: $(tail -n 5 "$T/$1.log")"
    [ "$(jq '[.jobs[].error] | max' "$T/$1.json")" = 0 ] || fail "$1: a job reports an error"
}

# bytes NAME DIR: io_bytes of direction DIR summed over the jobs of NAME.
bytes() { jq "[.jobs[].$2.io_bytes] | add" "$T/$1.json"; }

MiB=1048576

# (1) write + verify through the engine.
fio_ok qd1 --filename="$ISCSI_FIO_URL" --rw=randwrite --bs=4k --offset=0 --size=16M \
    --iodepth=1 --verify=crc32c --verify_fatal=1
expect_eq "qd1 bytes written" "$(bytes qd1 write)" $((16 * MiB))
expect_eq "qd1 bytes verified" "$(bytes qd1 read)" $((16 * MiB))

# fsync=256 and end_fsync: SYNCHRONIZE CACHE(16) as a barrier every 256 writes (fio counts
# 4096 / 256 - 1 = 15 of them; the end_fsync one is not in its statistics).
fio_ok qd16 --filename="$ISCSI_FIO_URL" --rw=randwrite --bs=8k --offset=16M --size=32M \
    --iodepth=16 --verify=crc32c --verify_fatal=1 --fsync=256 --end_fsync=1
expect_eq "qd16 bytes written" "$(bytes qd16 write)" $((32 * MiB))
expect_eq "qd16 bytes verified" "$(bytes qd16 read)" $((32 * MiB))
expect_eq "qd16 syncs" "$(jq '.jobs[0].sync.total_ios' "$T/qd16.json")" 15

# Two jobs, each with its own session and region; as processes, then as threads.
for model in process thread; do
    extra=(--offset=48M)
    [ $model = thread ] && extra=(--offset=112M --thread)
    fio_ok "two-$model" --filename="$ISCSI_FIO_URL" --rw=randwrite --bs=16k --numjobs=2 \
        --offset_increment=32M --size=32M --iodepth=16 --verify=crc32c --verify_fatal=1 \
        --fsync=64 "${extra[@]}"
    expect_eq "two-$model jobs" "$(jq '.jobs | length' "$T/two-$model.json")" 2
    expect_eq "two-$model bytes written" "$(bytes "two-$model" write)" $((64 * MiB))
    expect_eq "two-$model bytes verified" "$(bytes "two-$model" read)" $((64 * MiB))
done

# (2) an independent reader agrees, both ways.
# Through the engine into [176M, 208M): byte for byte what fio's psync engine writes with the same
# job into a local file, and fio's own verify_only over the backing file passes. The pattern
# holds each block's offset and, unlike crc32c's header, no time stamp: the bytes are a
# function of the job alone.
xfer=(--rw=write --bs=128k --offset=176M --size=32M --verify=pattern --verify_pattern=0x6c67%o)
fio_ok xfer --filename="$ISCSI_FIO_URL" --iodepth=8 --do_verify=0 "${xfer[@]}"
fio --output="$T/ref.out" --name=xfer --ioengine=psync --filename="$T/ref.img" --do_verify=0 \
    "${xfer[@]}" 2>"$T/ref.log" || fail "local reference write failed: $(tail -n 3 "$T/ref.log")"
region_sum() { dd if="$1" bs=1M skip=176 count=32 status=none | sha256sum | cut -d' ' -f1; }
expect_eq "backing file = local reference (sha256 of 32 MiB)" "$(region_sum "$ISCSI_LUN_FILE")" \
    "$(region_sum "$T/ref.img")"
fio --output="$T/vonly.out" --name=xfer --ioengine=psync --filename="$ISCSI_LUN_FILE" \
    --verify_only=1 --verify_fatal=1 "${xfer[@]}" 2>"$T/vonly.log" ||
    fail "verify_only over the backing file failed: $(tail -n 3 "$T/vonly.log")"
echo "ok: psync verify_only over the backing file passes"

# Into the backing file with psync, [208M, 240M); read back and verified through the engine.
back=(--rw=write --bs=64k --offset=208M --size=32M --verify=crc32c)
fio --output="$T/back.out" --name=back --ioengine=psync --filename="$ISCSI_LUN_FILE" \
    --do_verify=0 "${back[@]}" 2>"$T/back.log" ||
    fail "psync write into the backing file failed: $(tail -n 3 "$T/back.log")"
fio_ok back --filename="$ISCSI_FIO_URL" --iodepth=16 --verify_only=1 --verify_fatal=1 "${back[@]}"
expect_eq "engine verify_only of psync data" "$(bytes back read)" $((32 * MiB))

# (3) failures name the target and say why.
# expect_fail NAME URL PATTERN OPTIONS...: fio must fail, its stderr naming URL (or $NAMED when
# set) in quotes and containing PATTERN.
expect_fail() {
    local name=$1 url=$2 pattern=$3 named=${NAMED:-$2}
    shift 3
    if fio_iscsi "$name" --filename="$(fio_escape "$url")" --rw=read --bs=4k --size=1M "$@"; then
        fail "$name: fio succeeded"
    fi
    grep -qF "\"$named\"" "$T/$name.log" ||
        fail "$name: the message does not name $named: $(cat "$T/$name.log")"
    grep -qF -- "$pattern" "$T/$name.log" || fail "$name: no '$pattern' in: $(cat "$T/$name.log")"
    echo "ok: $name fails: $(grep -m 1 lgiscsi "$T/$name.log")"
}
closed=$(tgt_free_port $((ISCSI_PORT + 1)))
expect_fail unreachable "iscsi://127.0.0.1:$closed/$ISCSI_IQN/1" "Connection refused"
expect_fail no-iqn "iscsi://127.0.0.1:$ISCSI_PORT/iqn.2026-11.test.lg:nosuch/1" "Target not found"
expect_fail no-lun "iscsi://127.0.0.1:$ISCSI_PORT/$ISCSI_IQN/9" "LOGICAL_UNIT_NOT_SUPPORTED"
expect_fail no-chap "$ISCSI_CHAP_URL" "Authentication failure"
printf 'username = %s\npassword = wrong-%s\n' "$ISCSI_CHAP_USER" "$ISCSI_CHAP_PASS" >"$T/wrong.creds"
expect_fail wrong-chap "$ISCSI_CHAP_URL" "Authentication failure" --chap_credentials="$T/wrong.creds"
grep -qF "wrong-$ISCSI_CHAP_PASS" "$T/wrong-chap.log" && fail "wrong-chap: the password is logged"
printf 'username = %s\nsecret = x\n' "$ISCSI_CHAP_USER" >"$T/bad.creds"
NAMED=$T/bad.creds expect_fail bad-creds "$ISCSI_CHAP_URL" "line 2: unknown key \"secret\"" \
    --chap_credentials="$T/bad.creds"
expect_fail small-bs "iscsi://127.0.0.1:$ISCSI_PORT/$ISCSI_IQN/2" \
    "read bs=512 is not a multiple of the block size 4096" --bs=512
expect_fail not-a-url "$T/plainfile" "is not an iSCSI URL"

# The right CHAP credentials log in; the password is not logged.
fio_ok chap --filename="$ISCSI_CHAP_FIO_URL" --chap_credentials="$ISCSI_CHAP_CREDS" \
    --rw=randwrite --bs=4k --iodepth=8 --verify=crc32c --verify_fatal=1 --initiator=iqn.2026-11.lg:it
expect_eq "chap bytes verified" "$(bytes chap read)" $((16 * MiB))
grep -qF "$ISCSI_CHAP_PASS" "$T/chap.log" "$T/chap.json" && fail "chap: the password is logged"

# (4) throughput jobs; without size= a job covers the whole LUN.
fio_ok randread --filename="$ISCSI_FIO_URL" --rw=randread --bs=4k --iodepth=16 --time_based \
    --runtime=3
iops=$(jq '.jobs[0].read.iops' "$T/randread.json")
jq -e '.jobs[0].read.iops > 0' "$T/randread.json" >/dev/null || fail "randread: IOPS $iops"
echo "ok: 4k randread QD16: $iops IOPS"

fio_ok seqread --filename="$ISCSI_FIO_URL" --rw=read --bs=128k --iodepth=8
expect_eq "seqread without size= reads the whole LUN" "$(bytes seqread read)" $((256 * MiB))
jq -e '.jobs[0].read.iops > 0' "$T/seqread.json" >/dev/null || fail "seqread: no IOPS"
echo "ok: 128k seqread: $(jq '.jobs[0].read.bw_bytes / 1048576 | floor' "$T/seqread.json") MiB/s"

fio_ok seqwrite4k --filename="$(fio_escape "iscsi://127.0.0.1:$ISCSI_PORT/$ISCSI_IQN/2")" \
    --rw=write --bs=128k --iodepth=8 --verify=crc32c --verify_fatal=1
expect_eq "seqwrite on the 4096-byte-block LUN covers it" "$(bytes seqwrite4k write)" $((16 * MiB))
jq -e '.jobs[0].write.iops > 0' "$T/seqwrite4k.json" >/dev/null || fail "seqwrite4k: no IOPS"
cmp -s <(head -c 1M "$LUN4K_FILE") <(head -c 1M /dev/zero) && fail "seqwrite4k: the LUN file is still zero"

# fio --debug=file shows the geometry READ CAPACITY(16) reported.
fio --debug=file --name=geom --ioengine="external:$ENGINE" --rw=read --bs=4k --size=4k \
    --filename="$(fio_escape "iscsi://127.0.0.1:$ISCSI_PORT/$ISCSI_IQN/2")" >"$T/geom.log" 2>&1 ||
    fail "geom: fio failed: $(tail -n 3 "$T/geom.log")"
grep -q "LUN 2, 4096 blocks of 4096 bytes" "$T/geom.log" ||
    fail "geom: no LUN geometry in fio's debug output: $(grep lgiscsi "$T/geom.log")"
echo "ok: $(grep -o 'lgiscsi: .*' "$T/geom.log")"

# (5) lg's data reduction check of an iSCSI target: a fill with compress_ratio 2 and dedup_ratio 2
# through lgctl's local mode on a CHAP LUN (so the agent reads back with --iscsi-chap); the ratios
# the agent stored are those of it_datareduce's file runs, and exactly what datacheck finds in
# the LUN's backing file.
pg_start
DC_FILE=$TGT_DIR/dc.img
truncate -s 128M "$DC_FILE"
tgt_adm --op new --mode logicalunit --tid 2 --lun 2 -b "$DC_FILE" >>"$TGT_DIR/tgtadm.log" 2>&1 ||
    fail "tgtadm: new LUN 2 on the CHAP target: $(tail -n 2 "$TGT_DIR/tgtadm.log")"
fill_datacheck_spec dc "${ISCSI_CHAP_URL%/1}/2"
dc_t0=$SECONDS
"$LG_BIN/lgctl" --data-dir "$T/lgdata" --allow-destructive --iscsi-chap "$ISCSI_CHAP_CREDS" \
    run "$T/dc.yaml" >"$T/dc.txt" 2>"$T/dc.log" || { cat "$T/dc.log" >&2; fail "dc: lgctl run failed"; }
echo "ok: dc: fill, measured run and their checks through lg in $((SECONDS - dc_t0)) s"
check_fill_datacheck dc "$DC_FILE"

# (6) a target that stops answering: its commands fail after io_timeout, the job ends with EIO
# instead of waiting past its runtime (logout is bounded too).
fio --output="$T/frozen.out" --name=frozen --ioengine="external:$ENGINE" \
    --filename="$ISCSI_FIO_URL" --rw=randread --bs=4k --iodepth=16 --time_based --runtime=60 \
    --io_timeout=3 2>"$T/frozen.log" &
frozen_pid=$!
CLEANUP_PIDS+=("$frozen_pid")
sleep 1.5
kill -STOP "$TGT_PID"
t0=$SECONDS
rc=0
wait "$frozen_pid" || rc=$?
elapsed=$((SECONDS - t0))
kill -CONT "$TGT_PID"
[ $rc -ne 0 ] || fail "frozen: fio succeeded against a frozen target"
[ $elapsed -le 20 ] || fail "frozen: fio took ${elapsed} s to give up (io_timeout=3)"
grep -q "failed: no answer within io_timeout" "$T/frozen.log" ||
    fail "frozen: no timeout message: $(head -n 3 "$T/frozen.log")"
echo "ok: a frozen target fails the job after ${elapsed} s: $(grep -m 1 lgiscsi "$T/frozen.log")"

echo "PASS it_engine_iscsi"
