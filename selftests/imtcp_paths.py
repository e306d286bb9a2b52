#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Odd socket paths through imtcp's init and release, each bounded in time.

    imtcp_paths.py UNREACHABLE_ADDR

Run inside a network namespace where UNREACHABLE_ADDR routes to a device
that drops everything (a dummy device), so that a connection to it stays
in SYN_SENT; 127.0.0.1 serves the rest. Every connect is non-blocking
with its own deadline (a blocking connect to UNREACHABLE_ADDR would wait
for the kernel's SYN retries, about two minutes). Prints one line per
step; exits 0 when all went as expected, 1 otherwise.

  1. a socket in SYN_SENT: setsockopt(TCP_CONGESTION) imtcp / reno 20
     times, then connect(AF_UNSPEC) (tcp_disconnect), then a connect to a
     listener on imtcp that carries 1 MB intact;
  2. a connect refused (nothing listens), then the same socket connects
     to the listener (after the one ECONNABORTED that reports the reset,
     as for any congestion control) and carries 1 MB intact;
  3. a dual-stack (AF_INET6) socket to ::ffff:127.0.0.1 on imtcp carries
     1 MB intact; with IMTCP_STAT set to imtcp-stat's path, its filter
     'dst 127.0.0.1' finds that socket.
"""
import ctypes
import errno
import json
import os
import select
import socket
import subprocess
import sys
import time

TCP_CONGESTION = 13
STEP_SECS = 10
libc = ctypes.CDLL(None, use_errno=True)


def disconnect(s):
    """connect(fd, {AF_UNSPEC}): the kernel's tcp_disconnect."""
    sa = (ctypes.c_ushort * 8)(socket.AF_UNSPEC)
    if libc.connect(s.fileno(), ctypes.byref(sa), ctypes.sizeof(sa)) != 0:
        e = ctypes.get_errno()
        raise OSError(e, "connect(AF_UNSPEC): " + errno.errorcode.get(e, str(e)))


def set_cc(s, cc):
    s.setsockopt(socket.IPPROTO_TCP, TCP_CONGESTION, cc.encode())


def get_cc(s):
    return s.getsockopt(socket.IPPROTO_TCP, TCP_CONGESTION, 16).split(b"\0")[0].decode()


def connect_nb(s, addr, secs=STEP_SECS):
    """Non-blocking connect; returns 0 or the errno it ended with."""
    s.setblocking(False)
    err = s.connect_ex(addr)
    if err == errno.EINPROGRESS:
        _, w, _ = select.select([], [s], [], secs)
        err = s.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR) if w else errno.ETIMEDOUT
    s.setblocking(True)
    return err


def carry(s, lst, nbytes=1 << 20):
    """Send nbytes over s to the listener's next accepted socket; intact?"""
    c, _ = lst.accept()
    c.settimeout(STEP_SECS)
    s.settimeout(STEP_SECS)
    data = bytes((i * 131 + 7) & 0xFF for i in range(65536))
    got = bytearray()
    sent = 0
    while sent < nbytes or len(got) < nbytes:
        if sent < nbytes:
            sent += s.send(data[:min(len(data), nbytes - sent)])
        r, _, _ = select.select([c], [], [], 0 if sent < nbytes else STEP_SECS)
        if r:
            chunk = c.recv(65536)
            if not chunk:
                break
            got += chunk
    c.close()
    return len(got) == nbytes and all(
        got[i] == data[i % len(data)] for i in range(0, nbytes, 4093))


def main(unreachable):
    ok = True
    lst = socket.socket()
    set_cc(lst, "imtcp")
    lst.bind(("127.0.0.1", 0))
    lst.listen(8)
    port = lst.getsockname()[1]

    t0 = time.monotonic()
    s = socket.socket()
    set_cc(s, "imtcp")
    err = connect_nb(s, (unreachable, 9), secs=0.5)
    print("1: connect to %s: %s (SYN_SENT expected: ETIMEDOUT from our deadline)"
          % (unreachable, errno.errorcode.get(err, err)))
    for i in range(20):
        set_cc(s, "reno" if i % 2 else "imtcp")
    print("1: 20 switches in SYN_SENT, now %s" % get_cc(s))
    disconnect(s)
    set_cc(s, "imtcp")
    err = connect_nb(s, ("127.0.0.1", port))
    good = err == 0 and get_cc(s) == "imtcp" and carry(s, lst)
    print("1: after connect(AF_UNSPEC), connect to the listener: %s, %s, 1 MB %s (%.1f s)"
          % (errno.errorcode.get(err, err), get_cc(s), "intact" if good else "NOT intact",
             time.monotonic() - t0))
    ok &= good
    s.close()

    t0 = time.monotonic()
    closed = socket.socket()
    closed.bind(("127.0.0.1", 0))
    closed_port = closed.getsockname()[1]
    closed.close()
    s = socket.socket()
    set_cc(s, "imtcp")
    err = connect_nb(s, ("127.0.0.1", closed_port))
    print("2: connect to a closed port: %s" % errno.errorcode.get(err, err))
    ok &= err == errno.ECONNREFUSED
    # The kernel's way, whatever the congestion control: the first connect
    # after the reset reports it (ECONNABORTED) and unconnects the socket.
    err = connect_nb(s, ("127.0.0.1", port))
    print("2: the same socket again: %s (the reset, reported once)"
          % errno.errorcode.get(err, err))
    if err == errno.ECONNABORTED:
        err = connect_nb(s, ("127.0.0.1", port))
    good = err == 0 and get_cc(s) == "imtcp" and carry(s, lst)
    print("2: and again, to the listener: %s, %s, 1 MB %s (%.1f s)"
          % (errno.errorcode.get(err, err), get_cc(s),
             "intact" if good else "NOT intact", time.monotonic() - t0))
    ok &= good
    s.close()

    t0 = time.monotonic()
    lst6 = socket.socket(socket.AF_INET6)
    set_cc(lst6, "imtcp")
    lst6.bind(("::", 0))
    lst6.listen(2)
    s = socket.socket(socket.AF_INET6)
    set_cc(s, "imtcp")
    port6 = lst6.getsockname()[1]
    err = connect_nb(s, ("::ffff:127.0.0.1", port6))
    good = err == 0 and carry(s, lst6)
    print("3: dual-stack socket to ::ffff:127.0.0.1: %s, 1 MB %s (%.1f s)"
          % (errno.errorcode.get(err, err), "intact" if good else "NOT intact",
             time.monotonic() - t0))
    ok &= good
    if os.environ.get("IMTCP_STAT"):
        # imtcp-stat's filter takes the IPv4 address of a v4-mapped peer
        out = subprocess.run([os.environ["IMTCP_STAT"], "-j", "dst", "127.0.0.1",
                              "dport", str(port6)], capture_output=True, text=True)
        rows = json.loads(out.stdout or "[]")
        print("3: imtcp-stat dst 127.0.0.1 dport %d: %d row(s), peer %s"
              % (port6, len(rows), rows[0]["peer"]["addr"] if rows else "-"))
        ok &= len(rows) == 1
    s.close()
    lst6.close()
    lst.close()
    return 0 if ok else 1


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1]))
