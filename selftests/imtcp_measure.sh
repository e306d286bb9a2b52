#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The measurement in a real kernel: 50 Mbit/s bottleneck, 20 ms each
# way (lib.sh), a cross-traffic sender sharing only the bottleneck.
#   - module parameters refuse values out of range;
#   - steady CBR cross traffic (5 Mbit/s through a 20 Mbit/s
#     bottleneck), hold_budget=100: estimates are made (at least 10 in
#     20 s), each positive and at most 16 C (the module caps its range
#     at 16 times the delivery rate, which is at most C), and the median
#     of the second half within 30 % of A = C - cross (the cross rate
#     counted at the router; in TCP payload, x 1448/1514, as the
#     estimate). This case runs at 20 Mbit/s, not the 50 of
#     the other tests: under TCG the emulated machine cannot forward
#     50 Mbit/s under load (a UDP sender offered 40-50 Mbit/s next to
#     10 of cross traffic got 30-31 through, the bottleneck sent 28-37
#     in all), so there A = C - cross overstates what the path offers
#     and every estimator reads low (this test at 50: 0.74-0.85 A); at
#     20 Mbit/s with 5 of cross a UDP sender got 14.0-14.4 of A = 14.85.
#     Even there a run can find the emulated machine slow: once in nine
#     runs the bulk flow itself got 6.7 Mbit/s (0.45 A; the others
#     11.6-12.4) and the estimates followed it (0.45 A). Where the
#     flow's goodput is below 0.6 A the test bed did not carry A: the
#     median is printed and the test skipped (TAP SKIP, counted in the
#     CI's last line).
#   - the path's capacity, which the CBR run's estimates came with
#     (core/imtcp_cap.c): at least 5 had one, their median within 25 %
#     of C = 19.1 Mbit/s of payload (19.1 in the run of 2026-11-30);
#   - the control unit entered STORE, SEND, PASS and EMPTY (tracepoints);
#   - with 1 % loss, measurement is off during every CWR, Recovery and
#     Loss episode (imtcp:imtcp_state against tcp:tcp_cong_state_set).
#   - an application-limited sender (5 Mbit/s in 40 ms chunks, 20 s, the
#     default hold budget) keeps its rate (at least 4.5 Mbit/s) and
#     measures on its writes: at least 10 estimates (measured in 20 s:
#     56 since holds cost nothing while the writes fit in the window;
#     25, 35, 14 in three runs of 2026-11-25; before the free holds
#     2-3 in 10 s), and with a capacity: at least 5 estimates had one,
#     their median within 0.7-1.4 C (C = 47.8 Mbit/s of payload; 52.5 in
#     the run of 2026-11-30, p10 48.7, p90 61.1; why it reads high
#     there is not traced). The capacity needs the ACKs' spacing: where
#     it misses its bound while the emulated machine ran late beside the
#     flow (timerlat, the host's steal: emulation_slow in lib.sh, the
#     accuracy test's bounds) the case skips (TAP SKIP) and says why.
#     The CI of 917fc20 read 24.5 (0.51 C, 105 estimates where the five
#     runs of that case alone the same day gave 138-157 and 46.0-48.2)
#     with nothing beside it to tell whether the host was late.
#   - an application-limited sender at 2 Mbit/s in 40 ms chunks (6 full
#     segments, too few for a stream) shows no estimate and the reason
#     writes-short (6 of 8 samples from 4.5 s on at least).
#   - the benchmark's cross-traffic generator (poisson -C -r) follows a
#     profile of 8, 0 and 16 Mbit/s, 5 s each: the rates counted at the
#     router in the middle of each step are within 20 % of the payload
#     rate plus headers (1490/1448; the silent step below 0.3 Mbit/s).
#   - outside the operating envelope (noise_us=5000 makes it 20.85
#     Mbit/s, the bottleneck is 50) nothing is published and the socket
#     says why;
#   - hold budget, 1 % loss, 10 s each: with hold_budget=2 the hold time
#     the socket reports (netlink hold_us) stays within what the budget
#     allows (2 % of the transfer, plus at most one RTT of credit and one
#     measurement's debt, bounded generously by 12 x 100 ms), and below
#     what the same transfer holds with hold_budget=100.
source "$(dirname "$0")/lib.sh"
require_root

