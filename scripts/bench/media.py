#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The table of make bench-media (scripts/bench/media.sh).

    media.py OUT C_MBIT SECS MSS FRAME FIXED_MBIT > media.md

For each run (media-BY.send/.recv/.cross/.t0 in OUT): at every pick, A
is C less the cross traffic the router counted over the second before
it, in TCP payload (x MSS / FRAME, as the estimate counts); the best rung
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

LADDER = [1, 2.5, 5, 8, 12, 20]


def read_json(path):
    out = []
    for line in open(path):
        line = line.strip()
        if line.startswith("{"):
            out.append(json.loads(line))
    return out


def read_cross(path):
    rows = []
    for line in open(path):
        p = line.split()
        if len(p) == 2:
            rows.append((float(p[0]), int(p[1])))
    return rows


def cross_mbps(rows, t0, t1):
    """Wire Mbit/s that arrived at the router between t0 and t1."""
    a = [r for r in rows if r[0] <= t0]
    b = [r for r in rows if r[0] <= t1]
    if not a or not b or b[-1][0] <= a[-1][0]:
        return None
    return (b[-1][1] - a[-1][1]) * 8 / (b[-1][0] - a[-1][0]) / 1e6


def best_rung(a):
    best = 0
    for i, r in enumerate(LADDER):
        if r <= a:
            best = i
    return best


def run(out, by, c, secs, mss, frame):
    base = os.path.join(out, "media-" + by)
    picks = [e for e in read_json(base + ".send") if e.get("event") == "pick"]
    recv = [e for e in read_json(base + ".recv") if e.get("event") == "end"]
    cross = read_cross(base + ".cross")
    t0 = float(open(base + ".t0").read())
    rows = []
    for p in picks:
        x = cross_mbps(cross, p["mono_s"] - 1, p["mono_s"])
        if x is None:
            continue
        a = (c - x) * mss / frame
        fig = {"imtcp": p["estimate_bps"], "delivery": p["delivery_bps"]}.get(by, 0)
        rows.append((p["mono_s"], a, p["rung"], best_rung(a), fig / 1e6,
                     p["estimate_bps"] / 1e6, p["delivery_bps"] / 1e6))
    n = len(rows)
    on = sum(1 for r in rows if r[2] == r[3])
    over = sum(1 for r in rows if r[2] > r[3])
    reach = []
    for tc in (t0, t0 + secs, t0 + 2 * secs):
        hit = [r[0] - tc for r in rows if tc <= r[0] < tc + secs and r[2] == r[3]]
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
    out, c, secs, mss, frame, fixed = sys.argv[1:7]
    c, secs, mss, frame = float(c), float(secs), int(mss), int(frame)
    print("## imtcp-media: picking a bitrate while the room changes\n")
    print("C = %g Mbit/s (%.1f of TCP payload), MTU 1500, RTT 40 ms; CBR cross "
          "traffic at 0, 73 and 33 %% of C, %g s each (A = %.1f, %.1f, %.1f Mbit/s "
          "of payload); 25 frames/s, ladder %s Mbit/s, the highest rung at or "
          "below 80 %% of the figure, picked once a second. Path check: %s.\n"
          % (c, c * mss / frame, secs, c * mss / frame, c * 0.27 * mss / frame,
             c * 0.67 * mss / frame, ", ".join("%g" % r for r in LADDER),
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
            r = run(out, by, c, secs, mss, frame)
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
        r = run(out, "imtcp", c, secs, mss, frame)
        t0 = float(open(os.path.join(out, "media-imtcp.t0")).read())
        print("```")
        for row in r["rows"]:
            print("%5.1f  A %5.1f  rate %4g  best %4g  estimate %5.1f  delivery %5.1f"
                  % (row[0] - t0, row[1], LADDER[row[2]], LADDER[row[3]],
                     row[5], row[6]))
        print("```")
    except (OSError, ValueError):
        pass


if __name__ == "__main__":
    main()
