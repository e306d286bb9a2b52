#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Shared helpers of imtcp's shell selftests: TAP results, loading the
# module, and the three-namespace test bed.
#
#   +--------+  198.18.1.0/24  +---------+  198.18.2.0/24  +----------+
#   | sender |-s0 ---------- r0-| router  |-r1 ---------- d0-| receiver |
#   +--------+      .1     .2   +---------+   .1      .2     +----------+
#                               r1 egress (data):  netem delay D [loss/reorder]
#                                                  -> tbf RATE (the bottleneck)
#                               r0 egress (ACKs):  netem delay D
#
# path2_up adds a second path through the router, for MPTCP:
#   sender -s1 (198.18.4.1) -- r3- router -r4 -- (198.18.5.2) d1- receiver
#   r4 egress: netem delay D -> tbf RATE2; r3 egress: netem delay D
#
# cross_up adds a cross-traffic sender that shares only the bottleneck:
#   +-------+  198.18.3.0/24
#   | cross |-x0 ---------- r2- router (then r1, the bottleneck, receiver)
#   +-------+      .1     .2
#
# 198.18.0.0/15 is the range set aside for network benchmarks (RFC 2544);
# it exists only inside these namespaces, inside the test VM.

KSFT_PASS=0
KSFT_FAIL=1
KSFT_SKIP=4

SELFTESTS_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOP=$(cd "$SELFTESTS_DIR/.." && pwd)
BIN=$TOP/build/selftests
XFER=$BIN/xfer
POISSON=$BIN/poisson
TIMERLAT=$BIN/timerlat
# the bounds of a faithful emulated path (FAITHFUL_JUMP_PCT, _LATE_PCT)
source "$SELFTESTS_DIR/faithful.env"

NS_SND=imtcp-snd-$$
NS_RTR=imtcp-rtr-$$
NS_RCV=imtcp-rcv-$$
NS_X=imtcp-x-$$
SND_ADDR=198.18.1.1
RCV_ADDR=198.18.2.2
# in_range VALUE MIN MAX: VALUE is a whole number from MIN to MAX (the
# benchmarks' settings are checked with it)
in_range() {
	case $1 in ''|*[!0-9]*) return 1 ;; esac
	[ "${#1}" -le 9 ] && [ "$1" -ge "$2" ] && [ "$1" -le "$3" ]
}

# The MTU of every link of the test bed (TOPO_MTU, default 1500). Under
# TCG a 50 Mbit/s test bed of 1500-byte frames carries less than its
# bottleneck (the emulated CPUs forward slowly, and a tbf bucket of
# TWO_FRAMES is shorter than a late emulated timer); with jumbo frames
# it carries what it should (Documentation/benchmarks.rst).
TOPO_MTU=${TOPO_MTU:-1500}
case $TOPO_MTU in
''|*[!0-9]*) echo "TOPO_MTU: a number of bytes" >&2; exit 2 ;;
esac
[ "$TOPO_MTU" -ge 576 ] && [ "$TOPO_MTU" -le 65535 ] ||
	{ echo "TOPO_MTU: 576-65535 bytes" >&2; exit 2; }

tap_n=0
tap_pass=0
tap_fail=0
tap_skip=0

tap_begin() {
	echo "TAP version 13"
	echo "1..$1"
}

# run_test NAME FUNCTION [ARGS...]: run a test function in a subshell,
# its output as TAP comments; it returns 0 (pass), 4 (skip) or other (fail).
# With IMTCP_TESTS set (names, space-separated), only those run; the
# others are reported as skipped, so the plan's count still holds.
run_test() {
	local name=$1 rc
	shift
	tap_n=$((tap_n + 1))
	if [ -n "${IMTCP_TESTS:-}" ] && ! [[ " $IMTCP_TESTS " == *" $name "* ]]; then
		tap_skip=$((tap_skip + 1))
		echo "ok $tap_n $name # SKIP not in IMTCP_TESTS"
		return
	fi
	("$@") 2>&1 | sed -u 's/^/# /'
	rc=${PIPESTATUS[0]}
	case "$rc" in
	0) tap_pass=$((tap_pass + 1)); echo "ok $tap_n $name" ;;
	4) tap_skip=$((tap_skip + 1)); echo "ok $tap_n $name # SKIP" ;;
	*) tap_fail=$((tap_fail + 1)); echo "not ok $tap_n $name" ;;
	esac
}

tap_end() {
	echo "# Totals: pass:$tap_pass fail:$tap_fail skip:$tap_skip"
	[ "$tap_fail" -gt 0 ] && exit $KSFT_FAIL
	[ "$tap_pass" -eq 0 ] && [ "$tap_skip" -gt 0 ] && exit $KSFT_SKIP
	exit $KSFT_PASS
}

