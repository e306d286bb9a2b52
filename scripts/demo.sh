#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The main job, run inside the VM by `make demo`: load imtcp, build the
# shaped test bed (20 Mbit/s bottleneck, 20 ms each way, and a cross-
# traffic sender that shares only the bottleneck: see selftests/lib.sh),
# run an 18 s bulk transfer on imtcp while UDP cross traffic goes 4, 8,
# then 4 Mbit/s. 20 Mbit/s: under TCG the emulated machine cannot
# forward much more under load, and then A = C - cross would overstate
# the path (Documentation/benchmarks.rst, accuracy). Two timelines interleave
# as they happen: once a second the router's count of the cross traffic,
# so A = 20 - cross, and each estimate as imtcp makes it (imtcp-stat -w
# -j -t). Both loops run on
# shell builtins only: under TCG starting a process takes a good part of
# a second, and the demo should not disturb what it shows. At the end:
# the connection as ss -ti shows it, each estimate against the A the
# router counted in the second before it (C - cross) and against what
# the link served beside the cross traffic, how late the machine's timers
# fired meanwhile (selftests/timerlat.c: over 15 % more than 1 ms late,
# the emulated path was not faithful), the module's statistics, and
# a picture of it all beside the kernel's own figure (the flow's
# tcpi_delivery_rate), $IMTCP_OUT/demo.png (build/vm/demo/demo.png;
# scripts/demo-plot.py, with Debian's python3-matplotlib).
source "$(dirname "$0")/../selftests/lib.sh"
# the benchmarks' bucket (four frames at MTU 1500): through a bucket of
# two frames the emulated machine's late timers cost the link for good,
# and it sent 17.4 Mbit/s of its 20 (2026-12-02): A = C - cross then
# overstated the path by about 2 Mbit/s, and the estimates, nearer what
# the link served, read low against it
SHAPE_BURST=$BENCH_BUCKET_BYTES
C_MBIT=20
CROSS="4 8 4"
SECS=18
OUT=$(mktemp -d)
trap 'kill $sampler $watcher $timers 2>/dev/null; topo_down; rm -rf "$OUT"' EXIT

# One line a second: the cross traffic the router received in that
# second (bytes on r2, timed where they are read) and A = C - cross,
# in TCP payload as the estimate is: frames of 1514 bytes carry 1448
# (Documentation/benchmarks.rst, accuracy); beside it what the
# bottleneck sent in that second (bytes out of r1, all traffic), which
# under TCG falls short of C while its queue stands (the emulated
# machine's timers fire late and tbf sends less than its rate). The
# lines also go to $OUT/truth as "end_us cross_kbit_per_s
# link_kbit_per_s" (frames).
sample_truth() {
	local t0=$1 f=/sys/class/net/r2/statistics/rx_bytes a b ta tb x avail
	local g=/sys/class/net/r1/statistics/tx_bytes link0_bytes link1_bytes link_kbps
	mkfifo "$OUT/tick"
	exec 3<> "$OUT/tick"
	read -r a < $f
	read -r link0_bytes < $g
	ta=${EPOCHREALTIME/./}
	while :; do
		read -r -t 1 -u 3
		read -r b < $f
		read -r link1_bytes < $g
		tb=${EPOCHREALTIME/./}
		x=$(((b - a) * 8000 / (tb - ta)))	# kbit/s
		link_kbps=$(((link1_bytes - link0_bytes) * 8000 / (tb - ta)))
		echo "$tb $x $link_kbps" >> "$OUT/truth"
		a=$b
		link0_bytes=$link1_bytes
		ta=$tb
		avail=$(((C_MBIT * 1000 - x) * MSS_BYTES / FRAME_BYTES))
		printf '%6.1f  router: cross traffic %5.1f Mbit/s, so A = %5.1f Mbit/s; the link sent %4.1f of its %d\n' \
			"$(((tb - t0) / 1000))e-3" "${x}e-3" \
			"$((avail < 0 ? 0 : avail))e-3" "${link_kbps}e-3" "$C_MBIT"
	done
}

