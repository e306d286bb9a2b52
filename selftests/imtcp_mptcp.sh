#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# One MPTCP transfer over two paths of different capacity, with imtcp
# as its congestion control (set on the MPTCP socket; the second subflow
# inherits it). Path 1 is lib.sh's test bed at C1; path 2 is a second
# pair of links through the same router, shaped the same way at C2 (tbf
# buckets of four frames, as the benchmarks'):
#
#   sender s0 -- r0 router r1 -- d0 receiver   198.18.1/2.0/24, C1
#          s1 -- r3        r4 -- d1            198.18.4/5.0/24, C2
#
# The receiver announces 198.18.5.2 (ip mptcp endpoint ... signal); the
# sender's path manager opens the second subflow to it, from 198.18.4.1.
#   subflows_grouped  imtcp-stat lists both subflows, each with its own
#                     local address, under one MPTCP token, in its
#                     table and in its JSON
#   per_path          the median of each subflow's estimates (read every
#                     0.5 s from 5 s on) is within half and one and a
#                     half times its own path's capacity (on an idle
#                     path A is C), and path 1's is the higher;
#                     a miss is skipped (TAP SKIP) when more than 15 %
#                     of the wakeups of a timer beside the transfer
#                     (timerlat) came over 1 ms late, or the host's
#                     hypervisor stole more than 5 % of its CPUs
#                     (emulation_slow in lib.sh): the emulation did not
#                     carry the paths (CI of 2026-12-02, 51 % late in
#                     the accuracy test before it: 5 samples a path,
#                     path 1's median 7.4 for C 20)
#   token_needs_admin for user nobody (no CAP_NET_ADMIN, so sock_diag
#                     gives no MPTCP data) both subflows are still
#                     marked MPTCP, with "token": null
# The same transfer with reno follows, for the split of bytes between
# the paths side by side (reported, not checked). Then a media sender
# (imtcp-media --mptcp, 5 Mbit/s) with imtcp-mptcp-backup -r 10 beside
# it; after 6 s path 2 falls to 1 Mbit/s, below the media rate:
#   media_two_paths   imtcp-media's MPTCP connection carried data on
#                     both paths before the fall
#   backup_marked     the controller marked path 2's endpoint backup
#                     (and never path 1's, which has no endpoint); at
#                     the end of the window the path manager shows
#                     what the controller last decided (the flag, or
#                     none if path 1 read thin in its turn and the
#                     controller cleared it; either decision if it
#                     made one while the endpoints were read, as the
#                     controller's log shows); in the 5 s after the mark
#                     path 2 carried under a quarter of the bytes (not
#                     judged if the mark was cleared within them). The
#                     window ends when the test sees the mark, or 8 s
#                     before the end of the run. Skipped if no mark was
#                     due in it: path 2's estimate never read below the
#                     controller's rate in two results while path 1's
#                     read above it
#   backup_cleared    on SIGTERM the controller cleared the flag (and
#                     said so)
source "$(dirname "$0")/lib.sh"
require_root
# Both paths' tbf bucket: the benchmarks' (four frames at MTU 1500, as
# make bench-mptcp-backup's). lib.sh's default, 15000 bytes, let a
# stream of 10 segments pass at any rate on the tokens an idle path
# saved between frames: traced, the media connection's streams on path 1
# (C = 20) stayed flat at 40-75 Mbit/s, with ACKs spaced as sent, and
# its estimate read 18-58 Mbit/s every 0.5 s.
export SHAPE_BURST=$BENCH_BUCKET_BYTES

C1=20
C2=8
DELAY=20
SECS=${MPTCP_SECS:-15}
STAT=$TOP/build/userspace/imtcp-stat
MEDIA=$TOP/build/userspace/imtcp-media
CTL=$TOP/build/userspace/imtcp-mptcp-backup
# The controller's rate, Mbit/s: between the paths after the fall (20 and
# 1), well clear of both. Path 2's C2 is below it too, so the mark may
# come before the fall. Not the media rate (5): what is checked is what
# the controller does, and a thin application-limited subflow's estimate
# can read several times its path's C (5.2-8.8 for C = 3 in
# make bench-mptcp-backup), which left path 2 unmarked in 2 of 5 runs
# at -r 5.
CTL_RATE=10
MEDIA_SECS=${MPTCP_MEDIA_SECS:-30}
WORK=$(mktemp -d)
trap 'topo_down; rm -rf "$WORK"' EXIT