fail() {
	echo "FAIL: $*"
	exit $KSFT_FAIL
}

skip() {
	echo "SKIP: $*"
	exit $KSFT_SKIP
}

require_root() {
	[ "$(id -u)" = 0 ] || { echo "1..0 # SKIP needs root"; exit $KSFT_SKIP; }
}

imtcp_loaded() {
	grep -qw imtcp /proc/sys/net/ipv4/tcp_available_congestion_control
}

# Load the freshly built module unless it is loaded already.
load_imtcp() {
	imtcp_loaded && return 0
	[ -f "$TOP/imtcp.ko" ] || { echo "no $TOP/imtcp.ko: run make"; return 1; }
	insmod "$TOP/imtcp.ko"
}

# set_imtcp_params "NAME=VALUE ...": set module parameters of the loaded
# module (they apply to connections opened afterwards); the module's own
# range checks reject bad values.
set_imtcp_params() {
	local kv name
	for kv in $1; do
		name=${kv%%=*}
		case $name in
		''|*[!a-z_]*|"$kv") echo "module parameter: $kv is not NAME=VALUE"; return 1 ;;
		esac
		[ -w "/sys/module/imtcp/parameters/$name" ] ||
			{ echo "imtcp has no parameter $name"; return 1; }
		echo "${kv#*=}" > "/sys/module/imtcp/parameters/$name" ||
			{ echo "imtcp rejected $kv"; return 1; }
	done
}

# Remove the module, retrying while sockets that used it are being freed.
unload_imtcp() {
	local i
	for i in $(seq 50); do
		rmmod imtcp 2>/dev/null && return 0
		sleep 0.1
	done
	rmmod imtcp
}

# topo_up RATE DELAY_MS [NETEM_EXTRA...]: build the test bed; the extra
# netem arguments (e.g. "loss 1%") apply to the data direction.
topo_up() {
	local rate=$1 delay=$2
	shift 2
	modprobe -qa veth sch_netem sch_tbf 2>/dev/null
	ip netns add "$NS_SND" && ip netns add "$NS_RTR" && ip netns add "$NS_RCV" ||
		return 1
	ip -n "$NS_SND" link add s0 type veth peer name r0 netns "$NS_RTR"
	ip -n "$NS_RCV" link add d0 type veth peer name r1 netns "$NS_RTR"
	ip -n "$NS_SND" addr add $SND_ADDR/24 dev s0
	ip -n "$NS_RTR" addr add 198.18.1.2/24 dev r0
	ip -n "$NS_RTR" addr add 198.18.2.1/24 dev r1
	ip -n "$NS_RCV" addr add $RCV_ADDR/24 dev d0
	local ns
	for ns in "$NS_SND" "$NS_RTR" "$NS_RCV"; do
		ip -n "$ns" link set lo up
	done
	ip -n "$NS_SND" link set s0 up mtu "$TOPO_MTU"
	ip -n "$NS_RTR" link set r0 up mtu "$TOPO_MTU"
	ip -n "$NS_RTR" link set r1 up mtu "$TOPO_MTU"
	ip -n "$NS_RCV" link set d0 up mtu "$TOPO_MTU"
	ip -n "$NS_SND" route add default via 198.18.1.2
	ip -n "$NS_RCV" route add default via 198.18.2.1
	ip netns exec "$NS_RTR" sysctl -qw net.ipv4.ip_forward=1
	# Every transfer starts afresh: without this the kernel caches the
	# last connection's ssthresh and RTT per destination (tcp_metrics)
	# and the next one, of whichever congestion control, starts from
	# them, so tests that compare imtcp with reno in turn would compare
	# each with what the other left behind.
	for ns in "$NS_SND" "$NS_RCV"; do
		ip netns exec "$ns" sysctl -qw net.ipv4.tcp_no_metrics_save=1
	done
	shape "$rate" "$delay" "$@"
}

# netem_us DELAY_MS: netem's delay for a one-way DELAY_MS, less
# SHAPE_TRIM_US: what the emulated machine itself adds each way
# (calibrate_rtt measures it).
netem_us() {
	local us=$(($1 * 1000 - ${SHAPE_TRIM_US:-0}))
	[ "$us" -lt 0 ] && us=0
	echo "$us"
}

# ping_median_ms COUNT: the median RTT of COUNT pings from the sender to
# the receiver, 0.2 s apart, in ms (empty if fewer than half answered).
ping_median_ms() {
	in_snd ping -n -c "$1" -i 0.2 -W 2 "$RCV_ADDR" 2>/dev/null |
		sed -n 's/.*time=\([0-9.]*\) ms.*/\1/p' | sort -n |
		awk -v c="$1" '{ v[NR] = $1 } END { if (NR * 2 >= c) print v[int((NR + 1) / 2)] }'
}

