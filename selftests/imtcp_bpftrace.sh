#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The shipped bpftrace scripts (userspace/bpftrace/) against live
# traffic: all three attach while a 12 s imtcp transfer crosses a
# 20 Mbit/s bottleneck with 5 Mbit/s of CBR cross traffic (hold_budget
# 100, so that the transfer measures often), then stop with SIGINT as a
# user's Ctrl-C would.
#   - imtcp-estimates.bt prints a row per estimate (as many as the
#     imtcp_estimate tracepoint fired, counted from tracefs), each for the
#     transfer's cookie, with an estimate above 0 and at most 16 C (the
#     module's cap: the rows must be the module's figures, whose
#     accuracy imtcp_measure.sh and imtcp_accuracy.sh judge; after a
#     loss one run's estimate read 57 Mbit/s here for 0.3 s);
#   - imtcp-streams.bt ends with each outcome counted for that cookie,
#     and prints a row for every stream that ran dry or was unclear;
#   - imtcp-holds.bt ends with the socket's holds and its time held, more
#     than 0 and less than the transfer lasted, and a histogram.
source "$(dirname "$0")/lib.sh"
require_root

C_MBIT=20
DELAY=20
SECS=12
BT=$TOP/userspace/bpftrace
WORK=$(mktemp -d)
PARAMS=/sys/module/imtcp/parameters
OLD_BUDGET=

cleanup() {
	[ -n "$OLD_BUDGET" ] && echo "$OLD_BUDGET" > $PARAMS/hold_budget
	trace_stop /dev/null 2>/dev/null
	topo_down
	[ -n "${IMTCP_OUT:-}" ] && cp "$WORK"/*.out "$IMTCP_OUT"/ 2>/dev/null
	rm -rf "$WORK"
}

# The transfer, with every script attached and the tracepoint counted.
run_traced() {
	local s pids=() line
	for s in estimates streams holds; do
		bpftrace "$BT/imtcp-$s.bt" > "$WORK/$s.out" 2> "$WORK/$s.err" &
		pids+=($!)
	done
	# bpftrace compiles its program first: wait until all three print
	for _ in $(seq 120); do
		[ -s "$WORK/estimates.out" ] && [ -s "$WORK/streams.out" ] &&
			grep -q "Attaching" "$WORK/holds.err" "$WORK/holds.out" 2>/dev/null && break
		sleep 0.5
	done
	sleep 1
	trace_start imtcp/imtcp_estimate imtcp/imtcp_withdraw imtcp/imtcp_move ||
		return 1
	line=$(timed_send imtcp 5311 $SECS) || return 1
	trace_stop "$WORK/estimate.trace"
	echo "$line"
	field cookie "$line" > "$WORK/cookie"
	kill -INT "${pids[@]}"
	wait "${pids[@]}"
	for s in estimates streams holds; do
		echo "--- imtcp-$s.bt"
		head -c 3000 "$WORK/$s.out"
		grep -v "^Attaching" "$WORK/$s.err" | head -n 5
	done
}

test_estimates() {
	local cookie n rows w wrows m mrows
	cookie=$(cat "$WORK/cookie")
	n=$(grep -c 'imtcp_estimate:' "$WORK/estimate.trace")
	w=$(grep -c 'imtcp_withdraw:' "$WORK/estimate.trace")
	m=$(grep -c 'imtcp_move:' "$WORK/estimate.trace")
	rows=$(awk -v c="$cookie" '$2 == c && $3 != "withdrawn" && $3 != "moved"' "$WORK/estimates.out" | wc -l)
	wrows=$(awk '$3 == "withdrawn"' "$WORK/estimates.out" | wc -l)
	mrows=$(awk '$3 == "moved"' "$WORK/estimates.out" | wc -l)
	echo "imtcp_estimate fired $n times, imtcp_withdraw $w, imtcp_move $m; the script printed $rows rows for cookie $cookie, $wrows withdrawals, $mrows moves"
	[ "$n" -ge 1 ] || fail "no estimate in $SECS s"
	[ "$rows" = "$n" ] || fail "$rows rows for $n estimates"
	[ "$wrows" = "$w" ] || fail "$wrows rows for $w withdrawals"
	[ "$mrows" = "$m" ] || fail "$mrows rows for $m moves"
	awk -v c="$cookie" -v top=$((16 * C_MBIT)) '$2 == c && $3 != "withdrawn" && $3 != "moved" && ($3 <= 0 || $3 > top) { bad = 1 }
		END { exit bad }' "$WORK/estimates.out" || fail "an estimate out of range"
}

test_streams() {
	local cookie
	cookie=$(cat "$WORK/cookie")
	grep -q "^@streams\[$cookie, \(flat\|rise\|unclear\|dry\)\]: [1-9]" "$WORK/streams.out" ||
		fail "no stream outcome counted for cookie $cookie"
	awk -v c="$cookie" '$2 == c && $4 != "dry" && $4 != "unclear" { bad = 1 }
		END { exit bad }' "$WORK/streams.out" || fail "a row for a stream that answered"
}

test_holds() {
	local cookie holds held
	cookie=$(cat "$WORK/cookie")
	holds=$(sed -n "s/^@holds\[$cookie\]: //p" "$WORK/holds.out" | tail -n 1)
	held=$(sed -n "s/^@held_us\[$cookie\]: //p" "$WORK/holds.out" | tail -n 1)
	echo "cookie $cookie: $holds holds, $held us held"
	[ -n "$holds" ] && [ "$holds" -ge 1 ] || fail "no hold counted"
	[ -n "$held" ] && [ "$held" -gt 0 ] && [ "$held" -lt $((SECS * 1000000)) ] ||
		fail "time held $held us"
	grep -q '^@hold_us:' "$WORK/holds.out" || fail "no histogram of holds"
}

command -v bpftrace >/dev/null || { echo "1..0 # SKIP no bpftrace"; exit $KSFT_SKIP; }
load_imtcp || { echo "1..0 # SKIP cannot load imtcp"; exit $KSFT_SKIP; }
[ -d $TRACEFS/events/imtcp ] || { echo "1..0 # SKIP no tracefs"; exit $KSFT_SKIP; }
trap cleanup EXIT
topo_up ${C_MBIT}mbit $DELAY && cross_up || { echo "1..0 # SKIP no test bed"; exit $KSFT_SKIP; }
OLD_BUDGET=$(cat $PARAMS/hold_budget)
echo 100 > $PARAMS/hold_budget
cross_cbr 5M $((SECS + 8)) 5211
run_traced > "$WORK/run.log" 2>&1
rc=$?
sed 's/^/# /' "$WORK/run.log"
[ $rc = 0 ] || { echo "FAIL: the traced transfer did not run"; exit $KSFT_FAIL; }

tap_begin 3
run_test estimates_script test_estimates
run_test streams_script test_streams
run_test holds_script test_holds
tap_end
