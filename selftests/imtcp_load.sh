#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Loading and selecting imtcp: module load/unload, the available list,
# selection by sysctl and by iperf3 -C, the refusal to unload while a
# socket uses it, and odd socket paths (SYN_SENT, disconnect, a refused
# connect, dual stack) that leave no socket or module reference behind;
# rmmod after connection churn in three namespaces that defaulted to it;
# every module parameter refusing values outside its range.
source "$(dirname "$0")/lib.sh"
require_root

AVAIL=/proc/sys/net/ipv4/tcp_available_congestion_control
DEFAULT=/proc/sys/net/ipv4/tcp_congestion_control

test_load_unload() {
	if imtcp_loaded; then
		unload_imtcp || fail "cannot unload the loaded module"
	fi
	grep -qw imtcp $AVAIL && fail "imtcp listed while unloaded"
	insmod "$TOP/imtcp.ko" || fail "insmod failed"
	grep -qw imtcp $AVAIL || fail "imtcp not in $AVAIL: $(cat $AVAIL)"
	echo "available: $(cat $AVAIL)"
	unload_imtcp || fail "rmmod failed"
	grep -qw imtcp $AVAIL && fail "imtcp still listed after rmmod"
	insmod "$TOP/imtcp.ko" || fail "second insmod failed"
	lsmod | grep -w '^imtcp'
}

test_params_listed() {
	modinfo "$TOP/imtcp.ko" | grep -E '^(description|license|alias):' ||
		fail "modinfo shows no description"
	modinfo -F alias "$TOP/imtcp.ko" | grep -qx tcp_imtcp ||
		fail "no tcp_imtcp alias (sysctl autoload needs it)"
}

# Every parameter takes only its range: a write outside it is refused
# and leaves the value as it was; both ends are taken.
test_params_range_checked() {
	local d=/sys/module/imtcp/parameters p lo hi old bad
	while read -r p lo hi; do
		old=$(cat $d/$p)
		for bad in $((lo - 1)) $((hi + 1)) x; do
			if echo "$bad" 2>/dev/null > $d/$p; then
				echo "$old" > $d/$p
				fail "$p took $bad (range $lo-$hi)"
			fi
			[ "$(cat $d/$p)" = "$old" ] ||
				fail "$p is $(cat $d/$p) after a refused write"
		done
		echo "$lo" > $d/$p && echo "$hi" > $d/$p ||
			fail "$p refused an end of $lo-$hi"
		echo "$old" > $d/$p
	done <<-EOF
	stream_len 5 16
	streams 1 8
	noise_us 0 100000
	gain_shift 0 4
	stale_rtts 0 10000
	hold_budget 1 100
	free_starts 0 8
	off_debt_rtts 0 256
	busy_margin 0 100
	busy_window_rtts 1 16
	busy_floor_pct 0 100
	fail_alloc_every 0 1000000
	EOF
	echo "twelve parameters refuse values outside their ranges"
}

# A connection that sets nothing gets the default: imtcp after the sysctl.
test_sysctl_default() {
	local old port=5301 line rc=0
	old=$(cat $DEFAULT)
	sysctl -qw net.ipv4.tcp_congestion_control=imtcp || fail "sysctl refused imtcp"
	[ "$(cat $DEFAULT)" = imtcp ] || fail "default is $(cat $DEFAULT)"
	"$XFER" recv -p $port &
	line=$("$XFER" send -c 127.0.0.1 -p $port -n 4000000) || rc=1
	wait
	sysctl -qw net.ipv4.tcp_congestion_control="$old"
	echo "$line"
	[ $rc = 0 ] || fail "transfer failed"
	[ "$(field cc "$line")" = imtcp ] || fail "connection used $(field cc "$line")"
}

