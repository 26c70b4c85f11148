#!/usr/bin/env bash
# it_agent_fio_version: the agent runs with the fio its host has, from fio-3.1 on (issue 44): an
# older fio is refused at start with a message naming the oldest supported, a supported one
# starts and says its version (which registration carries to lg.agent.fio_version; the reading
# of each version's json+ status stream is test_fio_versions' part). The fio here is a stand-in
# that only answers --version, as each version does.
. "$(dirname "$0")/lib.sh"
fake() { # fake VERSION: a "fio" whose --version prints VERSION
    printf '#!/bin/sh\necho %s\n' "$1" >"$T/fio-$1"
    chmod +x "$T/fio-$1"
}
for v in fio-3.0 fio-2.21 fio-2.2.10; do
    fake "$v"
    if "$LG_BIN/lg-agent" --controller tcp://127.0.0.1:1 --plaintext --fio "$T/fio-$v" \
        --work-dir "$T/wd-$v" >"$T/$v.log" 2>&1; then
        fail "$v: the agent started"
    fi
    grep -q "fio \"$T/fio-$v\" is $v; lg-agent needs fio-3.1 or newer" "$T/$v.log" ||
        fail "$v: $(cat "$T/$v.log")"
    echo "ok: $v refused: $(grep error "$T/$v.log" | sed 's/.*error: //')"
done
for v in fio-3.1 fio-3.16 fio-3.28-12-gabcdef0; do
    fake "$v"
    "$LG_BIN/lg-agent" --controller tcp://127.0.0.1:1 --plaintext --fio "$T/fio-$v" \
        --work-dir "$T/wd-$v" >"$T/$v.log" 2>&1 &
    pid=$!
    CLEANUP_PIDS+=("$pid")
    wait_line "$T/$v.log" "\\($v\\) connecting to" 20 || fail "$v: $(cat "$T/$v.log")"
    kill "$pid"
    wait "$pid" 2>/dev/null || true
    echo "ok: $v accepted"
done