C_MBIT=50
DELAY=20
SHAPE_BURST=${SHAPE_BURST:-$TWO_FRAMES}
CBR_C_MBIT=20
CBR_MBIT=5
SECS=20
WORK=$(mktemp -d)
PARAMS=/sys/module/imtcp/parameters
STAT=$TOP/build/userspace/imtcp-stat
TRACE_PY="$SELFTESTS_DIR/imtcp_trace.py"
# Traces are kept with the VM run's output (build/vm/NAME) when there is one.
keep_traces() {
	[ -n "${IMTCP_OUT:-}" ] && cp "$WORK"/*.trace "$IMTCP_OUT"/ 2>/dev/null
	rm -rf "$WORK"
}
trap 'trace_stop /dev/null 2>/dev/null; topo_down; keep_traces' EXIT

test_param_ranges() {
	local p bad old
	for p in "stream_len 4" "stream_len 17" "streams 0" "streams 9" \
		 "noise_us 100001" "gain_shift 5" "stale_rtts 10001" "stream_len abc" \
		 "hold_budget 0" "hold_budget 101" "free_starts 9" \
		 "fail_alloc_every 1000001" "fail_alloc_every -1"; do
		set -- $p
		old=$(cat $PARAMS/$1)
		if echo "$2" > $PARAMS/$1 2>/dev/null; then
			echo "$1=$2 was accepted"
			bad=1
		fi
		[ "$(cat $PARAMS/$1)" = "$old" ] || { echo "$1 changed"; bad=1; }
	done
	old=$(cat $PARAMS/stream_len)
	echo 12 > $PARAMS/stream_len || { echo "stream_len=12 refused"; bad=1; }
	[ "$(cat $PARAMS/stream_len)" = 12 ] || bad=1
	echo "$old" > $PARAMS/stream_len
	[ -z "${bad:-}" ]
}

# Runs once; the two tests below read its trace and numbers. It runs
# with hold_budget=100 (measuring without pause, as the paper does): it
# tests the measurement, not the budget (at the default of 2 % a run
# made 6 estimates in 20 s; test_hold_budget covers the budget).
cbr_run() {
	local x old
	shape ${CBR_C_MBIT}mbit $DELAY || return 1
	cross_cbr ${CBR_MBIT}M $((SECS + 4)) 5201
	sleep 2
	# the bottleneck goes back to C_MBIT for the tests after this one
	trace_start imtcp tcp/tcp_cong_state_set ||
		{ shape ${C_MBIT}mbit $DELAY; return 1; }
	old=$(cat $PARAMS/hold_budget)
	echo 100 > $PARAMS/hold_budget
	timed_send imtcp 5301 $SECS > "$WORK/cbr.xfer" &
	sleep 2
	echo "$old" > $PARAMS/hold_budget
	sleep $((SECS / 2 - 2))
	x=$(cross_rate_mbps $((SECS / 2 - 2)))
	wait $!
	trace_stop "$WORK/cbr.trace"
	kill "$CROSS_PID" 2>/dev/null
	wait
	shape ${C_MBIT}mbit $DELAY || return 1
	echo "$x" > "$WORK/cbr.cross"
	cat "$WORK/cbr.xfer"
	python3 "$TRACE_PY" summary "$WORK/cbr.trace"
}

# est_mbit COLUMN TRACE: the nonzero figures of one column of
# imtcp_trace.py's estimates (4 busy, 6 capacity) in Mbit/s, sorted
est_mbit() {
	python3 "$TRACE_PY" estimates "$2" |
		awk -v c="$1" '$c > 0 { print $c / 1e6 }' | sort -g
}

# median_of FILE: the median of a sorted column of numbers (none: empty)
median_of() {
	awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }' "$1"
}

# payload_mbit C_MBIT: what a link of C_MBIT carries of TCP payload
payload_mbit() {
	awk -v c="$1" -v p=$MSS_BYTES -v f=$FRAME_BYTES \
		'BEGIN { printf "%.2f", c * p / f }'
}

# Skip (TAP SKIP) a figure of the CBR run where its flow got below 0.6 A:
# the test bed did not carry A (see the top of this file).
skip_if_cbr_slow() {
	local got truth
	got=$(field goodput_mbps "$(head -n 1 "$WORK/cbr.xfer")")
	truth=$(cbr_truth)
	awk -v g="$got" -v t="$truth" 'BEGIN { exit !(g < 0.6 * t) }' &&
		skip "the test bed carried $got Mbit/s of A = $truth this run (emulation too slow): not judged"
	return 0
}

# A of the CBR run in TCP payload, as the estimate (lib.sh, MSS_BYTES),
# from the cross rate the router counted.
cbr_truth() {
	awk -v c=$CBR_C_MBIT -v x="$(cat "$WORK/cbr.cross")" -v p=$MSS_BYTES \
		-v f=$FRAME_BYTES 'BEGIN { printf "%.2f", (c - x) * p / f }'
}

test_cbr_estimate() {
	local x truth n med t0
	cbr_run || fail "CBR run"
	x=$(cat "$WORK/cbr.cross")
	truth=$(cbr_truth)
	python3 "$TRACE_PY" estimates "$WORK/cbr.trace" > "$WORK/est"
	n=$(wc -l < "$WORK/est")
	echo "cross traffic $x Mbit/s at the router: A = $truth Mbit/s; $n estimates"
	[ "$n" -ge 10 ] || fail "only $n estimates in $SECS s"
	t0=$(head -n 1 "$WORK/est" | cut -d' ' -f1)
	med=$(awk -v t0="$t0" -v h=$((SECS / 2)) '$1 - t0 >= h - 2 { print $2 / 1e6 }' \
		"$WORK/est" | sort -g | median_of -)
	[ -n "$med" ] || fail "no estimates in the second half"
	echo "median estimate, second half: $med Mbit/s ($(awk -v m="$med" \
		-v t="$truth" 'BEGIN { printf "%.2f", m / t }') x A)"
	awk -v cap=$((16 * CBR_C_MBIT)) '$2 <= 0 || $2 / 1e6 > cap { bad = 1 } END { exit bad }' "$WORK/est" ||
		fail "an estimate out of range"
	skip_if_cbr_slow
	awk -v m="$med" -v t="$truth" 'BEGIN { exit !(m >= 0.7 * t && m <= 1.3 * t) }' ||
		fail "median $med Mbit/s is not within 30 % of A = $truth"
}

# The busy-link rate (core/imtcp_busy.c) of the CBR run: on a bottleneck
# whose queue stands, the connection's delivery rate is A itself.
test_busy_rate() {
	local truth n med
	[ -s "$WORK/cbr.trace" ] || fail "no trace from the CBR run"
	truth=$(cbr_truth)
	est_mbit 4 "$WORK/cbr.trace" > "$WORK/busy"
	n=$(wc -l < "$WORK/busy")
	med=$(median_of "$WORK/busy")
	echo "$n estimates with a busy-link rate, median $med Mbit/s (A = $truth)"
	[ "$n" -ge 5 ] || fail "only $n estimates saw a busy link"
	skip_if_cbr_slow
	awk -v m="$med" -v t="$truth" 'BEGIN { exit !(m >= 0.7 * t && m <= 1.3 * t) }' ||
		fail "busy-link rate $med Mbit/s is not within 30 % of A = $truth"
}

# The path's capacity (core/imtcp_cap.c) from the CBR run's trace: the
# figure each estimate came with, once there is one, near C in payload.
test_capacity() {
	local c n med
	[ -s "$WORK/cbr.trace" ] || fail "no trace from the CBR run"
	c=$(payload_mbit $CBR_C_MBIT)
	est_mbit 6 "$WORK/cbr.trace" > "$WORK/cap"
	n=$(wc -l < "$WORK/cap")
	med=$(median_of "$WORK/cap")
	echo "$n estimates with a capacity, median $med Mbit/s (C = $c in payload)"
	[ "$n" -ge 5 ] || fail "only $n estimates came with a capacity"
	skip_if_cbr_slow
	awk -v m="$med" -v c="$c" 'BEGIN { exit !(m >= 0.75 * c && m <= 1.25 * c) }' ||
		fail "capacity $med Mbit/s is not within 25 % of C = $c"
}

test_states_visited() {
	local s
	[ -s "$WORK/cbr.trace" ] || fail "no trace from the CBR run"
	s=$(python3 "$TRACE_PY" states "$WORK/cbr.trace")
	echo "states entered: $s"
	for want in store send pass empty; do
		echo " $s " | grep -q " $want " || fail "never entered $want"
	done
}

test_off_in_recovery() {
	local line
	shape ${C_MBIT}mbit $DELAY loss 1%
	trace_start imtcp tcp/tcp_cong_state_set || fail "tracing"
	line=$(timed_send imtcp 5302 10) || fail "transfer"
	trace_stop "$WORK/loss.trace"
	shape ${C_MBIT}mbit $DELAY
	echo "$line"
	[ -n "$(field cookie "$line")" ] || fail "the transfer printed no cookie"
	python3 "$TRACE_PY" summary "$WORK/loss.trace"
	python3 "$TRACE_PY" recovery "$WORK/loss.trace" 5302 \
		"$(field cookie "$line")" ||
		fail "measurement ran during loss recovery (or no recovery seen)"
}

test_app_limited() {
	local line n rate c cap slow=
	[ -x "$TIMERLAT" ] || fail "no $TIMERLAT: make -C selftests"
	trace_start imtcp/imtcp_estimate || fail "tracing"
	watch_start app
	line=$(timed_send imtcp 5305 20 -r 5) || { watch_end app; fail "transfer"; }
	watch_end app
	trace_stop "$WORK/app.trace"
	cat "$WORK/app.host"
	echo "$line"
	n=$(python3 "$TRACE_PY" estimates "$WORK/app.trace" | wc -l)
	rate=$(field goodput_mbps "$line")
	echo "application-limited at 5 Mbit/s: $rate Mbit/s, $n estimates in 20 s"
	awk -v r="$rate" 'BEGIN { exit !(r >= 4.5) }' ||
		fail "the sender was held back: $rate Mbit/s"
	[ "$n" -ge 10 ] || fail "only $n estimates"
	c=$(payload_mbit $C_MBIT)
	est_mbit 6 "$WORK/app.trace" > "$WORK/app.cap"
	cap=$(median_of "$WORK/app.cap")
	echo "$(wc -l < "$WORK/app.cap") estimates with a capacity, median ${cap:-none} Mbit/s (C = $c in payload)"
	[ "$(wc -l < "$WORK/app.cap")" -ge 5 ] || fail "fewer than 5 estimates came with a capacity"
	emulation_slow app && slow=1
	awk -v m="$cap" -v c="$c" 'BEGIN { exit !(m >= 0.7 * c && m <= 1.4 * c) }' &&
		return 0
	[ -n "$slow" ] &&
		skip "capacity $cap Mbit/s is not within 0.7-1.4 C = $c, on a path the emulation did not carry: not judged"
	fail "capacity $cap Mbit/s is not within 0.7-1.4 C = $c"
}

# A sender whose writes are too short for a stream (2 Mbit/s in 40 ms
# chunks: 10,000 bytes, 6 full segments, fewer than IMTCP_WRITE_SEGS_MIN)
# shows no estimate and says why: sampled eight times from 4.5 s on,
# at least six read estimate 0 with reason writes-short (a frame written
# late joins the next into one write, which can lift the reason for two
# frames). Before, a first result from a hold that gathered two frames
# stood as its estimate for the whole transfer (2.9 C, traced).
# Every estimate it did publish is withdrawn, and traced so (withdrawn).
test_short_writes() {
	local port=5311 i
	trace_start imtcp/imtcp_estimate imtcp/imtcp_withdraw || fail "tracing"
	# 20 s: the eight reads from 4.5 s on took past 12 s on a slow host
	# (CI of 2026-12-02: the socket was gone at the eighth)
	timed_send imtcp $port 20 -r 2 > "$WORK/short.xfer" &
	sleep 4.5
	for i in $(seq 8); do
		in_snd "$STAT" -j dport $port > "$WORK/short.$i"
		sleep 0.5
	done
	wait
	trace_stop "$WORK/short.trace"
	cat "$WORK/short.xfer"
	withdrawn "$WORK/short.trace" "$(field cookie "$(cat "$WORK/short.xfer")")" ||
		fail "an estimate was taken back without imtcp_withdraw"
	python3 - "$WORK"/short.[1-8] <<'PY' || fail "short writes"
import json, sys
rows = []
for name in sys.argv[1:]:
    try:
        rows += json.load(open(name))
    except ValueError:
        pass
print(" ".join(f'{r["estimate_bps"]}/{r["reason"]}' for r in rows))
said = sum(r["estimate_bps"] == 0 and r["reason"] == "writes-short"
           for r in rows)
print(f"{said} of {len(rows)} samples: no estimate, writes-short")
assert len(rows) == 8, "the socket was not found every time"
assert said >= 6
PY
}

# withdrawn TRACE COOKIE: the tracepoint imtcp_withdraw has its fields,
# and every estimate the socket published (imtcp_estimate) was later
# withdrawn (imtcp_withdraw, shown=1, reason writes-short): the socket
# ends with none (test_short_writes checks that). A withdrawal of a
# result never shown (shown=0) may come at any time; one that says it
# was shown must follow an estimate.
withdrawn() {
	local fmt=$TRACEFS/events/imtcp/imtcp_withdraw/format f
	for f in cookie bps shown reason; do
		grep -q "field:.* $f;" "$fmt" || { echo "no field $f in $fmt"; return 1; }
	done
	[ -n "$2" ] || { echo "no cookie"; return 1; }
	python3 - "$1" "$2" <<'PY'
import re, sys
shown = False
for line in open(sys.argv[1]):
    m = re.search(r"(imtcp_estimate|imtcp_withdraw): cookie=(\d+) (.*)", line)
    if not m or m.group(2) != sys.argv[2]:
        continue
    print(line.strip())
    if m.group(1) == "imtcp_estimate":
        shown = True
        continue
    assert "reason=writes-short" in m.group(3), "withdrawn for another reason"
    if "shown=1" in m.group(3):
        assert shown, "withdrew an estimate that was not shown"
        shown = False
assert not shown, "the last estimate shown was not withdrawn"
PY
}

# held_us BUDGET PORT: a 10 s transfer at that hold budget; prints the
# transfer's seconds and the socket's hold_us.
held_us() {
	local budget=$1 port=$2 line cookie hold snd rcv old
	old=$(cat $PARAMS/hold_budget)
	echo "$budget" > $PARAMS/hold_budget || return 1
	in_rcv "$XFER" recv -p "$port" 2>/dev/null &
	rcv=$!
	in_snd "$XFER" send -c $RCV_ADDR -p "$port" -C imtcp -t 10 -H 3 \
		> "$WORK/hold.$budget" &
	snd=$!
	for _ in $(seq 300); do
		[ -s "$WORK/hold.$budget" ] && break
		sleep 0.1
	done
	echo "$old" > $PARAMS/hold_budget
	line=$(cat "$WORK/hold.$budget")
	cookie=$(field cookie "$line")
	hold=$(in_snd "$STAT" -j cookie "$cookie" | python3 -c '
import json, sys
r = json.load(sys.stdin)
print(r[0]["hold_us"] if len(r) == 1 else "")')
	wait $snd $rcv
	[ -n "$hold" ] || return 1
	echo "$(field secs "$line") $hold"
}

test_hold_budget() {
	local tight loose
	shape ${C_MBIT}mbit $DELAY loss 1%
	tight=$(held_us 2 5303) || fail "transfer at hold_budget=2"
	loose=$(held_us 100 5304) || fail "transfer at hold_budget=100"
	shape ${C_MBIT}mbit $DELAY
	echo "hold_budget=2: $tight (s, hold_us); hold_budget=100: $loose"
	set -- $tight $loose
	awk -v s="$1" -v h="$2" 'BEGIN { exit !(h <= 0.02 * s * 1e6 + 12 * 100000) }' ||
		fail "hold_budget=2 held $2 us in $1 s"
	[ "$2" -lt "$4" ] || fail "the budget held no less than no budget"
}

# at OFFSET s after T0 (EPOCHREALTIME), the cross rate over SECS s
rate_at() {
	local t0=$1 off=$2 secs=$3 wait
	wait=$(awk -v t0="$t0" -v o="$off" -v now="$EPOCHREALTIME" \
		'BEGIN { w = t0 + o - now; printf "%.3f", (w > 0 ? w : 0) }')
	sleep "$wait"
	cross_rate_mbps "$secs"
}

test_cross_profile() {
	local t0 r1 r0 r2 gen
	udp_sink || fail "no UDP sink on the receiver"
	t0=$EPOCHREALTIME
	ip netns exec "$NS_X" "$POISSON" -c $RCV_ADDR -C -r "8:5 0:5 16:5" \
		> "$WORK/gen" &
	gen=$!
	r1=$(rate_at "$t0" 1.5 2)
	r0=$(rate_at "$t0" 6.5 1.5)
	r2=$(rate_at "$t0" 11.5 2)
	wait "$gen" || fail "generator failed"
	echo "router counted $r1, $r0, $r2 Mbit/s; generator: $(cat "$WORK/gen")"
	awk -v a="$r1" -v z="$r0" -v b="$r2" -v w=1490 -v l=1448 'BEGIN {
		exit !(a >= 0.8 * 8 * w / l && a <= 1.2 * 8 * w / l &&
		       z < 0.3 &&
		       b >= 0.8 * 16 * w / l && b <= 1.2 * 16 * w / l) }' ||
		fail "the profile's rates were not what the router counted"
}

# The operating envelope: with noise_us=5000 a stream of 10 segments of
# 1448 bytes can rise only where C is below 9 x 1448 x 8 / 5 ms = 20.85
# Mbit/s; a bulk flow through the 50 Mbit/s bottleneck is outside it, so
# its socket publishes no estimate, says why (reason above-envelope, the
# envelope in bit/s), and the namespace counts the dropped results.
# Where the socket did not say so and the flow itself got less than 1.2
# times the envelope (25.0 Mbit/s), the emulation did not carry a path
# beyond the envelope this run: skipped (TAP SKIP), not judged.
test_outside_envelope() {
	local old_noise old_budget rc row got
	old_noise=$(cat $PARAMS/noise_us)
	old_budget=$(cat $PARAMS/hold_budget)
	echo 5000 > $PARAMS/noise_us
	echo 100 > $PARAMS/hold_budget
	timed_send imtcp 5309 8 -H 4 > "$WORK/env.xfer" &
	sleep 9.5
	echo "$old_noise" > $PARAMS/noise_us
	echo "$old_budget" > $PARAMS/hold_budget
	row=$(in_snd "$STAT" -j dport 5309)
	rc=$?
	wait
	cat "$WORK/env.xfer"
	echo "$row"
	[ $rc = 0 ] || fail "imtcp-stat found no socket (exit $rc)"
	in_snd "$STAT" -s
	got=$(field goodput_mbps "$(cat "$WORK/env.xfer")")
	echo "$row" | python3 -c '
import json, sys
r = json.load(sys.stdin)[0]
assert r["reason"] == "above-envelope", r["reason"]
assert r["estimate_bps"] == 0, r["estimate_bps"]
assert r["envelope_bps"] in map(int, sys.argv[1].split()), r["envelope_bps"]
' "$(envelopes_bps 5000)" && rc=0 || rc=1
	# the case needs a path faster than the envelope: a CI run whose
	# emulation ran slow (srtt 103 ms on this 40 ms path) delivered the
	# flow 17.5 Mbit/s, inside it
	[ $rc = 1 ] && float_ok "$got < 1.2 * 20.85" &&
		skip "the test bed carried the flow $got Mbit/s, not beyond the envelope of 20.85 this run (emulation too slow): not judged"
	[ $rc = 0 ] || fail "the socket outside the envelope did not say so"
	[ "$(in_snd "$STAT" -s | awk '$1 == "out_of_envelope" { print $2 }')" -gt 0 ] ||
		fail "no result counted as out of the envelope"
}

# The latest result three ways: what the streams measured (probe_bps),
# what the busy-link bounds left of it (raw_bps), the busy delivery rate
# that bounds it (busy_bps; a cap at most busy_margin percent above it),
# and whether a bound moved it (bound); and
# netlink's capacity (capacity_bps): there once ten results came (89-102
# results and 43.6-48.9 Mbit/s on this 50 Mbit/s path in four runs of
# 2026-11-30), and at most twice the link's rate.
test_probe_and_busy() {
	local old rows
	old=$(cat $PARAMS/hold_budget)
	echo 100 > $PARAMS/hold_budget
	timed_send imtcp 5310 8 > "$WORK/probe.xfer" &
	sleep 7
	rows=$(in_snd "$STAT" -j dport 5310)
	echo "$old" > $PARAMS/hold_budget
	wait
	echo "$rows"
	echo "$rows" | python3 -c '
import json, sys
r = json.load(sys.stdin)[0]
assert r["measurements"] >= 1, "no result in 7 s"
assert r["probe_bps"] > 0, r
assert r["bound"] in ("none", "cap", "floor"), r["bound"]
if r["raw_bps"] != r["probe_bps"]:
    assert r["bound"] != "none", "a result moved without a bound"
    assert r["busy_bps"] > 0, "held by a busy rate of 0"
if r["bound"] == "cap":
    assert r["estimate_bps"] <= r["busy_bps"] * (100 + int(sys.argv[2])) // 100 + 1, r
if r["measurements"] >= 10:
    assert 0 < r["capacity_bps"] <= 2 * int(sys.argv[1]) * 1000000, r
' "$C_MBIT" "$(cat $PARAMS/busy_margin)" || fail "probe, busy, bound and capacity are not consistent"
}

load_imtcp || { echo "1..0 # SKIP cannot load imtcp"; exit $KSFT_SKIP; }
[ -d $TRACEFS/events/imtcp ] || { echo "1..0 # SKIP no tracefs"; exit $KSFT_SKIP; }
command -v iperf3 >/dev/null || { echo "1..0 # SKIP no iperf3"; exit $KSFT_SKIP; }
topo_up ${C_MBIT}mbit $DELAY && cross_up || { echo "1..0 # SKIP no test bed"; exit $KSFT_SKIP; }

tap_begin 12
run_test param_ranges test_param_ranges
run_test cbr_estimate_within_30_percent test_cbr_estimate
run_test busy_link_rate_near_a test_busy_rate
run_test capacity_near_c test_capacity
run_test control_unit_states test_states_visited
run_test off_during_recovery test_off_in_recovery
run_test app_limited_measures test_app_limited
run_test short_writes_say_why test_short_writes
run_test hold_budget test_hold_budget
run_test cross_profile_steps test_cross_profile
run_test outside_envelope_publishes_nothing test_outside_envelope
run_test probe_and_busy_published test_probe_and_busy
tap_end
