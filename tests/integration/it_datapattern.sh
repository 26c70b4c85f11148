#!/usr/bin/env bash
# it_datapattern: the fio options lg writes for a data pattern (core/lg_datapattern.c) make real
# fio 3.33 write data whose per-record zstd/lz4 ratios and dedup ratio, as datacheck measures
# them the way ZFS would, match the campaign's compress_ratio and dedup_ratio.
. "$(dirname "$0")/lib.sh"

command -v fio >/dev/null || fail "fio is not installed (deploy/install-deps.sh installs it)"

# job NAME COMPRESS DEDUP UNIT BS RW NUMJOBS IO_SIZE: write $T/NAME.fio around the options that
# datapattern_job prints. Every job writes the same 256 MiB file; random jobs write IO_SIZE
# each (16 x 64M = 4 passes), so little of the file is left as fio laid it out.
job() {
    local name=$1 c=$2 d=$3 unit=$4 bs=$5 rw=$6 nj=$7 io=$8
    {
        printf '[global]\nioengine=psync\nfilename=%s\nsize=256M\n' "$T/data"
        printf 'rw=%s\nbs=%s\nnumjobs=%s\n' "$rw" "$bs" "$nj"
        if [ "$rw" = randwrite ]; then
            printf 'io_size=%s\nrandrepeat=0\nnorandommap=1\n' "$io"
        fi
        "$LG_BIN/datapattern_job" "$c" "$d" "$unit" "$bs" 2>>"$T/$name.log" ||
            fail "$name: datapattern_job refused $c $d $unit $bs: $(tail -n 1 "$T/$name.log")"
        printf '[w]\n'
    } >"$T/$name.fio"
}

# run NAME: run $T/NAME.fio; the data file is kept for the next job or the check.
run() {
    fio --output="$T/$1.fio.log" "$T/$1.fio" >/dev/null 2>>"$T/$1.log" ||
        fail "$1: fio failed: $(tail -n 3 "$T/$1.log")"
}

# between NAME KEY VALUE LO HI
between() {
    awk -v v="$3" -v lo="$4" -v hi="$5" 'BEGIN { exit !(v >= lo && v <= hi) }' ||
        fail "$1: $2 = $3, want $4 .. $5"
}

# check NAME UNIT CLO CHI DLO DHI: measure $T/data in records of UNIT; zstd and lz4 ratios must be
# in CLO..CHI and the dedup ratio in DLO..DHI.
check() {
    local name=$1 unit=$2 out z l d
    out=$("$LG_BIN/datacheck" "$T/data" "$unit") || fail "$name: datacheck failed"
    z=$(sed -n 's/.* zstd=\([0-9.]*\).*/\1/p' <<<"$out")
    l=$(sed -n 's/.* lz4=\([0-9.]*\).*/\1/p' <<<"$out")
    d=$(sed -n 's/.* dedup=\([0-9.]*\).*/\1/p' <<<"$out")
    between "$name" zstd "$z" "$3" "$4"
    between "$name" lz4 "$l" "$3" "$4"
    between "$name" dedup "$d" "$5" "$6"
    echo "ok: $name: $out"
}

# case NAME COMPRESS DEDUP UNIT BS RW NUMJOBS: random cases first fill the file sequentially
# with the same pattern (a preconditioning pass), as lg does.
case_run() {
    local name=$1 c=$2 d=$3 unit=$4 bs=$5 rw=$6 nj=$7
    rm -f "$T/data"
    if [ "$rw" = randwrite ]; then
        job "$name-fill" "$c" "$d" "$unit" "$bs" write 1 0
        run "$name-fill"
    fi
    job "$name" "$c" "$d" "$unit" "$bs" "$rw" "$nj" 64M
    run "$name"
}

# Targets: 2:1 within 15% (1.70 .. 2.30), dedup 2.0 within 10% (1.80 .. 2.20); incompressible
# and unique data 1 .. 1.05 (an all-zero file would measure 0, "unbounded").

# 128 KiB records (ZFS recordsize): the sequential fill at bs=128k.
case_run seq128-c2d2 2 2 128k 128k write 1
check seq128-c2d2 128k 1.70 2.30 1.80 2.20
case_run seq128-c1d1 1 1 128k 128k write 1
check seq128-c1d1 128k 1 1.05 1 1.05
# 16 jobs of 4k/8k random writes: compression holds; whole-record dedup cannot be made.
case_run rnd4-128-c2d1 2 1 128k 4k randwrite 16
check rnd4-128-c2d1 128k 1.70 2.30 1 1.05
case_run rnd8-128-c1d1 1 1 128k 8k randwrite 16
check rnd8-128-c1d1 128k 1 1.05 1 1.05
for bs in 4k 8k 64k; do
    rc=0
    "$LG_BIN/datapattern_job" 2 2 128k $bs >/dev/null 2>"$T/refuse.log" || rc=$?
    [ $rc -eq 3 ] || fail "dedup 2 at 128k records with bs $bs: exit $rc, want 3 (refused)"
    grep -q "use a block size that is a multiple of 128K" "$T/refuse.log" ||
        fail "dedup 2 at bs $bs: refusal does not say why: $(cat "$T/refuse.log")"
done
echo "ok: dedup at 128k records with bs 4k, 8k, 64k is refused"
# Past 50, or between the ratios whole percents give, dedup is refused rather than missed.
for d in 40 70; do
    rc=0
    "$LG_BIN/datapattern_job" 1 $d 128k 128k >/dev/null 2>"$T/refuse.log" || rc=$?
    [ $rc -eq 3 ] || fail "dedup $d: exit $rc, want 3 (refused)"
done
echo "ok: dedup 40 and 70 are refused"

# 4 KiB records (block targets).
case_run seq4-c2d2 2 2 4k 4k write 1
check seq4-c2d2 4k 1.70 2.30 1.80 2.20
case_run seq4-c1d1 1 1 4k 4k write 1
check seq4-c1d1 4k 1 1.05 1 1.05
case_run rnd4-4-c2d2 2 2 4k 4k randwrite 16
check rnd4-4-c2d2 4k 1.70 2.30 1.80 2.20
case_run rnd8-4-c2d2 2 2 4k 8k randwrite 16
check rnd8-4-c2d2 4k 1.70 2.30 1.80 2.20
case_run rnd4-4-c1d1 1 1 4k 4k randwrite 16
check rnd4-4-c1d1 4k 1 1.05 1 1.05
