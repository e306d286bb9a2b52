#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Accuracy benchmark of imtcp's estimate (not a test), run inside the VM
# by `make bench-accuracy`. Test bed: selftests/lib.sh plus a cross-traffic
# sender that shares only the bottleneck (C = BENCH_C_MBIT, default 30
# at MTU 1500, 20 ms each way, tbf bucket BENCH_BURST, MTU BENCH_MTU:
# all below). Ground truth:
# the cross traffic arriving at the router, counted every 100 ms (r2
# rx_bytes), so A(t) = C - cross(t) and no rate is assumed. Cross
# traffic comes from selftests/poisson.c: constant gaps (CBR) or
# Poisson, datagrams of the flow's segment size (BENCH_CROSS_BYTES),
# a whole profile of rates from one process.
#
# Scenarios S1-S4 and S6 run three times over the same cross-traffic
# profile, one transfer at a time: imtcp (its estimates, from the
# imtcp_estimate tracepoint, and its tcpi_delivery_rate), BBR (its
# bandwidth estimate, from TCP_CC_INFO) and reno (goodput, for imtcp's
# goodput ratio).
#   S1  A = 60, 40, 60, 20, 60 % of C, BENCH_STEP_SECS (20, the paper's
#       profile) each, CBR
#   S2  CBR cross traffic at 0, 20, 40, 60, 80 % of C (BENCH_S2_PCT),
#       BENCH_SECS (20)
#   S3  Poisson cross traffic (selftests/poisson.c) at 30 and 60 % of C
#   S4  application-limited senders writing BENCH_S4_MBIT (5) Mbit/s in
#       chunks, one every BENCH_S4_FRAME_MS (40, a 25 frames/s video
#       sender), CBR cross traffic leaving A = BENCH_S4_A (40) % of C;
#       each frame in one write, or in writes of at most BENCH_S4_WRITE
#       bytes (0: one write). Each of the three may be a list: every
#       combination runs, named S4-<Mbit/s>M-A<%>[-w<bytes>] (S4 alone
#       when all three are single). Also each frame's delivery time (from
#       when it was due to its last byte read by the receiver), imtcp's
#       beside reno's. BENCH_S4_NODELAY=1 sets TCP_NODELAY on S4's
#       senders (xfer send -N), as real-time media senders do: without it
#       Nagle keeps each frame's last partial segment until an earlier
#       one is ACKed, which reno's frames pay too.
#   S6  S1's steps of A under an application-limited sender: BENCH_S6_MBIT
#       (5) Mbit/s, a frame every BENCH_S4_FRAME_MS in one write (with
#       BENCH_S4_NODELAY as S4), BENCH_STEP_SECS a step (issue 32's
#       "steps of A under an application-limited sender"; the same
#       flow's tcpi_delivery_rate reads the sender's own rate there).
#   S5  no cross traffic: 4 imtcp flows together (Jain's index), one
#       imtcp and one reno flow together (share), started in both
#       orders, and as the baseline of both 4 reno flows and 2 reno
#       flows; BENCH_S5_REPS (3) runs of each: single runs of two equal
#       reno flows land up to 1.4:1 apart under TCG. The flows of a run
#       send their first byte at the same moment (xfer -S): started one
#       after the other, under TCG 0.1 s apart, the later one began its
#       slow start two RTTs behind and kept less for most of the run.
# Output in $IMTCP_OUT (or build/bench): accuracy-S*.csv (time, estimate,
# the fit's raw result, the busy-link rate that bounds it, truth),
# accuracy.md (the tables), and PNG plots when python3-matplotlib is
# installed. BENCH_ONLY="S1 S3" runs only those scenarios.
# BENCH_MTU (default 1500) sets the test bed's MTU (see lib.sh); the TCP
# flows then send segments of BENCH_MTU - 52 bytes. BENCH_C_MBIT
# defaults to 30 at MTU 1500 (what the emulated machine forwards
# faithfully: scripts/bench/path.sh) and to 100 with jumbo frames.
# First the path check (scripts/bench/path.sh) runs on the same
# settings, up to BENCH_PATH_TRIES (3) times BENCH_PATH_WAIT_S (60) s
# apart (bench_path_check in selftests/lib.sh); if the path is still not
# faithful the benchmark stops (exit 3) unless BENCH_PATH_CHECK=0, which
# tries the check once and runs anyway, saying in the table whether the
# path was faithful. netem's delay is calibrated
# as in the path check.
# BENCH_IMTCP_PARAMS="hold_budget=10 ..." sets module parameters first;
# BENCH_BURST the tbf bucket in bytes (default lib.sh's
# BENCH_BUCKET_BYTES: four frames at MTU 1500, two jumbo frames).
# BENCH_TRACE_ALL=1 records every imtcp:* event of imtcp's transfers
# (streams and their samples, holds) and keeps the trace as
# NAME.imtcp.trace in the output (tests/unit/trace2replay.py turns it
# into a replay of each measurement). Application-limited runs (S4) also
# keep, for each congestion control, the receiver's reads as
# NAME.CC.arrivals (CLOCK_MONOTONIC seconds and bytes so far, the
# trace's clock) and the sender's result line with its frame schedule
# as NAME.CC.xfer, to match each frame's delivery with the trace.
export TOPO_MTU=${BENCH_MTU:-1500}
source "$(dirname "$0")/../../selftests/lib.sh"

