#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Analysis for scripts/bench/accuracy.sh.

  accuracy.py scenario NAME C_MBIT WORKDIR OUTDIR
      imtcp's estimates, its tcpi_delivery_rate and BBR's bandwidth
      estimate against the truth A(t) = C - cross(t) (100 ms bins) of
      their own run; imtcp's goodput over reno's. Reads WORKDIR/NAME.*;
      writes OUTDIR/accuracy-NAME.csv, appends to OUTDIR/accuracy.jsonl
  accuracy.py together NAME WORKDIR OUTDIR
      flows run together (WORKDIR/NAME.*.xfer): goodputs, Jain's index,
      imtcp/reno share; appends to OUTDIR/together.jsonl
  accuracy.py table OUTDIR C_MBIT
      OUTDIR/accuracy.md from the .jsonl files; PNG plots if matplotlib
      is there
"""
import bisect
import csv
import json
import math
import os
import re
import statistics
import sys

LINE = re.compile(r"\s(\d+\.\d+): (\w+): (.*)$")


def fields(text):
    return dict(kv.split("=", 1) for kv in text.split() if "=" in kv)


def trace_events(path):
    """(t, event name, its fields) of each event line of a saved trace."""
    for line in open(path, errors="replace"):
        m = LINE.search(line)
        if m:
            yield float(m.group(1)), m.group(2), fields(m.group(3))


def read_trace(path, port):
    est, connect = [], None
    for t, name, f in trace_events(path):
        if name == "imtcp_estimate":
            # raw: the fit's result; busy and floor: the rates that
            # bound it from above and below (0: none; older traces lack
            # the fields)
            # edge and rse: the fit's (with the bounds, the estimate is
            # exactly replayable from these columns)
            # held: whether the bounds moved it (None: an older trace)
            est.append((t, int(f["bps"]) / 1e6, int(f["raw"]) / 1e6,
                        int(f["srtt_us"]), int(f.get("busy", "0")) / 1e6,
                        int(f.get("floor", "0")) / 1e6, int(f["edge"]),
                        int(f["rse"]),
                        int(f["held"]) if "held" in f else None))
        elif (name == "inet_sock_set_state" and f.get("dport") == port
              and f.get("newstate") == "TCP_ESTABLISHED" and connect is None):
            connect = t
    return est, connect


def read_caps(path):
    """(t, Mbit/s) of the path's capacity each imtcp_estimate came with
    (its cap field, core/imtcp_cap.c), where it had one; none from a
    module without the field."""
    return [(t, int(f["cap"]) / 1e6) for t, name, f in trace_events(path)
            if name == "imtcp_estimate" and int(f.get("cap", "0"))]


JUMP_MARGIN_MS = 2.0


def delay_jumps(path, c_mbps):
    """The path's faithfulness as imtcp's own streams saw it (a trace
    with imtcp_sample and imtcp_stream events): of the streams with at
    least three ACK samples, how many spread their delays wider than
    their own segments could queue at C (segs x mss at c_mbps, plus
    JUMP_MARGIN_MS), and the spread's p90 in ms. Cross traffic adds to
    the queue too, but CBR at a load under C only a packet or two at a
    time; delays that jump by more came from elsewhere (late timers in
    the emulation). (0, 0, None) for a trace without samples."""
    delays, spans, over = {}, [], 0
    for _, name, f in trace_events(path):
        key = (f.get("cookie"), f.get("stream"))
        if name == "imtcp_sample":
            delays.setdefault(key, []).append(int(f["delay_us"]) / 1000)
        elif name == "imtcp_stream":
            d = delays.pop(key, [])
            segs, mss = int(f.get("segs", 0)), int(f.get("mss", 0))
            if len(d) < 3 or not segs or not mss or c_mbps <= 0:
                continue
            span = max(d) - min(d)
            spans.append(span)
            over += span > segs * mss * 8 / (c_mbps * 1e3) + JUMP_MARGIN_MS
    return len(spans), over, (pct(spans, 0.9) if spans else None)


# A run is flagged unfaithful (its cell marked in the tables) where more
# than JUMP_SHARE_MAX of imtcp's streams saw their delays jump
# (delay_jumps), or more than LATE_SHARE_MAX of the timer wakeups beside
# imtcp's transfer came over 1 ms late, or the host's steal during it
# passed STEAL_PCT_MAX % of its CPUs. The bounds, and the runs they
# rest on, are in selftests/faithful.env, which the selftests source:
# one place for both.
FAITHFUL_ENV = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                            "..", "..", "selftests", "faithful.env")


def faithful_bounds(path=FAITHFUL_ENV):
    """The NAME=integer lines of @path, as a dict of ints."""
    bounds = {}
    for line in open(path):
        line = line.strip()
        if line and not line.startswith("#"):
            name, value = line.split("=", 1)
            bounds[name] = int(value)
    return bounds


_BOUNDS = faithful_bounds()
JUMP_SHARE_MAX = _BOUNDS["FAITHFUL_JUMP_PCT"] / 100
LATE_SHARE_MAX = _BOUNDS["FAITHFUL_LATE_PCT"] / 100
STEAL_PCT_MAX = _BOUNDS["FAITHFUL_STEAL_PCT"]


def unfaithful(r):
    """Why run @r (a row of accuracy.jsonl) measured a path less faithful
    than the path check's: "jumps N %", "timers N %", "steal N %" (the
    host's, in imtcp's run), any of them, or ""."""
    why = []
    n = r.get("jump_streams")
    if n and r.get("jump_over", 0) > JUMP_SHARE_MAX * n:
        why.append(f"jumps {100 * r['jump_over'] / n:.0f} %")
    w = r.get("imtcp_timer_wakeups")
    if w and r.get("imtcp_timer_late_over_1ms", 0) > LATE_SHARE_MAX * w:
        why.append(f"timers {100 * r['imtcp_timer_late_over_1ms'] / w:.0f} %")
    st = r.get("imtcp_host_steal_pct")
    if st is not None and st > STEAL_PCT_MAX:
        why.append(f"steal {st:.0f} %")
    return ", ".join(why)


def ratio_stolen(r):
    """True where the host's steal passed its bound in imtcp's or reno's
    run of @r: the goodput ratio compares a slowed emulation with one
    that was not (b6's S2-70: reno's run at 11 % steal, ratio 1.323)."""
    return any(r.get(f"{cc}_host_steal_pct", 0) > STEAL_PCT_MAX
               for cc in ("imtcp", "reno"))


def capacity_figures(caps, c, connect, srtt, bbr_bw):
    """imtcp's capacity against C (payload Mbit/s): how many estimates
    had one, their median, |cap - C| / C median and p90 in % of C, and
    the first one's time in RTTs after the connection; beside it the
    kernel's nearest figure, BBR's bandwidth estimate (its own run, the
    100 ms samples @bbr_bw in Mbit/s): median, and error median % of C."""
    errs = [abs(x - c) / c for _, x in caps]
    res = {"cap_estimates": len(caps),
           "cap_median_mbps": (statistics.median(x for _, x in caps)
                               if caps else None),
           "cap_median_err_pct_c": med(errs),
           "cap_p90_err_pct_c": 100 * pct(errs, 0.9) if errs else None,
           "cap_first_rtt": ((caps[0][0] - connect) / srtt
                             if caps and srtt > 0 else None),
           "bbr_bw_median_mbps": (statistics.median(bbr_bw)
                                  if bbr_bw else None),
           "bbr_bw_cap_err_pct_c": med([abs(x - c) / c for x in bbr_bw])}
    return res


# The estimates count TCP payload (imtcp's streams, like BBR's bandwidth
# and tcpi_delivery_rate, are segments of MSS bytes), the bottleneck (tbf)
# and the router's counter whole frames: MTU - 52 bytes of payload
# (IP, TCP and its timestamps) in a frame of MTU + 14 (Ethernet header),
# 1448 in 1514 at the default MTU (BENCH_MTU, as accuracy.sh exports it
# to selftests/lib.sh as TOPO_MTU). So the truth, and C, are taken in the
# flow's payload: what a TCP flow with this MSS can carry of what the
# link has left (selftests/lib.sh: MSS_BYTES, FRAME_BYTES).
MTU = int(os.environ.get("TOPO_MTU", "1500"))
MSS, FRAME = MTU - 52, MTU + 14
PAYLOAD = MSS / FRAME
TRUTH = "truth A = C - cross"
IMTCP_TPUT = "imtcp throughput"
RENO_TPUT = "reno throughput (own run)"


def read_truth(path, c):
    """A(t) in payload Mbit/s per 100 ms bin, C given in frame Mbit/s."""
    rows = [tuple(map(float, l.split())) for l in open(path) if l.strip()]
    bins = []
    for (t0, b0), (t1, b1) in zip(rows, rows[1:]):
        if t1 > t0:
            cross = (b1 - b0) * 8 / (t1 - t0) / 1e6
            bins.append((t0, (c - cross) * PAYLOAD))
    return bins


def truth_at(bins, t):
    i = bisect.bisect_right([b[0] for b in bins], t) - 1
    return bins[max(i, 0)][1] if bins else None


def pct(v, q):
    v = sorted(v)
    return v[min(len(v) - 1, int(q * len(v)))] if v else float("nan")


def truth_jitter(bins, c):
    """How far the truth itself jitters from bin to bin: |A of a bin -
    the median A of the 11 bins around it| in % of C, median and p90 (an
    estimate that followed A perfectly over a second would still be this
    far off the 100 ms truth; Poisson cross traffic makes it large)."""
    dev = []
    for k in range(5, len(bins) - 5):
        ref = statistics.median(b[1] for b in bins[k - 5:k + 6])
        dev.append(100 * abs(bins[k][1] - ref) / c)
    if not dev:
        return None, None
    return statistics.median(dev), pct(dev, 0.9)


def level_change(bins, k):
    """|median of the 10 bins from k on - median of the 10 before k|, and
    the median after (None, None where either side has fewer)."""
    before = [b[1] for b in bins[max(0, k - 10):k]]
    after = [b[1] for b in bins[k:k + 10]]
    if len(before) < 10 or len(after) < 10:
        return None, None
    a1 = statistics.median(after)
    return abs(a1 - statistics.median(before)), a1


def step_at(bins, k):
    """The bin where a step first seen at bin k lies: of k and the nine
    bins after it, the one where the means of the ten bins on either side
    differ most. At the first bin that passes the threshold the ten bins
    after it still straddle the step (their median lies between the two
    levels: 38.9 for a step from 59.6 to 19.5), and the medians differ as
    much for several bins around the step; the means peak at it."""
    def jump(j):
        before, after = bins[max(0, j - 10):j], bins[j:j + 10]
        if len(before) < 10 or len(after) < 10:
            return -1.0
        return abs(sum(b[1] for b in after) - sum(b[1] for b in before))

    return max(range(k, min(k + 10, len(bins))), key=jump)


def step_tracking(est, bins, c, connect, srtt_s, of_c=False):
    """RTTs from each step of A until an estimate is within 10 % of the
    new level (@of_c: within 10 % of C, issue 32's target; a step to a
    low A, 20 % of C, is then followed when the estimate is within half
    of A, where 10 % of A asks for 2 % of C). A step: the medians of the
    100 ms bins in the second before and after a bin differ by more than
    10 % of C (the profile's steps are 20-40 %; single bins jitter with
    the cross sender's bursts), placed at the bin where they differ most
    (step_at); one step per 2 s, none in the last 2 s of BINS (the
    transfer's time: the cross traffic may end a moment before the
    transfer does)."""
    out, last = [], None
    end = bins[-1][0] if bins else 0
    for k, (t1, _) in enumerate(bins):
        if t1 < connect + 1 or (last is not None and t1 - last < 2.0) or \
                t1 > end - 2.0:
            continue
        d, _ = level_change(bins, k)
        if d is None or d < 0.1 * c:
            continue
        k = step_at(bins, k)
        t1, a1 = bins[k][0], level_change(bins, k)[1]
        last = t1
        tol = 0.1 * (c if of_c else a1)
        hit = next((e[0] for e in est if e[0] >= t1 and
                    abs(e[1] - a1) <= tol), None)
        out.append(None if hit is None else (hit - t1) / srtt_s)
    return out


def xfer_fields(path):
    try:
        return fields(open(path).read())
    except OSError:
        return {}


def sample_rows(path):
    """xfer -T's lines as lists of fields; none if there is no file."""
    try:
        return [line.split() for line in open(path) if line.strip()]
    except OSError:
        return []


def sample_points(path, column, t_from):
    """(t, Mbit/s) of the 100 ms samples of xfer -T (column 1:
    tcpi_delivery_rate, 2: the congestion control's own figure), from
    t_from on, skipping zeros (no figure yet)."""
    return [(float(v[0]), int(v[column]) / 1e6) for v in sample_rows(path)
            if len(v) >= 3 and float(v[0]) >= t_from and int(v[column])]


def sample_errors(path, bins, c, column, t_from):
    """|rate - A| / C for those samples (sample_points)."""
    return errors_at(sample_points(path, column, t_from), bins, c)


def held_results(est, times):
    """(t, Mbit/s) at each of @times: the estimate of the latest result
    of @est (tracepoint rows, t first, Mbit/s second) at or before t."""
    out, i = [], -1
    for t in times:
        while i + 1 < len(est) and est[i + 1][0] <= t:
            i += 1
        if i >= 0:
            out.append((t, est[i][1]))
    return out


def errors_at(pts, bins, c):
    """|x - A| / C for (t, Mbit/s) points."""
    return [abs(x - a) / c for t, x in pts
            if (a := truth_at(bins, t)) is not None]


def first_sample(path):
    try:
        return float(open(path).readline().split()[0])
    except (OSError, IndexError, ValueError):
        return 0.0


def throughput(path):
    """Throughput over time from xfer -T's samples: the bytes ACKed from
    one line to the next over the time between them, as (t_s since the
    run's first sample, Mbit/s); none from an older xfer's lines, which
    lack tcpi_bytes_acked."""
    out, prev, t0 = [], None, first_sample(path)
    for v in sample_rows(path):
        if len(v) < 4:
            continue
        t, acked = float(v[0]), int(v[3])
        if prev is not None and t > prev[0]:
            out.append((round(t - t0, 3),
                        (acked - prev[1]) * 8 / (t - prev[0]) / 1e6))
        prev = (t, acked)
    return out


def write_series(path, sources, truth=(), rates=()):
    """The 100 ms samples as t_s (since each run's first sample), source,
    mbps, for the plots; TRUTH, (t_s, mbps) rows of the truth; and
    @rates, (label, [(t_s, mbps)]) series already computed."""
    with open(path, "w") as f:
        out = csv.writer(f)
        out.writerow(["t_s", "source", "mbps"])
        out.writerows((round(t, 3), TRUTH, round(a, 3)) for t, a in truth)
        for label, pts in rates:
            out.writerows((t, label, round(x, 3)) for t, x in pts)
        for label, spath, col in sources:
            t0 = first_sample(spath)
            for v in sample_rows(spath):
                if len(v) >= 3 and int(v[col]):
                    out.writerow([round(float(v[0]) - t0, 3), label,
                                  int(v[col]) / 1e6])


def timer_figures(path):
    """timerlat's line (how late the guest's timers fired during a run) as
    numbers; {} if there is none."""
    out = {}
    for k, v in xfer_fields(path).items():
        try:
            out[k] = int(v)
        except ValueError:
            pass
    return out if out.get("wakeups") else {}


def host_figures(path):
    """The host's CPUs during a run (host_cpu_since in selftests/lib.sh):
    {"steal": %, "other": %} of all its CPUs' time; {} outside
    scripts/vm/run-vm.sh's VM."""
    try:
        with open(path) as f:
            line = f.read()
    except OSError:
        return {}
    out = {}
    for k, pat in (("steal", r"steal ([0-9.]+) %"),
                   ("other", r"other processes ([0-9.]+) %")):
        m = re.search(pat, line)
        if m:
            out[k] = float(m.group(1))
    return out


def med(v):
    return 100 * statistics.median(v) if v else None


def frame_delivery_ms(xfer_path, arrivals_path, less_bytes=0):
    """Each frame's delivery time in ms, from when it was due (xfer send's
    frame_t0_s plus its index times frame_ms) to the receiver's read of
    its last byte (xfer recv -L); frame j ends at byte
    floor((j + 1) x frame_bytes). With @less_bytes, to the read of all
    but its last @less_bytes. None without both files (a bulk run)."""
    f = xfer_fields(xfer_path)
    try:
        t0_s, fb = float(f["frame_t0_s"]), float(f["frame_bytes"])
        frame_s = float(f["frame_ms"]) / 1000
        reads = [line.split() for line in open(arrivals_path)]
    except (KeyError, ValueError, OSError):
        return None
    if less_bytes >= fb:
        return None
    out, j = [], 0
    for v in reads:
        if len(v) < 2:
            continue
        t_s, total = float(v[0]), int(v[1])
        while int((j + 1) * fb) - less_bytes <= total:
            out.append(1000 * (t_s - (t0_s + j * frame_s)))
            j += 1
    return out


# Frames due in a connection's first second leave in its slow start (and
# meet its first measurement), and in a 20 s run they are most often the
# few slowest (in every S4 run of v1/v2, 2026-11-29): the p99 of all
# frames is theirs. The p99 of the frames due from then on is the cost a
# sender pays while it runs.
SETTLED_MS = 1000


def settled_frames(ms, xfer_path):
    """The delivery times of @ms (frame_delivery_ms) of the frames due
    SETTLED_MS or more after the first one; None without them."""
    try:
        frame_ms = float(xfer_fields(xfer_path)["frame_ms"])
    except (KeyError, ValueError):
        return None
    if not ms or frame_ms <= 0:
        return None
    late = ms[math.ceil(SETTLED_MS / frame_ms):]
    return late or None


# A sender without TCP_NODELAY (S4's default) ends most frames with a
# segment shorter than MSS, and Nagle (Minshall's rule) keeps it back
# until the last such segment is ACKed: in g5's one-write S4 runs at 5
# Mbit/s and A = 50 and 80 % of C (2026-12-03) it came 1.9-14.8 ms after
# the rest of the frame at the median, reno's and imtcp's alike, in a
# phase each connection's history sets. The frame less its last
# MSS - 1 bytes, its "body", leaves that wait out: the cost of the
# module's own streams, which the p99 of whole frames mixes with the
# phase (with TCP_NODELAY the two are the same).
NAGLE_BYTES = MSS - 1


STEP_SCENARIOS = ("S1", "S6")


def step_figures(name, wf, c, srtt, own, t_bbr):
    """The steps of S1 and S6, to within 10 % of C (issue 32's target; keys
    PREFIXstep_c_rtts) and of the new A (PREFIXstep_rtts), for imtcp's
    figures in @own ({prefix: (points, truth bins, connect)}) and the
    kernel's own beside them: the same flow's tcpi_delivery_rate and a
    BBR flow's bandwidth over the same profile in its own run, its times
    moved onto imtcp's run (each
    profile starts with its transfer) and the steps found in imtcp's
    run's truth: in BBR's own the cross traffic loses datagrams to BBR's
    queue, and its truth shows steps the profile does not have. Every
    figure in RTTs of imtcp's srtt (the path's RTT). S6 runs S1's steps
    under an application-limited sender; other scenarios get none."""
    if name not in STEP_SCENARIOS:
        return {}
    _, bins, connect = own[""]
    t_dlv = first_sample(wf("imtcp.samples"))
    shift_s = t_dlv - t_bbr
    figs = dict(own)
    figs["dlv_"] = (sample_points(wf("imtcp.samples"), 1, t_dlv), bins,
                    connect)
    figs["bbr_"] = ([(t + shift_s, x) for t, x in
                     sample_points(wf("bbr.samples"), 2, t_bbr)],
                    bins, connect)
    out = {}
    for prefix, (pts, truth, t0) in figs.items():
        out[f"{prefix}step_c_rtts"] = step_tracking(pts, truth, c, t0, srtt,
                                                    of_c=True)
        out[f"{prefix}step_rtts"] = step_tracking(pts, truth, c, t0, srtt)
    return out


def scenario(name, c_frames, workdir, outdir):
    c = float(c_frames) * PAYLOAD	# errors are in % of this
    wf = lambda suffix: os.path.join(workdir, f"{name}.{suffix}")
    port = open(wf("imtcp.port")).read().strip()
    est, connect = read_trace(wf("imtcp.trace"), port)
    bins = read_truth(wf("imtcp.cross"), float(c_frames))
    goodput = float(xfer_fields(wf("imtcp.xfer")).get("goodput_mbps", "nan"))
    reno = float(xfer_fields(wf("reno.xfer")).get("goodput_mbps", "nan"))
    bbr_bins = read_truth(wf("bbr.cross"), float(c_frames))
    t_bbr = first_sample(wf("bbr.samples"))
    dlv = sample_errors(wf("imtcp.samples"), bins, c, 1,
                        first_sample(wf("imtcp.samples")))
    # what a reader sees: TCP_CC_INFO's estimate every 100 ms, held within
    # the busy-link bounds between results too
    pub_est = sample_points(wf("imtcp.samples"), 2,
                            first_sample(wf("imtcp.samples")))
    pub = errors_at(pub_est, bins, c)
    # the same instants, had only results moved it (the module before
    # 2026-11-26): the latest result's estimate
    last_est = held_results(est, [t for t, _ in pub_est])
    last = errors_at(last_est, bins, c)
    bbr = sample_errors(wf("bbr.samples"), bbr_bins, c, 2, t_bbr)
    connect = connect if connect is not None else (est[0][0] if est else 0)
    # the truth of the transfer's own time: steps and the median A
    secs = float(xfer_fields(wf("imtcp.xfer")).get("secs", "inf"))
    during = [b for b in bins if connect <= b[0] <= connect + secs]
    rows, errs, probe_errs, held = [], [], [], 0
    for t, bps, raw, _, busy, floor, edge, rse, how in est:
        a = truth_at(bins, t)
        rows.append((round(t - connect, 4), bps, raw, busy, floor, edge, rse,
                     a))
        # the busy-link bounds (core/imtcp_busy.c) moved the estimate or
        # the fit; traces of modules before the held field: as those
        # bounds work
        if how is None:
            held += (busy > 0 and raw > 1.25 * busy) or raw < 0.9 * floor
        else:
            held += how != 0
        if a is not None:
            errs.append(abs(bps - a) / c)
            probe_errs.append(abs(raw - a) / c)
    with open(os.path.join(outdir, f"accuracy-{name}.csv"), "w") as f:
        w = csv.writer(f)
        w.writerow(["t_s", "estimate_mbps", "raw_mbps", "busy_mbps",
                    "floor_mbps", "edge", "rse_permille", "truth_mbps"])
        w.writerows(rows)
    write_series(os.path.join(outdir, f"accuracy-{name}-series.csv"),
                 [("imtcp tcpi_delivery_rate", wf("imtcp.samples"), 1),
                  ("BBR bw (own run)", wf("bbr.samples"), 2)],
                 [(t - connect, a) for t, a in during],
                 [(IMTCP_TPUT, throughput(wf("imtcp.samples"))),
                  (RENO_TPUT, throughput(wf("reno.samples")))])
    srtt = statistics.median(e[3] for e in est) / 1e6 if est else 0.04
    dur = (est[-1][0] - connect) if est else 0
    step_figs = step_figures(name, wf, c, srtt,
                             {"": (est, during, connect),
                              "pub_": (pub_est, during, connect),
                              "last_": (last_est, during, connect)},
                             t_bbr)
    jit_med, jit_p90 = truth_jitter(during, c)
    frames = {cc: frame_delivery_ms(wf(f"{cc}.xfer"), wf(f"{cc}.arrivals"))
              for cc in ("imtcp", "reno")}
    bodies = {cc: frame_delivery_ms(wf(f"{cc}.xfer"), wf(f"{cc}.arrivals"),
                                    NAGLE_BYTES)
              for cc in ("imtcp", "reno")}
    res = {
        "name": name, "estimates": len(est),
        "median_err_pct_c": 100 * statistics.median(errs) if errs else None,
        "p90_err_pct_c": 100 * pct(errs, 0.9) if errs else None,
        "per_rtt": len(est) / (dur / srtt) if dur > 0 else None,
        "first_ms": 1000 * (est[0][0] - connect) if est else None,
        "first_rtt": (est[0][0] - connect) / srtt if est else None,
        "srtt_ms": 1000 * srtt, "goodput_mbps": goodput,
        "truth_median": (statistics.median(b[1] for b in during)
                         if during else None),
        "estimate_median": statistics.median(e[1] for e in est) if est else None,
        "pub_median_err_pct_c": med(pub),
        "pub_p90_err_pct_c": 100 * pct(pub, 0.9) if pub else None,
        "last_median_err_pct_c": med(last),
        "last_p90_err_pct_c": 100 * pct(last, 0.9) if last else None,
        "truth_jitter_median_pct_c": jit_med,
        "truth_jitter_p90_pct_c": jit_p90,
        "goodput_ratio": goodput / reno if reno > 0 else None,
        "probe_median_err_pct_c": med(probe_errs),
        "probe_p90_err_pct_c": (100 * pct(probe_errs, 0.9)
                                if probe_errs else None),
        "held_pct": 100 * held / len(est) if est else None,
        "dlv_median_err_pct_c": med(dlv),
        "dlv_p90_err_pct_c": 100 * pct(dlv, 0.9) if dlv else None,
        "bbr_median_err_pct_c": med(bbr),
        "bbr_p90_err_pct_c": 100 * pct(bbr, 0.9) if bbr else None,
        "dlv_median_mbps": statistics.median(
            int(v[1]) / 1e6 for v in sample_rows(wf("imtcp.samples"))
            if len(v) >= 3) if dlv else None,
    }
    res.update(step_figs)
    res.update(capacity_figures(read_caps(wf("imtcp.trace")), c, connect,
                                srtt, [x for _, x in sample_points(
                                    wf("bbr.samples"), 2, t_bbr)]))
    for cc, ms in frames.items():
        if ms:
            res[f"{cc}_frames"] = len(ms)
            res[f"{cc}_frame_p50_ms"] = statistics.median(ms)
            res[f"{cc}_frame_p99_ms"] = pct(ms, 0.99)
            late = settled_frames(ms, wf(f"{cc}.xfer"))
            if late:
                res[f"{cc}_frame_settled_p99_ms"] = pct(late, 0.99)
            late = settled_frames(bodies[cc], wf(f"{cc}.xfer"))
            if late:
                res[f"{cc}_frame_body_settled_p99_ms"] = pct(late, 0.99)
    for cc in ("imtcp", "bbr", "reno"):
        for k, v in timer_figures(wf(f"{cc}.timers")).items():
            res[f"{cc}_timer_{k}"] = v
        for k, v in host_figures(wf(f"{cc}.host")).items():
            res[f"{cc}_host_{k}_pct"] = v
    n, over, span_p90 = delay_jumps(wf("imtcp.trace"), c)
    if n:
        res.update(jump_streams=n, jump_over=over, jump_span_p90_ms=span_p90)
    with open(os.path.join(outdir, "accuracy.jsonl"), "a") as f:
        f.write(json.dumps(res) + "\n")
    print(json.dumps(res))


def timer_cell(r, cc):
    """One run's timer lateness for the table: p50 / p99 / max in ms, and
    the share of wakeups more than 1 ms late."""
    n = r.get(f"{cc}_timer_wakeups")
    if not n:
        return "-"
    ms = lambda k: r.get(f"{cc}_timer_late_{k}_us", 0) / 1000
    over = 100 * r.get(f"{cc}_timer_late_over_1ms", 0) / n
    host = ""
    if f"{cc}_host_steal_pct" in r:
        host = (f"; host steal {r[f'{cc}_host_steal_pct']:.0f} %, other "
                f"{r.get(f'{cc}_host_other_pct', 0):.0f} %")
    return (f"{ms('p50'):.2f} / {ms('p99'):.2f} / {ms('max'):.1f}, "
            f"{over:.1f} %{host}")


def timers_table(p, res):
    rows = [r for r in res if r.get("jump_streams") or any(
        r.get(f"{cc}_timer_wakeups") for cc in ("imtcp", "bbr", "reno"))]
    if not rows:
        return
    p()
    p("The guest's timers during each run (selftests/timerlat.c: a "
      "process woken every 2 ms, beside the transfer): how late it woke, "
      "p50 / p99 / max ms, and the share of wakeups more than 1 ms late. "
      "Late timers (the emulated CPU not running) burst the pacing and "
      "delay netem's and tbf's releases, and the streams' ACK delays then "
      "jump by milliseconds no queue made: a run whose imtcp column reads "
      "late measured a path less faithful than the path check's. "
      "Inside scripts/vm/run-vm.sh's VM each cell also gives what the "
      "host's CPUs did meanwhile, in % of their time: steal (the host's "
      "own hypervisor ran someone else) and other processes than QEMU; "
      "the emulation runs only on the CPU QEMU gets. "
      "Beside them, from the samples and streams traced in imtcp's run, "
      "imtcp's streams whose ACK delays spread wider than their own "
      f"segments could queue at C plus {JUMP_MARGIN_MS:.0f} ms, and the "
      "spread's p90 (telling where the load is light: near C the cross "
      "traffic queues too; what these figures read in good and bad runs: "
      "Documentation/benchmarks.rst, \"The guest's timers beside every "
      "transfer\").")
    p()
    p("| scenario | imtcp's run | BBR's run | reno's run "
      "| imtcp's streams beyond their own queue, spread p90 |")
    p("|---|---|---|---|---|")
    for r in rows:
        jumps = "-"
        if r.get("jump_streams"):
            jumps = (f"{r['jump_over']} of {r['jump_streams']} "
                     f"({100 * r['jump_over'] / r['jump_streams']:.0f} %), "
                     f"{fmt(r.get('jump_span_p90_ms'))} ms")
        p(f"| {r['name']} | {timer_cell(r, 'imtcp')} "
          f"| {timer_cell(r, 'bbr')} | {timer_cell(r, 'reno')} | {jumps} |")


def fmt(x, f="{:.1f}"):
    return "-" if x is None else f.format(x)


def together(name, workdir, outdir):
    flows = []
    for f in sorted(os.listdir(workdir)):
        if f.startswith(name + ".") and f.endswith(".xfer"):
            kv = xfer_fields(os.path.join(workdir, f))
            flows.append((kv.get("cc", "?"), float(kv["goodput_mbps"])))
    g = [x[1] for x in flows]
    res = {"name": name, "kind": re.sub(r"-r[0-9]+$", "", name),
           "flows": flows,
           "jain": sum(g) ** 2 / (len(g) * sum(x * x for x in g)) if g else None}
    by = {}
    for cc, x in flows:
        by.setdefault(cc, []).append(x)
    if "imtcp" in by and "reno" in by:
        res["share"] = sum(by["imtcp"]) / sum(by["reno"])
        res["share_of"] = [sum(by["imtcp"]), sum(by["reno"])]
    elif len(by) == 1 and len(g) == 2 and g[1] > 0:
        # the same congestion control twice: the first flow's over the
        # second's, the baseline for the share above
        res["share"] = g[0] / g[1]
        res["share_of"] = g
    with open(os.path.join(outdir, "together.jsonl"), "a") as f:
        f.write(json.dumps(res) + "\n")
    print(json.dumps(res))


def summarise(kind, ts):
    """Runs @ts of one kind: the median Jain index and its range, the
    share summed over the runs that have one and its per-run range."""
    jain = [t["jain"] for t in ts if t["jain"] is not None]
    sh = [t for t in ts if "share_of" in t]
    den = sum(t["share_of"][1] for t in sh)
    return {
        "kind": kind, "runs": len(ts),
        "jain_median": statistics.median(jain) if jain else None,
        "jain_range": (min(jain), max(jain)) if jain else None,
        "share_summed": (sum(t["share_of"][0] for t in sh) / den
                         if sh and den > 0 else None),
        "share_range": ((min(t["share"] for t in sh),
                         max(t["share"] for t in sh)) if sh else None),
    }


def together_summary(rows):
    """Per kind over its repetitions, and imtcp with reno over both
    start orders."""
    kinds = {}
    for t in rows:
        kinds.setdefault(t.get("kind", t["name"]), []).append(t)
    out = [summarise(kind, ts) for kind, ts in kinds.items()]
    both = [t for t in rows if "share_of" in t and
            {cc for cc, _ in t["flows"]} == {"imtcp", "reno"}]
    if len({t.get("kind", t["name"]) for t in both}) > 1:
        out.append(summarise("imtcp/reno, both orders", both))
    return out


def plot_throughput(ax, series, c):
    """The lower panel: imtcp's throughput and reno's (its own run over
    the same cross-traffic profile) per 100 ms, against the truth."""
    for label, color in ((IMTCP_TPUT, "C3"), (RENO_TPUT, "C0")):
        pts = [x for x in series if x["source"] == label]
        ax.plot([float(x["t_s"]) for x in pts],
                [float(x["mbps"]) for x in pts], lw=0.8, color=color,
                label=label if pts else label + ": no samples")
    ax.set_ylim(0, 1.5 * c)
    ax.set_xlabel("time since connect (s)")
    ax.set_ylabel("Mbit/s")
    ax.set_title("throughput per 100 ms: imtcp and reno")
    ax.legend(loc="upper right")


def fmt_steps(steps):
    """RTTs to each step, "never" where none came."""
    return " ".join(fmt(x) if x is not None else "never"
                    for x in steps or [])


STEP_FIGURES = (
    ("", "imtcp's estimate, at each result"),
    ("pub_", "imtcp's estimate as TCP_CC_INFO shows it, every 100 ms"),
    ("dlv_", "the same flow's tcpi_delivery_rate, every 100 ms"),
    ("bbr_", "BBR's bandwidth, every 100 ms, in its own run"),
)


def steps_table(p, runs):
    """The steps of S1 and S6, RTTs to each, for imtcp's figures and the
    kernel's; "-" where a run's results predate a figure."""
    for r in runs:
        p()
        p(f"{r['name']}'s steps of A, RTTs until the figure is within 10 % "
          "of C of the new A (issue 32's target: 10 RTT or less, at every "
          "step) and within 10 % of the new A itself:")
        p()
        p("| figure | to within 10 % of C | to within 10 % of A |")
        p("|---|---|---|")
        for prefix, label in STEP_FIGURES:
            c_steps = r.get(f"{prefix}step_c_rtts")
            a_steps = r.get(f"{prefix}step_rtts")
            p(f"| {label} | "
              f"{'-' if c_steps is None else fmt_steps(c_steps)} | "
              f"{'-' if a_steps is None else fmt_steps(a_steps)} |")


def table(outdir, c):
    apath = os.path.join(outdir, "accuracy.jsonl")
    res = [json.loads(l) for l in open(apath)] if os.path.exists(apath) else []
    out = open(os.path.join(outdir, "accuracy.md"), "w")

    def p(s=""):
        print(s)
        out.write(s + "\n")
    p(f"## imtcp estimate accuracy (C = {c} Mbit/s, 20 ms each way)")
    p()
    p(f"A and C in TCP payload: {c} Mbit/s of frames carry "
      f"{float(c) * PAYLOAD:.1f} Mbit/s of {MSS}-byte segments (MTU {MTU}); "
      f"the truth is A(t) = (C - cross(t)) x {MSS}/{FRAME}, cross counted "
      f"in frames at the router.")
    params = os.environ.get("BENCH_IMTCP_PARAMS", "").strip()
    p()
    # accuracy.sh exports these
    burst = os.environ.get("SHAPE_BURST", "?")
    cross = os.environ.get("CROSS_BYTES", "?")
    frame = os.environ.get("S4_FRAME", "?")
    p(f"Module parameters: {params if params else 'defaults'}; tbf bucket "
      f"{burst} bytes; cross-traffic datagrams of {cross} bytes; S4 writes "
      f"a frame every {frame} ms (S4 alone: 5 Mbit/s, A = 40 % of C, one "
      f"write per frame; S4-<Mbit/s>M-A<% of C>[-w<bytes per write>] as "
      f"named).")
    p()
    ppath = os.path.join(outdir, "path.txt")
    if os.path.exists(ppath):
        verdict = os.environ.get("PATH_VERDICT", "?")
        p(f"Path check (scripts/bench/path.sh, run first): {verdict}.")
        p()
        p("```")
        for line in open(ppath):
            p(line.rstrip("\n"))
        p("```")
        p()
    p("A scenario marked unfaithful measured a path less faithful than "
      "the path check's: more than "
      f"{100 * JUMP_SHARE_MAX:.0f} % of imtcp's streams saw their ACK "
      "delays jump beyond their own queue, or more than "
      f"{100 * LATE_SHARE_MAX:.0f} % of the timer wakeups beside its "
      "transfer came over 1 ms late, or the host's own hypervisor took "
      f"more than {STEAL_PCT_MAX} % of the host's CPU time meanwhile "
      "(steal; the table of the guest's timers below); its figures are "
      "the emulation's as much as imtcp's. A goodput ratio marked * "
      "compares runs of which one (imtcp's or reno's) had that much "
      "steal.")
    p()
    p("Errors are |figure - A| / C: imtcp's estimate (imtcp_estimate "
      "tracepoint), the same flow's tcpi_delivery_rate (every 100 ms), and "
      "a BBR flow's bandwidth estimate (TCP_CC_INFO, every 100 ms) in its "
      "own run over the same profile; each against the truth of its run. "
      "Goodput ratio: imtcp over a reno flow's in a third run. Probe: "
      "each measurement's own result before the busy-link bounds (the "
      "tracepoint's raw, netlink's probe), and how many results those "
      "bounds moved (held).")
    p()
    p("| scenario | A truth median | estimate median | median abs err (% of C) "
      "| p90 abs err (% of C) | estimates per RTT | first estimate ms (RTTs) "
      "| delivery_rate median (err median / p90 % of C) "
      "| BBR bw err median / p90 (% of C) | goodput Mbit/s (ratio to reno) "
      "| probe err median / p90 (% of C), held |")
    p("|---|---|---|---|---|---|---|---|---|---|---|")
    for r in res:
        why = unfaithful(r)
        name = f"{r['name']} (unfaithful: {why})" if why else r["name"]
        p(f"| {name} | {fmt(r['truth_median'])} | {fmt(r['estimate_median'])} "
          f"| {fmt(r['median_err_pct_c'])} | {fmt(r['p90_err_pct_c'])} "
          f"| {fmt(r['per_rtt'], '{:.2f}')} | {fmt(r['first_ms'], '{:.0f}')} "
          f"({fmt(r['first_rtt'])}) | {fmt(r.get('dlv_median_mbps'))} "
          f"({fmt(r.get('dlv_median_err_pct_c'))} / {fmt(r.get('dlv_p90_err_pct_c'))}) "
          f"| {fmt(r.get('bbr_median_err_pct_c'))} / {fmt(r.get('bbr_p90_err_pct_c'))} "
          f"| {fmt(r['goodput_mbps'])} ({fmt(r.get('goodput_ratio'), '{:.3f}')}"
          f"{'*' if ratio_stolen(r) else ''}) "
          f"| {fmt(r.get('probe_median_err_pct_c'))} / "
          f"{fmt(r.get('probe_p90_err_pct_c'))}, "
          f"{fmt(r.get('held_pct'), '{:.0f}')} % |")
    steps_table(p, [r for r in res if r.get("step_rtts")])
    caps = [r for r in res if "cap_estimates" in r]
    if caps:
        p()
        p(f"The path's capacity, estimated alongside A: the figure each "
          f"estimate came with (once three measurements gave one), against "
          f"C = {float(c) * PAYLOAD:.1f} Mbit/s of payload; beside it BBR's "
          f"bandwidth estimate in its own run (the kernel's nearest figure: "
          f"its own delivery rate's maximum, C only where it fills the link).")
        p()
        p("| scenario | estimates with a capacity | capacity median (Mbit/s) "
          "| err median / p90 (% of C) | first (RTTs) "
          "| BBR bw median (Mbit/s), err median (% of C) |")
        p("|---|---|---|---|---|---|")
        for r in caps:
            p(f"| {r['name']} | {r['cap_estimates']} of {r['estimates']} "
              f"| {fmt(r.get('cap_median_mbps'))} "
              f"| {fmt(r.get('cap_median_err_pct_c'))} / "
              f"{fmt(r.get('cap_p90_err_pct_c'))} "
              f"| {fmt(r.get('cap_first_rtt'))} "
              f"| {fmt(r.get('bbr_bw_median_mbps'))}, "
              f"{fmt(r.get('bbr_bw_cap_err_pct_c'))} |")
    pubs = [r for r in res if r.get("pub_median_err_pct_c") is not None]
    if pubs:
        p()
        p("What a reader sees between results: imtcp's estimate as "
          "TCP_CC_INFO gives it, every 100 ms (held under the busy-link "
          "cap at each ACK), error median / p90 % of C, and S1's and S6's "
          "steps in RTTs to within 10 % of the new A on those samples.")
        p()
        p("| scenario | published err median / p90 | steps (RTTs) "
          "| latest result's estimate at the same instants | steps (RTTs) |")
        p("|---|---|---|---|---|")
        for r in pubs:
            p(f"| {r['name']} | {fmt(r['pub_median_err_pct_c'])} / "
              f"{fmt(r.get('pub_p90_err_pct_c'))} "
              f"| {fmt_steps(r.get('pub_step_rtts'))} "
              f"| {fmt(r.get('last_median_err_pct_c'))} / "
              f"{fmt(r.get('last_p90_err_pct_c'))} "
              f"| {fmt_steps(r.get('last_step_rtts'))} |")
    media = [r for r in res if r.get("imtcp_frame_p50_ms") is not None]
    if media:
        p()
        p("Frame delivery (application-limited senders): from when a frame "
          "was due to the receiver's read of its last byte, ms, imtcp's "
          "beside reno's in its own run over the same profile.")
        p()
        p("The p99 from 1 s on leaves out the frames due in the first "
          "second (the connection's slow start and first measurement), "
          "which in a 20 s run are most often the p99 of all frames. "
          "Less the last segment: each frame up to its last "
          f"{NAGLE_BYTES} bytes, leaving out the wait Nagle puts on a "
          "last segment shorter than MSS (a sender without TCP_NODELAY): "
          "what imtcp's streams cost the frames.")
        p()
        p("| scenario | frames imtcp / reno | p50 imtcp / reno (ms) "
          "| p99 imtcp / reno (ms) | p99 ratio "
          "| p99 from 1 s on imtcp / reno (ms) | ratio "
          "| less the last segment imtcp / reno (ms) | ratio |")
        p("|---|---|---|---|---|---|---|---|---|")
        for r in media:
            rp99 = r.get("reno_frame_p99_ms")
            ratio = r["imtcp_frame_p99_ms"] / rp99 if rp99 else None
            ip99s = r.get("imtcp_frame_settled_p99_ms")
            rp99s = r.get("reno_frame_settled_p99_ms")
            ratio_s = ip99s / rp99s if ip99s and rp99s else None
            ib = r.get("imtcp_frame_body_settled_p99_ms")
            rb = r.get("reno_frame_body_settled_p99_ms")
            ratio_b = ib / rb if ib and rb else None
            p(f"| {r['name']} | {r.get('imtcp_frames')} / "
              f"{r.get('reno_frames')} | {fmt(r['imtcp_frame_p50_ms'])} / "
              f"{fmt(r.get('reno_frame_p50_ms'))} "
              f"| {fmt(r['imtcp_frame_p99_ms'])} / {fmt(rp99)} "
              f"| {fmt(ratio, '{:.2f}')} "
              f"| {fmt(ip99s)} / {fmt(rp99s)} | {fmt(ratio_s, '{:.2f}')} "
              f"| {fmt(ib)} / {fmt(rb)} | {fmt(ratio_b, '{:.2f}')} |")
    timers_table(p, res)
    p()
    p("The truth's own jitter, |A of a 100 ms bin - the median A of the "
      "1.1 s around it| (% of C, median / p90; an estimate that followed A "
      "over a second would be this far off): "
      + ", ".join(f"{r['name']} {fmt(r.get('truth_jitter_median_pct_c'))} / "
                  f"{fmt(r.get('truth_jitter_p90_pct_c'))}" for r in res)
      + ".")
    tpath = os.path.join(outdir, "together.jsonl")
    if os.path.exists(tpath):
        rows = [json.loads(l) for l in open(tpath)]
        p()
        p("Flows together, no cross traffic, each run on its own. Share: "
          "imtcp's goodput over reno's; for two flows of one congestion "
          "control, the first's over the second's (how far apart two "
          "equal flows land). Summed: over all runs of a kind.")
        p()
        p("| flows together | runs | Jain's index median (range) "
          "| share, summed over runs (per-run range) |")
        p("|---|---|---|---|")
        rng = lambda r: "-" if r is None else f"{r[0]:.3f}-{r[1]:.3f}"
        for t in together_summary(rows):
            p(f"| {t['kind']} | {t['runs']} | {fmt(t['jain_median'], '{:.3f}')} "
              f"({rng(t['jain_range'])}) | {fmt(t['share_summed'], '{:.3f}')} "
              f"({rng(t['share_range'])}) |")
        p()
        p("| run | goodputs Mbit/s | Jain's index | share |")
        p("|---|---|---|---|")
        for t in rows:
            p(f"| {t['name']} | " + " ".join(f"{cc} {x:.2f}" for cc, x in t["flows"])
              + f" | {fmt(t['jain'], '{:.3f}')} | {fmt(t.get('share'), '{:.3f}')} |")
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        p()
        p("(no plots: python3-matplotlib is not installed)")
        return
    for r in res:
        rows = list(csv.DictReader(open(os.path.join(
            outdir, f"accuracy-{r['name']}.csv"))))
        t = [float(x["t_s"]) for x in rows]
        fig, (ax, ax2) = plt.subplots(2, 1, figsize=(8, 6), sharex=True)
        spath = os.path.join(outdir, f"accuracy-{r['name']}-series.csv")
        series = list(csv.DictReader(open(spath))) if os.path.exists(spath) else []
        # the truth's 100 ms bins; older series files have only the
        # truth at each estimate
        truth = [x for x in series if x["source"] == TRUTH]
        if truth:
            for a in (ax, ax2):
                a.plot([float(x["t_s"]) for x in truth],
                       [float(x["mbps"]) for x in truth], label=TRUTH,
                       color="black", lw=1.2)
        else:
            ax.plot(t, [float(x["truth_mbps"] or "nan") for x in rows],
                    label=TRUTH, color="black", lw=1.5)
        for label, style in (("imtcp tcpi_delivery_rate", "-"),
                             ("BBR bw (own run)", "-")):
            pts = [x for x in series if x["source"] == label]
            if pts:
                ax.plot([float(x["t_s"]) for x in pts],
                        [float(x["mbps"]) for x in pts], style, lw=0.8,
                        alpha=0.7, label=label)
        ax.plot(t, [float(x["estimate_mbps"]) for x in rows], "o",
                label="imtcp estimate", ms=3, color="C3")
        ax.set_ylim(0, 2 * float(c))
        ax.set_ylabel("Mbit/s")
        ax.set_title(f"imtcp, scenario {r['name']}")
        ax.legend(loc="upper right")
        plot_throughput(ax2, series, float(c))
        fig.tight_layout()
        fig.savefig(os.path.join(outdir, f"accuracy-{r['name']}.png"), dpi=100)
        plt.close(fig)


if __name__ == "__main__":
    a = sys.argv
    if len(a) == 6 and a[1] == "scenario":
        scenario(*a[2:])
    elif len(a) == 5 and a[1] == "together":
        together(*a[2:])
    elif len(a) == 4 and a[1] == "table":
        table(a[2], a[3])
    else:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
