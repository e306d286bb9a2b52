#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Unit tests of the accuracy benchmark's analysis (scripts/bench/
accuracy.py) on synthetic truth and estimates; TAP output like the
kselftest harness's, for scripts/test-all.sh to count."""
import contextlib
import io
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "scripts", "bench"))
import accuracy  # noqa: E402

C = 99.3
SRTT = 0.05


def profile(levels, secs=10.0, jitter=1.0, seed=1):
    """100 ms truth bins through LEVELS (Mbit/s), SECS each, with noise."""
    rnd = random.Random(seed)
    bins, t = [], 0.0
    for a in levels:
        for _ in range(int(secs * 10)):
            bins.append((round(t, 3), a + rnd.uniform(-jitter, jitter)))
            t += 0.1
    return bins


class StepTracking(unittest.TestCase):
    def test_step_is_placed_where_the_level_changes(self):
        bins = profile([60, 20])
        est = [(10.6, 20.5)]
        steps = accuracy.step_tracking(est, bins, C, 0.0, SRTT)
        self.assertEqual(len(steps), 1)
        # from the step at 10.0 s, not from the first bin that passes
        # the threshold (9.5 s)
        self.assertAlmostEqual(steps[0], 0.6 / SRTT, delta=0.11 / SRTT)

    def test_estimate_between_the_levels_is_no_hit(self):
        # 38 lies within 10 % of the median of ten bins that straddle the
        # step (five at 60, five at 20), not of the new level
        bins = profile([60, 20])
        est = [(10.2, 38.0), (11.5, 21.0)]
        steps = accuracy.step_tracking(est, bins, C, 0.0, SRTT)
        self.assertAlmostEqual(steps[0], 1.5 / SRTT, delta=0.11 / SRTT)

    def test_no_hit_is_none(self):
        bins = profile([20, 60])
        est = [(10.5, 30.0), (12.0, 45.0)]
        self.assertEqual(accuracy.step_tracking(est, bins, C, 0.0, SRTT),
                         [None])

    def test_every_step_of_the_s1_profile(self):
        bins = profile([60, 40, 60, 20, 60])
        est = [(10.3, 40.0), (20.3, 60.0), (30.3, 20.0), (40.3, 60.0)]
        steps = accuracy.step_tracking(est, bins, C, 0.0, SRTT)
        self.assertEqual(len(steps), 4)
        for s in steps:
            self.assertAlmostEqual(s, 0.3 / SRTT, delta=0.11 / SRTT)

    def test_within_a_tenth_of_c_or_of_a(self):
        # a fall to 20: 28 is within 10 % of C (9.9) but not of A (2.0)
        bins = profile([60, 20])
        est = [(10.5, 28.0), (12.0, 21.5)]
        of_a = accuracy.step_tracking(est, bins, C, 0.0, SRTT)
        of_c = accuracy.step_tracking(est, bins, C, 0.0, SRTT, of_c=True)
        self.assertAlmostEqual(of_a[0], 2.0 / SRTT, delta=0.11 / SRTT)
        self.assertAlmostEqual(of_c[0], 0.5 / SRTT, delta=0.11 / SRTT)

    def test_jitter_alone_is_no_step(self):
        bins = profile([40, 40], jitter=4.0)
        self.assertEqual(accuracy.step_tracking([], bins, C, 0.0, SRTT), [])


