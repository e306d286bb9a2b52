#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn a saved ftrace buffer of imtcp events (all of imtcp:*) into a
replay file for tests/unit/test_replay.c: one block per measurement the
module analysed, with what the module analysed and what it concluded.

  trace2replay.py TRACE COMMENT > FILE.replay

Format (lines):
  # comment
  M raw_bps edge ceiling_us k n min_rtt_us   a measurement (k streams of n
                                             segments), the module's result
  S lo_bps hi_bps mss outcome seg:tx_us:delay_us ...   one line per stream

A measurement whose first stream was carried over from the one before
(the module parameter carry) gets that stream's samples again.
"""
import re
import sys

LINE = re.compile(r"\s(\d+\.\d+): (\w+): (.*)$")
OUTCOME = {"dry": 0, "flat": 1, "rise": 2, "unclear": 3}


def ceiling(dmax, dmin, noise_us=500):
    """As imtcp_queue_ceiling() (kmod/core/imtcp_stream.c), for the module's
    default noise_us."""
    top = max(dmax)
    low = min([top] + [d for d in dmin if d > 0])
    return top if top - low > noise_us else 0


def main(path, comment):
    samples = {}
    dmax = [0, 0]
    dmin = [0, 0]       # 0: none
    pending = None      # streams of an analysed measurement
    last = None         # the newest stream of the measurement before
    print(f"# {comment}")

    def flush(raw, edge):
        nonlocal pending, last
        if pending:
            last = pending["st"][-1]
            ceiling = pending["ceiling"]
            print(f"M {raw} {edge} {ceiling} {len(pending['st'])} "
                  f"{pending['n']} {pending['min_rtt']}")
            for lo, hi, mss, outcome, ss in pending["st"]:
                print(f"S {lo} {hi} {mss} {outcome} " +
                      " ".join(f"{s}:{t}:{d}" for s, t, d in ss))
        pending = None

    for line in open(path, errors="replace"):
        m = LINE.search(line)
        if not m:
            continue
        name, text = m.group(2), m.group(3)
        f = dict(kv.split("=", 1) for kv in text.split() if "=" in kv)
        if name == "imtcp_state":
            to = re.search(r"->(\w+)", text).group(1)
            if to == "send":
                samples[int(f["stream"])] = []
            continue
        if name == "imtcp_sample":
            samples.setdefault(int(f["stream"]), []).append(
                (int(f["seg"]), int(f["tx_us"]), int(f["delay_us"])))
            dmax[0] = max(dmax[0], int(f["delay_us"]))
            if not dmin[0] or int(f["delay_us"]) < dmin[0]:
                dmin[0] = int(f["delay_us"])
            continue
        if name == "imtcp_stream" and f["outcome"] != "dry":
            i = int(f["stream"])
            if i == 0:
                flush(0, 0)
                pending = {"ceiling": ceiling(dmax, dmin), "st": [],
                           "min_rtt": f.get("min_rtt_us", "0"),
                           "n": f.get("segs", "10")}
                dmax = [0, dmax[0]]
                dmin = [0, dmin[0]]
            lo, hi = f["rate"].split("-")
            ss = samples.get(i, [])
            # a stream carried over (the module's carry): the measurement
            # before's newest, whose samples were traced under its index
            # (carried=1; traces from before the field: the same rates)
            carried = f.get("carried")
            if i == 0 and last and (carried == "1" or
                                    (carried is None and
                                     last[:3] == (lo, hi, f["mss"]))):
                ss = last[4]
            pending["st"].append((lo, hi, f["mss"], OUTCOME[f["outcome"]],
                                  ss))
            continue
        if name == "imtcp_estimate":
            flush(f["raw"], f["edge"])
    flush(0, 0)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    main(sys.argv[1], sys.argv[2])
