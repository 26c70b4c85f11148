# lib.sh: shared helpers for integration tests. Each test gets its own folder, its own
# PostgreSQL cluster on a private Unix socket, and a trap that stops what it started by PID.
set -euo pipefail

: "${LG_BIN:?LG_BIN must point at the bin folder of the build}"
: "${LG_SRC:?LG_SRC must point at the source tree}"

T=$(mktemp -d /tmp/lg-it.XXXXXX)
chmod 711 "$T"
PG_BIN=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)
PG_DIR=""
CLEANUP_PIDS=()
CLEANUP_LOOPS=()

as_pg() {
    if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

cleanup() {
    local rc=$?
    for pid in "${CLEANUP_PIDS[@]}"; do
        kill "$pid" 2>/dev/null || true
    done
    for dev in "${CLEANUP_LOOPS[@]}"; do
        losetup -d "$dev" 2>/dev/null || true
    done
    if [ -n "$PG_DIR" ] && [ -f "$PG_DIR/data/postmaster.pid" ]; then
        local pgpid
        pgpid=$(head -n 1 "$PG_DIR/data/postmaster.pid")
        kill -INT "$pgpid" 2>/dev/null || true
        for _ in $(seq 1 100); do kill -0 "$pgpid" 2>/dev/null || break; sleep 0.1; done
    fi
    # A private cluster lgctl left running (it should not) is stopped by its PID too.
    for pidfile in "$T"/*/pg/data/postmaster.pid; do
        [ -f "$pidfile" ] || continue
        echo "cleanup: a PostgreSQL was still running in ${pidfile%/data/postmaster.pid}" >&2
        kill -INT "$(head -n 1 "$pidfile")" 2>/dev/null || true
        sleep 1
    done
    if [ $rc -ne 0 ]; then
        echo "--- test failed (exit $rc); logs in $T:" >&2
        find "$T" -name '*.log' -size -200k 2>/dev/null | while read -r f; do
            echo "--- $f" >&2; tail -n 30 "$f" >&2
        done
    fi
    rm -rf "$T"
    exit $rc
}
trap cleanup EXIT

# Start a throwaway cluster listening only on a socket in $T/pg; sets PGHOST and LG_DATABASE_URL.
pg_start() {
    PG_DIR="$T/pg"
    install -d -m 700 "$PG_DIR"
    [ "$(id -u)" = 0 ] && chown postgres:postgres "$PG_DIR"
    as_pg "$PG_BIN/initdb" -D "$PG_DIR/data" -U postgres --auth=trust -E UTF8 \
        --locale=C.UTF-8 --no-sync >"$T/initdb.log" 2>&1
    as_pg "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -l "$PG_DIR/server.log" -w \
        -o "-c listen_addresses='' -c unix_socket_directories='$PG_DIR' -p 5432" start >/dev/null
    export PGHOST="$PG_DIR" PGPORT=5432 PGUSER=postgres
    psql -qAt -d postgres -c "CREATE DATABASE lg" >/dev/null
    export PGDATABASE=lg
    export LG_DATABASE_URL="host=$PG_DIR port=5432 user=postgres dbname=lg"
}

q() { psql -qAt -v ON_ERROR_STOP=1 -c "$1"; }

fail() { echo "FAIL: $*" >&2; exit 1; }

expect_eq() { # name got want
    [ "$2" = "$3" ] || fail "$1: got '$2', want '$3'"
    echo "ok: $1 = $3"
}