# calibrate_rtt RATE DELAY_MS: the emulated machine adds its own time to
# every packet's way (under TCG 0.8-1 ms a round trip: ping read 41.8-41.9
# ms on a path set to 40). Measure it on the idle path and take it off
# netem's delay (SHAPE_TRIM_US, half each way), so that the path's RTT is
# the one set. Sets and exports SHAPE_TRIM_US (not in a subshell, then).
calibrate_rtt() {
	local med
	SHAPE_TRIM_US=0
	shape "$1" "$2" || return 1
	ping_median_ms 15 > /tmp/calib.$$
	med=$(cat /tmp/calib.$$)
	rm -f /tmp/calib.$$
	[ -n "$med" ] || { echo "calibrate_rtt: no ping answers" >&2; return 1; }
	SHAPE_TRIM_US=$(awk -v m="$med" -v d="$2" 'BEGIN {
		t = (m - 2 * d) * 1000 / 2; printf "%d", (t > 0 ? t : 0) }')
	export SHAPE_TRIM_US
	shape "$1" "$2"
}

# shape RATE DELAY_MS [NETEM_EXTRA...]: (re)apply the router's qdiscs.
# The bottleneck buffer is one bandwidth-delay product of a 2*DELAY RTT.
# SHAPE_BURST is tbf's bucket (bytes, default 15000); measurement tests
# use two packets, so that a short stream cannot pass at line rate on
# saved-up tokens as it would on no real link.
shape() {
	local rate=$1 delay=$2 bits limit
	shift 2
	bits=$(echo "$rate" | sed 's/mbit$/000000/; s/kbit$/000/')
	limit=$(queue_limit_bytes "$bits" "$delay")
	tc -n "$NS_RTR" qdisc replace dev r1 root handle 1: \
		netem delay "$(netem_us "$delay")us" limit 100000 "$@" || return 1
	tc -n "$NS_RTR" qdisc replace dev r1 parent 1:1 handle 10: \
		tbf rate "$rate" burst "${SHAPE_BURST:-15000}" limit "$limit" ||
		return 1
	tc -n "$NS_RTR" qdisc replace dev r0 root netem delay \
		"$(netem_us "$delay")us" limit 100000
}

# queue_limit_bytes RATE_BPS DELAY_MS: a bottleneck queue of one BDP at
# RATE_BPS over a path of DELAY_MS each way, at least 30000 bytes
queue_limit_bytes() {
	local limit=$(($1 / 8 * $2 * 2 / 1000))
	[ "$limit" -lt 30000 ] && limit=30000
	echo "$limit"
}

# path2_up RATE_MBIT DELAY_MS: the second pair of links, shaped on the
# router's way to the receiver (netem, then tbf with a queue of one BDP,
# as lib.sh's shape), delayed on the way back
path2_up() {
	local rate=$1 delay=$2
	ip -n "$NS_SND" link add s1 type veth peer name r3 netns "$NS_RTR" &&
	ip -n "$NS_RCV" link add d1 type veth peer name r4 netns "$NS_RTR" ||
		return 1
	ip -n "$NS_SND" addr add 198.18.4.1/24 dev s1
	ip -n "$NS_RTR" addr add 198.18.4.2/24 dev r3
	ip -n "$NS_RTR" addr add 198.18.5.1/24 dev r4
	ip -n "$NS_RCV" addr add 198.18.5.2/24 dev d1
	ip -n "$NS_SND" link set s1 up mtu "$TOPO_MTU"
	ip -n "$NS_RTR" link set r3 up mtu "$TOPO_MTU"
	ip -n "$NS_RTR" link set r4 up mtu "$TOPO_MTU"
	ip -n "$NS_RCV" link set d1 up mtu "$TOPO_MTU"
	ip -n "$NS_SND" route add 198.18.5.0/24 via 198.18.4.2
	ip -n "$NS_RCV" route add 198.18.4.0/24 via 198.18.5.1
	path2_shape "$rate" "$delay" 0 || return 1
	tc -n "$NS_RTR" qdisc replace dev r3 root netem delay \
		"$(netem_us "$delay")us" limit 100000
}

# path2_shape RATE_MBIT DELAY_MS LOSS_PCT: shape path 2's data direction,
# first (path2_up) or again (a qdisc replaced in place keeps its child):
# netem's delay with LOSS_PCT % random loss, then tbf at RATE_MBIT with
# SHAPE_BURST's bucket and a queue of one BDP
path2_shape() {
	local rate=$1 delay=$2 loss=$3
	tc -n "$NS_RTR" qdisc replace dev r4 root handle 1: netem \
		delay "$(netem_us "$delay")us" loss "$loss%" limit 100000 &&
	tc -n "$NS_RTR" qdisc replace dev r4 parent 1:1 handle 10: \
		tbf rate "${rate}mbit" burst "${SHAPE_BURST:-15000}" \
		limit "$(queue_limit_bytes $((rate * 1000000)) "$delay")"
}

