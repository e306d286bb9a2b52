#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The netlink spec (Documentation/netlink/imtcp.yaml) against the uapi
header (kmod/uapi/imtcp.h): the spec parses as YAML, and its attributes,
operations, enums and multicast group are the header's, in the header's
order and values. The spec had gone unparseable once (a ": " in a plain
scalar, 2026-11-27) with no test to tell. TAP output like the others."""
import os
import re
import sys
import unittest

import yaml

from test_accuracy import tap_main

TOP = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
SPEC = os.path.join(TOP, "Documentation", "netlink", "imtcp.yaml")
UAPI = os.path.join(TOP, "kmod", "uapi", "imtcp.h")


def enum_after(text, first):
    """The names of the C enum whose first entry is @first, in order
    (entries counted from 0, as the header writes them, without values)."""
    m = re.search(r"enum(?: \w+)? \{\s*(" + first + r",.*?)\};", text, re.S)
    if not m:
        raise AssertionError(f"no enum starting with {first} in {UAPI}")
    body = re.sub(r"/\*.*?\*/", "", m.group(1), flags=re.S)
    names = [n.strip() for n in body.split(",")]
    return [n for n in names if n and not n.startswith("__")
            and "=" not in n]


def spec_name(c_name, prefix):
    """IMTCP_A_RANGE_LO -> range-lo (the spec's names)."""
    return c_name[len(prefix):].lower().replace("_", "-")


class Spec(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        with open(UAPI) as f:
            cls.uapi = f.read()
        with open(SPEC) as f:
            cls.text = f.read()

    def spec(self):
        return yaml.safe_load(self.text)

    def test_spec_parses(self):
        self.assertEqual(self.spec()["name"], "imtcp")

    def test_attributes_are_the_headers_in_order(self):
        c = enum_after(self.uapi, "IMTCP_A_UNSPEC")
        want = [spec_name(n, "IMTCP_A_") for n in c[1:]]  # spec starts at 1
        got = [a["name"] for a in self.spec()["attribute-sets"][0]["attributes"]]
        self.assertEqual(got, want)

    def test_operations_are_the_headers_commands(self):
        c = enum_after(self.uapi, "IMTCP_CMD_UNSPEC")
        want = [spec_name(n, "IMTCP_CMD_") for n in c[1:]]
        ops = self.spec()["operations"]["list"]
        self.assertEqual([o["name"] for o in ops], want)
        self.assertEqual(ops[0].get("value"), 1)

    def test_events_name_known_attributes_and_the_group(self):
        spec = self.spec()
        names = {a["name"] for a in spec["attribute-sets"][0]["attributes"]}
        group = re.search(r'IMTCP_MCGRP_ESTIMATES\s+"(\w+)"', self.uapi).group(1)
        self.assertEqual([g["name"] for g in spec["mcast-groups"]["list"]],
                         [group])
        events = [o for o in spec["operations"]["list"] if "event" in o]
        self.assertEqual([o["name"] for o in events],
                         ["estimate", "withdraw", "move"])
        for o in events:
            attrs = o["event"]["attributes"]
            self.assertLessEqual(set(attrs), names, o["name"])
            self.assertEqual(o["mcgrp"], group)
        # a withdrawal is an estimate's message and the estimate withdrawn
        self.assertEqual(events[1]["event"]["attributes"],
                         events[0]["event"]["attributes"] + ["withdrawn"])
        # a move is an estimate's message
        self.assertEqual(events[2]["event"]["attributes"],
                         events[0]["event"]["attributes"])

    def test_enums_are_the_headers(self):
        defs = {d["name"]: d["entries"] for d in self.spec()["definitions"]}
        for name, first, prefix in (("state", "IMTCP_STATE_OFF", "IMTCP_STATE_"),
                                    ("reason", "IMTCP_REASON_NONE", "IMTCP_REASON_"),
                                    ("bound", "IMTCP_BOUND_NONE", "IMTCP_BOUND_")):
            want = [spec_name(n, prefix) for n in enum_after(self.uapi, first)]
            self.assertEqual(defs[name], want, name)

    def test_a_colon_in_a_plain_doc_is_caught(self):
        """The check itself: the scalar that broke the spec once fails."""
        bad = "a:\n  doc: withdrawn then: no event\n"
        with self.assertRaises(yaml.YAMLError):
            yaml.safe_load(bad)


if __name__ == "__main__":
    tap_main(__name__)
