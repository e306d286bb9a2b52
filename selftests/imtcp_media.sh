#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# imtcp-media (userspace/imtcp-media.c) on the benchmark's faithful path
# (MTU 1500, C = 30 Mbit/s, a tbf bucket of four frames, 20 ms each way
# calibrated): a 25 frames/s sender picking its rung of the default
# ladder (1, 2.5, 5, 8, 12, 20 Mbit/s) from its own imtcp estimate,
# beside CBR cross traffic that takes 80 % of C for PHASE (12) s, stops
# for PHASE s, then takes 80 % again.
#   moves_up    the median rung of the last 4 s of the quiet phase is
#               above that of the last 4 s of the first busy phase
#   moves_down  the median rung of the last 4 s of the second busy phase
#               is below that of the quiet phase
#   frames      the receiver got every frame the sender wrote, none
#               malformed, and both printed their JSON
# Behaviour, not timing: the bounds are the rungs' order, not how fast
# they were reached (make bench-media reports that).
source "$(dirname "$0")/lib.sh"
require_root

C=30
DELAY=20
PHASE=${MEDIA_PHASE_SECS:-12}
MEDIA=$TOP/build/userspace/imtcp-media
export SHAPE_BURST=$BENCH_BUCKET_BYTES
WORK=$(mktemp -d)
trap 'topo_down; rm -rf "$WORK"' EXIT

# median_rung FILE FROM TO: the median rung the sender picked from FROM
# to TO seconds (its own clock), -1 if it picked nothing there
median_rung() {
	python3 - "$@" <<'EOF'
import json, statistics, sys
path, t0, t1 = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
rungs = []
for line in open(path):
    ev = json.loads(line)
    if ev.get("event") == "pick" and t0 <= ev["t_s"] <= t1:
        rungs.append(ev["rung"])
print(statistics.median_low(rungs) if rungs else -1)
EOF
}

# end_field FILE NAME: NAME of the "end" event in FILE
end_field() {
	python3 -c 'import json, sys
for line in open(sys.argv[1]):
    ev = json.loads(line)
    if ev.get("event") == "end":
        print(ev[sys.argv[2]])' "$@"
}

run_media() {
	local x gen rcv
	x=$(cross_payload $C 80)
	ip netns exec "$NS_X" "$POISSON" -c $RCV_ADDR -C -l "$MSS_BYTES" -s 11 \
		-r "$x:$PHASE 0:$PHASE $x:$((PHASE + 2))" > /dev/null &
	gen=$!
	in_rcv "$MEDIA" recv -j 5601 > "$WORK/recv.json" 2> "$WORK/recv.err" &
	rcv=$!
	rcv_listening 5601 || { kill "$rcv"; kill "$gen"; return 1; }
	in_snd "$MEDIA" send -j -t $((3 * PHASE)) $RCV_ADDR 5601 \
		> "$WORK/send.json" 2> "$WORK/send.err"
	echo "sender exit $?" > "$WORK/send.rc"
	wait_exit "$rcv" 10
	kill "$gen" 2>/dev/null
	wait "$gen"	# not udp_sink's reader, which stays to the end
}

show() {
	cat "$WORK/send.err" "$WORK/recv.err"
	python3 -c 'import json, sys
for line in open(sys.argv[1]):
    ev = json.loads(line)
    if ev.get("event") == "pick":
        print("t %5.1f s  estimate %5.1f  delivery %5.1f Mbit/s  rate %4.1f" % (
            ev["t_s"], ev["estimate_bps"] / 1e6, ev["delivery_bps"] / 1e6,
            ev["rate_bps"] / 1e6))' "$WORK/send.json"
	grep '"end"' "$WORK/send.json" "$WORK/recv.json"
}

# rungs at the end of each phase, the sender started 1 s after the cross
# traffic: its second t is the profile's t + 1
phase_rungs() {
	busy1=$(median_rung "$WORK/send.json" $((PHASE - 5)) $((PHASE - 1)))
	quiet=$(median_rung "$WORK/send.json" $((2 * PHASE - 5)) $((2 * PHASE - 1)))
	busy2=$(median_rung "$WORK/send.json" $((3 * PHASE - 5)) $((3 * PHASE)))
	echo "median rung: busy $busy1, quiet $quiet, busy again $busy2"
}

test_moves_up() {
	phase_rungs
	[ "$busy1" -ge 0 ] && [ "$quiet" -gt "$busy1" ] ||
		fail "no move to a higher rung when the cross traffic stopped"
}

test_moves_down() {
	phase_rungs
	[ "$busy2" -ge 0 ] && [ "$busy2" -lt "$quiet" ] ||
		fail "no move to a lower rung when the cross traffic came back"
}

test_frames() {
	local sent got bad
	grep -q 'exit 0' "$WORK/send.rc" || fail "sender: $(cat "$WORK/send.rc")"
	sent=$(end_field "$WORK/send.json" frames)
	got=$(end_field "$WORK/recv.json" frames)
	bad=$(end_field "$WORK/recv.json" bad)
	echo "frames sent $sent, received $got, malformed $bad"
	[ -n "$sent" ] && [ "$sent" -gt 0 ] && [ "$sent" = "$got" ] &&
		[ "$bad" = 0 ] || fail "frames lost or malformed"
}

tap_begin 3
[ -x "$MEDIA" ] || { echo "no $MEDIA: run make tools"; exit $KSFT_FAIL; }
load_imtcp || { echo "cannot load imtcp"; exit $KSFT_FAIL; }
if ! topo_up ${C}mbit $DELAY || ! cross_up || ! udp_sink ||
	! calibrate_rtt ${C}mbit $DELAY; then
	echo "cannot build the test bed"
	exit $KSFT_FAIL
fi
echo "# C = $C Mbit/s, MTU $TOPO_MTU, bucket $SHAPE_BURST bytes, netem $(netem_us $DELAY) us each way; cross 80 % of C, off, on, $PHASE s each"
run_media
show | sed 's/^/# /'
run_test moves_up test_moves_up
run_test moves_down test_moves_down
run_test frames test_frames
tap_end