# mptcp_up: the receiver announces its second address, the sender
# accepts one announcement and opens one more subflow
mptcp_up() {
	local ns
	for ns in "$NS_SND" "$NS_RCV"; do
		ip netns exec "$ns" sysctl -qw net.mptcp.enabled=1 || return 1
	done
	ip -n "$NS_RCV" mptcp limits set subflows 2 add_addr_accepted 0 &&
	ip -n "$NS_RCV" mptcp endpoint add 198.18.5.2 dev d1 signal &&
	ip -n "$NS_SND" mptcp limits set subflows 2 add_addr_accepted 2
}

topo_down() {
	local ns
	for ns in "$NS_X" "$NS_SND" "$NS_RTR" "$NS_RCV"; do
		ip netns pids "$ns" 2>/dev/null | xargs -r kill 2>/dev/null
		ip netns del "$ns" 2>/dev/null
	done
	return 0
}

in_snd() { ip netns exec "$NS_SND" "$@"; }
in_rtr() { ip netns exec "$NS_RTR" "$@"; }
in_x() { ip netns exec "$NS_X" "$@"; }

# cross_up: add the cross-traffic sender (after topo_up).
cross_up() {
	ip netns add "$NS_X" || return 1
	ip -n "$NS_X" link add x0 type veth peer name r2 netns "$NS_RTR"
	ip -n "$NS_X" addr add 198.18.3.1/24 dev x0
	ip -n "$NS_RTR" addr add 198.18.3.2/24 dev r2
	ip -n "$NS_X" link set lo up
	ip -n "$NS_X" link set x0 up mtu "$TOPO_MTU"
	ip -n "$NS_RTR" link set r2 up mtu "$TOPO_MTU"
	ip -n "$NS_X" route add default via 198.18.3.2
}

# cross_cbr RATE SECS PORT: constant-rate UDP cross traffic (iperf3),
# 1448 B datagrams, in the background; its iperf3 client's PID is in
# CROSS_PID. A process started in the background with ip netns exec
# (which execs it) has that PID itself; through in_x, $! would be a
# subshell's, and killing it would leave the client running.
cross_cbr() {
	local rate=$1 secs=$2 port=$3
	in_rcv iperf3 -s -1 -p "$port" >/dev/null 2>&1 &
	sleep 0.5
	ip netns exec "$NS_X" iperf3 -c $RCV_ADDR -p "$port" -u -b "$rate" \
		-l 1448 -t "$secs" >/dev/null 2>&1 &
	CROSS_PID=$!
}

# A full-size data segment of the test bed: MSS_BYTES of TCP payload
# (the MTU less IP, TCP and its timestamps) in a frame of FRAME_BYTES
# (with the Ethernet header). Estimates count payload; the bottleneck
# and the router's counters count frames, so A is scaled by their ratio
# (scripts/bench/accuracy.py has the same figures).
MSS_BYTES=$((TOPO_MTU - 52))
FRAME_BYTES=$((TOPO_MTU + 14))

# The operating envelopes (bit/s, space-separated) at noise_us=$1 for
# streams of N = 10 to IMTCP_N_MAX = 16 segments of MSS_BYTES, as
# imtcp_envelope_bps computes them: a connection's first measurement may
# take a write's length (core/imtcp_cu.c, first_len_from), so a test
# may meet any of them.
envelopes_bps() {
	local n
	for n in 10 11 12 13 14 15 16; do
		printf '%d ' $(((n - 1) * MSS_BYTES * 8 * 1000000 / $1))
	done
}
# The bucket of measurement tests and benchmarks (SHAPE_BURST, see
# shape): two frames, so that a stream cannot pass at line rate on
# saved-up tokens.
TWO_FRAMES=$((2 * FRAME_BYTES))
# The benchmarks' bucket (scripts/bench): at MTU 1500 four frames. Under
# TCG the qdisc's timer fires late, more so with a TCP flow's ACKs to
# handle as well, and a late timer past the bucket's slack loses
# capacity for good: at 30 Mbit/s UDP offered at 100-105 % of C arrived
# at 99.3 %, but reno and bbr flows got 86 % through a bucket of two
# frames, 96.6 % through four. Jumbo frames are long enough for two.
if [ "$TOPO_MTU" -le 1500 ]; then
	BENCH_BUCKET_BYTES=$((4 * FRAME_BYTES))
