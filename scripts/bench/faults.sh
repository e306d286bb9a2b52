#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Goodput under heavy loss and reordering, repeated: is imtcp's ratio to
# reno there noise, or the measurement going wrong? Run inside the VM:
#   scripts/vm/run-vm.sh --name faults -- scripts/bench/faults.sh
# Test bed: selftests/lib.sh (50 Mbit/s, 20 ms each way, MTU 1500). For
# each netem case and each of BENCH_REPS (5) repetitions, three timed
# transfers of BENCH_SECS (10) back to back, their order rotating: imtcp,
# imtcp with measure=N (the same module as plain Reno: the control that
# separates the measurement's effect from the Reno code), and the
# kernel's reno. For imtcp, the socket's hold time, streams failed and
# measurements (imtcp-stat while xfer keeps the socket open). Reports
# per case the geometric means of imtcp/reno and imtcp(measure=N)/reno
# and every repetition. Output: $IMTCP_OUT (or build/bench) faults.csv
# and faults.md. Each transfer also records the sender namespace's
# retransmission timeouts, tail loss probes and SACK recoveries (nstat).
# BENCH_BYTES=N sends N bytes per transfer instead of BENCH_SECS seconds
# (short transfers, where a retransmission timeout weighs most);
# BENCH_CASES="loss 5%;reorder 25% 50%" (the default) chooses the netem
# cases, separated by ';'.
source "$(dirname "$0")/../../selftests/lib.sh"
trap topo_down EXIT

REPS=${BENCH_REPS:-5}
SECS=${BENCH_SECS:-10}
in_range "$REPS" 1 100 || { echo "BENCH_REPS: 1-100" >&2; exit 2; }
in_range "$SECS" 2 600 || { echo "BENCH_SECS: 2-600 seconds" >&2; exit 2; }
BYTES=${BENCH_BYTES:-}
[ -z "$BYTES" ] || in_range "$BYTES" 10000 1000000000 ||
	{ echo "BENCH_BYTES: 10000-1000000000" >&2; exit 2; }
IFS=';' read -r -a CASES <<< "${BENCH_CASES:-loss 5%;reorder 25% 50%}"
OUT=${IMTCP_OUT:-$TOP/build/bench}
mkdir -p "$OUT"
csv=$OUT/faults.csv
STAT=$TOP/build/userspace/imtcp-stat
P=/sys/module/imtcp/parameters
load_imtcp || exit 1
topo_up 50mbit 20 || exit 1
echo "case,rep,flow,goodput_mbps,retrans,rtos,loss_probes,recoveries,hold_us,streams_failed,measurements" > "$csv"

# mib_counts: the sender namespace's retransmission timeouts, tail loss
# probes and SACK recoveries since the last call, as "RTOS PROBES RECOV".
mib_counts() {
	in_snd nstat -z TcpExtTCPTimeouts TcpExtTCPLossProbes TcpExtTCPSackRecovery |
		awk '$1 == "TcpExtTCPTimeouts" { t = $2 } $1 == "TcpExtTCPLossProbes" { p = $2 }
		     $1 == "TcpExtTCPSackRecovery" { r = $2 } END { print t + 0, p + 0, r + 0 }'
}

# run CASE REP FLOW PORT: one timed transfer; FLOW is imtcp, imtcp-off or
# reno. Appends a CSV row.
run() {
	local name=$1 rep=$2 flow=$3 port=$4 cc=$3 line row hold="" fails="" meas=""
	local rtos probes recov
	[ "$flow" = imtcp-off ] && cc=imtcp
	[ "$flow" = imtcp-off ] && echo N > $P/measure
	: > "$OUT/line"
	in_snd nstat -n >/dev/null
	if [ -n "$BYTES" ]; then
		send_held "$cc" "$port" -n "$BYTES" -H 2 > "$OUT/line" &
		wait_line "$OUT/line" 300
	else
		timed_send "$cc" "$port" "$SECS" -H 2 > "$OUT/line" &
		sleep $((SECS + 1))
	fi
	row=$(in_snd "$STAT" -j dport "$port" 2>/dev/null)
	wait
	read -r rtos probes recov <<< "$(mib_counts)"
	echo Y > $P/measure
	line=$(cat "$OUT/line")
	if [ -n "$row" ] && [ "$row" != "[]" ]; then
		read -r hold fails meas <<< "$(echo "$row" | python3 -c '
import json, sys
r = json.load(sys.stdin)[0]
print(r["hold_us"], r["streams_failed"], r["measurements"])')"
	fi
	echo "$name,$rep,$flow,$(field goodput_mbps "$line"),$(field retrans "$line"),$rtos,$probes,$recov,$hold,$fails,$meas" >> "$csv"
	echo "$name rep $rep $flow: $(field goodput_mbps "$line") Mbit/s, retrans $(field retrans "$line"), RTOs $rtos, loss probes $probes, recoveries $recov, hold ${hold:--} us, streams failed ${fails:--}, measurements ${meas:--}"
}

port=5600
for c in "${CASES[@]}"; do
	# shellcheck disable=SC2086
	shape 50mbit 20 $c || exit 1
	for rep in $(seq "$REPS"); do
		flows=(imtcp imtcp-off reno)
		for i in 0 1 2; do
			run "$c" "$rep" "${flows[$(( (i + rep) % 3 ))]}" $port
			port=$((port + 1))
		done
	done
done
shape 50mbit 20

python3 - "$csv" > "$OUT/faults.md" <<'EOF'
import csv, math, sys
rows = list(csv.DictReader(open(sys.argv[1])))
print("| case | imtcp/reno (geometric mean; per repetition) | imtcp measure=N / reno | imtcp hold s per transfer (median) | streams failed (median) | RTOs per transfer imtcp / measure=N / reno |")
print("|---|---|---|---|---|---|")
for case in dict.fromkeys(r["case"] for r in rows):
    by = {}
    for r in rows:
        if r["case"] == case:
            by.setdefault(r["rep"], {})[r["flow"]] = r
    ratios, ctl, holds, fails = [], [], [], []
    rtos = {f: [int(r["rtos"]) for r in rows if r["case"] == case and r["flow"] == f]
            for f in ("imtcp", "imtcp-off", "reno")}
    for rep in by.values():
        g = {f: float(v["goodput_mbps"]) for f, v in rep.items()}
        ratios.append(g["imtcp"] / g["reno"])
        ctl.append(g["imtcp-off"] / g["reno"])
        if rep["imtcp"]["hold_us"]:
            holds.append(int(rep["imtcp"]["hold_us"]) / 1e6)
            fails.append(int(rep["imtcp"]["streams_failed"]))
    gm = lambda v: math.exp(sum(map(math.log, v)) / len(v))
    med = lambda v: sorted(v)[len(v) // 2] if v else float("nan")
    print("| %s | %.3f (%s) | %.3f (%s) | %.2f | %s | %s |" % (
        case, gm(ratios), " ".join("%.2f" % x for x in ratios),
        gm(ctl), " ".join("%.2f" % x for x in ctl), med(holds), med(fails),
        " / ".join("%.2f" % (sum(v) / len(v)) for v in rtos.values())))
EOF
cat "$OUT/faults.md"
