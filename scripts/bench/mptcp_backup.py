#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The table of `make bench-mptcp-backup` (scripts/bench/mptcp-backup.sh).

Usage: mptcp_backup.py OUT SECS FALL_S "LOSSES"

Per loss and variant (none: no controller; ctl: imtcp-mptcp-backup at
5 Mbit/s): frames received and late, behind schedule p50 / p99, the MB
each path carried (ss's bytes_acked by local address, two seconds before
the end), path 2's estimates after the fall (median of imtcp-stat's
once-a-second samples), and the controller's first mark after the fall.
"""
import json
import os
import re
import statistics
import sys

PATH1, PATH2 = "198.18.1.1", "198.18.4.1"


def last_json(path, event):
    """The last JSON object of @event in a file of JSON lines."""
    found = None
    for line in open(path):
        line = line.strip()
        if line.startswith("{"):
            obj = json.loads(line)
            if obj.get("event") == event:
                found = obj
    return found


def carried(path):
    """MB acknowledged per local address, from `ss -Htin`."""
    acked = {}
    text = open(path).read()
    for m in re.finditer(r"(198\.18\.\d+\.\d+):\d+\s+\S+:\d+.*?bytes_acked:(\d+)",
                         text, re.S):
        acked[m.group(1)] = acked.get(m.group(1), 0) + int(m.group(2)) / 1e6
    return acked


def estimates_after(path, fall_path):
    """Path 2's estimates (Mbit/s) sampled after the fall, each once."""
    t0, fall = (int(x) for x in open(fall_path).read().split())
    seen = {}
    for line in open(path):
        t, _, doc = line.partition(" ")
        if int(t) - t0 < fall or not doc.strip():
            continue
        for r in json.loads(doc):
            if r.get("mptcp") is not None and r["local"]["addr"] == PATH2 \
                    and r["estimate_bps"]:
                seen[(r["cookie"], r["measurements"])] = r["estimate_bps"] / 1e6
    return list(seen.values())


def decisions(path, fall_s):
    """(first mark after the fall: t_s, estimate; marks; clears)."""
    first, marks, clears = None, 0, 0
    if not os.path.exists(path):
        return None, 0, 0
    for line in open(path):
        if not line.startswith("{"):
            continue
        d = json.loads(line)
        if d["addr"] != PATH2 or not d["applied"]:
            continue
        if d["action"] == "backup":
            marks += 1
            if first is None and d["t_s"] >= fall_s - 1:
                first = d
        elif d["why"] != "exit":
            clears += 1
    return first, marks, clears


def row(out, loss, v, fall_s):
    base = os.path.join(out, "mptcp-backup-%s-%s" % (loss, v))
    end = last_json(base + ".recv", "end")
    if end is None:
        return "| %s | %s | no result | | | | | |" % (loss, v)
    mb = carried(base + ".ss")
    est = estimates_after(base + ".stat", base + ".fall")
    first, marks, clears = decisions(base + ".ctl", fall_s)
    mark = "-"
    if first:
        mark = "%.1f s after (at %.1f)" % (first["t_s"] - fall_s,
                                           first["estimate_bps"] / 1e6)
    late_pct = 100.0 * end["late"] / end["frames"] if end["frames"] else 0
    return "| %s | %s | %d | %d (%.1f %%) | %.0f / %.0f | %.1f / %.1f | %s | %s | %d / %d |" % (
        loss, v, end["frames"], end["late"], late_pct, end["behind_p50_ms"],
        end["behind_p99_ms"], mb.get(PATH1, 0), mb.get(PATH2, 0),
        "%.1f (%d)" % (statistics.median(est), len(est)) if est else "none",
        mark, marks, clears)


def main():
    out, secs, fall, losses = sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4]
    print("MPTCP media sender, 5 Mbit/s fixed rung, imtcp, over path 1 (C 20 "
          "Mbit/s, idle) and path 2 (C 8 Mbit/s, then 3 from %.0f s; netem "
          "loss on its data), 40 ms, MTU 1500, %s s per run; none: no "
          "controller, ctl: imtcp-mptcp-backup -r 5\n" % (fall, secs))
    print("| loss % | variant | frames | late | behind p50 / p99 ms | MB path 1 / 2 | "
          "path 2 estimate after the fall, median Mbit/s (results) | first mark "
          "after the fall (estimate) | marks / clears |")
    print("|---|---|---|---|---|---|---|---|---|")
    for loss in losses.split():
        for v in ("none", "ctl"):
            print(row(out, loss, v, fall))


if __name__ == "__main__":
    main()