else
	BENCH_BUCKET_BYTES=$TWO_FRAMES
fi

# udp_sink: a socket on the receiver's UDP port 9, bound and never read,
# for poisson's cross traffic, in the background (topo_down ends it).
# It spares the receiver an ICMP port unreachable (and its per-peer
# rate-limit lookup) for every packet; a full receive queue drops them
# cheaply. Both CPUs of a guest soft lockup sat in that ICMP path
# (Documentation/imtcp.rst, limitations). Returns once the port is
# bound (python takes a second or more to start under TCG, and a
# generator started meanwhile met the ICMP path again); fails after 20 s.
udp_sink() {
	local i
	in_rcv python3 -c 'import socket, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("", 9))
time.sleep(1e6)' >/dev/null 2>&1 &
	for i in $(seq 100); do
		# /proc/net/udp is the reader's namespace's; port 9 is 0009
		in_rcv grep -qE '^ *[0-9]+: [0-9A-F]{8}:0009 ' /proc/net/udp &&
			return 0
		sleep 0.2
	done
	echo "udp_sink: UDP port 9 of the receiver not bound after 20 s" >&2
	return 1
}

# cross_payload C_MBIT PCT: the payload Mbit/s of full-size datagrams
# (MSS_BYTES, plus 42 bytes of UDP, IP and Ethernet headers) that put PCT
# % of a bottleneck of C_MBIT on the wire
cross_payload() {
	awk -v c="$1" -v p="$2" -v l="$MSS_BYTES" \
		'BEGIN { printf "%.3f", c * p / 100 * l / (l + 42) }'
}

# sample_cross FILE: monotonic time and the router's r2 rx_bytes (the
# cross traffic) every 100 ms, until killed; prints its PID. ip netns
# exec execs python, so the PID is the sampler's own (through in_rtr it
# would be a subshell's, and killing that left the sampler running).
sample_cross() {
	ip netns exec "$NS_RTR" python3 -c '
import sys, time
f = open(sys.argv[1], "w")
while True:
    with open("/sys/class/net/r2/statistics/rx_bytes") as c:
        f.write(f"{time.monotonic():.6f} {c.read().strip()}\n")
    f.flush()
    time.sleep(0.1)' "$1" > /dev/null 2>&1 &
	echo $!
}

# rcv_listening PORT: until something listens on TCP PORT of the
# receiver (a program takes a second or more to start under TCG); false
# after 20 s
rcv_listening() {
	local i
	for i in $(seq 100); do
		[ -n "$(in_rcv ss -Hltn "sport = :$1")" ] && return 0
		sleep 0.2
	done
	echo "nothing listens on port $1 of the receiver after 20 s" >&2
	return 1
}

# gone_within PID SECS: true once process PID has ended, false if it
# still runs after SECS seconds.
gone_within() {
	local i
	for i in $(seq $(($2 * 10))); do
		kill -0 "$1" 2>/dev/null || return 0
		sleep 0.1
	done
	! kill -0 "$1" 2>/dev/null
}

# wait_exit PID SECS: until process PID has ended, at most SECS seconds;
# then it is killed. (A receiver ends with its connection, and never if
# none began.)
wait_exit() {
	gone_within "$1" "$2"
	kill "$1" 2>/dev/null
	wait "$1"
}

# uptime_s: the guest's clock in seconds, as the trace (mono) reads it
uptime_s() {
	local t
	read -r t _ < /proc/uptime
	echo "$t"
}