# transfer_mptcp CC: SECS of bulk data from the sender to the receiver
# over MPTCP; for imtcp, imtcp-stat's table and JSON (as root and as
# nobody) at 5 s and its JSON every 0.5 s after; two seconds before the
# end (the subflows close with the connection) ss's byte counts; all in
# WORK/CC.*
transfer_mptcp() {
	local cc=$1 rcv snd t0
	in_rcv "$XFER" recv -m -p 5701 2> "$WORK/$cc.recv" &
	rcv=$!
	rcv_listening 5701 || { kill "$rcv"; return 1; }
	in_snd "$XFER" send -m -c $RCV_ADDR -p 5701 -C "$cc" -t "$SECS" \
		> "$WORK/$cc.send" 2>&1 &
	snd=$!
	t0=$SECONDS
	if [ "$cc" = imtcp ]; then
		watch_start "$cc"
		sleep 5
		in_snd "$STAT" > "$WORK/$cc.table"
		in_snd "$STAT" -j > "$WORK/$cc.json"
		in_snd setpriv --reuid=65534 --regid=65534 --clear-groups \
			"$STAT" -j > "$WORK/$cc.nobody.json"
		# estimates every 0.5 s until two seconds before the end
		while [ $((SECONDS - t0)) -lt $((SECS - 2)) ]; do
			in_snd "$STAT" -j | tr -d '\n'
			echo
			sleep 0.5
		done > "$WORK/$cc.samples"
	fi
	while [ $((SECONDS - t0)) -lt $((SECS - 2)) ]; do sleep 0.5; done
	in_snd ss -Htin > "$WORK/$cc.ss"
	if [ "$cc" = imtcp ]; then
		watch_end "$cc"
		cat "$WORK/$cc.host"
	fi
	wait_exit "$snd" 20
	wait_exit "$rcv" 10
	cat "$WORK/$cc.send"
}

# split CC: bytes acknowledged on each path, from ss, in MB
split() {
	python3 - "$WORK/$1.ss" <<'EOF'
import re, sys
text = open(sys.argv[1]).read()
acked = {}
for m in re.finditer(r"(198\.18\.\d+\.\d+):\d+\s+\S+:\d+.*?bytes_acked:(\d+)",
                     text, re.S):
    acked[m.group(1)] = acked.get(m.group(1), 0) + int(m.group(2))
print(", ".join("from %s %.1f MB" % (a, b / 1e6)
                for a, b in sorted(acked.items())))
EOF
}

# acked ADDR FILE: bytes acknowledged on subflows from ADDR in `ss -Htin`
acked() {
	grep -A1 "$1:" "$2" | grep -o 'bytes_acked:[0-9]*' | cut -d: -f2 |
		awk '{ s += $1 } END { print s + 0 }'
}

# media_backup: the media run, records in WORK/media.*
media_backup() {
	local rcv snd ctl t0
	in_rcv "$MEDIA" recv -M -j -B 0.0.0.0 5702 > "$WORK/media.recv" 2>&1 &
	rcv=$!
	rcv_listening 5702 || { kill "$rcv"; return 1; }
	# not through in_snd: $! must be the controller itself, for the
	# SIGTERM below (ip netns exec execs it)
	# -i 100: it looks five times as often as the test samples, so it
	# sees apart any two results the test sees in samples not adjacent
	date +%s.%N > "$WORK/media.t0_s"	# the controller's t_s count from about here
	ip netns exec "$NS_SND" "$CTL" -r "$CTL_RATE" -i 100 -j \
		-t $((MEDIA_SECS + 20)) \
		> "$WORK/media.ctl" 2> "$WORK/media.ctl.err" &
	ctl=$!
	in_snd "$MEDIA" send -M -j -p fixed -s 5 -t "$MEDIA_SECS" \
		$RCV_ADDR 5702 > "$WORK/media.send" 2>&1 &
	snd=$!
	t0=$SECONDS
	sleep 5
	in_snd ss -Htin > "$WORK/media.ss.before"
	sleep 1
	path2_shape 1 $DELAY 0
	# once path 2 is marked, what each path carries over the next 5 s
	: > "$WORK/media.paths"		# none if the mark came at once
	while [ $((SECONDS - t0)) -lt $((MEDIA_SECS - 8)) ] &&
		! grep -q '"addr":"198.18.4.1".*"action":"backup".*"applied":true' \
			"$WORK/media.ctl"; do
		# both paths' estimates, as the controller sees them
		in_snd "$STAT" -j 2>/dev/null | tr -d '\n' >> "$WORK/media.paths"
		echo >> "$WORK/media.paths"
		sleep 0.5
	done
	# the window the test judges ends here: the decisions so far, then
	# what the path manager shows (a mark after this, as at the end of
	# the run, is reported but not judged)
	cp "$WORK/media.ctl" "$WORK/media.ctl.window"
	in_snd ip mptcp endpoint show > "$WORK/media.endpoints.marked"
	in_snd ss -Htin > "$WORK/media.ss.marked"
	# a decision the controller applied while the dump ran shows in it,
	# and is logged (after it was applied) by now
	cp "$WORK/media.ctl" "$WORK/media.ctl.dumped"
	sleep 5
	in_snd ss -Htin > "$WORK/media.ss.after"
	date +%s.%N > "$WORK/media.t_after_s"
	while [ $((SECONDS - t0)) -lt $((MEDIA_SECS - 2)) ]; do sleep 0.5; done
	in_snd ip mptcp endpoint show > "$WORK/media.endpoints"
	wait_exit "$snd" 20
	wait_exit "$rcv" 10
	kill -TERM "$ctl"
	wait_exit "$ctl" 10
	in_snd ip mptcp endpoint show > "$WORK/media.endpoints.after"
	echo "media: $(tail -n 1 "$WORK/media.recv")"
	sed 's/^/media: controller: /' "$WORK/media.ctl" "$WORK/media.ctl.err"
}

