#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# imtcp-stat and the netlink registry with many sockets, several network
# namespaces, events, and module unload:
#   - with imtcp not loaded, imtcp-stat says so (exit 3);
#   - with no imtcp socket, the header (with -t, a Time column first)
#     and exit 4;
#   - 1000 connections (2000 imtcp sockets): -j lists each exactly once,
#     the same set of cookies as SO_COOKIE; a table row per socket;
#     a filter by cookie gives that socket;
#   - sockets of another network namespace are not visible; they are
#     from inside it;
#   - listening to estimates needs CAP_NET_ADMIN over the namespace;
#   - statistics are per network namespace: user nobody's own namespace
#     (unshare -Urn) resets its counters and not the init namespace's;
#   - imtcp-stat -w -j -t receives an event per estimate (JSON per
#     line), each stamped with the time it arrived (in order, within
#     the transfer), one per estimate withdrawn, one per move;
#     TCP_CC_INFO and netlink give the same estimate for a socket;
#   - an estimate shown and then taken back (the path turned faster
#     than the operating envelope) reaches it as a withdraw event, and
#     -w's table as a row whose Note says so;
#   - when the path falls, the figure shown follows the busy cap down
#     between results, and listeners hear it as move events: at every
#     dump the figure last heard is near the dump's;
#   - closing all sockets while dumps run: no error, the count returns to
#     zero; rmmod works with a monitor still attached.
source "$(dirname "$0")/lib.sh"
require_root

STAT=$TOP/build/userspace/imtcp-stat
SOCKS=$SELFTESTS_DIR/imtcp_socks.py
WORK=$(mktemp -d)
trap 'exec 3>&- 2>/dev/null; topo_down; rm -rf "$WORK"' EXIT

stat_field() {	# NAME: a module statistic
	"$STAT" -s | awk -v k="$1" '$1 == k { print $2 }'
}

test_not_loaded() {
	local out rc
	imtcp_loaded && { unload_imtcp || fail "cannot unload imtcp"; }
	out=$("$STAT" 2>&1); rc=$?
	echo "$out (exit $rc)"
	load_imtcp || fail "cannot load imtcp"
	[ $rc = 3 ] || fail "exit $rc, expected 3"
	echo "$out" | grep -q "imtcp is not loaded: modprobe imtcp" || fail "message"
}

test_no_sockets() {
	local out rc
	out=$("$STAT" 2>&1); rc=$?
	echo "$out (exit $rc)"
	[ $rc = 4 ] || fail "exit $rc, expected 4"
	echo "$out" | grep -q "^Cookie" || fail "no header"
	[ "$("$STAT" -j)" = "[]" ] || fail "JSON of nothing is not []"
	"$STAT" -t | grep -q "^Time  *Cookie" || fail "no Time column with -t"
}

# Start the 1000 connections (in the main shell); fd 3 writes to the
# program that holds them.
open_many() {
	mkfifo "$WORK/ctl"
	python3 "$SOCKS" 1000 "$WORK/cookies" < "$WORK/ctl" > "$WORK/socks.out" &
	exec 3> "$WORK/ctl"
	for _ in $(seq 300); do
		grep -q ready "$WORK/socks.out" 2>/dev/null && return 0
		sleep 0.2
	done
	return 1
}

test_dump_1000() {
	local n
	grep -q ready "$WORK/socks.out" || fail "could not open 1000 connections"
	"$STAT" -j > "$WORK/dump.json" || fail "imtcp-stat -j failed"
	python3 - "$WORK/dump.json" "$WORK/cookies" <<'PY' || fail "dump does not match"
import json, sys
rows = json.load(open(sys.argv[1]))
want = sorted(int(x) for x in open(sys.argv[2]))
got = sorted(r["cookie"] for r in rows)
print(f"{len(rows)} rows, {len(set(got))} distinct cookies, {len(want)} sockets opened")
assert len(got) == len(set(got)), "a socket listed twice"
assert got == want, "cookies differ from SO_COOKIE"
for r in rows:
    assert r["local"]["addr"] == "127.0.0.1" and r["peer"]["addr"] == "127.0.0.1"
    assert r["family"] == "inet" and 0 < r["local"]["port"] < 65536
PY
	n=$("$STAT" | tail -n +2 | wc -l)
	[ "$n" = 2000 ] || fail "table has $n rows, expected 2000"
	[ "$(stat_field sockets)" -ge 2000 ] || fail "statistics: $(stat_field sockets) sockets"
	n=$(head -n 1 "$WORK/cookies")
	"$STAT" -j cookie "$n" | python3 -c '
import json, sys
rows = json.load(sys.stdin)
assert len(rows) == 1 and rows[0]["cookie"] == int(sys.argv[1]), rows
' "$n" || fail "filter by cookie"
}

