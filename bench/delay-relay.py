#!/usr/bin/env python3
"""bench/delay-relay.py: a loopback TCP relay that adds latency and counts round trips.

  delay-relay.py DELAY_MS LISTEN_PORT TARGET_PORT COUNT_FILE PING_PORT
      relays 127.0.0.1:LISTEN_PORT to 127.0.0.1:TARGET_PORT, holding every chunk DELAY_MS in
      each direction (the kernel here has no netem). PING_PORT goes through the same delay to
      an echo inside this process, for `ping`; it is not counted.
  delay-relay.py ping PING_PORT [N]
      prints the median ms of N one-byte ping-pongs through it: the round-trip time added.

COUNT_FILE holds the round trips so far, over all connections: one each time bytes come back
from the server after the client sent some since the last such turn (a request answered), and
one per new connection for its TCP handshake, which a relay on loopback would otherwise hide:
the upstream connect is held 3 * DELAY_MS, so the client's first bytes reach the server at 1.5
round trips and the server's first bytes reach the client at 2, as over a real link.
DELAY_RELAY_TRACE=FILE: each chunk as it arrives (wall ms, connection, direction, bytes) and
each round trip counted, to tell which step made which.
"""
import asyncio
import os
import socket
import sys
import time


TRACE = open(os.environ["DELAY_RELAY_TRACE"], "a", buffering=1) \
    if os.environ.get("DELAY_RELAY_TRACE") else None


def trace(conn, what):
    if TRACE:
        TRACE.write("%.1f %d %s\n" % (time.time() * 1000, conn, what))


class Count:
    def __init__(self, path):
        self.n, self.path = 0, path
        self.put()

    def add(self):
        self.n += 1
        self.put()

    def put(self):
        if self.path:  # rename, so a reader never sees half a number
            with open(self.path + ".tmp", "w") as f:
                f.write("%d\n" % self.n)
            os.replace(self.path + ".tmp", self.path)


async def carry(reader, q, delay, seen, conn, arrow):
    """Reads chunks and queues each with the time it may leave."""
    loop = asyncio.get_running_loop()
    try:
        while True:
            data = await reader.read(65536)
            if not data:
                break
            seen()
            trace(conn, "%s %d" % (arrow, len(data)))
            q.put_nowait((loop.time() + delay, data))
    except OSError:
        pass
    q.put_nowait((loop.time() + delay, None))


async def deliver(q, writer_f):
    """Writes queued chunks, in order, once each is due; half-closes at the end."""
    loop = asyncio.get_running_loop()
    writer = await writer_f
    try:
        while True:
            due, data = await q.get()
            if due > loop.time():
                await asyncio.sleep(due - loop.time())
            if data is None:
                if writer.can_write_eof():
                    writer.write_eof()
                break
            writer.write(data)
            await writer.drain()
    except OSError:
        pass


CONNS = [0]


async def handle(cr, cw, port, delay, count):
    loop = asyncio.get_running_loop()
    CONNS[0] += 1
    conn = CONNS[0] if count else 0
    asked = [False]  # client bytes since the last answer

    def c2s():
        asked[0] = True

    def s2c():
        if asked[0] and count:
            asked[0] = False
            count.add()
            trace(conn, "* %d" % count.n)

    if count:
        count.add()  # the TCP handshake
        trace(conn, "* %d connect" % count.n)
    up = loop.create_future()
    up_q, down_q = asyncio.Queue(), asyncio.Queue()
    tasks = [loop.create_task(carry(cr, up_q, delay, c2s, conn, ">")),
             loop.create_task(deliver(up_q, up))]
    await asyncio.sleep(3 * delay)
    try:
        sr, sw = await asyncio.open_connection("127.0.0.1", port)
    except OSError:
        for t in tasks:
            t.cancel()
        cw.close()
        return
    up.set_result(sw)
    cw_f = loop.create_future()
    cw_f.set_result(cw)
    tasks += [loop.create_task(carry(sr, down_q, delay, s2c, conn, "<")),
              loop.create_task(deliver(down_q, cw_f))]
    await asyncio.gather(*tasks, return_exceptions=True)
    sw.close()
    cw.close()


async def echo(r, w):
    while data := await r.read(65536):
        w.write(data)
        await w.drain()
    w.close()


async def serve(delay_ms, listen, target, path, ping):
    delay = delay_ms / 1000.0
    count = Count(path)
    relay = await asyncio.start_server(
        lambda r, w: handle(r, w, target, delay, count), "127.0.0.1", listen)
    back = await asyncio.start_server(echo, "127.0.0.1", 0)
    back_port = back.sockets[0].getsockname()[1]
    pinger = await asyncio.start_server(
        lambda r, w: handle(r, w, back_port, delay, None), "127.0.0.1", ping)
    async with relay, back, pinger:
        await asyncio.gather(relay.serve_forever(), back.serve_forever(), pinger.serve_forever())


def ping(port, n):
    s = socket.create_connection(("127.0.0.1", port))
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    times = []
    for i in range(n + 1):  # the first also waits out the held connect
        t = time.monotonic()
        s.sendall(b"x")
        if not s.recv(1):
            sys.exit("ping: closed")
        if i:
            times.append((time.monotonic() - t) * 1000)
    s.close()
    times.sort()
    print("%.1f" % times[(len(times) - 1) // 2])


if __name__ == "__main__":
    a = sys.argv[1:]
    if a[:1] == ["ping"]:
        ping(int(a[1]), int(a[2]) if len(a) > 2 else 5)
    elif len(a) == 5:
        asyncio.run(serve(float(a[0]), int(a[1]), int(a[2]), a[3], int(a[4])))
    else:
        sys.exit(__doc__)