C_DEFAULT=100
[ "$TOPO_MTU" -le 1500 ] && C_DEFAULT=30
C=${BENCH_C_MBIT:-$C_DEFAULT}
SECS=${BENCH_SECS:-20}
STEP=${BENCH_STEP_SECS:-20}
S5_REPS=${BENCH_S5_REPS:-3}
in_range "$SECS" 1 600 ||
	{ echo "BENCH_SECS: seconds per transfer, 1-600" >&2; exit 2; }
in_range "$STEP" 1 600 ||
	{ echo "BENCH_STEP_SECS: seconds per step of S1, 1-600" >&2; exit 2; }
case $C in
''|*[!0-9]*|0) echo "BENCH_C_MBIT: the bottleneck in Mbit/s, a positive integer" >&2; exit 2 ;;
esac
case $S5_REPS in
''|*[!0-9]*|0) echo "BENCH_S5_REPS: a number of runs, at least 1" >&2; exit 2 ;;
esac
ONLY=${BENCH_ONLY:-S1 S2 S3 S4 S6 S5}
S2_PCT=${BENCH_S2_PCT:-0 20 40 60 80}
for pct in $S2_PCT; do
	in_range "$pct" 0 95 ||
		{ echo "BENCH_S2_PCT: S2's cross traffic levels, % of C, 0-95" >&2; exit 2; }
done
export S4_FRAME=${BENCH_S4_FRAME_MS:-40}	# and for the table
in_range "$S4_FRAME" 1 10000 ||
	{ echo "BENCH_S4_FRAME_MS: milliseconds between writes, 1-10000" >&2; exit 2; }
export S4_MBIT=${BENCH_S4_MBIT:-5}	# and for the table
S4_A=${BENCH_S4_A:-40}
S6_MBIT=${BENCH_S6_MBIT:-5}
in_range "$S6_MBIT" 1 1000 ||
	{ echo "BENCH_S6_MBIT: S6's sending rate, 1-1000 Mbit/s" >&2; exit 2; }
S4_WRITE=${BENCH_S4_WRITE:-0}
for v in $S4_MBIT; do
	in_range "$v" 1 1000 ||
		{ echo "BENCH_S4_MBIT: S4's sending rates, 1-1000 Mbit/s" >&2; exit 2; }
done
for v in $S4_A; do
	in_range "$v" 1 100 ||
		{ echo "BENCH_S4_A: S4's available bandwidths, 1-100 % of C" >&2; exit 2; }
done
S4_NODELAY=()
case ${BENCH_S4_NODELAY:-0} in
0) ;;
1) S4_NODELAY=(-N) ;;
*) echo "BENCH_S4_NODELAY: 0 or 1 (TCP_NODELAY on S4's senders)" >&2; exit 2 ;;
esac
for v in $S4_WRITE; do
	[ "$v" = 0 ] || in_range "$v" 100 131072 ||
		{ echo "BENCH_S4_WRITE: bytes per write, 100-131072 (0: a frame per write)" >&2; exit 2; }
done
OUT=${IMTCP_OUT:-$TOP/build/bench}
PY=$TOP/scripts/bench/accuracy.py
# tbf's bucket: lib.sh's BENCH_BUCKET_BYTES (four frames at MTU 1500,
# two jumbo frames), BENCH_BURST bytes to change it; exported for the
# table (accuracy.py)
export SHAPE_BURST=${BENCH_BURST:-$BENCH_BUCKET_BYTES}
case $SHAPE_BURST in
''|*[!0-9]*) echo "BENCH_BURST: a number of bytes" >&2; exit 2 ;;
esac
[ "$SHAPE_BURST" -ge "$FRAME_BYTES" ] ||
	{ echo "BENCH_BURST: at least one frame ($FRAME_BYTES bytes)" >&2; exit 2; }