test_other_netns() {
	local n
	n=$(in_snd "$STAT" -j | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))')
	echo "sender namespace sees $n sockets"
	[ "$n" = 0 ] || fail "another namespace's sockets are visible"
	mkfifo "$WORK/ctl2"
	in_snd python3 "$SOCKS" 3 "$WORK/ns-cookies" < "$WORK/ctl2" > "$WORK/ns.out" &
	exec 4> "$WORK/ctl2"
	for _ in $(seq 100); do
		grep -q ready "$WORK/ns.out" 2>/dev/null && break
		sleep 0.1
	done
	n=$(in_snd "$STAT" -j | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))')
	echo "with 3 connections of its own: $n"
	[ "$n" = 6 ] || { exec 4>&-; fail "namespace sees $n, expected 6"; }
	"$STAT" -j | python3 -c '
import json, sys
mine = {int(x) for x in open(sys.argv[1])}
assert not mine & {r["cookie"] for r in json.load(sys.stdin)}
' "$WORK/ns-cookies" || { exec 4>&-; fail "init namespace sees the other namespace's sockets"; }
	exec 4>&-
}

# The counters are per network namespace: a user namespace's root
# (here user nobody, through unshare -Urn) resets only its own, and each
# namespace counts only its own sockets (as many as its dump lists). Run
# after test_monitor_events, whose estimates the sender namespace counts.
test_stats_per_netns() {
	local before after own ns n dumped
	before=$(in_snd "$STAT" -s | awk '$1 == "estimates" { print $2 }')
	echo "sender namespace: $before estimates"
	[ "${before:-0}" -gt 0 ] || fail "no estimates to keep"
	own=$(setpriv --reuid=65534 --regid=65534 --clear-groups \
		unshare -Urn sh -c "'$STAT' --reset-stats && '$STAT' -s") ||
		fail "a namespace's admin could not reset its own counters"
	echo "a new namespace of user nobody, after its reset: $(echo $own)"
	echo "$own" | grep -qx "sockets 0" || fail "the new namespace counts other sockets"
	echo "$own" | grep -qx "estimates 0" || fail "the new namespace counts other estimates"
	after=$(in_snd "$STAT" -s | awk '$1 == "estimates" { print $2 }')
	echo "sender namespace after it: $after estimates"
	[ "$after" -ge "$before" ] || fail "another namespace reset this one's counters"
	for ns in "" "$NS_SND"; do
		if [ -n "$ns" ]; then
			n=$(ip netns exec "$ns" "$STAT" -s | awk '$1 == "sockets" { print $2 }')
			dumped=$(ip netns exec "$ns" "$STAT" -j | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))')
		else
			n=$(stat_field sockets)
			dumped=$("$STAT" -j | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))')
		fi
		echo "namespace ${ns:-init}: $n sockets counted, $dumped listed"
		[ "$n" = "$dumped" ] || fail "namespace ${ns:-init} counts $n sockets but lists $dumped"
	done
}

# Listening to every estimate takes CAP_NET_ADMIN over the namespace:
# user nobody is refused with a message (exit 1) in the init namespace,
# and may listen in a namespace of its own (unshare -Urn), where
# imtcp-stat -w waits for estimates until timeout ends it (124).
test_monitor_needs_admin() {
	local out rc
	out=$(setpriv --reuid=65534 --regid=65534 --clear-groups \
		timeout 5 "$STAT" -w 2>&1); rc=$?
	echo "nobody, init namespace: exit $rc: $out"
	[ $rc = 1 ] || fail "exit $rc, expected 1"
	echo "$out" | grep -q "needs CAP_NET_ADMIN" || fail "no clear message"
	setpriv --reuid=65534 --regid=65534 --clear-groups \
		unshare -Urn timeout 2 "$STAT" -w > /dev/null 2>&1; rc=$?
	echo "nobody, own namespace: exit $rc"
	[ $rc = 124 ] || fail "exit $rc, expected 124 (still watching)"
}