# bench_path_check NAME C_MBIT OUT: a benchmark's first step, the path
# check (scripts/bench/path.sh) on the test bed's settings (TOPO_MTU,
# SHAPE_BURST), its report in OUT/path.txt and on stdout. Exports
# PATH_VERDICT for the benchmark's table. A check that fails is tried
# again BENCH_PATH_TRIES (default 3) times in all, BENCH_PATH_WAIT_S
# (default 60) seconds apart: under TCG a burst of the host's own steal
# slows the emulated path for a while (each try's report kept in
# OUT/path-tryN.txt). A path still not faithful then stops the benchmark
# (exit 3), unless BENCH_PATH_CHECK=0: then one try (unless
# BENCH_PATH_TRIES says otherwise) only tells the table whether the path
# was faithful, and the benchmark runs either way.
bench_path_check() {
	local rc try tries wait_s=${BENCH_PATH_WAIT_S:-60}
	tries=${BENCH_PATH_TRIES:-$([ "${BENCH_PATH_CHECK:-1}" = 0 ] && echo 1 || echo 3)}
	in_range "$tries" 1 10 || { echo "BENCH_PATH_TRIES: 1-10" >&2; exit 2; }
	in_range "$wait_s" 0 3600 || { echo "BENCH_PATH_WAIT_S: 0-3600" >&2; exit 2; }
	export PATH_VERDICT=faithful
	for try in $(seq "$tries"); do
		BENCH_C_MBIT=$2 BENCH_MTU=$TOPO_MTU BENCH_BURST=$SHAPE_BURST \
			"$TOP/scripts/bench/path.sh" > "$3/path.txt"
		rc=$?
		cp "$3/path.txt" "$3/path-try$try.txt"
		cat "$3/path.txt"
		[ "$rc" = 0 ] && { [ "$try" -gt 1 ] && PATH_VERDICT="faithful (try $try of $tries)"; return 0; }
		[ "$rc" = 1 ] && [ "$try" -lt "$tries" ] || break
		echo "$1: the path check failed (try $try of $tries); again in $wait_s s" >&2
		sleep "$wait_s"
	done
	if [ "${BENCH_PATH_CHECK:-1}" != 0 ]; then
		echo "$1: STOPPED: the path check failed (above; $3/path.txt)." >&2
		echo "$1: figures on an unfaithful path would mislead; BENCH_PATH_CHECK=0 runs anyway." >&2
		exit 3
	fi
	echo "$1: the path check FAILED; running anyway (BENCH_PATH_CHECK=0)" >&2
	PATH_VERDICT="NOT faithful (BENCH_PATH_CHECK=0)"
}

# counter_rate_mbps NS DEV SECS: bytes received on DEV in namespace NS,
# as Mbit/s averaged over about SECS seconds. The interval is timed
# where the counter is read, by shell builtins: no process starts
# between a counter and its clock reading. Under TCG starting one takes
# a good part of a second, and dividing by the nominal SECS read iperf3's
# 10/20/30 Mbit/s (10.3/20.6/30.9 on the wire) 35-67 % high over 1 s and
# 15-18 % over 3 s; timed here, within 1.5 % and 0.3 %.
counter_rate_mbps() {
	ip netns exec "$1" sh -c '
f=/sys/class/net/$1/statistics/rx_bytes
read a < $f; read t0 idle < /proc/uptime
sleep "$2"
read b < $f; read t1 idle < /proc/uptime
echo "$a $b $t0 $t1"' sh "$2" "$3" |
	awk '{ dt = $4 - $3; printf "%.3f", (dt > 0 ? ($2 - $1) * 8 / dt / 1e6 : 0) }'
}

# cross_rate_mbps SECS: cross traffic arriving at the router (r2).
cross_rate_mbps() {
	counter_rate_mbps "$NS_RTR" r2 "$1"
}

TRACEFS=/sys/kernel/tracing

# trace_start EVENT...: clear the trace buffer, enable these events
# (system/event or system) and nothing else. Task names are not
# recorded: recording them hooks the scheduler's tracepoints, and every
# enable and disable then patches __schedule's code while both CPUs run
# it. Under TCG that hung the guest (accuracy benchmark, 2026-11-21: one
# CPU looping in the int3 handler at a patched __schedule, the other
# waiting in text_poke_bp for it to answer an IPI; soft lockup).
trace_start() {
	local e
	[ -d $TRACEFS/events ] || return 1
	echo 0 > $TRACEFS/tracing_on
	# Without record-cmd (6.1 has it) tracing would hook the scheduler.
	echo 0 > $TRACEFS/options/record-cmd || return 1
	echo 0 > $TRACEFS/events/enable
	echo 16384 > $TRACEFS/buffer_size_kb
	: > $TRACEFS/trace
	for e in "$@"; do
		echo 1 > "$TRACEFS/events/$e/enable" || return 1
	done
	echo 1 > $TRACEFS/tracing_on
}

# trace_stop FILE: stop tracing, save the buffer to FILE.
trace_stop() {
	echo 0 > $TRACEFS/tracing_on
	cat $TRACEFS/trace > "$1"
	echo 0 > $TRACEFS/events/enable
}
in_rcv() { ip netns exec "$NS_RCV" "$@"; }

# transfer CC FILE PORT: send FILE from sender to receiver over CC; checks
# the SHA-256 at both ends, prints xfer's result line. Fails if they differ.
# XFER_TO sets the receiver's address (default RCV_ADDR), XFER_RECV_OPTS
# more options for xfer recv (e.g. -P SECS).
transfer() {
	local cc=$1 file=$2 port=$3 out rcv_pid want got
	out=$(mktemp -d)
	want=$(sha256sum < "$file" | cut -d' ' -f1)
	ip netns exec "$NS_RCV" \
		sh -c "'$XFER' recv -p $port ${XFER_RECV_OPTS:-} -o - | sha256sum > '$out/sha'" &
	rcv_pid=$!
	if ! in_snd "$XFER" send -c "${XFER_TO:-$RCV_ADDR}" -p "$port" -C "$cc" \
		-i "$file" > "$out/result"; then
		kill "$rcv_pid" 2>/dev/null
		rm -rf "$out"
		echo "transfer with $cc failed"
		return 1
	fi
	wait "$rcv_pid"
	got=$(cut -d' ' -f1 < "$out/sha")
	cat "$out/result"
	rm -rf "$out"
	if [ "$want" != "$got" ]; then
		echo "$cc: sha256 mismatch: sent $want, received $got"
		return 1
	fi
	echo "$cc: sha256 $got matches"
}