# ss shows imtcp for a live connection.
test_ss_shows_imtcp() {
	local port=5302 out
	"$XFER" recv -p $port &
	"$XFER" send -c 127.0.0.1 -p $port -C imtcp -t 4 >/dev/null &
	# poll: under TCG the connection may take a moment to appear
	for _ in 1 2 3 4 5 6; do
		sleep 0.5
		out=$(ss -tin "dport = :$port")
		echo "$out" | grep -qw imtcp && break
	done
	wait
	echo "$out"
	echo "$out" | grep -qw imtcp || fail "ss -ti does not show imtcp"
}

# Loopback: the CPU, not a bottleneck, paces the connection, and holds
# cannot gather a stream. The socket must say so: reason holds-failing,
# or above-envelope where a measurement did complete and its result or
# the connection's delivery rate lay beyond what a stream can measure
# (3 of 10 runs logged in the VM: 64 KB segments, envelope 9.4 Gbit/s),
# or writes-short: xfer's writes of 128 KB are two of loopback's 64 KB
# segments, and the receiver sharing the CPUs leaves gaps between them
# longer than an eighth of the RTT (a CI run of 2026-11-27: 116 failed
# streams, writes-short).
# And its failed holds must back off: 1,900 holds failed in 6 s without
# the rest, and it spent 13 % of its time holding.
# Seconds since @1 (date +%s%N), to the millisecond.
seconds_since() {
	awk -v t="$(($(date +%s%N) - $1))" 'BEGIN { printf "%.3f", t / 1e9 }'
}

test_loopback_says_why() {
	local port=5304 row rows="" t0 rcv snd at_s
	"$XFER" recv -p $port &
	rcv=$!
	t0=$(date +%s%N)
	# 15 s, stopped after the last read at 7 s: a CI run's reads ran
	# past the end of an 8 s transfer and the last one found no socket
	"$XFER" send -c 127.0.0.1 -p $port -C imtcp -t 15 >/dev/null &
	snd=$!
	# the reason is read every 0.2 s from 2 s to 6.5 s, not once: a step
	# once ended writes-short after holds-failing had been asked, and
	# until the next ACK the socket gave no reason (a CI run read that
	# at 7 s)
	sleep 2
	while [ $(($(date +%s%N) - t0)) -lt 6500000000 ]; do
		rows+=$("$TOP/build/userspace/imtcp-stat" -j dport $port),
		sleep 0.2
	done
	sleep "$(awk -v s="$(seconds_since "$t0")" \
		'BEGIN { d = 7 - s; printf "%.3f", (d > 0 ? d : 0) }')"
	row=$("$TOP/build/userspace/imtcp-stat" -j dport $port)
	at_s=$(seconds_since "$t0")
	kill "$snd" "$rcv" 2>/dev/null
	wait
	echo "$row"
	echo "the last read at $at_s s"
	# each read is a JSON array: all of them as one array of arrays
	echo "[$rows$row]" | python3 -c '
import json, sys
reasons = ("holds-failing", "above-envelope", "writes-short")
rows = json.load(sys.stdin)
last = rows.pop()
if len(last) != 1:
    sys.exit("expected one socket, got %d" % len(last))
at_s = float(sys.argv[1])
# in every read, once 9 or more streams failed with no estimate ever
# taken (8 make holds-failing; one more lets the dump, which reads the
# fields one by one, not catch the step that made it), a reason
silent = [r for rs in rows for r in rs
          if r["measurements"] == 0 and r["estimate_bps"] == 0 and
          r["streams_failed"] >= 9 and r["reason"] not in reasons]
print("%d reads, %d without a reason while failing" %
      (sum(len(rs) for rs in rows), len(silent)))
if silent:
    sys.exit("no estimate and no reason: %s" % json.dumps(silent[0]))
r = last[0]
print("estimate %d bit/s, reason %s, %d failed streams, %d results, held %.3f s" %
      (r["estimate_bps"], r["reason"], r["streams_failed"], r["measurements"],
       r["hold_us"] / 1e6))
# with no result ever taken, no estimate needs a reason (uapi/imtcp.h);
# after a result, holds-failing waits for 8 failures since it: a CI run
# read estimate 0, no reason, 1 result, 52 failed streams in all at
# 6.5 s (its awk then sent its sleep to a file named 0: mended)
if (r["estimate_bps"] == 0 and r["measurements"] == 0 and
        r["reason"] not in reasons):
    sys.exit("no estimate, no result and no reason")
# hold_us counts every hold, also the part a standing queue pays for,
# which the 2 % budget does not charge: where streams start on loopback
# (reason above-envelope) holds came to 0.107-0.154 s of 7 s, else
# 0.044-0.091; a runaway held 0.679
if r["hold_us"] > 0.03 * at_s * 1e6:
    sys.exit("held more than 3 %% of %.1f s" % at_s)
' "$at_s" || fail "loopback"
}