# Each estimate as it arrives; also to $OUT/est as "us estimate raw
# capacity" (capacity 0: none yet).
# Members are looked up by name, each on its own, in whatever order
# imtcp-stat writes them.
print_estimates() {
	local t0=$1 l t e r lo hi cap_bps cs
	local rt='"time":([0-9]+)\.([0-9]+)' re='"estimate_bps":([0-9]+)'
	local rr='"raw_bps":([0-9]+)' rg='"range_bps":\[([0-9]+),([0-9]+)\]'
	local rc='"capacity_bps":([0-9]+)'
	while read -r l; do
		[[ $l =~ $rt ]] || continue
		t=$((BASH_REMATCH[1] * 1000000 + 10#${BASH_REMATCH[2]}))
		[[ $l =~ $re ]] || continue
		e=${BASH_REMATCH[1]}
		[[ $l =~ $rr ]] || continue
		r=${BASH_REMATCH[1]}
		[[ $l =~ $rg ]] || continue
		lo=${BASH_REMATCH[1]} hi=${BASH_REMATCH[2]}
		cap_bps=0
		[[ $l =~ $rc ]] && cap_bps=${BASH_REMATCH[1]}
		cs=-
		[ "$cap_bps" -gt 0 ] && cs=$(printf '%.1f' "$((cap_bps / 1000))e-3")
		echo "$t $e $r $cap_bps" >> "$OUT/est"
		printf '%6.1f  imtcp:  estimate %5.1f Mbit/s   (this measurement %5.1f, range %.1f-%.1f; capacity %s)\n' \
			"$(((t - t0) / 1000))e-3" "$((e / 1000))e-3" \
			"$((r / 1000))e-3" "$((lo / 1000))e-3" "$((hi / 1000))e-3" "$cs"
	done
}

load_imtcp || exit 1
STAT=$TOP/build/userspace/imtcp-stat
[ -x "$STAT" ] || { echo "no $STAT: make tools"; exit 1; }
echo "== loaded: $(cat /proc/sys/net/ipv4/tcp_available_congestion_control)"
topo_up ${C_MBIT}mbit 20 && cross_up || { echo "cannot build the test bed"; exit 1; }
echo "== bottleneck (router egress to the receiver):"
tc -n "$NS_RTR" qdisc show dev r1 | sed 's/^/   /'
udp_sink || exit 1	# the cross-traffic generator sends to port 9
sleep 1
echo "== ${SECS} s of bulk imtcp; UDP cross traffic ${CROSS// /, } Mbit/s; time in s"
mkfifo "$OUT/events"
t0=${EPOCHREALTIME/./}
# the same moment on the monotonic clock, which xfer -T stamps: uptime
# is CLOCK_BOOTTIME, the same while the machine has not slept
read -r mono0 _ < /proc/uptime
# ip netns exec execs its command: these PIDs are the loops themselves
OUT=$OUT C_MBIT=$C_MBIT MSS_BYTES=$MSS_BYTES FRAME_BYTES=$FRAME_BYTES \
	ip netns exec "$NS_RTR" \
	bash -c "$(declare -f sample_truth); sample_truth $t0" &
sampler=$!
ip netns exec "$NS_SND" "$STAT" -w -j -t > "$OUT/events" &
watcher=$!
print_estimates "$t0" < "$OUT/events" &
printer=$!
# one generator for the whole profile: the steps follow each other with
# no gap (a sender process per step left the bottleneck empty for a
# second or two at each step under TCG)
profile=$(for r in $CROSS; do printf '%s:6 ' "$r"; done)
cross0=${EPOCHREALTIME/./}
in_x "$POISSON" -c $RCV_ADDR -C -r "$profile" >/dev/null &
cross=$!
"$TIMERLAT" > "$OUT/timers" &
timers=$!
timed_send imtcp 5201 $SECS -T "$OUT/samples" > "$OUT/result" &
spid=$!
sleep $((SECS / 2))
in_snd ss -tin "dport = :5201" > "$OUT/ss"
wait "$spid" || { echo "transfer failed"; exit 1; }
kill "$sampler" "$watcher" "$timers"
wait "$printer" "$cross" "$timers"
echo "== the connection half way, as ss -ti showed it:"
sed -n '2,$p' "$OUT/ss" | sed 's/^/   /'
echo "== result: $(cat "$OUT/result")"
echo "== each estimate against the A the router counted in the second before it"
echo "   (C - cross), and against what the link served beside the cross traffic"
echo "   (sent - cross: A itself while the bulk flow keeps a queue there):"
touch "$OUT/est" "$OUT/truth"
awk -v c=$C_MBIT -v t0="$t0" -v mss=$MSS_BYTES -v frame=$FRAME_BYTES '
BEGIN { p = mss / frame }	# payload of a frame
FNR == NR { tt[++n] = $1; x[n] = $2 / 1000; link_mbps[n] = $3 / 1000; next }
function median(v, k,    i, j, w) {	# a few hundred: insertion sort
	for (i = 2; i <= k; i++)
		for (j = i; j > 1 && v[j - 1] > v[j]; j--) {
			w = v[j]; v[j] = v[j - 1]; v[j - 1] = w
		}
	return v[int((k + 1) / 2)]
}
{
	a = ""
	for (i = n; i >= 1; i--)
		if (tt[i] <= $1) { a = (c - x[i]) * p; served_mbps = (link_mbps[i] - x[i]) * p; break }
	if (a == "")
		next
	if (a < 0)
		a = 0
	if (served_mbps < 0)
		served_mbps = 0
	e = $2 / 1e6
	err = e > a ? e - a : a - e
	served_err_mbps = e > served_mbps ? e - served_mbps : served_mbps - e
	printf "   t=%5.1f s  A = %5.1f  served %5.1f  estimate %5.1f  error %5.1f / %4.1f Mbit/s (%.0f / %.0f %% of C)\n",
		($1 - t0) / 1e6, a, served_mbps, e, err, served_err_mbps,
		100 * err / (c * p), 100 * served_err_mbps / (c * p)
	errs[++m] = err
	served_errs[m] = served_err_mbps
	if ($4 > 0)
		cap = $4 / 1e6
}
END {
	for (i = 3; i <= n; i++)	# from the third second: past slow start
		sent[++k] = link_mbps[i]
	if (k)
		printf "   the link sent %.1f Mbit/s of its %d (median of %d seconds, frames)\n",
			median(sent, k), c, k
	if (!m) { print "   no estimate to compare"; exit }
	if (cap)
		printf "   capacity with the last estimate %.1f Mbit/s for C = %.1f (%.0f %% off)\n",
			cap, c * p, 100 * (cap > c * p ? cap - c * p : c * p - cap) / (c * p)
	me = median(errs, m)
	ms = median(served_errs, m)
	printf "   %d estimates; median error %.1f Mbit/s (%.0f %% of C) against C - cross, %.1f (%.0f %%) against what the link served\n",
		m, me, 100 * me / (c * p), ms, 100 * ms / (c * p)
}' "$OUT/truth" "$OUT/est"
echo "== the emulated machine's timers during the transfer (a process woken every 2 ms):"
if timers_late "$OUT/timers" "   the transfer"; then
	echo "   (a busy host): the figures above are the emulation's as much"
	echo "   as imtcp's"
fi
echo "== module statistics (the sender's network namespace):"
ip netns exec "$NS_SND" "$STAT" -s | sed 's/^/   /'
PNG=${IMTCP_OUT:-$TOP/build}/demo.png
if python3 "$TOP/scripts/demo-plot.py" "$OUT" $C_MBIT "$t0" "$mono0" \
	"$cross0" 6 "$CROSS" $MSS_BYTES $FRAME_BYTES "$PNG"; then
	echo "== picture: $PNG"
else
	echo "== no picture (scripts/demo-plot.py failed; python3-matplotlib: make deps)"
fi
