#!/usr/bin/env bash
# install-deps.sh: the Debian 12 packages lg needs to build, test and run. Idempotent; as root.
set -euo pipefail
if [ "$(id -u)" != 0 ]; then
    echo "install-deps.sh: run as root (it uses apt-get)" >&2
    exit 1
fi
pkgs=(build-essential cmake pkg-config libzmq3-dev libprotobuf-c-dev protobuf-c-compiler
      libpq-dev libuv1-dev fio postgresql postgresql-client libyaml-dev libjansson-dev
      libcmocka-dev jq procps util-linux iproute2 tmux systemd scdoc lintian fakeroot tcpdump zstd lz4 libzstd-dev liblz4-dev libssl-dev libcurl4-openssl-dev prometheus-node-exporter btrfs-progs btrfs-compsize
      libsmbclient-dev libiscsi-dev samba smbclient tgt libiscsi-bin dpkg-dev
      libnbd-dev libaio-dev libnuma-dev librdmacm-dev libibverbs-dev zlib1g-dev
      chromium libxml2-utils clang clang-format python3-scipy universal-ctags
      sysbench mariadb-server mariadb-client)
missing=()
for p in "${pkgs[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    export DEBIAN_FRONTEND=noninteractive
    . "$(dirname "$0")/apt.sh" # apt_get: waits for apt's locks (unattended upgrades)
    apt_get update -q
    apt_get install -y -q --no-install-recommends "${missing[@]}"
fi
# sysbench and mariadb-server are for the application workloads, which start private MariaDB and
# PostgreSQL servers of their own (as the mysql and postgres users), never the system ones.