test_iperf3() {
	local out
	command -v iperf3 >/dev/null || skip "iperf3 not installed"
	iperf3 -s -1 -p 5303 >/dev/null 2>&1 &
	sleep 0.5
	out=$(iperf3 -c 127.0.0.1 -p 5303 -t 2 -C imtcp -J) || {
		wait; fail "iperf3 -C imtcp failed: $out"; }
	wait
	echo "$out" | python3 -c '
import json, sys
end = json.load(sys.stdin)["end"]
cc = end.get("sender_tcp_congestion")
bps = end["sum_received"]["bits_per_second"]
print(f"iperf3: sender_tcp_congestion={cc} received={bps/1e6:.1f} Mbit/s")
sys.exit(0 if cc == "imtcp" and bps > 0 else 1)' || fail "iperf3 did not use imtcp"
}

test_rmmod_refused_while_in_use() {
	local port=5304 spid
	"$XFER" recv -p $port &
	"$XFER" send -c 127.0.0.1 -p $port -C imtcp -t 3 >/dev/null &
	spid=$!
	sleep 1
	if rmmod imtcp 2>/dev/null; then
		fail "rmmod succeeded while a socket used imtcp"
	fi
	echo "rmmod refused while in use: ok"
	wait
	unload_imtcp || fail "rmmod failed after the socket closed"
	echo "rmmod after close: ok"
	insmod "$TOP/imtcp.ko" || fail "reload failed"
	[ -n "$spid" ]
}

test_rmmod_refused_while_default() {
	sysctl -qw net.ipv4.tcp_congestion_control=imtcp
	if rmmod imtcp 2>/dev/null; then
		fail "rmmod succeeded while imtcp was the default"
	fi
	sysctl -qw net.ipv4.tcp_congestion_control=cubic
	unload_imtcp || fail "rmmod failed once no longer the default"
	insmod "$TOP/imtcp.ko" || fail "reload failed"
}

# Odd socket paths (imtcp_paths.py), in a namespace of their own where
# 198.18.9.2 routes to a dummy device that drops everything: a socket in
# SYN_SENT switched 20 times, disconnected with connect(AF_UNSPEC) and
# connected again; a socket connected after a refused connect; a
# dual-stack socket to ::ffff:127.0.0.1, which imtcp-stat's filter
# 'dst 127.0.0.1' finds. Each step has its own deadline
# (a blocking connect to the dummy route would wait for the SYN retries,
# about two minutes). Afterwards the namespace has no imtcp socket left
# and the module's reference count is back where it was.
test_odd_socket_paths() {
	local ns=imtcp-paths-$$ ref0 ref n i
	ref0=$(cat /sys/module/imtcp/refcnt)
	ip netns add $ns || fail "netns"
	ip -n $ns link set lo up
	ip -n $ns link add d0 type dummy && ip -n $ns link set d0 up &&
		ip -n $ns addr add 198.18.9.1/24 dev d0 ||
		{ ip netns del $ns; fail "dummy device"; }
	IMTCP_STAT=$TOP/build/userspace/imtcp-stat timeout 90 \
		ip netns exec $ns python3 "$SELFTESTS_DIR/imtcp_paths.py" 198.18.9.2
	rc=$?
	for i in $(seq 100); do
		n=$(ip netns exec $ns "$TOP/build/userspace/imtcp-stat" -s |
			awk '$1 == "sockets" { print $2 }')
		ref=$(cat /sys/module/imtcp/refcnt)
		[ "$n" = 0 ] && [ "$ref" = "$ref0" ] && break
		sleep 0.1
	done
	ip netns del $ns
	echo "imtcp sockets left in the namespace: $n; module refcnt $ref0 -> $ref"
	[ $rc = 0 ] || fail "imtcp_paths.py: exit $rc"
	[ "$n" = 0 ] || fail "$n imtcp sockets left"
	[ "$ref" = "$ref0" ] || fail "module reference count $ref0 -> $ref"
}