# field NAME LINE: the value of key NAME in an xfer result line.
field() {
	echo "$2" | tr ' ' '\n' | sed -n "s/^$1=//p"
}

# timers_late FILE NAME [PCT]: of timerlat's line in FILE (a process
# woken every 2 ms beside a flow: selftests/timerlat.c), print how late
# its wakeups came, as NAME's; true when more than PCT (LATE_PCT,
# default FAITHFUL_LATE_PCT of selftests/faithful.env) %
# came over 1 ms late: the emulated machine ran late, and a path it
# emulated was not faithful (Documentation/benchmarks.rst, "Selftests
# and benchmark cells on an unfaithful path"). False for a FILE without
# wakeups (timerlat stopped before its first: no sign either way).
timers_late() {
	local line late n pct=${3:-${LATE_PCT:-$FAITHFUL_LATE_PCT}}
	line=$(cat "$1" 2>/dev/null)
	late=$(field late_over_1ms "$line")
	n=$(field wakeups "$line")
	[ -n "$n" ] && [ "$n" -gt 0 ] || { echo "$2: timers: no wakeups"; return 1; }
	echo "$2: timers: $late of $n wakeups over 1 ms late, p99 $(field late_p99_us "$line") us"
	float_ok "$late > $pct / 100 * $n" || return 1
	echo "$2: more than $pct % of the timers fired over 1 ms late: the emulation did not carry the path"
}

# host_cpu_mark: the host's CPU counters now (one line), from the file
# scripts/vm/run-vm.sh renews each second (IMTCP_HOST_CPU); empty
# outside its VM.
host_cpu_mark() {
	[ -n "${IMTCP_HOST_CPU:-}" ] && cat "$IMTCP_HOST_CPU" 2>/dev/null
}

# host_cpu_since MARK: what the host's CPUs did since host_cpu_mark gave
# MARK, in % of all its CPUs' time: steal (its hypervisor ran someone
# else), QEMU (this VM), other processes on the host, idle. Under TCG
# the emulated machine runs only on the CPU QEMU gets; a path that
# carries less than it is set to while steal or other load is high was
# slowed from outside the guest.
host_cpu_since() {
	local now
	now=$(host_cpu_mark)
	if [ -z "$1" ] || [ -z "$now" ]; then
		echo "host: not known (not in scripts/vm/run-vm.sh's VM)"
		return
	fi
	printf '%s\n%s\n' "$1" "$now" | awk '
		{ for (i = 2; i <= NF; i++) { split($i, kv, "="); v[NR, kv[1]] = kv[2] } }
		END {
			t = v[2, "total"] - v[1, "total"]
			if (t <= 0) { print "host: not known (no tick between the marks)"; exit }
			st = v[2, "steal"] - v[1, "steal"]
			id = v[2, "idle"] - v[1, "idle"]
			q = v[2, "qemu"] - v[1, "qemu"]
			o = t - st - id - q
			if (o < 0) o = 0
			printf "host: over %.0f s, of its %d CPUs: steal %.1f %%, QEMU %.1f %%, other processes %.1f %%, idle %.1f %%\n",
				t / v[2, "hz"] / v[2, "cpus"], v[2, "cpus"],
				100 * st / t, 100 * q / t, 100 * o / t, 100 * id / t
		}'
}

# host_steal_pct LINE: the steal share (%) of host_cpu_since's LINE;
# empty where the host was not known.
host_steal_pct() {
	echo "$1" | sed -n 's/.*steal \([0-9.]*\) %.*/\1/p'
}

# watch_start NAME: watch the emulation beside a flow that starts now:
# timerlat (a process woken every 2 ms) writes its line to
# $WORK/NAME.timers when stopped, and the host's CPU counters are
# marked. watch_end NAME stops timerlat and writes what the host's CPUs
# did since the mark to $WORK/NAME.host; emulation_slow NAME then reads
# both. One watch at a time.
watch_start() {
	"$TIMERLAT" > "$WORK/$1.timers" &
	WATCH_PID=$!
	WATCH_HOST=$(host_cpu_mark)
}