class StepScenarios(unittest.TestCase):
    """S1 and S6 (S1's steps under an application-limited sender) get
    step figures, imtcp's and the kernel's; other scenarios none."""

    def files(self, dlv_mbit, bbr_mbit):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        d = tmp.name
        for name, mbit in (("imtcp", dlv_mbit), ("bbr", bbr_mbit)):
            with open(os.path.join(d, f"S.{name}.samples"), "w") as f:
                for i in range(200):
                    rate_bps = int(mbit(i / 10) * 1e6)
                    f.write(f"{i / 10:.1f} {rate_bps} {rate_bps} "
                            f"{i * 1000}\n")
        return lambda suffix: os.path.join(d, f"S.{suffix}")

    def test_s6_is_scored_as_s1(self):
        bins = profile([60, 20])
        est = [(10.3, 21.0)]
        # the delivery rate of a 5 Mbit/s sender stays its own rate;
        # BBR's follows A
        wf = self.files(lambda t: 5.0, lambda t: 60.0 if t < 10.5 else 20.0)
        own = {"": (est, bins, 0.0), "pub_": (est, bins, 0.0),
               "last_": (est, bins, 0.0)}
        got = accuracy.step_figures("S6", wf, C, SRTT, own, 0.0)
        self.assertAlmostEqual(got["step_c_rtts"][0], 0.3 / SRTT,
                               delta=0.11 / SRTT)
        self.assertEqual(got["dlv_step_c_rtts"], [None])
        self.assertAlmostEqual(got["bbr_step_c_rtts"][0], 0.5 / SRTT,
                               delta=0.11 / SRTT)
        self.assertEqual(
            accuracy.step_figures("S1", wf, C, SRTT, own, 0.0), got)
        self.assertEqual(
            accuracy.step_figures("S4", wf, C, SRTT, own, 0.0), {})


class HeldResults(unittest.TestCase):
    def test_each_instant_gets_the_latest_result_before_it(self):
        est = [(1.0, 50.0), (2.0, 30.0), (2.05, 20.0)]
        pts = accuracy.held_results(est, [0.5, 1.0, 1.9, 2.1, 9.0])
        # none before the first result; at a result's own instant, it
        self.assertEqual(pts, [(1.0, 50.0), (1.9, 50.0), (2.1, 20.0),
                               (9.0, 20.0)])

    def test_errors_at_the_truth_of_each_instant(self):
        bins = profile([60, 20], secs=1.0, jitter=0.0)
        errs = accuracy.errors_at([(0.5, 66.0), (1.5, 20.0)], bins, 100.0)
        self.assertEqual([round(e, 3) for e in errs], [0.06, 0.0])


class GuestTimers(unittest.TestCase):
    LINE = ("wakeups=4000 interval_us=2000 late_p50_us=140 late_p90_us=300 "
            "late_p99_us=2600 late_max_us=17100 late_over_1ms=80\n")

    def write(self, text):
        f = tempfile.NamedTemporaryFile("w", suffix=".timers", delete=False)
        f.write(text)
        f.close()
        self.addCleanup(os.unlink, f.name)
        return f.name

    def test_the_line_as_numbers(self):
        t = accuracy.timer_figures(self.write(self.LINE))
        self.assertEqual(t["wakeups"], 4000)
        self.assertEqual(t["late_p99_us"], 2600)
        self.assertEqual(t["late_over_1ms"], 80)

    def test_no_file_or_no_wakeups_is_nothing(self):
        self.assertEqual(accuracy.timer_figures("/nonexistent.timers"), {})
        self.assertEqual(accuracy.timer_figures(self.write("wakeups=0\n")),
                         {})

    def test_the_table_cell(self):
        r = {f"imtcp_timer_{k}": v for k, v in accuracy.timer_figures(
            self.write(self.LINE)).items()}
        self.assertEqual(accuracy.timer_cell(r, "imtcp"),
                         "0.14 / 2.60 / 17.1, 2.0 %")
        self.assertEqual(accuracy.timer_cell(r, "reno"), "-")

    def test_the_table_only_where_a_run_was_timed(self):
        lines = []
        out = lambda s="": lines.append(s)  # noqa: E731 (table's p)
        accuracy.timers_table(out, [{"name": "S1"}])
        self.assertEqual(lines, [])
        accuracy.timers_table(out, [
            {"name": "S1"}, {"name": "S4", "reno_timer_wakeups": 10,
                             "reno_timer_late_p50_us": 100}])
        self.assertIn("| S4 | - | - | 0.10 / 0.00 / 0.0, 0.0 % | - |", lines)
        lines.clear()
        accuracy.timers_table(out, [{"name": "S6", "jump_streams": 40,
                                     "jump_over": 4, "jump_span_p90_ms": 8.2}])
        self.assertIn("| S6 | - | - | - | 4 of 40 (10 %), 8.2 ms |", lines)
        self.assertFalse(any(line.startswith("| S1 ") for line in lines))


