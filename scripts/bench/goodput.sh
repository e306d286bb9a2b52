#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Goodput benchmark, imtcp against the kernel's reno, run inside the VM by
# `make bench`. Test bed: 50 Mbit/s tbf bottleneck, 20 ms each way (see
# selftests/lib.sh), once with no added loss and once with 1 % random loss
# on the data path. Each repetition runs one imtcp and one reno transfer
# back to back (their order alternating), each a fixed time long; the
# ratio is taken within the repetition, and the report gives the median.
#
# Environment: BENCH_REPS (5), BENCH_SECS_CLEAN (15), BENCH_SECS_LOSS (30).
# Results: $IMTCP_OUT (the VM run's directory) or build/bench:
#   goodput.csv  one row per transfer
#   goodput.md   the summary table
source "$(dirname "$0")/../../selftests/lib.sh"
trap topo_down EXIT

REPS=${BENCH_REPS:-5}
SECS_CLEAN=${BENCH_SECS_CLEAN:-15}
SECS_LOSS=${BENCH_SECS_LOSS:-30}
OUT=${IMTCP_OUT:-$TOP/build/bench}
mkdir -p "$OUT"
csv=$OUT/goodput.csv

load_imtcp || exit 1
topo_up 50mbit 20 || { echo "cannot build the test bed"; exit 1; }

port=6000
one_run() {
	local cond=$1 rep=$2 cc=$3 secs=$4 line
	port=$((port + 1))
	in_rcv "$XFER" recv -p $port 2>/dev/null &
	line=$(in_snd "$XFER" send -c $RCV_ADDR -p $port -C "$cc" -t "$secs") ||
		{ echo "transfer failed: $cc $cond $rep" >&2; wait; return 1; }
	wait
	echo "$cond,$rep,$cc,$(field goodput_mbps "$line"),$(field retrans "$line"),$(field segs_out "$line"),$(field bytes "$line"),$(field secs "$line")" | tee -a "$csv"
}

echo "condition,rep,cc,goodput_mbps,retrans,segs_out,bytes,secs" > "$csv"
for cond in clean loss1; do
	if [ $cond = clean ]; then
		shape 50mbit 20; secs=$SECS_CLEAN
	else
		shape 50mbit 20 loss 1%; secs=$SECS_LOSS
	fi
	for rep in $(seq "$REPS"); do
		if [ $((rep % 2)) = 1 ]; then order="imtcp reno"; else order="reno imtcp"; fi
		for cc in $order; do
			one_run $cond "$rep" "$cc" "$secs" || exit 1
		done
	done
done

python3 - "$csv" "$OUT/goodput.md" "$REPS" <<'PY'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
out = open(sys.argv[2], "w")
def p(s=""):
    print(s); out.write(s + "\n")
p(f"## imtcp vs reno goodput (50 Mbit/s tbf, 20 ms each way, {sys.argv[3]} repetitions)")
p()
p("| condition | imtcp Mbit/s (median) | reno Mbit/s (median) | ratio imtcp/reno per rep | median ratio | retrans imtcp (median) | retrans reno (median) |")
p("|---|---|---|---|---|---|---|")
for cond in ("clean", "loss1"):
    r = [x for x in rows if x["condition"] == cond]
    g = {cc: {x["rep"]: float(x["goodput_mbps"]) for x in r if x["cc"] == cc} for cc in ("imtcp", "reno")}
    rt = {cc: [int(x["retrans"]) for x in r if x["cc"] == cc] for cc in ("imtcp", "reno")}
    ratios = [g["imtcp"][k] / g["reno"][k] for k in sorted(g["imtcp"], key=int)]
    name = {"clean": "no added loss", "loss1": "1 % loss"}[cond]
    p(f"| {name} | {statistics.median(g['imtcp'].values()):.2f} | {statistics.median(g['reno'].values()):.2f} | "
      + " ".join(f"{x:.3f}" for x in ratios)
      + f" | **{statistics.median(ratios):.3f}** | {statistics.median(rt['imtcp']):.0f} | {statistics.median(rt['reno']):.0f} |")
PY
