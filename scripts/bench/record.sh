#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Record the module's measurements for tests/unit/test_replay.c (run in the
# VM by `make record`): a bulk imtcp sender over the test bed's bottleneck
# (RECORD_C_MBIT, default 50 Mbit/s; 20 ms each way) with CBR cross
# traffic, imtcp:* traced. Per cross-traffic level (RECORD_CBRS, Mbit/s;
# default "22 10"; RECORD_SECS each, default 25) it leaves rec-xN.trace
# and rec-xN.truth (the cross rate the router counted and A = C - cross)
# in the run's output directory; `make record` turns them into replay
# files with tests/unit/trace2replay.py. RECORD_MTU (default 1500) sets
# the links' MTU, RECORD_IMTCP_PARAMS module parameters
# ("hold_budget=100": more measurements per second).
export TOPO_MTU=${RECORD_MTU:-1500}
source "$(dirname "$0")/../../selftests/lib.sh"

SHAPE_BURST=$TWO_FRAMES
C=${RECORD_C_MBIT:-50}
load_imtcp || exit 1
set_imtcp_params "${RECORD_IMTCP_PARAMS:-}" || exit 1
topo_up ${C}mbit 20 && cross_up || exit 1
for x in ${RECORD_CBRS:-22 10}; do
	cross_cbr "${x}M" $((${RECORD_SECS:-25} + 9)) 5201
	sleep 2
	echo mono > "$TRACEFS/trace_clock"
	trace_start imtcp || exit 1
	timed_send imtcp 5301 "${RECORD_SECS:-25}" > "$IMTCP_OUT/x$x.line" &
	snd=$!
	sleep 2
	r=$(cross_rate_mbps 20)
	wait $snd
	trace_stop "$IMTCP_OUT/rec-x$x.trace"
	awk -v r="$r" -v c="$C" -v m="$TOPO_MTU" -v p="${RECORD_IMTCP_PARAMS:-defaults}" \
		'BEGIN { printf "MTU %s, module parameters %s, %s Mbit/s tbf, cross %s Mbit/s, A = %.2f Mbit/s (frames)\n", m, p, c, r, c - r }' \
		| tee "$IMTCP_OUT/rec-x$x.truth"
	cat "$IMTCP_OUT/x$x.line"
	wait "$CROSS_PID"
	sleep 1
done