class DelayJumps(unittest.TestCase):
    def trace(self, streams):
        """A trace of imtcp_sample and imtcp_stream lines: STREAMS is a
        list of (stream, segs, delays in ms)."""
        lines, t = [], 100.0
        for i, segs, delays in streams:
            for j, d in enumerate(delays):
                t += 0.001
                lines.append(f"  x-1 [000] ..s1. {t:.6f}: imtcp_sample: "
                             f"cookie=7 stream={i} seg={j} tx_us=1 "
                             f"delay_us={int(d * 1000)}")
            t += 0.001
            lines.append(f"  x-1 [000] ..s1. {t:.6f}: imtcp_stream: cookie=7 "
                         f"stream={i} rate=1-2 segs={segs} mss=1448 "
                         f"samples={len(delays)} outcome=flat "
                         f"min_rtt_us=40000 carried=0")
        f = tempfile.NamedTemporaryFile("w", suffix=".trace", delete=False)
        f.write("\n".join(lines) + "\n")
        f.close()
        self.addCleanup(os.unlink, f.name)
        return f.name

    def test_a_spread_beyond_the_streams_own_queue_counts(self):
        # 16 segments of 1448 bytes at 28.7 Mbit/s queue 6.46 ms at most
        path = self.trace([(0, 16, [40, 41, 46]),      # 6 ms: within
                           (1, 16, [40, 48.0, 41]),    # 8 ms: within + 2
                           (0, 16, [40, 50, 57]),      # 17 ms: beyond
                           (1, 16, [40, 60])])         # two samples: none
        n, over, p90 = accuracy.delay_jumps(path, 28.7)
        self.assertEqual((n, over), (3, 1))
        self.assertAlmostEqual(p90, 17.0, places=3)

    def test_a_trace_without_samples_says_nothing(self):
        path = self.trace([])
        self.assertEqual(accuracy.delay_jumps(path, 28.7), (0, 0, None))


class Unfaithful(unittest.TestCase):
    def test_the_bounds_are_the_selftests_bounds(self):
        # one file for both: what bash sources is what accuracy.py reads
        out = subprocess.run(
            ["bash", "-c", 'source "$1"; echo "$FAITHFUL_JUMP_PCT '
             '$FAITHFUL_LATE_PCT"', "-", accuracy.FAITHFUL_ENV],
            capture_output=True, text=True, check=True).stdout.split()
        self.assertEqual([int(x) for x in out],
                         [round(100 * accuracy.JUMP_SHARE_MAX),
                          round(100 * accuracy.LATE_SHARE_MAX)])
        self.assertEqual(out, ["10", "15"])

    def test_bounds_parse_names_and_skip_comments(self):
        d = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, d)
        path = os.path.join(d, "f.env")
        with open(path, "w") as f:
            f.write("# a comment\n\nFAITHFUL_JUMP_PCT=7\nFAITHFUL_LATE_PCT=20\n")
        self.assertEqual(accuracy.faithful_bounds(path),
                         {"FAITHFUL_JUMP_PCT": 7, "FAITHFUL_LATE_PCT": 20})

    def test_a_run_within_both_bounds_is_not_flagged(self):
        r = {"jump_streams": 100, "jump_over": 10,
             "imtcp_timer_wakeups": 1000, "imtcp_timer_late_over_1ms": 150}
        self.assertEqual(accuracy.unfaithful(r), "")

    def test_jumps_and_timers_each_flag_a_run(self):
        self.assertEqual(accuracy.unfaithful(
            {"jump_streams": 100, "jump_over": 11}), "jumps 11 %")
        self.assertEqual(accuracy.unfaithful(
            {"imtcp_timer_wakeups": 1000, "imtcp_timer_late_over_1ms": 220}),
            "timers 22 %")
        self.assertEqual(accuracy.unfaithful(
            {"jump_streams": 50, "jump_over": 13, "imtcp_timer_wakeups": 100,
             "imtcp_timer_late_over_1ms": 39}), "jumps 26 %, timers 39 %")

    def test_a_run_without_the_figures_is_not_flagged(self):
        # BBR's and reno's timers do not count: their runs are not imtcp's
        self.assertEqual(accuracy.unfaithful(
            {"name": "S1", "reno_timer_wakeups": 10,
             "reno_timer_late_over_1ms": 10}), "")

    def test_the_table_marks_the_flagged_scenario(self):
        d = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, d)
        base = {"truth_median": 20.0, "estimate_median": 21.0,
                "median_err_pct_c": 3.0, "p90_err_pct_c": 9.0,
                "per_rtt": 0.5, "first_ms": 200, "first_rtt": 5.0,
                "goodput_mbps": 20.0}
        with open(os.path.join(d, "accuracy.jsonl"), "w") as f:
            f.write(json.dumps(dict(base, name="S1")) + "\n")
            f.write(json.dumps(dict(base, name="S2", jump_streams=20,
                                    jump_over=5)) + "\n")
        with contextlib.redirect_stdout(io.StringIO()):
            accuracy.table(d, 30)
        md = open(os.path.join(d, "accuracy.md")).read()
        self.assertIn("| S1 |", md)
        self.assertIn("| S2 (unfaithful: jumps 25 %) |", md)


