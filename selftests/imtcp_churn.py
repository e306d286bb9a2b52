#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Connection churn on the namespace's default congestion control.

    imtcp_churn.py SHORT CONCURRENT

Over loopback: SHORT connections opened, given a little data and closed
one after the other, then CONCURRENT connections open at once; then the
server side is dropped abruptly (closed with unread data, so the kernel
resets them) while the clients still hold theirs, and the clients close.
Every socket takes the namespace's default congestion control. Prints
one summary line; exits 0 when every connection was established.
"""
import socket
import sys


def main(short, concurrent):
    lst = socket.socket()
    lst.bind(("127.0.0.1", 0))
    lst.listen(1024)
    addr = lst.getsockname()
    ok = 0
    for _ in range(short):
        c = socket.create_connection(addr, timeout=10)
        s, _ = lst.accept()
        c.sendall(b"x" * 2000)
        s.recv(4096)
        c.close()
        s.close()
        ok += 1
    clients, servers = [], []
    for _ in range(concurrent):
        clients.append(socket.create_connection(addr, timeout=10))
        servers.append(lst.accept()[0])
        ok += 1
    for c in clients:
        c.sendall(b"y" * 1000)
    for s in servers:	# unread data: the kernel answers with a reset
        s.close()
    lst.close()
    for c in clients:
        c.close()
    cc = socket.socket().getsockopt(socket.IPPROTO_TCP, 13, 16).split(b"\0")[0]
    print("churn: %d connections established, default %s" % (ok, cc.decode()))
    return 0 if ok == short + concurrent else 1


if __name__ == "__main__":
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(main(int(sys.argv[1]), int(sys.argv[2])))
