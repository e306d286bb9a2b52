#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The main job, run inside the VM by `make demo`: load imtcp, build the
# shaped test bed (50 Mbit/s bottleneck, 20 ms each way: see
# selftests/lib.sh), run a 12 s bulk transfer on imtcp and show the
# connection with `ss -ti` every 3 s, then the transfer's result.
source "$(dirname "$0")/../selftests/lib.sh"
trap topo_down EXIT

load_imtcp || exit 1
echo "== loaded: $(cat /proc/sys/net/ipv4/tcp_available_congestion_control)"
topo_up 50mbit 20 || { echo "cannot build the test bed"; exit 1; }
echo "== bottleneck (router egress to the receiver):"
tc -n "$NS_RTR" qdisc show dev r1
in_rcv "$XFER" recv -p 5201 2>/dev/null &
in_snd "$XFER" send -c $RCV_ADDR -p 5201 -C imtcp -t 12 > /tmp/demo-result &
spid=$!
for t in 3 6 9; do
	sleep 3
	echo "== t=${t}s: ss -ti (sender)"
	in_snd ss -tin "dport = :5201" | sed 's/^/   /'
done
wait "$spid" || { echo "transfer failed"; exit 1; }
wait
echo "== result: $(cat /tmp/demo-result)"