class TruthJitter(unittest.TestCase):
    def test_a_steady_truth_does_not_jitter(self):
        bins = [(0.1 * k, 40.0) for k in range(30)]
        self.assertEqual(accuracy.truth_jitter(bins, 100.0), (0.0, 0.0))

    def test_every_third_bin_off_a_level(self):
        bins = [(0.1 * k, 40.0 + (4 if k % 3 == 2 else 0)) for k in range(30)]
        med, p90 = accuracy.truth_jitter(bins, 50.0)
        self.assertEqual(med, 0.0)
        self.assertAlmostEqual(p90, 8.0)  # 4 of C = 50

    def test_a_step_is_not_jitter(self):
        bins = [(0.1 * k, 60.0 if k < 15 else 20.0) for k in range(30)]
        self.assertEqual(accuracy.truth_jitter(bins, 100.0)[0], 0.0)

    def test_too_few_bins(self):
        self.assertEqual(accuracy.truth_jitter([(0, 1.0)] * 5, 100.0),
                         (None, None))


class Throughput(unittest.TestCase):
    def samples(self, lines):
        f = tempfile.NamedTemporaryFile("w", suffix=".samples", delete=False)
        f.write("".join(line + "\n" for line in lines))
        f.close()
        self.addCleanup(os.unlink, f.name)
        return f.name

    def test_bytes_acked_between_lines_over_their_time(self):
        # 12.5 MB/s = 100 Mbit/s for 0.1 s, then 25 Mbit/s for 0.2 s
        path = self.samples(["5.0 0 0 1000", "5.1 0 0 1251000",
                             "5.3 0 0 1876000"])
        got = accuracy.throughput(path)
        self.assertEqual([t for t, _ in got], [0.1, 0.3])
        self.assertAlmostEqual(got[0][1], 100.0)
        self.assertAlmostEqual(got[1][1], 25.0)

    def test_lines_of_an_older_xfer_give_none(self):
        path = self.samples(["5.0 100 0", "5.1 100 0"])
        self.assertEqual(accuracy.throughput(path), [])
        self.assertEqual(accuracy.throughput(path + ".missing"), [])


