#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The shipped bpftrace scripts (userspace/bpftrace/) against live
# traffic: all three attach while a 12 s imtcp transfer crosses a
# 20 Mbit/s bottleneck with 5 Mbit/s of CBR cross traffic (hold_budget
# 100, so that the transfer measures often), then stop with SIGINT as a
# user's Ctrl-C would.
#   - imtcp-estimates.bt prints a row per estimate (as many as the
#     imtcp_estimate tracepoint fired, counted from tracefs, or up to a
#     few fewer: see missed_ok), each for the transfer's cookie, with
#     an estimate above 0 and at most 16 C (the module's cap: the rows
#     must be the module's figures, whose accuracy imtcp_measure.sh and
#     imtcp_accuracy.sh judge; after a loss one run's estimate read 57
#     Mbit/s here for 0.3 s);
#   - imtcp-streams.bt ends with each outcome counted for that cookie,
#     as many streams as the imtcp_stream tracepoint fired for it less
#     the carried ones (carried=1: traced again by the next measurement;
#     hold_budget 100 makes a bulk transfer carry), or up to a few fewer
#     (missed_ok), and prints a row for every stream that ran dry or was
#     unclear;
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

# say WHAT: a line of progress with the guest's uptime, so that a run
# that stalls shows where (the CI keeps only what a test printed).
say() {
	echo "[$(uptime_s)] $*"
}

# why_stuck PID NAME: what a process that did not finish is doing.
why_stuck() {
	local st
	st=/proc/$1/status
	[ -r "$st" ] || return 0
	echo "$2 (pid $1) still running: $(grep -E '^(State|SigIgn|SigCgt):' "$st" | tr '\n\t' '  ')"
	echo "  wchan $(cat /proc/"$1"/wchan 2>/dev/null); kernel stack:"
	sed 's/^/    /' /proc/"$1"/stack 2>/dev/null | head -n 12
}

# stop_all SIG SECS PID...: send SIG, then wait at most SECS for every
# PID to exit; true if they did. Those left are killed and described.
# SIGINT is sent again every 5 s to a script still running, as a user
# presses Ctrl-C again. Seen in a CI run of 2026-12-01: a bpftrace (0.17,
# Debian 12) with its SIGINT handler installed still asleep in
# epoll_wait 60 s after SIGINT, the transfer over, so no event to wake
# it: a SIGINT that came before it went to sleep. A signal that finds it
# there ends the wait (epoll_wait is never restarted after a handler,
# signal(7)), and it stops as on the first.
stop_all() {
	local sig=$1 end=$((SECONDS + $2)) p left=0
	shift 2
	kill -"$sig" "$@" 2>/dev/null
	for p in "$@"; do
		while [ "$sig" = INT ] && [ $SECONDS -lt $((end - 5)) ] &&
		      ! gone_within "$p" 5; do
			say "pid $p still running 5 s after SIGINT: SIGINT again"
			kill -INT "$p" 2>/dev/null
		done
		gone_within "$p" $((end > SECONDS ? end - SECONDS : 0)) && continue
		why_stuck "$p" "$(tr '\0' ' ' < /proc/"$p"/cmdline 2>/dev/null | cut -c1-80)"
		kill -KILL "$p" 2>/dev/null
		left=1
	done
	wait "$@" 2>/dev/null
	return $left
}

# all_attached: each script has started its probes (bpftrace compiles
# its program first, and prints "Attaching N probes" once it has set its
# Ctrl-C handler; before that SIGINT is ignored, the scripts running in
# the background of a non-interactive shell).
all_attached() {
	local s
	for s in estimates streams holds; do
		grep -q "Attaching" "$WORK/$s.out" "$WORK/$s.err" 2>/dev/null ||
			return 1
	done
	# and the first two have run BEGIN (their header)
	grep -qv Attaching "$WORK/estimates.out" 2>/dev/null &&
		grep -qv Attaching "$WORK/streams.out" 2>/dev/null
}

# The transfer, with every script attached and the tracepoint counted.
# Every step is bounded: a script that does not attach in 180 s, a
# transfer that has not ended 60 s after its time, a script that does
# not end 60 s after SIGINT fails the run and says what it was doing.
run_traced() {
	local s pids=() i xfer_pid line
	for s in estimates streams holds; do
		bpftrace "$BT/imtcp-$s.bt" > "$WORK/$s.out" 2> "$WORK/$s.err" &
		pids+=($!)
	done
	say "bpftrace started: pids ${pids[*]}"
	for i in $(seq 360); do
		all_attached && break
		sleep 0.5
	done
	if ! all_attached; then
		for s in estimates streams holds; do
			echo "--- imtcp-$s.bt, not attached:"
			head -n 5 "$WORK/$s.out" "$WORK/$s.err"
		done
		stop_all KILL 10 "${pids[@]}"
		fail "the scripts did not attach in 180 s"
	fi
	say "all three attached"
	sleep 1
	trace_start imtcp/imtcp_estimate imtcp/imtcp_withdraw imtcp/imtcp_move \
		imtcp/imtcp_stream ||
		{ stop_all KILL 10 "${pids[@]}"; fail "cannot trace"; }
	timed_send imtcp 5311 $SECS > "$WORK/line" &
	xfer_pid=$!
	say "transfer started"
	if ! stop_all 0 $((SECS + 60)) $xfer_pid; then
		echo "the transfer did not end $((SECS + 60)) s after it began:"
		in_snd ss -tinm "dport = :5311" | head -n 12
		in_snd "$TOP/build/userspace/imtcp-stat" 2>&1 | head -n 5
		for p in $(pgrep -f "$XFER (send|recv) .*-p 5311"); do
			why_stuck "$p" xfer
			kill -KILL "$p"
		done
		trace_stop /dev/null
		stop_all KILL 10 "${pids[@]}"
		fail "transfer stalled"
	fi
	trace_stop "$WORK/estimate.trace"
	line=$(cat "$WORK/line")
	say "transfer done: $line"
	[ -n "$line" ] || { stop_all KILL 10 "${pids[@]}"; fail "the transfer failed"; }
	field cookie "$line" > "$WORK/cookie"
	stop_all INT 60 "${pids[@]}" || fail "a script did not end on SIGINT"
	say "scripts ended"
	for s in estimates streams holds; do
		echo "--- imtcp-$s.bt"
		head -c 3000 "$WORK/$s.out"
		grep -v "^Attaching" "$WORK/$s.err" | head -n 5
	done
}

