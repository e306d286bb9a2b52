#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# MPTCP benchmark (not a test), run inside the VM by `make bench-mptcp`:
# one bulk MPTCP transfer over two paths of different capacity (C1 = 20
# and C2 = 8 Mbit/s, 40 ms, each shaped as the test bed's with a tbf
# bucket of four frames; see selftests/imtcp_mptcp.sh) with, in turn,
# imtcp, reno, and imtcp with its measurement off (the module parameter
# measure=N: Reno inside imtcp, the control), BENCH_REPS (3) times each,
# BENCH_MPTCP_SECS (15) seconds each. Reported per variant: the
# transfer's goodput, its ratio to reno's, the bytes each path carried
# (ss, two seconds before the end) and, for imtcp, each subflow's
# estimate, results so far and time held (STORE) then, and the median
# and p90 of |estimate - C| in % of its path's C (the paths are idle:
# A = C) over the estimates imtcp-stat showed every half second from 3 s
# on. The 6.1 packet scheduler picks a subflow by its queued bytes over
# its pacing rate; what imtcp's holds do to that shows in the split.
# BENCH_HOLD_BUDGET (1-100) sets the module parameter hold_budget for
# the run (default: the module's, 2); BENCH_MPTCP_RMEM ("MIN DEFAULT
# MAX" bytes) the receiver's net.ipv4.tcp_rmem, whose default and
# maximum bound the connection-level receive window; BENCH_MPTCP_WMEM
# the sender's net.ipv4.tcp_wmem (6.1 sizes an MPTCP connection's send
# buffer from its subflows' sk_sndbuf, which tcp_wmem's default starts).
# Output in $IMTCP_OUT (or build/bench): mptcp.csv (one row per
# transfer), mptcp.md (the table).
export TOPO_MTU=1500
source "$(dirname "$0")/../../selftests/lib.sh"

C1=20
C2=8
DELAY=20
# the benchmarks' tbf bucket (four frames at MTU 1500), as
# selftests/imtcp_mptcp.sh's since 2026-11-27; before, lib.sh's 15000
# bytes, which a 10-segment stream passes on an idle path's saved tokens
export SHAPE_BURST=$BENCH_BUCKET_BYTES
REPS=${BENCH_REPS:-3}
SECS=${BENCH_MPTCP_SECS:-15}
in_range "$REPS" 1 50 || { echo "BENCH_REPS: 1-50" >&2; exit 2; }
in_range "$SECS" 6 600 ||
	{ echo "BENCH_MPTCP_SECS: seconds per transfer, 6-600" >&2; exit 2; }
OUT=${IMTCP_OUT:-$TOP/build/bench}
STAT=$TOP/build/userspace/imtcp-stat
mkdir -p "$OUT"
WORK=$(mktemp -d)
trap 'topo_down; rm -rf "$WORK"' EXIT

load_imtcp || exit 1
if [ -n "${BENCH_HOLD_BUDGET:-}" ]; then
	echo "$BENCH_HOLD_BUDGET" > /sys/module/imtcp/parameters/hold_budget ||
		{ echo "BENCH_HOLD_BUDGET must be 1-100" >&2; exit 2; }
fi
BUDGET=$(cat /sys/module/imtcp/parameters/hold_budget)
if ! topo_up ${C1}mbit $DELAY || ! calibrate_rtt ${C1}mbit $DELAY ||
	! path2_up $C2 $DELAY || ! mptcp_up; then
	echo "cannot build the test bed" >&2
	exit 1
fi
if [ -n "${BENCH_MPTCP_RMEM:-}" ]; then
	ip netns exec "$NS_RCV" sysctl -qw net.ipv4.tcp_rmem="$BENCH_MPTCP_RMEM" ||
		{ echo "BENCH_MPTCP_RMEM: three numbers of bytes" >&2; exit 2; }
fi
RMEM=$(ip netns exec "$NS_RCV" sysctl -n net.ipv4.tcp_rmem | tr '\t' ' ')
if [ -n "${BENCH_MPTCP_WMEM:-}" ]; then
	ip netns exec "$NS_SND" sysctl -qw net.ipv4.tcp_wmem="$BENCH_MPTCP_WMEM" ||
		{ echo "BENCH_MPTCP_WMEM: three numbers of bytes" >&2; exit 2; }
	echo "sender's tcp_wmem: $(ip netns exec "$NS_SND" sysctl -n net.ipv4.tcp_wmem | tr '\t' ' ')"
fi

# run VARIANT: one transfer; appends its row to the CSV
run() {
	local v=$1 cc=imtcp measure=Y rcv snd
	case $v in
	reno) cc=reno ;;
	imtcp-off) measure=N ;;
	esac
	echo $measure > /sys/module/imtcp/parameters/measure
	in_rcv "$XFER" recv -m -p 5701 2> /dev/null &
	rcv=$!
	rcv_listening 5701 || { kill "$rcv"; return 1; }
	in_snd "$XFER" send -m -c $RCV_ADDR -p 5701 -C $cc -t "$SECS" \
		> "$WORK/send" 2>&1 &
	snd=$!
	# every half second from 3 s on: the subflows' estimates
	: > "$WORK/samples"
	sleep 3
	while kill -0 "$snd" 2>/dev/null; do
		in_snd "$STAT" -j 2>/dev/null | tr -d '\n' >> "$WORK/samples"
		echo >> "$WORK/samples"
		sleep 0.5
	done &
	sampler=$!
	sleep $((SECS - 5))
	in_snd "$STAT" -j > "$WORK/stat.json" 2>/dev/null || echo "[]" > "$WORK/stat.json"
	in_snd ss -Htin > "$WORK/ss"
	wait_exit "$snd" 20
	wait_exit "$rcv" 10
	wait "$sampler"
	python3 - "$v" "$WORK/send" "$WORK/ss" "$WORK/stat.json" "$WORK/samples" \
		"$SECS" >> "$OUT/mptcp.csv" <<'EOF'