# Churn in three namespaces whose default is imtcp: 500 short and 167
# concurrent connections each (1,500 and 500 in all), the servers
# dropped with unread data (resets), the defaults set back to cubic.
# Then, every 0.5 s: the module's reference count, the imtcp sockets the
# namespaces still count, and the TCP sockets not yet closed; rmmod must
# succeed once the count reaches 0, within 60 s.
test_unload_after_churn() {
	local ns i t rc=0 ref n states pids=""
	for i in 1 2 3; do
		ns=imtcp-churn-$i-$$
		ip netns add $ns && ip -n $ns link set lo up &&
			ip netns exec $ns sysctl -qw net.ipv4.tcp_congestion_control=imtcp ||
			fail "namespace $ns"
	done
	for i in 1 2 3; do
		timeout 120 ip netns exec imtcp-churn-$i-$$ python3 \
			"$SELFTESTS_DIR/imtcp_churn.py" 500 167 &
		pids="$pids $!"
	done
	for p in $pids; do
		wait "$p" || rc=1
	done
	for i in 1 2 3; do
		ip netns exec imtcp-churn-$i-$$ sysctl -qw net.ipv4.tcp_congestion_control=cubic
	done
	for t in $(seq 120); do
		ref=$(cat /sys/module/imtcp/refcnt)
		n=0
		states=""
		for i in 1 2 3; do
			n=$((n + $(ip netns exec imtcp-churn-$i-$$ "$TOP/build/userspace/imtcp-stat" -s |
				awk '$1 == "sockets" { print $2 }')))
			states="$states$(ip netns exec imtcp-churn-$i-$$ ss -tanH |
				awk '$1 != "TIME-WAIT" { print $1 }' | sort | uniq -c | tr -s ' \n' ' ')"
		done
		[ $((t % 4)) = 1 ] || [ "$ref" = 0 ] &&
			echo "$((t / 2)).$((t % 2 * 5)) s: refcnt $ref, imtcp sockets $n, not closed:${states:- none}"
		[ "$ref" = 0 ] && break
		sleep 0.5
	done
	for i in 1 2 3; do
		ip netns del imtcp-churn-$i-$$
	done
	[ $rc = 0 ] || fail "a churn program failed"
	[ "$ref" = 0 ] || fail "module still referenced ($ref) after 60 s"
	unload_imtcp || fail "rmmod failed with no reference left"
	insmod "$TOP/imtcp.ko" || fail "reload failed"
}

tap_begin 11
run_test load_unload test_load_unload
run_test modinfo test_params_listed
run_test params_range_checked test_params_range_checked
run_test sysctl_default test_sysctl_default
run_test ss_shows_imtcp test_ss_shows_imtcp
run_test loopback_says_why test_loopback_says_why
run_test iperf3_C_imtcp test_iperf3
run_test rmmod_refused_while_in_use test_rmmod_refused_while_in_use
run_test rmmod_refused_while_default test_rmmod_refused_while_default
run_test odd_socket_paths test_odd_socket_paths
run_test unload_after_churn test_unload_after_churn
tap_end
