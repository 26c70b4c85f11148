#!/usr/bin/env bash
# it_progress: lgctl run as a reviewer sees it. On a terminal (a tmux pane) two lines redrawn in
# place: the current run (workload, load, protocol, SUT config labels, phase), its bar, live IOPS
# and latency (or "ramping up"), the campaign's bar and ETA; when not a terminal, a plain line per
# finished run; with --quiet, nothing but the report.
. "$(dirname "$0")/lib.sh"
command -v tmux >/dev/null || fail "tmux is missing (deploy/install-deps.sh installs it)"
unset LG_DATABASE_URL # local mode's own cluster, as a new user has it
mkdir -p "$T/target"
cat >"$T/spec.yaml" <<SPEC
name: it-progress
sut:
  labels: {dedup: "off", build: b1, media: hdd, pool: raidz1, compression: lz4}
target: $T/target/data.bin
size: 16M
profiles: [{name: r, bs: 4k, pattern: random, read: 100, sweep: [1T1Q, 1T2Q]}]
ramp: 2s
runtime: 4s
precondition: none
SPEC
S="lg-it-progress-$$"
tmux -L "$S" new-session -d -s main -x 160 -y 20 \
    "'$LG_BIN/lgctl' run '$T/spec.yaml' --data-dir '$T/d' >'$T/tty.out'; echo \$? >'$T/tty.rc'; sleep 600"
TMUX_PID=$(tmux -L "$S" display-message -p -t main '#{pid}')
CLEANUP_PIDS+=("$TMUX_PID")
trap 'rc=$?; tmux -L "$S" kill-server 2>/dev/null || true; cleanup $rc' EXIT
saw_ramp=0 saw_iops=0
for _ in $(seq 1 150); do
    tmux -L "$S" capture-pane -p -t main >"$T/pane.txt"
    grep -q "ramping up (2 s, no figures kept)" "$T/pane.txt" && saw_ramp=1
    if grep -qE "^run \[[#.]{20}\] [0-9]+/6 s  [0-9,]+ IOPS  [0-9.]+ ms   campaign \[[#.]{20}\] [0-9]/2 runs  ETA [0-9]h[0-9]{2}m[0-9]{2}s" "$T/pane.txt"; then
        saw_iops=1
        cp "$T/pane.txt" "$T/pane-iops.txt"
    fi
    [ -s "$T/tty.rc" ] && break
    sleep 0.2
done
[ -s "$T/tty.rc" ] || fail "lgctl run did not end in the tmux pane"
expect_eq "lgctl run on a terminal: exit" "$(cat "$T/tty.rc")" 0
[ $saw_ramp = 1 ] || fail "the progress never said the run was ramping up"
[ $saw_iops = 1 ] || { cat "$T/pane.txt"; fail "the progress never showed live IOPS, latency, bars and ETA"; }
grep -qE "^run [0-9]+: r read 1T[12]Q over local, config 1 \(b1 hdd raidz1 lz4, dedup off\) \(measure\)$" \
    "$T/pane-iops.txt" || { cat "$T/pane-iops.txt"; fail "the progress does not say what runs"; }
echo "ok: on a terminal: $(grep -E '^run \[' "$T/pane-iops.txt")"
# Redrawn in place: the pane holds one progress block, not a line per poll.
expect_eq "progress lines in the pane" "$(grep -cE '^run \[' "$T/pane-iops.txt")" 1
grep -q '"it-progress": done' "$T/tty.out" || fail "no report after the progress"

# Not a terminal: plain lines, one per finished run.
"$LG_BIN/lgctl" run "$T/spec.yaml" --data-dir "$T/d" >"$T/plain.out" 2>"$T/plain.err" ||
    fail "lgctl run (not a terminal)"
grep -q $'\033' "$T/plain.err" && fail "escape sequences when stderr is not a terminal"
expect_eq "plain lines per finished run" "$(grep -c "runs finished" "$T/plain.err")" 3
# --quiet: the report only.
"$LG_BIN/lgctl" run "$T/spec.yaml" --data-dir "$T/d" --quiet >"$T/quiet.out" 2>"$T/quiet.err" ||
    fail "lgctl run --quiet"
[ ! -s "$T/quiet.err" ] || { cat "$T/quiet.err"; fail "lgctl run --quiet wrote to stderr"; }
grep -q '"it-progress": done' "$T/quiet.out" || fail "lgctl run --quiet printed no report"
echo "PASS"