import json, re, statistics, sys
v, send, ss, stat, samples, secs = sys.argv[1:]
cap = {"198.18.1.1": 20.0, "198.18.4.1": 8.0}
kv = dict(f.split("=", 1) for f in open(send).read().split() if "=" in f)
acked = {}
for m in re.finditer(r"(198\.18\.\d+\.\d+):\d+\s+\S+:\d+.*?bytes_acked:(\d+)",
                     open(ss).read(), re.S):
    acked[m.group(1)] = acked.get(m.group(1), 0) + int(m.group(2))
sf = {r["local"]["addr"]: r for r in json.load(open(stat)) if r.get("mptcp")}
fig = lambda a, k, scale: sf[a][k] / scale if a in sf else 0
# |estimate - C| in % of the path's C (idle paths: A = C), from samples
# taken while the transfer ran, each estimate once (by its count)
err = {a: {} for a in cap}
for line in open(samples):
    line = line.strip()
    if not line:
        continue
    for r in json.loads(line):
        a = r["local"]["addr"]
        if r.get("mptcp") and a in cap and r["estimate_bps"]:
            err[a][r["measurements"]] = abs(r["estimate_bps"] / 1e6 - cap[a]) / cap[a] * 100
def q(a, p):
    e = sorted(err[a].values())
    return e[min(len(e) - 1, int(p * len(e)))] if e else float("nan")
print("%s,%s,%.2f,%.2f,%.1f,%.1f,%d,%d,%.3f,%.3f,%.1f,%.1f,%.1f,%.1f" % (
    v, kv.get("goodput_mbps", "nan"), acked.get("198.18.1.1", 0) / 1e6,
    acked.get("198.18.4.1", 0) / 1e6,
    fig("198.18.1.1", "estimate_bps", 1e6), fig("198.18.4.1", "estimate_bps", 1e6),
    fig("198.18.1.1", "measurements", 1), fig("198.18.4.1", "measurements", 1),
    fig("198.18.1.1", "hold_us", 1e6), fig("198.18.4.1", "hold_us", 1e6),
    q("198.18.1.1", 0.5), q("198.18.1.1", 0.9),
    q("198.18.4.1", 0.5), q("198.18.4.1", 0.9)))
EOF
	tail -1 "$OUT/mptcp.csv"
}

echo "variant,goodput_mbps,path1_mb,path2_mb,est1_mbps,est2_mbps,meas1,meas2,hold1_s,hold2_s,err1_med,err1_p90,err2_med,err2_p90" > "$OUT/mptcp.csv"
for i in $(seq "$REPS"); do
	for v in imtcp reno imtcp-off; do
		run $v || exit 1
	done
done
echo Y > /sys/module/imtcp/parameters/measure

python3 - "$OUT/mptcp.csv" "$SECS" "$BUDGET" "$RMEM" > "$OUT/mptcp.md" <<'EOF'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
secs, budget, rmem = sys.argv[2], sys.argv[3], sys.argv[4]
med = lambda v, k: statistics.median(float(r[k]) for r in rows if r["variant"] == v)
reno = med("reno", "goodput_mbps")
print("MPTCP over two paths (C 20 and 8 Mbit/s, 40 ms, MTU 1500), %s s "
      "transfers, medians of %d each; imtcp's hold_budget %s %%; "
      "receiver's tcp_rmem %s\n" % (
          secs, sum(r["variant"] == "reno" for r in rows), budget, rmem))
print("variant     goodput Mbit/s  / reno  path 1 MB  path 2 MB  estimates 1, 2 Mbit/s  "
      "results 1, 2  held 1, 2 s  |err| %C med/p90 1; 2  runs")
for v in ("imtcp", "reno", "imtcp-off"):
    runs = " ".join("%.1f" % float(r["goodput_mbps"]) for r in rows if r["variant"] == v)
    est, res, held, err = "-", "-", "-", "-"
    if v == "imtcp":
        est = "%.1f, %.1f" % (med(v, "est1_mbps"), med(v, "est2_mbps"))
        res = "%d, %d" % (med(v, "meas1"), med(v, "meas2"))
        held = "%.2f, %.2f" % (med(v, "hold1_s"), med(v, "hold2_s"))
        err = "%.1f/%.1f; %.1f/%.1f" % (med(v, "err1_med"), med(v, "err1_p90"),
                                        med(v, "err2_med"), med(v, "err2_p90"))
    print("%-11s %14.1f  %6.3f  %9.1f  %9.1f  %-21s  %-12s  %-11s  %-24s  %s" % (
        v, med(v, "goodput_mbps"), med(v, "goodput_mbps") / reno,
        med(v, "path1_mb"), med(v, "path2_mb"), est, res, held, err, runs))
EOF
cat "$OUT/mptcp.md"
