#!/usr/bin/env bash
# make.sh FIO_BUILDS_DIR [VERSION...]: the fio-version fixtures of this folder, made by real fio
# builds: FIO_BUILDS_DIR/fio-X.Y/fio for each version (default: 3.1 3.7 3.16 3.19 3.28, and 2.21
# when built). How they were built (fio's own repository, tags fio-X.Y, gcc 12, Debian 12):
#   git archive fio-X.Y | tar -x; ./configure [--disable-native] --disable-optimizations \
#     --extra-cflags="-O1 -fcommon -Wno-error -I$SHIM [-include sys/sysmacros.h]"; make fio
# where $SHIM holds stand-ins for headers newer systems changed: linux/raw.h (gone from the
# kernel's headers) and an empty bits/unistd_ext.h (glibc's gettid clashes with old fio's own).
# Every output here is what fio printed (stdout; *.txt files are stdout and stderr as a
# terminal shows them); nothing is edited. Runs use the null engine or small files under a
# private temporary folder, so they take about 40 s per version.
set -euo pipefail
builds=$(cd "$1" && pwd)
shift
here=$(cd "$(dirname "$0")" && pwd)
versions=("$@")
[ ${#versions[@]} -gt 0 ] || versions=(3.1 3.7 3.16 3.19 3.28 2.21)
tmp=$(mktemp -d)
pids=()
cleanup() {
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
    rm -rf "$tmp"
}
trap cleanup EXIT

# one job per direction mix: randrw 70/30 on the null engine, two jobs (no group_reporting)
cat > "$tmp/twojobs.fio" <<'JOB'
[global]
ioengine=null
size=64m
bs=4k
time_based
runtime=2
[a]
rw=randrw
rwmixread=70
numjobs=2
JOB
# the agent's way (agent/jobfile.c): total-latency percentiles and histograms
cat > "$tmp/latpct.fio" <<'JOB'
[global]
ioengine=null
size=64m
bs=8k
time_based
runtime=2
lat_percentiles=1
clat_percentiles=0
[r]
rw=randread
iodepth=4
JOB
cat > "$tmp/stream.fio" <<'JOB'
[global]
ioengine=null
size=64m
bs=4k
time_based
runtime=3
lat_percentiles=1
clat_percentiles=0
[s]
rw=randwrite
numjobs=2
JOB
# two reporting groups: the second waits for the first (stonewall)
cat > "$tmp/groups.fio" <<'JOB'
[global]
ioengine=null
size=64m
time_based
runtime=1
[seqread]
rw=read
bs=128k
[randwrite]
stonewall
rw=randwrite
bs=4k
JOB
# a job that fails: writing to a file nobody may write (error 1, EPERM, and no I/O)
cat > "$tmp/failed.fio" <<'JOB'
[w]
ioengine=psync
rw=write
bs=4k
size=1m
filename=/proc/version
JOB
for v in "${versions[@]}"; do
    fio=$builds/fio-$v/fio
    [ -x "$fio" ] || { echo "no $fio: skipped" >&2; continue; }
    o=$here/fio-$v
    echo "== fio-$v" >&2
    # fio-2 has no lat_percentiles: its jobs report completion-latency percentiles instead
    for j in latpct stream; do
        if [ "${v%%.*}" = 2 ]; then
            grep -v '_percentiles=' "$tmp/$j.fio" > "$tmp/$j-v.fio"
        else
            cp "$tmp/$j.fio" "$tmp/$j-v.fio"
        fi
    done
    (cd "$tmp" && "$fio" --output-format=json twojobs.fio) > "$o.twojobs.json"
    (cd "$tmp" && "$fio" --output-format=json latpct-v.fio) > "$o.latpct.json"
    (cd "$tmp" && "$fio" --output-format=json groups.fio) > "$o.groups.json"
    (cd "$tmp" && "$fio" --output-format=json failed.fio) > "$o.failed.json" 2>/dev/null || true
    # fio-2.2 has no json+ and no JSON status stream (it prints its normal text), and its client
    # mode crashed here (segmentation fault): only the outputs above
    case $v in 2.2.*) continue ;; esac
    (cd "$tmp" && "$fio" --output-format=json+ latpct-v.fio) > "$o.latpct.jsonplus"
    (cd "$tmp" && "$fio" --output-format=json+ --status-interval=1 stream-v.fio) > "$o.stream.json"
    # fio's own text report, then the JSON, in one output
    (cd "$tmp" && "$fio" --output-format=normal,json groups.fio) > "$o.normal-json.txt"
    # client mode: two fio servers on loopback, one job file
    p1=$((20000 + RANDOM % 20000))
    p2=$((p1 + 1))
    "$fio" --server=ip:127.0.0.1,$p1 > /dev/null 2>&1 &
    pids+=($!)
    "$fio" --server=ip:127.0.0.1,$p2 > /dev/null 2>&1 &
    pids+=($!)
    sleep 1
    (cd "$tmp" && "$fio" --output-format=json --client=ip:127.0.0.1,$p1 twojobs.fio \
        --client=ip:127.0.0.1,$p2 twojobs.fio) > "$o.client.json" || true
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done
    pids=()
done