# Whether a script that saw @got of @want events missed few enough: none
# extra, and at most 2 or 2 % fewer. The kernel runs no BPF program for a
# tracepoint that fires while another BPF program runs on the same CPU
# (trace_call_bpf's per-CPU bpf_prog_active guard), and neither it nor
# bpftrace tells of such a miss: the three scripts' programs run at
# imtcp tracepoints that fire in softirq (ACKs) and in process context
# (sends), so an ACK's event may find the CPU inside another script's
# program. Seen in a CI run of 2026-12-01: 161 rows for 162 estimates,
# 294 streams counted for 296; the runs before it counted every one.
missed_ok() {
	local got=$1 want=$2 slack=$(($2 / 50))
	[ $slack -ge 2 ] || slack=2
	[ "$got" -le "$want" ] && [ $((want - got)) -le $slack ]
}

test_estimates() {
	local cookie n rows w wrows m mrows
	[ -s "$WORK/cookie" ] || fail "no traced transfer"
	cookie=$(cat "$WORK/cookie")
	n=$(grep -c 'imtcp_estimate:' "$WORK/estimate.trace")
	w=$(grep -c 'imtcp_withdraw:' "$WORK/estimate.trace")
	m=$(grep -c 'imtcp_move:' "$WORK/estimate.trace")
	rows=$(awk -v c="$cookie" '$2 == c && $3 != "withdrawn" && $3 != "moved"' "$WORK/estimates.out" | wc -l)
	wrows=$(awk '$3 == "withdrawn"' "$WORK/estimates.out" | wc -l)
	mrows=$(awk '$3 == "moved"' "$WORK/estimates.out" | wc -l)
	echo "imtcp_estimate fired $n times, imtcp_withdraw $w, imtcp_move $m; the script printed $rows rows for cookie $cookie, $wrows withdrawals, $mrows moves"
	[ "$n" -ge 1 ] || fail "no estimate in $SECS s"
	if ! missed_ok "$rows" "$n"; then
		# which one is missing or extra: the first and last of each
		awk -v c="$cookie" '$2 == c && $3 != "withdrawn" && $3 != "moved"' \
			"$WORK/estimates.out" | sed -n '1,3p;$p'
		grep 'imtcp_estimate:' "$WORK/estimate.trace" | sed -n '1,3p;$p'
		grep -m 1 'entries-in-buffer' "$WORK/estimate.trace"
		fail "$rows rows for $n estimates"
	fi
	[ "$wrows" = "$w" ] || fail "$wrows rows for $w withdrawals"
	[ "$mrows" = "$m" ] || fail "$mrows rows for $m moves"
	awk -v c="$cookie" -v top=$((16 * C_MBIT)) '$2 == c && $3 != "withdrawn" && $3 != "moved" && ($3 <= 0 || $3 > top) { bad = 1 }
		END { exit bad }' "$WORK/estimates.out" || fail "an estimate out of range"
}

test_streams() {
	local cookie fired carried counted
	[ -s "$WORK/cookie" ] || fail "no traced transfer"
	cookie=$(cat "$WORK/cookie")
	grep -q "^@streams\[$cookie, \(flat\|rise\|unclear\|dry\)\]: [1-9]" "$WORK/streams.out" ||
		fail "no stream outcome counted for cookie $cookie"
	fired=$(grep -c "imtcp_stream: cookie=$cookie " "$WORK/estimate.trace")
	carried=$(grep -c "imtcp_stream: cookie=$cookie .* carried=1" "$WORK/estimate.trace")
	counted=$(sed -n "s/^@streams\[$cookie, [a-z]*\]: //p" "$WORK/streams.out" |
		awk '{ n += $1 } END { print n + 0 }')
	echo "imtcp_stream fired $fired times for cookie $cookie, $carried of them carried; the script counted $counted"
	missed_ok "$counted" $((fired - carried)) ||
		fail "counted $counted streams for $fired - $carried"
	awk -v c="$cookie" '$2 == c && $4 != "dry" && $4 != "unclear" { print; bad = 1 }
		END { exit bad }' "$WORK/streams.out" || fail "a row for a stream that answered"
}

test_holds() {
	local cookie holds held
	[ -s "$WORK/cookie" ] || fail "no traced transfer"
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
tap_begin 4
run_test traced_transfer run_traced
run_test estimates_script test_estimates
run_test streams_script test_streams
run_test holds_script test_holds
tap_end
