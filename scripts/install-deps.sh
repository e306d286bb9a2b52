#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Install what imtcp's build, tests, benchmarks and demo need on Debian 12
# (bookworm). Installs only what is missing; quick when all is there.
# Needs root for apt-get.
#   install-deps.sh           what build and tests need
#   install-deps.sh --bench   also what the pictures of the demo and the
#                             benchmarks need (python3-matplotlib)
set -eu

PKGS="build-essential make gcc libc6-dev linux-libc-dev kmod cpio gzip
linux-image-amd64 linux-headers-amd64 linux-source-6.1
qemu-system-x86 busybox-static iproute2 iperf3 bpftrace sparse tcpdump
iputils-ping dkms debhelper dh-dkms
perl python3 python3-yaml procps libmnl-dev codespell"
[ "${1:-}" = --bench ] && PKGS="$PKGS python3-matplotlib"

missing=""
for p in $PKGS; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed"; then
		missing="$missing $p"
	fi
done
if [ -z "$missing" ]; then
	echo "install-deps: all Debian packages present"
	exit 0
fi
if [ "$(id -u)" != 0 ]; then
	echo "install-deps: missing:$missing" >&2
	echo "install-deps: run as root (sudo make deps) to install them" >&2
	exit 1
fi
echo "install-deps: installing:$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
# shellcheck disable=SC2086
apt-get install -y -q --no-install-recommends $missing
