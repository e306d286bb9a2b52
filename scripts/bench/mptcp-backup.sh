#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# MPTCP backup benchmark (not a test), run inside the VM by
# `make bench-mptcp-backup`: a 5 Mbit/s media sender (imtcp-media, 25
# frames a second, fixed rung, --mptcp, imtcp) over two paths, with and
# without imtcp-mptcp-backup beside it. Path 1: C1 = 20 Mbit/s, idle.
# Path 2: C2 = 8 Mbit/s and netem loss of L % on its data, and after
# BENCH_BACKUP_FALL_S (10) seconds C2 falls to 3 Mbit/s: its available
# bandwidth goes below the media rate. Both paths 40 ms, MTU 1500, each
# shaped as the test bed's (selftests/lib.sh path2_up) with a tbf bucket
# of four frames. For every L in
# BENCH_BACKUP_LOSS ("1 3 6") and each variant, one run of
# BENCH_BACKUP_SECS (40) s: frames late at the receiver (playout delay
# 200 ms), how far behind schedule (p50, p99), the bytes each path
# carried, and the controller's decisions (when path 2 was marked and
# let back, and from what estimate).
# Output in $IMTCP_OUT (or build/bench): mptcp-backup.md (the table),
# mptcp-backup-L-VARIANT.{send,recv,ctl,ss,stat,fall} (the records).
export TOPO_MTU=1500
source "$(dirname "$0")/../../selftests/lib.sh"

C1=20
C2=8
C2_LOW=3
DELAY=20
RATE=5
SECS=${BENCH_BACKUP_SECS:-40}
FALL=${BENCH_BACKUP_FALL_S:-10}
LOSSES=${BENCH_BACKUP_LOSS:-1 3 6}
in_range "$SECS" 15 600 ||
	{ echo "BENCH_BACKUP_SECS: seconds per run, 15-600" >&2; exit 2; }
in_range "$FALL" 1 $((SECS - 5)) ||
	{ echo "BENCH_BACKUP_FALL_S: 1 to BENCH_BACKUP_SECS - 5" >&2; exit 2; }
for l in $LOSSES; do
	in_range "$l" 0 50 || { echo "BENCH_BACKUP_LOSS: percents, 0-50" >&2; exit 2; }
done
OUT=${IMTCP_OUT:-$TOP/build/bench}
MEDIA=$TOP/build/userspace/imtcp-media
CTL=$TOP/build/userspace/imtcp-mptcp-backup
STAT=$TOP/build/userspace/imtcp-stat
for t in "$MEDIA" "$CTL" "$STAT"; do
	[ -x "$t" ] || { echo "no $t: run make tools" >&2; exit 2; }
done
mkdir -p "$OUT"
# tbf's bucket on both paths as on the accuracy benchmark's faithful path
# (four frames): a larger one lets a short stream through unqueued
export SHAPE_BURST=$BENCH_BUCKET_BYTES
trap topo_down EXIT

load_imtcp || exit 1
if ! topo_up ${C1}mbit $DELAY || ! calibrate_rtt ${C1}mbit $DELAY ||
	! path2_up $C2 $DELAY || ! mptcp_up; then
	echo "cannot build the test bed" >&2
	exit 1
fi

# run_one LOSS VARIANT PORT: one media run; VARIANT is ctl or none
run_one() {
	local loss=$1 v=$2 port=$3 base rcv snd sampler t0 ctl=
	base=$OUT/mptcp-backup-$loss-$v
	path2_shape $C2 $DELAY "$loss" || return 1
	in_rcv "$MEDIA" recv -M -j -B 0.0.0.0 "$port" > "$base.recv" 2>&1 &
	rcv=$!
	rcv_listening "$port" || { kill "$rcv"; return 1; }
	if [ "$v" = ctl ]; then
		# not through in_snd: $! must be the controller itself,
		# for the SIGTERM below (ip netns exec execs it)
		ip netns exec "$NS_SND" "$CTL" -r $RATE -j -t $((SECS + 20)) \
			> "$base.ctl" 2>&1 &
		ctl=$!
	fi
	in_snd "$MEDIA" send -M -j -p fixed -s $RATE -t "$SECS" \
		$RCV_ADDR "$port" > "$base.send" 2>&1 &
	snd=$!
	# each path's estimates, once a second, for the table
	while kill -0 "$snd" 2>/dev/null; do
		echo "$SECONDS $(in_snd "$STAT" -j 2>/dev/null | tr -d '\n')"
		sleep 1
	done > "$base.stat" &
	sampler=$!
	t0=$SECONDS
	sleep "$FALL"
	path2_shape $C2_LOW $DELAY "$loss"
	echo "$t0 $((SECONDS - t0))" > "$base.fall"
	sleep $((SECS - FALL - 2))
	in_snd ss -Htin > "$base.ss"
	wait_exit "$snd" 20
	wait_exit "$rcv" 10
	wait "$sampler"
	[ -n "$ctl" ] && { kill -TERM "$ctl"; wait_exit "$ctl" 10; }
	echo "loss $loss% $v: $(tail -n 1 "$base.recv")"
}

echo "mptcp-backup: path 1 C $C1, path 2 C $C2 then $C2_LOW Mbit/s at $FALL s," \
	"media $RATE Mbit/s, $SECS s runs, loss on path 2: $LOSSES %"
port=6401
for loss in $LOSSES; do
	for v in none ctl; do
		run_one "$loss" $v $port || exit 1
		port=$((port + 1))
	done
done
python3 "$TOP/scripts/bench/mptcp_backup.py" "$OUT" "$SECS" "$FALL" \
	"$LOSSES" > "$OUT/mptcp-backup.md"
cat "$OUT/mptcp-backup.md"
