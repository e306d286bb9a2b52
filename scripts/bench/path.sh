#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Path check: is the benchmarks' test bed faithful to what it is set to?
# Run inside the VM (make bench-path; make bench-accuracy runs it first
# and stops when it fails). On the test bed of selftests/lib.sh (C =
# BENCH_C_MBIT, default 30; 20 ms each way; MTU BENCH_MTU, default 1500;
# tbf bucket BENCH_BURST, default four frames at MTU 1500, lib.sh's
# BENCH_BUCKET_BYTES; buffer one BDP), with the cross-traffic sender
# attached and netem's delay calibrated (calibrate_rtt in lib.sh: the
# emulated machine's own share of the RTT taken off), three checks:
#   rtt    on the idle path, the median ping RTT is within 2 % of 40 ms
#   cbr    CBR UDP at 20, 40, 60 and 80 % of C (the benchmark's levels)
#          arrives at the receiver within 2 % of its set rate on the wire
#   reno   a lone reno flow fills at least 95 % of C on the wire (frames
#          arriving at the receiver from its 5th second to its 17th)
# Reported, not checked: how late the guest's timers fired during the
# reno flow (selftests/timerlat.c; accuracy.sh reports the same beside
# every transfer, since the emulation's timers can turn late after a
# check has passed), and what the host's CPUs did meanwhile (steal, QEMU,
# other load: scripts/vm/run-vm.sh). Rates on the wire are frame bytes
# (Ethernet header included), as tbf counts them, read from the
# receiver's d0 counters; an interval is timed where its counters are
# read (see cross_rate_mbps in lib.sh).
# Prints one line per figure and "path: faithful" or "path: NOT
# faithful (...)"; exit code 0 faithful, 1 not, 2 usage or test bed.
# BENCH_PATH_TOL_PCT (2) and BENCH_PATH_FILL_PCT (95) change the bounds.
export TOPO_MTU=${BENCH_MTU:-1500}
source "$(dirname "$0")/../../selftests/lib.sh"

C=${BENCH_C_MBIT:-30}
TOL=${BENCH_PATH_TOL_PCT:-2}
FILL=${BENCH_PATH_FILL_PCT:-95}
DELAY_MS=20
in_range "$C" 1 10000 || { echo "BENCH_C_MBIT: 1-10000 Mbit/s" >&2; exit 2; }
in_range "$TOL" 0 50 || { echo "BENCH_PATH_TOL_PCT: 0-50" >&2; exit 2; }
in_range "$FILL" 50 100 || { echo "BENCH_PATH_FILL_PCT: 50-100" >&2; exit 2; }
[ -x "$TIMERLAT" ] || { echo "no $TIMERLAT: run make tools" >&2; exit 2; }
export SHAPE_BURST=${BENCH_BURST:-$BENCH_BUCKET_BYTES}
in_range "$SHAPE_BURST" "$FRAME_BYTES" 10000000 ||
	{ echo "BENCH_BURST: $FRAME_BYTES (one frame) to 10000000 bytes" >&2; exit 2; }
trap topo_down EXIT

if ! topo_up "${C}mbit" $DELAY_MS || ! cross_up || ! udp_sink ||
	! calibrate_rtt "${C}mbit" $DELAY_MS; then
	echo "path: cannot build the test bed" >&2
	exit 2
fi
bad=""

# wire_mbps SECS: frames arriving at the receiver (d0), Mbit/s.
wire_mbps() {
	counter_rate_mbps "$NS_RCV" d0 "$1"
}

# within GOT WANT PCT: |GOT - WANT| <= PCT % of WANT
within() {
	float_ok "($1 - $2) <= $3 * $2 / 100 && ($2 - $1) <= $3 * $2 / 100"
}

echo "clock: $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null) (the guest kernel's clocksource; scripts/vm/run-vm.sh)"
echo "path: C = $C Mbit/s, RTT $((2 * DELAY_MS)) ms, MTU $TOPO_MTU, tbf bucket $SHAPE_BURST bytes, buffer one BDP; netem $(netem_us $DELAY_MS) us each way (the emulation adds $SHAPE_TRIM_US)"

# rtt: 30 pings of 56 bytes, 0.2 s apart, on the idle path (calibrated)
rtts=$(in_snd ping -n -c 30 -i 0.2 -W 2 $RCV_ADDR 2>/dev/null |
	sed -n 's/.*time=\([0-9.]*\) ms.*/\1/p' | sort -n)
n=$(echo "$rtts" | grep -c .)
if [ "$n" -lt 20 ]; then
	echo "rtt: only $n of 30 pings answered"
	bad="$bad rtt"
else
	med=$(echo "$rtts" | sed -n "$(((n + 1) / 2))p")
	echo "rtt: median $med ms (min $(echo "$rtts" | head -1), max $(echo "$rtts" | tail -1), $n pings), set $((2 * DELAY_MS)) ms"
	within "$med" $((2 * DELAY_MS)) "$TOL" || bad="$bad rtt"
fi

