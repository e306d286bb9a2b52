#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Unit tests of make bench-mptcp-backup's analysis (scripts/bench/
mptcp_backup.py) on made-up records; TAP output as test_accuracy.py's."""
import json
import os
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "scripts", "bench"))
sys.path.insert(0, HERE)
import mptcp_backup  # noqa: E402
from test_accuracy import tap_main  # noqa: E402

P1, P2 = mptcp_backup.PATH1, mptcp_backup.PATH2


def sock(addr, cookie, est_mbit, meas):
    return {"cookie": cookie, "local": {"addr": addr, "port": 1},
            "estimate_bps": int(est_mbit * 1e6), "measurements": meas,
            "mptcp": {"token": "1", "local_id": 0, "backup": False}}


class Records(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()

    def write(self, name, text):
        path = os.path.join(self.dir, name)
        with open(path, "w") as f:
            f.write(text)
        return path

    def base(self, loss, variant):
        return os.path.join(self.dir, "mptcp-backup-%s-%s" % (loss, variant))


class EstimatesAfter(Records):
    def test_path_2_after_the_fall_each_result_once(self):
        # the run started at SECONDS 100, the fall came 10 s in
        fall = self.write("x.fall", "100 10\n")
        lines = [
            "105 " + json.dumps([sock(P2, 2, 8.0, 3)]),     # before the fall
            "111 " + json.dumps([sock(P2, 2, 3.5, 4), sock(P1, 1, 20, 9)]),
            "112 " + json.dumps([sock(P2, 2, 3.5, 4)]),     # the same result
            "113 " + json.dumps([sock(P2, 2, 2.5, 5)]),
            "114 ",                                         # imtcp-stat said nothing
        ]
        stat = self.write("x.stat", "\n".join(lines) + "\n")
        self.assertEqual(sorted(mptcp_backup.estimates_after(stat, fall)),
                         [2.5, 3.5])

    def test_no_estimate_is_not_a_result(self):
        fall = self.write("x.fall", "0 1\n")
        stat = self.write("x.stat", "5 " + json.dumps([sock(P2, 2, 0, 1)]) + "\n")
        self.assertEqual(mptcp_backup.estimates_after(stat, fall), [])


class Decisions(Records):
    def test_first_applied_mark_of_path_2_after_the_fall(self):
        ds = [
            {"t_s": 3.0, "addr": P2, "action": "backup", "why": "thin",
             "applied": True, "estimate_bps": 300000},      # before the fall
            {"t_s": 9.5, "addr": P1, "action": "backup", "why": "thin",
             "applied": False, "estimate_bps": 1000000},    # refused
            {"t_s": 33.0, "addr": P2, "action": "active", "why": "retry",
             "applied": True, "estimate_bps": 0},
            {"t_s": 35.0, "addr": P2, "action": "backup", "why": "thin",
             "applied": True, "estimate_bps": 2500000},
            {"t_s": 40.1, "addr": P2, "action": "active", "why": "exit",
             "applied": True, "estimate_bps": 0},
        ]
        ctl = self.write("x.ctl", "".join(json.dumps(d) + "\n" for d in ds))
        first, marks, clears = mptcp_backup.decisions(ctl, 10.0)
        self.assertEqual(first["t_s"], 35.0)
        self.assertEqual((marks, clears), (2, 1))   # the exit is not counted

    def test_no_controller(self):
        self.assertEqual(mptcp_backup.decisions(
            os.path.join(self.dir, "missing.ctl"), 10.0), (None, 0, 0))


class Carried(Records):
    def test_bytes_acked_summed_per_local_address(self):
        ss = self.write("x.ss", (
            "ESTAB 0 0 198.18.1.1:40000 198.18.2.2:6401\n"
            "\t imtcp bytes_acked:2000000 segs_out:1\n"
            "ESTAB 0 0 198.18.4.1:40001 198.18.5.2:6401\n"
            "\t imtcp bytes_acked:500000 segs_out:1\n"
            "ESTAB 0 0 198.18.4.1:40002 198.18.5.2:6401\n"
            "\t imtcp bytes_acked:250000 segs_out:1\n"))
        mb = mptcp_backup.carried(ss)
        self.assertAlmostEqual(mb[P1], 2.0)
        self.assertAlmostEqual(mb[P2], 0.75)


class Row(Records):
    def test_a_run_without_a_result_says_so(self):
        self.write("mptcp-backup-3-none.recv", "imtcp-media: connect: refused\n")
        self.assertIn("no result", mptcp_backup.row(self.dir, "3", "none", 10.0))

    def test_late_frames_and_their_share(self):
        b = self.base("3", "none")
        self.write(b + ".recv", json.dumps(
            {"event": "end", "frames": 1000, "late": 115,
             "behind_p50_ms": 43.0, "behind_p99_ms": 418.0}) + "\n")
        self.write(b + ".ss", "")
        self.write(b + ".fall", "0 10\n")
        self.write(b + ".stat", "")
        line = mptcp_backup.row(self.dir, "3", "none", 10.0)
        self.assertIn("| 115 (11.5 %) |", line)
        self.assertIn("| 43 / 418 |", line)


if __name__ == "__main__":
    tap_main(__name__)