watch_end() {
	host_cpu_since "${WATCH_HOST:-}" > "$WORK/$1.host"
	[ -n "${WATCH_PID:-}" ] || return 0
	kill "$WATCH_PID" 2>/dev/null
	wait "$WATCH_PID" 2>/dev/null
	WATCH_PID=
}

# emulation_slow NAME: whether the emulated machine ran too slow to
# carry a path during NAME's flow, from the files a case kept beside it:
# $WORK/NAME.timers (timerlat's line: more than LATE_PCT, default
# FAITHFUL_LATE_PCT, % of its wakeups over 1 ms late) and $WORK/NAME.host
# (host_cpu_since's line: the host's hypervisor stole more than
# STEAL_PCT, default FAITHFUL_STEAL_PCT, % of its CPUs). Prints the
# figures and, when true, why.
emulation_slow() {
	local steal pct=${STEAL_PCT:-$FAITHFUL_STEAL_PCT}
	timers_late "$WORK/$1.timers" "$1" && return 0
	steal=$(host_steal_pct "$(cat "$WORK/$1.host" 2>/dev/null)")
	[ -n "$steal" ] && ! float_ok "$steal <= $pct" || return 1
	echo "$1: the host's own hypervisor took $steal % > $pct % of its CPUs during the flow: the emulation did not carry the path"
}

# float_ok EXPR: true if the awk expression is true.
float_ok() {
	awk "BEGIN { exit !($1) }"
}

# epoch_in SECS: the CLOCK_REALTIME time SECS seconds from now, for
# xfer send -S (flows started one after the other that begin together).
epoch_in() {
	date +%s.%N | awk -v d="$1" '{ printf "%.3f", $1 + d }'
}

# timed_send CC PORT SECS [XFER SEND OPTIONS]: a transfer of SECS seconds
# over CC to a receiver started for it (bulk unless the options say -r);
# prints xfer's result line. With RECV_ARRIVALS=FILE the receiver logs
# each read there (xfer recv -L).
timed_send() {
	local cc=$1 port=$2 secs=$3 rcv_pid line
	local arrivals=()
	shift 3
	[ -n "${RECV_ARRIVALS:-}" ] && arrivals=(-L "$RECV_ARRIVALS")
	ip netns exec "$NS_RCV" "$XFER" recv -p "$port" "${arrivals[@]}" \
		2>/dev/null &
	rcv_pid=$!
	if ! line=$(in_snd "$XFER" send -c $RCV_ADDR -p "$port" -C "$cc" \
			-t "$secs" "$@"); then
		kill "$rcv_pid" 2>/dev/null
		wait "$rcv_pid"
		echo "transfer failed: $cc, port $port" >&2
		return 1
	fi
	wait "$rcv_pid"
	echo "$line"
}

# send_held CC PORT [XFER SEND OPTIONS]: a transfer whose result line is
# printed as soon as xfer prints it (timed_send prints it once xfer has
# exited), so that with -H SECS a reader can look at the socket while it
# stays open. Run it in the background, its output to a file, and
# wait_line that file.
send_held() {
	local cc=$1 port=$2 rcv_pid
	shift 2
	in_rcv "$XFER" recv -p "$port" 2>/dev/null &
	rcv_pid=$!
	in_snd "$XFER" send -c "$RCV_ADDR" -p "$port" -C "$cc" "$@" ||
		kill "$rcv_pid" 2>/dev/null
	wait "$rcv_pid"
}

# wait_line FILE SECS: until FILE holds something (a transfer's result
# line), at most SECS seconds; false if it never did.
wait_line() {
	local i
	for i in $(seq $(($2 * 10))); do
		[ -s "$1" ] && return 0
		sleep 0.1
	done
	return 1
}

# overlay DIR: a writable layer in memory over DIR (inside the test VM,
# whose root is the host's, read-only), so that a test can install into
# it; overlays_down removes every layer, the last first.
OVERLAYS=()
overlay() {
	local dir=$1 layer
	layer=$(mktemp -d)
	mount -t tmpfs tmpfs "$layer" || return 1
	mkdir -p "$layer/upper" "$layer/work"
	mount -t overlay overlay -o "lowerdir=$dir,upperdir=$layer/upper,workdir=$layer/work" \
		"$dir" || { umount "$layer"; return 1; }
	OVERLAYS+=("$dir" "$layer")
}

overlays_down() {
	local i
	# lazily: an overlay over /usr is busy while umount itself runs
	# from it; detached, it goes once the last user is done
	for ((i = ${#OVERLAYS[@]} - 2; i >= 0; i -= 2)); do
		umount -l "${OVERLAYS[i]}" && umount -l "${OVERLAYS[i + 1]}" &&
			rmdir "${OVERLAYS[i + 1]}"
	done
	OVERLAYS=()
}
