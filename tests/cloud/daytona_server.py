#!/usr/bin/env python3
"""A Daytona test server on loopback, following research/daytona-api.md: the real paths
(/api/config, /api/sandbox..., /toolbox/{id}/process/..., /toolbox/{id}/files/...), bodies,
states and error shapes (NestJS on the API, Go's on the toolbox). Commands really run, in a
folder per sandbox. Faults are injected through /__test/* (tests only, no auth).

usage: daytona_server.py STATE_DIR CERT KEY KEYFILE
Writes STATE_DIR/ports ("MAIN EVIL") once listening. EVIL is a second HTTPS listener that
records every request it gets in STATE_DIR/evil.log: nothing may ever arrive there."""
import json, os, re, shutil, signal, ssl, subprocess, sys, threading, time, uuid
from datetime import datetime, timezone, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit, parse_qs

STATE, CERT, KEY, KEYFILE = sys.argv[1:5]
LOCK = threading.RLock()
SANDBOXES = {}   # id -> dict (the Sandbox object) plus "_ready_at", "_target"
SESSIONS = {}    # (sandbox id, session id) -> {cmd id -> dict}
CONTROL = {"queue": [], "list_shape": "items", "page_size": 100, "evil_toolbox": False,
           "stuck_starting": False, "create_fails_after": False, "exec_timeout": 0,
           "hostile_download": False, "disk_full": False}
PORTS = {}


