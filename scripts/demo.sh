#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The main job, run inside the VM by `make demo`: load imtcp, build the
# shaped test bed (50 Mbit/s bottleneck, 20 ms each way, and a cross-
# traffic sender that shares only the bottleneck: see selftests/lib.sh),
# run an 18 s bulk transfer on imtcp while UDP cross traffic goes 10, 30,
# then 10 Mbit/s; imtcp-stat -w streams each estimate as the module
# makes it, and every few seconds (as fast as the VM allows) the demo
# shows the latest estimates, the available bandwidth as the router
# counts it (50 - cross), and ss -ti.
source "$(dirname "$0")/../selftests/lib.sh"
SHAPE_BURST=3028
trap 'topo_down' EXIT

load_imtcp || exit 1
echo "== loaded: $(cat /proc/sys/net/ipv4/tcp_available_congestion_control)"
topo_up 50mbit 20 && cross_up || { echo "cannot build the test bed"; exit 1; }
echo "== bottleneck (router egress to the receiver):"
tc -n "$NS_RTR" qdisc show dev r1 | sed 's/^/   /'
in_rcv iperf3 -s -p 5202 >/dev/null 2>&1 &
STAT=$TOP/build/userspace/imtcp-stat
[ -x "$STAT" ] || { echo "no $STAT: make tools"; exit 1; }
: > /tmp/demo-watch
in_snd "$STAT" -w >> /tmp/demo-watch &
watcher=$!
(for r in 10 30 10; do
	in_x iperf3 -c $RCV_ADDR -p 5202 -u -b ${r}M -l 1448 -t 6 >/dev/null 2>&1
done) &
cross=$!
timed_send imtcp 5201 18 > /tmp/demo-result &
spid=$!
t0=$(date +%s)
while kill -0 "$spid" 2>/dev/null; do
	x=$(cross_rate_mbps 1)
	sleep 1
	kill -0 "$spid" 2>/dev/null || break
	echo "== imtcp-stat -w: $(($(wc -l < /tmp/demo-watch) - 1)) estimates so far, the latest:"
	head -n 1 /tmp/demo-watch | sed 's/^/   /'
	tail -n 3 /tmp/demo-watch | sed 's/^/   /'
	est=$(in_snd "$STAT" -j dport 5201 | python3 -c '
import json, sys
r = json.load(sys.stdin)
print(r[0]["estimate_bps"] if r else 0)')
	echo "== t=$(($(date +%s) - t0))s: cross traffic $x Mbit/s, so A = $(awk \
		-v x="$x" 'BEGIN { a = 50 - x; printf "%.1f", a < 0 ? 0 : a }') Mbit/s; imtcp estimate: $(awk \
		-v e="${est:-0}" 'BEGIN { printf "%.1f", e / 1e6 }') Mbit/s"
	in_snd ss -tin "dport = :5201" | sed -n '2,$p' | sed 's/^/   /'
done
wait "$spid" || { echo "transfer failed"; exit 1; }
wait "$cross"
kill "$watcher" 2>/dev/null
wait "$watcher" 2>/dev/null
echo "== result: $(cat /tmp/demo-result)"
echo "== module statistics:"
"$STAT" -s | sed 's/^/   /' 