# cbr: each level alone for 9 s, measured over 5 s after 2 s (under TCG
# a process takes up to a second to start)
for pct in 20 40 60 80; do
	payload=$(awk -v c="$C" -v p="$pct" 'BEGIN { printf "%.3f", c * p / 100 }')
	# the set rate on the wire: payload plus UDP, IP and Ethernet headers
	want=$(awk -v r="$payload" -v l="$MSS_BYTES" 'BEGIN { printf "%.3f", r * (l + 42) / l }')
	ip netns exec "$NS_X" "$POISSON" -c $RCV_ADDR -b "$payload" -t 9 -C \
		-l "$MSS_BYTES" -s 1 >/dev/null &
	gen=$!
	sleep 2
	cross_rate_mbps 5 > /tmp/path-sent.$$ &
	sampler=$!
	got=$(wire_mbps 5)
	wait $sampler $gen
	sent=$(cat /tmp/path-sent.$$)
	rm -f /tmp/path-sent.$$
	echo "cbr: set $want Mbit/s on the wire ($pct % of C), sent $sent, arrived $got"
	within "$got" "$want" "$TOL" || bad="$bad cbr-$pct"
	sleep 1
done

# reno: one bulk flow for 20 s, frames at the receiver from 5 s to 17 s,
# second by second (a dip shows), and the bottleneck's drops
host=$(host_cpu_mark)
timed_send reno 5901 20 > /tmp/path-reno.$$ &
snd=$!
"$TIMERLAT" -d 20 > /tmp/path-timers.$$ &
tl=$!
sleep 5
read -r got series <<< "$(in_rcv python3 -c '
import os, time
def rx():
    with open("/sys/class/net/d0/statistics/rx_bytes") as f:
        return int(f.read()), time.monotonic()
def host():
    # the host counters of scripts/vm/run-vm.sh: (total, steal) ticks
    try:
        with open(os.environ["IMTCP_HOST_CPU"]) as f:
            kv = dict(x.split("=") for x in f.read().split()[1:])
        return int(kv["total"]), int(kv["steal"])
    except (KeyError, OSError, ValueError):
        return None
b0, t0 = rx()
p, tp = b0, t0
h = host()
per, steal = [], []
for _ in range(12):
    time.sleep(1)
    b, t = rx()
    per.append("%.1f" % ((b - p) * 8 / (t - tp) / 1e6))
    p, tp = b, t
    h2 = host()
    if h and h2 and h2[0] > h[0]:
        steal.append("%.0f" % (100 * (h2[1] - h[1]) / (h2[0] - h[0])))
    elif h and h2:
        steal.append("-")
    h = h2
print("%.3f" % ((p - b0) * 8 / (tp - t0) / 1e6), " ".join(per), "|", " ".join(steal))')"
wait $snd
kill "$tl" 2>/dev/null
wait "$tl"
line=$(cat /tmp/path-reno.$$)
timers=$(cat /tmp/path-timers.$$)
rm -f /tmp/path-reno.$$ /tmp/path-timers.$$
echo "reno: $got Mbit/s on the wire ($(awk -v g="$got" -v c="$C" 'BEGIN { printf "%.1f", 100 * g / c }') % of C), goodput $(field goodput_mbps "$line") Mbit/s over 20 s, retrans $(field retrans "$line")"
echo "reno: per second: ${series%%|*}"
steals=$(echo "${series#*|}" | xargs)
[ -n "$steals" ] && echo "reno: the host's steal in those seconds, % of its CPUs (renewed once a second, so up to a second behind; \"-\": no new counters): $steals"
echo "timers: during the reno flow a process woken every 2 ms (selftests/timerlat.c) woke late by p50 $(field late_p50_us "$timers") us, p99 $(field late_p99_us "$timers") us, max $(field late_max_us "$timers") us, over 1 ms $(field late_over_1ms "$timers") of $(field wakeups "$timers") (reported, not checked)"
hostline=$(host_cpu_since "$host")
echo "reno: $hostline (reported, not checked)"
echo "reno: bottleneck: $(tc -n "$NS_RTR" -s qdisc show dev r1 | awk '/qdisc tbf/ { t = 1 } t && /Sent/ { print; exit }')"
float_ok "$got >= $FILL * $C / 100" || bad="$bad reno"

if [ -n "$bad" ]; then
	echo "path: NOT faithful (failed:$bad; bounds: RTT and CBR within $TOL %, reno >= $FILL % of C)"
	steal=$(host_steal_pct "$hostline")
	# checks that passed read 0.1-0.3 % (build/vm/pc, 2026-12-03; and
	# one failed at 1.6 %: Documentation/benchmarks.rst, The path check)
	if [ -n "$steal" ] && float_ok "$steal >= 1"; then
		echo "path: the host's own hypervisor took $steal % of its CPUs during the reno flow (0.1-0.3 % in checks that passed, 24 % in one that failed): steal makes the emulation's timers late; try again when the host is quieter"
	fi
	exit 1
fi
echo "path: faithful (RTT and CBR within $TOL %, reno >= $FILL % of C)"
exit 0