# One estimate event per imtcp_estimate traced, and one withdraw event
# per estimate shown and taken back (imtcp_withdraw, shown=1): under TCG
# a result at 50 Mbit/s now and then lands above the envelope (3 in one
# run of 95), which withdraws the estimate until the next is taken; if
# no other comes before the transfer ends, both read 0, which is right
# when the socket's last event traced is that withdrawal (one of twelve
# runs in a row ended at 0, 2026-11-30, before this was traced).
# Also: TCP_CC_INFO (printed by xfer while it keeps the closed
# connection's socket open) equals GET by cookie. The connection measures
# without pause (hold_budget=100) so that estimates come within 8 s.
test_monitor_events() {
	local n w mv line cookie est got budget=/sys/module/imtcp/parameters/hold_budget
	local old t0
	old=$(cat $budget)
	echo 100 > $budget
	t0=$EPOCHREALTIME
	ip netns exec "$NS_SND" "$STAT" -w -j -t > "$WORK/events" 2>&1 &
	local mon=$!
	trace_start imtcp/imtcp_estimate imtcp/imtcp_withdraw imtcp/imtcp_move ||
		fail "tracing"
	sleep 1
	in_rcv "$XFER" recv -p 5401 2>/dev/null &
	local rcv=$!
	in_snd "$XFER" send -c $RCV_ADDR -p 5401 -C imtcp -t 8 -H 4 > "$WORK/x" &
	local snd=$!
	sleep 1
	echo "$old" > $budget
	for _ in $(seq 200); do
		[ -s "$WORK/x" ] && break
		sleep 0.1
	done
	line=$(cat "$WORK/x")
	echo "$line"
	cookie=$(field cookie "$line")
	est=$(field cc_est_bps "$line")
	got=$(in_snd "$STAT" -j cookie "$cookie" | python3 -c '
import json, sys
r = json.load(sys.stdin)
print(r[0]["estimate_bps"] if len(r) == 1 else "none")')
	echo "TCP_CC_INFO $est bit/s, netlink $got bit/s"
	[ -n "$est" ] && [ "$est" = "$got" ] || fail "TCP_CC_INFO and netlink differ"
	wait $snd $rcv
	trace_stop "$WORK/est.trace"
	kill "$mon"
	# No estimate at the end is right only if the last result was
	# withdrawn (a result above the path's envelope is): then both
	# read 0, and the events below must still have seen estimates.
	if [ "$est" = 0 ]; then
		local last
		last=$(grep -oE "imtcp_(estimate|withdraw): cookie=$cookie .*" \
			"$WORK/est.trace" | tail -n 1)
		echo "no estimate at the end; the last event: ${last:-none}"
		case "$last" in
		"imtcp_withdraw: "*shown=1*) ;;
		*) fail "no estimate at the end, and none withdrawn" ;;
		esac
	fi
	n=$(grep -c imtcp_estimate "$WORK/est.trace")
	w=$(grep -c "imtcp_withdraw: .* shown=1" "$WORK/est.trace")
	mv=$(grep -c "imtcp_move: " "$WORK/est.trace")
	grep -o "imtcp_withdraw: .*" "$WORK/est.trace" | head -n 5
	python3 - "$WORK/events" "$n" "$t0" "$EPOCHREALTIME" "$w" "$mv" <<'PY' || fail "events"
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
n, t0, t1 = int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4])
est = [e for e in ev if e["event"] == "estimate"]
wd = [e for e in ev if e["event"] == "withdraw"]
mv = [e for e in ev if e["event"] == "move"]
print(f"{len(est)} estimate events, {n} estimates traced; "
      f"{len(wd)} withdraw events, {sys.argv[5]} withdrawals shown traced; "
      f"{len(mv)} move events, {sys.argv[6]} moves traced")
assert est, "no event"
assert len(est) == n, "events and estimates differ"
assert len(wd) == int(sys.argv[5]), "withdraw events and withdrawals differ"
assert len(mv) == int(sys.argv[6]), "move events and moves differ"
assert len(est) + len(wd) + len(mv) == len(ev), "events of another kind"
assert all(e["estimate_bps"] > 0 for e in est)
t = [e["time"] for e in ev]
print(f"stamped {t[0] - t0:.3f} .. {t[-1] - t0:.3f} s into {t1 - t0:.3f} s")
assert t == sorted(t) and t0 <= t[0] and t[-1] <= t1, "time stamps"
PY
}

