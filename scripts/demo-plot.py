#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The picture of `make demo` (scripts/demo.sh): over the transfer's time,
the available bandwidth the router counted (A = C - cross, in TCP
payload), imtcp's estimates, each measurement's own result and the
path's capacity as imtcp estimates it, and the kernel's own figure
beside them (the same flow's tcpi_delivery_rate), with the phases of
cross traffic shaded.

  demo-plot.py DIR C_MBIT T0_US MONO0_S CROSS_START_US STEP_S \\
               "CROSS MBIT ..." MSS FRAME OUT.png

DIR holds demo.sh's files: truth ("END_US CROSS_KBIT_PER_S
[LINK_KBIT_PER_S]", frames, one a second: the cross traffic the router
received and what the bottleneck sent), est ("US ESTIMATE_BPS RAW_BPS [CAPACITY_BPS]"; 0: none
yet) and samples (xfer -T:
"MONOTONIC_S DELIVERY_RATE_BPS CC_BW_BPS BYTES_ACKED"). T0_US is the
demo's start (CLOCK_REALTIME, us), MONO0_S the same moment on the
monotonic clock (s). Exit 0 with the picture written, 1 on bad input,
2 without matplotlib.
"""
import os
import sys


def rows(path, cols):
    """The lines of PATH with at least COLS numbers each, as floats."""
    out = []
    if not os.path.exists(path):
        return out
    for line in open(path):
        f = line.split()
        if len(f) >= cols:
            try:
                out.append([float(x) for x in f[:cols]])
            except ValueError:
                continue
    return out


def series(d, c_mbit, t0_us, mono0_s, payload):
    """Time (s since T0) and Mbit/s of A, A as the link served it (what
    it sent less the cross traffic), the estimates, the measurements' own
    results, the capacity and the delivery rate."""
    truth = [((t - t0_us) / 1e6, max(0.0, (c_mbit - x / 1000) * payload))
             for t, x in rows(os.path.join(d, "truth"), 2)]
    served = [((t - t0_us) / 1e6,
               max(0.0, (link_kbps - x) / 1000 * payload))
              for t, x, link_kbps in rows(os.path.join(d, "truth"), 3)]
    est = [((t - t0_us) / 1e6, e / 1e6, r / 1e6)
           for t, e, r in rows(os.path.join(d, "est"), 3)]
    cap = [((t - t0_us) / 1e6, c / 1e6)
           for t, _, _, c in rows(os.path.join(d, "est"), 4) if c > 0]
    dlv = [(m - mono0_s, r / 1e6)
           for m, r, _, _ in rows(os.path.join(d, "samples"), 4) if r > 0]
    return truth, est, dlv, cap, served


def steps(points):
    """A count per second as steps: each covers the second before it."""
    xs, ys = [], []
    for t, a in points:
        xs += [t - 1, t]
        ys += [a, a]
    return xs, ys


def draw(out, c_mbit, truth, est, dlv, phases, payload, cap=(), served=()):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(9, 4.5))
    for i, (start, end, mbit) in enumerate(phases):
        ax.axvspan(start, end, color="0.85" if i % 2 else "0.93", lw=0)
        ax.text((start + end) / 2, 1.08 * c_mbit * payload,
                f"cross {mbit:g} Mbit/s", ha="center", fontsize=9)
    if truth:
        ax.plot(*steps(truth), color="black", lw=1.5,
                label="A = C - cross (router's count)")
    if served:
        ax.plot(*steps(served), color="black", lw=1, ls=":",
                label="the link sent, less cross (A while a queue stands)")
    if dlv:
        ax.plot([t for t, _ in dlv], [r for _, r in dlv], color="C0",
                lw=0.8, alpha=0.8, label="tcpi_delivery_rate (kernel)")
    if est:
        ax.plot([t for t, _, _ in est], [r for _, _, r in est], "x",
                color="C1", ms=4, label="imtcp: one measurement")
        ax.plot([t for t, _, _ in est], [e for _, e, _ in est], "o",
                color="C3", ms=4, label="imtcp estimate")
    if cap:
        ax.plot([t for t, _ in cap], [c for _, c in cap], "+", color="C2",
                ms=5, label="imtcp: the path's capacity")
    ax.axhline(c_mbit * payload, color="0.5", ls="--", lw=0.8,
               label=f"C = {c_mbit:g} Mbit/s (payload)")
    ax.set_xlim(0, max([p[1] for p in phases] + [t for t, _ in truth] + [1]))
    ax.set_ylim(0, 1.25 * c_mbit * payload)
    ax.set_xlabel("time since the demo started (s)")
    ax.set_ylabel("Mbit/s of TCP payload")
    ax.set_title("imtcp's estimate of the available bandwidth, "
                 "beside the router's count")
    ax.legend(loc="lower left", fontsize=8, framealpha=0.9)
    fig.tight_layout()
    fig.savefig(out, dpi=100)
    plt.close(fig)


def main(a):
    if len(a) != 11:
        print(__doc__, file=sys.stderr)
        return 1
    try:
        c_mbit, t0_us, mono0_s = float(a[2]), float(a[3]), float(a[4])
        cross0 = (float(a[5]) - t0_us) / 1e6
        step, cross = float(a[6]), [float(x) for x in a[7].split()]
        mss, frame = int(a[8]), int(a[9])
    except ValueError as e:
        print(f"demo-plot: {e}", file=sys.stderr)
        return 1
    if c_mbit <= 0 or step <= 0 or mss <= 0 or frame < mss:
        print("demo-plot: C, step and segment sizes must be positive",
              file=sys.stderr)
        return 1
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        print("demo-plot: no picture: python3-matplotlib is not installed",
              file=sys.stderr)
        return 2
    payload = mss / frame
    phases = [(cross0 + i * step, cross0 + (i + 1) * step, x)
              for i, x in enumerate(cross)]
    truth, est, dlv, cap, served = series(a[1], c_mbit, t0_us, mono0_s,
                                          payload)
    draw(a[10], c_mbit, truth, est, dlv, phases, payload, cap, served)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
