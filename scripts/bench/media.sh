#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Media benchmark (not a test), run inside the VM by `make bench-media`:
# imtcp-media (userspace/imtcp-media.c) picking its bitrate, 25 frames a
# second, from the default ladder (1, 2.5, 5, 8, 12, 20 Mbit/s) while the
# room on the path changes: CBR cross traffic at 0, 73 and 33 % of C on
# the wire (A = 28.7, 7.7 and 19.2 Mbit/s of payload at C = 30, MTU
# 1500), BENCH_MEDIA_SECS (20) each. Three runs over the same profile:
# the sender picking from imtcp's estimate, from tcpi_delivery_rate (the
# kernel's own figure, on a reno connection; both start at 2.5 Mbit/s),
# and staying at a fixed rung (BENCH_MEDIA_FIXED Mbit/s, default 5).
# Test bed: selftests/lib.sh
# with the path check's settings (MTU 1500, C = 30 Mbit/s, 20 ms each
# way calibrated, tbf bucket of four frames); the path check runs first
# (up to BENCH_PATH_TRIES times, as in accuracy.sh) and a failure stops
# the benchmark (BENCH_PATH_CHECK=0 runs anyway and says so). Truth: the
# cross traffic counted at the router every 100 ms.
# Output in $IMTCP_OUT (or build/bench): media.md (the table, by
# scripts/bench/media.py), media-BY.{send,recv,cross} (the records).
export TOPO_MTU=1500
source "$(dirname "$0")/../../selftests/lib.sh"

C=30
SECS=${BENCH_MEDIA_SECS:-20}
FIXED=${BENCH_MEDIA_FIXED:-5}
in_range "$SECS" 5 600 ||
	{ echo "BENCH_MEDIA_SECS: seconds per phase, 5-600" >&2; exit 2; }
case $FIXED in
''|*[!0-9.]*) echo "BENCH_MEDIA_FIXED: a rung in Mbit/s" >&2; exit 2 ;;
esac
OUT=${IMTCP_OUT:-$TOP/build/bench}
MEDIA=$TOP/build/userspace/imtcp-media
[ -x "$MEDIA" ] || { echo "no $MEDIA: run make tools" >&2; exit 2; }
mkdir -p "$OUT"
export SHAPE_BURST=$BENCH_BUCKET_BYTES
trap topo_down EXIT

bench_path_check media "$C" "$OUT"

load_imtcp || exit 1
topo_up ${C}mbit 20 && cross_up && calibrate_rtt ${C}mbit 20 ||
	{ echo "cannot build the test bed"; exit 1; }
udp_sink || exit 1

PROFILE="0:$SECS $(cross_payload $C 73):$SECS $(cross_payload $C 33):$((SECS + 10))"

# run_one BY PORT SENDER-OPTIONS...: one sender over the whole profile
run_one() {
	local by=$1 port=$2 sampler gen rcv
	shift 2
	sampler=$(sample_cross "$OUT/media-$by.cross")
	in_rcv "$MEDIA" recv -j "$port" > "$OUT/media-$by.recv" 2>&1 &
	rcv=$!
	rcv_listening "$port" || return 1
	python3 -c 'import time; print(f"{time.monotonic():.6f}")' > "$OUT/media-$by.t0"
	ip netns exec "$NS_X" "$POISSON" -c $RCV_ADDR -C -l "$MSS_BYTES" \
		-s $RANDOM -r "$PROFILE" > /dev/null &
	gen=$!
	in_snd "$MEDIA" send -j -t $((3 * SECS)) "$@" $RCV_ADDR "$port" \
		> "$OUT/media-$by.send" 2>&1
	wait_exit "$rcv" 10
	kill "$gen" "$sampler" 2>/dev/null
	wait "$gen"
	echo "media $by: $(tail -n 1 "$OUT/media-$by.send")"
	echo "media $by: $(tail -n 1 "$OUT/media-$by.recv")"
}

echo "media: C = $C Mbit/s, MTU 1500, profile (payload Mbit/s:s) $PROFILE"
run_one imtcp 6301 -p imtcp || exit 1
# from the rung imtcp's sender starts at (the lowest it measures), so that
# both begin alike
run_one delivery 6302 -p delivery -C reno -s 2.5 || exit 1
run_one fixed 6303 -p fixed -C reno -s "$FIXED" || exit 1
python3 "$TOP/scripts/bench/media.py" "$OUT" "$C" "$SECS" "$FIXED" \
	> "$OUT/media.md"
cat "$OUT/media.md"