# cross-traffic datagrams: the flow's segment size unless BENCH_CROSS_BYTES
# says otherwise (1448 at MTU 1500); exported for the table
export CROSS_BYTES=${BENCH_CROSS_BYTES:-$MSS_BYTES}
in_range "$CROSS_BYTES" 64 $((TOPO_MTU - 28)) ||
	{ echo "BENCH_CROSS_BYTES: 64 to $((TOPO_MTU - 28)) bytes (one datagram per frame)" >&2; exit 2; }
WORK=$(mktemp -d)
trap 'trace_stop /dev/null 2>/dev/null; topo_down; rm -rf "$WORK"' EXIT
mkdir -p "$OUT"
rm -f "$OUT"/accuracy* "$OUT"/together.jsonl

[ -x "$TIMERLAT" ] || { echo "no $TIMERLAT: run make tools" >&2; exit 1; }
# the path check, on the same settings, before anything else
bench_path_check accuracy "$C" "$OUT"

load_imtcp || exit 1
set_imtcp_params "${BENCH_IMTCP_PARAMS:-}" || exit 1
modprobe -q tcp_bbr || { echo "no tcp_bbr module"; exit 1; }
topo_up ${C}mbit 20 && cross_up && calibrate_rtt ${C}mbit 20 ||
	{ echo "cannot build the test bed"; exit 1; }
echo "netem delay $(netem_us 20) us each way (the emulation adds $SHAPE_TRIM_US us)"
udp_sink || exit 1	# the cross-traffic generator sends to port 9
port=6100

# cross_profile KIND "MBIT:SECS ...": cross traffic (cbr or poisson), one
# rate after another, from one generator process on one schedule, so
# that the steps follow each other without a gap (an iperf3 client per
# step left the bottleneck empty for 1-2 s at each step under TCG). Run
# in the background, the generator is the background job's process
# (exec), so that killing that PID stops it.
cross_profile() {
	local opt=
	[ "$1" = cbr ] && opt=-C
	exec ip netns exec "$NS_X" "$POISSON" -c $RCV_ADDR -r "$2" $opt \
		-l "$CROSS_BYTES" -s $RANDOM >/dev/null
}

