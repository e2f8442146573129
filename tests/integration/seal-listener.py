#!/usr/bin/env python3
"""The seal test's witness: listens on 0.0.0.0 and :: at one free port, and appends, for each
connection that arrives, the address of this computer it arrived at (not what the box says),
then the peer's address and port: "HERE PEER PORT" a line. Each socket's connections are
taken in the order they arrived, so a connection the test makes itself (known by its peer's
port) is logged after every earlier one on that socket: the test's barrier.
Usage: seal-listener.py PORTFILE LOGFILE  (writes the port to PORTFILE once it listens)."""
import os
import socket
import sys
import threading


def serve(sock, log):
    while True:
        conn, peer = sock.accept()
        here = conn.getsockname()[0]
        with open(log, "a") as f:
            f.write("%s %s %d\n" % (here, peer[0], peer[1]))
        conn.close()


def main():
    portfile, log = sys.argv[1], sys.argv[2]
    v4 = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    v4.bind(("0.0.0.0", 0))
    port = v4.getsockname()[1]
    v6 = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
    v6.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
    v6.bind(("::", port))
    for s in (v4, v6):
        s.listen(512)
    threads = [threading.Thread(target=serve, args=(s, log), daemon=True) for s in (v4, v6)]
    for t in threads:
        t.start()
    with open(portfile + ".new", "w") as f:
        f.write("%d\n" % port)
    os.rename(portfile + ".new", portfile)
    for t in threads:
        t.join()


main()
