#!/usr/bin/env bash
# it_sample_agree: each per-second sample lg stores adds up within its second, whatever the
# engine (issue 41). A 4 KiB random read at 4T4Q through lg-controller and lg-agent on a file,
# on an smb:// file (lgsmb, smbd on loopback) and on an iscsi:// LUN (lgiscsi, tgtd on
# loopback): in lg.sample, ios, bytes / 4096 and lat_n of every sample agree within 1% (a
# sample's ios are the I/Os completed in it; fio's total_ios, which counts them issued and so
# runs ahead by the 16 in flight, is allowed that much only in fio's own reports below), and no
# sample but a run's last spans more than 1.5 s (fio reports each second).
# Then the lgsmb job straight through fio, with fio's own log of every I/O (write_lat_log, at
# completion): its reports agree within themselves, come each second, and hold what the log says
# completed between them. Figures that disagree fail at once; an interval over 1.5 s is
# confirmed on a second run, and told but let pass under 5 s when it recurs (see confirmed). The
# old lgsmb failed both: bytes 37% under and 150% over an interval's I/Os, reports 1.7 to 1.9 s
# apart.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/smb.sh"
. "$(dirname "$0")/tgt.sh"

command -v fio >/dev/null || fail "fio is not installed"
command -v python3 >/dev/null || fail "python3 is not installed"
ENGINE=$(cd "$LG_BIN/../lib/lg/engines" 2>/dev/null && pwd)/lgsmb.so
[ -f "$ENGINE" ] || fail "no $LG_BIN/../lib/lg/engines/lgsmb.so: build with LG_ENGINES=ON"
CHECK="$(cd "$(dirname "$0")" && pwd)/sample_agree.py"
INFLIGHT=16 # 4 jobs x iodepth 4
pg_start
lg_keys a1
smb_start
tgt_start 128M
SMB_URL="smb://127.0.0.1:$SMB_PORT/$SMB_SHARE/agree.bin"
mkdir -p "$T/target"
cd "$T" # whatever fio leaves in its working folder goes with $T
"$LG_BIN/lgctl" db migrate >/dev/null
start_controller
start_agent a1 --smb-credentials "$SMB_CREDS" --allow "$T/target" \
    --allow "smb://127.0.0.1:$SMB_PORT/$SMB_SHARE" --allow "${ISCSI_URL%/*}" --allow-destructive

# agree_lg NAME: the campaign NAME (file, smb, iscsi) through the controller and agent; its
# samples in $T/NAME.txt are checked; returns sample_agree.py's status.
agree_lg() {
    cat >"$T/$1.yaml" <<SPEC
name: $1
configs:
  - labels: {engine: file}
    target: $T/target/agree.bin
  - labels: {engine: lgsmb}
    target: "$SMB_URL"
  - labels: {engine: lgiscsi}
    target: "$ISCSI_URL"
between_configs: none
size: 64M
profiles: [{name: r, bs: 4k, pattern: random, read: 100, sweep: none}]
threads: 4
qd: 4
ramp: 0s
runtime: 6s
precondition: none
SPEC
    submit_file "$1"
    wait_campaign "$1"
    expect_eq "$1: runs done (file, smb, iscsi)" \
        "$(q "SELECT string_agg(r.target_kind || ':' || r.state, ' ' ORDER BY r.ordinal)
              FROM lg.run r JOIN lg.campaign c USING (campaign_id) WHERE c.name = '$1'")" \
        "file:done smb:done iscsi:done"
    q "SELECT r.target_kind, s.seq, s.interval_ms, s.ios, s.bytes, s.lat_n,
              (s.seq = max(s.seq) OVER (PARTITION BY s.run_id))::int
         FROM lg.sample s JOIN lg.run r USING (run_id) JOIN lg.campaign c USING (campaign_id)
        WHERE c.name = '$1' AND s.direction = 'read' ORDER BY r.ordinal, s.seq" |
        tr '|' ' ' >"$T/$1.txt"
    local kind n rc=0
    python3 "$CHECK" samples "$T/$1.txt" 4096 0 || rc=$?
    for kind in file smb iscsi; do # fewer: intervals far over a second
        n=$(awk -v k=$kind '$1 == k && $4 > 0' "$T/$1.txt" | wc -l)
        [ "$n" -ge 4 ] && continue
        echo "FAIL: $1: $kind: $n samples with I/O (a 6 s run has 6)"
        [ $rc != 0 ] || rc=3
    done
    return $rc
}

# agree_fio NAME: the lgsmb job straight through fio, a line per I/O in its latency log; its
# reports are checked against themselves and the log; returns sample_agree.py's status.
agree_fio() {
    {
        printf '[global]\nioengine=external:%s\ncredentials=%s\n' "$ENGINE" "$SMB_CREDS"
        printf 'filename=%s\n' "${SMB_URL//:/\\:}"
        printf '%s\n' size=64M rw=randread bs=4k iodepth=4 numjobs=4 time_based=1 runtime=6 \
            lat_percentiles=1 clat_percentiles=0 randrepeat=0 norandommap=1 \
            write_lat_log="$T/$1" log_unix_epoch=1
        printf '[agree]\n'
    } >"$T/$1.fio"
    fio --output-format=json+ --status-interval=1 "$T/$1.fio" >"$T/$1.json" 2>"$T/$1.log" ||
        fail "$1: fio failed: $(tail -n 5 "$T/$1.log")"
    local rc=0
    python3 "$CHECK" fio "$T/$1.json" "$T/$1" 4096 $INFLIGHT || rc=$?
    return $rc
}

# confirmed WHAT FUNCTION: FUNCTION's checks must pass. Figures that disagree fail at once, as
# does an interval over 5 s. One over 1.5 s is confirmed on a second run; if that has one too,
# it is told and let pass: on this 2-CPU host the 37 processes of an SMB run (fio's 4 jobs and 16
# workers, 16 smbd's), with other test suites beside them, can keep a job or fio's reporting
# thread from a CPU for seconds (a poll of 10 ms was seen to return after 2.8 s), which no engine
# can answer through. The old engine's figures disagreed in every run.
confirmed() {
    local rc=0
    "$2" "$1" || rc=$?
    if [ $rc = 3 ] || [ $rc = 4 ]; then
        echo "note: $1: an interval over 1.5 s; confirming on a second run"
        rc=0
        "$2" "$1-again" || rc=$?
        if [ $rc = 3 ]; then
            echo "note: $1: an interval of 1.5 to 5 s again: processes of this host waited for a" \
                "CPU that long; every interval's figures agree"
            rc=0
        fi
    fi
    [ $rc = 0 ] || fail "$1: figures of an interval disagree, or it spans too long (rc $rc)"
}

# --- through lg: every engine's samples in lg.sample ------------------------------------------
confirmed agree agree_lg
echo "ok: lg.sample: ios, bytes and lat_n agree in every sample, each spans at most 1.5 s"

# --- straight through fio: its reports against its own log of every I/O -------------------------
confirmed fio agree_fio
echo "ok: lgsmb straight through fio: a report each second, as fio's own log of every I/O says"
echo "PASS it_sample_agree"
