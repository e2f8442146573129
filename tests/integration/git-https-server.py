#!/usr/bin/env python3
"""A test host for the egress tests: git http-backend over HTTPS on ADDR:443, one certificate
per server name (SNI), every request it is sent written to a log ("METHOD PATH?QUERY" a line)
so that a test can tell what reached it. Pushes are enabled on every repository, so a push that
fails did so before it got here.

Usage: git-https-server.py ADDR ROOT LOG NAME=CERT:KEY...   (prints "ready" once listening)
"""
import os
import socket
import ssl
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

addr, root, log_path = sys.argv[1], sys.argv[2], sys.argv[3]
contexts = {}
for spec in sys.argv[4:]:
    name, files = spec.split("=", 1)
    cert, key = files.split(":", 1)
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(cert, key)
    contexts[name] = ctx
default = next(iter(contexts.values()))
log_lock = threading.Lock()


def pick(sock, name, _ctx):
    if name in contexts:
        sock.context = contexts[name]


default.sni_callback = pick


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def body(self):
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            out = b""
            while True:
                size = int(self.rfile.readline().split(b";")[0], 16)
                if size == 0:
                    self.rfile.readline()
                    return out
                out += self.rfile.read(size)
                self.rfile.readline()
        return self.rfile.read(int(self.headers.get("Content-Length", "0")))

    def serve(self):
        with log_lock, open(log_path, "a") as f:
            f.write("%s %s %s\n" % (self.headers.get("Host", ""), self.command, self.path))
        data = self.body()
        path, _, query = self.path.partition("?")
        env = dict(os.environ, GIT_PROJECT_ROOT=root, GIT_HTTP_EXPORT_ALL="1",
                   REQUEST_METHOD=self.command, PATH_INFO=path, QUERY_STRING=query,
                   CONTENT_TYPE=self.headers.get("Content-Type", ""),
                   CONTENT_LENGTH=str(len(data)), REMOTE_USER="tester", REMOTE_ADDR="127.0.0.1",
                   GIT_HTTP_MAX_REQUEST_BUFFER="100M")
        if self.headers.get("Content-Encoding"):
            env["HTTP_CONTENT_ENCODING"] = self.headers["Content-Encoding"]
        if self.headers.get("Git-Protocol"):
            env["GIT_PROTOCOL"] = self.headers["Git-Protocol"]
        out = subprocess.run(["git", "http-backend"], input=data, env=env,
                             stdout=subprocess.PIPE).stdout
        head, _, rest = out.partition(b"\r\n\r\n")
        if not _:
            head, _, rest = out.partition(b"\n\n")
        status = 200
        headers = []
        for line in head.decode("latin-1").splitlines():
            k, _, v = line.partition(":")
            if k.lower() == "status":
                status = int(v.strip().split()[0])
            elif k:
                headers.append((k, v.strip()))
        self.send_response(status)
        for k, v in headers:
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(rest)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(rest)

    do_GET = do_POST = do_PUT = do_HEAD = do_DELETE = do_PATCH = serve


class Server(ThreadingHTTPServer):
    daemon_threads = True
    address_family = socket.AF_INET

    def get_request(self):
        sock, peer = super().get_request()
        # The handshake happens in the handler's thread, so a slow client holds up no other.
        return default.wrap_socket(sock, server_side=True, do_handshake_on_connect=False), peer


srv = Server((addr, 443), Handler)
print("ready", flush=True)
srv.serve_forever()
