#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Accuracy benchmark of imtcp's estimate (not a test), run inside the VM
# by `make bench-accuracy`. Test bed: selftests/lib.sh plus a cross-traffic
# sender that shares only the bottleneck (C = BENCH_C_MBIT, default 50,
# 20 ms each way, tbf bucket of two packets). Ground truth: the cross
# traffic arriving at the router, counted every 100 ms (r2 rx_bytes), so
# A(t) = C - cross(t) and no rate is assumed.
#
# Scenarios (CBR UDP cross traffic from iperf3, one bulk imtcp flow):
#   S1  A = 60, 40, 60, 20, 60 % of C, BENCH_STEP_SECS (10) each
#   S2  cross traffic at 0, 20, 40, 60, 80 % of C, BENCH_SECS (20) each
# Output in $IMTCP_OUT (or build/bench): accuracy-S*.csv (time, estimate,
# truth), accuracy.md (the table), and PNG plots when python3-matplotlib
# is installed.
source "$(dirname "$0")/../../selftests/lib.sh"

C=${BENCH_C_MBIT:-50}
SECS=${BENCH_SECS:-20}
STEP=${BENCH_STEP_SECS:-10}
OUT=${IMTCP_OUT:-$TOP/build/bench}
SHAPE_BURST=3028
WORK=$(mktemp -d)
trap 'trace_stop /dev/null 2>/dev/null; topo_down; rm -rf "$WORK"' EXIT
mkdir -p "$OUT"
rm -f "$OUT"/accuracy*

load_imtcp || exit 1
topo_up ${C}mbit 20 && cross_up || { echo "cannot build the test bed"; exit 1; }
in_rcv iperf3 -s -p 5201 >/dev/null 2>&1 &

# sample_cross FILE: monotonic time and r2 rx_bytes every 100 ms, until
# killed; prints its PID.
sample_cross() {
	in_rtr python3 -c '
import sys, time
f = open(sys.argv[1], "w")
while True:
    with open("/sys/class/net/r2/statistics/rx_bytes") as c:
        f.write(f"{time.monotonic():.6f} {c.read().strip()}\n")
    f.flush()
    time.sleep(0.1)' "$1" > /dev/null 2>&1 &
	echo $!
}

# cross_profile "MBIT:SECS ...": CBR cross traffic, one rate after another.
cross_profile() {
	local step rate secs
	for step in $1; do
		rate=${step%%:*}
		secs=${step##*:}
		if [ "$rate" = 0 ]; then
			sleep "$secs"
		else
			in_x iperf3 -c $RCV_ADDR -p 5201 -u -b "${rate}M" -l 1448 \
				-t "$secs" >/dev/null 2>&1
		fi
	done
}

# scenario NAME "MBIT:SECS ...": one imtcp bulk transfer for the whole
# profile, with tracing and truth sampling.
scenario() {
	local name=$1 profile=$2 total=0 step sampler port cross
	for step in $profile; do
		total=$((total + ${step##*:}))
	done
	port=$((6100 + RANDOM % 100))
	echo mono > $TRACEFS/trace_clock
	trace_start imtcp/imtcp_estimate sock/inet_sock_set_state || return 1
	sampler=$(sample_cross "$WORK/$name.cross")
	cross_profile "$profile" &
	cross=$!
	timed_send imtcp $port "$total" > "$WORK/$name.xfer"
	wait $cross
	kill "$sampler" 2>/dev/null
	trace_stop "$WORK/$name.trace"
	echo "$name: $(cat "$WORK/$name.xfer")"
	python3 "$TOP/scripts/bench/accuracy.py" scenario "$name" "$C" "$port" \
		"$WORK/$name.trace" "$WORK/$name.cross" "$WORK/$name.xfer" "$OUT"
}

p() { echo "$(($1 * C / 100))"; }
scenario S1 "$(p 40):$STEP $(p 60):$STEP $(p 40):$STEP $(p 80):$STEP $(p 40):$STEP"
for pct in 0 20 40 60 80; do
	scenario "S2-$pct" "$(p $pct):$SECS"
done
python3 "$TOP/scripts/bench/accuracy.py" table "$OUT" "$C"
