# shellcheck shell=bash
# figure.sh: what every bench sources to take a figure it prints or divides by. A figure read
# from machine-readable output (lgctl --format json, SQL, fio's JSON, a tool's one-line result)
# must be a positive number: an empty, "null" or zero figure means the output changed or the
# run failed, and the bench stops saying which figure, rather than print a ratio of 0.

# need_figure BENCH WHAT VALUE [FILE]: exit 1 naming WHAT unless VALUE is a number > 0; the
# last lines of FILE (the output it was read from) follow as detail. Call it in the bench's own
# shell, not inside $(...), so that the exit ends the bench.
need_figure() {
    if ! awk -v v="$3" 'BEGIN { exit !(v ~ /^[0-9]*\.?[0-9]+([eE][-+]?[0-9]+)?$/ && v + 0 > 0) }'; then
        echo "$1: FAIL: $2 is missing or zero (read \"$3\")" >&2
        if [ -n "${4:-}" ] && [ -f "$4" ]; then
            echo "$1: it was read from $4, which ends:" >&2
            tail -n 20 "$4" >&2
        fi
        exit 1
    fi
}

# time_cmd NAME: the median seconds of $reps calls of run_cmd NAME (the bench's own: output into
# $T/out.NAME and $T/err.NAME); a call that fails stops the bench with its errors.
time_cmd() {
    local ts=() i t0 t1 rc
    for ((i = 0; i < reps; i++)); do
        t0=$(date +%s%N)
        rc=0
        run_cmd "$1" || rc=$?
        [ "$rc" = 0 ] || { cat "$T/err.$1" >&2; fail "$1 failed (exit $rc)"; }
        t1=$(date +%s%N)
        ts+=("$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", (b - a) / 1e9 }')")
    done
    printf '%s\n' "${ts[@]}" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}
