#!/usr/bin/env bash
# it_targets: campaigns over smb:// and iscsi:// targets through the lgsmb and lgiscsi engines,
# against a live smbd and tgtd on loopback: the 4k-rand and 128k-seq profiles complete and store
# results; what was written reads back through an independent client (smbclient, iscsi-dd); a
# wrong password, an unreachable host, a missing share, a missing LUN and a missing engine each
# fail Prepare with a message naming the target, and the agent stays up.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/smb.sh"
. "$(dirname "$0")/tgt.sh"
pg_start
lg_keys good badpw noeng
smb_start
tgt_start 128M
install -d -o "$SMB_USER" "$SMB_SHARE_DIR/lg" # folders on a share are the reviewer's to make
"$LG_BIN/lgctl" db migrate >/dev/null
start_controller
SMB_BASE="smb://127.0.0.1:$SMB_PORT/$SMB_SHARE"
ISCSI_BASE=${ISCSI_URL%/*}
printf 'username = %s\npassword = wrong-%s\n' "$SMB_USER" "$RANDOM" >"$T/bad.creds"
chmod 600 "$T/bad.creds"
agent() { # NAME [options...]
    local name=$1
    shift
    start_agent "$name" --allow "$SMB_BASE" --allow "smb://127.0.0.1:1/$SMB_SHARE" \
        --allow "$ISCSI_BASE" --allow "smb://127.0.0.1:$SMB_PORT/nosuch" --allow-destructive "$@"
}
agent good --smb-credentials "$SMB_CREDS"
agent badpw --smb-credentials "$T/bad.creds"
agent noeng --smb-credentials "$SMB_CREDS" --engine-dir "$T/no-engines"
expect_eq "engines in Hello" "$(q "SELECT facts -> 'engines' @> '[\"lgsmb\", \"lgiscsi\"]'
    FROM lg.agent WHERE name = 'good'")" t
expect_eq "no engines without the folder" "$(q "SELECT facts -> 'engines' @> '[\"lgsmb\"]'
    FROM lg.agent WHERE name = 'noeng'")" f

submit() { # NAME; spec on stdin; prints the campaign's final state
    cat >"$T/$1.yaml"
    "$LG_BIN/lgctl" --controller "ipc://$T/ctl.sock" submit "$T/$1.yaml" >/dev/null ||
        fail "submit $1"
    local st=""
    for _ in $(seq 1 600); do
        st=$(q "SELECT state FROM lg.campaign WHERE name = '$1'")
        [ "$st" = done ] || [ "$st" = failed ] && break
        sleep 0.2
    done
    echo "$st"
}

# 1. Both protocols, both profiles, on the agent with credentials.
st=$(submit review <<SPEC
name: review
configs:
  - labels: {build: loopback}
    targets:
      - {target: "$SMB_BASE/lg/data.bin", agents: [good]}
      - {target: "$ISCSI_URL", agents: [good]}
size: 64M
profiles: [4k-rand, 128k-seq]
threads: 2
qd: 4
runtime: 2s
precondition: none
SPEC
)
echo "review: $st"
q "SELECT protocol, profile, direction, state, coalesce(error, '') FROM lg.run ORDER BY run_id"
expect_eq "review: runs done" "$(q "SELECT (count(*) FILTER (WHERE r.state = 'done'))::text || '/'
    || count(*)::text FROM lg.run r JOIN lg.campaign c USING (campaign_id) WHERE c.name = 'review'")" 8/8
expect_eq "review: protocols" "$(q "SELECT string_agg(DISTINCT protocol, ',') FROM lg.run")" iscsi,smb
expect_eq "review: every run measured I/O" "$(q "SELECT count(*) FROM lg.result x JOIN lg.run r
    USING (run_id) WHERE x.agent_id IS NULL AND x.ios > 0")" 8
expect_eq "review: the engines ran" "$(q "SELECT string_agg(DISTINCT regexp_replace(
    ra.fio_json::jsonb -> 'global options' ->> 'ioengine', '.*/', ''), ',') FROM lg.run_agent ra")" \
    lgiscsi.so,lgsmb.so
for run in $(q "SELECT run_id FROM lg.run"); do
    d=$(q "SELECT CASE direction WHEN 'write' THEN 'write' ELSE 'read' END FROM lg.run WHERE run_id = $run")
    check_merged "$run" "$d"
done
# The file on the share is the size asked for, seen through smbclient.
smbclient "//127.0.0.1/$SMB_SHARE" -p "$SMB_PORT" -A "$SMB_CREDS" -m SMB3 \
    -c "get lg/data.bin $T/smb-copy.bin" >"$T/smbclient.log" 2>&1 || fail "smbclient get"
expect_eq "smb: file size" "$(stat -c %s "$T/smb-copy.bin")" 67108864

# 2. What a write run put through each engine is there for the other clients: a sequential
# write of a pattern that compresses 2:1, then the share's file as smbclient reads it, and the
# LUN as tgtd stored it, measured record by record (lg's datacheck, zstd per 128 KiB).
st=$(submit pattern <<SPEC
name: pattern
configs:
  - labels: {build: pattern}
    targets:
      - {target: "$SMB_BASE/lg/pattern.bin", agents: [good]}
      - {target: "$ISCSI_URL", agents: [good]}
size: 16M
profiles: [{name: fill, bs: 128k, pattern: sequential, read: 0}]
data: {compress_ratio: 2.0}
threads: 1
qd: 1
runtime: 3s
precondition: none
SPEC
)
expect_eq "pattern: campaign" "$st" done
smbclient "//127.0.0.1/$SMB_SHARE" -p "$SMB_PORT" -A "$SMB_CREDS" -m SMB3 \
    -c "get lg/pattern.bin $T/pattern-smb.bin" >>"$T/smbclient.log" 2>&1 || fail "smbclient get"
cmp "$T/pattern-smb.bin" "$SMB_SHARE_DIR/lg/pattern.bin" ||
    fail "smb: smbclient's copy differs from the file on the share"
ratio() { "$LG_BIN/datacheck" "$1" 128k | sed -n 's/.* zstd=\([0-9.]*\).*/\1/p'; }
head -c 16777216 "$ISCSI_LUN_FILE" >"$T/lun-head.bin"
for f in "$T/pattern-smb.bin" "$T/lun-head.bin"; do
    z=$(ratio "$f")
    echo "zstd ratio of $f: $z"
    awk -v z="$z" 'BEGIN { exit !(z >= 1.7 && z <= 2.3) }' ||
        fail "$f: zstd ratio $z, want 2.0 +- 15% (the pattern written through the engine)"
done

# 3. Failures at Prepare, each naming the target; the agent stays up.
bad() { # NAME AGENT TARGET WANT
    local st
    # (retries: 0: one attempt; a server that is not reachable would be tried again: it_retry)
    st=$(printf 'name: %s\ntarget: "%s"\nagents: [%s]\nsize: 16M\nprofiles: [{name: r, bs: 4k, pattern: random, read: 100}]\nruntime: 1s\nprecondition: none\nretries: 0\n' \
        "$1" "$3" "$2" | submit "$1")
    local err
    err=$(q "SELECT r.error FROM lg.run r JOIN lg.campaign c USING (campaign_id) WHERE c.name = '$1'")
    echo "$1: $st: $err"
    expect_eq "$1: campaign (its only run failed)" "$st" failed
    expect_eq "$1: run" "$(q "SELECT r.state FROM lg.run r JOIN lg.campaign c USING (campaign_id)
        WHERE c.name = '$1'")" failed
    grep -qF "$3" <<<"$err" || fail "$1: the error does not name the target \"$3\""
    grep -qiE "$4" <<<"$err" || fail "$1: the error does not say \"$4\""
}
bad badpw badpw "$SMB_BASE/lg/x.bin" "logon|password|denied|permission"
bad nohost good "smb://127.0.0.1:1/$SMB_SHARE/x.bin" "refused|unreachable|reach"
bad noshare good "smb://127.0.0.1:$SMB_PORT/nosuch/x.bin" "no share|not found|No such"
bad nolun good "$ISCSI_BASE/7" "LUN|lun|not.*exist|Invalid"
bad noeng noeng "$SMB_BASE/lg/y.bin" "lgsmb engine"
expect_eq "agents still up" "$("$LG_BIN/lgctl" --controller "ipc://$T/ctl.sock" agents |
    awk 'NR > 1 && $3 == "idle" { n++ } END { print n }')" 3
echo "PASS"