def now_iso(delta_days=0):
    t = datetime.now(timezone.utc) - timedelta(days=delta_days)
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + "%03dZ" % (t.microsecond // 1000)


def log(line):
    with LOCK, open(os.path.join(STATE, "requests.log"), "a") as f:
        f.write(line + "\n")


def api_key():
    with open(KEYFILE) as f:
        return f.read().strip()


def toolbox_url():
    port = PORTS["evil"] if CONTROL["evil_toolbox"] else PORTS["main"]
    host = "127.0.0.1" if CONTROL["evil_toolbox"] else "localhost"
    return "https://%s:%d/toolbox" % (host, port)


def public(sb):
    """The Sandbox object as the API returns it, after any due transition."""
    if sb.get("_ready_at") and time.time() >= sb["_ready_at"]:
        sb["state"] = sb.pop("_target")
        sb.pop("_ready_at")
    out = {k: v for k, v in sb.items() if not k.startswith("_")}
    out["toolboxProxyUrl"] = toolbox_url()
    return out


def home_of(sid):
    return os.path.join(STATE, "sandboxes", sid, "home")


def new_sandbox(labels, state="creating", last_days=0):
    sid = str(uuid.uuid4())
    os.makedirs(home_of(sid))
    sb = {"id": sid, "organizationId": "org-test", "name": sid, "user": "daytona", "env": {},
          "labels": labels, "public": False, "networkBlockAll": False, "target": "us",
          "cpu": 1, "gpu": 0, "memory": 1, "disk": 3, "snapshot": "daytona-small",
          "state": state, "desiredState": "started", "autoStopInterval": 15,
          "autoArchiveInterval": 10080, "autoDeleteInterval": -1, "createdAt": now_iso(last_days),
          "updatedAt": now_iso(last_days), "lastActivityAt": now_iso(last_days)}
    if state == "creating":
        sb["_ready_at"], sb["_target"] = time.time() + 0.2, "started"
    SANDBOXES[sid] = sb
    return sb


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    # ---- plumbing ----
    def body(self):
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            out = bytearray()
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip(), 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass
                    return bytes(out)
                out += self.rfile.read(size)
                self.rfile.readline()
        n = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(n) if n else b""

    def send(self, status, body=b"", ctype="application/json", headers=None):
        if isinstance(body, (dict, list)):
            body = json.dumps(body).encode()
        self.send_response(status)
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        if body:
            self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def api_error(self, status, message):
        reasons = {400: "Bad Request", 401: "Unauthorized", 404: "Not Found", 409: "Conflict",
                   429: "Too Many Requests", 500: "Internal Server Error"}
        self.send(status, {"path": self.path, "timestamp": now_iso(), "statusCode": status,
                           "error": reasons.get(status, "Error"), "message": message})

    def go_error(self, status, code, message):
        self.send(status, {"statusCode": status, "message": message, "code": code,
                           "timestamp": now_iso(), "path": self.path, "method": self.command})

    def authorized(self):
        return self.headers.get("Authorization") == "Bearer " + api_key()

    def injected(self, path):
        """A queued fault for this method and path, consumed once."""
        with LOCK:
            for i, q in enumerate(CONTROL["queue"]):
                if q.get("method", self.command) == self.command and path.startswith(q["path"]):
                    CONTROL["queue"].pop(i)
                    return q
        return None

    def handle_any(self):
        url = urlsplit(self.path)
        path, query = url.path, parse_qs(url.query)
        if self.server.evil:
            with LOCK, open(os.path.join(STATE, "evil.log"), "a") as f:
                f.write("%s %s auth=%s\n" % (self.command, self.path,
                                             "yes" if "Authorization" in self.headers else "no"))
            return self.send(200, {"ok": True})
        data = self.body()
        if path.startswith("/__test/"):
            return self.test_control(path, data)
        log("%s %s auth=%s" % (self.command, self.path, "ok" if self.authorized() else "no"))
        q = self.injected(path)
        if q is not None:
            if "location" in q:
                return self.send(q["status"], b"", headers={"Location": q["location"]})
            if path.startswith("/toolbox/"):
                return self.go_error(q["status"], q.get("code", "INTERNAL_SERVER_ERROR"),
                                     q.get("message", "injected"))
            self.send(q["status"], {"path": self.path, "timestamp": now_iso(),
                                    "statusCode": q["status"], "error": "Injected",
                                    "message": q.get("message", "injected")},
                      headers=q.get("headers"))
            return
        if path == "/api/config" and self.command == "GET":
            return self.send(200, {"proxyToolboxUrl": "https://localhost:%d/toolbox" % PORTS["main"],
                                   "proxyTemplateUrl": "https://{{PORT}}-{{sandboxId}}.localhost",
                                   "defaultSnapshot": "daytona-small",
                                   "maxAutoArchiveInterval": 43200, "environment": "test",
                                   "dashboardUrl": "https://localhost/dashboard"})
        if path.startswith("/api/"):
            if not self.authorized():
                return self.api_error(401, "Invalid credentials")
            with LOCK:
                return self.api(path, query, data)
        if path.startswith("/toolbox/"):
            if not self.authorized():
                return self.go_error(401, "UNAUTHORIZED",
                                     "unauthorized: authentication failed: Bearer token is invalid")
            return self.toolbox(path, query, data)
        # Like the real API: an unknown path outside /api/ is the dashboard's HTML.
        self.send(404, b"<html><body>dashboard</body></html>", "text/html")

    do_GET = do_POST = do_DELETE = do_PUT = do_HEAD = handle_any

    # ---- test control ----
    def test_control(self, path, data):
        req = json.loads(data or b"{}")
        with LOCK:
            if path == "/__test/control":
                for k, v in req.items():
                    if k == "queue":
                        CONTROL["queue"].extend(v)
                    else:
                        CONTROL[k] = v
                return self.send(200, CONTROL)
            if path == "/__test/seed":
                sb = new_sandbox(req["labels"], req.get("state", "started"), req.get("days", 0))
                return self.send(200, public(sb))
            if path == "/__test/replace":
                # The place removed the chat's sandbox (30 days unused): the next run makes
                # a new, empty one. Its files go with it.
                for sid in [k for k, v in SANDBOXES.items()
                            if v["labels"].get("conch-chat") == req["chat"]]:
                    del SANDBOXES[sid]
                    shutil.rmtree(os.path.join(STATE, "sandboxes", sid), ignore_errors=True)
                return self.send(200, {})
            if path == "/__test/state":
                return self.send(200, [public(s) for s in SANDBOXES.values()])
        self.send(404, {})

    # ---- the API ----
    def api(self, path, query, data):
        m = re.fullmatch(r"/api/sandbox(?:/([^/]+))?(?:/(start|stop|archive))?", path)
        if not m:
            return self.api_error(404, "Cannot %s %s" % (self.command, path))
        sid, action = m.group(1), m.group(2)
        if sid is None and self.command == "GET":
            return self.list(query)
        if sid is None and self.command == "POST":
            return self.create(json.loads(data or b"{}"))
        sb = SANDBOXES.get(sid)
        if sb is None:
            return self.api_error(404, "Sandbox with ID or name %s not found" % sid)
        if action is None and self.command == "GET":
            return self.send(200, public(sb))
        if action is None and self.command == "DELETE":
            del SANDBOXES[sid]
            shutil.rmtree(os.path.join(STATE, "sandboxes", sid), ignore_errors=True)
            out = public(sb)
            out["state"] = "destroying"
            return self.send(200, out)
        if action == "start" and self.command == "POST":
            return self.start(sb)
        if action == "stop" and self.command == "POST":
            public(sb)
            sb["state"], sb["desiredState"] = "stopped", "stopped"
            return self.send(200, public(sb))
        return self.api_error(404, "Cannot %s %s" % (self.command, path))

    def list(self, query):
        want = json.loads(query.get("labels", ["{}"])[0])
        items = [public(s) for s in SANDBOXES.values()
                 if all(s["labels"].get(k) == v for k, v in want.items())]
        for it in items:
            for k in ("env", "networkBlockAll", "networkAllowList", "volumes", "buildInfo"):
                it.pop(k, None)
        if CONTROL["list_shape"] == "array":
            return self.send(200, items)
        start = int(query.get("cursor", ["0"])[0])
        size = min(int(query.get("limit", ["100"])[0]), CONTROL["page_size"])
        page = items[start:start + size]
        nxt = str(start + size) if start + size < len(items) else None
        self.send(200, {"items": page, "nextCursor": nxt})

    def create(self, req):
        if "cpu" in req and "buildInfo" not in req:
            return self.api_error(400, "Cannot specify Sandbox resources when using a snapshot")
        for k in ("autoStopInterval", "autoArchiveInterval"):
            if k in req and (not isinstance(req[k], int) or req[k] < 0):
                return self.api_error(400, "%s must not be negative" % k)
        sb = new_sandbox(req.get("labels", {}))
        sb["autoStopInterval"] = req.get("autoStopInterval", 15)
        sb["autoArchiveInterval"] = req.get("autoArchiveInterval", 10080)
        if CONTROL["create_fails_after"]:
            sb.pop("_ready_at", None)
            sb["state"], sb["errorReason"] = "error", "the runner lost it"
            return self.api_error(400, "Sandbox failed to start: the runner lost it")
        self.send(200, public(sb))

    def start(self, sb):
        public(sb)
        st = sb["state"]
        if st == "started":
            return self.send(200, public(sb))
        if st in ("error", "build_failed"):
            return self.api_error(400, "Sandbox is in an errored state")
        if st not in ("stopped", "archived", "archiving", "paused"):
            return self.api_error(409, "Sandbox state change in progress")
        sb["state"] = "restoring" if st == "archived" else "starting"
        sb["desiredState"] = "started"
        if not CONTROL["stuck_starting"]:
            sb["_ready_at"], sb["_target"] = time.time() + 0.3, "started"
        sb["lastActivityAt"] = now_iso()
        self.send(200, public(sb))

    # ---- the toolbox ----
    def toolbox(self, path, query, data):
        m = re.fullmatch(r"/toolbox/([^/]+)(/.*)", path)
        with LOCK:
            sb = SANDBOXES.get(m.group(1)) if m else None
            if sb is not None:
                public(sb)
                sb["lastActivityAt"] = now_iso()
        if sb is None:
            return self.go_error(404, "NOT_FOUND", "not found: sandbox not found")
        if sb["state"] != "started":
            return self.go_error(400, "BAD_REQUEST", "bad request: sandbox is not running")
        sid, rest, home = sb["id"], m.group(2), home_of(sb["id"])
        if rest == "/version":
            return self.send(200, {"version": "0.190.0"})
        if rest == "/user-home-dir":
            return self.send(200, {"dir": home})
        if rest == "/process/execute" and self.command == "POST":
            return self.execute(json.loads(data), home)
        if rest == "/files/bulk-upload" and self.command == "POST":
            return self.upload(data, home)
        if rest == "/files/download" and self.command == "GET":
            return self.download(query.get("path", [""])[0], home)
        return self.session(sid, rest, data, home)

    def execute(self, req, home):
        cmd = req.get("command", "")
        if not cmd.strip():
            return self.go_error(400, "BAD_REQUEST", "bad request: command is required")
        limit = CONTROL["exec_timeout"] or req.get("timeout") or None
        p = subprocess.Popen(["sh"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, cwd=home, start_new_session=True,
                             env={"HOME": home, "PATH": os.environ["PATH"], "LANG": "C.UTF-8"})
        try:
            out, _ = p.communicate(cmd.encode(), timeout=limit)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            p.communicate()
            if CONTROL["exec_timeout"]:   # the proxy's own limit: the answer is lost
                return self.send(504, b"<html>504 Gateway Time-out</html>", "text/html")
            return self.go_error(408, "REQUEST_TIMEOUT", "request timeout: command execution timeout")
        self.send(200, {"exitCode": p.returncode, "result": out.decode("utf-8", "replace")})

    def upload(self, data, home):
        if CONTROL["disk_full"]:   # the sandbox's disk is full: the toolbox refuses the file
            return self.go_error(507, "INSUFFICIENT_STORAGE", "write: no space left on device")
        ctype = self.headers.get("Content-Type", "")
        m = re.search(r"boundary=([^;]+)", ctype)
        if not m:
            return self.send(400)
        parts = data.split(b"--" + m.group(1).encode())
        dest, written = None, []
        for part in parts[1:]:
            if part.startswith(b"--"):
                break
            head, _, content = part.partition(b"\r\n\r\n")
            content = content[:-2] if content.endswith(b"\r\n") else content
            name = re.search(rb'name="([^"]+)"', head).group(1).decode()
            if name.endswith(".path"):
                dest = content.decode()
            elif name.endswith(".file") and dest:
                full = dest if dest.startswith("/") else os.path.join(home, dest)
                os.makedirs(os.path.dirname(full), mode=0o755, exist_ok=True)
                with open(full, "wb") as f:
                    f.write(content)
                written.append({"path": dest, "bytes": len(content)})
                dest = None
        self.send(200, {"files": written})

    def download(self, p, home):
        full = p if p.startswith("/") else os.path.join(home, p)
        if CONTROL["hostile_download"] and p.endswith("/out") and self.is_pack(full):
            with open(CONTROL["hostile_download"], "rb") as f:
                return self.send(200, f.read(), "application/octet-stream")
        if os.path.isdir(full):
            return self.send(400)          # these errors come with no body
        if not os.path.isfile(full):
            return self.send(404)
        with open(full, "rb") as f:
            self.send(200, f.read(), "application/octet-stream",
                      {"Content-Disposition": 'attachment; filename="%s"' % os.path.basename(full)})

    @staticmethod
    def is_pack(out_path):
        """The pack script's input is a list of names, not a tar: its output is the archive."""
        try:
            with open(os.path.join(os.path.dirname(out_path), "in"), "rb") as f:
                head = f.read(512)
        except OSError:
            return False
        return len(head) > 0 and head[257:262] != b"ustar"

    def session(self, sid, rest, data, home):
        m = re.fullmatch(r"/process/session(?:/([^/]+))?(/exec|/command/([^/]+)(/logs)?)?", rest)
        if not m:
            return self.go_error(404, "NOT_FOUND", "not found: " + rest)
        sess, what, cid, logs = m.groups()
        if sess is None and self.command == "POST":
            SESSIONS[(sid, json.loads(data)["sessionId"])] = {}
            return self.send(201)
        cmds = SESSIONS.get((sid, sess))
        if cmds is None:
            return self.go_error(404, "NOT_FOUND", "not found: session not found")
        if what is None and self.command == "DELETE":
            for c in cmds.values():
                if c["proc"].poll() is None:
                    os.killpg(c["proc"].pid, signal.SIGKILL)
            del SESSIONS[(sid, sess)]
            return self.send(204)
        if what == "/exec" and self.command == "POST":
            return self.session_exec(cmds, json.loads(data), home)
        c = cmds.get(cid)
        if c is None:
            return self.go_error(404, "NOT_FOUND", "not found: command not found")
        if logs:
            return self.session_logs(c)
        out = {"id": cid, "command": c["command"]}
        if c["proc"].poll() is not None:
            out["exitCode"] = c["proc"].returncode
        self.send(200, out)

    def session_exec(self, cmds, req, home):
        cid = str(uuid.uuid4())
        d = os.path.join(home, "..", "sessions", cid)
        os.makedirs(d)
        outf, errf = open(os.path.join(d, "out"), "wb"), open(os.path.join(d, "err"), "wb")
        p = subprocess.Popen(["sh"], stdin=subprocess.PIPE, stdout=outf, stderr=errf, cwd=home,
                             start_new_session=True,
                             env={"HOME": home, "PATH": os.environ["PATH"], "LANG": "C.UTF-8"})
        p.stdin.write(req["command"].encode())
        p.stdin.close()
        cmds[cid] = {"command": req["command"], "proc": p, "dir": d}
        if req.get("runAsync") or req.get("async"):
            return self.send(202, {"cmdId": cid})
        p.wait()
        self.send(200, {"cmdId": cid, "exitCode": p.returncode, **self.outputs(cmds[cid])})

    def outputs(self, c):
        so = open(os.path.join(c["dir"], "out"), "rb").read()
        se = open(os.path.join(c["dir"], "err"), "rb").read()
        raw = b"".join(b"\x01\x01\x01" + l for l in so.splitlines(True)) + \
            b"".join(b"\x02\x02\x02" + l for l in se.splitlines(True))
        dec = lambda b: b.decode("utf-8", "replace")
        return {"output": dec(raw), "stdout": dec(so), "stderr": dec(se)}

    def session_logs(self, c):
        v = self.headers.get("X-Daytona-SDK-Version")
        o = self.outputs(c)
        if v and tuple(int(x) for x in v.split(".")[:3]) >= (0, 167, 0):
            return self.send(200, o)
        combined = o["stdout"] + o["stderr"]
        self.send(200, combined.encode(), "text/plain")


def serve(evil):
    srv = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    srv.daemon_threads = True
    srv.evil = evil
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(CERT, KEY)
    srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
    PORTS["evil" if evil else "main"] = srv.server_address[1]
    return srv


if __name__ == "__main__":
    main, evil = serve(False), serve(True)
    threading.Thread(target=evil.serve_forever, daemon=True).start()
    with open(os.path.join(STATE, "ports.tmp"), "w") as f:
        f.write("%d %d\n" % (PORTS["main"], PORTS["evil"]))
    os.rename(os.path.join(STATE, "ports.tmp"), os.path.join(STATE, "ports"))
    signal.signal(signal.SIGTERM, lambda *a: os._exit(0))
    main.serve_forever()
