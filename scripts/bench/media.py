#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The table of make bench-media (scripts/bench/media.sh).

    media.py OUT C_MBIT SECS FIXED_MBIT > media.md

For each run (media-BY.send/.recv/.cross/.t0 in OUT): at every pick, A
is C less the cross traffic the router counted over the second before
it, in TCP payload (accuracy.py's truth, averaged over that second;
TOPO_MTU as media.sh exports it sets the payload's share); the best rung
is the highest at or below A. Reported: picks on the best rung, above
it (more than the room) and below it; seconds from each change of the
profile (the cross-traffic generator's start + SECS, + 2 SECS; the start
itself for the first) to the first pick of the best rung; frames late
at the receiver; and how far the figure the sender picked from lay from
A at the picks.
"""
import json
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from accuracy import PAYLOAD, read_truth  # noqa: E402

LADDER = [1, 2.5, 5, 8, 12, 20]


def read_json(path):
    out = []
    for line in open(path):
        line = line.strip()
        if line.startswith("{"):
            out.append(json.loads(line))
    return out


def truth_over(bins, t0_s, t1_s):
    """A over the router's samples from the last one at or before t0_s to
    the last one at or before t1_s: the time-weighted mean of the truth's
    bins between them (each bin ends where the next begins). None if
    there are none."""
    starts = [t for t, _ in bins if t <= t0_s]
    if not starts:
        return None
    span = [(tb - ta, a) for (ta, a), (tb, _) in zip(bins, bins[1:])
            if ta >= starts[-1] and tb <= t1_s]
    secs = sum(d for d, _ in span)
    return sum(d * a for d, a in span) / secs if secs > 0 else None


def best_rung(a):
    best = 0
    for i, r in enumerate(LADDER):
        if r <= a:
            best = i
    return best


def run(out, by, c, phase_s):
    base = os.path.join(out, "media-" + by)
    picks = [e for e in read_json(base + ".send") if e.get("event") == "pick"]
    recv = [e for e in read_json(base + ".recv") if e.get("event") == "end"]
    bins = read_truth(base + ".cross", c)
    t0_s = float(open(base + ".t0").read())
    rows = []
    for p in picks:
        a = truth_over(bins, p["mono_s"] - 1, p["mono_s"])
        if a is None:
            continue
        fig = {"imtcp": p["estimate_bps"], "delivery": p["delivery_bps"]}.get(by, 0)
        rows.append((p["mono_s"], a, p["rung"], best_rung(a), fig / 1e6,
                     p["estimate_bps"] / 1e6, p["delivery_bps"] / 1e6))
    n = len(rows)
    on = sum(1 for r in rows if r[2] == r[3])
    over = sum(1 for r in rows if r[2] > r[3])
    reach = []
    for tc_s in (t0_s, t0_s + phase_s, t0_s + 2 * phase_s):
        hit = [r[0] - tc_s for r in rows
               if tc_s <= r[0] < tc_s + phase_s and r[2] == r[3]]
        reach.append("%.1f" % hit[0] if hit else "never")
    errs = [abs(r[4] - r[1]) / c * 100 for r in rows if r[4] > 0]
    end = recv[-1] if recv else {}
    return {
        "by": by, "picks": n,
        "on": 100.0 * on / n if n else 0, "over": 100.0 * over / n if n else 0,
        "under": 100.0 * (n - on - over) / n if n else 0,
        "reach": reach,
        "frames": end.get("frames", 0), "late": end.get("late", 0),
        "p99": end.get("behind_p99_ms", 0),
        "err": statistics.median(errs) if errs else None,
        "rows": rows,
    }


def main():
    out, c, secs, fixed = sys.argv[1:5]
    c, secs = float(c), float(secs)
    print("## imtcp-media: picking a bitrate while the room changes\n")
    print("C = %g Mbit/s (%.1f of TCP payload), MTU 1500, RTT 40 ms; CBR cross "
          "traffic at 0, 73 and 33 %% of C, %g s each (A = %.1f, %.1f, %.1f Mbit/s "
          "of payload); 25 frames/s, ladder %s Mbit/s, the highest rung at or "
          "below 80 %% of the figure, picked once a second. Path check: %s.\n"
          % (c, c * PAYLOAD, secs, c * PAYLOAD, c * 0.27 * PAYLOAD,
             c * 0.67 * PAYLOAD, ", ".join("%g" % r for r in LADDER),
             os.environ.get("PATH_VERDICT", "?")))
    print("Best rung: the highest at or below A at that pick (A from the "
          "cross traffic the router counted in the second before it). "
          "Reached: seconds from the start and from each change to the "
          "first pick of the best rung. Late: frames whose last byte came "
          "after frame 0's arrival + i / 25 s + 200 ms. Figure err: "
          "|figure picked from - A| at the picks, median, % of C.\n")
    print("| picked from | picks | on best rung | above it | below it | "
          "reached after start, 1st, 2nd change (s) | frames | late | "
          "behind p99 ms | figure err % of C |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for by in ("imtcp", "delivery", "fixed"):
        try:
            r = run(out, by, c, secs)
        except (OSError, ValueError) as e:
            print("| %s | no record: %s |" % (by, e))
            continue
        name = {"imtcp": "imtcp estimate", "delivery": "tcpi_delivery_rate (reno)",
                "fixed": "fixed %s Mbit/s (reno)" % fixed}[by]
        print("| %s | %d | %.0f %% | %.0f %% | %.0f %% | %s | %d | %d (%.1f %%) | "
              "%.0f | %s |" % (name, r["picks"], r["on"], r["over"], r["under"],
                               ", ".join(r["reach"]), r["frames"], r["late"],
                               100.0 * r["late"] / r["frames"] if r["frames"] else 0,
                               r["p99"], "%.1f" % r["err"] if r["err"] is not None
                               else "-"))
    print("\nPer pick (s from the generator's start: A, rung picked, best rung, "
          "imtcp estimate, delivery rate), imtcp run:\n")
    try:
        r = run(out, "imtcp", c, secs)
        t0_s = float(open(os.path.join(out, "media-imtcp.t0")).read())
        print("```")
        for row in r["rows"]:
            print("%5.1f  A %5.1f  rate %4g  best %4g  estimate %5.1f  delivery %5.1f"
                  % (row[0] - t0_s, row[1], LADDER[row[2]], LADDER[row[3]],
                     row[5], row[6]))
        print("```")
    except (OSError, ValueError):
        pass


if __name__ == "__main__":
    main()
