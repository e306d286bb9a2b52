#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Hold N imtcp connections over loopback open (both ends use imtcp).

  imtcp_socks.py N COOKIES_FILE
Writes the socket cookies (SO_COOKIE, decimal) of all 2N sockets to
COOKIES_FILE, then prints "ready" and keeps them open until stdin closes
(or SIGTERM); "close" on stdin closes them all, and the listener, while
the caller runs dumps.
"""
import resource
import socket
import struct
import sys

SO_COOKIE = 57
TCP_CONGESTION = 13


def main(n, path):
    want = 2 * n + 64
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < want:
        resource.setrlimit(resource.RLIMIT_NOFILE, (want, max(hard, want)))
    lst = socket.socket()
    lst.setsockopt(socket.IPPROTO_TCP, TCP_CONGESTION, b"imtcp")
    lst.bind(("127.0.0.1", 0))
    lst.listen(n)
    socks = []
    for _ in range(n):
        c = socket.socket()
        c.setsockopt(socket.IPPROTO_TCP, TCP_CONGESTION, b"imtcp")
        c.connect(lst.getsockname())
        s, _ = lst.accept()
        socks += [c, s]
    with open(path, "w") as f:
        for s in socks:
            f.write("%d\n" % struct.unpack(
                "Q", s.getsockopt(socket.SOL_SOCKET, SO_COOKIE, 8))[0])
    print("ready", flush=True)
    for line in sys.stdin:
        if line.strip() == "close":
            for s in socks:
                s.close()
            socks = []
            lst.close()
            print("closed", flush=True)


if __name__ == "__main__":
    main(int(sys.argv[1]), sys.argv[2])