# An estimate taken back reaches the monitor as a withdraw event. With
# noise_us=5000 the operating envelope is (n - 1) x 1448 x 8 / 5 ms for
# streams of n segments: 20.85 Mbit/s at N = 10, up to 34.75 at 16 (as
# in imtcp_measure's outside_envelope; a sender whose writes wait for
# room in its buffer can look like one writing frames, and its
# streams take the writes' length: two CI runs of 2026-12-04 withdrew
# with streams of 15, 32.4 Mbit/s). The connection starts behind a
# 5 Mbit/s bottleneck (a bucket of two frames, so that streams queue)
# and shows estimates; then the bottleneck goes to 50 Mbit/s, the flow
# is delivered above the envelope, and the estimate shown is withdrawn.
# Each withdraw event carries the estimate taken back (the traced
# imtcp_withdraw's, shown=1), estimate 0 and reason above-envelope, and
# each comes after an estimate event: nothing shows the estimate again
# without one (it once did, and the same estimate was withdrawn four
# times).
test_monitor_withdrawal() {
	local p=/sys/module/imtcp/parameters noise budget line cookie snd rcv mon tmon
	noise=$(cat $p/noise_us)
	budget=$(cat $p/hold_budget)
	SHAPE_BURST=$TWO_FRAMES shape 5mbit 20 || fail "shaping"
	ip netns exec "$NS_SND" "$STAT" -w -j > "$WORK/wevents" 2>&1 &
	mon=$!
	ip netns exec "$NS_SND" "$STAT" -w > "$WORK/wtable" 2>&1 &
	tmon=$!
	trace_start imtcp/imtcp_estimate imtcp/imtcp_withdraw || fail "tracing"
	echo 5000 > $p/noise_us
	echo 100 > $p/hold_budget
	sleep 1
	in_rcv "$XFER" recv -p 5402 2>/dev/null &
	rcv=$!
	in_snd "$XFER" send -c $RCV_ADDR -p 5402 -C imtcp -t 16 -H 4 > "$WORK/wx" &
	snd=$!
	sleep 1		# the socket has read the parameters: put them back
	echo "$noise" > $p/noise_us
	echo "$budget" > $p/hold_budget
	sleep 6
	shape 50mbit 20 || fail "reshaping"
	wait $snd $rcv
	trace_stop "$WORK/withdraw.trace"
	kill "$mon" "$tmon"
	# the table's row: no estimate, and the Note says what and why
	grep "withdrew" "$WORK/wtable" | head -n 2
	grep -Eq " - .*withdrew [0-9.]+Mbps: path above [0-9.]+Mbps" "$WORK/wtable" ||
		fail "no withdrawal row in imtcp-stat -w's table"
	line=$(cat "$WORK/wx")
	echo "$line"
	cookie=$(field cookie "$line")
	[ -n "$cookie" ] || fail "no transfer"
	python3 - "$WORK/wevents" "$WORK/withdraw.trace" "$cookie" "$WORK/wtable" \
		"$(envelopes_bps 5000)" <<'PY' || fail "withdraw events"
import json, re, sys
ck = int(sys.argv[3])
envelopes = set(map(int, sys.argv[5].split()))   # lib.sh: envelopes_bps
above = set(re.findall(r" - .*withdrew [0-9.]+Mbps: path above ([0-9.]+)Mbps",
                       open(sys.argv[4]).read()))
ev = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
ev = [e for e in ev if e["cookie"] == ck]
traced = [int(m.group(1)) for m in
          (re.search(r"imtcp_withdraw: cookie=%d bps=(\d+) shown=1" % ck, l)
           for l in open(sys.argv[2])) if m]
kinds = [e["event"] for e in ev]
wd = [e for e in ev if e["event"] == "withdraw"]
print(f"{kinds.count('estimate')} estimate and {len(wd)} withdraw events; "
      f"withdrawals traced: {traced}")
for e in wd:
    print(f'withdrew {e["withdrawn_bps"]} bit/s: estimate {e["estimate_bps"]}, '
          f'reason {e["reason"]}, envelope {e["envelope_bps"]}')
assert set(kinds) <= {"estimate", "withdraw", "move"}, kinds
assert "estimate" in kinds, "no estimate at 5 Mbit/s"
assert wd, "no withdraw event"
shown = False
for k in kinds:    # only an estimate shows one again, and with an event
    assert k == "estimate" or shown, f"a {k} of none shown"
    shown = k != "withdraw"
assert all(e["estimate_bps"] == 0 and e["reason"] == "above-envelope"
           for e in wd)
for e in wd:
    assert e["envelope_bps"] in envelopes, f'envelope {e["envelope_bps"]}'
    assert f'{e["envelope_bps"] / 1e6:.1f}' in above, \
        f'the table says {sorted(above)}, the event {e["envelope_bps"]}'
assert [e["withdrawn_bps"] for e in wd] == traced, "events and trace differ"
assert all(b > 0 for b in traced)
PY
}