test_media_two_paths() {
	local p1 p2
	p1=$(acked 198.18.1.1 "$WORK/media.ss.before")
	p2=$(acked 198.18.4.1 "$WORK/media.ss.before")
	echo "bytes acked at 5 s: path 1 $p1, path 2 $p2"
	[ "$p1" -gt 0 ] && [ "$p2" -gt 0 ] || fail "not both paths"
}

# What the controller did to path 2, from its decisions: its last
# action within the window, its last action by the end of the endpoint
# dump after it, the window's last mark (s into the run), then the time
# and reason of the first clear after that mark up to the end of the 5 s
# after the window (the one on exit aside); "-" for none
window_decisions() {
	python3 - "$WORK/media.ctl.window" "$WORK/media.ctl" \
		"$(cat "$WORK/media.t0_s")" "$(cat "$WORK/media.t_after_s")" \
		"$WORK/media.ctl.dumped" <<'PYEOF'
import json, sys
def p2(path):
    return [x for x in map(json.loads, open(path))
            if x["addr"] == "198.18.4.1" and x["applied"]]
window = p2(sys.argv[1])
dumped = p2(sys.argv[5])
marks = [x["t_s"] for x in window if x["action"] == "backup"]
end_s = float(sys.argv[4]) - float(sys.argv[3])
c = [x for x in p2(sys.argv[2]) if marks and x["action"] == "active" and
     x["why"] != "exit" and marks[-1] < x["t_s"] <= end_s]
print(window[-1]["action"] if window else "-",
      dumped[-1]["action"] if dumped else "-", marks[-1] if marks else "-",
      c[0]["t_s"] if c else "-", c[0]["why"] if c else "-")
PYEOF
}

