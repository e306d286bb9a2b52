#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check measurement streams on the wire against their plan.

    imtcp_wire.py TRACE PCAP [--min-streams N] [--min-median R] [--min-p10 R]

TRACE is the text of /sys/kernel/tracing/trace with imtcp:imtcp_stream_start
enabled (each line gives a stream's first sequence number, its segments,
their size and the planned time from the first departure to the last).
PCAP is a capture on the sender's link (tcpdump -w, microsecond or
nanosecond timestamps, Ethernet, IPv4 or IPv6) of the connection's data.

For every stream whose segments all appear in the capture, the real time
from its first segment's departure to its last is divided by the plan.
A stream can be slower than planned (a late pacing timer, a stream that
ran dry and whose rest left later) but not faster: segments leave no
earlier than the schedule says. So the check is one-sided: the median
ratio and the 10th percentile must reach the given minimums. A pacing
rate in the wrong unit (bits where the kernel reads bytes) sends a stream
in an eighth of its plan and fails.

Prints one line per stream and a summary; exits 0 when the bounds hold,
1 when they do not, 2 on bad input.
"""
import argparse
import re
import struct
import sys

START_RE = re.compile(r"imtcp_stream_start: cookie=(\d+) stream=(\d+) seq=(\d+) "
                      r"rate=(\d+)-(\d+) segs=(\d+) mss=(\d+) plan_ns=(\d+)")

PCAP_US = 0xA1B2C3D4
PCAP_NS = 0xA1B23C4D


def read_streams(path):
    """The streams the trace shows begin, in order."""
    streams = []
    with open(path) as f:
        for line in f:
            m = START_RE.search(line)
            if not m:
                continue
            cookie, idx, seq, lo, hi, segs, mss, plan = (int(x) for x in m.groups())
            streams.append({"cookie": cookie, "index": idx, "seq": seq,
                            "lo_bps": lo, "hi_bps": hi, "segs": segs,
                            "mss": mss, "plan_ns": plan})
    return streams


def tcp_payload(frame):
    """(seq, payload length) of a TCP segment in an Ethernet frame, or None."""
    if len(frame) < 14:
        return None
    ethertype = struct.unpack("!H", frame[12:14])[0]
    off = 14
    if ethertype == 0x0800:
        if len(frame) < off + 20:
            return None
        ihl = (frame[off] & 0x0F) * 4
        total = struct.unpack("!H", frame[off + 2:off + 4])[0]
        if frame[off + 9] != 6:
            return None
        ip_end = off + total
        off += ihl
    elif ethertype == 0x86DD:
        if len(frame) < off + 40:
            return None
        plen = struct.unpack("!H", frame[off + 4:off + 6])[0]
        if frame[off + 6] != 6:
            return None
        ip_end = off + 40 + plen
        off += 40
    else:
        return None
    if len(frame) < off + 20:
        return None
    seq = struct.unpack("!I", frame[off + 4:off + 8])[0]
    doff = (frame[off + 12] >> 4) * 4
    return seq, ip_end - off - doff


def read_pcap(path):
    """[(time_ns, seq, length)] of the data segments captured, in order."""
    out = []
    with open(path, "rb") as f:
        hdr = f.read(24)
        if len(hdr) < 24:
            raise ValueError("no pcap header")
        magic = struct.unpack("<I", hdr[:4])[0]
        endian = "<"
        if magic not in (PCAP_US, PCAP_NS):
            magic = struct.unpack(">I", hdr[:4])[0]
            endian = ">"
        if magic not in (PCAP_US, PCAP_NS):
            raise ValueError("not a pcap file")
        scale = 1 if magic == PCAP_NS else 1000
        linktype = struct.unpack(endian + "I", hdr[20:24])[0]
        if linktype != 1:
            raise ValueError("link type %d, want Ethernet (1)" % linktype)
        while True:
            rec = f.read(16)
            if len(rec) < 16:
                break
            sec, frac, caplen, _ = struct.unpack(endian + "IIII", rec)
            frame = f.read(caplen)
            seg = tcp_payload(frame)
            if seg and seg[1] > 0:
                out.append((sec * 1000000000 + frac * scale, seg[0], seg[1]))
    return out


def departures(stream, segs):
    """Departure times of the stream's segments (first transmissions), or None."""
    found = [None] * stream["segs"]
    for t, seq, length in segs:
        for j in range(stream["segs"]):
            if found[j] is not None:
                continue
            want = (stream["seq"] + j * stream["mss"]) & 0xFFFFFFFF
            if (want - seq) & 0xFFFFFFFF < length:
                found[j] = t
        if all(x is not None for x in found):
            return found
    return None


def percentile(values, q):
    v = sorted(values)
    return v[min(len(v) - 1, int(q * (len(v) - 1) + 0.5))]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("trace")
    ap.add_argument("pcap")
    ap.add_argument("--min-streams", type=int, default=5)
    ap.add_argument("--min-median", type=float, default=0.9)
    ap.add_argument("--min-p10", type=float, default=0.7)
    a = ap.parse_args()
    try:
        streams = read_streams(a.trace)
        segs = read_pcap(a.pcap)
    except (OSError, ValueError) as e:
        print("imtcp_wire: %s" % e, file=sys.stderr)
        return 2
    ratios = []
    for s in streams:
        if s["plan_ns"] <= 0:
            continue
        dep = departures(s, segs)
        if dep is None:
            continue
        real = dep[-1] - dep[0]
        r = real / s["plan_ns"]
        ratios.append(r)
        print("stream seq=%u rate=%.2f-%.2f Mbit/s plan %.3f ms, on the wire %.3f ms (%.2f)"
              % (s["seq"], s["lo_bps"] / 1e6, s["hi_bps"] / 1e6,
                 s["plan_ns"] / 1e6, real / 1e6, r))
    print("streams: %d begun, %d complete in the capture" % (len(streams), len(ratios)))
    if len(ratios) < a.min_streams:
        print("FAIL: fewer than %d complete streams" % a.min_streams)
        return 1
    med, p10 = percentile(ratios, 0.5), percentile(ratios, 0.1)
    print("wire/plan: min %.2f p10 %.2f median %.2f max %.2f"
          % (min(ratios), p10, med, max(ratios)))
    if med < a.min_median or p10 < a.min_p10:
        print("FAIL: streams left faster than planned (median >= %.2f and p10 >= %.2f wanted)"
              % (a.min_median, a.min_p10))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