# run_one NAME CC KIND PROFILE [XFER OPTIONS]: one transfer over CC for the
# whole profile, truth sampled alongside, and how late the guest's timers
# fired meanwhile (selftests/timerlat.c: late timers make the path
# unfaithful for minutes that the path check before the run did not
# see), and what the host's CPUs did (host_cpu_since in lib.sh). Files:
# $WORK/NAME.CC.{cross,xfer,samples,timers,host}, and for imtcp
# NAME.imtcp.{trace,port}.
run_one() {
	local name=$1 cc=$2 kind=$3 profile=$4 total=0 step sampler cross timers
	local xprofile events last=${4##* } arrivals= hmark
	shift 4
	# an application-limited sender: when each frame arrived
	case " $* " in *" -r "*) arrivals=$WORK/$name.$cc.arrivals ;; esac
	for step in $profile; do
		total=$((total + ${step##*:}))
	done
	# The cross traffic's last step lasts until the transfer has ended
	# (it is stopped then): the transfer closes after its last second,
	# under TCG up to 1.2 s after, and an estimate there was scored
	# against a path the cross traffic had left (A = C; S2-80's p90 read
	# 81.9 % of C from one such estimate, and with a second's margin
	# 79.6 and 80.4 in two later runs).
	xprofile="${profile% *} "
	[ "$last" = "$profile" ] && xprofile=
	xprofile="$xprofile${last%%:*}:$((${last##*:} + 30))"
	port=$((port + 1))
	if [ "$cc" = imtcp ]; then
		echo mono > $TRACEFS/trace_clock
		# estimates, and the streams' samples for delay_jumps
		events="imtcp/imtcp_estimate imtcp/imtcp_sample imtcp/imtcp_stream"
		[ "${BENCH_TRACE_ALL:-0}" = 1 ] && events=imtcp
		# shellcheck disable=SC2086
		trace_start $events sock/inet_sock_set_state || return 1
		echo $port > "$WORK/$name.imtcp.port"
	fi
	sampler=$(sample_cross "$WORK/$name.$cc.cross")
	cross_profile "$kind" "$xprofile" &
	cross=$!
	"$TIMERLAT" > "$WORK/$name.$cc.timers" &
	timers=$!
	hmark=$(host_cpu_mark)
	RECV_ARRIVALS=$arrivals timed_send "$cc" $port "$total" \
		-T "$WORK/$name.$cc.samples" "$@" > "$WORK/$name.$cc.xfer"
	host_cpu_since "$hmark" > "$WORK/$name.$cc.host"
	kill "$timers" "$cross" 2>/dev/null
	wait $timers $cross
	kill "$sampler" 2>/dev/null
	if [ "$cc" = imtcp ]; then
		trace_stop "$WORK/$name.imtcp.trace"
		[ "${BENCH_TRACE_ALL:-0}" = 1 ] && cp "$WORK/$name.imtcp.trace" "$OUT/"
	fi
	if [ "${BENCH_TRACE_ALL:-0}" = 1 ] && [ -n "$arrivals" ]; then
		cp "$arrivals" "$WORK/$name.$cc.xfer" "$OUT/" ||
			echo "accuracy: could not keep $name.$cc's frame files" >&2
	fi
	echo "$name $cc: $(cat "$WORK/$name.$cc.xfer")"
}

# scenario NAME KIND PROFILE [XFER OPTIONS]: imtcp, bbr, reno in turn.
scenario() {
	local name=$1 kind=$2 profile=$3 cc
	shift 3
	for cc in imtcp bbr reno; do
		run_one "$name" $cc "$kind" "$profile" "$@" || return 1
	done
	python3 "$PY" scenario "$name" "$C" "$WORK" "$OUT"
}

# together NAME CC... : the flows at once, no cross traffic, SECS long.
together() {
	local name=$1 cc i=0 pids="" start
	shift
	# every flow sends its first byte at the same moment (xfer -S)
	start=$(epoch_in 2)
	for cc in "$@"; do
		i=$((i + 1))
		port=$((port + 1))
		timed_send "$cc" $port "$SECS" -S "$start" \
			> "$WORK/$name.$i.xfer" &
		pids="$pids $!"
	done
	for cc in $pids; do
		wait "$cc" || return 1
	done
	cat "$WORK/$name".*.xfer
	python3 "$PY" together "$name" "$WORK" "$OUT"
}

p() { echo "$(($1 * C / 100))"; }
want() { echo " $ONLY " | grep -q " $1 "; }
STEPS="$(p 40):$STEP $(p 60):$STEP $(p 40):$STEP $(p 80):$STEP $(p 40):$STEP"
want S1 && scenario S1 cbr "$STEPS"
if want S2; then
	for pct in $S2_PCT; do
		scenario "S2-$pct" cbr "$(p $pct):$SECS"
	done
fi
if want S3; then
	for pct in 30 60; do
		scenario "S3-$pct" poisson "$(p $pct):$SECS"
	done
fi
# s4_name MBIT A WRITE: S4 alone for one combination, else each named
s4_name() {
	if [ "$(echo $S4_MBIT $S4_A $S4_WRITE | wc -w)" = 3 ]; then
		echo S4
	else
		echo "S4-${1}M-A$2$([ "$3" = 0 ] || echo "-w$3")"
	fi
}
if want S4; then
	for mbit in $S4_MBIT; do
		for a in $S4_A; do
			for w in $S4_WRITE; do
				wopt=()
				[ "$w" = 0 ] || wopt=(-w "$w")
				scenario "$(s4_name "$mbit" "$a" "$w")" cbr \
					"$(p $((100 - a))):$SECS" -r "$mbit" \
					-F "$S4_FRAME" "${wopt[@]}" "${S4_NODELAY[@]}"
			done
		done
	done
fi
want S6 && scenario S6 cbr "$STEPS" -r "$S6_MBIT" -F "$S4_FRAME" \
	"${S4_NODELAY[@]}"
if want S5; then
	for r in $(seq "$S5_REPS"); do
		together S5-4imtcp-r$r imtcp imtcp imtcp imtcp
		together S5-4reno-r$r reno reno reno reno
		together S5-imtcp-reno-r$r imtcp reno
		together S5-reno-imtcp-r$r reno imtcp
		together S5-reno-reno-r$r reno reno
	done
fi
python3 "$PY" table "$OUT" "$C"