test_backup_marked() {
	local out last mark_s clear_s why p1 p2 dumped
	# The controller's rule, replayed on the test's own samples: a mark
	# is due once path 2's published estimate (after its provisional
	# first result) read below the rate in two new results in a row
	# while path 1's fresh estimate was at or above it, in two samples
	# in a row. A result first seen in the sample right after the last
	# one's may have come within one look of the controller's, which
	# then counts the two as one: below the rate, it is not counted.
	# How soon path 2's estimate follows the fall, and whether path 1's
	# application-limited one reads its headroom, is the estimate's
	# matter (issue 32), not the controller's: if no mark was due, the
	# test skips.
	python3 - "$WORK/media.ctl.window" "$WORK/media.paths" "$CTL_RATE" \
		"$WORK/media.ctl" <<'PYEOF'
import json, sys
def marks_in(path):
    return [d for d in map(json.loads, open(path))
            if d["action"] == "backup" and d["applied"]]
marks = marks_in(sys.argv[1])
print("marked: %s" % [(d["addr"], d["t_s"], d["estimate_bps"]) for d in marks])
late = marks_in(sys.argv[4])[len(marks):]
if late:
    print("marked after the window (not judged): %s" %
          [(d["addr"], d["t_s"], d["estimate_bps"]) for d in late])
rate = float(sys.argv[3])
thin, last, last_k, due_run, due, hist = 0, 0, -9, 0, False, {1: [], 2: []}
for k, line in enumerate(open(sys.argv[2])):
    rows = json.loads(line) if line.strip() else []
    p1 = [r for r in rows if r["local"]["addr"] == "198.18.1.1"
          and r["measurements"] >= 2 and r["estimate_bps"]]
    p2 = [r for r in rows if r["local"]["addr"] == "198.18.4.1"
          and r["measurements"] >= 2 and r["estimate_bps"]]
    if p2 and p2[0]["measurements"] > last:
        last = p2[0]["measurements"]
        est = p2[0]["estimate_bps"] / 1e6
        hist[2].append("%d: %.1f" % (last, est))
        if est >= rate:
            thin = 0
        elif k > last_k + 1:
            thin += 1
        last_k = k
    fits = [r for r in p1 if r["estimate_bps"] / 1e6 >= rate
            and r["age_ms"] <= 10000]
    if p1:
        hist[1].append("%.1f" % (p1[0]["estimate_bps"] / 1e6))
    due_run = due_run + 1 if thin >= 2 and fits else 0
    due = due or due_run >= 2
print("path 2's new results (result: Mbit/s): %s" % ", ".join(hist[2]))
print("path 1's estimate every 0.5 s: %s" % " ".join(hist[1]))
if any(d["addr"] != "198.18.4.1" for d in marks):
    sys.exit(1)
if not marks:
    sys.exit(1 if due else 4)
PYEOF
	case $? in
	0) ;;
	4) skip "no mark was due: path 2 never read below $CTL_RATE Mbit/s twice while path 1 read above" ;;
	*) fail "not path 2 alone marked" ;;
	esac
	out=$(window_decisions) || fail "cannot read the controller's decisions"
	read -r last dumped mark_s clear_s why <<< "$out"
	# the path manager shows what the controller last decided in the
	# window: the mark, or its clear if path 1 read thin in its turn
	cat "$WORK/media.endpoints.marked"
	# what the controller decided while the dump ran (between the window's
	# copy of its decisions and the next one): the dump may show either
	[ "$dumped" = "$last" ] ||
		echo "the controller's last decision changed from $last to $dumped while the endpoints were dumped"
	if grep -q '^198.18.4.1 .*backup' "$WORK/media.endpoints.marked"; then
		[ "$last" = backup ] || [ "$dumped" = backup ] ||
			fail "the path manager still shows the flag after the clear"
	else
		[ "$last" != backup ] || [ "$dumped" != backup ] ||
			fail "the path manager does not show the flag"
	fi
	# a clear (path 1 read thin in its turn) before the 5 s after the
	# window were over: what the paths carried then is not the mark's
	if [ "$clear_s" != - ]; then
		echo "marked at $mark_s s, cleared at $clear_s s ($why): the bytes after the mark are not judged"
		return 0
	fi
	p1=$(($(acked 198.18.1.1 "$WORK/media.ss.after") -
	      $(acked 198.18.1.1 "$WORK/media.ss.marked")))
	p2=$(($(acked 198.18.4.1 "$WORK/media.ss.after") -
	      $(acked 198.18.4.1 "$WORK/media.ss.marked")))
	echo "marked at $mark_s s of $MEDIA_SECS; bytes acked in the 5 s after: path 1 $p1, path 2 $p2"
	[ $((4 * p2)) -lt $((p1 + p2)) ] ||
		fail "path 2 still carried a quarter or more"
}

test_backup_cleared() {
	# marked when the signal came: the controller cleared it on exit
	python3 - "$WORK/media.ctl" <<'EOF' || fail "no clear on exit"
import json, sys
d = [d for d in map(json.loads, open(sys.argv[1])) if d["addr"] == "198.18.4.1"]
print("path 2's decisions: %s" % [(x["t_s"], x["action"], x["why"]) for x in d])
before = [x for x in d if x["why"] != "exit"]
if before and before[-1]["action"] == "backup" and d[-1]["why"] != "exit":
    sys.exit(1)
EOF
	sed 's/^/before SIGTERM: /' "$WORK/media.endpoints"
	sed 's/^/after: /' "$WORK/media.endpoints.after"
	grep -q '^198.18.4.1 ' "$WORK/media.endpoints.after" ||
		fail "the endpoint is gone"
	! grep -q '^198.18.4.1 .*backup' "$WORK/media.endpoints.after" ||
		fail "the flag is still set"
}

