#!/usr/bin/env bash
# engine_smb: 128 KiB sequential write then read of one file through the lgsmb fio engine (1 job,
# queue depth 1) against the same through a plain libsmbclient loop (bin/smbcopy), both on a
# private smbd on loopback, alternating which goes first. Prints MB/s of each, the ratio
# lgsmb / smbcopy (target: >= 0.8 in both directions, on the median of the rounds' ratios: the
# two runs of a round see the same machine) and the client CPU per 128 KiB call, which other
# load on the machine disturbs less than MB/s. A report, not a test: it exits 0 either way.
# usage: tests/bench/engine_smb.sh [BUILD_DIR] [MIB] [ROUNDS]
set -euo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:-$src/build}" && pwd)
mib=${2:-256}
rounds=${3:-7}
export LG_BIN=$build/bin LG_SRC=$src
engine=$build/lib/lg/engines/lgsmb.so
[ -f "$engine" ] && [ -x "$LG_BIN/smbcopy" ] ||
    { echo "build lg with its engines first: deploy/build.sh $build" >&2; exit 1; }
command -v jq >/dev/null || { echo "jq is needed" >&2; exit 1; }
. "$src/tests/integration/lib.sh"
. "$src/tests/integration/smb.sh"
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
        "\(.[$d].bw_bytes / 1e6) \((.usr_cpu + .sys_cpu) / 100 * .[$d].runtime / 1000)"'
}

# copy_run RW FILE: the same through smbcopy.
copy_run() {
    "$LG_BIN/smbcopy" "$1" "$url/$2" "$bytes" "$SMB_CREDS" 2>"$T/copy.log" ||
        fail "smbcopy: $(cat "$T/copy.log")"
}

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

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
