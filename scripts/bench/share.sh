#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# imtcp against reno head to head, many short pairs: the share that the
# accuracy benchmark's S5 measures with three pairs per order, with
# enough pairs to resolve a difference of a few percent. Run inside the
# VM:
#
#   scripts/vm/run-vm.sh --name share -- scripts/bench/share.sh
#
# Bottleneck BENCH_C_MBIT (50) Mbit/s, 20 ms each way; BENCH_CROSS_MBIT
# (0) Mbit/s of CBR UDP cross traffic from a fourth namespace that meets
# the pair only at the bottleneck, during each pair (the thin, loss-
# limited windows of the accuracy benchmark's S2-60/80).
# Per pair one imtcp and one reno flow send for BENCH_SECS (20) seconds,
# their first byte at the same moment (xfer -S), the order of starting
# their processes alternating. BENCH_PAIRS (10) pairs; with
# BENCH_CONTROL=1 each is followed by a pair with measure=N (imtcp as
# plain Reno), the run's own baseline. Prints per pair the bytes of both
# flows and the ssthresh each set at its first loss (from tcp_probe),
# then per mode the geometric mean of imtcp/reno and how many pairs were
# below 1. Exit code 1 if the test bed or a transfer failed.
source "$(dirname "$0")/../../selftests/lib.sh"

C=${BENCH_C_MBIT:-50}
SECS=${BENCH_SECS:-20}
PAIRS=${BENCH_PAIRS:-10}
CROSS=${BENCH_CROSS_MBIT:-0}
for v in "$C" "$SECS" "$PAIRS"; do
	case $v in
	''|*[!0-9]*|0) echo "BENCH_C_MBIT, BENCH_SECS, BENCH_PAIRS: positive integers" >&2
		exit 2 ;;
	esac
done
case $CROSS in
''|*[!0-9]*) echo "BENCH_CROSS_MBIT: an integer, below BENCH_C_MBIT" >&2; exit 2 ;;
esac
[ "$CROSS" -lt "$C" ] || { echo "BENCH_CROSS_MBIT: below BENCH_C_MBIT" >&2; exit 2; }
MODES=Y
[ "${BENCH_CONTROL:-0}" = 1 ] && MODES="Y N"
SHAPE_BURST=$TWO_FRAMES
WORK=$(mktemp -d)
trap 'echo Y > /sys/module/imtcp/parameters/measure 2>/dev/null
trace_stop /dev/null 2>/dev/null; topo_down; rm -rf "$WORK"' EXIT

load_imtcp || exit 1
topo_up ${C}mbit 20 || { echo "cannot build the test bed"; exit 1; }
if [ "$CROSS" -gt 0 ]; then
	cross_up || { echo "cannot add the cross-traffic sender"; exit 1; }
fi
echo mono > $TRACEFS/trace_clock
echo 'dport >= 5600 && dport < 6000' > $TRACEFS/events/tcp/tcp_probe/filter ||
	exit 1

# first_ssthresh TRACE PORT...: the ssthresh each flow set first.
first_ssthresh() {
	python3 - "$@" <<'EOF'
import re, sys
first = {}
for line in open(sys.argv[1]):
    m = re.search(r'dest=[\d.]+:(\d+) .*ssthresh=(\d+)', line)
    if m and int(m.group(2)) < 2**31 - 1 and m.group(1) not in first:
        first[m.group(1)] = m.group(2)
print(' '.join(first.get(p, '-') for p in sys.argv[2:]))
EOF
}

port=5600
for r in $(seq "$PAIRS"); do
	for mode in $MODES; do
		echo $mode > /sys/module/imtcp/parameters/measure
		if [ $((r % 2)) = 1 ]; then set -- imtcp reno; else set -- reno imtcp; fi
		if [ "$CROSS" -gt 0 ]; then
			cross_cbr ${CROSS}M $((SECS + 4)) 5201
			sleep 1
		fi
		trace_start tcp/tcp_probe || exit 1
		start=$(epoch_in 1.5)
		timed_send $1 $((port + 1)) "$SECS" -S "$start" > "$WORK/a" &
		p1=$!
		timed_send $2 $((port + 2)) "$SECS" -S "$start" > "$WORK/b" &
		p2=$!
		wait $p1 && wait $p2 || { echo "pair $r: a transfer failed"; exit 1; }
		trace_stop "$WORK/t"
		[ "$CROSS" -gt 0 ] && wait "$CROSS_PID"
		echo "pair $r measure=$mode $1 $(field bytes "$(cat "$WORK/a")")" \
			"$2 $(field bytes "$(cat "$WORK/b")")" \
			"ssthresh $(first_ssthresh "$WORK/t" $((port + 1)) $((port + 2)))" |
			tee -a "$WORK/pairs"
		port=$((port + 2))
	done
done
python3 - "$WORK/pairs" <<'EOF'
import statistics, sys
res = {}
for line in open(sys.argv[1]):
    f = line.split()
    d = {f[3]: int(f[4]), f[5]: int(f[6])}
    res.setdefault(f[2], []).append(d['imtcp'] / d['reno'])
for mode, r in sorted(res.items(), reverse=True):
    print('%s: %d pairs, imtcp/reno geometric mean %.3f, median %.3f, %d below 1'
          % (mode, len(r), statistics.geometric_mean(r), statistics.median(r),
             sum(x < 1 for x in r)))
EOF