test_subflows_grouped() {
	cat "$WORK/imtcp.table"
	python3 - "$WORK/imtcp.json" "$WORK/imtcp.table" <<'EOF' || fail "not grouped"
import json, sys
rows = [r for r in json.load(open(sys.argv[1])) if r["mptcp"]]
for r in rows:
    print("%s:%d  token %s id %s  estimate %.1f Mbit/s  delivery %.1f" % (
        r["local"]["addr"], r["local"]["port"], r["mptcp"]["token"],
        r["mptcp"].get("local_id"), r["estimate_bps"] / 1e6,
        r["delivery_bps"] / 1e6))
if len(rows) != 2:
    sys.exit("expected two subflows, got %d" % len(rows))
tokens = {r["mptcp"]["token"] for r in rows}
if len(tokens) != 1 or None in tokens:
    sys.exit("subflows not tied to one connection: %s" % tokens)
if {r["local"]["addr"] for r in rows} != {"198.18.1.1", "198.18.4.1"}:
    sys.exit("not one subflow per path")
token = tokens.pop()
lines = [l for l in open(sys.argv[2]) if token in l]
if len(lines) != 2:
    sys.exit("the table does not show the token on both subflows")
EOF
}

# the median of each subflow's estimates over the samples: one sample
# can catch a subflow that the scheduler left idle, whose estimate the
# busy-link cap then holds near its own low delivery rate (seen once:
# 0.16 Mbit/s on the 20 Mbit/s path)
test_per_path() {
	local late=0

	# the timers' lateness and the host's steal, printed in every run
	# (a pass on a late host tells as much about the bound as a skip)
	emulation_slow imtcp && late=1
	python3 - "$WORK/imtcp.samples" $C1 $C2 <<'EOF' && return 0
import json, statistics, sys
c = {"198.18.1.1": float(sys.argv[2]), "198.18.4.1": float(sys.argv[3])}
seen = {a: [] for a in c}
for line in open(sys.argv[1]):
    for r in json.loads(line) if line.strip() else []:
        if r["mptcp"] and r["local"]["addr"] in c and r["estimate_bps"]:
            seen[r["local"]["addr"]].append(r["estimate_bps"] / 1e6)
est = {a: statistics.median(v) for a, v in seen.items() if v}
print("samples: %s" % {a: len(v) for a, v in seen.items()})
bad = False
for addr, cap in sorted(c.items()):
    e = est.get(addr, 0)
    ok = 0.5 * cap <= e <= 1.5 * cap
    print("path from %s: C %.0f Mbit/s, median estimate %.1f%s" %
          (addr, cap, e, "" if ok else "  (outside 0.5-1.5 C)"))
    bad |= not ok
if len(est) == 2 and est["198.18.1.1"] <= est["198.18.4.1"]:
    print("the faster path's estimate is not the higher")
    bad = True
sys.exit(1 if bad else 0)
EOF
	[ "$late" = 1 ] &&
		skip "estimates not per path, on an unfaithful emulated path: not judged"
	fail "estimates not per path"
}

test_token_needs_admin() {
	python3 - "$WORK/imtcp.nobody.json" <<'EOF' || fail "not as documented"
import json, sys
rows = [r for r in json.load(open(sys.argv[1])) if r["mptcp"] is not None]
print("as nobody: %d subflows, mptcp %s" % (len(rows), [r["mptcp"] for r in rows]))
if len(rows) != 2 or any(r["mptcp"] != {"token": None} for r in rows):
    sys.exit(1)
EOF
}

tap_begin 6
for t in "$STAT" "$MEDIA" "$CTL" "$TIMERLAT"; do
	[ -x "$t" ] || { echo "no $t: run make tools"; exit $KSFT_FAIL; }
done
load_imtcp || { echo "cannot load imtcp"; exit $KSFT_FAIL; }
if ! topo_up ${C1}mbit $DELAY || ! calibrate_rtt ${C1}mbit $DELAY ||
	! path2_up $C2 $DELAY || ! mptcp_up; then
	echo "cannot build the test bed (MPTCP in this kernel?)"
	exit $KSFT_FAIL
fi
echo "# paths: C1 $C1, C2 $C2 Mbit/s, MTU $TOPO_MTU, netem $(netem_us $DELAY) us each way; $SECS s transfers"
transfer_mptcp imtcp | sed 's/^/# imtcp: /'
transfer_mptcp reno | sed 's/^/# reno: /'
echo "# split of bytes: imtcp $(split imtcp); reno $(split reno)"
media_backup | sed 's/^/# /'
run_test subflows_grouped test_subflows_grouped
run_test per_path test_per_path
run_test token_needs_admin test_token_needs_admin
run_test media_two_paths test_media_two_paths
run_test backup_marked test_backup_marked
run_test backup_cleared test_backup_cleared
tap_end