# Between results the figure a socket shows follows the busy cap down
# (a fall of A shows in the delivery rate within 2-4 srtt, where a thin
# window's next result may be seconds away); listeners hear that as
# move events, so that what they last heard stays near what a dump
# reads. A bulk flow behind 20 Mbit/s, the bottleneck then at 4, with
# hold_budget=1 (results after the fall 1-4 s apart, as a thin
# window's are; with 2 the next result came 0.2-1.1 s after the move,
# and the dumps in between fell within the tolerance below): at
# each dump (four a second) the figure last heard (the latest event's,
# any kind) is within a quarter of the dump's, or an event within the
# next 0.5 s is (the events are an srtt apart at most, and stamped as
# they arrive). Before the move events, listeners kept the figure of
# the last result until the next one (old3: 19.0 Mbit/s heard while the
# socket showed 4.9, 1.1-1.4 s after the fall). Each move event is the
# traced imtcp_move's figure, in order; -w's table shows a move as a
# row whose Note says so.
#
# The move comes 0.8-1.0 s after the fall (twelve runs), once the busy
# cap has fallen; a result that comes before it leaves nothing to move
# (one CI run in about a dozen: no move row). Then, the rest checked,
# the fall is run once more; no move in two runs fails.
test_monitor_moves() {
	local try rc
	for try in 1 2; do
		monitor_fall $((5402 + try))
		rc=$?
		[ $rc = 3 ] || return $rc
		echo "no move: a result came before the busy cap fell; once more"
	done
	fail "no move toward 4 Mbit/s after the fall, in two runs"
}

