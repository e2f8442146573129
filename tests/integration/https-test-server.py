#!/usr/bin/env python3
"""A test host for the egress tests on ADDR:443, one certificate per server name (SNI), every
request it is sent written to a log ("HOST METHOD PATH?QUERY AUTH" a line, AUTH "-" or "auth")
so that a test can tell what reached it and whether it carried a sign-in. Each name serves:
- git http-backend over its git root, pushes enabled on every repository (a push that fails
  did so before it got here);
- an npm registry under /npm/ from its npm folder: NAME.json packuments, tarballs by their
  file name; a publish (PUT) is answered 201 and kept nowhere.
A name with "auth" answers 401 to a request without exactly that Authorization value, one with
"need": [HEADER, VALUE] to one without that header. With "secrets" in the config, a request
holding one of them in its request line or a header has " secret" after its log line, in its
body " body-secret".
A name with "redirect": URL answers a path ending in /-/redirect with a 302 there; one with
"ok" answers 200 "ok METHOD PATH" to anything else.
Two hostile ways a host may have, each a name's flag:
- "cl0": a path under /-/static is answered without its body being read, so on a kept
  connection the body is taken for the next request (a CL.0 host);
- "echo": a path ending in /-/echo answers the request's headers back (in the body, plainly,
  as JSON and percent-encoded, and the Authorization in a header of its own); /-/echo-chunked
  the same in two chunks cut inside the Authorization; /-/echo-gzip gzipped.

Usage: https-test-server.py ADDR CONFIG.json   (prints "ready" once listening)
CONFIG: {"log": PATH, "names": {NAME: {"cert", "key", "git": ROOT, "npm": DIR, "auth": VALUE}}}
"""
import gzip
import json
import os
import socket
import ssl
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import quote, unquote

addr, config = sys.argv[1], json.load(open(sys.argv[2]))
names = config["names"]
contexts = {}
for name, spec in names.items():
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(spec["cert"], spec["key"])
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

    def answer(self, status, data, ctype="text/plain", headers=()):
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        for k, v in headers:
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)

    def git(self, root, data):
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
        head, sep, rest = out.partition(b"\r\n\r\n")
        if not sep:
            head, _, rest = out.partition(b"\n\n")
        status, headers, ctype = 200, [], "application/octet-stream"
        for line in head.decode("latin-1").splitlines():
            k, _, v = line.partition(":")
            if k.lower() == "status":
                status = int(v.strip().split()[0])
            elif k.lower() == "content-type":
                ctype = v.strip()
            elif k:
                headers.append((k, v.strip()))
        self.answer(status, rest, ctype, headers)

    def echo(self):
        auth = self.headers.get("Authorization", "")
        seen = "".join("%s: %s\n" % (k, v) for k, v in self.headers.items())
        seen += json.dumps({"authorization": auth}) + "\n" + quote(auth, safe="") + "\n"
        data = seen.encode()
        if self.path.endswith("/-/echo-gzip"):
            return self.answer(200, gzip.compress(data), headers=[("Content-Encoding", "gzip")])
        if not self.path.endswith("/-/echo-chunked"):
            return self.answer(200, data, headers=[("X-Seen-Authorization", auth)])
        cut = data.find(auth.encode()) + len(auth) // 2
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        for part in (data[:cut], data[cut:]):
            self.wfile.write(b"%x\r\n%s\r\n" % (len(part), part))
        self.wfile.write(b"0\r\n\r\n")

    def npm(self, folder):
        if self.command == "PUT":
            return self.answer(201, b'{"ok":true}', "application/json")
        rest = unquote(self.path.partition("?")[0][len("/npm/"):])
        if "/-/" in rest:
            f = os.path.join(folder, os.path.basename(rest))
            ctype = "application/octet-stream"
        else:
            f = os.path.join(folder, rest.replace("/", "%2f") + ".json")
            ctype = "application/json"
        if not os.path.isfile(f):
            return self.answer(404, b'{"error":"not found"}', "application/json")
        self.answer(200, open(f, "rb").read(), ctype)

    def secret_mark(self, data):
        """ secret: one of the config's "secrets" in the request line or a header; body-secret:
        in the body; both when both."""
        head = ("%s\n%s" % (self.requestline, self.headers)).encode()
        marks = [m for m, part in (("secret", head), ("body-secret", data))
                 if any(x.encode() in part for x in config.get("secrets", []))]
        return "".join(" " + m for m in marks)

    def serve(self):
        host = self.headers.get("Host", "").split(":")[0]
        spec = names.get(host, {})
        auth = self.headers.get("Authorization")
        data = self.body() if "secrets" in config else None
        mark = self.secret_mark(data) if data is not None else ""
        with log_lock, open(config["log"], "a") as f:
            f.write("%s %s %s %s%s\n" % (host, self.command, self.path, "auth" if auth else "-",
                                          mark))
        if spec.get("cl0") and self.path.startswith("/-/static"):
            return self.answer(200, b"static\n")  # the body, unread, is the next request's
        if data is None:
            data = self.body()
        need = spec.get("need")  # [HEADER, VALUE]: a key in a header of its own
        if ("auth" in spec and auth != spec["auth"]) or (need and self.headers.get(need[0]) != need[1]):
            return self.answer(401, b"sign in first\n",
                               headers=[("WWW-Authenticate", 'Basic realm="test"')])
        if "redirect" in spec and self.path.endswith("/-/redirect"):
            return self.answer(302, b"elsewhere\n", headers=[("Location", spec["redirect"])])
        if spec.get("ok"):
            return self.answer(200, ("ok %s %s\n" % (self.command, self.path)).encode())
        if spec.get("echo") and "/-/echo" in self.path:
            return self.echo()
        if self.path.startswith("/npm/") and "npm" in spec:
            return self.npm(spec["npm"])
        if "git" in spec:
            return self.git(spec["git"], data)
        self.answer(404, b"nothing here\n")

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
