#!/usr/bin/env bash
# run.sh [SECONDS]: builds every fuzz target under tests/fuzz/ with clang's libFuzzer, ASan and
# UBSan, and runs each for SECONDS (default 60) over a copy of its seed corpus. Prints the
# executions per target; exits 1 when a target crashed (the input is kept in the work dir).
# Env: CC (default clang), LG_FUZZ_WORK (work dir, default a new temporary one), LG_FUZZ_TARGETS.
set -uo pipefail
secs=${1:-60}
src=$(cd "$(dirname "$0")/../.." && pwd)
cc=${CC:-clang}
work=${LG_FUZZ_WORK:-$(mktemp -d /tmp/lg-fuzz.XXXXXX)}
targets=${LG_FUZZ_TARGETS:-"wire spec fio csv chart app prom reduction apprec diskspd"}
mkdir -p "$work/obj" "$work/proto"
echo "work dir: $work"

san="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
pkgs="libzmq libuv yaml-0.1 jansson libprotobuf-c libpq libzstd liblz4 libcrypto libcurl"
cflags="-g -O1 $san -fsanitize=fuzzer-no-link -D_GNU_SOURCE -DLG_VERSION=\"fuzz\"
  -I$src/core -I$src/net -I$src/sys -I$src/agent -I$src/agent/engines -I$src/controller -I$src/db
  -I$src/lgctl
  -I$src/web-export -I$work/proto
  $(pkg-config --cflags $pkgs)"
libs="$(pkg-config --libs $pkgs) -lpthread -lm"

die() { echo "run.sh: $*" >&2; exit 2; }
protoc-c --c_out="$work/proto" -I"$src/proto" "$src/proto/lg.proto" || die "protoc-c failed"

# The project's code as archives, so that each target pulls in only what it calls.
archive() { # name sources...
    local name=$1 objs=() f o
    shift
    for f in "$@"; do
        o="$work/obj/${name}_$(basename "${f%.c}").o"
        $cc $cflags -c "$f" -o "$o" || die "could not compile $f"
        objs+=("$o")
    done
    rm -f "$work/lib$name.a"
    ar rcs "$work/lib$name.a" "${objs[@]}" || die "ar $name failed"
}
archive core "$work/proto/lg.pb-c.c" "$src"/core/*.c "$src"/net/*.c "$src"/sys/*.c
archive agent $(ls "$src"/agent/*.c | grep -Ev '/(main|platform_win|service_win|hold_win)\.c$')
archive server $(ls "$src"/controller/*.c "$src"/db/*.c "$src"/lgctl/*.c |
    grep -Ev '/(controller_main|lgctl|local|migrate)\.c$')

# Seeds: the committed corpus, or for the first two targets the inputs they were written for.
seeds() {
    case $1 in
    fio) ls "$src"/tests/unit/data/*.json "$src"/tests/unit/data/*.txt ;;
    spec) ls "$src"/examples/*.yaml "$src"/tests/fuzz/corpus/spec/* 2>/dev/null ;;
    app) ls "$src"/tests/unit/data/app/*.txt ;;
    prom) ls "$src"/tests/unit/data/prom/*.txt ;;
    reduction) ls "$src"/tests/unit/data/reduction/*.txt ;;
    *) ls "$src"/tests/fuzz/corpus/"$1"/* ;;
    esac
}
extra() {
    case $1 in
    chart) echo "$src/web-export/chart.c" "$src"/web-export/svg*.c ;;
    esac
}

fail=0
summary=""
for t in $targets; do
    bin="$work/fuzz_$t"
    $cc $cflags -fsanitize=fuzzer "$src/tests/fuzz/fuzz_$t.c" $(extra "$t") -o "$bin" \
        "$work/libserver.a" "$work/libagent.a" "$work/libcore.a" $libs ||
        die "could not build fuzz_$t"
    corpus="$work/corpus_$t"
    mkdir -p "$corpus"
    cp $(seeds "$t") "$corpus"/
    log="$work/fuzz_$t.log"
    echo "== fuzz_$t: ${secs}s over $(ls "$corpus" | wc -l) inputs"
    (cd "$work" && "$bin" -max_total_time="$secs" -max_len=1048576 -print_final_stats=1 \
        -artifact_prefix="$work/${t}_" "$corpus" >"$log" 2>&1)
    rc=$?
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
    speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
    cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1)
    line="fuzz_$t: ${execs:-?} executions (${speed:-?}/s), ${cov:-cov: ?}, corpus $(ls "$corpus" | wc -l)"
    if [ $rc -ne 0 ]; then
        fail=1
        line="$line, CRASHED (rc $rc): $(ls "$work/${t}_"* 2>/dev/null | tr '\n' ' ')"
        grep -E '^(==[0-9]+==ERROR|SUMMARY|    #[0-9]+ )' "$log" | head -30
    fi
    echo "$line"
    summary="$summary$line"$'\n'
done
echo "---"
printf '%s' "$summary"
exit $fail