class Trace(unittest.TestCase):
    EST = ("          <idle>-0       [000] ..s2.    {t}: imtcp_estimate: "
           "cookie=5 bps=20000000 raw={raw} {busy}range=1-2 edge=0 "
           "srtt_us=60000 cwnd=14 m=10 count=1 rse=0\n")

    def test_the_fit_and_the_busy_rates_of_each_estimate(self):
        f = tempfile.NamedTemporaryFile("w", suffix=".trace", delete=False)
        f.write(self.EST.format(t="10.000001", raw=75000000,
                                busy="busy=16000000 floor=15000000 "))
        # a trace of a module before the busy-link bound
        f.write(self.EST.format(t="10.500000", raw=21000000, busy=""))
        f.close()
        self.addCleanup(os.unlink, f.name)
        est, connect = accuracy.read_trace(f.name, "5301")
        self.assertIsNone(connect)
        self.assertEqual(est, [(10.000001, 20.0, 75.0, 60000, 16.0, 15.0,
                                0, 0, None),
                               (10.5, 20.0, 21.0, 60000, 0.0, 0.0, 0, 0,
                                None)])

    def test_held_as_the_module_says(self):
        f = tempfile.NamedTemporaryFile("w", suffix=".trace", delete=False)
        f.write(self.EST.format(t="10.000001", raw=12000000,
                                busy="busy=0 floor=0 ").replace(
                                    "rse=0", "rse=0 held=0"))
        f.write(self.EST.format(t="10.2", raw=75000000,
                                busy="busy=16000000 floor=15000000 ").replace(
                                    "rse=0", "rse=0 held=1"))
        f.close()
        self.addCleanup(os.unlink, f.name)
        est, _ = accuracy.read_trace(f.name, "5301")
        self.assertEqual([e[8] for e in est], [0, 1])

    def test_the_capacity_each_estimate_came_with(self):
        f = tempfile.NamedTemporaryFile("w", suffix=".trace", delete=False)
        f.write(self.EST.format(t="10.0", raw=1, busy="").replace(
            "rse=0", "rse=0 held=0 bucket=2 cap=0"))
        f.write(self.EST.format(t="10.2", raw=1, busy="").replace(
            "rse=0", "rse=0 held=0 bucket=2 cap=28700000"))
        # a module without the field
        f.write(self.EST.format(t="10.4", raw=1, busy=""))
        f.close()
        self.addCleanup(os.unlink, f.name)
        self.assertEqual(accuracy.read_caps(f.name), [(10.2, 28.7)])

    def test_capacity_against_c_and_bbr_beside_it(self):
        caps = [(1.0, 27.0), (1.04, 30.0), (1.08, 28.0), (1.12, 40.0)]
        r = accuracy.capacity_figures(caps, 30.0, 0.8, 0.04,
                                      [10.0, 12.0, 14.0])
        self.assertEqual(r["cap_estimates"], 4)
        self.assertAlmostEqual(r["cap_median_mbps"], 29.0)
        # errors 0.1, 0, 0.0667, 0.333: median 0.0833
        self.assertAlmostEqual(r["cap_median_err_pct_c"], 25 / 3)
        self.assertAlmostEqual(r["cap_first_rtt"], 5.0)
        self.assertEqual(r["bbr_bw_median_mbps"], 12.0)
        self.assertAlmostEqual(r["bbr_bw_cap_err_pct_c"], 60.0)
        none = accuracy.capacity_figures([], 30.0, 0.8, 0.04, [])
        self.assertEqual(none["cap_estimates"], 0)
        self.assertIsNone(none["cap_median_err_pct_c"])
        self.assertIsNone(none["cap_first_rtt"])