# monitor_fall PORT: one run of the fall above; returns 3 when every
# check held but no move came.
monitor_fall() {
	local port=$1 snd rcv mon dmp tmon line cookie tfall budget rc
	local p=/sys/module/imtcp/parameters w=$WORK/m$1
	budget=$(cat $p/hold_budget)
	SHAPE_BURST=$TWO_FRAMES shape 20mbit 20 || fail "shaping"
	ip netns exec "$NS_SND" "$STAT" -w -j -t dport "$port" > "$w.events" 2>&1 &
	mon=$!
	ip netns exec "$NS_SND" "$STAT" -i 0.25 -j -t dport "$port" > "$w.dumps" 2>&1 &
	dmp=$!
	ip netns exec "$NS_SND" "$STAT" -w dport "$port" > "$w.table" 2>&1 &
	tmon=$!
	trace_start imtcp/imtcp_estimate imtcp/imtcp_withdraw imtcp/imtcp_move ||
		fail "tracing"
	sleep 1
	in_rcv "$XFER" recv -p "$port" 2>/dev/null &
	rcv=$!
	echo 1 > $p/hold_budget
	in_snd "$XFER" send -c $RCV_ADDR -p "$port" -C imtcp -t 14 > "$w.x" &
	snd=$!
	sleep 1		# the socket has read the parameter: put it back
	echo "$budget" > $p/hold_budget
	sleep 5
	tfall=$EPOCHREALTIME
	SHAPE_BURST=$TWO_FRAMES shape 4mbit 20 || fail "reshaping"
	wait $snd $rcv
	sleep 0.5
	trace_stop "$w.trace"
	kill "$mon" "$dmp" "$tmon"
	shape 50mbit 20 || fail "reshaping back"
	line=$(cat "$w.x")
	echo "$line"
	cookie=$(field cookie "$line")
	[ -n "$cookie" ] || fail "no transfer"
	python3 - "$w.events" "$w.dumps" "$w.trace" "$cookie" "$tfall" <<'PY'
import json, re, sys
ck, tfall = int(sys.argv[4]), float(sys.argv[5])
ev = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
ev = [e for e in ev if e["cookie"] == ck]
text, dumps, dec, i = open(sys.argv[2]).read(), [], json.JSONDecoder(), 0
while True:
    while i < len(text) and text[i].isspace():
        i += 1
    if i == len(text):
        break
    doc, i = dec.raw_decode(text, i)
    dumps += [(r["time"], r["estimate_bps"]) for r in doc if r["cookie"] == ck]
traced = [int(m.group(1)) for m in
          (re.search(r"imtcp_move: cookie=%d bps=(\d+)" % ck, l)
           for l in open(sys.argv[3])) if m]
moves = [e for e in ev if e["event"] == "move"]
kinds = [e["event"] for e in ev]
print(f"{kinds.count('estimate')} estimate, {len(moves)} move, "
      f"{kinds.count('withdraw')} withdraw events; {len(traced)} moves "
      f"traced; {len(dumps)} dumps")
print("moves (s after the fall, Mbit/s): " + ", ".join(
      f'{e["time"] - tfall:.2f} {e["estimate_bps"] / 1e6:.1f}' for e in moves))
print("estimates after the fall (s, Mbit/s): " + ", ".join(
      f'{e["time"] - tfall:.2f} {e["estimate_bps"] / 1e6:.1f}'
      for e in ev if e["event"] == "estimate" and e["time"] > tfall))
def near(a, b):
    return abs(a - b) <= max(a, b) / 4
off = []
for t, bps in dumps:
    before = [e for e in ev if e["time"] <= t]
    soon = [e for e in ev if t < e["time"] <= t + 0.5]
    if not before:
        continue
    if not (near(before[-1]["estimate_bps"], bps) or
            any(near(e["estimate_bps"], bps) for e in soon)):
        off.append((round(t - tfall, 2), bps, before[-1]["estimate_bps"]))
print(f"dumps off what listeners heard: {len(off)} {off[:5]}")
assert ev and dumps, "no events or no dumps"
assert [e["estimate_bps"] for e in moves] == traced, "move events and trace differ"
assert all(e["estimate_bps"] > 0 for e in moves)
assert not off, "listeners kept a figure the socket no longer shows"
if not any(e["time"] > tfall and e["estimate_bps"] < 8e6 for e in moves):
    sys.exit(3)
PY
	rc=$?
	[ $rc = 0 ] || [ $rc = 3 ] || fail "move events"
	[ $rc = 3 ] && return 3
	# the table's row: the figure shown, and the Note says it moved
	grep "moved: " "$w.table" | head -n 2
	grep -Eq " [0-9.]+[KM]bps .*moved: capped by busy rate, probe [0-9.]+Mbps" \
		"$w.table" || fail "no move row in imtcp-stat -w's table"
}

test_close_during_dumps_and_unload() {
	local i before
	before=$(stat_field sockets)
	echo "sockets before closing: $before"
	echo close >&3
	for i in $(seq 20); do
		"$STAT" -j > /dev/null
		case $? in
		0|4) ;;		# 4: all closed already
		*) fail "dump $i failed while sockets close" ;;
		esac
	done
	for i in $(seq 100); do
		grep -q closed "$WORK/socks.out" && break
		sleep 0.1
	done
	for i in $(seq 50); do
		[ "$(stat_field sockets)" = 0 ] && break
		sleep 0.1
	done
	[ "$(stat_field sockets)" = 0 ] || fail "registry holds $(stat_field sockets) after closing"
	"$STAT" -w > /dev/null 2>&1 &
	local mon=$!
	sleep 0.5
	unload_imtcp || { kill $mon; fail "rmmod with a monitor attached"; }
	kill $mon 2>/dev/null
	wait $mon 2>/dev/null
	load_imtcp
}

[ -x "$STAT" ] || { echo "1..0 # SKIP no $STAT (make tools)"; exit $KSFT_SKIP; }
load_imtcp || { echo "1..0 # SKIP cannot load imtcp"; exit $KSFT_SKIP; }
topo_up 50mbit 20 || { echo "1..0 # SKIP no test bed"; exit $KSFT_SKIP; }

tap_begin 10
run_test not_loaded_message test_not_loaded
run_test no_sockets_exit_4 test_no_sockets
open_many	# here, so that the connections outlive the test functions
run_test dump_1000_connections test_dump_1000
run_test other_netns_invisible test_other_netns
run_test monitor_event_per_estimate test_monitor_events
run_test monitor_event_per_withdrawal test_monitor_withdrawal
run_test monitor_event_per_move test_monitor_moves
run_test stats_per_netns test_stats_per_netns
run_test monitor_needs_admin test_monitor_needs_admin
run_test close_during_dumps_then_unload test_close_during_dumps_and_unload
tap_end
