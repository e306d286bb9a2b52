#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Read a saved ftrace buffer of imtcp (and tcp) events.

  imtcp_trace.py estimates FILE         time(s) bps raw_bps busy_bps
                                        floor_bps cap_bps per estimate
                                        (0: none, or a module without
                                        the field)
  imtcp_trace.py states FILE            the control-unit states entered
  imtcp_trace.py recovery FILE PORT [COOKIE]
                                        check that measurement is off while
                                        the connection on PORT (its socket
                                        COOKIE: only its imtcp events) is
                                        in CWR, Recovery or Loss; prints
                                        counts
  imtcp_trace.py summary FILE           event counts
Exit code 1 when a check fails, 2 on bad usage.
"""
import re
import sys

LINE = re.compile(r"\s(\d+\.\d+): (\w+): (.*)$")
CA_OPEN, CA_DISORDER = 0, 1


def events(path):
    with open(path, errors="replace") as f:
        for line in f:
            m = LINE.search(line)
            if not m:
                continue
            fields = dict(kv.split("=", 1) for kv in m.group(3).split()
                          if "=" in kv)
            yield float(m.group(1)), m.group(2), fields, m.group(3)


def state_change(text):
    """'off->store' of an imtcp_state line, as a pair."""
    m = re.search(r"(\w+)->(\w+)", text)
    return (m.group(1), m.group(2)) if m else (None, None)


def cmd_estimates(path):
    for t, name, f, _ in events(path):
        if name == "imtcp_estimate":
            print(f"{t:.6f} {f['bps']} {f['raw']} {f.get('busy', '0')} "
                  f"{f.get('floor', '0')} {f.get('cap', '0')}")
    return 0


def cmd_states(path):
    seen = set()
    for _, name, _, text in events(path):
        if name == "imtcp_state":
            seen.add(state_change(text)[1])
    print(" ".join(sorted(s for s in seen if s)))
    return 0


def cmd_recovery(path, port, cookie=None):
    """Between a tcp_cong_state_set to CWR/Recovery/Loss of the flow on
    PORT and the next one back to Open/Disorder, imtcp may only enter
    'off'. imtcp's own event for that entry follows the tcp one, since
    the stack traces before it calls set_state. With COOKIE, imtcp
    events of other sockets are left out."""
    in_rec = False
    episodes = violations = entries_off = 0
    for t, name, f, text in events(path):
        if name == "tcp_cong_state_set":
            if port not in (f.get("sport"), f.get("dport")):
                continue
            state = int(f["cong_state"])
            if state > CA_DISORDER and not in_rec:
                episodes += 1
            in_rec = state > CA_DISORDER
        elif name == "imtcp_state" and in_rec:
            if cookie is not None and f.get("cookie") != cookie:
                continue
            to = state_change(text)[1]
            if to == "off":
                entries_off += 1
            else:
                violations += 1
                print(f"violation at {t:.6f}: {text}")
    print(f"episodes={episodes} off_entries={entries_off} "
          f"violations={violations}")
    if cookie is not None and not entries_off:
        print(f"no imtcp_state of socket {cookie} during recovery")
        return 1
    return 1 if violations or not episodes else 0


def cmd_summary(path):
    counts = {}
    for _, name, _, _ in events(path):
        counts[name] = counts.get(name, 0) + 1
    for k in sorted(counts):
        print(f"{k}={counts[k]}")
    return 0


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    cmd, path = argv[1], argv[2]
    if cmd == "estimates":
        return cmd_estimates(path)
    if cmd == "states":
        return cmd_states(path)
    if cmd == "recovery" and len(argv) in (4, 5):
        return cmd_recovery(path, *argv[3:])
    if cmd == "summary":
        return cmd_summary(path)
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
