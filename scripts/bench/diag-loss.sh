#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Diagnostic (not a test): imtcp, reno, and reno paced by sch_fq on the
# sender (fq paces at the kernel's Reno rate, the rate imtcp uses
# internally), through 50 Mbit/s, 20 ms each way, with 1 % loss; per
# flow: goodput, mean cwnd sampled every 200 ms, and the sender's TCP
# MIB counters (recoveries, TLPs, RTOs, undos).
#   scripts/vm/run-vm.sh --name diag -- scripts/bench/diag-loss.sh [SECS] [REPS]
source "$(dirname "$0")/../../selftests/lib.sh"
trap topo_down EXIT
SECS=${1:-20}
REPS=${2:-2}
load_imtcp || exit 1
topo_up 50mbit 20 loss 1% || exit 1

port=7000
run() {
	local label=$1 cc=$2 line samples
	port=$((port + 1))
	in_snd nstat -n >/dev/null
	timed_send "$cc" $port "$SECS" > /tmp/diag.res &
	samples=""
	sleep 2
	for _ in $(seq $(( (SECS - 3) * 5 ))); do
		samples="$samples $(in_snd ss -tin "dport = :$port" | grep -o 'cwnd:[0-9]*' | cut -d: -f2)"
		sleep 0.2
	done
	wait
	line=$(cat /tmp/diag.res)
	echo "$label: $line"
	echo "$label: mean cwnd $(echo $samples | tr ' ' '\n' | awk '{s+=$1; n++} END {printf "%.1f (%d samples)", s/n, n}')"
	echo "$label: $(in_snd nstat -z TcpExtTCPSackRecovery TcpExtTCPLossProbes TcpExtTCPLossProbeRecovery TcpRetransSegs TcpExtTCPTimeouts TcpExtTCPFullUndo TcpExtTCPPartialUndo TcpExtTCPDSACKUndo TcpExtTCPLossUndo TcpExtTCPSACKReorder TcpExtTCPSpuriousRtxHostQueues 2>/dev/null | awk 'NR>1 {printf "%s=%s ", $1, $2}')"
}

for rep in $(seq "$REPS"); do
	tc -n "$NS_SND" qdisc del dev s0 root 2>/dev/null
	run "imtcp" imtcp
	run "reno" reno
	tc -n "$NS_SND" qdisc replace dev s0 root fq
	run "reno+fq" reno
	run "imtcp+fq" imtcp
done
