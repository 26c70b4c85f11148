# nasrig.sh: a NAS and its load hosts from real parts, sourced after lib.sh and smb.sh (the
# caller's EXIT trap runs smb_stop, then cleanup). nas_rig N TAG OCTET makes N + 1 network
# namespaces on a bridge (make_hosts): the first is the NAS, with smbd (smb.sh) and Debian's
# prometheus-node-exporter (cpu and netdev) on NAS_IP; the others each run an lg-agent named
# h2 .. h(N+1) with the share's credentials, allowed the share and destructive writes; the
# controller runs in the root namespace on the bridge, with PostgreSQL (pg_start, migrated).
# Sets NAS_NS, NAS_IP, SMB_BASE (smb://NAS_IP:port/share) and NAS_METRICS (the exporter's URL).
nas_rig() {
    local n=$1 tag=$2 octet=$3 exporter i up=0 names=()
    exporter=$(command -v prometheus-node-exporter || true)
    [ -n "$exporter" ] || fail "prometheus-node-exporter is not installed (deploy/install-deps.sh)"
    [ "$(id -u)" = 0 ] || fail "needs root (network namespaces)"
    [ -f "$LG_BIN/../lib/lg/engines/lgsmb.so" ] || fail "no lgsmb engine: build with LG_ENGINES=ON"
    pg_start
    "$LG_BIN/lgctl" db migrate >/dev/null
    for i in $(seq 2 $((n + 1))); do names+=("h$i"); done
    lg_keys "${names[@]}"
    make_hosts $((n + 1)) "$tag" "$octet"
    NAS_NS=${HOST_NS[1]}
    NAS_IP=$HOSTS_NET.2
    SMB_ADDR=$NAS_IP SMB_NETNS=$NAS_NS smb_start >/dev/null
    SMB_BASE="smb://$NAS_IP:$SMB_PORT/$SMB_SHARE"
    install -d -o "$SMB_USER" "$SMB_SHARE_DIR/lg"
    local port=$((31000 + $$ % 1000))
    [ "$port" != "$SMB_PORT" ] || port=$((port + 1))
    ip netns exec "$NAS_NS" "$exporter" --web.listen-address="$NAS_IP:$port" \
        --collector.disable-defaults --collector.cpu --collector.netdev >>"$T/exporter.log" 2>&1 &
    CLEANUP_PIDS+=("$!")
    for _ in $(seq 1 100); do
        ip netns exec "$NAS_NS" bash -c "exec 3<>/dev/tcp/$NAS_IP/$port" 2>/dev/null && up=1 && break
        sleep 0.1
    done
    [ $up = 1 ] || fail "node_exporter does not listen: $(tail -n 3 "$T/exporter.log")"
    NAS_METRICS="http://$NAS_IP:$port/metrics"
    start_controller --tcp "$HOSTS_NET.1" >/dev/null
    for i in $(seq 2 $((n + 1))); do
        start_agent "h$i" --wrap "ip netns exec ${HOST_NS[$i]}" \
            --smb-credentials "$SMB_CREDS" --allow "$SMB_BASE" --allow-destructive >/dev/null
    done
}

# nas_bytes_ratio RUN: what the NAS sent (a read run) or received (else) on its network over the
# run's measured window (lg.v_sut_run's mean rate of source "nas" times the window's length),
# divided by the bytes the run's agents moved.
nas_bytes_ratio() {
    q "SELECT round((CASE WHEN r.read_pct = 100 THEN s.net_tx_bytes_s ELSE s.net_rx_bytes_s END
                     * extract(epoch FROM w.w_end - w.w_start)
            / nullif((SELECT sum(bytes) FROM lg.result
                      WHERE run_id = r.run_id AND agent_id IS NOT NULL), 0))::numeric, 3)
       FROM lg.run r JOIN lg.v_run_window w USING (run_id)
       JOIN lg.v_sut_run s ON s.run_id = r.run_id AND s.source = 'nas'
       WHERE r.run_id = $1"
}

# sample_agree_pct RUN: the share (%) of the run's samples with I/O whose ios, bytes / bs and
# lat_n agree within 1%, and how many samples there are: "PCT N".
sample_agree_pct() {
    q "SELECT round(100.0 * count(*) FILTER (WHERE abs(s.bytes::float8 / r.bs - s.ios) <= 0.01 * s.ios
                                         AND abs(s.lat_n - s.ios) <= 0.01 * s.ios)
                / nullif(count(*), 0), 1), count(*)
       FROM lg.sample s JOIN lg.run r USING (run_id) WHERE s.run_id = $1 AND s.ios > 0" | tr '|' ' '
}