class FrameDelivery(unittest.TestCase):
    def files(self, result, reads):
        d = tempfile.mkdtemp()
        xf, af = os.path.join(d, "x.xfer"), os.path.join(d, "x.arrivals")
        with open(xf, "w") as f:
            f.write(result + "\n")
        with open(af, "w") as f:
            f.writelines(f"{t:.6f} {n}\n" for t, n in reads)
        return xf, af

    def test_each_frame_from_its_due_time_to_its_last_byte(self):
        # frames of 2500.5 bytes every 40 ms from t0 = 100: frame 0 ends at
        # byte 2500, frame 1 at 5001, frame 2 at 7501
        xf, af = self.files("cc=imtcp bytes=7501 frame_t0_s=100.000000 "
                            "frame_bytes=2500.500 frame_ms=40.000",
                            [(100.010, 1448), (100.012, 2500),
                             (100.055, 5000), (100.061, 5001),
                             (100.095, 7501)])
        ms = accuracy.frame_delivery_ms(xf, af)
        self.assertEqual(len(ms), 3)
        for got, want in zip(ms, (12.0, 21.0, 15.0)):
            self.assertAlmostEqual(got, want, places=3)

    def test_one_read_completes_several_frames(self):
        xf, af = self.files("frame_t0_s=0.0 frame_bytes=1000 frame_ms=40",
                            [(0.130, 3000)])
        ms = accuracy.frame_delivery_ms(xf, af)
        for got, want in zip(ms, (130.0, 90.0, 50.0)):
            self.assertAlmostEqual(got, want, places=3)

    def test_the_sender_s_frame_interval(self):
        xf, af = self.files("frame_t0_s=0.0 frame_bytes=1000 frame_ms=100",
                            [(0.230, 3000)])
        ms = accuracy.frame_delivery_ms(xf, af)
        for got, want in zip(ms, (230.0, 130.0, 30.0)):
            self.assertAlmostEqual(got, want, places=3)

    def test_a_bulk_run_has_none(self):
        xf, af = self.files("cc=reno bytes=1000", [(0.1, 1000)])
        self.assertIsNone(accuracy.frame_delivery_ms(xf, af))

    def test_a_frame_less_its_last_segment(self):
        # frames of 3000 bytes every 40 ms: each one's last 104 bytes (a
        # segment Nagle keeps back) come 12 ms after the rest
        xf, af = self.files("frame_t0_s=0.0 frame_bytes=3000 frame_ms=40",
                            [(0.010, 2896), (0.022, 3000),
                             (0.055, 5896), (0.067, 6000)])
        whole = accuracy.frame_delivery_ms(xf, af)
        body = accuracy.frame_delivery_ms(xf, af, 1447)
        for got, want in zip(whole, (22.0, 27.0)):
            self.assertAlmostEqual(got, want, places=3)
        for got, want in zip(body, (10.0, 15.0)):
            self.assertAlmostEqual(got, want, places=3)
        # a read short of the body leaves it undone
        xf, af = self.files("frame_t0_s=0.0 frame_bytes=3000 frame_ms=40",
                            [(0.010, 1552), (0.020, 3000)])
        self.assertAlmostEqual(accuracy.frame_delivery_ms(xf, af, 1447)[0],
                               20.0, places=3)

    def test_no_body_of_frames_shorter_than_what_is_left_out(self):
        xf, af = self.files("frame_t0_s=0.0 frame_bytes=1000 frame_ms=40",
                            [(0.010, 1000)])
        self.assertIsNone(accuracy.frame_delivery_ms(xf, af, 1447))

    def test_settled_frames_are_those_due_from_one_second_on(self):
        # 40 ms frames: frames 0-24 are due in the first second
        xf, _ = self.files("frame_t0_s=0.0 frame_bytes=1000 frame_ms=40",
                           [])
        ms = [100.0 + j for j in range(30)]
        self.assertEqual(accuracy.settled_frames(ms, xf),
                         [125.0, 126.0, 127.0, 128.0, 129.0])
        # 300 ms frames: frames 0-3 (0, 300, 600, 900 ms)
        xf, _ = self.files("frame_t0_s=0.0 frame_bytes=1000 frame_ms=300",
                           [])
        self.assertEqual(accuracy.settled_frames(ms[:6], xf), [104.0, 105.0])

    def test_no_settled_frames_in_a_short_or_bulk_run(self):
        xf, _ = self.files("frame_t0_s=0.0 frame_bytes=1000 frame_ms=40",
                           [])
        self.assertIsNone(accuracy.settled_frames([50.0] * 25, xf))
        xf, _ = self.files("cc=reno bytes=1000", [])
        self.assertIsNone(accuracy.settled_frames([50.0] * 40, xf))


class Tap(unittest.TextTestResult):
    """ok / not ok per test, numbered."""

    def __init__(self, *a, **k):
        super().__init__(*a, **k)
        self.n = 0

    def addSuccess(self, test):
        super().addSuccess(test)
        self.n += 1
        print(f"ok {self.n} {test.id().split('.', 1)[1]}")

    def _bad(self, test, err):
        self.n += 1
        print(f"not ok {self.n} {test.id().split('.', 1)[1]}")
        print("# " + self._exc_info_to_string(err, test).replace("\n", "\n# "))

    def addFailure(self, test, err):
        super().addFailure(test, err)
        self._bad(test, err)

    def addError(self, test, err):
        super().addError(test, err)
        self._bad(test, err)


def tap_main(name):
    """Run module @name's tests with TAP output; exit 0 if all passed."""
    suite = unittest.defaultTestLoader.loadTestsFromModule(sys.modules[name])
    print("TAP version 13")
    print(f"1..{suite.countTestCases()}")
    runner = unittest.TextTestRunner(resultclass=Tap,
                                     stream=open(os.devnull, "w"))
    sys.exit(0 if runner.run(suite).wasSuccessful() else 1)


if __name__ == "__main__":
    tap_main(__name__)
